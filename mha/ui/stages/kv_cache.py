"""Stage `kv_cache`: add a token to a real KV cache on the user's numbers; prove it equals a full recompute; cost it."""

from contextlib import nullcontext
from dataclasses import replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.cache import COLS, cache_animation, drawn_rows, numbers_first, plan
from mha.figures.ticks import label_text, token_ticks

from .. import exports, lab, lengths, link
from .. import settings as S
from ..chart import draw, drawn, shared_figure
from ..kv.cost import cost_counts, cost_curves, measure_part
from ..kv.shared import decode_rows, held_words, names_beside, picker
from ..kv.step import (
    cache_step,
    legend,
    offer_next_row,
    offer_next_word,
    proof,
    seeded_rows,
    token_axes,
    weight_gone,
)
from ..lab import files, groups
from ..prose import head_control, header, input_error, part_control
from ..shared import weights_digest
from ..variant_defs import VARIANTS
from ..view import View, first_screen
from . import variants

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [mha.KVCache.append]
# On a projector the part's figure sits under two rows of controls (the variant, and the head, the part and the add
# button), each 48 px where view.first_screen counts 36, 8 px more where the variant has a knob (a number box or a
# slider is taller than the picker), 39 more where its knobs' names stand over their boxes (sinks'); the cost's
# curves under their title besides
ROWS_ABOVE, KNOB_ROW, NAMES_OVER, CURVES_TITLE = 24, 8, 39, 56


def render(v: View) -> None:
    header(v.t, "kv", v.look)
    if v.look != F.PRESENT:  # a projector's is drawn in the row of the part control and the add button
        head_control(v.t)
    _stage(v)


@st.fragment
def _stage(v: View) -> None:
    """Everything below the heading. A fragment: adding a token, resetting, switching the part and measuring
    rerun this stage only, not the page with its sidebar; the address bar follows the tokens added."""
    try:
        _steps(v)
    except mha.InputError as e:
        input_error(v.t, e)


def _steps(v: View) -> None:
    t_, ss = v.t, st.session_state
    # A word added to the text (n, X and the sidebar change with it), or another head picked on a projector (its
    # control is drawn here, and the view was built for the head before): the whole page again
    if ss.pop("kv_grown", False) or ss.get("head", 1) - 1 != v.head:
        st.rerun(scope="app")
    variant = picker(v)
    words = bool(v.tokens)  # a text (or the trained model's letters): the cache adds the model's next word
    rows = v.x if words else seeded_rows(v)
    t = len(rows)
    if not words and lengths.shared_lengths("kv_cache", t_.lang) != ss.get(lengths.LENGTHS_SAID):
        st.rerun(scope="app")  # the rows added made n meet a size, or leave it: the sidebar's check says so
    # A projector opens on the part's figure: the head, the part and the add button share one row above it, and the
    # next row's editor, the cache's state and the words go under it (under the counts, on the cost part)
    projector = v.look == F.PRESENT
    row = st.container(horizontal=True, vertical_alignment="center") if projector else None
    figure, editor = (st.container(), st.container()) if projector else (nullcontext(), None)
    if projector:
        head_control(t_, row)
    part = part_control(t_, "kv_cache", box=row) if projector else ss.get("kv_part", S.DEFAULTS["kv_part"])
    if words:
        hint = offer_next_word(v, t, row or st)
    else:
        offer_next_row(v, t, row, editor)
        hint = t_("kv_hint") if t == len(v.x) else ""
    if variant == "mla" and (skip := lab.mla_skip(t_, v.cfg, v.w)):
        st.info(skip)
        return
    rows_read = lab.variant_x(v.cfg, rows, variant)  # ALiBi's without the positions a text's X holds, as in the lab
    d = decode_rows(v, variant, rows_read)
    state = held_words(v, d)
    if hint and part == "step":  # the replay it speaks of is the step's
        state = f"{state}\n\n:gray[:small[{hint}]]"  # one element
    if not projector:
        st.markdown(state)
        _four(v, variant)
        # A segmented control rather than st.tabs that rerun on change: both build only the chosen part, but the tabs
        # made the browser's every rerun of this page slower (bench/README.md).
        part = part_control(t_, "kv_cache")
    with figure:
        if part == "step":
            _step(v, d, rows_read)
        elif projector:  # under the variant and the row of the head, the part and the add button
            cost_curves(v, first_screen(v.look, 2, _above(variant) + CURVES_TITLE))
    if projector:
        st.markdown(state)  # under the figure and the next row's editor
        _four(v, variant)
    if part == "step":
        _why(v, d, t)
    else:
        cost_counts(v, t)
        if not projector:
            cost_curves(v, v.look)
        measure_part(v)
    ss["kv_added"] = [np.array(r, float) for r in rows[len(v.x):]]  # each row a copy: 8 bytes a number, not 32
    link.follows(v.cfg)


def _four(v: View, variant: str) -> None:
    """GQA with no real group at these heads (the state says so): the lab's button to 4 heads, X kept (audit
    2026-12-07 #10: the stage opened GQA on plain MHA, as the lab did before); fixed sizes say why not."""
    if VARIANTS[variant].module == "groups":  # the variants the lab shows in groups (GQA, MQA)
        groups.offer(v, variant, st, key="kv_four")


def sizes_note(t, values) -> str:
    """Why h is composite here, where this stage's variant needs it (GQA's groups, as the lab's note says)."""
    return variants.sizes_note(t, {k: values[k] for k in S.SIZES} | {"variant": values.get("kv_variant", "mha")})


def _above(variant: str) -> int:
    """Px the two rows of controls over a projector's figure take beyond what view.first_screen counts."""
    if not VARIANTS[variant].knobs:
        return ROWS_ABOVE
    return ROWS_ABOVE + KNOB_ROW + (0 if names_beside(variant) else NAMES_OVER)


def _step(v: View, d, rows_read: np.ndarray) -> None:
    """The step's animation, and under it the key to its boxes where the figure leaves it out (a projector's) and
    what it draws in part."""
    t_ = v.t

    def build():
        step = cache_step(v, d)
        tokens = [v.tokens[p] for p in d.held] if v.tokens and d.labels else v.tokens
        if v.look.narrow and tokens:  # a phone's stacked panels each name their rows by word (audit 2026-12-07 #7),
            worded = replace(step, row_words=tuple(map(label_text, tokens)))  # where every number stays written
            if v.text and all(plan(worded, v.look, v.text).styles.values()):
                step = worded
            return drawn(token_ticks(cache_animation(step, text=v.text, look=v.look), tokens, ("xaxis4",), v.look))
        named, plain = (first_screen(look, 2, _above(d.variant)) for look in (v.named, v.look))
        fig = cache_animation(step, text=v.text, look=numbers_first(step, named, plain, v.text))
        return drawn(token_ticks(fig, tokens, token_axes(fig), v.look))

    w = v.w  # the figure shows rows, weights, head, words and screen: built once for them, in any session
    parts = ("kv", weights_digest(w, rows_read), v.head, v.cfg.n_heads, v.t.lang, v.text, v.look,
             v.tokens, d.variant, d.cfg, d.d_latent)
    draw(shared_figure(parts, build), "kv_animation", "content", clickable=False)
    held = len(d.held)
    wide, long = max(v.cfg.d_k, v.cfg.d_v, v.cfg.d_model) > COLS, held > drawn_rows(v.look)  # drawn in part
    notes = [legend(v, d)] if v.look.keyed_below else []
    if wide or long:
        notes.append(t_("kv_window_both" if wide and long else "kv_window_rows" if long else "kv_window_cols",
                        cols=COLS, rows=drawn_rows(v.look)))
    if gone := weight_gone(v, d):
        notes.append(gone)
    if notes:
        st.caption(t_.sentences(*notes))


def _why(v: View, d, t: int) -> None:
    """Why Q is not kept, with the check against a full recompute once there is a token before X_t."""
    why = f"**{v.t('kv_why_q_title')}** · {v.t('kv_why_q')}"
    st.markdown(f"{why}\n\n{proof(v, d)}" if t > 1 else why)  # one element


def files_view(cfg, x) -> tuple[mha.AttentionConfig, np.ndarray]:
    """What the downloads hold: X with the tokens added to the cache."""
    return exports.cache_view(cfg, x, st.session_state.get("kv_added", []))


def download(cfg, x, w) -> exports.Part | None:
    """With a variant, what its cache holds after the rows decoded; with the post's attention, None: the walk's
    trace is the view."""
    ss = st.session_state
    variant = ss.get("kv_variant", S.DEFAULTS["kv_variant"])
    if variant == "mha":
        return None
    return files.cache_variant_part(x, w, variant, lab.variant_config(cfg, variant), int(ss["d_latent"]))
