"""What each variant caches: floats per token per layer at the page's sizes and at a real model's, and every variant
side by side with the tokens that fit in a given memory.

The page's figures are measured: a real mha.KVCache (or mha.MLACache) at the variant's config is fed the n tokens,
and its nbytes read back. A cache's bytes depend on its shapes only (heads, d_k, d_v, the window, d_latent), never on
the weights' values or d_model, so the measuring cache has zero weights one number wide: the same bytes as the walk's
own cache, at no cost of the walk's weights. A real model's figures come from its published sizes (REAL, each
with the key of its source in the README's "Sources of the real models' sizes") by the same formula as the page's:
n_kv (d_k + d_v) floats per token per layer for every variant but MLA, whose cache is its latent (and DeepSeek's one
shared RoPE key)."""

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import streamlit as st

import mha

from .. import lab
from .. import settings as S
from ..inputs import number
from ..prose import markdown_table, tex_int
from ..variant_defs import VARIANT_LIST, VARIANTS, Real
from ..view import View

FLOAT_BYTES = 2  # a real model's cache in bf16 / fp16
GB = 10**9
MEMORY = (0.01, 100_000.0)  # the memory box's range, in GB
MEMORY_DEFAULT = 1.0
MEMORY_WIDTH = 320  # px: the box holds a few digits; a phone (390 px) still fits it


# The real models, one per variant (and the post's MHA), as each variant's declaration gives it. README.md cites each
# by its key.
REAL = {v.id: v.real for v in VARIANT_LIST}
ROWS = tuple(REAL)  # the comparison table: the post's attention, then every variant


def floats_per_token(cfg: mha.AttentionConfig, latent: int = 0, rope_key: int = 0) -> int:
    """Floats cached per token per layer: the latent (and a shared RoPE key) with MLA, else K and V of each kv head."""
    return latent + rope_key if latent else cfg.kv_heads * (cfg.d_k + cfg.d_v)


def held_at_most(cfg: mha.AttentionConfig) -> int:
    """Tokens a cache ever holds: sinks + window with a window, else 0 (no bound)."""
    return cfg.sinks + cfg.window if cfg.window else 0


# A config's fields that size the page, not a cache of it: measured() sets them to these, so that views at other sizes
# share one measure. Every other field (the variants' knobs, and any added later) reaches the measure, and its key.
NOT_THE_CACHE = dict(d_model=1, seed=0, init="gaussian", d_ff=1)


def measured(cfg: mha.AttentionConfig, n: int, d_latent: int = 0) -> tuple[int, int, int]:
    """(tokens held, nbytes, numbers a token) of a real cache of cfg's shapes fed n tokens: an mha.MLACache of width
    d_latent, else an mha.KVCache. Zero weights one number wide: a cache's bytes depend on its shapes only."""
    return _measured(replace(cfg, n_tokens=n, **NOT_THE_CACHE), d_latent)


@lru_cache(maxsize=256)
def _measured(cfg: mha.AttentionConfig, d_latent: int) -> tuple[int, int, int]:
    n = cfg.n_tokens
    if d_latent:  # the latent is all an MLA cache holds, whatever the heads: one head of width 1 reads it here
        w = mha.MLAWeights(np.zeros((1, 1, 1)), np.zeros((1, d_latent)), np.zeros((1, d_latent, 1)),
                           np.zeros((1, d_latent, 1)), np.zeros((1, 1)))
    else:
        h, kv = cfg.n_heads, cfg.kv_heads
        w = mha.Weights(np.zeros((h, 1, cfg.d_k)), np.zeros((kv, 1, cfg.d_k)), np.zeros((kv, 1, cfg.d_v)),
                        np.zeros((h * cfg.d_v, 1)))
    cache, _ = mha.decode(np.zeros((n, 1)), w, cfg)
    held = cache.latent.size if d_latent else cache.k.size + cache.v.size  # numbers, whatever each is stored as
    return len(cache), cache.nbytes, held // len(cache)


def d_latent() -> int:
    """The MLA knob from the session, kept within its range."""
    low, high = S.KNOB_RANGE["d_latent"]
    return min(max(int(st.session_state.get("d_latent", S.DEFAULTS["d_latent"])), low), high)


@dataclass(frozen=True)
class Here:
    """One variant at the page's sizes, measured."""

    cfg: mha.AttentionConfig
    latent: int  # MLA's d_latent, else 0
    n: int  # tokens fed
    held: int  # tokens the cache holds after them
    nbytes: int
    floats: int  # numbers a token, per layer, read back from what the cache holds (whatever it keeps them as)


def here(v: View, variant: str) -> Here:
    cfg = lab.config(v, variant)
    latent = d_latent() if variant == "mla" else 0
    n = len(v.x)
    held, nbytes, floats = measured(cfg, n, latent)
    return Here(cfg, latent, n, held, nbytes, floats)


def formula(cfg: mha.AttentionConfig, latent: int = 0, rope_key: int = 0) -> str:
    """The floats per token per layer as LaTeX: the rule, its numbers, the result."""
    total = tex_int(floats_per_token(cfg, latent, rope_key))
    if latent and rope_key:
        return rf"d_c + d^R_h = {tex_int(latent)} + {tex_int(rope_key)} = {total}"
    if latent:
        return rf"d_{{latent}} = {total}"
    heads = (r"h", cfg.n_heads) if cfg.kv_heads == cfg.n_heads else (r"n_{kv}", cfg.kv_heads)
    return rf"{heads[0]}\,(d_k + d_v) = {heads[1]}\,({cfg.d_k} + {cfg.d_v}) = {total}"


def sizes_tex(cfg: mha.AttentionConfig, latent: int = 0, rope_key: int = 0) -> str:
    """The config's numbers the formula reads, as LaTeX."""
    parts = [f"h = {cfg.n_heads}"]
    if latent:
        parts += [rf"d_c = {latent}", rf"d^R_h = {rope_key}"] if rope_key else [rf"d_{{latent}} = {latent}"]
        return r",\ ".join(parts)
    if cfg.kv_heads != cfg.n_heads:
        parts.append(rf"n_{{kv}} = {cfg.kv_heads}")
    parts.append(f"d_k = d_v = {cfg.d_k}" if cfg.d_k == cfg.d_v else rf"d_k = {cfg.d_k},\ d_v = {cfg.d_v}")
    if cfg.window:
        parts.append(f"W = {cfg.window}")
    if cfg.sinks:
        parts.append(f"s = {cfg.sinks}")
    if cfg.rotary_dims:
        parts.append(rf"d_{{rot}} = {cfg.rotary_dims}")  # symbols, not words: the same in both languages
    return r",\ ".join(parts)


def per_token_bytes(real: Real) -> int:
    """Bytes one token costs a real model: every layer, its numbers as the cache's storage keeps them
    (variants.Storage.nbytes, a float taking FLOAT_BYTES)."""
    numbers = floats_per_token(real.cfg, real.latent, real.rope_key)
    return mha.storage(real.cfg).nbytes(numbers, 2 * real.cfg.kv_heads, FLOAT_BYTES) * real.layers


def tokens_fit(real: Real, memory_gb: float) -> int | None:
    """Tokens of one sequence whose cache fits in memory_gb; None when the cache's bound fits, so any length does."""
    memory = memory_gb * GB
    cap = held_at_most(real.cfg)
    if cap and cap * per_token_bytes(real) <= memory:
        return None
    return int(memory // per_token_bytes(real))


def size(nbytes: float) -> str:
    """Bytes said in the largest unit that keeps a number ≥ 1 (decimal units, as the memory box)."""
    for unit, scale in (("GB", GB), ("MB", 10**6), ("KB", 10**3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"


def render(v: View, variant: str, lead: str = "") -> None:
    """The variant's cache at the page's sizes and at its real model's, after `lead` (the variant's live check) in
    the same element, then every variant side by side."""
    t = v.t
    st.markdown(f"{lead}\n\n{_chosen(v, variant)}" if lead else _chosen(v, variant))
    memory = number(st, t, "lab_memory_gb", *MEMORY, default=MEMORY_DEFAULT, step=0.5, persist_state="session",
                    width=MEMORY_WIDTH)
    st.markdown(_table(v, variant, memory))


def _chosen(v: View, variant: str) -> str:
    t, h = v.t, here(v, variant)
    real = REAL[variant]
    sizes = f"${sizes_tex(h.cfg, h.latent)},\\ n = {h.n}$"
    lines = [t("lab_costs_why_" + variant),
             t(VARIANTS[variant].cost_here, sizes=sizes, formula=formula(h.cfg, h.latent), n=h.n,
               held=f"{h.held:,}", nbytes=f"{h.nbytes:,}", floats=f"{h.floats:,}", scales=2 * h.cfg.kv_heads)]
    real_line = t(VARIANTS[variant].cost_real, model=real.said(t),
                  config=sizes_tex(real.cfg, real.latent, real.rope_key), scales=2 * real.cfg.kv_heads,
                  formula=formula(real.cfg, real.latent, real.rope_key), layers=real.layers,
                  per_token=f"{per_token_bytes(real):,}")
    cap = held_at_most(real.cfg)
    if cap:
        real_line = t.sentences(real_line, t("lab_costs_cap", cap=f"{cap:,}",
                                             cap_bytes=size(cap * per_token_bytes(real))))
    if real.latent:
        naive = floats_per_token(real.cfg)
        times = naive / floats_per_token(real.cfg, real.latent, real.rope_key)
        real_line = t.sentences(real_line, t("lab_costs_naive", naive=tex_int(naive), times=f"{times:.0f}"))
    if variant == "online":
        lines[0] = t.sentences(lines[0], t("lab_costs_saved", saved=h.cfg.n_heads * h.n ** 2))
        saved = real.cfg.n_heads * real.context ** 2
        real_line = t.sentences(real_line, t("lab_costs_saved_real", context=f"{real.context:,}",
                                             saved=tex_int(saved), saved_bytes=size(saved * FLOAT_BYTES)))
    lines.append(real_line)
    title = t("lab_costs_title", variant=t(f"variant_{variant}"))
    return f"**{title}**\n\n" + "\n".join(f"- {line}" for line in lines)


def _table(v: View, chosen: str, memory: float) -> str:
    t = v.t
    rows = []
    for variant in ROWS:
        h, real = here(v, variant), REAL[variant]
        cap_here, cap_real = held_at_most(h.cfg), held_at_most(real.cfg)
        floats_real = f"{floats_per_token(real.cfg, real.latent, real.rope_key):,}"
        fit = tokens_fit(real, memory)
        name = t(f"variant_{variant}")
        shown = t("lab_costs_capped", floats=f"{h.floats:,}", cap=f"{cap_here:,}") if cap_here else f"{h.floats:,}"
        rows.append((f"**{name}**" if variant == chosen else name, shown,
                     t("lab_costs_real_cell", model=real.said(t), floats=t(
                         "lab_costs_capped", floats=floats_real, cap=f"{cap_real:,}") if cap_real else floats_real),
                     t("lab_costs_any", size=size(cap_real * per_token_bytes(real))) if fit is None else f"{fit:,}"))
    head = [t("lab_costs_col_variant"), t("lab_costs_col_here"), t("lab_costs_col_real"),
            t("lab_costs_col_fit", gb=f"{memory:g}")]
    return f"**{t('lab_costs_compare')}**\n\n{markdown_table(head, rows)}\n\n{t('lab_costs_assume')}"
