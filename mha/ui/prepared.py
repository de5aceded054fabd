"""The download panel's files: built on request, one copy per view for the whole process, held within a byte budget,
and let go with the sessions that showed them.

A download button hands its bytes to Streamlit's media file manager, which keeps them registered to the session
(and stored) until the session's next full run. A session whose tab closes waits server.disconnectedSessionTTL for
the tab to come back and is then dropped without being shut down, so Streamlit never releases what it registered:
its files stayed for the life of the process. Here each view's three files are one value of FILES, and the bytes the
media file manager stores are these same objects, not copies. When the budget lets a view's files go, the sessions
showing them give up their registrations, and their pages are redrawn at once with a Prepare button; a janitor
thread gives up those of sessions that have closed, drops the files no session still open asked for, lets go of the
closed tabs' sessions once Streamlit's time for them to come back is over, and hands the memory the process let go of
(these files, those sessions, and every cache's values) back to the system.
"""

import ctypes
import ctypes.util
import logging
import os
import threading
import time
from collections.abc import Hashable
from contextlib import nullcontext

import numpy as np
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

import mha

from . import exports
from .reruns import in_full
from .shared import HEAVY, MB, Shared

BUDGET = 80 * MB  # the largest view's three files (~76 MB) fit, alone
BYTES_PER_NUMBER = 38  # the three files of a view with Gaussian weights: ~7.4 B (.npz) + ~21 (.json) + ~9.6 (.csv.zip)
# seconds between the janitor's passes: a closed session's files go within about a minute. MHA_JANITOR_S sets it for
# a server of its own (tests/e2e/test_memory_e2e.py runs the same passes at 3 s, to keep CI within its 15 minutes)
JANITOR_S = float(os.environ.get("MHA_JANITOR_S", "15"))

HEAVY_BUILD = 500_000  # numbers: a download this large (~19 MB of files) is built in the heavy lane, never beside a
# large view's draw (red team 2026-12-06 R7: the largest's build, ~90 MB at work, beside four pages at the caps: 743 MB)
_building = threading.Lock()  # one build at a time: two large views' files and working memory are never made at once
_janitor: list[threading.Thread] = []
_log = logging.getLogger(__name__)
_libc = ctypes.util.find_library("c")
_malloc_trim = getattr(ctypes.CDLL(_libc), "malloc_trim", None) if _libc else None
_lock = threading.Lock()  # guards the four below
_showing: dict[str, Hashable] = {}  # session id -> the view whose files its last full run registered
_asked: dict[str, set[Hashable]] = {}  # session id -> the views whose files it has shown
_inactive: set[str] = set()  # sessions the janitor found disconnected on its last pass
_let_go: set[str] = set()  # sessions whose shown files the budget let go, until their page has said so


def _dropped(view: Hashable, _files) -> None:
    """The budget let go of a view's files: the sessions showing them give up their registrations, and each of
    their pages is redrawn at once (other than the page whose run let them go, which is drawing anyway), so that it
    offers to write them again, and says why, before a click on a dead button could fail."""
    with _lock:
        holders = [sid for sid, shown in _showing.items() if shown == view]
        for sid in holders:
            del _showing[sid]
        _let_go.update(holders)
    if Runtime.exists():
        runtime = Runtime.instance()
        _release(holders, runtime.media_file_mgr)
        _redraw([sid for sid in holders if sid != _session_id()], runtime)


def _redraw(sessions: list[str], runtime) -> None:
    """Rerun these sessions' pages in full with their widgets as their last run left them, as Streamlit reruns a
    page when its source changes: the request is made on the server's event loop, where a session's reruns are."""
    for sid in sessions:
        session = runtime.get_app_session(sid)
        if session is not None:
            session._call_soon_on_event_loop(lambda s=session: s.request_rerun(in_full(s._client_state)))


def let_go() -> bool:
    """Whether the files this session's page last showed were let go for another page's since (said once)."""
    sid = _session_id()
    with _lock:
        if sid in _let_go:
            _let_go.discard(sid)
            return True
    return False


FILES = Shared(BUDGET, dropped=_dropped)


def ready(view: Hashable) -> dict[str, bytes] | None:
    """The view's files if the process holds them."""
    return FILES.peek(view)


def prepare(view: Hashable, x: np.ndarray, w: mha.Weights, cfg: mha.AttentionConfig,
            part: exports.Part | None = None, source: exports.Source = exports.WALK) -> dict[str, bytes]:
    """The view's files, written once for the process, after the least recently shown have made room for them."""
    with HEAVY if exports.export_size(cfg, part) > HEAVY_BUILD else nullcontext(), _building:  # in this order only
        found = FILES.peek(view)  # another session may have written them while this one waited
        if found is not None:
            return found
        FILES.room(BYTES_PER_NUMBER * exports.export_size(cfg, part))
        return FILES.get(view, lambda: exports.files(x, w, cfg, part, source))


def show(view: Hashable | None) -> None:
    """This full run of the session registered the files of `view` (None: no files)."""
    sid = _session_id()
    if sid is None:
        return
    with _lock:
        if view is None:
            _showing.pop(sid, None)
        else:
            _showing[sid] = view
            _asked.setdefault(sid, set()).add(view)
    _start_janitor()


def _session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else None


def _release(sessions: list[str], manager) -> None:
    """Give up the media file registrations of these sessions, and sweep. Streamlit deletes a download's file at
    the second sweep that finds it unregistered (the end of any session's run, or the janitor's next pass), so that a
    click between two runs of its own session still finds its file."""
    for sid in sessions:
        manager.clear_session_refs(sid)
    manager.remove_orphaned_files()


def sweep(runtime: Runtime) -> None:
    """The janitor's pass: a session found disconnected on two passes in a row has closed (a reconnecting tab is
    back within seconds, and reruns: the page's timed fragment asks for it). Its registrations go, and the files of
    views no open session asked for."""
    with _lock:
        inactive = {sid for sid in _asked.keys() | _showing.keys() if not runtime.is_active_session(sid)}
        closed = sorted(inactive & _inactive)
        _inactive.clear()
        _inactive.update(inactive - set(closed))
        left = set()
        for sid in closed:
            _showing.pop(sid, None)
            _let_go.discard(sid)
            left |= _asked.pop(sid, set())
        still = set().union(*_asked.values())
    for view in left - still:
        FILES.pop(view)
    _release(closed, runtime.media_file_mgr)


def reap(runtime: Runtime) -> int:
    """Let go of the closed tabs' sessions whose time to come back (server.disconnectedSessionTTL) is over; return
    how many. Streamlit's store of them drops an expired one only at its next write (another tab closing), so after
    the last tab of a class had closed, every session stayed, and the memory of its page with it. The store is
    written under its manager's lock, which this holds too."""
    manager = runtime._session_mgr
    with manager._storage_lock:
        return len(manager._session_storage._cache.expire())


def _start_janitor() -> None:
    with _lock:
        if _janitor:
            return
        _janitor.append(threading.Thread(target=_keep_sweeping, name="mha-downloads-janitor", daemon=True))
    _janitor[0].start()


def _keep_sweeping() -> None:
    while True:
        time.sleep(JANITOR_S)
        try:
            janitor_pass()
        except Exception:  # said, and tried again at the next pass: a janitor that died would keep the files
            _log.exception("the downloads' janitor failed a pass")


def janitor_pass() -> None:
    """One pass: sweep the files nobody shows, reap the expired sessions, trim the heaps. While an AppTest runs, the
    runtime is its stand-in, with no sessions to reap. A pass that failed there had its traceback logged from this
    thread, and Python 3.11 parses source to draw a traceback's carets: with one AST depth counter for all threads
    (gh-106905), that parse broke the script compile of the AppTest running beside it."""
    if Runtime.exists():
        runtime = Runtime.instance()
        sweep(runtime)
        if hasattr(runtime, "_session_mgr"):
            reap(runtime)
    _trim()


def _trim() -> None:
    """Hand back to the system the pages that freed memory leaves inside the C allocator's heaps (glibc's
    malloc_trim). Arrays and files of a few MB are made in those heaps, and a heap keeps the pages of what was freed
    in its middle: without this, a process that had let go of a view's weights or files kept much of their size.
    Nothing where the C library has no malloc_trim."""
    if _malloc_trim:
        _malloc_trim(0)
