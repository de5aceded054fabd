"""The pieces today's models change in the post's attention: which keys a query sees (a window, sinks), a bias
on the scores (ALiBi), Q and K rotated by position (RoPE), heads sharing one K and V (GQA, MQA), and how the KV
cache keeps each row of K and V (a Storage: floats, or int8 codes with a scale a row).

attention.variant_walk puts them together; each piece here is small enough to check by hand.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .config import AttentionConfig


def groups(n_heads: int, n_kv_heads: int) -> np.ndarray:
    """(n_heads,) the kv head each query head reads: i // (n_heads / n_kv_heads). 4 heads, 2 kv heads: 0 0 1 1."""
    return np.arange(n_heads) // (n_heads // n_kv_heads)


def visible(n: int, window: int = 0, sinks: int = 0) -> np.ndarray:
    """(n, n) bool: may query i read key j? Never a later key (j > i); with a window only i - window < j, and
    keys j < sinks beside it."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    seen = j <= i
    if window:
        seen &= (j > i - window) | (j < sinks)
    return seen


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi paper's slopes (Press et al. 2022, its get_slopes): for h a power of two, 2^(-8/h) raised to the
    powers 1..h, so 8 heads get 1/2, 1/4, …, 1/256 and 2 heads 1/16 and 1/256. Otherwise the slopes of the power
    of two p just below h, then every second slope of 2p for the h - p heads left over."""
    def power_of_two(h):
        start = 2 ** (-8 / h)
        return [start ** (i + 1) for i in range(h)]

    if math.log2(n_heads).is_integer():
        return np.array(power_of_two(n_heads))
    p = 2 ** math.floor(math.log2(n_heads))
    return np.array(power_of_two(p) + power_of_two(2 * p)[0::2][: n_heads - p])


def bias(n: int, cfg: AttentionConfig) -> np.ndarray:
    """(h, n, n) what is added to the scaled scores: -inf where a key is hidden, else 0, or -m_h (i - j) with
    ALiBi (a key further back costs more, by a slope per head)."""
    hidden = np.where(visible(n, cfg.window, cfg.sinks), 0.0, -np.inf)
    if not cfg.alibi:
        return np.broadcast_to(hidden, (cfg.n_heads, n, n))
    distance = np.arange(n)[:, None] - np.arange(n)[None, :]  # i - j
    with np.errstate(invalid="ignore"):  # -inf stays -inf wherever it is hidden
        return hidden - alibi_slopes(cfg.n_heads)[:, None, None] * distance


def angles(positions, rotary_dims: int, base: float) -> np.ndarray:
    """(len(positions), rotary_dims / 2): the angle pair i of a vector at position p turns by, p·θ_i with
    θ_i = base^(-2i / rotary_dims). Pair 0 turns fastest, one radian per position."""
    theta = base ** (-np.arange(0, rotary_dims, 2) / rotary_dims)
    return np.asarray(positions)[:, None] * theta[None, :]  # whole positions times float angles: floats


def rope(a: np.ndarray, positions, rotary_dims: int, base: float) -> np.ndarray:
    """a (…, n, d) with dims (2i, 2i+1), i < rotary_dims / 2, rotated by position as a plane: the interleaved
    layout of the RoPE paper (RoFormer). Dims from rotary_dims on pass through unchanged."""
    if not rotary_dims:
        return a
    angle = angles(positions, rotary_dims, base)  # (n, rotary_dims / 2)
    cos, sin = np.cos(angle), np.sin(angle)
    even, odd = a[..., 0:rotary_dims:2], a[..., 1:rotary_dims:2]
    out = a.copy()
    out[..., 0:rotary_dims:2] = even * cos - odd * sin
    out[..., 1:rotary_dims:2] = even * sin + odd * cos
    return out


def quantize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes and one scale for each row of a (..., n, d): scale = max|row| / 127, codes = round(row / scale)
    within ±127 (a row of subnormal numbers can round its scale down and ask for 128); a zero row gets scale 0 and
    codes 0. Each row on its own: a row once kept never changes when later rows arrive."""
    scale = np.abs(a).max(axis=-1) / 127
    codes = np.rint(a / np.where(scale > 0, scale, np.inf)[..., None])  # a zero row: 0 / ∞ = 0
    return np.clip(codes, -127, 127).astype(np.int8), scale


@dataclass(frozen=True)
class Part:
    """One array a cached row is kept as: `name` ("" for the row itself), its dtype (None: the cache's float,
    float64 in the core, a model's own width in a cost), and whether it holds a number per column of the row or one
    number per row."""

    name: str
    dtype: type | None
    per_number: bool


@dataclass(frozen=True)
class Storage:
    """How the KV cache keeps each row of K (after RoPE) and of V, per token and kv head. attention.variant_walk,
    mha.KVCache and mha.cost read only this: `keep` turns rows (..., n, d) into the arrays of `parts`, `read` turns
    those back into the rows attention reads. A row is kept on its own, so a row once cached never changes."""

    parts: tuple[Part, ...]
    keep: Callable[[np.ndarray], tuple[np.ndarray, ...]]
    read: Callable[..., np.ndarray]

    def nbytes(self, numbers, rows, itemsize: int):
        """Bytes of `rows` rows holding `numbers` numbers in all, a float taking `itemsize` bytes."""
        return sum((np.dtype(p.dtype).itemsize if p.dtype else itemsize) * (numbers if p.per_number else rows)
                   for p in self.parts)


FLOATS = Storage((Part("", None, True),), keep=lambda a: (a,), read=lambda a: a)
INT8 = Storage((Part("codes", np.int8, True), Part("scale", None, False)), keep=quantize,
               read=lambda codes, scale: codes * scale[..., None])
# The names of the arrays a storage adds to a trace and a cache, for K and for V: k_codes, k_scale, v_codes, v_scale
KEPT_NAMES = tuple(f"{m}_{p.name}" for s in (FLOATS, INT8) for m in "kv" for p in s.parts if p.name)


def storage(cfg: AttentionConfig) -> Storage:
    """How cfg's cache keeps K and V: int8 codes and a scale a row (kv_bits = 8), or floats."""
    return INT8 if cfg.kv_bits else FLOATS


def kept(store: Storage, k_parts, v_parts) -> dict:
    """The storage's arrays by name (k_codes, …), the rows themselves left out: what a trace and a cache show."""
    return {f"{m}_{p.name}": a for m, parts in (("k", k_parts), ("v", v_parts))
            for p, a in zip(store.parts, parts) if p.name}
