"""What the app changes in its process, and the Streamlit internals it leans on: one call, `install()`, that app.py
makes before it imports the rest of the UI. Importing any mha module changes nothing outside it.

The app reads and wraps a few of Streamlit's internals (not its public API), which a new release may rename or drop.
requirements.txt pins the Streamlit they were checked on; `install()` checks each of them first, so that a
different Streamlit fails at once with one message naming its version and what it lacks, rather than a click being
lost, a limit misread or an ImportError deep in a module.

What install() then changes, once a process:
- AppSession.request_rerun is wrapped (reruns.py: a click on a fragment the session does not hold runs in full);
- WebsocketSessionManager.connect_session is wrapped (takeover.py: a connection naming a live session gets its own);
- MemoryUploadedFileManager.add_file is wrapped (uploads.py: a page's and the process's uploads are bounded);
- each click a page sends counts as its use for the seat its view holds (reruns.CLICKED gets budget.touch);
- the interpreter's GIL switch interval is set to budget.SWITCH_S where MHA_GIL_SWITCH_S gives one (budget.py);
- what the process has loaded by then, the whole UI imported first, is frozen out of the garbage collector's passes
  (`_freeze`);
- glibc's malloc maps each allocation of MAPPED_FROM bytes or more on its own, and unmaps it when freed (`_map_large`).
"""

import ctypes
import ctypes.util
import dataclasses
import gc
import importlib
import inspect
import re
import sys
import threading

import streamlit as st

# (module, attribute path): each internal the app uses, and where. A dataclass's field counts as its attribute, and so
# does an attribute a class's __init__ sets on each instance.
INTERNALS = (
    ("streamlit.runtime.app_session", "AppSession.request_rerun"),  # reruns: wrapped
    ("streamlit.runtime.app_session", "AppSession.has_fragment"),  # reruns: whether the session holds a fragment
    ("streamlit.runtime.app_session", "AppSession.session_state"),  # reruns: whether the page is built
    ("streamlit.runtime.scriptrunner", "RerunData.query_string"),  # reruns: a held click queued as a run
    ("streamlit.runtime.scriptrunner", "RerunData.widget_states"),
    ("streamlit.runtime.scriptrunner", "RerunData.page_script_hash"),
    ("streamlit.runtime.scriptrunner", "RerunData.cached_message_hashes"),
    ("streamlit.runtime.scriptrunner", "RerunData.context_info"),
    ("streamlit.runtime.scriptrunner", "ScriptRunContext.session_id"),  # reruns, budget, prepared: whose run
    ("streamlit.runtime.scriptrunner", "ScriptRunContext.script_requests"),
    ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
    ("streamlit.runtime", "Runtime.exists"),  # budget, prepared: which sessions are still connected
    ("streamlit.runtime", "Runtime.instance"),
    ("streamlit.runtime", "Runtime.is_active_session"),
    ("streamlit.runtime", "Runtime.media_file_mgr"),  # prepared: a closed session's download files released
    ("streamlit.runtime.media_file_manager", "MediaFileManager.clear_session_refs"),
    ("streamlit.runtime.media_file_manager", "MediaFileManager.remove_orphaned_files"),
    ("streamlit.runtime", "Runtime.get_app_session"),  # prepared: a page whose files were let go is redrawn
    ("streamlit.runtime", "Runtime._session_mgr"),  # prepared.reap: closed tabs' sessions let go once expired
    ("streamlit.runtime.websocket_session_manager", "WebsocketSessionManager._storage_lock"),
    ("streamlit.runtime.websocket_session_manager", "WebsocketSessionManager._session_storage"),
    ("streamlit.runtime.memory_session_storage", "MemorySessionStorage._cache"),
    ("streamlit.runtime.caching.ttl_cache", "TTLCache.expire"),
    ("streamlit.runtime.app_session", "AppSession._call_soon_on_event_loop"),
    ("streamlit.runtime.app_session", "AppSession._client_state"),
    ("streamlit.runtime.websocket_session_manager", "WebsocketSessionManager.connect_session"),  # takeover: wrapped
    ("streamlit.runtime.websocket_session_manager", "WebsocketSessionManager.is_active_session"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager.add_file"),  # uploads: wrapped
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager.remove_file"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager.file_storage"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager._total_bytes"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager._lock"),
    ("streamlit.runtime", "Runtime.uploaded_file_mgr"),  # uploads: a page's upload let go once read
    ("starlette.exceptions", "HTTPException"),  # uploads: a file past the limits refused with 413
    ("streamlit.runtime.state.query_params", "CLIENT_STATE_QUERY_STRING_MAX_LENGTH"),  # screen: the longest link
    ("streamlit.runtime.state.query_params", "CLIENT_STATE_QUERY_STRING_MAX_FIELDS"),
)
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
MAPPED_FROM = 1 << 20  # bytes: an allocation this large gets a mapping of its own, handed back when it is freed
_once = threading.Lock()
_installed: list[bool] = []


class StreamlitMismatch(RuntimeError):
    """This Streamlit lacks an internal the app uses."""


def _has(obj, name: str) -> bool:
    if hasattr(obj, name):
        return True
    if dataclasses.is_dataclass(obj):
        return name in {f.name for f in dataclasses.fields(obj)}
    return inspect.isclass(obj) and re.search(rf"self\.{name}\s*[:=]", inspect.getsource(obj.__init__)) is not None


def missing(internals=INTERNALS) -> list[str]:
    """The internals this Streamlit lacks, each as module.attribute."""
    lacking = []
    for module, path in internals:
        try:
            obj = importlib.import_module(module)
        except ImportError:
            lacking.append(f"{module}.{path}")
            continue
        for name in path.split("."):
            if not _has(obj, name):
                lacking.append(f"{module}.{path}")
                break
            obj = getattr(obj, name, None)
    return lacking


def check(internals=INTERNALS) -> None:
    """StreamlitMismatch, with one message naming this Streamlit's version and what it lacks, if it lacks any."""
    if lacking := missing(internals):
        raise StreamlitMismatch(
            f"MHA Explorer needs Streamlit internals that Streamlit {st.__version__} does not have: "
            f"{', '.join(lacking)}. Install the version requirements.txt names "
            f"(pip install -r requirements.txt).")


def install() -> None:
    """Check the internals, then wrap Streamlit's calls, set the switch interval, freeze the start-up heap and fix
    malloc's mapping threshold, once a process."""
    with _once:
        if _installed:
            return
        check()
        from . import reruns, takeover, uploads  # after the check: they import internals (and little else: a click
        # the page sends after a restart is dropped by Streamlit until the wrapper is in place)

        reruns.install()
        takeover.install()
        uploads.install()
        from . import budget

        reruns.CLICKED.append(budget.touch)  # a click keeps the page's seat for views shown
        if budget.SWITCH_S is not None:
            sys.setswitchinterval(budget.SWITCH_S)
        _freeze()
        _map_large()
        _installed.append(True)


def _map_large() -> None:
    """glibc's malloc maps an allocation of 128 KB or more on its own, and hands it back when it is freed; but the first
    such free raises that threshold to the freed size (up to 32 MB), so the arrays of a page at the caps or a large
    download's files are made in its heaps from then on, and a heap seldom shrinks when they are freed. A fixed
    threshold keeps them mapped: the red team's prepare churn peaked 60-100 MB lower for the same CPU
    (bench/README.md). Nothing where the C library is not glibc's."""
    libc = ctypes.util.find_library("c")
    mallopt = getattr(ctypes.CDLL(libc), "mallopt", None) if libc else None
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, MAPPED_FROM)


def _freeze() -> None:
    """Move what the process has loaded by now (Streamlit, numpy, pandas, Plotly, the whole UI: ~125k objects that
    live as long as the process) out of the garbage collector's reach. Python's full collection walks every tracked
    object; under load it ran every few seconds for ~90 ms, with the GIL held, and every page's run waited for it: the
    tail of an ordinary page's reruns while others walk the caps (bench/README.md, "The seventeenth session")."""
    for module in ("sidebar", "stages"):  # what app.py imports next, which imports the rest
        importlib.import_module(f"{__package__}.{module}")
    gc.collect()
    gc.freeze()
