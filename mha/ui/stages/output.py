"""Stage `output`: Y = Concat·W_O, each head's block of W_O rows marked, and Y split into per-head terms."""

import streamlit as st

from mha import figures as F

from ..chart import chart
from ..product import product_view
from ..prose import equation, header
from ..view import Operand, View, concat_args, name

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("y",)]


def render(v: View) -> None:
    t, tr, w, cfg = v.t, v.trace, v.w, v.cfg
    header(t, "output", v.look)
    n, h, dv, d = cfg.n_tokens, cfg.n_heads, cfg.d_v, cfg.d_model
    equation(v.look, (rf"Y = \operatorname{{Concat}}({concat_args(h).tex})\,W_O:",
                      rf"({n}\times {h * dv})\cdot({h * dv}\times {d}) \to {n}\times {d}"),
             rf"Y = \sum_{{i=1}}^{{{h}}} H_i\,W_O^{{(i)}}")
    token, col = t("token"), t("cols_of")
    concat = Operand(tr.concat, name("Concat"), token, col)
    w_o, y = Operand(w.w_o, name("W", "O"), col, t("feature")), Operand(tr.y, name("Y"), token, t("feature"))
    product_view("output_y", v, concat, w_o, y, "Y = Concat · W<sub>O</sub>",
                 blocks=dv, block_names=[t("head_word", h=i + 1) for i in range(h)])
    st.caption(t("output_drawn"))  # (audit #15: a hand check from the drawn numbers missed by 0.03)
    blocks = w.w_o.reshape(h, dv, d)
    parts = [F.Mat(tr.heads[i] @ blocks[i], f"H<sub>{i + 1}</sub>W<sub>O</sub><sup>({i + 1})</sup>", row_label=token,
                   col_label=t("feature")) for i in range(h)]
    st.markdown(f"**{t('output_parts')}**")
    mats = [*parts, F.Mat(tr.y, "Y = Σ", row_label=token, col_label=t("feature"))]
    chart(F.grid_figure(mats, text=v.text, words=v.words, look=v.look), key="output_parts")
