"""Stage `block` (the coda): the GPT block around the walk's attention, GPT-2's pre-LN order, on the walk's X.

    LN₁ → attention → + X → LN₂ → FFN (W_fc, GELU, W_proj) → + R₁
Five parts, one on screen at a time and marked in the diagram: LN₁; attention and the first residual; LN₂ and
the FFN's up-projection (clickable); GELU; the down-projection and the rest of the residual stream. One part's
chart instead of four keeps a rerun's drawing to what is on screen; a fragment, so choosing a part reruns only
the diagram and the part.
"""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import token_ticks

from .. import link, models, session
from ..chart import chart
from ..inputs import number
from ..product import product_view
from ..prose import display, header, said_then_shown
from ..settings import BLOCK_PARTS as PARTS
from ..view import Name, Operand, View, name
from ..walk import NUMBERS

MARKED = {"ln1": ("ln1",), "attn": ("attn", "add1"), "ffn": ("ln2", "ffn"), "gelu": ("ffn",), "out": ("ffn", "add2")}
DIAGRAM = """digraph {{ rankdir=LR;
node [shape=box, style="rounded,filled", fillcolor="#eef2ff", fontname="sans-serif"];
x [label="X"]; ln1 [label="{ln1}"{m_ln1}]; attn [label="{attn}", fillcolor="#fde68a"{m_attn}];
add1 [label="+", shape=circle{m_add1}]; ln2 [label="{ln2}"{m_ln2}]; ffn [label="{ffn}"{m_ffn}];
add2 [label="+", shape=circle{m_add2}]; y [label="Y"];
x -> ln1 -> attn -> add1 -> ln2 -> ffn -> add2 -> y; x -> add1 [style=dashed]; add1 -> add2 [style=dashed]; }}"""
MARK = ', color="#c2410c", penwidth=3'  # the app's primary colour: the part shown below
NODES = ("ln1", "attn", "add1", "ln2", "ffn", "add2")  # the boxes a part can outline


UP = Name("LN<sub>2</sub>W<sub>fc</sub>", r"\mathrm{LN}_2W_{fc}", "LN₂W_fc")


def render(v: View) -> None:
    t = v.t
    header(t, "block", v.look)
    if v.trained:  # the chosen layer's own block, on the residual stream that reaches it
        tr = v.trained.block
        st.info(t("block_trained", layer=v.trained.layer + 1))
    else:
        tr = mha.block(v.x, _weights(v))  # InputError where X is too large: the page says why
    _parts(v, tr)


def _weights(v: View) -> mha.BlockWeights:
    """The trained layer's block, or layer 0's seeded one (shared through models.MODELS). Looked up on every
    run, never handed to the fragment: a fragment keeps its arguments while its session stays on the stage, and
    weights dropped from the cache would then stay in memory once per session."""
    return v.trained.weights.blocks[v.trained.layer] if v.trained else models.block_weights(v.cfg)


def diagram(t, part: str) -> str:
    """The block as a graph, the nodes of `part` outlined."""
    marks = {f"m_{node}": MARK if node in MARKED[part] else "" for node in NODES}
    return DIAGRAM.format(ln1=t("block_node_ln1"), attn=t("block_node_attn"), ln2=t("block_node_ln2"),
                          ffn=t("block_node_ffn"), **marks)


@st.fragment
def _parts(v: View, tr: mha.BlockTrace) -> None:
    t, bw = v.t, _weights(v)
    part = st.session_state.get("block_part")
    part = part if part in PARTS else PARTS[0]  # the control's value, read before it is drawn: the diagram is above
    st.graphviz_chart(diagram(t, part))
    _stage_button(t("block_to_walk"), "block_to_walk", "qk")
    st.segmented_control(t("block_part"), PARTS, format_func=lambda p: t(f"block_part_{p}"), key="block_part",
                         required=True, persist_state="session")
    if part != st.query_params.get("part", PARTS[0]):  # a part chosen here: the link follows
        link.follows(v.cfg)
    {"ln1": _ln1, "attn": _attn, "ffn": _ffn, "gelu": _gelu, "out": _out}[part](v, tr, bw)


def _stage_button(label: str, key: str, stage: str) -> None:
    """A button to another stage. Its callback sets the stage before the run; from inside this fragment the whole
    page must then run, not only the fragment."""
    if st.button(label, key=key, on_click=session.go_to, args=(stage,)):
        st.rerun(scope="app")


def _rows(v: View, fig, *axes):
    return token_ticks(fig, v.tokens, axes, v.look)


def _ln1(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights) -> None:
    t, (n, d) = v.t, tr.x.shape
    token, feat = t("token"), t("feature")
    said_then_shown(f"**{t('block_ln')}**",
                    display(v.look, r"\mathrm{LN}(x) = \gamma \odot \frac{x-\mu}{\sqrt{\sigma^2+\varepsilon}} + \beta,",
                            (r"\mathrm{LN}_1(X):", rf"{n}\times {d} \to {n}\times {d}")))
    mean1, var1 = tr.x.mean(axis=1, keepdims=True), tr.x.var(axis=1, keepdims=True)
    mats = [F.Mat(tr.x, "X", row_label=token, col_label=feat), F.Mat(mean1, "μ₁", row_label=token, col_label=""),
            F.Mat(var1, "σ²₁", "magnitude", token, ""), F.Mat(bw.ln1_g[None], "γ₁", col_label=feat),
            F.Mat(bw.ln1_b[None], "β₁", col_label=feat), F.Mat(tr.ln1, "LN₁(X)", row_label=token, col_label=feat)]
    per_row = None if v.look.narrow else 6  # a phone puts one or two a row
    fig = F.grid_figure(mats, text=v.text, words=v.words, look=v.named, per_row=per_row)
    chart(_rows(v, fig, "yaxis", "yaxis2", "yaxis3", "yaxis6"), key="block_ln1")


def _attn(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights) -> None:
    t, (n, d) = v.t, tr.x.shape
    said_then_shown(f"**{t('block_attn')}**",
                    display(v.look, (r"\mathrm{Attn} = \mathrm{MHA}(\mathrm{LN}_1(X)):",
                                     rf"{n}\times {d} \to {n}\times {d},"),
                            (r"R_1 = X + \mathrm{Attn}:", rf"({n}\times {d}) + ({n}\times {d}) \to {n}\times {d}")))
    st.markdown(t("block_attn_is_y", qk=NUMBERS["qk"], output=NUMBERS["output"]))
    _stage_button(t("block_to_output", output=NUMBERS["output"]), "block_to_output", "output")


def _ffn(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights) -> None:
    t, (n, d), f = v.t, tr.x.shape, v.cfg.d_ff
    token, feat = t("token"), t("feature")
    said_then_shown(f"**{t('block_ffn')}**",
                    display(v.look, (r"\mathrm{LN}_2(R_1):", rf"{n}\times {d} \to {n}\times {d},"),
                            (r"H = \mathrm{LN}_2(R_1)\,W_{fc} + b_{fc}:",
                             rf"({n}\times {d})\cdot({d}\times {f}) \to {n}\times {f}")))
    mean2, var2 = tr.r1.mean(axis=1, keepdims=True), tr.r1.var(axis=1, keepdims=True)
    st.caption(t("block_ln2_stats", mean=_range(mean2), var=_range(var2)))
    ln2 = Operand(tr.ln2, name("LN", "2"), token, feat)
    w_fc = Operand(bw.w_fc, name("W", "fc"), feat, t("hidden_unit"))
    up = Operand(tr.ln2 @ bw.w_fc, UP, token, t("hidden_unit"))
    product_view("block_fc", v, ln2, w_fc, up, "LN<sub>2</sub> · W<sub>fc</sub>")
    st.caption(t("block_bias", f=f))


def _gelu(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights) -> None:
    t, n, f = v.t, len(tr.x), v.cfg.d_ff
    said_then_shown(f"**{t('block_gelu')}**",
                    display(v.look, (r"A = \mathrm{GELU}(H):", rf"{n}\times {f} \to {n}\times {f}")))
    row = number(st, t, "block_row", 1, n, default=n, persist_state="session")  # kept across parts
    chart(F.gelu_figure(tr.hidden[row - 1], tr.act[row - 1], t("block_gelu_curve"), t("block_gelu_row", i=row),
                        v.look),
          key="block_gelu")


def _out(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights) -> None:
    t, (n, d), f = v.t, tr.x.shape, v.cfg.d_ff
    token, feat = t("token"), t("feature")
    said_then_shown(f"**{t('block_out')}**",
                    display(v.look, (r"\mathrm{FFN} = A\,W_{proj} + b_{proj}:",
                                     rf"({n}\times {f})\cdot({f}\times {d}) \to {n}\times {d},"),
                            (r"Y = R_1 + \mathrm{FFN}:", rf"({n}\times {d}) + ({n}\times {d}) \to {n}\times {d}")))
    mats = [F.Mat(tr.attn.y, "Attn", row_label=token, col_label=feat),
            F.Mat(tr.r1, "R₁ = X + Attn", row_label=token, col_label=feat),
            F.Mat(tr.hidden, "H", row_label=token, col_label=t("hidden_unit")),
            F.Mat(tr.act, "A = GELU(H)", row_label=token, col_label=t("hidden_unit")),
            F.Mat(tr.ffn, "FFN", row_label=token, col_label=feat),
            F.Mat(tr.y, "Y = R₁ + FFN", row_label=token, col_label=feat)]
    axes = [f"yaxis{i}" for i in ("", 2, 3, 4, 5, 6)]
    chart(_rows(v, F.grid_figure(mats, text=v.text, words=v.words, look=v.named), *axes), key="block_stream")
    st.caption(t("block_rows_alone"))


def _range(values: np.ndarray) -> str:
    return f"{float(values.min()):.3g} … {float(values.max()):.3g}"
