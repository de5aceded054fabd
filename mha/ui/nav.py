"""Next and Back: the walk in the post's order, through the parts of a stage whose parts it steps through
(walk.walked_parts), and the buttons' words."""

import streamlit as st

from . import walk
from .prose import part_name
from .session import go_to
from .strings import Text


def step(by: int) -> None:
    """Next (by = 1) or Back (-1), as step_to says; a stage whose parts the walk steps through is entered at its first
    part going on, at its last coming back."""
    ss = st.session_state
    stage, part = step_to(by)
    if part is not None:
        ss[walk.BY_ID[stage].parts.key] = part
        return
    go_to(stage)
    if parts := walk.walked_parts(ss):
        ss[walk.BY_ID[stage].parts.key] = parts[0 if by > 0 else -1]


def step_to(by: int) -> tuple[str, str | None] | None:
    """Where Next (1) or Back (-1) goes: the stage's next part where the walk steps through its parts
    (walk.walked_parts), as (stage, part); else the next stage, as (stage, None); None past the walk's end."""
    ss = st.session_state
    if parts := walk.walked_parts(ss):
        key = walk.BY_ID[ss["stage"]].parts.key
        at = parts.index(ss[key]) if ss.get(key) in parts else 0
        if 0 <= at + by < len(parts):
            return ss["stage"], parts[at + by]
    i = walk.STAGES.index(ss["stage"]) + by
    return (walk.STAGES[i], None) if 0 <= i < len(walk.STAGES) else None


def buttons(t: Text) -> None:
    """One row, the way back on the left and on on the right (one block, not three columns, each an element); where
    the walk steps through the stage's parts, a button names the part it goes to."""
    back, on = step_to(-1), step_to(1)
    row = st.container(horizontal=True, horizontal_alignment="distribute" if back and on else "right" if on else "left")
    for key, to, by, (plain, named) in (("prev_stage", back, -1, ("prev", "prev_part")),
                                        ("next_stage", on, 1, ("next", "next_part"))):
        if to:
            label = t(named, part=part_name(t, *to, walk.block_order(st.session_state))) if to[1] else t(plain)
            row.button(label, on_click=step, args=(by,), key=key)
