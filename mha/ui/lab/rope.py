"""The lab's RoPE: Q and K of the head shown, turned pair by pair by position (`rotary_dims` of them; the rest pass
through), and the angles that turn them (what changes); the scores Q_rot K_rotᵀ (click a cell: its dot product, or
Quiz me); and checks computed on the page: with one token in every row the scores depend on i − j only, moving
every position changes no score, the dims that do not turn pass unchanged, and the RoPE KV cache holds the rotated
keys."""

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import token_ticks

from .. import knobs, lab
from ..chart import chart
from ..product import product_view
from ..prose import aside, display, fmt, head_control, markdown_table, said
from ..strings import Text
from ..variant_defs import ROTARY_DIMS
from ..view import Name, Operand, View, name, subscript

SHIFT = 5  # the constant every position is moved by in the shift check
PAIR_LINES = 16  # up to this d_k the pairs are marked by lines; more would hide the numbers between them
TOLERANCE = 1e-9  # a check passes when its largest difference is within this, relative to the numbers compared


@dataclass(frozen=True)
class Checks:
    """What the page checks, each as a largest absolute difference: one token in every row, with RoPE along each
    diagonal of the scores (`toeplitz`, the matrix `same_rot`) and without RoPE across all cells (`constant`, the
    matrix `same_plain`); every position moved by SHIFT (`shift`); the dims that do not turn (`passing`, None when
    every dim turns); the RoPE KV cache's keys against K_rot (`cache`)."""

    same_rot: np.ndarray
    same_plain: np.ndarray
    scale: float  # the largest number compared (at least 1): the tolerance is relative to it
    toeplitz: float
    constant: float
    shift: float
    passing: float | None
    cache: float


def render(v: View, variant: str, part: str) -> str:
    """One part: the turn drawn on Q and K ("change"), the scores of the turned rows to click ("click"), or the
    checks, their figure drawn and their table returned ("check"). The knob in each: it changes all three."""
    t, d_k = v.t, v.cfg.d_k
    if d_k < 2:
        st.info(t("lab_rope_dk_one", d_k=d_k))
        return ""
    knobs.draw(v, ROTARY_DIMS)
    cfg = lab.config(v, variant)
    h = min(st.session_state["head"], cfg.n_heads) - 1  # read here: the head control reruns this fragment only
    v = replace(v, head=h)
    tr = lab.trace(v, cfg)
    g = int(mha.groups(cfg.n_heads, cfg.kv_heads)[h])
    names = _names(h + 1)
    if part == "change":
        _change(v, cfg, tr, g, names)
        return ""
    head_control(t)
    if part == "click":
        lab.one_product(v, variant, {"scores": (names["scores"].plain, lambda: _scores(v, tr, g, names))})
        return ""
    checks = _checks(v, cfg, tr, h, g)
    words = f"**{t('lab_rope_checks_title')}** · " + t("lab_rope_checks", shift=SHIFT, h=h + 1) + "\n\n" + said(
        t("lab_rope_relative"), r"(R_p\,q)\cdot(R_s\,k) = q\cdot R_{s-p}\,k")
    if v.look == F.PRESENT:  # a projector: the two score matrices first, under the controls, and the words under them
        _same_tokens(v, names, checks)
        st.markdown(words)
    else:
        st.markdown(words)
        _same_tokens(v, names, checks)
    return _table(t, cfg, checks) + f"\n\n**{t('lab_rope_cache_title')}** · " + t("lab_rope_cache")


def _change(v: View, cfg: mha.AttentionConfig, tr: mha.Trace, g: int, names: dict[str, Name]) -> None:
    """What RoPE does, Q and K before and after the turn with the angles, and why the dims turn in pairs."""
    t = v.t
    projector = v.look == F.PRESENT  # there Q and K come first, on the first screen, and the words that open them under
    if not projector:
        st.markdown(_opening(v, cfg))
    head_control(t)
    shown = _turned(v, cfg, tr, g, names)
    opening = (_opening(v, cfg),) if projector else ()
    st.markdown("\n\n".join((*opening, shown, _why(t, cfg.d_k, cfg.rotary_dims))))


def _scores(v: View, tr: mha.Trace, g: int, names: dict[str, Name]) -> None:
    """Q_rot · K_rotᵀ of the head shown: click a cell for its dot product, or Quiz me."""
    t, h = v.t, v.head
    rows = lab.CLICK_ROWS + 2 * (v.cfg.n_heads > 1)  # the head picker, 48 px with its gap: more than one row's 36
    lab.said_then_product(v, t("lab_rope_scores", quiz=t("quiz_start")), lambda: product_view(
        "lab_rope", v, Operand(tr.q_rot[h], names["q_rot"], t("token"), t("cols_of")),
        Operand(tr.k_rot[g].T, names["k_rot_t"], t("cols_of"), t("key_pos")),
        Operand(tr.scores[h], names["scores"], t("token"), t("key_pos")),
        f"{names['q_rot'].plain} · {names['k_rot_t'].plain}", first=rows))  # no <sup>: a formula's line stays short


def _names(h: int) -> dict[str, Name]:
    """Q_rot, K_rotᵀ, Q_rot K_rotᵀ and Q Kᵀ of head h (1-based), in the three places a name is written."""
    sub = subscript(h)
    q_rot = Name(f"Q<sub>{h}</sub><sup>rot</sup>", rf"Q_{{{h}}}^{{\mathrm{{rot}}}}", f"Q{sub}ʳᵒᵗ")
    k_rot = Name(f"K<sub>{h}</sub><sup>rot</sup>", rf"K_{{{h}}}^{{\mathrm{{rot}}}}", f"K{sub}ʳᵒᵗ")
    k_rot_t = Name(f"{k_rot.html}ᵀ", rf"(K_{{{h}}}^{{\mathrm{{rot}}}})^{{\mathrm T}}", f"{k_rot.plain}ᵀ")
    q, k = name("Q", str(h)), name("K", str(h))
    return dict(q=q, k=k, q_rot=q_rot, k_rot=k_rot, k_rot_t=k_rot_t,
                scores=Name(f"{q_rot.html}{k_rot_t.html}", q_rot.tex + k_rot_t.tex, q_rot.plain + k_rot_t.plain),
                plain=Name(f"{q.html}{k.html}ᵀ", rf"{q.tex}{k.tex}^{{\mathrm T}}", f"{q.plain}{k.plain}ᵀ"))


def _opening(v: View, cfg: mha.AttentionConfig) -> str:
    """What RoPE does, and the turn of one pair as a formula, with this page's numbers."""
    r, base = cfg.rotary_dims, cfg.rope_base
    if not r:
        return v.t.sentences(v.t("lab_rope_text"), v.t("lab_rope_none"))
    turn = (r"\begin{pmatrix} q^{\mathrm{rot}}_{2i} \\ q^{\mathrm{rot}}_{2i+1} \end{pmatrix} = "
            r"\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i \end{pmatrix}"
            r"\begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix}")
    rate = rf"\theta_i = {base:g}^{{-2i/{r}}},\quad i = 0,\dots,{r // 2 - 1}"
    return said(v.t("lab_rope_text"), display(v.look, turn + ",", rate))


def _turned(v: View, cfg: mha.AttentionConfig, tr: mha.Trace, g: int, names: dict[str, Name]) -> str:
    """Q beside Q_rot, then K beside K_rot, of the head shown, the pairs marked and named by their θ; then the angles
    p·θ_i. What they show, said under them by the caller (one element with what follows).

    Two a row leave each cell room for its number, so that a pair turned by 0.05 rad still shows its change (audit
    2026-12-04 #9: four a row drew colour only), and a phone's one a row (the learner audit of 2026-12-07: two
    left its cells 19 px, colour only); two figures, so that a projector's first screen holds Q and Q_rot whole."""
    t, h, r, d_k = v.t, v.head, cfg.rotary_dims, cfg.d_k
    lines = d_k <= PAIR_LINES
    pairs = [f"θ{subscript(i)}" for i in range(r // 2)] + [""] * ((d_k - r + 1) // 2)
    for key, (before, after) in (("q", (tr.q[h], tr.q_rot[h])), ("k", (tr.k[g], tr.k_rot[g]))):
        mats = [F.Mat(a, names[n].html, row_label=t("token"), col_label=t("cols_of"))
                for a, n in ((before, key), (after, f"{key}_rot"))]
        fig = F.grid_figure(mats, text=v.text, words=v.words, look=v.named, block_cols=2 if lines else 0,
                            block_names=pairs if lines else (), per_row=1 if v.look.narrow else 2)
        chart(token_ticks(fig, v.tokens, ("yaxis", "yaxis2"), v.look), key=f"lab_rope_{key}")
    words = t("lab_rope_qk_caption" if lines else "lab_rope_qk_caption_wide", h=h + 1, r=r, d_k=d_k)
    if not r:
        return words
    angles = mha.variants.angles(np.arange(cfg.n_tokens), r, cfg.rope_base)
    mat = F.Mat(angles, "p·θ<sub>i</sub>", "magnitude", t("lab_rope_position"), t("lab_rope_pair"))
    fig = F.grid_figure([mat], text=v.text, words=v.words, look=v.look)
    fig = token_ticks(fig, [f"θ{subscript(i)}" for i in range(r // 2)], ("xaxis",), v.look)
    chart(token_ticks(fig, [str(p) for p in range(cfg.n_tokens)], ("yaxis",), v.look), key="lab_rope_angles")
    return t.sentences(words, t("lab_rope_angles", base=f"{cfg.rope_base:g}", r=r))


def _why(t: Text, d_k: int, r: int) -> str:
    """Why the dims turn in pairs, what passes at these sizes, and which dims make a pair."""
    parts = [t("lab_rope_pairs")]
    if d_k % 2:
        parts.append(t("lab_rope_odd", d_k=d_k, most=d_k - 1, pairs=(d_k - 1) // 2))
    parts.append(t("lab_rope_pass", rest=d_k - r, d_k=d_k) if r < d_k else t("lab_rope_all", d_k=d_k))
    return t.sentences(*parts) + "\n\n" + t("lab_rope_layout")


def _checks(v: View, cfg: mha.AttentionConfig, tr: mha.Trace, h: int, g: int) -> Checks:
    """The page's checks on head h (kv head g), each computed here from the core's pieces."""
    n, r, base = cfg.n_tokens, cfg.rotary_dims, cfg.rope_base
    w = lab.weights(v, cfg)
    same = np.repeat(v.x[:1], n, axis=0)  # every row of X set to X₁
    same_rot = mha.forward(same, w, cfg).scores[h]
    same_plain = mha.forward(same, w, replace(cfg, rotary_dims=0)).scores[h]
    pos = np.arange(n) + SHIFT
    moved = mha.rope(tr.q[h], pos, r, base) @ mha.rope(tr.k[g], pos, r, base).T
    passing = None if r == cfg.d_k else float(max(np.abs(tr.q_rot[:, :, r:] - tr.q[:, :, r:]).max(),
                                                  np.abs(tr.k_rot[:, :, r:] - tr.k[:, :, r:]).max()))
    cache, _ = mha.decode(v.x, w, cfg)
    scale = max(1.0, *(float(np.abs(a).max()) for a in (same_rot, same_plain, tr.scores[h], tr.k_rot, tr.q_rot)))
    return Checks(same_rot, same_plain, scale, float(np.abs(same_rot[1:, 1:] - same_rot[:-1, :-1]).max(initial=0.0)),
                  float(np.abs(same_plain - same_plain[0, 0]).max()), float(np.abs(moved - tr.scores[h]).max()),
                  passing, float(np.abs(cache.k - tr.k_rot).max()))


def _same_tokens(v: View, names: dict[str, Name], c: Checks) -> None:
    """With X₁ in every row: the scores with RoPE (a Toeplitz matrix) beside those without (one number)."""
    t = v.t
    mats = [F.Mat(a, names[key].html, row_label=t("token"), col_label=t("key_pos"))
            for a, key in ((c.same_rot, "scores"), (c.same_plain, "plain"))]
    chart(F.grid_figure(mats, text=v.text, words=v.words, look=v.look, per_row=1 if v.look.narrow else 2),
          key="lab_rope_same")


def _table(t: Text, cfg: mha.AttentionConfig, c: Checks) -> str:
    """The checks as a table: what is compared, the largest difference, ✓ or ✗."""
    def row(words: str, value: float | None) -> tuple:
        if value is None:
            return words, "—", "✓"
        return words, t("kv_exact") if value == 0 else fmt(value), "✓" if value <= TOLERANCE * c.scale else "✗"

    rest, d_k = cfg.d_k - cfg.rotary_dims, cfg.d_k
    passing = t("lab_rope_check_pass", rest=rest, d_k=d_k) if rest else t("lab_rope_check_none_pass", d_k=d_k)
    rows = [row(t("lab_rope_check_toeplitz"), c.toeplitz), row(t("lab_rope_check_constant"), c.constant),
            row(t("lab_rope_check_shift", shift=SHIFT), c.shift), row(passing, c.passing),
            row(t("lab_rope_check_cache"), c.cache)]
    return markdown_table([t("lab_rope_check"), t("lab_rope_largest"), ""], rows) + "\n\n" + aside(
        t("lab_rope_check_note", largest=fmt(c.scale)))
