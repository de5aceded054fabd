"""Stage 6: every head's S as small multiples, and Concat(H₁…H_h) with each head's block marked."""

import streamlit as st

from mha import figures as F

from ..views import View, chart, equation, header, name, token_ticks


def render(v: View) -> None:
    t, tr, cfg = v.t, v.trace, v.cfg
    header(t, "heads")
    n, h, dv = cfg.n_tokens, cfg.n_heads, cfg.d_v
    equation(v.look, (rf"\operatorname{{Concat}}(H_1,\dots,H_{{{h}}}):",
                      rf"{h}\times({n}\times {dv}) \to {n}\times {h * dv}"))
    st.markdown(f"**{t('heads_s')}**")
    probs = [F.Mat(tr.probs[i], name("S", str(i + 1)).html, "probs", t("token"), t("key_pos"), v.masked(i))
             for i in range(h)]
    axes = [f"{a}axis{i + 1 if i else ''}" for i in range(h) for a in "xy"]
    chart(token_ticks(F.grid_figure(probs, text=v.text, words=v.words, look=v.named), v.tokens, axes, v.look),
          key="heads_s")
    concat = F.Mat(tr.concat, f"Concat(H<sub>1</sub>…H<sub>{h}</sub>)", row_label=t("token"), col_label=t("cols_of"))
    labels = [t("head_word", h=i + 1) for i in range(h)]
    st.markdown(f"**{t('heads_concat')}**")
    chart(F.grid_figure([concat], text=v.text, words=v.words, look=v.look, block_cols=dv, block_names=labels),
          key="heads_concat")
