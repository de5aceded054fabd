"""The lab's GQA and MQA: query heads in groups that share one K and one V (MQA: one group of every head).

What changes, drawn on the walk's own figures: each group's K and V once, at the head of a row, with the Q of every
head that reads them after it; then every head's S and H as on the heads stage. To click: the chosen head's scores
or its H, one product at a time. Checked on the page: the K and V a real cache keeps per token, against the
formula; that every head reads its own group's K and V (recomputed here, the group worked out by the page, not by
the core); and how far sharing moves Y on weights that were not trained to share."""

from dataclasses import replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.base import MAX_TEXT_SIDE, PHONE_COLUMN
from mha.figures.ticks import token_ticks

from .. import knobs, lab, primes, session
from ..chart import chart
from ..heads import s_maps
from ..knobs import divisors
from ..product import product_view
from ..prose import aside, display, fmt, head_control, markdown_table, said
from ..strings import Text
from ..variant_defs import KV_HEADS
from ..view import Name, Operand, View, concat_args, first_screen, name, subscript

FOUR = 4  # the fewest heads with a real group: some heads sharing K and V, not all
ROW = dict(desk=4, numbers=2, phone=2)  # panels a row of the map at most: a group's K, V and Q's wrap after this many
PRESENT_MAP_H = 300  # px of panels the map may take down on a projector: under the lab's controls, on the first screen
# (its rows lowered to fit it: numbers at 16 px, as S's, where 270 wrote 14)
# Rows of controls above the map on a projector (view.first_screen): the variant and the part; GQA's knob row (its
# label over its pills, beside the offer) takes as much as two more and the gap under it
LAB_ROWS, KNOB_ROWS = 2, 3
TALL = 16  # rows drawn beyond which the map keeps to one row of panels: the chosen head's group, its first heads


def group_of(i: int, h: int, n_kv: int) -> int:
    """The group query head i (from 0) reads, worked out here from the rule: i·n_kv/h rounded down. The page's own
    answer, against which it checks the core's (mha.groups)."""
    return i * n_kv // h


def render(v: View, variant: str, part: str) -> str:
    """One part of the lab (S.LAB_PARTS): what sharing changes, drawn on the walk's figures; the chosen head's
    products to click; or the live checks, returned as Markdown for costs to lead with. GQA's knob is in every part:
    each shows what it changes."""
    # GQA's knob, the head shown and the offer: one row (MQA draws one of them at most: no row, no empty element)
    row = st.container(horizontal=True, vertical_alignment="bottom") if variant == "gqa" else st
    if variant == "gqa":
        knobs.draw(v, KV_HEADS, row)
    cfg = lab.config(v, variant)
    w, tr = lab.weights(v, cfg), lab.trace(v, cfg)
    g = mha.groups(cfg.n_heads, cfg.kv_heads)
    if part == "click":
        head_control(v.t, row)
        _products(v, variant, tr, g)
    elif part == "check":
        return _checks(v, variant, cfg, w, tr)
    else:
        _change(v, variant, tr, g, row)
    return ""


def _change(v: View, variant: str, tr: mha.Trace, g: np.ndarray, row) -> None:
    """Who shares what, in words; the map of each group's K and V with the Q's that read them; every head's S and
    the H it makes with its group's V. The head control only when the map draws the chosen head's group alone (past
    TALL rows; on a projector, where every group's write no numbers: audit 2026-12-06 #8, 25 columns a row)."""
    t, h = v.t, v.cfg.n_heads
    offered = offer(v, variant, row)
    rows, (shown, part) = LAB_ROWS + (KNOB_ROWS if variant == "gqa" else 0), _shown(v, len(tr.x), g)
    fig = _map(v, tr, shown, rows)
    if v.look == F.PRESENT and len(shown) > 1 and not _has_numbers(fig):
        shown, part = _shown(v, len(tr.x), g, whole=False)
        fig = _map(v, tr, shown, rows)
    if part:
        head_control(t, row)
    map_title, sh_title = f"**{t('lab_groups_map_title')}**{part}", f"**{t('lab_groups_sh_title')}**"
    intro = "\n\n".join(filter(None, (offered, _intro(v, len(tr.k), g))))
    if v.look == F.PRESENT:  # there the map comes first, on the first screen, and its title and the words under it
        _draw_map(v, fig, shown)
        st.markdown(f"{map_title}\n\n{intro}\n\n{sh_title}")  # one element, not two
    else:
        st.markdown(f"{intro}\n\n{map_title}")
        _draw_map(v, fig, shown)
        st.markdown(sh_title)
    s_maps(v, tr, "lab_groups_s")
    labels = [t("lab_groups_h_block", i=i + 1, g=g[i] + 1) for i in range(h)]
    concat = F.Mat(tr.concat, f"Concat({concat_args(h).html})", row_label=t("token"), col_label=t("cols_of"))
    chart(token_ticks(F.grid_figure([concat], text=v.text, words=v.words, look=v.named, block_cols=v.cfg.d_v,
                                    block_names=labels), v.tokens, ("yaxis",), v.look), key="lab_groups_h")


def offer(v: View, variant: str, box, key: str = "lab_groups_four") -> str:
    """Too few heads for a real group (GQA: no divisor of h between 1 and h; MQA: a single head): the button that
    makes 4 heads, as the sidebar's size would set them (X stays), in `box`, and the words that say why, for the
    intro. The trained model's sizes and a checkpoint's are their own: then say that instead."""
    t, h = v.t, v.cfg.n_heads
    if (variant == "gqa" and len(divisors(h)) > 2) or (variant == "mqa" and h > 1):
        return ""
    if v.run:
        st.info(t("lab_groups_fixed", h=h, options=t("list_sep").join(map(str, divisors(h)))))
        return ""
    if box.button(t("lab_groups_four_button"), key=key, on_click=four_heads, args=(variant,)):
        st.rerun(scope="app")  # the sidebar and the walk's view change with h, not only the lab
    return t("lab_groups_four_one") if h == 1 else t("lab_groups_four_gqa", h=h)


def four_heads(variant: str) -> None:
    """4 heads, as the sidebar's own size change makes them; with GQA 2 kv heads, two groups of two. The heads before
    are kept, for the other stages to offer them back (`elsewhere`)."""
    ss = st.session_state
    before = ss["n_heads"]
    ss["n_heads"] = FOUR
    if variant == "gqa":
        ss["kv_heads"] = 2
    session.on_size_change()
    ss[session.SIZES_FROM] = {"n_heads": before}


def elsewhere(t: Text, box) -> bool:
    """With the 4 heads the lab's button set and every other size a distinct prime, where the view has no need of
    them (the sidebar asks only then): in `box`, that h = 4 is the lab's, and a button back to the heads before
    (audit 2026-12-06 #5); whether it said so."""
    ss = st.session_state
    before = ss.get(session.SIZES_FROM, {}).get("n_heads")
    if before is None or int(ss["n_heads"]) != FOUR or not primes.primes_but(ss, "n_heads"):
        return False
    box.caption(t("lab_four_elsewhere", h=FOUR, before=before))
    box.button(t("lab_four_back", before=before), key="lab_four_back", on_click=_back, args=(before,))
    return True


def _back(before: int) -> None:
    st.session_state["n_heads"] = before
    session.on_size_change()


def _heads(t, heads) -> str:
    return t("list_sep").join(str(i + 1) for i in heads)


def _intro(v: View, n_kv: int, g: np.ndarray) -> str:
    """Who shares what, in words, and the rule every head reads by."""
    t, h = v.t, v.cfg.n_heads
    groups = t("list_sep").join(t("lab_groups_group", g=k + 1, heads=_heads(t, np.flatnonzero(g == k)))
                                for k in range(n_kv))
    if n_kv == h:
        words = t("lab_groups_none", h=h)
    elif n_kv == 1:
        words = t.sentences(t("lab_groups_intro_mqa", h=h), t("lab_groups_mqa"), t("lab_groups_row1"))
    else:
        words = t.sentences(t("lab_groups_intro", h=h, n_kv=n_kv, size=h // n_kv, groups=groups), t("lab_groups_gqa"),
                            t("lab_groups_row1"))
    scores = r"S_i = \operatorname{softmax}\!\Big(\frac{Q_i K_{g(i)}^{\mathrm T}}{\sqrt{d_k}} + M\Big)"
    rule = r"g(i) = \Big\lceil \frac{i\,n_{kv}}{h} \Big\rceil"
    return said(words, display(v.look, scores, r"H_i = S_i\,V_{g(i)}", rule))


def _shown(v: View, n: int, g: np.ndarray, whole: bool = True) -> tuple[dict[int, np.ndarray], str]:
    """The groups the map draws, each with the query heads drawn, and what the title adds when that is not all:
    every group while its panels are short (and `whole`); else one row of panels, the chosen head's group (its K, V
    and first heads), or the map would run past a projector's screen."""
    cap = _cap(v)
    every = {k: np.flatnonzero(g == k) for k in range(int(g.max()) + 1)}
    if (whole and min(n, F.MAX_SIDE) <= TALL) or (len(every) == 1 and len(g) + 2 <= cap):
        return every, ""
    k = int(g[min(int(st.session_state.get("head", 1)), len(g)) - 1])
    heads = every[k][: max(1, cap - 2)]  # a row of K, V and its first heads; on a phone, K, V and one head
    said = v.t("lab_groups_map_part", g=k + 1, groups=len(every), heads=_heads(v.t, heads))
    return {k: heads}, f" · {said}"


def _cap(v: View) -> int:
    """Panels a row of the map at most, the most the map draws (ROW): two on a phone, four elsewhere."""
    return ROW["phone"] if v.look.narrow else ROW["desk"]


def _map(v: View, tr: mha.Trace, shown: dict[int, np.ndarray], rows: int):
    """One row per group shown: its K and V, drawn once, then the Q of each head that reads them (wrapping after
    ROW panels). Off a phone, two a row (K beside V, then the Q's in pairs) when that writes the numbers in the cells
    and four do not (audit 2026-12-04 #9: four a row drew colour only); on a phone, one a row over the column's whole
    width when that writes them (audit 2026-12-07 #3); on a projector, no taller than PRESENT_MAP_H of panels and no
    taller than the first screen leaves under `rows` rows of controls (view.first_screen)."""
    look = first_screen(replace(v.named, max_h=PRESENT_MAP_H), rows) if v.look == F.PRESENT else v.named
    small = max(min(v.cfg.n_tokens, F.MAX_SIDE), v.cfg.d_k, v.cfg.d_v) <= MAX_TEXT_SIDE  # numbers may fit
    caps = ((1, ROW["phone"]) if v.look.narrow else (ROW["numbers"], ROW["desk"])) if v.text and small else (_cap(v),)
    look = replace(look, max_w=PHONE_COLUMN) if caps[0] == 1 else look  # V's 11 columns: 30.2 px; 350 px gives 29.6
    for cap in caps:  # the first that writes numbers, else the last; built one at a time
        if _has_numbers(fig := _map_figure(v, tr, shown, cap, look)):
            break
    return fig


def _draw_map(v: View, fig, shown: dict[int, np.ndarray]) -> None:
    axes = tuple(f"yaxis{i + 1 if i else ''}" for i in range(sum(len(heads) + 2 for heads in shown.values())))
    chart(token_ticks(fig, v.tokens, axes, v.look), key="lab_groups_map")


def _has_numbers(fig) -> bool:
    return any(t.get("texttemplate") == "%{text}" for t in fig.to_dict()["data"])


def _map_figure(v: View, tr: mha.Trace, shown: dict[int, np.ndarray], cap: int, look: F.Look):
    t = v.t
    mats, rows = [], []
    for k, heads in shown.items():
        shared = t("lab_groups_read_by" if len(heads) > 1 else "lab_groups_read_by_one", heads=_heads(t, heads))
        mats += [F.Mat(tr.k[k], f"K<sub>{k + 1}</sub> · {shared}", row_label=t("token"), col_label=t("cols_of")),
                 F.Mat(tr.v[k], f"V<sub>{k + 1}</sub> · {shared}", row_label=t("token"), col_label=t("cols_of"))]
        mats += [F.Mat(tr.q[i], name("Q", str(i + 1)).html, row_label=t("token"), col_label=t("cols_of"))
                 for i in heads]
        count = len(heads) + 2
        rows += [cap] * (count // cap) + ([count % cap] if count % cap else [])
    return F.grid_figure(mats, text=v.text, words=v.words, look=look, per_row=tuple(rows))


def _products(v: View, variant: str, tr: mha.Trace, g: np.ndarray) -> None:
    """The chosen head's scores Q_i·K_gᵀ or its H_i = S_i·V_g, one at a time, each cell clickable (its dot product,
    Quiz me)."""
    t, ss = v.t, st.session_state
    i = min(int(ss.get("head", 1)), len(g)) - 1  # read here: the head control reruns the lab only, not the view
    k = int(g[i])
    i1, k1 = subscript(i + 1), subscript(k + 1)
    q, kt = name("Q", str(i + 1)), name("K", str(k + 1), "T")
    qk = Name(f"Q<sub>{i + 1}</sub>K<sub>{k + 1}</sub><sup>T</sup>", rf"Q_{{{i + 1}}}K_{{{k + 1}}}^{{\mathrm T}}",
              f"Q{i1}K{k1}ᵀ")
    s, vn, hn = name("S", str(i + 1)), name("V", str(k + 1)), name("H", str(i + 1))
    token, col, key = t("token"), t("cols_of"), t("key_pos")
    rows = lab.CLICK_ROWS + (variant == "gqa")  # GQA's knob, labelled, makes its row of controls a row taller
    lab.one_product(v, variant, {
        # the formula writes ᵀ, not <sup>T</sup>: a raised T overhangs its line, over B's title when B is short
        "qk": (qk.plain, lambda: product_view("lab_groups_qk", v, Operand(tr.q[i], q, token, col),
                                              Operand(tr.k[k].T, kt, col, key), Operand(tr.scores[i], qk, token, key),
                                              f"{qk.plain} = Q{i1} · K{k1}ᵀ", first=rows)),
        "sv": (f"H{i1} = S{i1}·V{k1}", lambda: product_view(
            "lab_groups_sv", v, Operand(tr.probs[i], s, token, key, "probs", np.isneginf(tr.masked[i])),
            Operand(tr.v[k], vn, token, col), Operand(tr.heads[i], hn, token, col),
            f"{hn.html} = {s.html} · {vn.html}", first=rows))})


def per_token(cache: mha.KVCache) -> float:
    """The floats a cache holds per token it holds: the bytes of the K and V it keeps, 8 a float64, over its
    tokens (measured on its arrays, not taken from its own count, cache.nbytes)."""
    return (cache.k.nbytes + cache.v.nbytes) / 8 / len(cache)


def filled(w: mha.Weights, cfg: mha.AttentionConfig | None, x: np.ndarray) -> mha.KVCache:
    return mha.decode(x, w, cfg)[0]


def reads(x: np.ndarray, w: mha.Weights, tr: mha.Trace, n_kv: int) -> list[tuple[int, int, float]]:
    """For each query head i: (i, its group by the page's rule, max|H_i − S_i·V_g|) with S_i and V_g recomputed
    here from X and the weights (and a checkpoint's biases), apart from the core's walk."""
    n, h, d_k = len(x), len(w.w_q), w.d_k
    hidden = np.triu(np.ones((n, n), dtype=bool), 1)
    bias = lambda b, i: 0.0 if b is None else b[i]  # noqa: E731 (a head's bias row, or none)
    out = []
    for i in range(h):
        k = group_of(i, h, n_kv)
        q, key, val = (x @ w.w_q[i] + bias(w.b_q, i), x @ w.w_k[k] + bias(w.b_k, k), x @ w.w_v[k] + bias(w.b_v, k))
        scores = np.where(hidden, -np.inf, q @ key.T / np.sqrt(d_k))
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        out.append((i, k, float(np.abs(tr.heads[i] - (e / e.sum(axis=1, keepdims=True)) @ val).max())))
    return out


def _rule(v: View, symbol: str, heads: int, d: int) -> str:
    """The cache formula with the page's numbers (a phone: the numbers only, so the table fits)."""
    numbers = rf"{heads}\cdot{d} = {heads * d}"
    return f"${numbers}$" if v.look.narrow else rf"${symbol}\,(d_k + d_v) = {numbers}$"


TOLERANCE = 1e-9  # relative: what a recomputation in another order may differ by


def _checks(v: View, variant: str, cfg: mha.AttentionConfig, w: mha.Weights, tr: mha.Trace) -> str:
    """The live checks, one Markdown element: the cache per token measured against the formula, each head's
    group, and what sharing does to Y."""
    t, h, n_kv = v.t, cfg.n_heads, cfg.kv_heads
    d = cfg.d_k + cfg.d_v
    walk, shared = filled(v.w, None, v.x), filled(w, cfg, v.x)
    ok = lambda same: "✓" if same else "✗"  # noqa: E731
    row = lambda what, cache, symbol, heads: (what, fmt(per_token(cache)), _rule(v, symbol, heads, d),  # noqa: E731
                                              ok(per_token(cache) == heads * d))
    cache_rows = [row(t("lab_groups_row_mha", h=h), walk, "h", h),
                  row(t("lab_groups_row_shared", variant=t(f"variant_{variant}"), n_kv=n_kv), shared, "n_{kv}", n_kv)]
    cache = markdown_table([t("lab_groups_col_cache"), t("lab_groups_col_measured"), t("lab_groups_col_formula"), ""],
                           cache_rows)
    scale = max(1.0, float(np.abs(tr.heads).max()))
    head_rows = [(i + 1, k + 1, fmt(diff), ok(diff <= TOLERANCE * scale)) for i, k, diff in reads(v.x, w, tr, n_kv)]
    heads = markdown_table([t("lab_groups_col_head"), t("lab_groups_col_group"), t("lab_groups_col_diff"), ""],
                           head_rows)
    moved = float(np.abs(tr.y - v.trace.y).max())
    y = [t("lab_groups_y_same")] if n_kv == h else [t("lab_groups_y_moved", diff=fmt(moved)),
                                                     aside(t("lab_groups_trained_with"))]
    return "\n\n".join([f"**{t('lab_groups_check_title')}**", t("lab_groups_cache_text", n=len(v.x)), cache,
                        t("lab_groups_reads_text"), heads, *y])
