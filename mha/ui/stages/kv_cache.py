"""Stage `kv_cache`: add a token to a real KV cache on the user's numbers; prove it equals a full recompute; cost it."""

import time
from functools import partial

import numpy as np
import streamlit as st

import mha
from mha.figures.cache import COLS, STEPS, CacheStep, cache_animation, cost_figure, drawn_rows
from mha.figures.text import short
from mha.figures.ticks import token_ticks

from .. import editor, link, next_word, session
from ..chart import chart, draw, drawn, shared_figure
from ..inputs import number
from ..prose import equation, head_control, header, input_error, markdown_table, tex_int
from ..settings import KV_MAX_ADDED as MAX_ADDED
from ..settings import KV_PARTS
from ..shared import digest
from ..view import View, subscript

GPT2 = mha.AttentionConfig(n_tokens=1, d_model=768, d_k=64, d_v=64, n_heads=12)
WORD_MOST = 24  # glyphs of a token its sentences write (a long one is whole in the figure's hover)
MEASURE_BUDGET = 2e10  # FLOPs the "measure it" recompute may spend
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
    words = bool(v.tokens)  # a text (or the trained model's letters): the cache adds the model's next word
    rows = v.x if words else _rows(v)
    t = len(rows)
    if words:
        hint = _next_word(v, t)
    else:
        _next_seeded(v, t)
        hint = t_("kv_hint") if t == len(v.x) else ""
    cache = mha.KVCache(v.w, capacity=t)
    steps = [cache.append(r) for r in rows]
    full = mha.forward(rows, v.w)
    state = t_("kv_state", t=t, d_k=v.cfg.d_k, d_v=v.cfg.d_v, size=_size(cache.nbytes))
    st.markdown(f"{state}\n\n:gray[:small[{hint}]]" if hint else state)  # one element
    # A segmented control rather than st.tabs that rerun on change: both build only the chosen part, but the tabs
    # made the browser's every rerun of this page slower (bench/README.md).
    part = st.segmented_control(t_("kv_part"), KV_PARTS, format_func=lambda p: t_(f"kv_tab_{p}"), key="kv_part",
                                required=True, persist_state="session", label_visibility="collapsed")
    if part == "step":
        before = mha.forward(rows[:-1], v.w) if t > 1 else None  # what the tokens before the last one gave

        def build():
            fig = cache_animation(_step(v, cache, steps[-1], full, before), text=v.text, look=v.named)
            return drawn(token_ticks(fig, v.tokens, _token_axes(fig), v.look))

        w = v.w  # the figure shows rows, weights, head, words and screen: built once for them, in any session
        parts = ("kv", digest(rows, w.w_q, w.w_k, w.w_v, w.w_o), v.head, v.cfg.n_heads, v.t.lang, v.text, v.look,
                 v.tokens)
        draw(shared_figure(parts, build), "kv_animation", "content", clickable=False)
        wide, long = max(v.cfg.d_k, v.cfg.d_v, v.cfg.d_model) > COLS, t > drawn_rows(v.look)  # what is drawn in part
        if wide or long:
            which = "kv_window_both" if wide and long else "kv_window_rows" if long else "kv_window_cols"
            st.caption(t_(which, cols=COLS, rows=drawn_rows(v.look)))
        why = f"**{t_('kv_why_q_title')}** · {t_('kv_why_q')}"
        st.markdown(f"{why}\n\n{_proof(v, rows, steps[-1], full, before)}" if t > 1 else why)  # one element
    else:
        _cost(v, t)
        _measure(v)
    ss["kv_added"] = [list(map(float, r)) for r in rows[len(v.x):]]
    link.follows(v.cfg)


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
    st.session_state.setdefault("kv_added", []).append(list(map(float, row)))


def _reset() -> None:
    st.session_state["kv_added"] = []


def _size(nbytes: int) -> str:
    return f"{nbytes:,} B" if nbytes < 10_000 else f"{nbytes / 1024:,.1f} KiB"


def _step(v: View, cache: mha.KVCache, step: mha.DecodeStep, full: mha.Trace, before: mha.Trace | None) -> CacheStep:
    """The last token's step for the chosen head, with S, H and Y of the tokens before it, and its words."""
    h, t, wt = v.head, len(cache), v.t
    sub, ps = subscript(t), subscript(t - 1)
    s_name, h_name = v.head_name("S"), v.head_name("H")
    names = dict(q=v.head_name("Q").html, k=wt("kv_name_k", k=v.head_name("K").html),
                 v=wt("kv_name_v", v=v.head_name("V").html), s=s_name.html, h=h_name.html, y="Y")
    span = wt.rows(1, t - 1) if t > 1 else ""
    tokens = "X₁" if t == 2 else "X₁, X₂" if t == 3 else f"X₁…X{ps}"
    words = dict(
        arrive=wt("kv_arrive", t=sub, tokens=tokens) if t > 1 else wt("kv_arrive_first", t=sub),
        append=wt("kv_append", t=sub, n=t),
        scores=wt("kv_scores", t=sub, n=t, d_k=v.cfg.d_k),
        softmax=wt("kv_softmax", n=t, s=s_name.plain),
        drop_q=wt("kv_drop_q", rows=span, t=sub) if t > 1 else wt("kv_drop_q_first", t=sub),
        output=(wt("kv_output", t=sub, n=t, s=s_name.plain, h=h_name.plain, ys=tokens.replace("X", "Y")) if t > 1
                else wt("kv_output_first", t=sub, n=t, s=s_name.plain, h=h_name.plain)),
        legend=wt("kv_legend", rows=span, t=sub, n=t) if t > 1 else wt("kv_legend_first", n=t),
        drop_q_note=wt("kv_drop_q_note", rows=span) if t > 1 else "",
        steps=[wt(f"kv_step_{k}") for k in STEPS], play=wt("play"), pause=wt("pause"),
        slider=wt("anim_slider"), slider_step=wt.template("anim_step_text"),
        last_rows=wt.template("kv_last_rows"), first_cols=wt.template("kv_first_cols"),
        last_cols=wt.template("kv_last_cols"), token=wt("token"), col=wt("cols_of"),
    )
    if before is not None:
        s_prev, h_prev, y_prev = before.probs[h], before.heads[h], before.y
    else:
        s_prev, h_prev, y_prev = np.zeros((0, 0)), np.zeros((0, v.cfg.d_v)), np.zeros((0, v.cfg.d_model))
    return CacheStep(full.q[h], cache.k[h], cache.v[h], s_prev, h_prev, y_prev, step.scaled[h], step.probs[h],
                     step.heads[h], step.y, names, words)


def _proof(v: View, rows: np.ndarray, step: mha.DecodeStep, full: mha.Trace, before: mha.Trace) -> str:
    """The check, as Markdown: the step's rows against a full recompute on the same numbers."""
    t_, t = v.t, len(rows)
    prefix = float(np.max(np.abs(before.y - full.y[:-1])))
    last = float(np.max(np.abs(step.y - full.y[-1])))
    s_row = float(np.max(np.abs(step.probs - full.probs[:, -1, :])))
    sub = subscript(t)
    table = [(t_("kv_proof_prefix", t=sub, rows=t_.rows(1, t - 1)), t_("kv_exact") if prefix == 0 else f"{prefix:.3g}"),
             (t_("kv_proof_last", t=sub), f"{last:.3g}"), (t_("kv_proof_s", t=t), f"{s_row:.3g}")]
    return f"**{t_('kv_proof_title')}**\n\n{markdown_table([t_('kv_proof_what'), t_('kv_proof_delta')], table)}"


def _cost(v: View, t: int) -> None:
    t_, cfg = v.t, v.cfg
    st.markdown(f"**{t_('kv_cost_title')}**")
    c = mha.cost(cfg, t)
    h, d, dk, dv = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v
    said = partial(_said, v.look)
    equation(v.look, said(r"P = 2\,d_{model}\,h\,(2d_k + d_v)", f"{tex_int(2 * d * h * (2 * dk + dv))},"),
             said(r"O = 2\,h\,d_v\,d_{model}", tex_int(2 * h * dv * d)))
    cached, recompute = t_("kv_tex_cached"), t_("kv_tex_recompute")
    equation(v.look, said(rf"{cached}_{{{t}}} = P + 2h\,t\,(d_k + d_v) + O", tex_int(c.step_flops_cached)),
             said(rf"{recompute}_{{{t}}} = t\,(P + O) + 2h\,t^2(d_k + d_v)", tex_int(c.step_flops_recompute)))
    st.markdown(markdown_table([t_("kv_cost_step", t=t), t_("kv_cost_flops"), t_("kv_cost_bytes")],
                               [(t_("kv_with"), f"{c.step_flops_cached:,}", f"{c.step_bytes_cached:,}"),
                                (t_("kv_without", t=t), f"{c.step_flops_recompute:,}", f"{c.step_bytes_recompute:,}")]))
    st.caption(t_("kv_cost_note"))
    series = {}
    for sizes, conf in ((t_("kv_sizes_now"), cfg), (t_("kv_sizes_gpt2"), GPT2)):
        costs = [mha.cost(conf, int(n)) for n in LENGTHS]
        series[t_("kv_series_cached", sizes=sizes)] = (np.array([x.gen_flops_cached for x in costs]), "solid")
        series[t_("kv_series_full", sizes=sizes)] = (np.array([x.gen_flops_recompute for x in costs]), "dash")
    st.markdown(f"**{t_('kv_cost_chart')}**")
    chart(cost_figure(LENGTHS, series, x_title=t_("kv_axis_t"), y_title=t_("kv_axis_flops"), look=v.look),
          key="kv_cost", width="stretch")


def _said(look, lhs: str, value: str) -> str | tuple[str, str]:
    """A formula and its value; on a phone the value goes on a line of its own, or the two are too wide for it."""
    return (lhs, f"= {value}") if look.narrow else f"{lhs} = {value}"


def _measure(v: View) -> None:
    t_, cfg, ss = v.t, v.cfg, st.session_state
    st.markdown(f"**{t_('kv_measure_title')}**")
    cap = _measure_cap(cfg)
    tokens = number(st, t_, "kv_measure_T", 2, cap, label=t_("kv_measure_tokens"), default=min(128, cap))
    if cap < 512:
        st.caption(t_("kv_measure_cap", T=cap))
    if st.button(t_("kv_measure"), key="kv_measure"):
        ss["kv_timing"] = (cfg, _time_decoding(v, int(tokens)))
    timing = ss.get("kv_timing")
    if timing and timing[0] == cfg:
        cached, full = timing[1]
        st.markdown(t_("kv_measure_result", cached=cached.sum(), full=full.sum(), ratio=full.sum() / cached.sum()))
        steps = np.arange(1, len(cached) + 1)
        series = {t_("kv_series_ms_cached"): (cached, "solid"), t_("kv_series_ms_full"): (full, "dash")}
        chart(cost_figure(steps, series, x_title="t", y_title=t_("kv_measure_axis"), look=v.look), key="kv_timing",
              width="stretch")


def _measure_cap(cfg: mha.AttentionConfig, most: int = 512) -> int:
    """The longest generation (2..most tokens) whose recompute stays within MEASURE_BUDGET FLOPs."""
    fits = [t for t in range(2, most + 1) if mha.cost(cfg, t).gen_flops_recompute <= MEASURE_BUDGET]
    return fits[-1] if fits else 2


def _time_decoding(v: View, tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """Milliseconds per generated token, with a cache and by recomputing forward on 1..t tokens."""
    rows = np.stack([mha.next_token(v.cfg, i) for i in range(tokens)])
    bar = st.progress(0.0)
    cache, cached, full = mha.KVCache(v.w, capacity=tokens), [], []
    for t in range(1, tokens + 1):
        start = time.perf_counter()
        cache.append(rows[t - 1])
        cached.append(time.perf_counter() - start)
        start = time.perf_counter()
        mha.forward(rows[:t], v.w)
        full.append(time.perf_counter() - start)
        if t % 8 == 0 or t == tokens:
            bar.progress(t / tokens, text=v.t("kv_measure_progress", t=t, total=tokens))
    bar.empty()
    return np.array(cached) * 1e3, np.array(full) * 1e3

