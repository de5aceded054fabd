"""Seeded initialisation, the cache's memory behaviour, and the cost formulas against a direct count."""

import numpy as np
import pytest

import mha


def test_same_seed_same_numbers_other_seed_other_numbers():
    a, b = mha.AttentionConfig(seed=1), mha.AttentionConfig(seed=2)
    np.testing.assert_array_equal(mha.init_input(a), mha.init_input(mha.AttentionConfig(seed=1)))
    np.testing.assert_array_equal(mha.init_weights(a).w_o, mha.init_weights(mha.AttentionConfig(seed=1)).w_o)
    assert not np.allclose(mha.init_input(a), mha.init_input(b))
    assert not np.allclose(mha.init_weights(a).w_q, mha.init_weights(b).w_q)


def test_growing_sizes_keep_what_was_there():
    """More tokens keep earlier rows of X; more heads keep earlier heads' W_Q, W_K, W_V."""
    small, big = mha.AttentionConfig(), mha.AttentionConfig(n_tokens=6, n_heads=4)
    np.testing.assert_array_equal(mha.init_input(big)[:3], mha.init_input(small))
    ws, wb = mha.init_weights(small), mha.init_weights(big)
    for name in ("w_q", "w_k", "w_v"):
        np.testing.assert_array_equal(getattr(wb, name)[:2], getattr(ws, name))
    np.testing.assert_array_equal(mha.next_token(small, 3), mha.init_input(big)[3])


def test_integer_mode_gives_small_whole_numbers():
    cfg = mha.AttentionConfig(init="integers")
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    for a in (x, w.w_q, w.w_k, w.w_v, w.w_o):
        assert np.array_equal(a, np.round(a)) and np.abs(a).max() <= 2
    t = mha.forward(x, w)
    assert np.array_equal(t.scores, np.round(t.scores))  # QKᵀ is checkable on paper


def test_cache_append_is_amortised_constant():
    """Buffers double: 1000 appends reallocate about log2(1000) times, not 1000."""
    cfg = mha.AttentionConfig(n_tokens=1000, d_model=4, d_k=3, d_v=2, n_heads=1)
    cache = mha.KVCache(mha.init_weights(cfg), capacity=1)
    buffers = [cache._kept[0][0]]  # K's buffers, each kept alive: a new one is a new object (ids are not reused)
    for row in mha.init_input(cfg):
        cache.append(row)
        if cache._kept[0][0] is not buffers[-1]:
            buffers.append(cache._kept[0][0])
    assert len(buffers) - 1 == 10  # capacity 1 -> 2 -> 4 -> … -> 1024: ten reallocations for 1000 tokens
    assert cache.nbytes == 1000 * (3 + 2) * 8


def _count_step(cfg, t, cached):
    """Multiply-adds of step t counted product by product (2 FLOPs each)."""
    h, d, dk, dv = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v
    rows = 1 if cached else t  # rows of X pushed through the layer
    products = [
        (rows, d, h * dk), (rows, d, h * dk), (rows, d, h * dv),  # X·W_Q, X·W_K, X·W_V (m, inner, cols)
        (h * rows, dk, t),  # q·Kᵀ
        (h * rows, t, dv),  # S·V
        (rows, h * dv, d),  # Concat·W_O
    ]
    return sum(2 * m * inner * cols for m, inner, cols in products)


@pytest.mark.parametrize("cfg", [mha.AttentionConfig(), mha.AttentionConfig(d_model=768, d_k=64, d_v=64, n_heads=12)])
@pytest.mark.parametrize("t", [1, 2, 3, 17, 512])
def test_cost_matches_a_direct_count(cfg, t):
    c = mha.cost(cfg, t)
    assert c.step_flops_cached == _count_step(cfg, t, cached=True)
    assert c.step_flops_recompute == _count_step(cfg, t, cached=False)
    assert c.gen_flops_cached == sum(_count_step(cfg, s, True) for s in range(1, t + 1))
    assert c.gen_flops_recompute == sum(_count_step(cfg, s, False) for s in range(1, t + 1))
    assert c.cache_bytes == 8 * cfg.n_heads * t * (cfg.d_k + cfg.d_v)
    if t > 1:
        assert c.step_flops_cached < c.step_flops_recompute
        assert c.step_bytes_cached < c.step_bytes_recompute


def test_cache_memory_equals_what_the_cache_holds():
    cfg = mha.AttentionConfig()
    cache = mha.KVCache(mha.init_weights(cfg))
    for row in mha.init_input(cfg):
        cache.append(row)
    assert mha.cost(cfg).cache_bytes == cache.nbytes == cache.k.nbytes + cache.v.nbytes


def _is_cents(a) -> bool:
    """Every value a whole number of hundredths (rounded to 2 decimals)."""
    return bool(np.allclose(np.asarray(a) * 100, np.round(np.asarray(a) * 100), rtol=0, atol=1e-9))


def test_a_gaussian_block_has_the_documented_scales_and_two_decimal_norms_and_biases():
    """W_fc ~ N(0, 1/d_model), W_proj ~ N(0, 1/d_ff); γ − 1, β and the biases ~ N(0, 0.1²) rounded to 2 decimals.
    Wide enough (d_model 200, d_ff 300) that each sample's deviation is within 10% of its scale."""
    cfg = mha.AttentionConfig(d_model=200, d_ff=300, seed=5)
    bw = mha.init_block(cfg)
    assert np.std(bw.w_fc) * np.sqrt(200) == pytest.approx(1.0, rel=0.1)
    assert np.std(bw.w_proj) * np.sqrt(300) == pytest.approx(1.0, rel=0.1)
    for name, a in (("ln1_g", bw.ln1_g - 1), ("ln1_b", bw.ln1_b), ("ln2_g", bw.ln2_g - 1), ("ln2_b", bw.ln2_b),
                    ("b_fc", bw.b_fc), ("b_proj", bw.b_proj)):
        assert _is_cents(a) and not _is_cents(a / 10), name
        assert np.std(a) == pytest.approx(0.1, rel=0.15) and abs(np.mean(a)) < 0.05, name  # γ ≈ 1, β ≈ 0


def test_an_integer_x_holds_floats_so_an_edit_is_kept_as_typed():
    """init="integers": X's rows are whole numbers −2..2, as float64 (an int array would cut an edited 0.5 to 0),
    and each row is next_token's for its position."""
    cfg = mha.AttentionConfig(init="integers", n_tokens=4, d_model=40)
    x = mha.init_input(cfg)
    assert x.dtype == np.float64 and set(np.unique(x).tolist()) == {-2.0, -1.0, 0.0, 1.0, 2.0}
    x[0, 0] = 0.5
    assert x[0, 0] == 0.5
    for i in range(4):
        np.testing.assert_array_equal(mha.attention.next_token(cfg, i), mha.init_input(cfg)[i])


def test_an_integer_block_has_whole_weights_and_plain_norms():
    cfg = mha.AttentionConfig(init="integers", d_ff=13)
    bw = mha.init_block(cfg)
    for a in (bw.w_fc, bw.w_proj):
        assert a.dtype == np.float64 and set(np.unique(a).tolist()) == {-1.0, 0.0, 1.0}
    for a, value in ((bw.ln1_g, 1.0), (bw.ln2_g, 1.0), (bw.ln1_b, 0.0), (bw.ln2_b, 0.0), (bw.b_fc, 0.0),
                     (bw.b_proj, 0.0)):
        assert np.all(a == value)


def test_each_layer_s_block_has_that_layer_s_attention():
    """init_block(cfg, 1) holds init_weights(cfg, 1), not layer 0's; init_model's block l is init_block(cfg, l)."""
    cfg = mha.AttentionConfig(seed=3)
    one = mha.init_block(cfg, 1)
    np.testing.assert_array_equal(one.attn.w_q, mha.init_weights(cfg, 1).w_q)
    mw = mha.init_model(cfg, ["a", "b"], n_layers=3)
    for layer, bw in enumerate(mw.blocks):
        want = mha.init_block(cfg, layer)
        np.testing.assert_array_equal(bw.w_fc, want.w_fc)
        np.testing.assert_array_equal(bw.attn.w_k, want.attn.w_k)


def test_init_model_defaults_to_one_layer_and_64_learned_positions_of_two_decimals():
    cfg = mha.AttentionConfig(d_model=50, seed=2)
    assert mha.init_model(cfg, ["a"]).n_layers == 1 and mha.init_model(cfg, ["a"]).wpe is None
    wpe = mha.init_model(cfg, ["a"], positions="learned").wpe
    assert wpe.shape == (64, 50) and _is_cents(wpe) and not _is_cents(wpe / 10)
    assert np.std(wpe) == pytest.approx(0.1, rel=0.1)
    assert mha.init_model(cfg, ["a"], positions="learned", n_ctx=1).wpe.shape == (1, 50)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(positions="rotary"), mha.ConfigError, r"^positions must be one of sinusoidal, learned; got 'rotary'\.$"),
    (dict(vocab=[]), mha.InputError, r"^The vocabulary is empty: the text needs at least one token\.$"),
    (dict(n_layers=0), mha.ConfigError, r"^n_layers and n_ctx must be at least 1; got 0 and 64\.$"),
    (dict(n_ctx=0), mha.ConfigError, r"^n_layers and n_ctx must be at least 1; got 1 and 0\.$"),
])
def test_init_model_refuses_in_words(kwargs, error, words):
    with pytest.raises(error, match=words):
        mha.init_model(mha.AttentionConfig(), **{"vocab": ["a"], **kwargs})
