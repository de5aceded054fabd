"""Stage `dependency`: Y_i = f_i(X_1..X_i). The exact dependency map, and a nudge that shows which rows of Y move."""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import room_for_names, token_ticks

from ..chart import chart
from ..inputs import number
from ..prose import equation, fmt, header, input_error
from ..view import View, subscript

EXACT_BUDGET = 3e8  # multiply-adds the exact Jacobian map may cost on one rerun


def render(v: View) -> None:
    t, cfg = v.t, v.cfg
    header(t, "dependency", v.look)
    n, d = v.x.shape
    equation(v.look, r"Y_i = f_i(X_1,\dots,X_i;\,W),",
             r"D_{ij} = \left\lVert \frac{\partial Y_i}{\partial X_j}\right\rVert_F = 0 \quad "
             + t("dependency_zero_when"))
    cost = cfg.n_heads * n * n * d * d
    left, right = st.columns(2)
    half = v.look.column(0.5)
    with left:
        if cost <= EXACT_BUDGET:
            dep = F.Mat(mha.dependency(v.x, v.w), "D", "magnitude", t("y_row"), t("x_row"))
            st.markdown(f"**{t('dependency_map')}**")
            fig = F.grid_figure([dep], text=v.text, words=v.words, look=room_for_names(v.tokens, half),
                                axis_titles=True)
            chart(token_ticks(fig, v.tokens, ("yaxis", "xaxis"), half), key="dependency_map")
        else:
            st.info(t("dependency_skip", flops=int(cost), limit=int(EXACT_BUDGET)))
    with right:
        _nudge(v)


@st.fragment
def _nudge(v: View) -> None:
    """Nudge one row of X and show how Y moves. A fragment: changing the row or the size reruns this column only."""
    t, half = v.t, v.look.column(0.5)
    n = len(v.x)
    j = number(st, t, "nudge_j", 1, n, label=t("nudge_token"), default=min(2, n))
    eps = number(st, t, "nudge_eps", -10.0, 10.0, label=t("nudge_size"), default=0.5, step=0.1)
    moved = v.x.copy()
    moved[j - 1] += eps
    try:
        delta = mha.forward(moved, v.w).y - v.trace.y
    except mha.InputError as e:  # X near float64's end: the nudge can carry it over
        input_error(t, e)
        return
    st.markdown(f"**{t('nudge_result', eps=fmt(eps), j=subscript(j))}**")
    fig = F.grid_figure([F.Mat(delta, "ΔY", row_label=t("y_row"), col_label=t("feature"))], text=v.text,
                        words=v.words, look=room_for_names(v.tokens, half), axis_titles=True)
    chart(token_ticks(fig, v.tokens, ("yaxis",), half), key="dependency_nudge")
    if j > 1:
        st.success(t("nudge_rows_same", rows=t.rows(1, j - 1), delta=fmt(float(np.abs(delta[: j - 1]).max()))))
    else:
        st.caption(t("nudge_none_before"))
    st.warning(t("nudge_rows_moved", rows=t.rows(j, n), delta=fmt(float(np.abs(delta[j - 1:]).max()))))
