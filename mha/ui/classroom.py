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
from collections import Counter

import segno
import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import session
from .rooms import CODE_LENGTH, SENDS_PER_S, STORE, RoomError, shared_view
from .settings import Notice
from .strings import Text

CODE, KEY, FOLLOW, SEEN, SAID = "room", "room_key", "room_follow", "room_seen", "room_said"
ASKED = "room_asked"  # the number of the room's question this page was asked last
SHOWN = "room_shown"  # a follower's view as its run after the room's last view wrote it (None: write it next)
ENTERED = "room_entered"  # the link's room= was read (once a session)
CODE_FORM = re.compile(rf"[A-Za-z0-9]{{{CODE_LENGTH}}}")
HEADS_EVERY = "3s"  # the presenter's panel counts the room this often (one page's fragment: followers never poll)
TELL_AFTER_S = 0.15  # a presenter's rerun takes about 0.05 s on the post's sizes: its run ends before the room's start
_due: set[str] = set()  # followers' sessions to rerun at the next _tell
_due_lock = threading.Lock()
TALLY_ROWS, BAR = 6, 6  # the answers the presenter's panel lists; the longest bar, in blocks (one line in the sidebar)
QR_PX = 340  # the join code on a 720 px projector, whole under the dialog's title, scannable across a room


def _session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx else None


def _notifier(sid: str):
    """How a follower's page is told of a newer view: a full rerun of its session, asked for on the server's event
    loop with its widgets as they are (no click is replayed), which applies the view at its start. The reruns of a
    room start together, TELL_AFTER_S after the presenter's send, so that the presenter's own run ends first."""
    def notify() -> None:
        with _due_lock:
            first = not _due
            _due.add(sid)
        if first:
            threading.Timer(TELL_AFTER_S, _tell).start()
    return notify


def _tell() -> None:
    with _due_lock:
        due = list(_due)
        _due.clear()
    if not Runtime.exists():
        return
    for sid in due:
        page = Runtime.instance().get_app_session(sid)
        if page is not None:
            page._call_soon_on_event_loop(lambda page=page: page.request_rerun(None))


def _alive(sid: str) -> bool:
    return not Runtime.exists() or Runtime.instance().is_active_session(sid)


def presenting() -> bool:
    return bool(st.session_state.get(KEY))


def _say(key: str, **values) -> None:
    """A word for this page about its room, said with the page's notices (which stay until dismissed) from the
    start of its next run, or of this one if it has not built its notices yet."""
    said = st.session_state.setdefault(SAID, [])
    if Notice(key, values) not in said:
        said.append(Notice(key, values))


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
    if not code or presenting():
        return
    if not STORE.exists(code):
        _say("room_gone", code=code)
        ss.pop(CODE)
        return
    sid = _session_id()
    if sid:
        try:
            STORE.join(code, sid, _notifier(sid) if ss.get(FOLLOW) else None)
        except RoomError as e:
            _say(e.key, **e.values)
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
        _say(e.key, **e.values)


def join(code: str, key: str | None = None) -> None:
    """Join room `code` (as typed: case is not read), driving it if `key` is its key."""
    ss = st.session_state
    code = code[:4 * CODE_LENGTH].strip().upper()  # cut before anything reads it (a link may carry 60,000 characters)
    if not CODE_FORM.fullmatch(code):
        _say("room_code_bad", length=CODE_LENGTH)
        return
    if not STORE.exists(code):
        _say("room_gone", code=code)
        return
    if key and STORE.drives(code, key):
        ss[CODE], ss[KEY] = code, key
        return
    if key:
        _say("room_not_yours", code=code)
    ss[CODE], ss[FOLLOW], ss[SEEN] = code, True, 0


def _explore() -> None:
    """This page stops following: it stays in the room's count and is no longer told of new views."""
    ss = st.session_state
    ss[FOLLOW] = False
    sid = _session_id()
    if sid and ss.get(CODE) and STORE.exists(ss[CODE]):
        STORE.join(ss[CODE], sid, None)


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
            _say("room_went_own")
            st.rerun(scope="app")  # the line over the stage said "following" on this run
    if presenting():
        try:
            if not STORE.send(ss[CODE], ss[KEY], params):
                _say("room_slow", n=SENDS_PER_S)
        except RoomError as e:
            _say(e.key, **e.values)
            ss.pop(CODE), ss.pop(KEY)


def banner(t: Text) -> None:
    """A follower's line over the stage: which room, how many, and the way out or back."""
    ss = st.session_state
    code = ss.get(CODE)
    if not code or presenting():
        return
    heads = STORE.heads(code, _alive) if STORE.exists(code) else 0
    row = st.container(horizontal=True, vertical_alignment="center", key="room_banner")
    if ss.get(FOLLOW):
        row.markdown(t("room_following", code=code, heads=heads))
        row.button(t("room_explore"), key="room_explore", on_click=_explore)
    else:
        row.markdown(t("room_exploring", code=code))
        row.button(t("room_follow_again"), key="room_follow_again", on_click=_follow_again)


def panel(t: Text) -> None:
    """The sidebar's classroom panel, built while open: open a room or join one; the presenter's code, head count,
    join code to show the room and own link; a follower's way out of the room."""
    box = st.expander(t("room_panel"), icon=":material/groups:", key="room_panel_open", on_change="rerun")
    if not box.open:
        return
    ss = st.session_state
    with box:
        if presenting():
            _heads(t)
            quiz, q = _open_quiz(), STORE.question(ss[CODE]) if STORE.exists(ss[CODE]) else None
            if quiz and (q is None or not q.open):
                st.button(t("room_ask"), key="room_ask", on_click=_ask, args=quiz, help=t("room_ask_help"))
            if st.button(t("room_show_code"), key="room_show", icon=":material/qr_code_2:"):
                _show_code(t)
            st.caption(t("room_your_link"))
            st.code(f"{st.context.url or ''}?room={ss[CODE]}&key={ss[KEY]}", language=None, wrap_lines=True)
        elif ss.get(CODE):
            st.markdown(t("room_in", code=ss[CODE]))
            st.button(t("room_leave"), key="room_leave", on_click=_leave)
        else:
            st.button(t("room_open"), key="room_new", help=t("room_open_help"), on_click=open_room)
            st.text_input(t("room_join_label"), key="room_code_typed", max_chars=CODE_LENGTH,
                          placeholder="ABC23")
            st.button(t("room_join"), key="room_join", on_click=_join_typed)


@st.fragment(run_every=HEADS_EVERY)
def _heads(t: Text) -> None:
    """The head count and the question's answers, counted again every HEADS_EVERY while the panel is open."""
    ss = st.session_state
    there = STORE.exists(ss[CODE])
    st.markdown(t("room_leading", code=ss[CODE], heads=STORE.heads(ss[CODE], _alive) if there else 0))
    if there:
        _tally(t, ss[CODE])


def asked(product: str, cell: tuple[int, int]) -> str | None:
    """Whether this quiz is the room's question to this page: "open" (answers are taken, the verdict waits),
    "closed" (the verdict is shown), or None (the page's own quiz)."""
    ss = st.session_state
    if not ss.get(CODE) or presenting() or not ss.get(ASKED) or not STORE.exists(ss[CODE]):
        return None
    q = STORE.question(ss[CODE])
    if q is None or q.number != ss[ASKED] or q.product != product or q.cell != tuple(cell):
        return None
    return "open" if q.open else "closed"


def answer(value: float, right: bool) -> bool:
    """This page's answer to the room's open question (False: the question was closed meanwhile)."""
    ss, sid = st.session_state, _session_id()
    return bool(sid) and STORE.answer(ss[CODE], sid, ss[ASKED], value, right)


def _open_quiz() -> tuple[str, tuple[int, int]] | None:
    """The product and hidden cell of the quiz open on the presenter's page, if one is."""
    ss = st.session_state
    for key, value in ss.items():  # quiz_<product> holds the hidden cell; its answer and check hold no pair
        if key.startswith("quiz_") and isinstance(value, tuple) and len(value) == 2:
            return key[5:], value
    return None


def _ask(product: str, cell: tuple[int, int]) -> None:
    ss = st.session_state
    try:
        STORE.ask(ss[CODE], ss[KEY], product, cell)
    except RoomError as e:
        _say(e.key, **e.values)


def _close() -> None:
    ss = st.session_state
    try:
        STORE.close(ss[CODE], ss[KEY])
    except RoomError as e:
        _say(e.key, **e.values)


def _tally(t: Text, code: str) -> None:
    """The room's last question: how many answered and how many were right, and each answer given, most given first
    (no name is kept)."""
    q = STORE.question(code)
    if q is None:
        return
    right = sum(r for _, r in q.answers.values())
    if not q.answers:
        st.markdown(t("room_tally_none", n=q.number))
    else:
        st.markdown(t("room_tally", n=q.number, answers=len(q.answers), right=right, share=right / len(q.answers)))
        given = Counter((round(v, 2), r) for v, r in q.answers.values()).most_common(TALLY_ROWS)
        most = given[0][1]
        st.markdown("  \n".join(t("room_bar", value=f"{v:g}", mark="✓" if r else "✗",
                                   bar="▇" * max(1, round(BAR * n / most)), count=n) for (v, r), n in given))
    if q.open:
        st.button(t("room_close"), key="room_close", on_click=_close)


def _join_typed() -> None:
    join(st.session_state.get("room_code_typed") or "")


def _leave() -> None:
    ss = st.session_state
    sid = _session_id()
    if sid and ss.get(CODE):
        STORE.leave(ss[CODE], sid)
    for key in (CODE, FOLLOW, SEEN):
        ss.pop(key, None)


def _show_code(t: Text) -> None:
    ss = st.session_state
    join_link = f"{st.context.url or ''}?room={ss[CODE]}"

    @st.dialog(t("room_code_title"), width="large")
    def shown() -> None:
        left, right = st.columns([3, 2], vertical_alignment="center")
        left.image(segno.make(join_link, error="m").svg_inline(scale=10, border=2), width=QR_PX)
        right.markdown(t("room_code_body"))
        right.markdown(f"# {ss[CODE]}")  # the room's own letters (rooms.CODE_LETTERS): nothing to escape
        right.code(join_link, language=None, wrap_lines=True)

    shown()
