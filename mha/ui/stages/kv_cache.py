"""Stage `kv_cache`: add a token to a real KV cache on the user's numbers; prove it equals a full recompute; cost it."""

import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.cache import COLS, STEPS, CacheStep, cache_animation, cost_figure, drawn_rows
from mha.figures.text import short, text_px
from mha.figures.ticks import token_ticks

from .. import editor, exports, lab, link, next_word, session, variant_defs
from .. import settings as S
from ..chart import chart, draw, drawn, shared_figure
from ..inputs import number
from ..lab import costs, groups
from ..models import MODELS
from ..prose import equation, head_control, header, input_error, markdown_table, tex_int
from ..settings import KV_MAX_ADDED as MAX_ADDED
from ..settings import KV_PARTS
from ..shared import digest
from ..variant_defs import VARIANTS
from ..view import View, name, subscript

GPT2 = mha.AttentionConfig(n_tokens=1, d_model=768, d_k=64, d_v=64, n_heads=12)
WORD_MOST = 24  # glyphs of a token its sentences write (a long one is whole in the figure's hover)
MEASURE_BUDGET = 2e10  # FLOPs the "measure it" recompute may spend
ITEMSIZE = 8  # float64, as the caches on this page
PRESENT_LABEL_PX = 22.4  # a widget label's type on a projector, 1.4rem
LENGTHS = np.unique(np.round(np.logspace(0, np.log10(4096), 60)).astype(int))


def render(v: View) -> None:
    header(v.t, "kv", v.look)
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
    if ss.pop("kv_grown", False):  # a word was added to the text: n, X and the sidebar change with it
        st.rerun(scope="app")
    variant = _variant(v)
    words = bool(v.tokens)  # a text (or the trained model's letters): the cache adds the model's next word
    rows = v.x if words else _rows(v)
    t = len(rows)
    if words:
        hint = _next_word(v, t)
    else:
        _next_seeded(v, t)
        hint = t_("kv_hint") if t == len(v.x) else ""
    if variant == "mla" and not lab.mla_fits(v.cfg):
        st.info(t_("lab_mla_skip", work=lab.mla_work(v.cfg), limit=int(lab.MLA_WORK)))
        return
    rows_read = lab.variant_x(v.cfg, rows, variant)  # ALiBi's without the positions a text's X holds, as in the lab
    d = _decode(v, variant, rows_read)
    state = _state(v, d)
    state = f"{state}\n\n:gray[:small[{hint}]]" if hint else state  # one element
    projector = v.look == F.PRESENT  # there the step's animation comes first, on the first screen, and this under it
    if not projector:
        st.markdown(state)
    # A segmented control rather than st.tabs that rerun on change: both build only the chosen part, but the tabs
    # made the browser's every rerun of this page slower (bench/README.md).
    part = st.segmented_control(t_("kv_part"), KV_PARTS, format_func=lambda p: t_(f"kv_tab_{p}"), key="kv_part",
                                required=True, persist_state="session", label_visibility="collapsed")
    if part == "step":
        def build():
            fig = cache_animation(_step(v, d), text=v.text, look=v.named)
            tokens = [v.tokens[p] for p in d.held] if v.tokens and d.labels else v.tokens
            return drawn(token_ticks(fig, tokens, _token_axes(fig), v.look))

        w = v.w  # the figure shows rows, weights, head, words and screen: built once for them, in any session
        parts = ("kv", digest(rows_read, w.w_q, w.w_k, w.w_v, w.w_o), v.head, v.cfg.n_heads, v.t.lang, v.text, v.look,
                 v.tokens, d.variant, d.cfg, d.d_latent)
        draw(shared_figure(parts, build), "kv_animation", "content", clickable=False)
        held = len(d.held)
        wide, long = max(v.cfg.d_k, v.cfg.d_v, v.cfg.d_model) > COLS, held > drawn_rows(v.look)  # drawn in part
        if wide or long:
            which = "kv_window_both" if wide and long else "kv_window_rows" if long else "kv_window_cols"
            st.caption(t_(which, cols=COLS, rows=drawn_rows(v.look)))
        why = f"**{t_('kv_why_q_title')}** · {t_('kv_why_q')}"
        lead = f"{state}\n\n" if projector else ""
        st.markdown(f"{lead}{why}\n\n{_proof(v, d)}" if t > 1 else f"{lead}{why}")  # one element
    else:
        if projector:
            st.markdown(state)
        _cost(v, t)
        _measure(v)
    ss["kv_added"] = [np.array(r, float) for r in rows[len(v.x):]]  # each row a copy: 8 bytes a number, not 32
    link.follows(v.cfg)


MLA_W = dict(w_dkv="W<sub>DKV</sub>", w_uk="W<sub>UK</sub>", w_uv="W<sub>UV</sub>")  # MLA's weights, by name


def _variant(v: View) -> str:
    """The attention the cache decodes (the post's, or one of the lab's variants) and, beside it, its knobs: the
    lab's own session keys, so a knob set on either stage holds on both."""
    t_ = v.t
    # one row, the picker then its knobs; a phone's picker wraps its options over lines of their own
    row = st if v.look.narrow else st.container(horizontal=True, vertical_alignment="bottom")
    variant = row.segmented_control(t_("kv_variant"), S.KV_VARIANTS,
                                    format_func=lambda x: _variant_name(t_, x), key="kv_variant",
                                    required=True, persist_state="session", label_visibility="collapsed")
    if "kv_heads" in S.KNOBS[variant]:
        groups.keep_valid(v.cfg.n_heads)  # as the lab's knob: the page, its link and its words use the same
    for knob in VARIANTS[variant].knobs:
        label = t_(knob.kv_label)
        # a projector's labels are 1.4rem (screen.py): each box as wide as its label needs ("dims that rotate" on one
        # line), so that the picker and two knobs still share a 1,280 px row in Chinese
        width = min(180, max(130, round(text_px(label, PRESENT_LABEL_PX)) + 16)) if v.look == F.PRESENT else 130
        number(row, t_, knob.key, *S.KNOB_RANGE[knob.key], label=label, default=knob.default, width=width)
    if "kv_heads" in S.KNOBS[variant]:
        groups.say_kept(t_, v.cfg.n_heads)
    return variant


@dataclass(frozen=True, eq=False)
class Decoded:
    """The rows decoded through the variant's cache, one at a time, and the full recomputes it is checked against.

    held: the positions (from 0) of the tokens the cache holds after the last step, the rows the figure draws;
    labels: what those rows are called when not 1..t (a window's), else None."""

    variant: str
    cfg: mha.AttentionConfig | None  # None: the post's attention (and MLA, which has no attention config)
    cache: object  # mha.KVCache or mha.MLACache
    step: object  # the last mha.DecodeStep or mha.MLAStep
    full: object  # forward (mla_forward) on every row
    before: object | None  # on every row but the last
    held: np.ndarray
    group: int  # the kv head the chosen head reads (0-based)
    held_before: np.ndarray  # the positions held before the last step
    d_latent: int = 0
    mla: mha.MLAWeights | None = None

    @property
    def labels(self) -> tuple[str, ...] | None:
        if np.array_equal(self.held, np.arange(len(self.held))):
            return None
        return tuple(str(p + 1) for p in self.held)


def _variant_of(cfg: mha.AttentionConfig, w: mha.Weights, variant: str) -> tuple[mha.AttentionConfig | None,
                                                                                 mha.Weights]:
    """The config and weights the cache runs for `variant` (not MLA) on the walk's sizes and weights, its knobs from
    the session: (None, w) for the post's attention."""
    if variant == "mha":
        return None, w
    changed = lab.variant_config(cfg, variant)
    return changed, mha.share_kv(w, changed.kv_heads)  # lab.weights' sharing, with no view at hand


def _mla_weights(w: mha.Weights) -> mha.MLAWeights:
    """MLA's weights cut from the walk's at the latent width in the session; the SVD is made once for every session
    showing the same weights (at GPT-2-small widths it takes seconds)."""
    width = int(st.session_state.get("d_latent", S.DEFAULTS["d_latent"]))
    key = ("kv_mla", digest(w.w_q, w.w_k, w.w_v, w.w_o), width)
    return MODELS.get(key, lambda: mha.mla_from(w, width))  # at GPT-2's widths past TRACES' budget


def _decode(v: View, variant: str, rows: np.ndarray) -> Decoded:
    """Every row through the variant's cache; forward with the same variant on all rows and on all but the last."""
    t = len(rows)
    if variant == "mla":
        w_mla = _mla_weights(v.w)
        cache, steps = mha.decode(rows, w_mla)
        before = mha.mla_forward(rows[:-1], w_mla) if t > 1 else None
        return Decoded(variant, None, cache, steps[-1], mha.mla_forward(rows, w_mla), before, np.arange(t), v.head,
                       np.arange(t - 1), w_mla.d_latent, w_mla)
    cfg, w = _variant_of(v.cfg, v.w, variant)
    cache, steps = mha.decode(rows, w, cfg)
    step = steps[-1]
    held_before = np.array(steps[-2].held) if t > 1 else np.arange(0)  # what the cache held before the last token
    before = mha.forward(rows[:-1], w, cfg) if t > 1 else None  # what the tokens before the last one gave
    group = int(mha.groups(w.n_heads, w.n_kv_heads)[v.head])
    return Decoded(variant, cfg, cache, step, mha.forward(rows, w, cfg), before, np.array(cache.positions), group,
                   held_before)


def _tokens(positions) -> str:
    """X₁, X₃…X₅: the tokens at these positions (from 0), a run of three or more written as its ends."""
    runs, out = [], []
    for p in positions:
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    for r in runs:
        a, b = f"X{subscript(r[0] + 1)}", f"X{subscript(r[-1] + 1)}"
        out.append(a if len(r) == 1 else f"{a}, {b}" if len(r) == 2 else f"{a}…{b}")
    return ", ".join(out)


def _heads(group: int, size: int) -> str:
    """The heads of a group, 1-based: 3–4, or 3 alone."""
    first = group * size + 1
    return str(first) if size == 1 else f"{first}–{first + size - 1}"


def _state(v: View, d: Decoded) -> str:
    """What the cache holds, as Markdown: tokens × kv heads (or the latent's width) and its bytes; which kv head the
    chosen head reads; a window's tokens and those that left."""
    t_, cfg, cache = v.t, v.cfg, d.cache
    t, size = len(cache), _size(cache.nbytes)
    if d.variant == "mha":
        return t_("kv_state", t=t, d_k=cfg.d_k, d_v=cfg.d_v, size=size)
    if d.variant == "mla":
        return t_("kv_state_mla", t=t, d_latent=d.d_latent, size=size)
    kv = d.cfg.kv_heads
    out = [t_("kv_state_heads", kv=kv, t=t, d_k=cfg.d_k, d_v=cfg.d_v, size=size)]
    size_g = cfg.n_heads // kv
    if size_g > 1:
        out.append(t_("kv_state_group", i=v.head + 1, g=d.group + 1, heads=_heads(d.group, size_g)))
    elif d.variant == "gqa":  # kv heads as many as heads: nothing is shared yet
        out.append(t_("kv_state_no_group", h=cfg.n_heads, kv=kv))
    if d.cfg.window:
        out.append(t_("kv_state_window", held=_tokens(d.held), sinks=d.cfg.sinks, w=d.cfg.window,
                      most=d.cfg.sinks + d.cfg.window))
        gone = sorted(set(range(d.step.pos + 1)) - set(d.held.tolist()))
        if gone:
            out.append(t_("kv_state_left", gone=_tokens(gone)))
    return " ".join(out)


def _next_seeded(v: View, t: int) -> None:
    """Without a text: the add button appends the seeded (editable) next row; beside it, the way back or the limit
    once there is one (a row only then: one element less)."""
    t_ = v.t
    next_row = _next_token_editor(v, t)
    full_cache = t - len(v.x) >= MAX_ADDED
    row = st.container(horizontal=True, vertical_alignment="center") if t > len(v.x) or full_cache else st
    row.button(t_("kv_add", t=subscript(t + 1)), key="add_token", type="primary", on_click=_add, args=(next_row,),
               disabled=full_cache)
    if t > len(v.x):
        row.button(t_("kv_reset", n=len(v.x)), key="kv_reset", on_click=_reset)
    if full_cache:
        row.caption(t_("kv_added_cap", most=MAX_ADDED))


def _next_word(v: View, t: int) -> str:
    """With a text: the add button appends the word the next-token stage chooses, decoded here through the model's
    per-layer KV cache, to the text (the same act as that stage's append, so the link is the same after either).
    Returns the hint under the cache's state: the step shown, and the word that adding appends."""
    t_, ss = v.t, st.session_state
    most = next_word.context()
    word = next_word.next_word(v.cfg, v.x) if t < most else None
    st.button(t_("kv_add_word", t=subscript(t + 1)), key="add_token", type="primary", on_click=_add_word,
              args=(ss["text"], word.token if word else ""), disabled=word is None)
    shown = t_.md("kv_hint_word", token=short(v.tokens[-1], WORD_MOST), t=subscript(t))
    if word is None:
        return f"{shown} {t_('next_full', most=most)}"
    choice = ss.get("choice", "greedy")
    return f"{shown} " + t_.md(f"kv_next_word_{choice}", token=short(word.token, WORD_MOST),
                               p=f"{word.probs[word.id]:.4f}", temperature=f"{float(ss.get('temperature', 1.0)):g}")


def _add_word(text: str, token: str) -> None:
    session.append_word(text, token)
    st.session_state["kv_grown"] = True


def _token_axes(fig) -> tuple[str, ...]:
    """The axes that count tokens and write their ticks: the rows of every panel that labels its rows (Q's, which
    name the K and V rows beside them, and S's; on a phone each panel's, the K and V caches' too) and S's keys."""
    layout = fig.to_dict()["layout"]
    rows = (a for a, spec in layout.items() if a.startswith("yaxis") and spec.get("showticklabels", True))
    return (*rows, "xaxis4")


def _rows(v: View) -> np.ndarray:
    """X followed by the tokens added so far (those that still fit d_model)."""
    added = [np.asarray(r, float) for r in st.session_state.get("kv_added", [])]
    kept = [r for r in added if r.shape == (v.cfg.d_model,)]
    if len(kept) < len(added):
        st.warning(v.t("kv_dropped_rows", d=v.cfg.d_model))
    return np.vstack([v.x, *kept]) if kept else v.x


def _next_token_editor(v: View, t: int) -> np.ndarray:
    """The next token: seeded, editable in an expander (its grid is built only while it is open)."""
    ss = st.session_state
    if ss.get("kv_next_for") != (t, v.cfg):
        ss["kv_next_base"] = mha.next_token(v.cfg, t)[None]
        ss["kv_next_for"] = (t, v.cfg)
    panel = st.expander(v.t("kv_next", t=subscript(t + 1)), key="kv_next_open", on_change="rerun")
    if panel.open:
        with panel:
            editor.matrix_editor("kv_next", "kv_next_base", ss["kv_next_base"], [f"X{subscript(t + 1)}"], v.t,
                          generation=t)
    return ss["kv_next_base"][0]


def _add(row: np.ndarray) -> None:
    st.session_state.setdefault("kv_added", []).append(np.array(row, float))


def _reset() -> None:
    st.session_state["kv_added"] = []


def _size(nbytes: int) -> str:
    return f"{nbytes:,} B" if nbytes < 10_000 else f"{nbytes / 1024:,.1f} KiB"


def _step(v: View, d: Decoded) -> CacheStep:
    """The last token's step for the chosen head (its kv head's K and V, or MLA's latent), with S, H and Y of the
    tokens before it, and its words; a window's rows are the tokens it holds."""
    h, wt, step, full, before = v.head, v.t, d.step, d.full, d.before
    held, L = d.held, len(d.held)
    pos = L - 1 if d.variant == "mla" else step.pos  # the new token's position, from 0
    t = pos + 1  # its number: X_t
    sub = subscript(t)
    n = t if d.labels else L  # the row of the figure the new token takes, as its ticks call it
    s_name, h_name = v.head_name("S"), v.head_name("H")
    shared = d.cfg is not None and d.cfg.kv_heads < v.cfg.n_heads  # K and V named by the kv head read
    k_name, v_name = (name(x, str(d.group + 1)) if shared else v.head_name(x) for x in "KV")
    names = dict(q=v.head_name("Q").html, k=wt("kv_name_k", k=k_name.html), v=wt("kv_name_v", v=v_name.html),
                 s=s_name.html, h=h_name.html, y="Y")
    earlier = held[:-1]
    span = wt.rows(1, t - 1) if t > 1 else ""
    tokens = _tokens(earlier) if L > 1 else ""
    ys = tokens.replace("X", "Y")
    had = _tokens(d.held_before)  # what the cache held when X_t arrived (a window's oldest token leaves as it does)
    legend_rows = wt("kv_rows_held", tokens=tokens) if d.labels and L > 1 else span
    words = dict(
        arrive=wt("kv_arrive", t=sub, tokens=had) if len(d.held_before) else wt("kv_arrive_first", t=sub),
        append=wt("kv_append", t=sub, n=n),
        scores=wt("kv_scores", t=sub, n=n, d_k=v.cfg.d_k),
        softmax=wt("kv_softmax", n=n, s=s_name.plain),
        drop_q=wt("kv_drop_q", rows=span, t=sub) if t > 1 else wt("kv_drop_q_first", t=sub),
        output=(wt("kv_output", t=sub, n=n, s=s_name.plain, h=h_name.plain, ys=ys) if L > 1
                else wt("kv_output_first", t=sub, n=n, s=s_name.plain, h=h_name.plain)),
        legend=wt("kv_legend", rows=legend_rows, t=sub, n=n) if L > 1 else wt("kv_legend_first", n=n),
        drop_q_note=wt("kv_drop_q_note", rows=span) if t > 1 else "",
        steps=[wt(f"kv_step_{k}") for k in STEPS], play=wt("play"), pause=wt("pause"),
        slider=wt("anim_slider"), slider_step=wt.template("anim_step_text"),
        last_rows=wt.template("kv_last_rows"), first_cols=wt.template("kv_first_cols"),
        last_cols=wt.template("kv_last_cols"), token=wt("token"), col=wt("cols_of"),
    )
    words.update(_changed_words(v, d, sub, n, ys))
    if d.variant == "mla":
        names.update(q=f"{v.head_name('Q').html}·{MLA_W['w_uk']}ᵀ", k=wt("kv_mla_c"),
                     v=wt("kv_mla_v", v=v.head_name("V").html, **MLA_W))
        w = d.mla
        c = d.cache.latent
        scaled = step.q_absorbed[h] @ c.T / np.sqrt(w.d_k)
        head = step.probs[h] @ c @ w.w_uv[h]
        q, k, vv = full.q_absorbed[h], c, c @ w.w_uv[h]
        probs, y_t = step.probs[h], step.y
    else:
        q, k, vv = full.q_rot[h][held], d.cache.k[d.group], d.cache.v[d.group]
        scaled, probs, head, y_t = step.scaled[h], step.probs[h], step.heads[h], step.y
    if before is not None and L > 1:
        s_prev = before.probs[h][np.ix_(earlier, earlier)]
        h_prev, y_prev = before.heads[h][earlier], before.y[earlier]
    else:
        s_prev, h_prev, y_prev = np.zeros((0, 0)), np.zeros((0, v.cfg.d_v)), np.zeros((0, v.cfg.d_model))
    return CacheStep(q, k, vv, s_prev, h_prev, y_prev, scaled, probs, head, y_t, names, words, d.labels)


def _changed_words(v: View, d: Decoded, sub: str, n: int, ys: str) -> dict:
    """The captions a variant changes: who shares k and v, the window's keeping and leaving, the rotation, ALiBi's
    bias, MLA's latent."""
    wt, cfg, h = v.t, d.cfg, v.head
    if d.variant == "mla":
        s_name, h_name = v.head_name("S"), v.head_name("H")
        return dict(append=wt("kv_append_mla", t=sub, n=n, **MLA_W), scores=wt("kv_scores_mla", t=sub, n=n,
                                                                               d_k=v.cfg.d_k, **MLA_W),
                    output=wt("kv_output_mla", t=sub, n=n, s=s_name.plain, h=h_name.plain, ys=ys or "—", **MLA_W))
    if cfg is None:
        return {}
    out = {}
    if cfg.window:
        gone = sorted(set(d.held_before.tolist()) - set(d.held.tolist()))  # what this step pushed out
        kept = (wt("kv_keep_sinks", s=cfg.sinks, w=cfg.window) if cfg.sinks else wt("kv_keep_window", w=cfg.window))
        out["append"] = wt("kv_append_window", t=sub, kept=kept,
                           gone="".join(wt("kv_gone", x=subscript(p + 1)) for p in gone))
    elif cfg.rotary_dims:
        out["append"] = wt("kv_append_rope", t=sub, p=d.step.pos, r=cfg.rotary_dims, d_k=v.cfg.d_k, n=n)
    size = v.cfg.n_heads // cfg.kv_heads
    if size > 1:
        out["append"] = f"{out.get('append', wt('kv_append', t=sub, n=n))} " + wt(
            "kv_fig_group", heads=_heads(d.group, size), g=d.group + 1)
    if cfg.alibi:
        out["scores"] = wt("kv_scores_alibi", t=sub, n=n, d_k=v.cfg.d_k, m=f"{mha.alibi_slopes(v.cfg.n_heads)[h]:g}")
    return out


def _proof(v: View, d: Decoded) -> str:
    """The check, as Markdown: the step's rows against a full recompute on the same numbers, with the same variant;
    a window's length against its bound."""
    t_, full, step = v.t, d.full, d.step
    t = len(full.y)
    prefix = float(np.max(np.abs(d.before.y - full.y[:-1])))
    last = float(np.max(np.abs(step.y - full.y[-1])))
    row = np.zeros((v.cfg.n_heads, t))  # the cached step's S row, a held key at its position, 0 for the others
    row[:, d.held] = step.probs
    s_row = float(np.max(np.abs(row - full.probs[:, -1, :])))
    sub = subscript(t)
    table = [(t_("kv_proof_prefix", t=sub, rows=t_.rows(1, t - 1)), t_("kv_exact") if prefix == 0 else f"{prefix:.3g}"),
             (t_("kv_proof_last", t=sub), f"{last:.3g}"), (t_("kv_proof_s", t=t), f"{s_row:.3g}")]
    if d.cfg is not None and d.cfg.window:
        most, held = d.cfg.sinks + d.cfg.window, len(d.cache)
        table.append((t_("kv_proof_held", most=most), f"{held} {'≤' if held <= most else '>'} {most}"))
    out = f"**{t_('kv_proof_title')}**\n\n{markdown_table([t_('kv_proof_what'), t_('kv_proof_delta')], table)}"
    if d.variant != "mha":
        out += "\n\n" + t_("kv_proof_same", variant=t_(f"variant_{d.variant}"), n=t)
    return out


def _cost(v: View, t: int) -> None:
    """Step t's FLOPs and bytes, cached and recomputed, counted by mha.cost for the variant chosen on this stage
    (MLA's with its latent width), and the generation's FLOPs at these sizes and GPT-2-small's."""
    t_ = v.t
    variant, changed, latent = _chosen(v)
    st.markdown(f"**{t_('kv_cost_title')}**")
    c = mha.cost(changed, t, ITEMSIZE, latent)
    said = partial(_said, v.look)
    for terms in _formulas(t_, changed, variant, latent, t, c):
        equation(v.look, *(said(lhs, value) for lhs, value in terms))
    table = markdown_table([t_("kv_cost_step", t=t), t_("kv_cost_flops"), t_("kv_cost_bytes")],
                           [(t_("kv_with"), f"{c.step_flops_cached:,}", f"{c.step_bytes_cached:,}"),
                            (t_("kv_without", t=t), f"{c.step_flops_recompute:,}",
                             f"{c.step_bytes_recompute:,}")])
    note, gpt2 = t_("kv_cost_note"), _on_gpt2(variant, changed)
    if variant != "mha":  # the cache's bytes against a real cache's, what the counts assume and the curves' sizes:
        table += "\n\n" + _cache_check(t_, changed, variant, latent, t, c)  # in the post's elements
        note += " " + _assumed(t_, changed, variant, latent) + " " + t_(
            "kv_cost_curves", variant=_variant_name(t_, variant), here=_sizes_tex(changed, latent),
            gpt2=_sizes_tex(gpt2, latent))
    st.markdown(table)
    st.caption(note)
    series = {}
    for sizes, conf in ((t_("kv_sizes_now"), changed), (t_("kv_sizes_gpt2"), gpt2)):
        counted = mha.cost(conf, LENGTHS, ITEMSIZE, latent)
        series[t_("kv_series_cached", sizes=sizes)] = (counted.gen_flops_cached, "solid")
        series[t_("kv_series_full", sizes=sizes)] = (counted.gen_flops_recompute, "dash")
    st.markdown(f"**{t_('kv_cost_chart')}**")
    chart(cost_figure(LENGTHS, series, x_title=t_("kv_axis_t"), y_title=t_("kv_axis_flops"), look=v.look),
          key="kv_cost", width="stretch")


def _chosen(v: View) -> tuple[str, mha.AttentionConfig, int]:
    """The variant chosen on this stage, the walk's sizes with its change (its knobs from the session, as `_decode`
    reads them) and, for MLA, the latent's width (else 0)."""
    variant = st.session_state.get("kv_variant", "mha")
    latent = _mla_weights(v.w).d_latent if variant == "mla" else 0
    return variant, lab.variant_config(v.cfg, variant), latent


def _on_gpt2(variant: str, changed: mha.AttentionConfig) -> mha.AttentionConfig:
    """GPT-2-small's shapes with the variant's change as set on the page (its kv heads kept a divisor of 12, its
    turned dims within d_k)."""
    return variant_defs.config(GPT2, variant, variant_defs.knobs_of(changed, variant))


def _formulas(t_, cfg: mha.AttentionConfig, variant: str, latent: int, t: int, c: mha.Cost) -> list[list[tuple]]:
    """The display formulas, each a list of (left side, value): P and O, then step t cached and recomputed."""
    h, d, dk, dv, g = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, cfg.kv_heads
    cached, recompute = t_("kv_tex_cached"), t_("kv_tex_recompute")
    o = (r"O = 2\,h\,d_v\,d_{model}", tex_int(2 * h * dv * d))
    full = (rf"{recompute}_{{{t}}} = t\,(P + O) + 2h\,t^2(d_k + d_v)", tex_int(c.step_flops_recompute))
    if variant == "mla":
        p = (r"P = 2\,d_{model}\,(h\,d_k + d_c) + 2h\,d_c\,(d_k + d_v)",
             f"{tex_int(2 * d * (h * dk + latent) + 2 * h * latent * (dk + dv))},")
        return [[p, o], [(rf"{cached}_{{{t}}} = P + 4h\,t\,d_c + O", tex_int(c.step_flops_cached)),
                         (rf"{recompute}_{{{t}}} = t\,(P + O) + 4h\,t^2 d_c", tex_int(c.step_flops_recompute))]]
    if g == h:
        p = (r"P = 2\,d_{model}\,h\,(2d_k + d_v)", f"{tex_int(2 * d * h * (2 * dk + dv))},")
    else:
        p = (r"P = 2\,d_{model}\,(h\,d_k + n_{kv}(d_k + d_v))", f"{tex_int(2 * d * (h * dk + g * (dk + dv)))},")
    if not cfg.window:
        return [[p, o], [(rf"{cached}_{{{t}}} = P + 2h\,t\,(d_k + d_v) + O", tex_int(c.step_flops_cached)), full]]
    bound = r"s + W" if cfg.sinks else "W"
    return [[p, o], [(rf"L = \min(t,\ {bound})", f"{c.held},")],
            [(rf"{cached}_{{{t}}} = P + 2h\,L\,(d_k + d_v) + O", tex_int(c.step_flops_cached)), full]]


def _cache_check(t_, cfg: mha.AttentionConfig, variant: str, latent: int, t: int, c: mha.Cost) -> str:
    """The cache's bytes after step t by the count, beside a real cache of the same shapes fed t tokens."""
    if variant == "mla":
        count = rf"{ITEMSIZE} \cdot t\,d_c = {ITEMSIZE} \cdot {t} \cdot {latent}"
    else:
        heads = "h" if cfg.kv_heads == cfg.n_heads else "n_{kv}"
        tokens = "L" if cfg.window else "t"
        if cfg.kv_bits:  # a byte a code, and two scales a row
            count = (rf"{heads}\,{tokens}\,(d_k + d_v + 2 \cdot {ITEMSIZE}) = "
                     rf"{cfg.kv_heads} \cdot {c.held} \cdot {cfg.d_k + cfg.d_v + 2 * ITEMSIZE}")
        else:
            count = (rf"{ITEMSIZE} \cdot {heads}\,{tokens}\,(d_k + d_v) = "
                     rf"{ITEMSIZE} \cdot {cfg.kv_heads} \cdot {c.held} \cdot {cfg.d_k + cfg.d_v}")
    _, nbytes, _ = costs.measured(cfg, t, latent)
    return t_("kv_cost_cache", t=t, count=f"{count} = {tex_int(c.cache_bytes)}", nbytes=f"{nbytes:,}")


def _assumed(t_, cfg: mha.AttentionConfig, variant: str, latent: int) -> str:
    """What the variant's counts assume, in words."""
    if variant in ("gqa", "mqa"):
        return t_("kv_cost_note_groups", kv=cfg.kv_heads, h=cfg.n_heads)
    if variant in ("window", "sinks"):
        return t_("kv_cost_note_window", bound="s + W" if cfg.sinks else "W", most=cfg.sinks + cfg.window)
    if variant == "mla":
        return t_("kv_cost_note_mla", d_c=latent)
    return t_(f"kv_cost_note_{variant}", r=cfg.rotary_dims, d_k=cfg.d_k, h=cfg.n_heads)


def _variant_name(t_, variant: str) -> str:
    return t_(VARIANTS[variant].kv_name or f"variant_{variant}")


def _sizes_tex(cfg: mha.AttentionConfig, latent: int) -> str:
    """The sizes a variant's counts read, as LaTeX between $…$ (the symbols of its formulas; RoPE's turned dims
    change no count)."""
    parts = [f"h = {cfg.n_heads}"]
    if cfg.kv_heads != cfg.n_heads:
        parts.append(rf"n_{{kv}} = {cfg.kv_heads}")
    parts.append(f"d_k = d_v = {cfg.d_k}" if cfg.d_k == cfg.d_v else rf"d_k = {cfg.d_k},\ d_v = {cfg.d_v}")
    parts += [f"W = {cfg.window}"] if cfg.window else []
    parts += [f"s = {cfg.sinks}"] if cfg.sinks else []
    parts += [f"d_c = {latent}"] if latent else []
    return "$" + r",\ ".join([*parts, rf"d_{{model}} = {cfg.d_model}"]) + "$"


def _said(look, lhs: str, value: str) -> str | tuple[str, str]:
    """A formula and its value; on a phone the value goes on a line of its own, or the two are too wide for it."""
    return (lhs, f"= {value}") if look.narrow else f"{lhs} = {value}"


def _measure(v: View) -> None:
    t_, cfg, ss = v.t, v.cfg, st.session_state
    variant, changed, latent = _chosen(v)
    st.markdown(f"**{t_('kv_measure_title')}**")
    cap = _measure_cap(changed, latent)
    tokens = number(st, t_, "kv_measure_T", 2, cap, label=t_("kv_measure_tokens"), default=min(128, cap))
    if cap < 512:
        st.caption(t_("kv_measure_cap", T=cap))
    timed = (variant, changed, latent) if variant != "mha" else cfg  # what a timing was made for
    if st.button(t_("kv_measure"), key="kv_measure"):
        ss["kv_timing"] = (timed, _time_decoding(v, int(tokens)))
    timing = ss.get("kv_timing")
    if timing and timing[0] == timed:
        cached, full = timing[1]
        result = t_("kv_measure_result", cached=cached.sum(), full=full.sum(), ratio=full.sum() / cached.sum())
        if variant != "mha":
            result += " " + t_("kv_cost_timed", variant=_variant_name(t_, variant))
        st.markdown(result)
        steps = np.arange(1, len(cached) + 1)
        series = {t_("kv_series_ms_cached"): (cached, "solid"), t_("kv_series_ms_full"): (full, "dash")}
        chart(cost_figure(steps, series, x_title="t", y_title=t_("kv_measure_axis"), look=v.look), key="kv_timing",
              width="stretch")


def _measure_cap(cfg: mha.AttentionConfig, latent: int, most: int = 512) -> int:
    """The longest generation (2..most tokens) whose recompute, counted by mha.cost for the variant (MLA's with
    latent > 0), stays within MEASURE_BUDGET FLOPs."""
    full = mha.cost(cfg, np.arange(1, most + 1), ITEMSIZE, latent).gen_flops_recompute
    fits = np.flatnonzero(full[1:] <= MEASURE_BUDGET) + 2
    return int(fits[-1]) if len(fits) else 2


def _time_decoding(v: View, tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """Milliseconds per generated token, through the chosen variant's own cache and by recomputing it (forward with
    the variant; MLA in the absorbed order the cache decodes in) on 1..t tokens."""
    variant, changed, _ = _chosen(v)
    rows = np.stack([mha.next_token(v.cfg, i) for i in range(tokens)])
    bar = st.progress(0.0)
    if variant == "mla":
        w_mla = _mla_weights(v.w)
        cache, recompute = mha.MLACache(w_mla), partial(_mla_recompute, w=w_mla)
    else:
        cfg, w = _variant_of(v.cfg, v.w, variant)
        cache, recompute = mha.KVCache(w, cfg, capacity=tokens), partial(mha.forward, w=w, cfg=cfg)
    cached, full = [], []
    for t in range(1, tokens + 1):
        start = time.perf_counter()
        cache.append(rows[t - 1])
        cached.append(time.perf_counter() - start)
        start = time.perf_counter()
        recompute(rows[:t])
        full.append(time.perf_counter() - start)
        if t % 8 == 0 or t == tokens:
            bar.progress(t / tokens, text=v.t("kv_measure_progress", t=t, total=tokens))
    bar.empty()
    return np.array(cached) * 1e3, np.array(full) * 1e3


def _mla_recompute(x: np.ndarray, w: mha.MLAWeights) -> np.ndarray:
    """Y of every row of x by MLA without a cache, in the absorbed order mha.MLACache decodes in (mla_forward runs
    both orders, to check one against the other: twice the work a recompute needs)."""
    c = x @ w.w_dkv
    q_abs = (x @ w.w_q) @ w.w_uk.transpose(0, 2, 1)
    probs = mha.softmax(q_abs @ c.T / np.sqrt(w.d_k) + mha.causal_mask(len(x)))
    heads = (probs @ c) @ w.w_uv
    return heads.transpose(1, 0, 2).reshape(len(x), -1) @ w.w_o


def download(cfg, x, w) -> exports.Part | None:
    """With a variant, what its cache holds after the rows decoded; with the post's attention, None: the walk's
    trace is the view."""
    ss = st.session_state
    variant = ss.get("kv_variant", S.DEFAULTS["kv_variant"])
    if variant == "mha":
        return None
    return exports.cache_variant_part(x, w, variant, lab.variant_config(cfg, variant), int(ss["d_latent"]))
