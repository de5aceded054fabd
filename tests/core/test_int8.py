"""The int8 KV cache (AttentionConfig(kv_bits=8)): each row of K (after RoPE) and of V kept as int8 codes and one
scale, per token and KV head, against a loop-by-loop reference (reference.int8_row): the codes and scales, attention
on the rows they stand for, decoding equal to forward, rows that never change once cached, and the bytes held."""

import numpy as np
import pytest

import mha

from .reference import int8_row, variant_trace

CASES = {
    "post": dict(),
    "gqa rope": dict(n_heads=4, n_kv_heads=2, rotary_dims=4, d_k=5),
    "window sinks alibi": dict(n_heads=2, window=3, sinks=1, alibi=True),
}


def _layer(name, n=9):
    cfg = mha.AttentionConfig(n_tokens=n, seed=4, kv_bits=8, **CASES[name])
    return cfg, mha.init_weights(cfg), mha.init_input(cfg)


def _reference(cfg, w, x, kv_bits):
    fields = {**mha.variant_fields(cfg), "n_kv_heads": cfg.n_kv_heads, "kv_bits": kv_bits}
    ref = variant_trace(x.tolist(), w.w_q.tolist(), w.w_k.tolist(), w.w_v.tolist(), w.w_o.tolist(), **fields)
    return {k: np.array(v, dtype=float) for k, v in ref.items()}


@pytest.mark.parametrize("name", CASES)
def test_codes_and_scales_are_the_rule_applied_row_by_row(name):
    cfg, w, x = _layer(name)
    t, ref = mha.forward(x, w, cfg), _reference(cfg, w, x, 0)  # the float rows, before they are kept
    for codes, scale, rows in ((t.k_codes, t.k_scale, ref["k_rot"]), (t.v_codes, t.v_scale, ref["v"])):
        assert codes.dtype == np.int8 and codes.shape == rows.shape and scale.shape == rows.shape[:2]
        for g in range(rows.shape[0]):
            for i in range(rows.shape[1]):
                want_codes, want_scale = int8_row(rows[g, i].tolist())
                assert codes[g, i].tolist() == want_codes, (g, i)
                assert scale[g, i] == pytest.approx(want_scale, rel=1e-12)
    np.testing.assert_array_equal(t.k_rot, t.k_codes * t.k_scale[..., None])  # what attention read
    np.testing.assert_array_equal(t.v, t.v_codes * t.v_scale[..., None])


def test_a_zero_row_has_scale_zero_and_a_subnormal_row_stays_within_127():
    rows = np.array([[0.0, 0.0, 0.0], [1955 * 5e-324, -5e-324, 0.0], [-1955 * 5e-324, 5e-324, 0.0]])
    with np.errstate(divide="raise", invalid="raise"):  # a zero row divides nothing by 0
        codes, scale = mha.variants.quantize(rows)
    assert codes[0].tolist() == [0, 0, 0] and scale[0] == 0.0
    # 1955 of the smallest subnormal over 127 rounds down to 15 of them: the row asks for code 130, or -130
    assert codes[1].tolist() == [127, 0, 0] and codes[2].tolist() == [-127, 0, 0] and codes.dtype == np.int8
    assert int8_row([1955 * 5e-324, -5e-324, 0.0])[0] == [127, 0, 0]


@pytest.mark.parametrize("name", CASES)
def test_attention_reads_the_dequantised_rows(name):
    cfg, w, x = _layer(name)
    t, ref = mha.forward(x, w, cfg), _reference(cfg, w, x, 8)
    for got, want in ((t.probs, ref["probs"]), (t.heads, ref["heads"]), (t.y, ref["y"])):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    assert np.abs(t.y - mha.forward(x, w, mha.AttentionConfig(**{**vars(cfg), "kv_bits": 0})).y).max() > 0


@pytest.mark.parametrize("name", CASES)
def test_decoding_gives_forwards_rows_and_a_cached_row_never_changes(name):
    cfg, w, x = _layer(name)
    cache, seen = mha.KVCache(w, cfg, capacity=1), {}
    for t, row in enumerate(x):
        step = cache.append(row)
        np.testing.assert_allclose(step.y, mha.forward(x[: t + 1], w, cfg).y[t], rtol=0, atol=1e-12)
        k_codes, v_codes, k_scale, v_scale = (cache.kept[f"{m}_{p}"] for p in ("codes", "scale") for m in "kv")
        for slot, pos in enumerate(cache.positions):  # every row still held is the one kept when it arrived
            now = (k_codes[:, slot].copy(), v_codes[:, slot].copy(), k_scale[:, slot].copy(), v_scale[:, slot].copy())
            for a, b in zip(seen.setdefault(pos, now), now):
                np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(cache.k, k_codes * k_scale[..., None])
    full = mha.forward(x, w, cfg)
    held = cache.positions
    np.testing.assert_array_equal(cache.kept["k_codes"], full.k_codes[:, held])  # the same codes as forward's
    np.testing.assert_array_equal(cache.kept["v_codes"], full.v_codes[:, held])


@pytest.mark.parametrize("name", CASES)
def test_nbytes_counts_the_codes_and_the_scales(name):
    cfg, w, x = _layer(name)
    cache = mha.KVCache(w, cfg)
    for row in x:
        cache.append(row)
    per_row = cfg.d_k + cfg.d_v + 2 * 8  # a byte a code, a float64 scale for the row of K and the row of V
    assert cache.nbytes == len(cache) * cfg.kv_heads * per_row == sum(a.nbytes for a in cache.kept.values())
    plain = mha.KVCache(w, mha.AttentionConfig(**{**vars(cfg), "kv_bits": 0}))
    for row in x:
        plain.append(row)
    assert plain.kept == {} and plain.nbytes == len(plain) * cfg.kv_heads * (cfg.d_k + cfg.d_v) * 8


def test_kv_bits_is_0_or_8():
    with pytest.raises(mha.ConfigError, match="kv_bits must be 0 .* or 8"):
        mha.AttentionConfig(kv_bits=4)
    cfg = mha.AttentionConfig()
    assert cfg.kv_bits == 0 and mha.attention.variant_asked(mha.init_weights(cfg), cfg) is None


def test_a_storage_s_arrays_are_attributes_of_every_trace_and_a_trace_survives_a_copy():
    """The storage's arrays are a trace's `kept`, each also an attribute (None on a float trace); any other missing
    name is an AttributeError; and a trace pickles and copies whole (Streamlit's caches copy what they hand out)."""
    import copy
    import pickle

    cfg, w, x = _layer("post", n=4)
    t8, t = mha.forward(x, w, cfg), mha.forward(x, w)
    assert sorted(t8.kept) == ["k_codes", "k_scale", "v_codes", "v_scale"] and t.kept == {}
    assert t8.k_codes is t8.kept["k_codes"] and t.k_codes is None and t.v_scale is None
    with pytest.raises(AttributeError, match="'Trace' object has no attribute 'k_cods'"):
        _ = t8.k_cods
    for back in (pickle.loads(pickle.dumps(t8)), copy.deepcopy(t8), copy.copy(t8)):
        np.testing.assert_array_equal(back.k_codes, t8.k_codes)
        np.testing.assert_array_equal(back.y, t8.y)


def test_the_storage_counts_what_a_cache_holds_at_any_float_width():
    """variants.Storage.nbytes, which the cost and the cost table read: a float storage `itemsize` a number, int8 a
    byte a number and a float a row; a cache's nbytes (float64) is the same count."""
    floats, int8 = mha.storage(mha.AttentionConfig()), mha.storage(mha.AttentionConfig(kv_bits=8))
    assert floats.nbytes(18, 2, 2) == 36 and int8.nbytes(18, 2, 2) == 18 + 2 * 2
    for name in CASES:
        cfg, w, x = _layer(name)
        for c in (cfg, mha.AttentionConfig(**{**vars(cfg), "kv_bits": 0})):
            cache, _ = mha.decode(x, w, c)
            rows = 2 * len(cache) * c.kv_heads
            assert cache.nbytes == mha.storage(c).nbytes(rows // 2 * (c.d_k + c.d_v), rows, 8)
