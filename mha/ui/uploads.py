"""How much one page may upload, and every page together; and an upload let go once read.

Streamlit's upload endpoint (PUT /_stcore/upload_file/<session>/<file>) keeps each file it takes (up to the server's
maxUploadSize, 1 MB here) in memory for any live session, whether or not that session's page has a file box, and as
many as it is sent, until the session ends. One client could hold as much memory as it has time to send. Here a
session holds at most SESSION_MAX bytes of uploads and the process at most PROCESS_MAX: a file past either is
refused with HTTP 413 (the page's box says the upload failed), unless files held longer than UNREAD_S make the room:
the only file box (a checkpoint's files, heads/real.py) reads its files on the run the upload starts and lets them go
(`release`), so a file still held after that long was sent to no box, and three sessions sending such files could
otherwise keep every other page from uploading for as long as they stayed open (red team 2026-12-06 R5).

Streamlit offers no hook there, so MemoryUploadedFileManager.add_file is wrapped by `install`, which
startup.install() calls once a process, after checking that this Streamlit has what the wrapper reads
(startup.INTERNALS). Importing this module wraps nothing.
"""

import threading
import time
from collections.abc import Callable, Iterable

from starlette.exceptions import HTTPException
from streamlit.logger import get_logger
from streamlit.runtime import Runtime
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from .shared import MB

SESSION_MAX = 6 * MB  # a checkpoint's five files at the upload limit, and one more
PROCESS_MAX = 16 * MB  # every page's uploads not yet read (README, Memory: with the checkpoints, the table's margin)
UNREAD_S = 30.0  # s after which a file no box has read may be dropped to make room for another
_sent: dict[tuple[str, str], float] = {}  # (session id, file id) -> when it was taken (time.monotonic())
_sent_lock = threading.Lock()
_STREAMLITS = "_streamlits_add_file"  # the wrapper's attribute holding the method it wraps
_LOG = get_logger(__name__)


def add_file(manager: MemoryUploadedFileManager, streamlits: Callable, session_id: str, file) -> None:
    """Streamlit's add_file, unless the file would take the session past SESSION_MAX or the process past
    PROCESS_MAX (a file sent again under its id counts once) even once the files held longer than UNREAD_S are
    dropped."""
    for attempt in range(2):
        with manager._lock:
            mine = manager.file_storage.get(session_id, {})
            replaced = len(mine[file.file_id].data) if file.file_id in mine else 0
            held_here = sum(len(f.data) for f in mine.values()) - replaced
            held_all = manager._total_bytes - replaced
        if held_here + len(file.data) <= SESSION_MAX and held_all + len(file.data) <= PROCESS_MAX:
            break
        if attempt or not _drop_unread(manager):
            _LOG.warning("An upload of %d bytes refused: the session holds %d, the process %d", len(file.data),
                         held_here, held_all)
            raise HTTPException(status_code=413, detail="This server holds no more uploads for now.")
    streamlits(manager, session_id=session_id, file=file)
    with _sent_lock:
        _sent[session_id, file.file_id] = time.monotonic()


def _drop_unread(manager: MemoryUploadedFileManager) -> bool:
    """Drop every file held longer than UNREAD_S (and forget those Streamlit no longer holds); whether any went."""
    now = time.monotonic()
    with _sent_lock:
        stale = [k for k, when in _sent.items() if now - when > UNREAD_S]
        for k in stale:
            del _sent[k]
    dropped = False
    for session_id, file_id in stale:
        with manager._lock:
            held = file_id in manager.file_storage.get(session_id, {})
        if held:
            manager.remove_file(session_id, file_id)
            dropped = True
    return dropped


def release(file_ids: Iterable[str]) -> None:
    """Let go of this session's uploaded files once read (outside a server's run, as under AppTest: nothing)."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return
    manager = Runtime.instance().uploaded_file_mgr
    for file_id in file_ids:
        manager.remove_file(ctx.session_id, file_id)
        with _sent_lock:
            _sent.pop((ctx.session_id, file_id), None)


def install(cls: type = MemoryUploadedFileManager) -> None:
    """Wrap cls.add_file (Streamlit's, even where an earlier call wrapped it already)."""
    current = cls.add_file
    streamlits = getattr(current, _STREAMLITS, current)

    def wrapper(manager, session_id: str, file) -> None:
        add_file(manager, streamlits, session_id, file)

    wrapper.__doc__ = add_file.__doc__
    setattr(wrapper, _STREAMLITS, streamlits)
    cls.add_file = wrapper
