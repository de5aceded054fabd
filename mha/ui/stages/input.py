"""Stage `input`: X, one row per token, edited in a grid; Y's shape is the goal."""

import numpy as np
import streamlit as st

import mha
from mha.figures.text import short

from .. import link, x_codec, x_edits, x_source
from .. import settings as S
from ..editor import matrix_editor
from ..prose import header
from ..view import View, subscript

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [mha.check_input]
PHONE_COLUMNS = 5  # columns of X a phone's grid shows whole (the post's 5; the trained model's 13 scroll)


def render(v: View) -> None:
    t = v.t
    header(t, "input", v.look)
    n, d = v.x.shape
    tokens = [f"X{subscript(i + 1)}" + (f" · {short(v.tokens[i], 12)}" if v.tokens else "") for i in range(n)]
    notice = st.empty()  # above the grid, said once the grid's edits are read
    x = matrix_editor("x_editor", "x_base", v.x, tokens, t, st.session_state.get("x_generation", 0),
                      help=t("input_editor_help"))
    if v.look.narrow and d > PHONE_COLUMNS:  # the grid scrolls sideways, with no sign of it (audit 2026-12-07 #8)
        st.caption(t("input_swipe", d=d))
    if v.run:
        notice.info(t(f"input_{v.run.kind}", layer=v.run.layer + 1, n=n))
    elif v.tokens:
        edited = not np.array_equal(x, x_source.base_x(v.cfg))
        notice.info(t("input_text_edited") if edited else t("input_from_text", n=n))
    if (length := len(x_codec.encode_x(x, x_source.base_x(v.cfg)))) > S.X_PARAM_MAX:  # the edits a link cannot carry
        st.warning(link.left_out(t, "x", length))
    reset = "input_reset_trained" if v.run else "input_reset_text" if v.tokens else "input_reset"  # to what
    st.button(t(reset), on_click=x_edits.reset_x, key="reset_x")
    st.latex(rf"X \in \mathbb{{R}}^{{{n}\times {d}}} \;\longrightarrow\; Y \in \mathbb{{R}}^{{{n}\times {d}}}")
    st.info(t("input_goal", shape=f"{n}×{d}"))

