"""The KV-cache stage's cost part: the counts with and without the cache (formulas, a table, curves to T = 4096, at
the page's sizes and GPT-2's), the cache's bytes by the count and measured, and a timing run."""

import time
from functools import partial

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.cache import cost_figure

from .. import lab, variant_defs
from ..chart import chart
from ..inputs import number
from ..lab import costs
from ..prose import display, markdown_table, tex_int
from ..view import View
from .shared import ITEMSIZE, mla_weights, variant_name, variant_of

GPT2 = mha.AttentionConfig(n_tokens=1, d_model=768, d_k=64, d_v=64, n_heads=12)
# MLA's latent on GPT-2-small's curve: DeepSeek-V2's ratio, d_c = 4·d_h (its kv_lora_rank 512 for heads of 128: the
# README's [deepseek] source), not the page's own few numbers (audit 2026-12-07 #12: 4 of 768 counted nothing real)
GPT2_LATENT = 4 * GPT2.d_k
MEASURE_BUDGET = 2e10  # FLOPs the "measure it" recompute may spend
LENGTHS = np.unique(np.round(np.logspace(0, np.log10(4096), 60)).astype(int))


def cost_counts(v: View, t: int) -> None:
    """Step t's FLOPs and bytes, cached and recomputed, counted by mha.cost for the variant chosen on this stage
    (MLA's with its latent width)."""
    t_ = v.t
    variant, changed, latent = _chosen(v)
    st.markdown(f"**{t_('kv_cost_title')}**")
    c = mha.cost(changed, t, ITEMSIZE, latent)
    said = partial(_said, v.look)
    for terms in _formulas(t_, changed, variant, latent, t, c):  # over the table they count, a projector's too: its
        st.latex(display(v.look, *(said(lhs, value) for lhs, value in terms)))  # curves came first (audit 12-07 #5)
    table = markdown_table([t_("kv_cost_step", t=t), t_("kv_cost_flops"), t_("kv_cost_bytes")],
                           [(t_("kv_with"), f"{c.step_flops_cached:,}", f"{c.step_bytes_cached:,}"),
                            (t_("kv_without", t=t), f"{c.step_flops_recompute:,}",
                             f"{c.step_bytes_recompute:,}")])
    note, gpt2 = t_("kv_cost_note"), _on_gpt2(variant, changed)
    if variant != "mha":  # the cache's bytes against a real cache's, what the counts assume and the curves' sizes:
        table += "\n\n" + _cache_check(t_, changed, variant, latent, t, c)  # in the post's elements
        note = t_.sentences(note, _assumed(t_, changed, variant, latent), t_(
            "kv_cost_curves", variant=t_(f"variant_{variant}"), here=_sizes_tex(changed, latent),
            gpt2=_sizes_tex(gpt2, latent and GPT2_LATENT)))
    st.markdown(table)
    st.caption(note)


def cost_curves(v: View, look: F.Look) -> None:
    """The generation's FLOPs at these sizes and GPT-2-small's, with and without the cache, drawn in `look`."""
    t_ = v.t
    variant, changed, latent = _chosen(v)
    gpt2 = _on_gpt2(variant, changed)
    series = {}
    on_gpt2 = latent and GPT2_LATENT
    for sizes, conf, width in ((t_("kv_sizes_now"), changed, latent), (t_("kv_sizes_gpt2"), gpt2, on_gpt2)):
        counted = mha.cost(conf, LENGTHS, ITEMSIZE, width)
        series[t_("kv_series_cached", sizes=sizes)] = (counted.gen_flops_cached, "solid")
        series[t_("kv_series_full", sizes=sizes)] = (counted.gen_flops_recompute, "dash")
    st.markdown(f"**{t_('kv_cost_chart')}**")
    chart(cost_figure(LENGTHS, series, x_title=t_("kv_axis_t"), y_title=t_("kv_axis_flops"), look=look),
          key="kv_cost", width="stretch")


def _chosen(v: View) -> tuple[str, mha.AttentionConfig, int]:
    """The variant chosen on this stage, the walk's sizes with its change (its knobs from the session, as `decode_rows`
    reads them) and, for MLA, the latent's width (else 0)."""
    variant = st.session_state.get("kv_variant", "mha")
    latent = mla_weights(v.w).d_latent if variant == "mla" else 0
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
        # each array the storage keeps: s bytes a number of a row (floats: the row itself), or one s-byte number
        # for the row of K and one for the row of V of every kv head
        kept = [(np.dtype(p.dtype).itemsize if p.dtype else ITEMSIZE, p.per_number) for p in mha.storage(cfg).parts]
        if len(kept) == 1 and kept[0][1]:
            s = kept[0][0]
            count = (rf"{s} \cdot {heads}\,{tokens}\,(d_k + d_v) = "
                     rf"{s} \cdot {cfg.kv_heads} \cdot {c.held} \cdot {cfg.d_k + cfg.d_v}")
        else:
            terms = " + ".join(("d_k + d_v" if s == 1 else rf"{s}\,(d_k + d_v)") if per else rf"2 \cdot {s}"
                               for s, per in kept)
            row = sum(s * (cfg.d_k + cfg.d_v) if per else 2 * s for s, per in kept)
            count = rf"{heads}\,{tokens}\,({terms}) = {cfg.kv_heads} \cdot {c.held} \cdot {row}"
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
    # each size a group: KaTeX breaks a line after "=" but never inside braces (a phone's "W =" / "2": audit 12-07)
    return "$" + r",\ ".join(f"{{{p}}}" for p in [*parts, rf"d_{{model}} = {cfg.d_model}"]) + "$"


def _said(look, lhs: str, value: str) -> str | tuple[str, str]:
    """A formula and its value; on a phone the value goes on a line of its own, or the two are too wide for it."""
    return (lhs, f"= {value}") if look.narrow else f"{lhs} = {value}"


def measure_part(v: View) -> None:
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
            result = t_.sentences(result, t_("kv_cost_timed", variant=variant_name(t_, variant)))
        st.markdown(result)
        steps = np.arange(1, len(cached) + 1)
        series = {t_("kv_series_ms_cached"): (cached, "solid"), t_("kv_series_ms_full"): (full, "dash")}
        chart(cost_figure(steps, series, x_title=t_("kv_measure_x"), y_title=t_("kv_measure_axis"), look=v.look),
              key="kv_timing", width="stretch")


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
        w_mla = mla_weights(v.w)
        cache, recompute = mha.MLACache(w_mla), partial(mla_recompute, w=w_mla)
    else:
        cfg, w = variant_of(v.cfg, v.w, variant)
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


def mla_recompute(x: np.ndarray, w: mha.MLAWeights) -> np.ndarray:
    """Y of every row of x by MLA without a cache, in the absorbed order mha.MLACache decodes in (mla_forward runs
    both orders, to check one against the other: twice the work a recompute needs)."""
    c = x @ w.w_dkv
    q_abs = (x @ w.w_q) @ w.w_uk.transpose(0, 2, 1)
    probs = mha.softmax(q_abs @ c.T / np.sqrt(w.d_k) + mha.causal_mask(len(x)))
    heads = (probs @ c) @ w.w_uv
    return heads.transpose(1, 0, 2).reshape(len(x), -1) @ w.w_o
