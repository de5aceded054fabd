"""The classroom on the page (issue 44): the presenter opens a room and drives it, the room's pages follow.

- `room=new` (or the sidebar's button) opens a room: the presenter's page gets its code, a join link shown as a QR
  code, and its own address with the room's key (`room=CODE&key=…`), so a reload keeps it driving.
- `room=CODE` joins it: the page follows the presenter's view (session.follow, through the link's own parser), keeping
  its own language, projector and cell numbers. "Explore on my own" lets go; "Follow again" takes the newest view.
- A page is told of a newer view by a rerun the server starts (the presenter's send calls each follower's notify):
  no page polls, and an idle follower costs nothing. Only the presenter's room panel reruns every few seconds, for
  the head count.
- The key is only ever in the presenter's own address bar and its panel, never in a follower's page or link, nor in
  the share panel's link or a download.
"""

import re
import threading
import time

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import budget, session
from .rooms import CODE_LENGTH, KEEP_EVERY_S, SENDS_PER_S, STORE, RoomError, RoomUnreachable, shared_view
from .settings import Notice
from .strings import Text

CODE, KEY, FOLLOW, SEEN, SAID = "room", "room_key", "room_follow", "room_seen", "room_said"
ASKED = "room_asked"  # the number of the room's question this page was asked last
SHOWN = "room_shown"  # a follower's view as its run after the room's last view wrote it (None: write it next)
ENTERED = "room_entered"  # the link's room= was read (once a session)
CODE_FORM = re.compile(rf"[A-Za-z0-9]{{{CODE_LENGTH}}}")
TELL_AFTER_S = 0.15  # a presenter's rerun takes about 0.05 s on the post's sizes: its run ends before the room's start
_due: dict[str, set[str]] = {}  # room code -> its followers' sessions to rerun at the next _tell
_due_lock = threading.Lock()


def session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else None


def _notifier(sid: str, code: str):
    """How a follower's page is told of a newer view: a full rerun of its session, asked for on the server's event
    loop with its widgets as they are (no click is replayed), which applies the view at its start. The reruns of a
    room start together, TELL_AFTER_S after the presenter's send, so that the presenter's own run ends first."""
    def notify() -> None:
        with _due_lock:
            first = not _due
            _due.setdefault(code, set()).add(sid)
        if first:
            threading.Timer(TELL_AFTER_S, _tell).start()
    return notify


def _tell() -> None:
    """Rerun the followers due, room by room; a room whose followers' runs are over its pace (budget.paced: they pay
    the room's) is told again once they are under it. Its pages then take the newest view, however many were sent
    meanwhile: one change sent to many pages, or many changes, cost what the room's pace allows (red team
    2026-12-07 T1)."""
    now = time.monotonic()
    with _due_lock:
        due = {code: sids for code, sids in _due.items() if budget.spent(f"room {code}", now) <= budget.PACE_CPU_S}
        for code in due:
            del _due[code]
        later = bool(_due)
    if later:
        threading.Timer(budget.PACE_WINDOW_S / 6, _tell).start()
    if not Runtime.exists():
        return
    for sid in (sid for sids in due.values() for sid in sids):
        page = Runtime.instance().get_app_session(sid)
        if page is not None:
            page._call_soon_on_event_loop(lambda page=page: page.request_rerun(None))


def payer() -> str | None:
    """Whose pace a run of this page counts towards (budget.paced): a follower's, its room's, whose every follower
    reruns on one change; else the page's own (None)."""
    ss = st.session_state
    return f"room {ss[CODE]}" if ss.get(CODE) and ss.get(FOLLOW) and not presenting() else None


def alive(sid: str) -> bool:
    return not Runtime.exists() or Runtime.instance().is_active_session(sid)


def presenting() -> bool:
    return bool(st.session_state.get(KEY))


def say(key: str, **values) -> None:
    """A word for this page about its room, said with the page's notices (which stay until dismissed) from the
    start of its next run, or of this one if it has not built its notices yet."""
    said = st.session_state.setdefault(SAID, [])
    if Notice(key, values) not in said:
        said.append(Notice(key, values))


def reach(call, *args, otherwise=None):
    """A call to the rooms' store; when the store (Redis) does not answer, the page says so and gets `otherwise`,
    keeping its room and its view."""
    try:
        return call(*args)
    except RoomUnreachable:
        say("room_unreachable")
        return otherwise


def enter() -> None:
    """On every full run, right after session.start: the link's room read once, then a follower's newest view
    applied (before any widget is built), then what the room has to say added to the page's notices."""
    _enter()
    ss = st.session_state
    if said := ss.pop(SAID, None):
        ss["notices"] = [*ss.get("notices", []), *(n for n in said if n not in ss.get("notices", []))]


def _enter() -> None:
    ss = st.session_state
    if not ss.get(ENTERED):
        ss[ENTERED] = True
        asked = st.query_params.get("room")
        if asked == "new":
            open_room()
        elif asked:
            join(asked, st.query_params.get("key"))
    code = ss.get(CODE)
    if code and not presenting():
        reach(_take_view, code)


def _take_view(code: str) -> None:
    """A follower's page in room `code`: counted (and told, while it follows), and the room's newest view and
    question taken."""
    ss = st.session_state
    if not STORE.exists(code):
        say("room_gone", code=code)
        ss.pop(CODE)
        return
    sid = session_id()
    if sid:
        try:
            STORE.join(code, sid, _notifier(sid, code) if ss.get(FOLLOW) else None)
        except RoomUnreachable:
            raise
        except RoomError as e:
            say(e.key, **e.values)
            ss.pop(CODE)
            return
    if ss.get(FOLLOW):
        version, view = STORE.view(code)
        if version > ss.get(SEEN, 0):
            session.follow(view)
            ss[SEEN], ss[SHOWN] = version, None
        q = STORE.question(code)
        if q is not None and q.number > ss.get(ASKED, 0):  # the presenter's quiz, asked of this page's product
            ss[f"quiz_{q.product}"], ss[f"quiz_answer_{q.product}"] = q.cell, None
            ss[f"quiz_checked_{q.product}"], ss[ASKED] = False, q.number


def open_room() -> None:
    ss = st.session_state
    try:
        ss[CODE], ss[KEY] = STORE.open()
    except RoomError as e:
        say(e.key, **e.values)


def join(code: str, key: str | None = None) -> None:
    """Join room `code` (as typed: case is not read), driving it if `key` is its key."""
    ss = st.session_state
    code = code[:4 * CODE_LENGTH].strip().upper()  # cut before anything reads it (a link may carry 60,000 characters)
    if not CODE_FORM.fullmatch(code):
        say("room_code_bad", length=CODE_LENGTH)
        return
    there = reach(STORE.exists, code)
    if there is None:
        return
    if not there:
        say("room_gone", code=code)
        return
    if key and reach(STORE.drives, code, key):
        ss[CODE], ss[KEY] = code, key
        return
    if key:
        say("room_not_yours", code=code)
    ss[CODE], ss[FOLLOW], ss[SEEN] = code, True, 0


def _explore() -> None:
    """This page stops following: it stays in the room's count and is no longer told of new views."""
    ss = st.session_state
    ss[FOLLOW] = False
    sid = session_id()
    if sid and ss.get(CODE) and reach(STORE.exists, ss[CODE]):
        reach(STORE.join, ss[CODE], sid, None)


def _follow_again() -> None:
    st.session_state[FOLLOW], st.session_state[SEEN], st.session_state[SHOWN] = True, 0, None


def address(params: dict[str, str]) -> dict[str, str]:
    """The address bar's parameters: the view's, and the room's code (with the key on the presenter's page only)."""
    ss = st.session_state
    if not ss.get(CODE):
        return params
    return dict(params, room=ss[CODE], **({"key": ss[KEY]} if presenting() else {}))


def unaddressed(query: dict[str, str]) -> dict[str, str]:
    """The address bar's parameters without the room's: the view."""
    return {k: v for k, v in query.items() if k not in ("room", "key")}


def send(params: dict[str, str]) -> None:
    """The presenter's view, to the room (a view it already holds is not sent again). On a follower's page, a view
    that is no longer the one the room's last view gave means the reader changed it: the page explores on its own
    from then on (and says so), rather than have the room's next view undo the change."""
    ss = st.session_state
    if ss.get(CODE) and ss.get(FOLLOW) and not presenting():
        mine = shared_view(params)
        if ss.get(SHOWN) is None:
            ss[SHOWN] = mine
        elif mine != ss[SHOWN]:
            _explore()
            say("room_went_own")
            st.rerun(scope="app")  # the line over the stage said "following" on this run
    if presenting():
        try:
            if not STORE.send(ss[CODE], ss[KEY], params):
                say("room_slow", n=SENDS_PER_S)
        except RoomUnreachable:
            say("room_unreachable")  # the store sends this view once it answers again
        except RoomError as e:
            say(e.key, **e.values)
            ss.pop(CODE), ss.pop(KEY)


def banner(t: Text) -> None:
    """A follower's line over the stage: which room, how many, and the way out or back (the presenter's line is
    room_panel.banner's); on the presenter's page, the timed fragment that keeps its room."""
    ss = st.session_state
    code = ss.get(CODE)
    if code and presenting():
        _keep()
    if not code or presenting():
        return
    heads = reach(lambda: STORE.heads(code, alive) if STORE.exists(code) else 0, otherwise="?")
    row = st.container(horizontal=True, vertical_alignment="center", key="room_banner")
    if ss.get(FOLLOW):
        row.markdown(t("room_following", code=code, heads=heads))
        row.button(t("room_explore"), key="room_explore", on_click=_explore)
    else:
        row.markdown(t("room_exploring", code=code))
        row.button(t("room_follow_again"), key="room_follow_again", on_click=_follow_again)


@st.fragment(run_every=KEEP_EVERY_S)
def _keep() -> None:
    """Draws nothing: the presenter's open page tells its room it is in use, so that it never gives way to a new room
    (rooms.GIVE_WAY_S), however long the view stays as it is."""
    ss = st.session_state
    if ss.get(CODE) and presenting():
        try:
            reach(STORE.keep, ss[CODE], ss[KEY])
        except RoomError as e:
            say(e.key, **e.values)  # said on the page's next run, whose send finds the room gone too


def asked(product: str, cell: tuple[int, int]) -> str | None:
    """Whether this quiz is the room's question to this page: "open" (answers are taken, the verdict waits),
    "closed" (the verdict is shown), or None (the page's own quiz)."""
    ss = st.session_state
    if not ss.get(CODE) or presenting() or not ss.get(ASKED) or not reach(STORE.exists, ss[CODE]):
        return None
    q = reach(STORE.question, ss[CODE])
    if q is None or q.number != ss[ASKED] or q.product != product or q.cell != tuple(cell):
        return None
    return "open" if q.open else "closed"


def ask(product: str, cell: tuple[int, int]) -> None:
    """The presenter asks the room a product's cell: every following page opens that quiz, on the same cell."""
    ss = st.session_state
    try:
        STORE.ask(ss[CODE], ss[KEY], product, cell)
    except RoomError as e:
        say(e.key, **e.values)


def answer(value: float, right: bool) -> bool:
    """This page's answer to the room's open question (False: the question was closed meanwhile)."""
    ss, sid = st.session_state, session_id()
    return bool(sid) and bool(reach(STORE.answer, ss[CODE], sid, ss[ASKED], value, right))
