"""One decode loop for every cache: a sequence fed one token at a time.

A cache here is an mha.KVCache (the post's attention or any variant of AttentionConfig) or an mha.MLACache. Both
take the same calls: append(x_row) -> the token's step (its y among them), len(cache) (tokens held), cache.nbytes
(bytes held) and cache.positions (the positions held, from 0)."""

import numpy as np

from .attention import Weights
from .cache import KVCache
from .config import AttentionConfig
from .mla import MLACache, MLAWeights


def decode(x, w: Weights | MLAWeights, cfg: AttentionConfig | None = None) -> tuple[KVCache | MLACache, list]:
    """x's rows (n, d_model) fed one at a time to a new cache for w: an MLACache for MLA's weights, else a KVCache
    with cfg's variant (none: the post's attention). (The cache after the last row, each row's step.)"""
    rows = np.asarray(x, dtype=float)
    capacity = max(1, len(rows))
    cache = MLACache(w, capacity) if isinstance(w, MLAWeights) else KVCache(w, cfg, capacity=capacity)
    return cache, [cache.append(row) for row in rows]
