"""What the app changes in its process happens in one call app.py makes (startup.install), never on import; and a
Streamlit without the internals the app leans on fails at once, with one message naming its version and what it
lacks."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import streamlit as st
from streamlit.runtime.app_session import AppSession

from mha.ui import startup

ROOT = Path(__file__).resolve().parents[2]

# The process-wide state a module could change as it is imported: the GIL switch interval, Streamlit's request_rerun
# and connect_session, numpy's error and print settings, warnings' filters, the recursion limit, the threads running,
# the environment, the objects frozen out of the garbage collector's passes.
STATE = textwrap.dedent("""
    import gc, os, sys, threading, warnings
    import numpy as np
    import streamlit
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    def state():
        return dict(switch=sys.getswitchinterval(), rerun=AppSession.request_rerun,
                    connect=WebsocketSessionManager.connect_session, err=np.geterr(),
                    printing=np.get_printoptions(), filters=list(warnings.filters), depth=sys.getrecursionlimit(),
                    threads=threading.active_count(), environ=dict(os.environ), frozen=gc.get_freeze_count())
""")


def _run(code: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", STATE + textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "MHA_GIL_SWITCH_S"}
                         | env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_every_mha_module_changes_nothing_outside_it():
    """Nor fails, settings imported first, an order the app's imports never take (2026-12-07: checkpoints read
    settings' LIMITS while settings imported checkpoints)."""
    out = _run("""
        import importlib, pkgutil
        import mha
        before = state()
        import mha.ui.settings
        names = [m.name for m in pkgutil.walk_packages(mha.__path__, "mha.")]
        for name in names:
            importlib.import_module(name)
        after = state()
        print(len(names), [k for k in before if before[k] != after[k]])
    """)
    count, changed = out.split(" ", 1)
    assert int(count) > 40 and changed == "[]", out


@pytest.mark.parametrize("switch", ["", "0.002"])
def test_install_wraps_streamlit_sets_the_switch_interval_only_if_asked_and_freezes_the_start_up_heap_once(switch):
    """Python's switch interval unless MHA_GIL_SWITCH_S names another (bench/memory.py --switch); what the process
    has loaded, the whole UI with it, frozen out of the garbage collector's passes, once; and large arrays kept in
    mappings of their own: glibc's default makes a 2 MB array in its heap once a 3 MB one has been freed (mallinfo2's
    hblkhd counts only what is mapped)."""
    out = _run("""
        import ctypes
        from mha.ui import budget, reruns, startup, takeover

        class Info(ctypes.Structure):
            _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                        "fsmblks", "uordblks", "fordblks", "keepcost")]
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = Info

        def mapped_after_a_free() -> bool:
            freed = np.ones(3 * 2**20 // 8)
            del freed
            mapped = libc.mallinfo2().hblkhd
            kept = np.ones(2 * 2**20 // 8)
            return libc.mallinfo2().hblkhd - mapped >= kept.nbytes

        print(mapped_after_a_free(), end=" ")
        before = state()
        startup.install()
        print(mapped_after_a_free(), end=" ")
        wrapped, connect = AppSession.request_rerun, WebsocketSessionManager.connect_session
        frozen = gc.get_freeze_count()
        made = [[] for _ in range(1000)]  # a run's objects: a second install must not freeze them (never collected)
        startup.install()
        after = state()
        print(before["rerun"] is not wrapped, after["rerun"] is wrapped,
              getattr(wrapped, reruns._STREAMLITS) is before["rerun"],
              before["connect"] is not connect, after["connect"] is connect,
              getattr(connect, takeover._STREAMLITS) is before["connect"],
              before["frozen"] == 0, after["frozen"] == frozen, "mha.ui.stages" in sys.modules,
              after["switch"] == (budget.SWITCH_S or before["switch"]), after["switch"], frozen)
    """, MHA_GIL_SWITCH_S=switch)
    said, frozen = out.rsplit(" ", 1)
    assert said == f"False True True True True True True True True True True True {float(switch or 0.005)}"
    assert int(frozen) > 100_000  # the UI and what it imports, frozen once (the second install freezes no more)


def test_this_streamlit_has_every_internal_the_app_uses():
    assert startup.missing() == []
    startup.check()


def test_a_missing_internal_fails_with_one_message_naming_the_version_and_the_attribute(monkeypatch):
    monkeypatch.delattr(AppSession, "has_fragment")
    with pytest.raises(startup.StreamlitMismatch) as e:
        startup.check()
    message = str(e.value)
    assert f"Streamlit {st.__version__}" in message
    assert "streamlit.runtime.app_session.AppSession.has_fragment" in message
    assert startup.missing() == ["streamlit.runtime.app_session.AppSession.has_fragment"]  # that one, nothing else


def test_a_missing_module_or_dataclass_field_is_named_too():
    internals = (("streamlit.no_such_module", "Thing"), ("streamlit.runtime.scriptrunner", "RerunData.no_field"),
                 ("streamlit.runtime.scriptrunner", "RerunData.query_string"))
    assert startup.missing(internals) == ["streamlit.no_such_module.Thing",
                                          "streamlit.runtime.scriptrunner.RerunData.no_field"]
