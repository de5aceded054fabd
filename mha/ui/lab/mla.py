"""The variant lab's MLA (DeepSeek-V2's multi-head latent attention) on the walk's own weights: `mha.mla_from` keeps
W_Q and W_O and cuts every head's [W_K | W_V] to its best rank-d_latent factors W_DKV [W_UK | W_UV] by the SVD.

What changes: the latent c = X W_DKV (the only thing cached) and the chosen head's K and V rebuilt from it, drawn
as plain figures, with what the walk's sizes do to the idea and the two orders. The products to click, one at a
time: c = X·W_DKV, [K | V] = c·[W_UK | W_UV], and the absorbed order's scores Q̃ cᵀ with Q̃ = Q W_UKᵀ. The live
checks: both orders agree (scores, S, Y), and the price of the cut, max |Y_MLA − Y_MHA| for each width, with the
largest singular value the cut drops as the reason. What the latent costs per token is lab/costs.py's to say."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import token_ticks

from .. import knobs, lab
from ..chart import chart
from ..models import MODELS
from ..product import product_view
from ..prose import aside, display, head_control, markdown_table, said
from ..shared import weights_digest
from ..variant_defs import D_LATENT
from ..view import TRACES, Name, Operand, View, first_screen, name, subscript

EVERY = 16  # up to this d_model the price table has a row for every width from 1 to d_model
ROWS = 12  # above it, about this many widths, spread evenly on a log scale (1 and d_model among them)
REBUILT_ROWS = 5  # rows of controls above the rebuilt K and V on a projector: the variant, the part, the knob
CLICK_ROWS = 7  # and above a click part's product: those, and the product's picker


@dataclass(frozen=True)
class Price:
    """What cutting the walk's K and V to `width` latent numbers costs Y."""

    width: int
    dropped: float | None  # the largest singular value the cut throws away; None when it throws none away
    delta: float  # max |Y_MLA − Y_MHA| over every token and column


@dataclass(frozen=True, eq=False)
class Cut:
    """The walk's weights factored at full width once (the SVD is the slow part at large sizes): every singular
    value, and the price of each width shown."""

    full: mha.MLAWeights  # mla_from(w, d_model): W_DKV's columns are u_k σ_k, the up-projections' rows v_kᵀ
    sigma: np.ndarray  # (rank,) the singular values of every head's [W_K | W_V] side by side, largest first
    prices: tuple[Price, ...]


def narrow(full: mha.MLAWeights, r: int) -> mha.MLAWeights:
    """mla_from(w, r) for r ≤ d_model without another SVD: the full factors' first r directions (the numbers
    mla_from writes, since it keeps the first r of the same SVD)."""
    return mha.MLAWeights(full.w_q, full.w_dkv[:, :r], full.w_uk[:, :r], full.w_uv[:, :r], full.w_o)


def widths(d_model: int) -> list[int]:
    """The latent widths the price table shows: all of 1..d_model when that is short, else a log-spaced few."""
    if d_model <= EVERY:
        return list(range(1, d_model + 1))
    return sorted({int(r) for r in np.round(np.geomspace(1, d_model, ROWS))})


def directions(sizes) -> int:
    """The directions of every head's [W_K | W_V] side by side (a Weights' or an AttentionConfig's sizes): the most
    a latent can keep, and where a narrower one cuts."""
    return min(sizes.d_model, sizes.n_heads * (sizes.d_k + sizes.d_v))


def cut(x: np.ndarray, w: mha.Weights, y_mha: np.ndarray) -> Cut:
    """One SVD for every width, and Y at each width the price table shows."""
    full = mha.mla_from(w, w.d_model)
    sigma = np.linalg.norm(full.w_dkv, axis=0)[: directions(w)]
    prices = tuple(price(r, sigma, mha.mla_forward(x, narrow(full, r)).y, y_mha) for r in widths(w.d_model))
    return Cut(full, sigma, prices)


def price(r: int, sigma: np.ndarray, y: np.ndarray, y_mha: np.ndarray) -> Price:
    return Price(r, float(sigma[r]) if r < len(sigma) else None, float(np.max(np.abs(y - y_mha))))


def _shared(v: View, d_latent: int) -> tuple[mha.MLAWeights, mha.MLATrace, Cut]:
    """The chosen width's weights and trace, and the cut at every width, shared between sessions (read-only)."""
    w = v.w
    key = ("lab_mla", weights_digest(w, v.x))
    whole = MODELS.get(key, lambda: cut(v.x, w, v.trace.y))  # the cut at GPT-2's widths passes TRACES' budget

    def chosen():  # past d_model, mla_from pads the factors with zeros
        weights = narrow(whole.full, d_latent) if d_latent <= w.d_model else mha.mla_from(w, d_latent)
        tr = mha.mla_forward(v.x, weights)
        for a in vars(tr).values():
            a.flags.writeable = False
        return weights, tr

    return (*TRACES.get((*key, d_latent), chosen), whole)


def render(v: View, variant: str, part: str) -> str:
    """One part of MLA's lab: the width (and the head, where the part draws one head's numbers) over "change" (the
    latent and the rebuilt K and V as plain figures, with the words), "click" (the three products, one at a time) or
    "check" (the two orders and the price of each width, returned as Markdown for the costs' element)."""
    t, ss, cfg = v.t, st.session_state, v.cfg
    if skip := lab.mla_skip(t, cfg, v.w):
        st.info(skip)
        return ""
    d, h = cfg.d_model, cfg.n_heads
    row = st.container(horizontal=True, vertical_alignment="bottom")  # the width and the head: one block
    latent = knobs.draw(v, D_LATENT, row, width=220)
    if part != "check":  # the checks and the price cover every head
        with row:
            head_control(t)
    w, tr, whole = _shared(v, latent)
    if part == "check":
        return _checks(v, latent, tr, whole)
    i = min(ss.get("head", 1), h) - 1
    if part == "click":
        sub, low = str(i + 1), subscript(i + 1)
        kv, w_kv = _pair("K", "V", sub), _pair("W", "W", sub, ("UK", "UV"))
        lab.one_product(v, variant, {
            "c": (f"c = X·{name('W', 'DKV').plain}", lambda: _latent(v, w, tr)),
            "kv": (f"{kv.plain} = c·{w_kv.plain}", lambda: _kv(v, w, tr, i)),
            "s": (f"Q{low}K{low}ᵀ = Q̃{low}·cᵀ", lambda: _absorbed(v, tr, i)),
        })
        return ""
    opening = f"**{t('lab_mla_title')}** {t('lab_mla_intro', d=d, kv=cfg.n_heads * (cfg.d_k + cfg.d_v))}"
    projector = v.look == F.PRESENT  # there the first figure comes first, and the words that open it under it
    if not projector:
        st.markdown(opening)
    _rebuilt(v, tr, i)
    st.markdown("\n\n".join([*([opening] if projector else []), _sizes(v, latent, whole), _orders(v, i)]))
    return ""


def _rebuilt(v: View, tr: mha.MLATrace, i: int) -> None:
    """What MLA caches, c, and what head i rebuilds from it, K_i and V_i: one plain figure, rows named by token."""
    t = v.t
    token, sub = t("token"), str(i + 1)
    mats = [F.Mat(tr.latent, name("c").html, row_label=token, col_label=t("lab_mla_latent")),
            F.Mat(tr.k[i], name("K", sub).html, row_label=token, col_label=t("cols_of")),
            F.Mat(tr.v[i], name("V", sub).html, row_label=token, col_label=t("cols_of"))]
    axes = tuple(f"yaxis{k + 1 if k else ''}" for k in range(len(mats)))
    look = first_screen(v.named, REBUILT_ROWS)  # on a projector, whole under the variant, the part and the knob's row
    chart(token_ticks(F.grid_figure(mats, text=v.text, words=v.words, look=look), v.tokens, axes, v.look),
          key="lab_mla_rebuilt")


def _sizes(v: View, latent: int, whole: Cut) -> str:
    """What the post's sizes do to MLA, and what this width throws away."""
    t, cfg = v.t, v.cfg
    d, kv, rank = cfg.d_model, cfg.n_heads * (cfg.d_k + cfg.d_v), len(whole.sigma)
    check = t("lab_part_check")  # the part that has the tables these words point to, named by their titles
    costs, price = t("lab_costs_title", variant="MLA"), t("lab_mla_price")
    if latent < rank:
        state = t("lab_mla_cut", l=latent, dropped=rank - latent, r=rank, next=latent + 1,
                  sigma=f"{whole.sigma[latent]:.4g}", check=check, price=price)
    else:
        state = t("lab_mla_exact", l=latent)
        if latent > rank:
            state = t.sentences(state, t("lab_mla_zero_cols", extra=latent - rank))
    return t.sentences(t("lab_mla_small_x" if d < kv else "lab_mla_wide_x", d=d, kv=kv, check=check, costs=costs),
                       state)


def _orders(v: View, i: int) -> str:
    """The naive and the absorbed order, in words and as formulas for head i: one element's Markdown."""
    j, look = i + 1, v.look
    naive = (r"c = X\,W_{DKV}", rf"K_{{{j}}} = c\,W_{{UK{j}}},\ V_{{{j}}} = c\,W_{{UV{j}}}",
             rf"H_{{{j}}} = \operatorname{{softmax}}\!\Big(\tfrac{{Q_{{{j}}}K_{{{j}}}^{{\mathrm T}}}}{{\sqrt{{d_k}}}}"
             rf" + M\Big)\,V_{{{j}}}")
    absorbed = (rf"\tilde Q_{{{j}}} = Q_{{{j}}}\,W_{{UK{j}}}^{{\mathrm T}}",
                rf"H_{{{j}}} = \Big(\operatorname{{softmax}}\!\Big(\tfrac{{\tilde Q_{{{j}}}\,c^{{\mathrm T}}}}"
                rf"{{\sqrt{{d_k}}}} + M\Big)\,c\Big)\,W_{{UV{j}}}")
    if look.narrow:
        tex = display(look, *naive, *absorbed)
    else:
        tex = (r"\begin{gathered} " + r"\qquad ".join(naive) + r" \\[4pt] " + r"\qquad ".join(absorbed)
               + r" \end{gathered}")
    return said(v.t("lab_mla_orders"), tex)


def _latent(v: View, w: mha.MLAWeights, tr: mha.MLATrace) -> None:
    """c = X·W_DKV: the only thing the cache keeps."""
    t = v.t
    w_dkv = name("W", "DKV")
    product_view("mla_c", v, Operand(v.x, name("X"), t("token"), t("feature")),
                 Operand(w.w_dkv, w_dkv, t("feature"), t("lab_mla_latent")),
                 Operand(tr.latent, name("c"), t("token"), t("lab_mla_latent")), f"c = X · {w_dkv.html}",
                 first=CLICK_ROWS)


def _kv(v: View, w: mha.MLAWeights, tr: mha.MLATrace, i: int) -> None:
    """Head i's [K | V] = c·[W_UK | W_UV], the naive order."""
    t = v.t
    token, col, latent, sub = t("token"), t("cols_of"), t("lab_mla_latent"), str(i + 1)
    kv, w_kv = _pair("K", "V", sub), _pair("W", "W", sub, ("UK", "UV"))
    product_view("mla_kv", v, Operand(tr.latent, name("c"), token, latent),
                 Operand(np.hstack([w.w_uk[i], w.w_uv[i]]), w_kv, latent, col),
                 Operand(np.hstack([tr.k[i], tr.v[i]]), kv, token, col), f"{kv.html} = c · {w_kv.html}",
                 first=CLICK_ROWS)


def _absorbed(v: View, tr: mha.MLATrace, i: int) -> None:
    """Head i's scores in the absorbed order, Q̃·cᵀ, equal to Q_i K_iᵀ with K rebuilt."""
    t = v.t
    token, latent, key = t("token"), t("lab_mla_latent"), t("key_pos")
    sub, low = str(i + 1), subscript(i + 1)
    q_tilde = Name(f"Q̃<sub>{sub}</sub>", rf"\tilde Q_{{{sub}}}", f"Q̃{low}")
    c_t = Name("c<sup>T</sup>", r"c^{\mathrm T}", "cᵀ")
    scores = Name(f"Q<sub>{sub}</sub>K<sub>{sub}</sub><sup>T</sup>", rf"Q_{{{sub}}}K_{{{sub}}}^{{\mathrm T}}",
                  f"Q{low}K{low}ᵀ")
    product_view("mla_s", v, Operand(tr.q_absorbed[i], q_tilde, token, latent),
                 Operand(tr.latent.T, c_t, latent, key), Operand(tr.q_absorbed[i] @ tr.latent.T, scores, token, key),
                 f"{scores.html} = {q_tilde.html} · {c_t.html}", first=CLICK_ROWS)


def _pair(left: str, right: str, sub: str, subs: tuple[str, str] = ("", "")) -> Name:
    """[K₁ | V₁] or [W_UK1 | W_UV1]: two matrices side by side, in the three places a name is written."""
    a, b = (name(letter, f"{s}{sub}") for letter, s in ((left, subs[0]), (right, subs[1])))
    return Name(f"[{a.html} | {b.html}]", rf"[{a.tex}\mid {b.tex}]", f"[{a.plain} | {b.plain}]")


def _delta(t, x: float) -> str:
    return t("kv_exact") if x == 0 else f"{x:.3g}"


def _checks(v: View, latent: int, tr: mha.MLATrace, whole: Cut) -> str:
    """The two orders against each other, and the price of the cut at each width: one element."""
    t = v.t
    naive_scores = tr.q @ tr.k.transpose(0, 2, 1)
    absorbed_scores = tr.q_absorbed @ tr.latent.T
    orders = [(t("lab_mla_check_scores"), _delta(t, float(np.max(np.abs(naive_scores - absorbed_scores))))),
              (t("lab_mla_check_s"), _delta(t, float(np.max(np.abs(tr.probs - tr.probs_absorbed))))),
              (t("lab_mla_check_y"), _delta(t, float(np.max(np.abs(tr.y - tr.y_absorbed)))))]
    prices = list(whole.prices)
    if latent not in {p.width for p in prices}:
        prices = sorted([*prices, price(latent, whole.sigma, tr.y, v.trace.y)], key=lambda p: p.width)
    rows = []
    for p in prices:
        cells = (p.width, t("lab_mla_none") if p.dropped is None else f"{p.dropped:.4g}", f"{p.delta:.3g}")
        rows.append(tuple(f"**{c}**" for c in cells) if p.width == latent else cells)
    rank = len(whole.sigma)
    note = t("lab_mla_price_note", r=rank)
    if v.cfg.d_model > EVERY:
        note = t.sentences(note, t("lab_mla_price_some", shown=len(whole.prices), d=v.cfg.d_model))
    return "\n\n".join([
        f"**{t('lab_mla_checks_title')}**",
        markdown_table([t("lab_mla_check_what"), t("lab_mla_check_delta")], orders),
        f"**{t('lab_mla_price_title', price=t('lab_mla_price'))}**",
        markdown_table([t("lab_mla_price_l"), t("lab_mla_price_sigma"), t("lab_mla_price_y")], rows),
        aside(note),
    ])
