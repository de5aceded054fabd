"""A second connection that names a live session's id gets a session of its own, and the live one is left as it is.

The browser names its session's id when it reconnects, so that a page whose socket dropped gets its session back
(widgets, clicked cell, quiz). Streamlit also hands over a session whose socket is still open: it disconnects that
socket and gives the session to the newcomer. A client that knows or guesses a live id could then take a page over,
and mix its own widget states into that page's runs. Here a connection naming a session that is still connected is
given a new session instead: the page it opens comes from its link, as any new page does. A session whose socket has
closed is resumed as before.

Streamlit offers no hook there, so WebsocketSessionManager.connect_session is wrapped by `install`, which
startup.install() calls once a process, after checking that this Streamlit has what the wrapper reads
(startup.INTERNALS). Importing this module wraps nothing.
"""

from collections.abc import Callable

from streamlit.logger import get_logger
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

_STREAMLITS = "_streamlits_connect_session"  # the wrapper's attribute holding the method it wraps
_LOG = get_logger(__name__)


def connect_session(manager, streamlits: Callable, *args, existing_session_id: str | None = None, **kwargs) -> str:
    """Streamlit's connect_session, but an id whose session is still connected is not handed over: a new session."""
    if existing_session_id is not None and manager.is_active_session(existing_session_id):
        _LOG.warning("A connection named session %s, which is still connected: it gets a session of its own",
                     existing_session_id)
        existing_session_id = None
    return streamlits(manager, *args, existing_session_id=existing_session_id, **kwargs)


def install(cls: type = WebsocketSessionManager) -> None:
    """Wrap cls.connect_session (Streamlit's, even where an earlier call wrapped it already)."""
    current = cls.connect_session
    streamlits = getattr(current, _STREAMLITS, current)

    def wrapper(manager, *args, **kwargs) -> str:
        return connect_session(manager, streamlits, *args, **kwargs)

    wrapper.__doc__ = connect_session.__doc__
    setattr(wrapper, _STREAMLITS, streamlits)
    cls.connect_session = wrapper
