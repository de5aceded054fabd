"""Stage 6: every head's S as small multiples, and Concat(H₁…H_h) with each head's block marked."""

import streamlit as st

from mha import figures as F

from ..views import View, chart, header, name


def render(v: View) -> None:
    t, tr, cfg = v.t, v.trace, v.cfg
    header(t, "heads")
    n, h, dv = cfg.n_tokens, cfg.n_heads, cfg.d_v
    st.latex(rf"\operatorname{{Concat}}(H_1,\dots,H_{{{h}}}):\ {h}\times({n}\times {dv}) \to {n}\times {h * dv}")
    per_row = min(h, 6 if cfg.n_tokens <= 16 else 4)
    st.markdown(f"**{t('heads_s')}**")
    probs = [F.Mat(tr.probs[i], name("S", str(i + 1)).html, "probs", t("token"), t("key_pos")) for i in range(h)]
    for start in range(0, h, per_row):
        chart(F.grid_figure(probs[start:start + per_row], text=v.text),
                        key=f"heads_s_{start}")
    concat = F.Mat(tr.concat, f"Concat(H<sub>1</sub>…H<sub>{h}</sub>)", row_label=t("token"), col_label=t("cols_of"))
    labels = [t("head_word", h=i + 1) for i in range(h)]
    st.markdown(f"**{t('heads_concat')}**")
    chart(F.grid_figure([concat], text=v.text, block_cols=dv, block_names=labels),
                    key="heads_concat")
