"""mha.decode: one loop for every cache. Each step's y is that row of the full forward, for the post's attention,
each variant and MLA, and the cache it returns is the one a loop of appends fills (its length, positions, bytes)."""

import numpy as np
import pytest

import mha

CONFIGS = {
    "post": dict(),
    "gqa window sinks": dict(n_heads=4, n_kv_heads=2, window=3, sinks=1),
    "alibi rope int8": dict(alibi=True, rotary_dims=4, kv_bits=8),
}


@pytest.mark.parametrize("name", CONFIGS)
def test_each_step_is_forwards_row_and_the_cache_is_a_loops(name):
    cfg = mha.AttentionConfig(n_tokens=7, seed=2, **CONFIGS[name])
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    cache, steps = mha.decode(x, w, cfg)
    np.testing.assert_allclose(np.stack([s.y for s in steps]), mha.forward(x, w, cfg).y, rtol=0, atol=1e-12)
    loop = mha.KVCache(w, cfg)
    for row in x:
        loop.append(row)
    assert len(cache) == len(loop) and cache.nbytes == loop.nbytes
    np.testing.assert_array_equal(cache.positions, loop.positions)
    np.testing.assert_array_equal(cache.k, loop.k)


def test_mla_weights_get_a_latent_cache_with_the_same_calls():
    cfg = mha.AttentionConfig(n_tokens=5, seed=1)
    w, x = mha.init_mla(cfg, 3), mha.init_input(cfg)
    cache, steps = mha.decode(x, w)
    assert isinstance(cache, mha.MLACache) and len(cache) == 5 and cache.positions.tolist() == [0, 1, 2, 3, 4]
    assert cache.nbytes == 5 * 3 * 8
    np.testing.assert_allclose(np.stack([s.y for s in steps]), mha.mla_forward(x, w).y, rtol=0, atol=1e-12)
