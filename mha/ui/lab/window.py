"""Variants `window` and `sinks`: which keys a query may read, and a cache that keeps only those.

window (Mistral's sliding window): query i reads keys i − W < j ≤ i, so the mask is a band along the diagonal, and a
key that has fallen out of the band is never read again: the cache lets it go and holds at most W tokens. sinks
(StreamingLLM): the first s keys stay visible beside the window, and the cache holds at most s + W. The page draws, one
part at a time: the mask, the masked scores and S of one head (what changes); H = S·V clickable with its quiz (click);
and the live check, X decoded through mha.KVCache one token at a time, each row compared with forward on the whole of
X, the cache's positions and length after each (check)."""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import token_ticks

from .. import knobs, lab, session
from .. import settings as S
from ..chart import chart
from ..product import product_view
from ..prose import aside, display, fmt, head_control, markdown_table, said
from ..strings import md_escape
from ..variant_defs import VARIANTS
from ..view import Name, Operand, View, name

CLOSE = 1e-9  # a cached row equals the recompute when no entry differs by more than this (times the row's size)
LISTED = 6  # a longer X: the check's table lists its first and last LISTED tokens (every one is checked)
KNOB_WIDTH = 180  # px of each knob's box
CLICK_ROWS = 5  # rows of controls above the click part's product: the variant, the part, the knobs' row (labelled)


def render(v: View, variant: str, part: str) -> str:
    """`part` of the lab for the window (and its sinks): the knobs in every part, the head where the part shows
    one; the check's Markdown for "check", else ""."""
    t = v.t
    row = st.container(horizontal=True, vertical_alignment="bottom")  # the knobs, the head shown or the way on
    for knob in VARIANTS[variant].knobs:  # W, and the sinks' s
        knobs.draw(v, knob, row, width=KNOB_WIDTH)
    if part != "check":  # the check decodes every head at once
        head_control(t, row)
    cfg = lab.config(v, variant)
    h = min(st.session_state.get("head", 1), cfg.n_heads) - 1  # read here: the head picker reruns this fragment only
    tr = lab.trace(v, cfg)
    if part == "check":
        return _check(v, cfg, tr, variant, row)
    if part == "click":
        names = _names(h, v.cfg.d_k)
        label = f"{names['h'].plain} = {names['s'].plain}·{names['v'].plain}"
        lab.one_product(v, variant, {"h": (label, lambda: _outputs(v, tr, h, variant))})
        return ""
    title, words = t("lab_window_mask_title", h=h + 1), _words(v, cfg, variant)
    if v.look == F.PRESENT:  # a projector shows the figure first, on the first screen, and the words under it
        st.markdown(title)
        _mask_figure(v, tr, h, variant)
        st.markdown(words)
    else:
        st.markdown(f"{words}\n\n{title}")
        _mask_figure(v, tr, h, variant)
    if not hidden_count(cfg.n_tokens, cfg.window, cfg.sinks):
        _nothing_hidden(v, cfg, variant)
    return ""


def hidden_count(n: int, window: int, sinks: int) -> int:
    """Scores the causal mask keeps that the window (beside its sinks) hides."""
    return int(np.tril(~mha.variants.visible(n, window, sinks)).sum())


def _words(v: View, cfg: mha.AttentionConfig, variant: str) -> str:
    """What the window (and the sinks) keep, as words and the mask's rule with this W and s, and how many scores it
    hides at this n when it hides any."""
    t, n, w, s = v.t, cfg.n_tokens, cfg.window, cfg.sinks
    sinks = variant == "sinks"
    words = t("lab_window_sinks_text" if sinks else "lab_window_text", w=w, s=s, cap=s + w if sinks else w)
    band = rf"0 & i-{w} < j \le i"
    cases = [band, rf"0 & j \le \min({s}, i)"] if sinks and s else [band]
    far = rf"{s} < j \le i-{w}" if sinks and s else rf"j \le i-{w}"
    cases += [rf"-\infty & {far}", r"-\infty & j > i"]
    mask = r"M_{ij} = \begin{cases} " + r" \\ ".join(cases) + r" \end{cases}"
    parts = [said(words, display(v.look, mask + ",", r"S = \operatorname{softmax}\!\left(\frac{QK^{\mathrm T}}"
                                                    r"{\sqrt{d_k}} + M\right)"))]
    hidden = hidden_count(n, w, s)
    if hidden:
        parts.append(aside(t("lab_window_hidden", hidden=hidden, kept=n * (n + 1) // 2, n=n)))
    return "\n\n".join(parts)


def _nothing_hidden(v: View, cfg: mha.AttentionConfig, variant: str) -> None:
    """Under the figure when the window hides nothing yet: that said in a box, with why this page cannot offer more
    tokens when it cannot, and the button to more tokens when it can (seeded X only: a text's tokens fix n); the
    KV-cache stage, under the check, adds them one at a time through the same window."""
    t, n, w, s = v.t, cfg.n_tokens, cfg.window, cfg.sinks
    target = more_tokens_target(cfg)
    lines = [t("lab_window_none_sinks" if variant == "sinks" else "lab_window_none", n=n, w=w, s=s, need=s + w + 1)]
    if target is None:
        lines.append(t("lab_window_too_wide", most=S.LIMITS["n_tokens"]))
    elif v.tokens:
        lines.append(t("lab_window_text_n", check=t("lab_part_check")))
    st.info("\n\n".join(lines))
    if target is not None and not v.tokens:
        if st.button(t("lab_window_more", n=target), key="lab_window_more", on_click=_grow, args=(target,),
                      type="primary"):
            st.rerun(scope="app")  # the sidebar's n and X change with it


def more_tokens_target(cfg: mha.AttentionConfig) -> int | None:
    """The n the page offers when nothing is hidden: two tokens past what the window and sinks keep, moved up past
    the other sizes (the post's lengths stay distinct), within the page's limit; None when no n there hides a key."""
    taken = {cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.n_heads * cfg.d_v}
    need = cfg.sinks + cfg.window + 1  # the first n that hides a key
    most = S.LIMITS["n_tokens"]
    for n in range(need + 1, most + 1):
        if n not in taken:
            return n
    return need if need <= most else None


def _grow(n: int) -> None:
    st.session_state["n_tokens"] = n
    session.on_size_change()


def _to_kv_cache(variant: str) -> None:
    """The KV-cache stage, decoding through this variant (its `variant=` in the link is this one)."""
    st.session_state["kv_variant"] = variant
    session.go_to("kv_cache")


def _names(h: int, d_k: int) -> dict[str, Name]:
    i = str(h + 1)
    return dict(m=Name("M", "M", "M"),
                a=Name(f"Q<sub>{i}</sub>K<sub>{i}</sub><sup>T</sup>/√{d_k} + M",
                       rf"Q_{{{i}}}K_{{{i}}}^{{\mathrm T}}/\sqrt{{{d_k}}} + M", f"Q{i}K{i}ᵀ/√{d_k} + M"),
                s=name("S", i), v=name("V", i), h=name("H", i))


def _mask_figure(v: View, tr: mha.Trace, h: int, variant: str) -> None:
    """The mask M the window makes, the scores with it added, and S, for head h: hidden cells are the mask's grey
    gaps."""
    t, names = v.t, _names(h, v.cfg.d_k)
    hidden = np.isneginf(tr.bias[h])
    token, key = t("token"), t("key_pos")
    mats = [F.Mat(np.where(hidden, 0.0, tr.bias[h]), names["m"].html, "signed", token, key, hidden),
            F.Mat(tr.scaled[h], names["a"].html, "signed", token, key, hidden),
            F.Mat(tr.probs[h], names["s"].html, "probs", token, key, hidden)]
    fig = F.grid_figure(mats, text=v.text, words=v.words, look=v.named)
    axes = [f"{a}axis{i + 1 if i else ''}" for i in range(len(mats)) for a in "xy"]
    chart(token_ticks(fig, v.tokens, axes, v.look), key=f"lab_{variant}_mask")


def _outputs(v: View, tr: mha.Trace, h: int, variant: str) -> None:
    """H = S·V of head h, S with the window's gaps: a click writes the dot product (a hidden key's weight is 0)."""
    t, names = v.t, _names(h, v.cfg.d_k)
    token, col = t("token"), t("cols_of")
    g = mha.groups(v.cfg.n_heads, len(tr.v))[h]
    lab.said_then_product(v, t("lab_window_outputs", h=h + 1), lambda: product_view(
        f"lab_{variant}_h", v, Operand(tr.probs[h], names["s"], token, t("key_pos"), "probs", np.isneginf(tr.bias[h])),
        Operand(tr.v[g], names["v"], token, col), Operand(tr.heads[h], names["h"], token, col),
        f"{names['h'].html} = {names['s'].html} · {names['v'].html}", first=CLICK_ROWS))


def decode(x: np.ndarray, w: mha.Weights, cfg: mha.AttentionConfig, full: np.ndarray) -> list[tuple]:
    """X through mha.KVCache(w, cfg) one token at a time: for each token, the positions the cache holds after it
    (0-based), its length, and how far the cached Y row lies from `full`'s (the recompute's) row."""
    return [(tuple(int(p) for p in step.held), len(step.held), float(np.max(np.abs(step.y - full[i]))),
             float(np.max(np.abs(full[i])))) for i, step in enumerate(mha.decode(x, w, cfg)[1])]


def _check(v: View, cfg: mha.AttentionConfig, tr: mha.Trace, variant: str, row) -> str:
    """The live check: decoded through the cache, every row equals the recompute under the same mask, and the cache
    never holds more than sinks + W tokens. Drawn: the way to the KV-cache stage, in `row` beside the knobs, and a
    box when it fails; returned: the table (the first and last tokens of a long X) and the verdict, one Markdown."""
    t, n = v.t, cfg.n_tokens
    cap = cfg.sinks + cfg.window
    rows = decode(v.x, lab.weights(v, cfg), cfg, tr.y)
    listed = list(range(n)) if n <= 2 * LISTED else [*range(LISTED), None, *range(n - LISTED, n)]
    table = []
    for i in listed:
        if i is None:
            table.append(("⋮",) * 5)
            continue
        held, length, diff, size = rows[i]
        word = f" · {md_escape(v.tokens[i])}" if i < len(v.tokens) else ""
        good = diff <= CLOSE * max(1.0, size) and length <= cap
        held_said = t("list_sep").join(str(p + 1) for p in held)
        table.append((f"{i + 1}{word}", held_said, length, fmt(diff), "✓" if good else "✗"))
    head = [t("lab_window_col_token"), t("lab_window_col_held"), t("lab_window_col_len"), t("lab_window_col_diff"),
            t("lab_window_col_ok")]
    worst = max(r[2] for r in rows)
    longest = max(r[1] for r in rows)
    equal = all(d <= CLOSE * max(1.0, s) for _, _, d, s in rows)
    intro = t("lab_window_check", n=n, cap=cap)
    verdict = dict(diff=fmt(worst), longest=longest, cap=cap)
    good = equal and longest <= cap
    done = [f"✓ {t('lab_window_check_ok', **verdict)}"] if good else []
    if row.button(t("lab_window_to_kv"), key="lab_window_to_kv", on_click=_to_kv_cache, args=(variant,)):
        st.rerun(scope="app")
    if not good:
        st.error(t("lab_window_check_bad", **verdict))
    return "\n\n".join([intro, markdown_table(head, table), *done, aside(t("lab_window_kv_hint"))])
