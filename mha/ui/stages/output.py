"""Stage `output`: Y = Concat·W_O, each head's block of W_O rows marked, and Y split into per-head terms (with a
checkpoint, and the bias b_O GPT-2 adds after them)."""

import streamlit as st

from mha import figures as F

from ..chart import chart
from ..product import bias_note, product_view
from ..prose import equation, header
from ..view import Operand, View, concat_args, name, product_name

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("y",)]


def render(v: View) -> None:
    t, tr, w, cfg = v.t, v.trace, v.w, v.cfg
    header(t, "output", v.look)
    n, h, dv, d = cfg.n_tokens, cfg.n_heads, cfg.d_v, cfg.d_model
    bias = w.b_o is not None
    plus = " + b_O" if bias else ""
    equation(v.look, (rf"Y = \operatorname{{Concat}}({concat_args(h).tex})\,W_O{plus}:",
                      rf"({n}\times {h * dv})\cdot({h * dv}\times {d}) \to {n}\times {d}"),
             rf"Y = \sum_{{i=1}}^{{{h}}} H_i\,W_O^{{(i)}}{plus}")
    token, col = t("token"), t("cols_of")
    concat = Operand(tr.concat, name("Concat"), token, col)
    w_o, y = Operand(w.w_o, name("W", "O"), col, t("feature")), Operand(tr.y, name("Y"), token, t("feature"))
    c = y if not bias else Operand(tr.concat @ w.w_o, product_name(concat.name, w_o.name), token, t("feature"))
    product_view("output_y", v, concat, w_o, c, f"{c.name.html} = Concat · W<sub>O</sub>",
                 blocks=dv, block_names=[t("head_word", h=i + 1) for i in range(h)], first=0)
    if bias:
        bias_note(t, c.name, name("b", "O"), y.name, d)
    st.caption(t("output_drawn"))  # (audit #15: a hand check from the drawn numbers missed by 0.03)
    blocks = w.w_o.reshape(h, dv, d)
    parts = [F.Mat(tr.heads[i] @ blocks[i], f"H<sub>{i + 1}</sub>W<sub>O</sub><sup>({i + 1})</sup>", row_label=token,
                   col_label=t("feature")) for i in range(h)]
    st.markdown(f"**{t('output_parts')}**")
    if bias:  # the row every token's Y gains after the heads' terms
        parts.append(F.Mat(w.b_o[None], "b<sub>O</sub>", row_label=t("rows_of"), col_label=t("feature")))
    mats = [*parts, F.Mat(tr.y, "Y = Σ", row_label=token, col_label=t("feature"))]
    chart(F.grid_figure(mats, text=v.text, words=v.words, look=v.look), key="output_parts")
