"""A rerun of a fragment the session does not hold runs in full, where Streamlit would drop it: its
AppSession.request_rerun, wrapped.

After a server restart the page reconnects to a new session, which holds none of the page's fragments until its
first run has drawn them (session._run_on_reconnect asks for that run as soon as the page reconnects). Streamlit's
AppSession.request_rerun drops a rerun request that names a fragment the session does not hold ("The fragment with id
… does not exist anymore"), so a click on Add token or on a chart's cell made while that run drew the page was lost.
Here such a request runs in full, with the same widget states, so that the click and its callback take effect.

A run fires a widget's callback only if the session knows the widget (its metadata, registered when a run draws it),
and a new session knows none until its first full run has drawn the page. A click that comes before that run has
ended is held, and `release` (app.py's last line) queues it as the run after it; once the page is built, such a click
runs in full at once.

The drop happens in AppSession.request_rerun itself, on the server's event loop, before any script runs, and
Streamlit offers no hook there: so its method is wrapped by `install`, which startup.install() calls once a process
on app.py's first lines, after checking that this Streamlit has what the wrapper calls (startup.INTERNALS); a click
that reaches a restarted server before that first run is still dropped. Importing this module wraps nothing.
"""

import threading
from collections.abc import Callable, MutableMapping

import streamlit as st
from streamlit.logger import get_logger
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner import RerunData, ScriptRunContext, get_script_run_ctx

BUILT = "_page_built"  # session-state key: a full run of this session has reached the end of app.py
_STREAMLITS = "_streamlits_request_rerun"  # the wrapper's attribute holding the method it wraps
_LOG = get_logger(__name__)  # says when a click waits for the page's first run, or runs in full
_held: dict[str, list[WidgetStates]] = {}  # session id -> the clicks held until its first full run ends
_lock = threading.Lock()  # clicks are held on the server's event loop and released on a session's script thread
CLICKED: list[Callable[[str], None]] = []  # called with a session's id for each rerun its page asks for (a click,
# not a timer's tick): budget.touch, which startup.install() adds after the wrapper is in place


def lost_fragment(client_state: ClientState | None, holds: Callable[[str], bool]) -> bool:
    """Whether the request reruns a fragment the session does not hold. A timer's request (is_auto_rerun) never is:
    a timed fragment the page no longer draws may tick once more, and Streamlit drops that tick on purpose."""
    return (client_state is not None and bool(client_state.fragment_id) and not client_state.is_auto_rerun
            and not holds(client_state.fragment_id))


def in_full(client_state: ClientState) -> ClientState:
    """The same request as a full rerun: the same widget states, query string and page, no fragment."""
    full = ClientState()
    full.CopyFrom(client_state)
    full.ClearField("fragment_id")
    return full


def request_rerun(session: AppSession, client_state: ClientState | None, streamlits: Callable) -> None:
    """Streamlit's request_rerun, but a rerun of a fragment the session does not hold runs in full: at once once the
    session's page is built, else after its first full run (`release`). A full rerun the page asks for meanwhile
    carries every widget's value as it is now, newer than a held click's: the held clicks are dropped rather than
    replayed over it."""
    if lost_fragment(client_state, session.has_fragment):
        with _lock:
            if BUILT not in session.session_state:
                _held.setdefault(session.id, []).append(client_state.widget_states)
                _LOG.info("Fragment %s is not drawn yet: its rerun waits for the page's first run to end",
                          client_state.fragment_id)
                return
        _LOG.info("Fragment %s is not this session's: its rerun runs in full", client_state.fragment_id)
        client_state = in_full(client_state)
    elif client_state is not None and not client_state.fragment_id:
        with _lock:
            _held.pop(session.id, None)
    if client_state is not None and not client_state.is_auto_rerun:
        for clicked in CLICKED:
            clicked(session.id)
    streamlits(session, client_state)


def release() -> None:
    """At the end of a full run: the page is built; the clicks held while it ran are queued as the next run."""
    _release(st.session_state, get_script_run_ctx())


def _release(state: MutableMapping, ctx: ScriptRunContext) -> None:
    """The held clicks go as full reruns with their widget states, which Streamlit merges into one run (the newest
    values, every click's trigger), requested as st.rerun requests a run."""
    with _lock:
        state[BUILT] = True
        held = _held.pop(ctx.session_id, [])
    for widget_states in held:
        ctx.script_requests.request_rerun(RerunData(
            query_string=ctx.query_string, widget_states=widget_states, page_script_hash=ctx.page_script_hash,
            cached_message_hashes=ctx.cached_message_hashes, context_info=ctx.context_info))


def install(cls: type = AppSession) -> None:
    """Wrap cls.request_rerun (Streamlit's, even where an earlier call wrapped it already)."""
    current = cls.request_rerun
    streamlits = getattr(current, _STREAMLITS, current)

    def wrapper(session: AppSession, client_state: ClientState | None = None) -> None:
        request_rerun(session, client_state, streamlits)

    wrapper.__doc__ = request_rerun.__doc__
    setattr(wrapper, _STREAMLITS, streamlits)
    cls.request_rerun = wrapper
