"""KVCache's contract beyond y and S: every field of a decoded step against the loop reference for each variant
(GQA, a window with sinks, ALiBi, RoPE), a cache made smaller than what it must hold, read-only views, and the
refusals in words. Written where mutation testing (bench/mutation.sh) found changes to mha/cache.py that no test
noticed."""

import warnings

import numpy as np
import pytest

import mha

from .reference import variant_trace, visible

VARIANTS = {
    "plain": dict(),
    "gqa": dict(n_heads=4, n_kv_heads=2),
    "mqa window sinks": dict(n_heads=4, n_kv_heads=1, window=3, sinks=1),
    "alibi rope": dict(n_heads=2, alibi=True, rotary_dims=4),
    "window alibi rope gqa": dict(n_heads=4, n_kv_heads=2, window=2, sinks=2, alibi=True, rotary_dims=2),
    "int8": dict(kv_bits=8),
    "int8 window rope gqa": dict(n_heads=4, n_kv_heads=2, window=3, sinks=1, rotary_dims=2, kv_bits=8),
}


def _setup(name):
    cfg = mha.AttentionConfig(n_tokens=8, d_model=5, d_k=4, d_v=3, seed=11, **VARIANTS[name])
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    ref = variant_trace(x.tolist(), w.w_q.tolist(), w.w_k.tolist(), w.w_v.tolist(), w.w_o.tolist(),
                        **{f: getattr(cfg, f) for f in mha.VARIANT_FIELDS})
    return cfg, w, x, {k: np.array(v, dtype=float) for k, v in ref.items()}


@pytest.mark.parametrize("capacity", [0, 1, 16])
@pytest.mark.parametrize("name", VARIANTS)
def test_every_field_of_each_step_is_the_references_row(name, capacity):
    """Step t's x, q, k, v, q_rot, k_rot, scores (q_rot·k over the keys held), scaled (÷ √d_k plus ALiBi's bias),
    probs, heads, concat and y are row t of the loop reference, read at the keys the window keeps, whatever
    capacity the cache starts with; the cache's K, V and positions are those keys'."""
    cfg, w, x, ref = _setup(name)
    cache = mha.KVCache(w, cfg, capacity=capacity)
    h, n_kv, d_k = cfg.n_heads, cfg.kv_heads, cfg.d_k
    group = h // n_kv
    for t, row in enumerate(x):
        s = cache.append(row)
        held = [j for j in range(t + 1) if visible(t, j, cfg.window, cfg.sinks)]
        assert s.t == len(held) == len(cache) and s.pos == t and s.held.tolist() == held
        np.testing.assert_array_equal(s.x, x[t])
        for got, want, what in ((s.q, ref["q"][:, t], "q"), (s.k, ref["k_rot"][:, t], "k"),
                                (s.v, ref["v"][:, t], "v"), (s.q_rot, ref["q_rot"][:, t], "q_rot"),
                                (s.k_rot, ref["k_rot"][:, t], "k_rot"),
                                (s.scores, ref["scores"][:, t, held], "scores"),
                                (s.scaled, ref["scores"][:, t, held] / np.sqrt(d_k) + ref["bias"][:, t, held],
                                 "scaled"),
                                (s.bias, ref["bias"][:, t, held], "bias"),
                                (s.probs, ref["probs"][:, t, held], "probs"),
                                (s.heads, ref["heads"][:, t], "heads"),
                                (s.concat, ref["heads"][:, t].reshape(-1), "concat"),
                                (s.y, ref["y"][t], "y")):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"{what} at {t}")
        np.testing.assert_allclose(cache.k, ref["k_rot"][:, held], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(cache.v, ref["v"][:, held], rtol=1e-12, atol=1e-12)
        assert cache.positions.tolist() == held
        per_row = (d_k + cfg.d_v) * 8 if not cfg.kv_bits else d_k + cfg.d_v + 2 * 8  # int8: a byte a code, 2 scales
        assert cache.nbytes == len(held) * n_kv * per_row
    assert group * n_kv == h


@pytest.mark.parametrize("name", ["mqa window sinks", "int8 window rope gqa"])
def test_the_cache_s_views_are_read_only(name):
    """K, V, the positions, a step's held positions and what an int8 cache keeps (codes and scales): writing into
    them raises instead of corrupting the cache."""
    cfg, w, x, _ = _setup(name)
    cache = mha.KVCache(w, cfg)
    step = [cache.append(row) for row in x][-1]
    assert sorted(cache.kept) == ([] if not cfg.kv_bits else ["k_codes", "k_scale", "v_codes", "v_scale"])
    for a in (cache.k, cache.v, cache.positions, step.held, *cache.kept.values()):
        with pytest.raises(ValueError):
            a.flat[0] = 0


def test_a_windowed_cache_keeps_room_for_its_window_however_long_the_text():
    """A window of 3 with 1 sink: sinks + window + 1 rows (the new token arrives before the oldest other leaves),
    never more over 40 tokens, whatever capacity is asked (a smaller one grows to it); without a window, the
    capacity asked (at least a row, 16 unless told), doubled whenever it is full."""
    cfg = mha.AttentionConfig(n_tokens=40, d_model=5, d_k=4, d_v=3, n_heads=4, n_kv_heads=1, window=3, sinks=1)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    for asked, want in ((0, [1, 2, 4, 5]), (2, [2, 4, 5]), (64, [5])):
        cache = mha.KVCache(w, cfg, capacity=asked)
        rooms = [cache.capacity]
        for row in x:
            cache.append(row)
            rooms.append(cache.capacity)
        assert sorted(set(rooms)) == want and len(cache) == 4, (asked, rooms)
    plain = mha.init_weights(mha.AttentionConfig())
    assert mha.KVCache(plain).capacity == 16 and mha.KVCache(plain, capacity=0).capacity == 1
    cache, rooms = mha.KVCache(plain, capacity=1), []
    for row in mha.init_input(mha.AttentionConfig(n_tokens=5)):
        cache.append(row)
        rooms.append(cache.capacity)
    assert rooms == [1, 2, 4, 4, 8]


def test_weights_are_read_as_their_own_variant_without_a_config():
    """GQA weights without a cfg: the cache finds the shared K and V from the weights' shapes."""
    cfg, w, x, ref = _setup("gqa")
    cache = mha.KVCache(w)
    for t, row in enumerate(x):
        np.testing.assert_allclose(cache.append(row).y, ref["y"][t], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("row", [["a"] * 5, [[1.0, 2.0], [3.0]]], ids=["words", "ragged"])
def test_a_token_row_that_is_no_numbers_is_refused_in_words(row):
    w = mha.init_weights(mha.AttentionConfig())
    with pytest.raises(mha.InputError, match=r"^The token row must hold numbers only \(.+\)\.$"):
        mha.KVCache(w).append(row)


def test_a_row_of_ints_is_decoded_as_floats():
    cfg, w, x, _ = _setup("plain")
    ints = np.round(x[0] * 3).astype(int)
    a, b = mha.KVCache(w).append(ints.tolist()), mha.KVCache(w).append(ints.astype(float))
    np.testing.assert_array_equal(a.y, b.y)
    assert a.x.dtype == np.float64


def test_an_output_that_overflows_alone_is_refused_and_leaves_the_cache_as_it_was():
    """W_O × 1e306: the scores are finite, Y is not. The step is refused in words; nothing is added."""
    cfg, w, x, _ = _setup("plain")
    big = mha.Weights(w.w_q, w.w_k, w.w_v, w.w_o * 1e306)
    cache = mha.KVCache(big)
    with pytest.raises(mha.InputError, match=r"^This token's values overflow float64: scale it down \(\|x\| below "
                                             r"1e100\)\.$"):
        cache.append(x[0] * 1e4)
    assert len(cache) == 0


def test_positions_are_whole_numbers_a_caller_can_index_with():
    """cache.positions and step.held index the full trace's keys directly (floats would raise IndexError)."""
    cfg, w, x, ref = _setup("mqa window sinks")
    cache = mha.KVCache(w, cfg, capacity=0)
    for t, row in enumerate(x):
        step = cache.append(row)
        assert np.issubdtype(step.held.dtype, np.integer) and np.issubdtype(cache.positions.dtype, np.integer)
        np.testing.assert_allclose(step.probs, ref["probs"][:, t][:, step.held], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kv_heads", [3, 1])
def test_a_cache_without_a_config_describes_the_weights_it_holds(kv_heads):
    """KVCache(w).cfg: the weights' heads, kv heads and d_k, no variant (shared K and V too, where the cache builds
    the config the variant walk needs)."""
    w = mha.init_weights(mha.AttentionConfig(n_heads=3, d_k=4, n_kv_heads=kv_heads))
    cfg = mha.KVCache(w).cfg
    assert (cfg.n_heads, cfg.d_k, cfg.kv_heads, cfg.window, cfg.alibi, cfg.rotary_dims) == (3, 4, kv_heads, 0, False, 0)


def test_an_overflowing_token_is_refused_without_a_floating_point_warning():
    """x × 1e200: the scores overflow (and inf − inf in the softmax): one InputError, and no RuntimeWarning from
    numpy on the way (the app would show those as noise)."""
    cfg, w, x, _ = _setup("plain")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(mha.InputError, match="^This token's values overflow float64"):
            mha.KVCache(w).append(x[0] * 1e200)
