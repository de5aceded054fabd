"""Stage `dependency`: Y_i = f_i(X_1..X_i). The exact dependency map, and a nudge that shows which rows of Y move."""

import re

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import room_for_names, token_ticks

from .. import exports
from ..chart import chart
from ..inputs import number
from ..prose import display, fmt, header, input_error, tex_int
from ..view import View, name, subscript

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [mha.dependency]

EXACT_BUDGET = 3e8  # multiply-adds the exact Jacobian map may cost on one rerun
TUPLE_HEADS = 3  # heads up to which W is written out whole; with more, its first and last head and W_O
# A display line's width, in units of about half an em (a Chinese character is two), that fits the page of a desk and
# of a projector: the post's W and its count (89) fit on one line.
LINE_UNITS = 95


def render(v: View) -> None:
    t, cfg = v.t, v.cfg
    header(t, "dependency", v.look)
    n, d = v.x.shape
    claim = display(v.look, r"Y_i = f_i(X_1,\dots,X_i;\,W),",
                    r"D_{ij} = \left\lVert \frac{\partial Y_i}{\partial X_j}\right\rVert_F = 0 \quad "
                    + t("dependency_zero_when"))
    whose = t("dependency_w_trained", layer=v.run.layer + 1) if v.run else ""
    w = lines(v.look, *parameters(v.w, whose, t("dependency_w_count")))
    st.latex(rf"\begin{{gathered}} {claim} \\[0.5em] {w} \end{{gathered}}")  # the claim, then its W: one element
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


def parameters(w: mha.Weights, whose: str, numbers: str) -> tuple[tuple[str, ...], tuple[str, str, str]]:
    """The post's W = (W_Q1, W_K1, W_V1, W_Q2, …, W_O) of these weights, one part a head (a phone's lines), `whose`
    (LaTeX) before it; and its count of numbers, written out as h·(d·d_k + d·d_k + d·d_v) + (h·d_v)·d, then the
    weights' own count and `numbers` (LaTeX)."""
    h, d, d_k = w.w_q.shape
    d_v = w.w_v.shape[2]
    heads = range(1, h + 1) if h <= TUPLE_HEADS else (1, None, h)
    parts = [r"\dots," if i is None else ", ".join(name("W", f"{m}{i}").tex for m in "QKV") + "," for i in heads]
    parts[0] = whose + "W = (" + parts[0]
    parts[-1] += " W_O):"
    each = rf"{d}\cdot {d_k} + {d}\cdot {d_k} + {d}\cdot {d_v}"
    if h > 1:
        each = rf"{h}\cdot({each})"
    count = sum(a.size for a in (w.w_q, w.w_k, w.w_v, w.w_o))
    return tuple(parts), (each, rf"+ {h * d_v}\cdot {d}", f"= {tex_int(count)}{numbers}")


def lines(look: F.Look, w: tuple[str, ...], count: tuple[str, ...]) -> str:
    """W and its count on one line where that fits, else on two (a phone: one part a line)."""
    one = display(look, w, count)
    if look.narrow or units(one) <= LINE_UNITS:
        return one
    return rf"\begin{{gathered}} {display(look, w)} \\ {display(look, count)} \end{{gathered}}"


def units(tex: str) -> int:
    """About how wide a line of LaTeX is, in half ems: its characters as shown, a Chinese one counted twice."""
    shown = re.sub(r"\\text\{([^{}]*)\}", r"\1", tex)
    for command, glyphs in ((r"\cdot", "·"), (r"\dots", "…"), (r"\qquad", "    "), ("\\ ", " "), ("{,}", ",")):
        shown = shown.replace(command, glyphs)
    shown = re.sub(r"\\[A-Za-z]+|[{}_^]", "", shown)
    return sum(2 if "\u4e00" <= c <= "\u9fff" else 1 for c in shown)


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


def download(cfg, x, w) -> exports.Part:
    """The dependency stage's files: the walk's arrays and the map D[i, j] = ‖∂Y_i/∂X_j‖ it draws."""
    return exports.Part({**exports.arrays(x, w), "D": mha.dependency(x, w)}, {"D": ("token", "token")})
