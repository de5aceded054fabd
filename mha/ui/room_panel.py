"""The sidebar's classroom panel (issue 44): open or join a room; the presenter's code, head count, join code, own
link and the room's answers to its question; a follower's way out. And the room's line over the stage (banner): a
follower's, or the presenter's with the join code at hand. The room's logic is in classroom.py."""

from collections import Counter

import segno
import streamlit as st

from . import classroom
from .classroom import ASKED, CODE, FOLLOW, KEY, SEEN, SHOWN, STORE, alive, join, open_room, presenting, reach, say
from .rooms import CODE_LENGTH, Question, RoomError, RoomUnreachable
from .strings import Text

HEADS_EVERY = "3s"  # the presenter's panel counts the room this often (one page's fragment: followers never poll)
TALLY_ROWS, BAR = 6, 6  # the answers the presenter's panel lists; the longest bar, in blocks (one line in the sidebar)
QR_PX = 340  # the join code on a 720 px projector, whole under the dialog's title, scannable across a room


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
            quiz, q = _open_quiz(), reach(lambda: STORE.question(ss[CODE]) if STORE.exists(ss[CODE]) else None)
            if quiz and (q is None or not q.open):
                st.button(t("room_ask"), key="room_ask", on_click=classroom.ask, args=quiz, help=t("room_ask_help"))
            if st.button(t("room_show_code"), key="room_show", icon=":material/qr_code_2:"):
                _show_code(t)
            if st.button(t("room_show_link"), key="room_show_link", icon=":material/key:"):
                _show_link(t)  # on purpose only: the panel is open on a projected screen to ask and count
        elif ss.get(CODE):
            st.markdown(t("room_in", code=ss[CODE]))
            st.button(t("room_leave"), key="room_leave", on_click=_leave)
        else:
            st.button(t("room_open"), key="room_new", help=t("room_open_help"), on_click=open_room)
            st.text_input(t("room_join_label"), key="room_code_typed", max_chars=CODE_LENGTH,
                          placeholder="ABC23")
            st.button(t("room_join"), key="room_join", on_click=_join_typed)


def banner(t: Text) -> None:
    """The room's line over the stage: a follower's (classroom.banner), or the presenter's, which names its room and
    keeps the join code a click away (on a projector it rides in the header, as a follower's does: no height)."""
    classroom.banner(t)
    ss = st.session_state
    if ss.get(CODE) and presenting():
        row = st.container(horizontal=True, vertical_alignment="center", key="room_banner")
        row.markdown(t("room_lead_line", code=ss[CODE]))
        if row.button(t("room_show_code"), key="room_show_banner", icon=":material/qr_code_2:"):
            _show_code(t)


@st.fragment(run_every=HEADS_EVERY)
def _heads(t: Text) -> None:
    """The head count and the question's answers, counted again every HEADS_EVERY while the panel is open."""
    ss = st.session_state
    try:  # said here, not among the page's notices: this run is the fragment's, and the next one may find it back
        there = STORE.exists(ss[CODE])
        heads, q = (STORE.heads(ss[CODE], alive), STORE.question(ss[CODE])) if there else (0, None)
    except RoomUnreachable:
        st.markdown(t("room_leading", code=ss[CODE], heads="?"))
        st.caption(t("room_unreachable"))
        return
    st.markdown(t("room_leading", code=ss[CODE], heads=heads))
    if q is not None:
        _tally(t, q)


def _open_quiz() -> tuple[str, tuple[int, int]] | None:
    """The product and hidden cell of the quiz open on the presenter's page, if one is."""
    ss = st.session_state
    for key, value in ss.items():  # quiz_<product> holds the hidden cell; its answer and check hold no pair
        if key.startswith("quiz_") and isinstance(value, tuple) and len(value) == 2:
            return key[5:], value
    return None


def _close() -> None:
    ss = st.session_state
    try:
        STORE.close(ss[CODE], ss[KEY])
    except RoomError as e:
        say(e.key, **e.values)


def _tally(t: Text, q: Question) -> None:
    """The room's last question: how many answered and how many were right, and each answer given, most given first
    (no name is kept)."""
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
    sid = classroom.session_id()
    if sid and ss.get(CODE):
        reach(STORE.leave, ss[CODE], sid)
    for key in (CODE, FOLLOW, SEEN, SHOWN, ASKED):  # nothing of the room stays: joined again, it is asked again
        ss.pop(key, None)


def _show_link(t: Text) -> None:
    """The presenter's own link, with the room's key, in a dialog opened on purpose (red team 2026-12-07 T6: shown in
    the panel under the question's button, it was on the projected screen whenever the room was asked)."""
    link = f"{st.context.url or ''}?room={st.session_state[CODE]}&key={st.session_state[KEY]}"

    @st.dialog(t("room_show_link"))
    def shown() -> None:
        st.markdown(t("room_your_link"))
        st.code(link, language=None, wrap_lines=True)

    shown()


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
