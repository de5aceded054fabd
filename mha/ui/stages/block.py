"""Stage `block` (the coda): the GPT block around the walk's attention, on the walk's X, in either order (`ln`):

    post (the original GPT, the post's figure, the default):  attention → + X → LN₁ → FFN → + R₁ → LN₂
    pre  (GPT-2, and the trained model, which cannot switch): LN₁ → attention → + X → LN₂ → FFN → + R₁
Five parts, one on screen at a time, in the order shown, and marked in the diagram: LN₁ (its input, μ, σ², the
normalised rows, γ, β); attention and the first residual; the FFN's up-projection (clickable); GELU; the
down-projection and the second residual (with post-LN's LN₂). One part's chart instead of four keeps a rerun's
drawing to what is on screen; a fragment, so choosing a part reruns only the diagram and the part.
"""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.block import EPS
from mha.figures.ticks import token_ticks

from .. import exports, link, models, session, x_source
from ..block_diagram import diagram
from ..chart import chart
from ..inputs import number
from ..product import product_view
from ..prose import display, fmt, header, part_control, part_name, said_then_shown
from ..settings import BLOCK_ORDERS, BLOCK_PARTS_IN, block_order
from ..view import Name, Operand, View, first_screen, name
from ..walk import NUMBERS

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [mha.layer_norm, mha.gelu, mha.block]

FFN_IN = {"pre": Name("LN<sub>2</sub>(R<sub>1</sub>)", r"\mathrm{LN}_2(R_1)", "LN₂(R₁)"),
          "post": Name("R<sub>1</sub>", "R_1", "R₁")}  # what the FFN reads
UP = {"pre": Name("LN<sub>2</sub>W<sub>fc</sub>", r"\mathrm{LN}_2W_{fc}", "LN₂W_fc"),
      "post": Name("R<sub>1</sub>W<sub>fc</sub>", r"R_1W_{fc}", "R₁W_fc")}
PROJ = Name("A·W<sub>proj</sub>", r"A\,W_{proj}", "A·W_proj")  # the FFN before its bias


def render(v: View) -> None:
    t = v.t
    header(t, "block", v.look)
    if v.run:  # the chosen layer's own block, on the residual stream that reaches it; pre-LN, as it was trained
        tr = v.run.block
        st.info(t.sentences(t(f"block_{v.run.kind}", layer=v.run.layer + 1), t(f"block_{v.run.kind}_pre")))
    else:
        tr = mha.block(v.x, _weights(v), ln=st.session_state["block_ln"])  # InputError where X is too large
    if v.look != F.PRESENT:  # a projector: the order is a setting, under the part's figures (the part comes first)
        _order(v)
    _parts(v, tr)
    if v.look == F.PRESENT:
        _order(v)


def _order(v: View) -> None:
    """Where the norms sit (the trained model's are its own, said above instead)."""
    if not v.run:
        st.segmented_control(v.t("block_ln_order"), BLOCK_ORDERS, format_func=lambda o: v.t(f"block_ln_{o}"),
                             key="block_ln", required=True, persist_state="session")


def _weights(v: View) -> mha.BlockWeights:
    """The trained layer's block, or layer 0's seeded one (shared through models.MODELS). Looked up on every
    run, never handed to the fragment: a fragment keeps its arguments while its session stays on the stage, and
    weights dropped from the cache would then stay in memory once per session."""
    return v.run.weights.blocks[v.run.layer] if v.run else models.block_weights(v.cfg)


@st.fragment
def _parts(v: View, tr: mha.BlockTrace) -> None:
    t, bw = v.t, _weights(v)
    parts = BLOCK_PARTS_IN[tr.ln]
    part = st.session_state.get("block_part")
    part = part if part in parts else parts[0]  # the control's value, read before it is drawn: the diagram is above
    projector = v.look == F.PRESENT  # there the part's numbers come first, the diagram and the words under them

    def about() -> None:
        st.graphviz_chart(diagram(t, part, tr.ln, v.look))  # where the part sits in the block
        st.markdown(t(f"block_order_{tr.ln}"))  # which order this is
        st.caption(t("block_why"))
        _stage_button(t("block_to_walk"), "block_to_walk", "qk")

    if not projector:
        about()
    part_control(t, "block", parts, lambda p: part_name(t, "block", p, tr.ln),
                 visible=not projector)  # a projector: the diagram it names is below
    if part != st.query_params.get("part", parts[0]):  # a part chosen here: the link follows
        link.follows(v.cfg)
    draw = {"ln1": _ln1, "attn": _attn, "ffn": _ffn, "gelu": _gelu, "out": _out}[part]
    if projector:  # the part's figures, then its formula (a box drawn under them), then the diagram
        figures, notes = st.container(), st.container()
        with figures:
            draw(v, tr, bw, notes)
        about()
    else:
        draw(v, tr, bw)


def _stage_button(label: str, key: str, stage: str) -> None:
    """A button to another stage. Its callback sets the stage before the run; from inside this fragment the whole
    page must then run, not only the fragment."""
    if st.button(label, key=key, on_click=session.go_to, args=(stage,)):
        st.rerun(scope="app")


def _rows(v: View, fig, *axes):
    return token_ticks(fig, v.tokens, axes, v.look)


def _ln1(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights, notes=None) -> None:
    """LN₁ on its input, with the numbers a learner can check: each row's μ and σ², the normalised rows x̂ (their
    mean 0, shown as the exact 0 it is but for float rounding, ~1e-17, which would colour the column; their variance
    σ²/(σ²+ε), just under 1), then γ and β."""
    t, (n, d) = v.t, tr.x.shape
    token, feat = t("token"), t("feature")
    z, z_name, z_tex = ((tr.x, "X", "X") if tr.ln == "pre" else
                        (tr.ln1_in, "X + Attn", r"X + \mathrm{Attn}"))
    out = r"\mathrm{LN}_1(X)" if tr.ln == "pre" else r"R_1 = \mathrm{LN}_1(X + \mathrm{Attn})"
    said_then_shown(f"**{t('block_ln')}**",
                    display(v.look, (r"\hat x = \frac{x-\mu}{\sqrt{\sigma^2+\varepsilon}},\quad"
                                     r"\mathrm{LN}(x) = \gamma \odot \hat x + \beta,"),
                            (f"{out}:", rf"{n}\times {d} \to {n}\times {d}")), notes)
    mean, var = z.mean(axis=1, keepdims=True), z.var(axis=1, keepdims=True)
    hat = (z - mean) / np.sqrt(var + EPS)
    ln_name = "LN₁(X)" if tr.ln == "pre" else "R₁ = LN₁(X + Attn)"
    mats = [F.Mat(z, z_name, row_label=token, col_label=feat), F.Mat(mean, "μ₁", row_label=token, col_label=""),
            F.Mat(var, "σ²₁", "magnitude", token, ""), F.Mat(hat, "x̂", row_label=token, col_label=feat),
            F.Mat(np.round(hat.mean(axis=1, keepdims=True), 12) + 0.0, "μ(x̂)", row_label=token, col_label=""),
            F.Mat(hat.var(axis=1, keepdims=True), "σ²(x̂)", "magnitude", token, ""),
            F.Mat(bw.ln1_g[None], "γ₁", col_label=feat), F.Mat(bw.ln1_b[None], "β₁", col_label=feat),
            F.Mat(tr.ln1, ln_name, row_label=token, col_label=feat)]
    # six a row on a desk and a projector; a phone two only where no panel is wider than one column, so that
    # every cell is 30 px and writes its number: X, μ₁ σ²₁, x̂, μ(x̂) σ²(x̂), then one a row
    per_row = (1, 2, 1, 2, 1) if v.look.narrow else 6
    fig = F.grid_figure(mats, text=v.text, words=v.words, look=first_screen(v.named, 1), per_row=per_row)  # parts
    chart(_rows(v, fig, *(f"yaxis{i}" for i in ("", 2, 3, 4, 5, 6, 9))), key="block_ln1")
    st.caption(t("block_hat_note", input=z_tex))


def _attn(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights, notes=None) -> None:
    """The attention's input, its output Attn (the walk's Y on that input), and the first residual."""
    t, (n, d) = v.t, tr.x.shape
    token, feat = t("token"), t("feature")
    shape = rf"({n}\times {d}) + ({n}\times {d}) \to {n}\times {d}"
    if tr.ln == "pre":
        tex = ((r"\mathrm{Attn} = \mathrm{MHA}(\mathrm{LN}_1(X)):", rf"{n}\times {d} \to {n}\times {d},"),
               (r"R_1 = X + \mathrm{Attn}:", shape))
        mats = [(tr.ln1, "LN₁(X)"), (tr.attn.y, "Attn"), (tr.x, "X"), (tr.r1, "R₁ = X + Attn")]
    else:
        tex = ((r"\mathrm{Attn} = \mathrm{MHA}(X):", rf"{n}\times {d} \to {n}\times {d},"),
               (r"R_1 = \mathrm{LN}_1(X + \mathrm{Attn}):", shape))  # the sum's shape; LN keeps it
        mats = [(tr.x, "X"), (tr.attn.y, "Attn"), (tr.sum1, "X + Attn"), (tr.r1, "R₁ = LN₁(X + Attn)")]
    said_then_shown(f"**{t('block_attn')}**", display(v.look, *tex), notes)
    grid = [F.Mat(a, label, row_label=token, col_label=feat) for a, label in mats]
    # a phone: one a row, as two 5-column panels side by side would leave cells too small for their numbers
    fig = F.grid_figure(grid, text=v.text, words=v.words, look=v.named, per_row=1 if v.look.narrow else 4)
    chart(_rows(v, fig, "yaxis", "yaxis2", "yaxis3", "yaxis4"), key="block_attn")
    said = v.run.kind if v.run else tr.ln  # a real model's walk already reads LN₁ of its stream
    st.markdown(t(f"block_attn_is_y_{said}", qk=NUMBERS["qk"], output=NUMBERS["output"]))
    _stage_button(t("block_to_output", output=NUMBERS["output"]), "block_to_output", "output")


def _ffn(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights, notes=None) -> None:
    t, (n, d), f = v.t, tr.x.shape, v.cfg.d_ff
    token, feat = t("token"), t("feature")
    inp, up = FFN_IN[tr.ln], UP[tr.ln]
    first = (r"\mathrm{LN}_2(R_1):", rf"{n}\times {d} \to {n}\times {d},") if tr.ln == "pre" else ()
    up_tex = (rf"H = {inp.tex}\,W_{{fc}} + b_{{fc}}:", rf"({n}\times {d})\cdot({d}\times {f}) \to {n}\times {f}")
    said_then_shown(f"**{t('block_ffn')}**", display(v.look, *filter(None, (first, up_tex))), notes)
    if tr.ln == "pre":
        st.caption(t("block_ln2_stats", what="$R_1$", mean=_range(tr.r1.mean(axis=1)), var=_range(tr.r1.var(axis=1))))
    operand = Operand(tr.ffn_in, inp if tr.ln == "pre" else name("R", "1"), token, feat)
    w_fc = Operand(bw.w_fc, name("W", "fc"), feat, t("hidden_unit"))
    product_view("block_fc", v, operand, w_fc, Operand(tr.ffn_in @ bw.w_fc, up, token, t("hidden_unit")),
                 f"{operand.name.html} · W<sub>fc</sub>", first=1)  # under the parts control
    st.caption(t("block_bias", f=f, up=up.tex))
    # What makes the product's H (pre-LN: γ₂ and β₂ made its left factor); a phone writes b_fcᵀ and Hᵀ, whose d_ff
    # columns would not fit its width at the 30 px that write numbers
    norm = [F.Mat(bw.ln2_g[None], "γ₂", col_label=feat), F.Mat(bw.ln2_b[None], "β₂", col_label=feat)]
    unit = t("hidden_unit")
    b_fc = "b<sub>fc</sub>"
    bias = ([F.Mat(bw.b_fc[:, None], f"{b_fc}ᵀ", row_label=unit), F.Mat(tr.hidden.T, "Hᵀ", unit, col_label=token)]
            if v.look.narrow else [F.Mat(bw.b_fc[None], b_fc, col_label=unit),
                                   F.Mat(tr.hidden, "H", row_label=token, col_label=unit)])
    mats = [*(norm if tr.ln == "pre" else []), *bias]
    across = dict(desk=2, phone=(1, 1, 2) if tr.ln == "pre" else 2, present=(2, 1, 1) if tr.ln == "pre" else 1)
    # a projector's b_fc and H a row each, to write their numbers; a phone's b_fcᵀ beside Hᵀ
    screen = "phone" if v.look.narrow else "present" if v.look == F.PRESENT else "desk"
    fig = F.grid_figure(mats, text=v.text, words=v.words, look=v.named, per_row=across[screen])
    chart(fig if v.look.narrow else _rows(v, fig, f"yaxis{len(mats)}"), key="block_bias")


def _gelu(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights, notes=None) -> None:
    """The curve with the chosen row's units on it, and their values written: h and GELU(h). The formula, in the
    tanh form GPT-2 computes, and what it does, in words."""
    t, n, f = v.t, len(tr.x), v.cfg.d_ff
    shape = (r"A = \mathrm{GELU}(H):", rf"{n}\times {f} \to {n}\times {f},")
    form = (r"\mathrm{GELU}(h) = \tfrac12\,h\,\Bigl(1 + \tanh\bigl(\sqrt{2/\pi}",  # two lines on a phone
            r"(h + 0.044715\,h^3)\bigr)\Bigr)")
    said_then_shown(f"**{t('block_gelu')}**", display(v.look, shape, form), notes)
    (notes or st).markdown(t("block_gelu_about"))
    row = number(st, t, "block_row", 1, n, default=n, persist_state="session")  # kept across parts
    h, a, unit = tr.hidden[row - 1], tr.act[row - 1], t("hidden_unit")
    chart(F.gelu_figure(h, a, t("block_gelu_curve"), t("block_gelu_row", i=row), v.look), key="block_gelu")
    names = (f"h: {t('block_gelu_row', i=row)}", f"GELU(h): {t('block_gelu_act_row', i=row)}")
    pairs = ([F.Mat(h[:, None], names[0], row_label=unit), F.Mat(a[:, None], names[1], row_label=unit)]
             if v.look.narrow else [F.Mat(h[None], names[0], col_label=unit), F.Mat(a[None], names[1], col_label=unit)])
    chart(F.grid_figure(pairs, text=v.text, words=v.words, look=v.look, per_row=2 if v.look.narrow else 1),
          key="block_gelu_values")  # a phone: the row's d_ff units down, h beside GELU(h)


def _out(v: View, tr: mha.BlockTrace, bw: mha.BlockWeights, notes=None) -> None:
    """A · W_proj (clickable), then what makes Y of it: b_proj and FFN, R₁, and the second residual (post-LN: its
    sum, then LN₂ with γ₂ and β₂). Every panel of the stream is n × d or 1 × d, so one figure fits every screen."""
    t, (n, d), f = v.t, tr.x.shape, v.cfg.d_ff
    token, feat = t("token"), t("feature")
    proj = (r"\mathrm{FFN} = A\,W_{proj} + b_{proj}:", rf"({n}\times {f})\cdot({f}\times {d}) \to {n}\times {d},")
    add = rf"({n}\times {d}) + ({n}\times {d}) \to {n}\times {d}"
    ffn = [F.Mat(bw.b_proj[None], "b<sub>proj</sub>", col_label=feat),
           F.Mat(tr.ffn, "FFN", row_label=token, col_label=feat)]
    if tr.ln == "pre":
        tex = (proj, (r"Y = R_1 + \mathrm{FFN}:", add))
        mats = [*ffn, F.Mat(tr.r1, "R₁ = X + Attn", row_label=token, col_label=feat),
                F.Mat(tr.y, "Y = R₁ + FFN", row_label=token, col_label=feat)]
    else:
        tex = (proj, (r"Y = \mathrm{LN}_2(R_1 + \mathrm{FFN}):", add))  # the sum's shape; LN keeps it
        mats = [*ffn, F.Mat(tr.r1, "R₁", row_label=token, col_label=feat),
                F.Mat(tr.sum2, "R₁ + FFN", row_label=token, col_label=feat),
                F.Mat(bw.ln2_g[None], "γ₂", col_label=feat), F.Mat(bw.ln2_b[None], "β₂", col_label=feat),
                F.Mat(tr.y, "Y = LN₂(R₁ + FFN)", row_label=token, col_label=feat)]
    said_then_shown(f"**{t(f'block_out_{tr.ln}')}**", display(v.look, *tex), notes)
    act = Operand(tr.act, name("A", ""), token, t("hidden_unit"))
    w_proj = Operand(bw.w_proj, name("W", "proj"), t("hidden_unit"), feat)
    product_view("block_proj", v, act, w_proj, Operand(tr.act @ bw.w_proj, PROJ, token, feat),
                 "A · W<sub>proj</sub>", first=1)  # under the parts control
    for per_row in (1,) if v.look.narrow else (4, 2):  # four a row, or two where four would write no numbers
        fig = F.grid_figure(mats, text=v.text, words=v.words, look=v.named, per_row=per_row)
        if not v.text or any(tr.get("texttemplate") == "%{text}" for tr in fig.to_dict()["data"]):
            break
    rows = [f"yaxis{i + 1 if i else ''}" for i, m in enumerate(mats) if m.row_label == token]
    chart(_rows(v, fig, *rows), key="block_stream")
    if tr.ln == "post":
        st.caption(t("block_ln2_stats", what=r"$R_1 + \mathrm{FFN}$", mean=_range(tr.sum2.mean(axis=1)),
                     var=_range(tr.sum2.var(axis=1))))
    st.caption(t("block_rows_alone"))


def _range(values: np.ndarray) -> str:
    return f"{fmt(float(values.min()))} … {fmt(float(values.max()))}"


def download(cfg, x, w) -> exports.Part:
    """The block's files: the trained model's or a checkpoint's block on the text, else the seeded block on the walk's
    X in the order shown."""
    ss = st.session_state
    run = x_source.model_run(tuple(x_source.text_tokens(ss.get("text", ""))))
    if run:
        return _files(run.block, run.weights.blocks[run.layer])
    bw = models.block_weights(cfg)
    return _files(mha.block(x, bw, ln=block_order(ss)), bw)


def _files(tr: mha.BlockTrace, bw: mha.BlockWeights) -> exports.Part:
    """The block stage, in its order (tr.ln, also in the files' metadata): every array of its parts (the per-row
    mean and variance LN₁ takes, the normalised rows x̂ with their own mean and variance, the residual sums, the
    FFN's up-projection before its bias) and every weight of the block. Pre-LN's sums are R₁ and Y themselves;
    post-LN's are the rows its norms take."""
    a, pre = bw.attn, tr.ln == "pre"
    into_ln1, into_ffn = tr.ln1_in, tr.ffn_in
    up = "LN_2W_fc" if pre else "R_1W_fc"
    arrays = {"X": tr.x, "W_Q": a.w_q, "W_K": a.w_k, "W_V": a.w_v, "W_O": a.w_o, "Attn": tr.attn.y}
    arrays.update({} if pre else {"sum_1": tr.sum1})
    mean, var = into_ln1.mean(axis=1, keepdims=True), into_ln1.var(axis=1, keepdims=True)
    hat = (into_ln1 - mean) / np.sqrt(var + EPS)  # the normalised rows LN₁'s part draws, before γ and β
    arrays.update({"mu_1": mean[:, 0], "var_1": var[:, 0], "x_hat_1": hat, "mu_x_hat_1": hat.mean(axis=1),
                   "var_x_hat_1": hat.var(axis=1), "gamma_1": bw.ln1_g, "beta_1": bw.ln1_b, "LN_1": tr.ln1,
                   "R_1": tr.r1, "gamma_2": bw.ln2_g, "beta_2": bw.ln2_b})
    arrays.update({"LN_2": tr.ln2} if pre else {})
    arrays.update({"W_fc": bw.w_fc, "b_fc": bw.b_fc, up: into_ffn @ bw.w_fc, "H": tr.hidden, "A": tr.act,
                   "W_proj": bw.w_proj, "b_proj": bw.b_proj, "FFN": tr.ffn})
    arrays.update({} if pre else {"sum_2": tr.sum2})
    arrays["Y"] = tr.y
    labels = {k: ("token", "feature") for k in ("X", "Attn", "sum_1", "x_hat_1", "LN_1", "R_1", "LN_2", "FFN", "sum_2",
                                                 "Y")}
    labels.update({k: ("row", "token") for k in ("mu_1", "var_1", "mu_x_hat_1", "var_x_hat_1")})
    labels.update({k: ("row", "feature") for k in ("gamma_1", "beta_1", "gamma_2", "beta_2", "b_proj")})
    labels.update({k: exports.LABELS[k] for k in ("W_Q", "W_K", "W_V", "W_O")})
    labels.update({"W_fc": ("feature", "hidden"), "b_fc": ("row", "hidden"), up: ("token", "hidden"),
                   "H": ("token", "hidden"), "A": ("token", "hidden"), "W_proj": ("hidden", "feature")})
    return exports.Part(arrays, labels, {"ln": tr.ln})
