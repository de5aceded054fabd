"""Stage `scores`: QKᵀ → ÷√d_k → causal mask → softmax = S for the chosen head, or for the post's own mask example.

The chart rests on one step (the `phase` control, also in the link) and plays every frame on demand;
a click on a cell writes out its dot product (row i of Q times column j of Kᵀ) and its softmax.
"""

from dataclasses import replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.base import number
from mha.figures.scores import FIGURE_EXTRA, GIVEN_PHASES, PHASES, Frame, animation_frames, cell_decimals, rest_index
from mha.figures.ticks import token_ticks

from .. import link, session
from .. import settings as S
from ..chart import clickable_chart, forget_frame, picked, picked_fragment
from ..product import breakdown
from ..prose import aside, display, fmt, head_control, header, later, said, tex_num
from ..shared import digest
from ..strings import Text
from ..view import Name, View, first_screen, name, subscript

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("scores", "scaled", "masked", "probs"), mha.causal_mask, mha.softmax]

POST_EXAMPLE = np.arange(1.0, 10.0).reshape(3, 3)  # the post's [[1,2,3],[4,5,6],[7,8,9]]
CHART_FRAGMENT, STEP_FRAGMENT = "scores_chart", "scores_step"
FIRST_ROWS = 4  # rows of controls above the board on a projector: the head, the example's toggle, the steps, a gap
MAX_EXP_TERMS = 8  # softmax denominators longer than this are written out in part
NARROW_EXP_TERMS = 3  # … and on a phone, longer than this


def render(v: View) -> None:
    t, h, ss = v.t, v.head, st.session_state
    if ss.get("example"):  # the toggle below, read before it is drawn: the post's example belongs to no head
        header(t, "scores", v.look, title=t("scores_mask_title"))
    else:
        header(t, "scores", v.look, h=h + 1)
        head_control(t)
    example = st.toggle(t("mask_example"), key="example", help=t("mask_example_help"),
                        on_change=session.on_size_change, persist_state="session")
    phases = GIVEN_PHASES if example else PHASES
    if ss.get("phase") not in phases:  # QKᵀ has no place in a given matrix: start it at the given step
        ss["phase"] = phases[0] if ss.get("phase") == "qkt" else phases[-1]
    i1, d_k = h + 1, v.cfg.d_k
    if example:
        steps = _example_steps(t)
        _example_formulas(t, v.look, steps)
    else:
        _formula(i1, d_k, v.look)
        steps = _model_steps(v)
    labels = dict(qkt=t("phase_qkt"), scaled=t("phase_given") if example else t("phase_scaled", d_k=d_k),
                  masked=t("phase_masked"), s=t("phase_s"))
    hint = t("scores_play_hint", steps=t("list_sep").join(labels[p] for p in phases))
    if not later(v.look, aside(hint)):
        st.caption(hint)
    _chart(v, steps, phases, labels, example)


@st.fragment(key=CHART_FRAGMENT)
def _chart(v: View, steps: F.ScoreSteps, phases: tuple, labels: dict, example: bool) -> None:
    """The step, the chart and the clicked cell's sums. A fragment: choosing a step reruns this part only, not the
    page with its sidebar (a click, only the sums: `picked`). On a projector the board, S alone, is no taller than
    the first screen left under the title, the head, the example's toggle and the steps (FIRST_ROWS)."""
    look = first_screen(v.look, FIRST_ROWS)  # the board's budget: its panels and what it adds to them
    v = replace(v, look=replace(look, max_h=min(look.max_h, look.fig_h - FIGURE_EXTRA)))
    t, d_k = v.t, v.cfg.d_k
    frames = animation_frames(steps, v.look)
    _step_control(v, phases, labels)
    phase = st.session_state["phase"]
    n = min(steps.scaled.shape[0], F.MAX_SIDE)

    def build():
        fig = F.scores_animation(steps, text=v.text, look=v.look, phase=phase)
        return fig if example else token_ticks(fig, v.tokens, ("yaxis", "xaxis2"), v.look)

    arrays = [a for a in (steps.scaled, steps.q, steps.k) if a is not None]
    parts = ("scores", digest(*arrays), tuple(steps.names.items()), v.t.lang, v.text, v.look, phase,
             () if example else v.tokens)
    clickable_chart(parts, build, "scores")
    inner = F.inner_window(v.cfg.n_tokens, d_k)
    if not example and not v.look.operands:  # a phone, or a projector: S alone
        st.caption(t("phone_operands" if v.look.narrow else "present_operands"))
    elif not example and inner < d_k:
        st.caption(t("inner_note", shown=inner, d_k=d_k))
    picked("scores", lambda cell: cell[0] < n and cell[1] < n,
           lambda cell, frame: _sums(v, steps, example, cell, frames, frame, labels),
           (rest_index(frames, phase), len(frames)), lambda frame: _follow(frames, frame))


@st.fragment(key=STEP_FRAGMENT)
def _step_control(v: View, phases: tuple, labels: dict) -> None:
    """The step buttons, in a fragment of their own: the chart's slider moves them without the chart being sent
    again (`_follow`); choosing a step reruns the chart too (`_step_chosen`). The address bar follows the step."""
    phase = st.segmented_control(v.t("phase"), phases, format_func=labels.get, key="phase", required=True,
                                 persist_state="session", label_visibility="collapsed",  # the hint names it
                                 on_change=_step_chosen)
    if phase != st.query_params.get("phase", S.DEFAULTS["phase"]):  # a new step, not a click: the link follows
        link.follows(v.cfg)


def _step_chosen() -> None:
    """A step chosen with the buttons: the chart is drawn anew resting on it (the frame clicked on no longer holds)."""
    forget_frame("scores")
    st.rerun(scope=CHART_FRAGMENT)


def _follow(frames: list[Frame], frame: int) -> None:
    """The chart was left on `frame` (its slider, Pause, a click): the step buttons show that frame's step. They and
    the cell's sums are drawn again; the chart stays as it is, on that frame."""
    phase = frames[frame].phase if frame < len(frames) else None
    if phase is not None and phase != st.session_state.get("phase"):
        st.session_state["phase"] = phase
        st.rerun(scope=[STEP_FRAGMENT, picked_fragment("scores")])


def _sums(v: View, steps: F.ScoreSteps, example: bool, cell: tuple[int, int] | None, frames: list[Frame],
          frame: int, labels: dict) -> None:
    """The clicked cell as the frame shown holds it, one element; the hint when no cell is chosen. Which frame and
    what the cell shows there first, then how it came to be: the dot product (row i of Q times column j of Kᵀ);
    after it, as the frame has gone on, ÷√d_k, the mask, and softmax."""
    t, h, tr = v.t, v.head, v.trace
    if cell is None:
        st.caption(t("mask_example_click") if example else t("click_hint", name=v.head_name("S").tex))
        return
    i, j = cell
    f = frames[frame]
    where = dict(k=frame + 1, count=len(frames), step=labels[f.phase], i=i + 1, j=j + 1)
    softmaxed = i < f.softmaxed
    if softmaxed:
        shown = 0.0 if j > i else float(f.probs[i, j])
    elif f.masked and j > i:
        shown = -np.inf
    else:
        shown = float(f.signed[i, j])
    if np.isnan(shown):  # a QKᵀ frame before this cell is filled
        st.markdown(t("frame_cell_empty", **where))
        return
    sums = [t("frame_cell", **where, value=_as_drawn(t, steps, v, shown, softmaxed))]
    if not example:  # the dot product behind the score
        q, kt = v.head_name("Q"), kt_name(h + 1)
        qkt = Name(f"{q.html}{kt.html}", rf"({q.tex}{kt.tex})", f"({q.plain}{kt.plain})")
        sums.append(breakdown(t, qkt, q, kt, tr.q[h, i], tr.k[h, j], tr.scores[h, i, j], i, j, v.look.narrow))
    if softmaxed:
        sums.append(softmax_breakdown(t, steps, i, j, None if example else v.cfg.d_k, v.look))
    elif f.phase != "qkt":
        if not example:
            sums.append(said(t("frame_scaled", d_k=v.cfg.d_k),
                             rf"a_{{{i + 1},{j + 1}}} = {tex_num(tr.scores[h, i, j])}/\sqrt{{{v.cfg.d_k}}}"
                             rf" = {tex_num(steps.scaled[i, j])}"))
        if f.masked:
            sums.append(t("frame_masked", i=i + 1, j=j + 1) if j > i
                        else t("frame_mask_kept", value=fmt(steps.scaled[i, j])))
    st.markdown("\n\n".join(sums))


def _as_drawn(t: Text, steps: F.ScoreSteps, v: View, value: float, probs: bool) -> str:
    """A cell's value as the chart writes it in the cell (its decimals), and to four significant digits beside it when
    that says more."""
    if value == -np.inf:
        return "−∞"
    decimals = cell_decimals(steps, text=v.text, look=v.look)[1 if probs else 0]
    exact = fmt(value)
    drawn = number(value, decimals) if decimals is not None else exact
    return drawn if drawn == exact else t("frame_value_more", shown=drawn, exact=exact)


def kt_name(head: int) -> Name:
    """K₁ᵀ in the three places a name is written: the transpose is ᵀ in text and HTML, an upright T in LaTeX
    (\\mathrm T: the post's K^T), as everywhere in the app."""
    k = name("K", str(head), "T")
    return Name(k.html, rf"K_{{{head}}}^{{\mathrm T}}", f"K{subscript(head)}ᵀ")


def _formula(i1: int, d_k: int, look: F.Look) -> None:
    """S = softmax(QKᵀ/√d_k + M) and the mask M; on a phone as two lines, or M_ij is cut off."""
    s = (rf"S_{{{i1}}} = \operatorname{{softmax}}\!\left(\frac{{Q_{{{i1}}}K_{{{i1}}}^{{\mathrm T}}}}{{\sqrt{{{d_k}}}}}"
         r" + M\right)")
    m = r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
    if look.narrow:
        st.latex(s)
        st.latex(m)
    elif not later(look, f"$$\n{s},\\qquad {m}\n$$"):
        st.latex(rf"{s},\qquad {m}")


def _matrix(a: np.ndarray) -> str:
    cell = lambda x: r"-\infty" if x == -np.inf else tex_num(float(x), 3, paren=False)
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(cell(x) for x in row) for row in a) + r"\end{pmatrix}"


def _example_formulas(t: Text, look: F.Look, s: F.ScoreSteps) -> None:
    """The post's example as the post writes it: A, A + M, then S = softmax(A + M)."""
    st.info(t("mask_example_note"))
    a, masked = rf"A = {_matrix(s.scaled)}", rf"A + M = {_matrix(s.masked)}"
    if look.narrow:  # one matrix a line: a phone is narrower than two
        st.latex(a)
        st.latex(masked)
        st.latex(rf"\begin{{aligned}} S &= \operatorname{{softmax}}(A + M) \\ &= {_matrix(s.probs)} \end{{aligned}}")
    else:
        st.latex(rf"{a} \;\rightarrow\; {masked}")
        st.latex(rf"S = \operatorname{{softmax}}(A + M) = {_matrix(s.probs)}")


def _words(t: Text, d_k: int | None) -> dict:
    given = d_k is None
    return dict(
        play=t("play"), pause=t("pause"), step_qkt=t("phase_qkt"), step_masked=t("phase_masked"), step_s="S",
        step_scaled=t("phase_given") if given else t("phase_scaled", d_k=d_k).replace(" ", ""),
        cap_qkt=t("anim_qkt"), cap_masked=t("anim_mask"), cap_s=t("anim_s"),
        cap_scaled=t("anim_given") if given else t("anim_scale", d_k=d_k, root=f"√{d_k} ≈ {np.sqrt(d_k):.3g}"),
        fill=t.template("anim_fill"), fill_rows=t.ranged("anim_fill_rows"), softmax_rows=t.ranged("anim_softmax"),
        shown=t.template("drawn_part"), slider=t("anim_slider"), slider_step=t.template("anim_step_text"),
        token=t("token"), feature=t("feature"), key=t("key_pos"), pending=t("anim_pending"),
    )


def _model_steps(v: View) -> F.ScoreSteps:
    h, tr = v.head, v.trace
    q, kt, s = v.head_name("Q"), kt_name(h + 1), v.head_name("S")
    names = dict(q=q.html, kt=kt.html, scores=f"{q.html}{kt.html}", probs=s.html)
    return F.ScoreSteps(tr.scaled[h], tr.masked[h], tr.probs[h], names, _words(v.t, v.cfg.d_k),
                        q=tr.q[h], k=tr.k[h], scores=tr.scores[h])


def _example_steps(t: Text) -> F.ScoreSteps:
    masked = POST_EXAMPLE + mha.causal_mask(3)
    names = dict(q="", kt="", scores="A", probs="S")
    return F.ScoreSteps(POST_EXAMPLE, masked, mha.softmax(masked), names, _words(t, None))


def softmax_breakdown(t: Text, s: F.ScoreSteps, i: int, j: int, d_k: int | None, look: F.Look) -> str:
    """S[i, j] from row i of the scaled scores, as Markdown: exp of each visible key (j ≤ i) over their sum. On a
    phone the two parts go on lines of their own and the sum shows its first NARROW_EXP_TERMS terms, so that each
    line fits."""
    if j > i:
        return t("softmax_masked", i=i + 1, j=j + 1)
    a = s.scaled[i, : i + 1]  # the visible keys only: the mask hides j > i
    e = np.exp(a - a.max())
    if d_k is None:
        words = t("softmax_breakdown_given", i=i + 1, j=j + 1, count=i + 1)
        head = rf"a_{{{i + 1},{j + 1}}} = {tex_num(a[j])}"
    else:
        words = t("softmax_breakdown", i=i + 1, j=j + 1, count=i + 1, d_k=d_k)
        head = rf"a_{{{i + 1},{j + 1}}} = {tex_num(s.scores[i, j])}/\sqrt{{{d_k}}} = {tex_num(a[j])}"
    most = NARROW_EXP_TERMS if look.narrow else MAX_EXP_TERMS
    terms = " + ".join(f"e^{{{tex_num(x)}}}" for x in a[:most]) + (r" + \cdots" if a.size > most else "")
    value = tex_num(e[j] / e.sum(), paren=False)
    fraction = rf"S_{{{i + 1},{j + 1}}} = \frac{{e^{{{tex_num(a[j])}}}}}{{{terms}}} = {value}"
    return said(words, display(look, head + ",", fraction) if look.narrow else rf"{head},\quad {fraction}")
