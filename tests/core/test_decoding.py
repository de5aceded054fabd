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


@pytest.mark.parametrize("kv_heads", [4, 2])
@pytest.mark.parametrize("given", [("b_q",), ("b_k", "b_v"), ("b_q", "b_k", "b_v", "b_o")])
def test_a_cache_on_weights_with_some_biases_and_shared_kv_decodes_forwards_rows(kv_heads, given):
    """A checkpoint's biases, some of them only, with 4 query heads and 4 or 2 kv heads: each decoded row is forward's
    (the cache lays the biases out as it lays out W_Q | W_K | W_V, and a missing one adds nothing)."""
    cfg = mha.AttentionConfig(n_tokens=6, seed=5, n_heads=4, n_kv_heads=kv_heads)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    rng = np.random.default_rng(9)
    shapes = dict(b_q=(4, cfg.d_k), b_k=(kv_heads, cfg.d_k), b_v=(kv_heads, cfg.d_v), b_o=(cfg.d_model,))
    biased = mha.Weights(w.w_q, w.w_k, w.w_v, w.w_o, **{b: rng.normal(size=shapes[b]) for b in given})
    want = mha.forward(x, biased, cfg).y
    assert np.abs(want - mha.forward(x, w, cfg).y).max() > 1e-3  # the biases change Y
    _, steps = mha.decode(x, biased, cfg)
    np.testing.assert_allclose(np.stack([s.y for s in steps]), want, rtol=0, atol=1e-12)
