"""FlashAttention's idea on one head: the causal softmax(qkᵀ/√d_k + M)·v computed with the keys in tiles, never
holding the n×n score matrix.

Each query row keeps three running values while the tiles arrive: m, the largest score seen so far; ℓ, the sum of
exp(score − m) over the keys seen; and acc, the same weights times the value rows. When a tile brings a larger
score, m moves up and the old ℓ and acc are rescaled by exp(m_old − m_new), so every term stays as if the final m
had been known from the start. After the last tile, out = acc / ℓ.
"""

from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, InputError


@dataclass(frozen=True, eq=False)
class Tile:
    """The running state of every query row once keys start..stop−1 have been read."""

    start: int
    stop: int
    scores: np.ndarray  # (n, stop − start) this tile's q·kᵀ/√d_k, −inf where the mask hides a key (j > i)
    m: np.ndarray  # (n,) the largest visible score so far; −inf for a row that has seen no visible key yet
    l: np.ndarray  # (n,) Σ exp(score − m) over the visible keys so far  # noqa: E741 (ℓ, as in the paper)
    acc: np.ndarray  # (n, d_v) Σ exp(score − m)·v_j over the same keys


@dataclass(frozen=True, eq=False)
class OnlineTrace:
    out: np.ndarray  # (n, d_v) acc / ℓ after the last tile: softmax(qkᵀ/√d_k + M)·v
    block: int  # keys per tile
    tiles: tuple[Tile, ...]  # the state after each tile, in order


def online_attention(q, k, v, block: int) -> OnlineTrace:
    """Causal attention of one head, q and k (n, d_k), v (n, d_v), reading the keys `block` at a time."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if q.ndim != 2 or k.shape != q.shape or v.ndim != 2 or len(v) != len(q) or len(q) == 0:
        raise InputError(f"online_attention needs q and k of one shape (n, d_k) and v (n, d_v) with the same n ≥ 1; "
                         f"got q {q.shape}, k {k.shape}, v {v.shape}.")
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ConfigError(f"block (keys per tile) must be a whole number ≥ 1; got {block!r}.")
    n, d_k = q.shape
    rows = np.arange(n)[:, None]
    m, l, acc = np.full(n, -np.inf), np.zeros(n), np.zeros((n, v.shape[1]))  # noqa: E741
    tiles = []
    for start in range(0, n, int(block)):
        stop = min(start + int(block), n)
        cols = np.arange(start, stop)[None, :]
        scores = np.where(cols <= rows, q @ k[start:stop].T / np.sqrt(d_k), -np.inf)  # (n, tile)
        m_new = np.maximum(m, scores.max(axis=1))
        seen = np.isfinite(m_new)  # rows with a visible key so far; the others keep ℓ = 0, acc = 0
        shift = np.where(seen, m_new, 0.0)
        rescale = np.where(np.isfinite(m), np.exp(m - shift), 0.0)  # exp(m_old − m_new); 0 where nothing was seen
        p = np.where(np.isfinite(scores), np.exp(scores - shift[:, None]), 0.0)  # (n, tile)
        l = l * rescale + p.sum(axis=1)  # noqa: E741
        acc = acc * rescale[:, None] + p @ v[start:stop]
        m = m_new
        tiles.append(Tile(start, stop, scores, m, l, acc))
    return OnlineTrace(acc / l[:, None], int(block), tuple(tiles))
