"""Variant `alibi` (Press et al. 2022, BLOOM's): no positions in X; instead each head adds −m_h·(i − j) to its scaled
scores, so a key further back costs more, by a slope m_h per head from the paper's rule (mha.alibi_slopes).

X on this page: seeded numbers carry no positions anyway; with a text, X = E[ids] + P, so the page takes P back out
and runs on E's rows (the user's edits kept); the trained layer reads positions it learned with, which the page cannot
take out, and says so. Drawn one part at a time: every head's bias as a matrix of its own (what changes); the chosen
head's scores with it and S, where a click writes q·k/√d_k − m_h(i − j) with the numbers, or H = S·V clickable with
its quiz (click); the check of every cell that way, with each head's slope and what it costs (check)."""

import math
from dataclasses import replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.base import Spec, cell_box, click_layer, outline_rule
from mha.figures.ticks import token_ticks

from .. import lab
from ..chart import chart, clickable_chart, picked
from ..product import breakdown, product_view
from ..prose import display, fmt, head_control, markdown_table, said, tex_num
from ..shared import digest
from ..view import Name, Operand, View, name

FAR = 1000  # tokens back: what the bias costs on a long text, said beside what it costs here
SMALL = 0.25  # the bias counts as tiny when the farthest key loses at most this share of head 1's spread of scores
CLOSE = 1e-12  # the page's own q·k/√d_k − m_h(i − j) equals forward's cell within this (times the cell's size)


def render(v: View, variant: str, part: str) -> str:
    """`part` of the lab for ALiBi: every head's bias (what changes); the chosen head's scores with it, or its H
    (click); the live check of every score, with each head's slope (check, returned as Markdown)."""
    t = v.t
    x, source = lab.without_positions(v.cfg, v.x)
    cfg = lab.config(v, variant)
    va = replace(v, x=x)
    tr = lab.trace(va, cfg)
    slopes = mha.alibi_slopes(cfg.n_heads)
    if part == "check":
        return _checked(v, tr, slopes)
    if part == "click":
        head_control(t)
        h = min(st.session_state.get("head", 1), cfg.n_heads) - 1  # read here: the head picker reruns the fragment
        lab.one_product(v, variant, {"scores": (_a_name(h, v.cfg.d_k).plain, lambda: _scores(va, tr, h, slopes)),
                                     "h": (_h_label(h), lambda: _outputs(va, tr, h))})
        return ""
    title, words = t("lab_alibi_bias_title"), _words(v, source)
    if v.look == F.PRESENT:  # a projector shows the biases first, on the first screen, and the words under them
        st.markdown(title)
        _biases(v, tr)
        st.markdown(words)
    else:
        st.markdown(f"{words}\n\n{title}")
        _biases(v, tr)
    return ""


def slope_tex(m: float) -> str:
    """m as 2 to a power, as the paper's rule makes every slope: 2^{-4}."""
    return f"2^{{-{-np.log2(m):.4g}}}"


def _words(v: View, source: str) -> str:
    """What ALiBi changes and what X is here."""
    return "\n\n".join([v.t("lab_alibi_text"), v.t(f"lab_alibi_x_{source}")])


def _checked(v: View, tr: mha.Trace, slopes: np.ndarray) -> str:
    """The check part: every score computed here against forward's (a box of its own when they differ, drawn), then
    the paper's rule and each head's slope with what it costs the farthest key here and FAR tokens back, beside the
    spread of that head's scores (on a few tokens the bias barely moves them), returned as one Markdown."""
    t, n = v.t, len(tr.x)
    checked, good = _check(v, tr, slopes)
    if not good:
        st.error(checked)
    seen = ~np.isneginf(tr.bias)
    rows = []
    for h, m in enumerate(slopes):
        spread = float(np.ptp(tr.scaled[h][seen[h]]))
        rows.append((h + 1, f"${slope_tex(m)} = {tex_num(m, paren=False)}$", fmt(m * (n - 1)), fmt(spread),
                     fmt(m * FAR)))
    head = [t("lab_alibi_col_head"), t("lab_alibi_col_slope"), t("lab_alibi_col_here", back=n - 1),
            t("lab_alibi_col_spread"), t("lab_alibi_col_far", far=FAR)]
    rule = t("lab_alibi_rule_power" if math.log2(len(slopes)).is_integer() else "lab_alibi_rule_other",
             h=len(slopes))
    most, spread = slopes[0] * (n - 1), float(np.ptp(tr.scaled[0][seen[0]]))
    size = t("lab_alibi_small" if most <= SMALL * spread else "lab_alibi_large", n=n, most=fmt(most), far=FAR,
             big=fmt(slopes[0] * FAR))
    return "\n\n".join([*([checked] if good else []), rule, markdown_table(head, rows), size])


def _biases(v: View, tr: mha.Trace) -> None:
    """Every head's bias B_h = −m_h (i − j) as a matrix of its own; the causal mask's cells as grey gaps."""
    t, hh = v.t, len(tr.bias)
    mats = [F.Mat(np.where(np.isneginf(b), 0.0, b), name("B", str(h + 1)).html, "signed", t("token"), t("key_pos"),
                  np.isneginf(b)) for h, b in enumerate(tr.bias)]
    axes = [f"{a}axis{i + 1 if i else ''}" for i in range(hh) for a in "xy"]
    chart(token_ticks(F.grid_figure(mats, text=v.text, words=v.words, look=v.named), v.tokens, axes, v.look),
          key="lab_alibi_bias")


def _a_name(h: int, d_k: int) -> Name:
    i = str(h + 1)
    q, k, b = (name(letter, i).plain for letter in "QKB")
    return Name(f"Q<sub>{i}</sub>K<sub>{i}</sub><sup>T</sup>/√{d_k} + B<sub>{i}</sub>",
                rf"Q_{{{i}}}K_{{{i}}}^{{\mathrm T}}/\sqrt{{{d_k}}} + B_{{{i}}}", f"{q}{k}ᵀ/√{d_k} + {b}")


def _h_label(h: int) -> str:
    """H = S·V's plain name, with head h's subscripts: the control's label."""
    hn, sn, vn = (name(letter, str(h + 1)).plain for letter in "HSV")
    return f"{hn} = {sn}·{vn}"


def _scores(v: View, tr: mha.Trace, h: int, slopes: np.ndarray) -> None:
    """Head h's scores with its bias added, and S, side by side; a click on a score writes how it came to be."""
    t, d_k = v.t, v.cfg.d_k
    hidden = np.isneginf(tr.bias[h])
    token, key = t("token"), t("key_pos")
    a = F.Mat(tr.masked[h], _a_name(h, d_k).html, "signed", token, key, hidden)
    s = F.Mat(tr.probs[h], name("S", str(h + 1)).html, "probs", token, key, hidden)
    n = min(len(tr.x), F.MAX_SIDE)

    def build():
        spec = token_ticks(F.grid_figure([a, s], text=v.text, words=v.words, look=v.named), v.tokens,
                           ("yaxis", "xaxis", "yaxis2", "xaxis2"), v.look).to_dict()
        layout = spec["layout"]
        domain = layout["xaxis"]["domain"]
        cell = (domain[1] - domain[0]) * layout["width"] / n
        data = [*spec["data"], click_layer(a, "x", "y", size=max(6.0, cell - 2))]
        outline_rule(layout, (n, n), cell_box("x", "y", "j", "i"), cell_box("x2", "y2", "j", "i"))
        return Spec(spec | {"data": data})

    st.markdown(t("lab_alibi_scores_title", h=h + 1))
    parts = ("lab_alibi", digest(tr.masked[h], tr.probs[h]), h, t.lang, v.text, v.look, v.tokens)
    clickable_chart(parts, build, "lab_alibi_scores")
    picked("lab_alibi_scores", lambda cell: cell[0] < n and cell[1] < n,
           lambda cell: _sums(v, tr, h, slopes, cell))


def _sums(v: View, tr: mha.Trace, h: int, slopes: np.ndarray, cell: tuple[int, int] | None) -> None:
    """The clicked score: q_i·k_j term by term, then q·k/√d_k − m_h (i − j) with the numbers, equal to the cell."""
    t, d_k = v.t, v.cfg.d_k
    if cell is None:
        st.caption(t("lab_alibi_click", h=h + 1))
        return
    i, j = cell
    if j > i:
        st.markdown(t("lab_alibi_future", i=i + 1, j=j + 1))
        return
    g = mha.groups(v.cfg.n_heads, len(tr.k))[h]
    q, k = name("q", str(i + 1)), name("k", str(j + 1))
    qn, h1 = name("Q", str(h + 1)), h + 1
    kt = Name(f"K<sub>{h1}</sub><sup>T</sup>", rf"K_{{{h1}}}^{{\mathrm T}}", f"K{h1}ᵀ")
    qkt = Name(qn.html + kt.html, rf"({qn.tex}{kt.tex})", f"({qn.plain}{kt.plain})")
    dot = breakdown(t, qkt, qn, kt, tr.q_rot[h, i], tr.k_rot[g, j], tr.scores[h, i, j], i, j, v.look.narrow)
    m, score = float(slopes[h]), float(tr.scores[h, i, j])
    ours = score / np.sqrt(d_k) - m * (i - j)
    rule = rf"\frac{{{q.tex}\cdot {k.tex}}}{{\sqrt{{{d_k}}}}} - m_{{{h + 1}}}({i + 1}-{j + 1})"
    tex = display(v.look, (rf"a_{{{i + 1},{j + 1}}} = {rule}",  # one line on a desk, a line a step on a phone
                           rf"= \frac{{{tex_num(score)}}}{{\sqrt{{{d_k}}}}} - {tex_num(m, 4)}\cdot {i - j}",
                           rf"= {tex_num(score / np.sqrt(d_k))} - {tex_num(m * (i - j), 4)} = {tex_num(ours)}"))
    same = abs(ours - tr.masked[h, i, j]) <= CLOSE * max(1.0, abs(ours))
    verdict = t("lab_alibi_cell_same" if same else "lab_alibi_cell_differs", value=fmt(float(tr.masked[h, i, j])))
    st.markdown("\n\n".join([dot, said(t("lab_alibi_cell", i=i + 1, j=j + 1, h=h + 1), tex), verdict]))


def _check(v: View, tr: mha.Trace, slopes: np.ndarray) -> tuple[str, bool]:
    """Every visible cell of every head, computed here as q·k/√d_k − m_h (i − j), against forward's scores plus
    bias: the line that says so, and whether they agree."""
    n, d_k = len(tr.x), v.cfg.d_k
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    ours = tr.scores / np.sqrt(d_k) - slopes[:, None, None] * (i - j)
    seen = j <= i
    worst = float(np.max(np.abs(np.where(seen, ours - tr.masked, 0.0))))
    good = worst <= CLOSE * max(1.0, float(np.max(np.abs(np.where(seen, ours, 0.0)))))
    words = v.t("lab_alibi_check_ok" if good else "lab_alibi_check_bad", diff=fmt(worst),
                cells=len(slopes) * n * (n + 1) // 2)
    return (f"✓ {words}" if good else words), good


def _outputs(v: View, tr: mha.Trace, h: int) -> None:
    """H = S·V of head h with ALiBi's S: a click writes the dot product; the quiz asks for a cell."""
    t = v.t
    token, col = t("token"), t("cols_of")
    g = mha.groups(v.cfg.n_heads, len(tr.v))[h]
    sn, vn, hn = name("S", str(h + 1)), name("V", str(h + 1)), name("H", str(h + 1))
    st.markdown(t("lab_alibi_outputs", h=h + 1))
    product_view("lab_alibi_h", v, Operand(tr.probs[h], sn, token, t("key_pos"), "probs", np.isneginf(tr.bias[h])),
                 Operand(tr.v[g], vn, token, col), Operand(tr.heads[h], hn, token, col),
                 f"{hn.html} = {sn.html} · {vn.html}")
