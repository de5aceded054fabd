"""Stage 4: QKᵀ → ÷√d_k → causal mask → softmax = S for the chosen head, animated with Plotly frames."""

import numpy as np
import streamlit as st

from mha import figures as F

from ..views import View, breakdown, clickable_chart, header, name, selected, tex_num


def render(v: View) -> None:
    t, h, tr = v.t, v.head, v.trace
    header(t, "scores", h=h + 1)
    d_k, i1 = v.cfg.d_k, h + 1
    st.latex(rf"S_{{{i1}}} = \operatorname{{softmax}}\!\left(\frac{{Q_{{{i1}}}K_{{{i1}}}^{{T}}}}{{\sqrt{{{d_k}}}}}"
             r" + M\right),\qquad M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}")
    st.caption(t("scores_play_hint"))
    q, k, s = v.head_name("Q"), name("K", str(i1), "T"), v.head_name("S")
    names = dict(q=q.html, kt=k.html, scores=f"{q.html}{k.html}", probs=s.html)
    words = {key: t.template(f"anim_{key}") for key in ("fill", "scale", "mask")}
    words |= {key: t.ranged(f"anim_{key}") for key in ("fill_rows", "softmax")}  # format(a=, b=) says "row 1"
    words |= dict(play=t("play"), pause=t("pause"))
    steps = F.ScoreSteps(tr.q[h], tr.k[h], tr.scores[h], tr.scaled[h], tr.masked[h], tr.probs[h], names, words)
    clickable_chart(F.scores_animation(steps, text=v.text), "scores")
    inner = F.inner_window(v.cfg.n_tokens, d_k)
    if inner < d_k:
        st.caption(t("inner_note", shown=inner, d_k=d_k))
    cell = selected("scores")
    if cell is None or max(cell) >= tr.probs.shape[1]:
        st.caption(t("click_hint", name=f"{s.plain}"))
        return
    i, j = cell
    breakdown(t, name("(QKᵀ)"), q, name("K", str(i1)), tr.q[h, i], tr.k[h, j], tr.scores[h, i, j], i, j)
    if j > i:
        st.markdown(t("softmax_masked", i=i + 1, j=j + 1))
        return
    a = tr.scaled[h, i, : i + 1]
    st.markdown(t("softmax_breakdown", i=i + 1, j=j + 1, count=i + 1, d_k=d_k))
    e = np.exp(a - a.max())
    st.latex(rf"a_{{{i + 1},{j + 1}}} = {tex_num(tr.scores[h, i, j])}/\sqrt{{{d_k}}} = {tex_num(a[j])},\quad "
             rf"S_{{{i + 1},{j + 1}}} = \frac{{e^{{{tex_num(a[j])}}}}}{{"
             + " + ".join(f"e^{{{tex_num(x)}}}" for x in a[:8]) + (r" + \cdots" if a.size > 8 else "")
             + rf"}} = {tex_num(e[j] / e.sum(), paren=False)}")
