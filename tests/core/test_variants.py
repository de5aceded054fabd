"""The variant lab's core (GQA/MQA, a window with sinks, ALiBi, RoPE, MLA) against the loop reference written from the
issue-34 contract, on random shapes: forward and its trace, init_weights, the KV cache, RoPE's relative positions,
MLA's two orders, and the config's refusals."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha

from .reference import alibi_slopes, mla_attention, rope, variant_trace, visible
from .strategies import configs


def divisors(h):
    return [g for g in range(1, h + 1) if h % g == 0]


@st.composite
def variant_configs(draw, max_tokens=7, max_dim=6, heads=None, n_kv_heads=None, alibi=None, kv_bits=None):
    """Random sizes and any combination of the new fields; heads, n_kv_heads, alibi, kv_bits: strategies that pin
    them."""
    n, d_k = draw(st.integers(1, max_tokens)), draw(st.integers(1, max_dim))
    h = draw(st.integers(1, 6) if heads is None else heads)
    window = draw(st.integers(0, n))
    return mha.AttentionConfig(
        n_tokens=n, d_model=draw(st.integers(1, max_dim)), d_k=d_k, d_v=draw(st.integers(1, max_dim)), n_heads=h,
        seed=draw(st.integers(0, 2**32 - 1)),
        n_kv_heads=draw(n_kv_heads if n_kv_heads is not None else st.sampled_from([0, *divisors(h)])),
        window=window, sinks=draw(st.integers(0, n)) if window else 0,
        alibi=draw(st.booleans() if alibi is None else alibi),
        rotary_dims=draw(st.sampled_from(range(0, d_k + 1, 2))),
        rope_base=draw(st.sampled_from([10000.0, 100.0, 2.0]) | st.floats(0.5, 1e6)),
        kv_bits=draw(st.sampled_from(mha.config.KV_BITS) if kv_bits is None else kv_bits),
    )


def _layer(cfg):
    return mha.init_weights(cfg), mha.init_input(cfg)


def _reference(cfg, w, x):
    return variant_trace(x.tolist(), w.w_q.tolist(), w.w_k.tolist(), w.w_v.tolist(), w.w_o.tolist(),
                         **{f: getattr(cfg, f) for f in mha.VARIANT_FIELDS})


def _n_kv(cfg):
    return cfg.n_kv_heads or cfg.n_heads


def _held(i, cfg):
    """The keys query i reads, in order of position."""
    return [j for j in range(i + 1) if visible(i, j, cfg.window, cfg.sinks)]


def _close(got, want, name, atol=1e-10):
    want = np.array(want, dtype=float)
    assert np.shape(got) == want.shape, (name, np.shape(got), want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=atol, err_msg=name)


# forward against the reference


def _check_forward(cfg):
    w, x = _layer(cfg)
    t, ref = mha.forward(x, w, cfg), _reference(cfg, w, x)
    for name in ("q", "k", "v", "q_rot", "k_rot", "scores", "bias", "probs", "heads", "y"):
        _close(getattr(t, name), ref[name], name)
    return t


@settings(max_examples=300, deadline=None)
@given(variant_configs())
def test_forward_equals_the_reference_for_every_variant_and_combination(cfg):
    _check_forward(cfg)


@settings(max_examples=60, deadline=None)
@given(variant_configs(heads=st.just(4), n_kv_heads=st.sampled_from([1, 2])))
def test_gqa_with_four_heads_and_one_or_two_kv_heads(cfg):
    """Query head a reads KV head a // (4 / n_kv): its H is its own S times that head's V."""
    t = _check_forward(cfg)
    group = 4 // cfg.n_kv_heads
    assert t.k.shape[0] == t.v.shape[0] == t.k_rot.shape[0] == cfg.n_kv_heads
    for a in range(4):
        np.testing.assert_allclose(t.heads[a], t.probs[a] @ t.v[a // group], rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n), st.integers(0, n))),
       st.integers(0, 2**16))
def test_a_window_from_1_to_n_with_sinks_is_a_band_plus_sink_columns(shape, seed):
    n, window, sinks = shape
    cfg = mha.AttentionConfig(n_tokens=n, d_model=3, d_k=2, d_v=3, n_heads=2, seed=seed, window=window, sinks=sinks)
    t = _check_forward(cfg)
    seen = np.array([[visible(i, j, window, sinks) for j in range(n)] for i in range(n)])
    assert seen.sum(1).max() == min(n, window + sinks)  # the widest row: the band and the sinks, or every key
    for a in range(2):
        np.testing.assert_array_equal(t.bias[a] == -np.inf, ~seen)
        assert np.all(t.probs[a][~seen] == 0.0)
        assert np.all(t.bias[a][seen] == 0.0)


def test_a_window_of_one_reads_only_the_token_itself_and_a_window_of_n_is_plain_attention():
    cfg = mha.AttentionConfig(n_tokens=5, n_heads=2)
    w, x = _layer(cfg)
    one = mha.forward(x, w, mha.AttentionConfig(n_tokens=5, n_heads=2, window=1))
    np.testing.assert_array_equal(one.probs, np.broadcast_to(np.eye(5), (2, 5, 5)))
    np.testing.assert_allclose(one.heads, one.v, rtol=0, atol=0)
    whole = mha.forward(x, w, mha.AttentionConfig(n_tokens=5, n_heads=2, window=5))
    np.testing.assert_allclose(whole.y, mha.forward(x, w).y, rtol=0, atol=1e-13)


# ALiBi


SLOPES = {  # worked by hand from the paper's rule, not from the reference's code
    1: [2**-8],
    2: [2**-4, 2**-8],
    3: [2**-4, 2**-8, 2**-2],
    4: [2**-2, 2**-4, 2**-6, 2**-8],
    5: [2**-2, 2**-4, 2**-6, 2**-8, 2**-1],
    6: [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3],
    7: [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3, 2**-5],
    8: [2.0**-k for k in range(1, 9)],
    12: [2.0**-k for k in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5],
}


@pytest.mark.parametrize("h", sorted(SLOPES))
def test_the_slopes_follow_the_papers_rule(h):
    np.testing.assert_allclose(alibi_slopes(h), SLOPES[h], rtol=1e-15)
    np.testing.assert_allclose(mha.alibi_slopes(h), SLOPES[h], rtol=1e-15)


@pytest.mark.parametrize("h", sorted(SLOPES))
def test_forward_adds_minus_m_h_times_the_distance(h):
    """Power-of-two head counts and the others: bias[a, i, j] = −m_a·(i − j) below the diagonal, −inf above."""
    cfg = mha.AttentionConfig(n_tokens=4, d_model=3, d_k=2, d_v=2, n_heads=h, alibi=True)
    t = _check_forward(cfg)
    distance = np.subtract.outer(np.arange(4), np.arange(4)).astype(float)
    want = np.where(distance >= 0, -np.array(SLOPES[h])[:, None, None] * distance, -np.inf)
    np.testing.assert_allclose(t.bias, want, rtol=1e-15, atol=0)


# the trace's new fields


@settings(max_examples=60, deadline=None)
@given(variant_configs())
def test_the_trace_is_q_rot_k_rot_then_scaled_plus_bias(cfg):
    w, x = _layer(cfg)
    t = mha.forward(x, w, cfg)
    h, n, group = cfg.n_heads, cfg.n_tokens, cfg.n_heads // _n_kv(cfg)
    assert t.q.shape == t.q_rot.shape == (h, n, cfg.d_k)
    assert t.k.shape == t.k_rot.shape == (_n_kv(cfg), n, cfg.d_k) and t.v.shape == (_n_kv(cfg), n, cfg.d_v)
    assert t.bias.shape == t.scores.shape == t.scaled.shape == t.masked.shape == (h, n, n)
    want = np.stack([t.q_rot[a] @ t.k_rot[a // group].T for a in range(h)])
    np.testing.assert_allclose(t.scores, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t.scaled, t.scores / math.sqrt(cfg.d_k), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(t.masked, t.scaled + t.bias)
    if cfg.kv_bits:  # int8: K_rot is what attention read back from its codes, within half a step of each row's scale
        np.testing.assert_array_equal(t.k_rot, t.k_codes * t.k_scale[..., None])
        if cfg.rotary_dims == 0:
            assert np.all(np.abs(t.k_rot - t.k) <= t.k_scale[..., None] / 2 * (1 + 1e-9))
    elif cfg.rotary_dims == 0:
        np.testing.assert_array_equal(t.q_rot, t.q)
        np.testing.assert_array_equal(t.k_rot, t.k)
    else:  # the dims past rotary_dims pass through untouched
        np.testing.assert_array_equal(t.q_rot[..., cfg.rotary_dims:], t.q[..., cfg.rotary_dims:])
        np.testing.assert_array_equal(t.k_rot[..., cfg.rotary_dims:], t.k[..., cfg.rotary_dims:])


def test_a_plain_config_keeps_todays_trace():
    cfg = mha.AttentionConfig()
    w, x = _layer(cfg)
    t = mha.forward(x, w, cfg)
    np.testing.assert_array_equal(t.bias, np.broadcast_to(mha.causal_mask(3), (2, 3, 3)))
    for name in ("q", "k", "v", "scores", "scaled", "masked", "probs", "heads", "concat", "y"):
        np.testing.assert_array_equal(getattr(t, name), getattr(mha.forward(x, w), name), err_msg=name)


# init_weights


def _before_the_variants(cfg) -> tuple[mha.Weights, np.ndarray]:
    """init_weights and init_input as main wrote them before the variants (613a4c9), kept here as the reference: one
    random stream per head for its W_Q, W_K, W_V side by side, one for W_O, one per token row; N(0, 1/fan_in) weights
    and N(0, 1) rows rounded to 2 decimals, or whole numbers."""
    def draw(rng, rows, cols):
        if cfg.init == "integers":
            return rng.integers(-1, 2, size=(rows, cols)).astype(np.float64)
        return rng.standard_normal((rows, cols)) / np.sqrt(rows)

    streams, inputs = 0, 1  # the seed's streams for weights and for X
    qkv = np.stack([draw(np.random.default_rng([cfg.seed, streams, i]), cfg.d_model, 2 * cfg.d_k + cfg.d_v)
                    for i in range(cfg.n_heads)])
    w_o = draw(np.random.default_rng([cfg.seed, streams, cfg.n_heads, cfg.d_v]), cfg.n_heads * cfg.d_v, cfg.d_model)
    rows = []
    for i in range(cfg.n_tokens):
        rng = np.random.default_rng([cfg.seed, inputs, i])
        rows.append(rng.integers(-2, 3, size=cfg.d_model).astype(np.float64) if cfg.init == "integers"
                    else np.round(rng.standard_normal(cfg.d_model), 2))
    d_k = cfg.d_k
    return mha.Weights(qkv[..., :d_k], qkv[..., d_k:2 * d_k], qkv[..., 2 * d_k:], w_o), np.stack(rows)


@pytest.mark.parametrize("sizes", [dict(), dict(n_tokens=6, d_model=4, d_k=3, d_v=5, n_heads=4, seed=7),
                                   dict(n_heads=6, seed=12345, init="integers")])
def test_every_new_field_at_its_default_gives_todays_weights_and_input(sizes):
    """Bit for bit against the code before the variants, both computed in this run (no digest from one machine)."""
    cfg = mha.AttentionConfig(**sizes, n_kv_heads=0, window=0, sinks=0, alibi=False, rotary_dims=0, rope_base=10000.0)
    (w, x), (w0, x0) = _layer(cfg), _before_the_variants(cfg)
    for name, a, b in zip(("w_q", "w_k", "w_v", "w_o", "x"), (w.w_q, w.w_k, w.w_v, w.w_o, x),
                          (w0.w_q, w0.w_k, w0.w_v, w0.w_o, x0)):
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), name


@settings(max_examples=60, deadline=None)
@given(variant_configs(max_tokens=4, max_dim=5, heads=st.integers(1, 8)))
def test_kv_head_g_has_the_first_weights_of_its_group_and_the_rest_is_the_plain_layer(cfg):
    plain = mha.AttentionConfig(n_tokens=cfg.n_tokens, d_model=cfg.d_model, d_k=cfg.d_k, d_v=cfg.d_v,
                                n_heads=cfg.n_heads, seed=cfg.seed)
    w, p = mha.init_weights(cfg), mha.init_weights(plain)
    n_kv = _n_kv(cfg)
    assert w.w_k.shape == (n_kv, cfg.d_model, cfg.d_k) and w.w_v.shape == (n_kv, cfg.d_model, cfg.d_v)
    first = np.arange(n_kv) * (cfg.n_heads // n_kv)
    np.testing.assert_array_equal(w.w_k, p.w_k[first])
    np.testing.assert_array_equal(w.w_v, p.w_v[first])
    np.testing.assert_array_equal(w.w_q, p.w_q)
    np.testing.assert_array_equal(w.w_o, p.w_o)
    np.testing.assert_array_equal(mha.init_input(cfg), mha.init_input(plain))


# the KV cache


@settings(max_examples=200, deadline=None)
@given(variant_configs(max_tokens=10, max_dim=5, heads=st.integers(1, 4)))
def test_cached_decode_equals_forward_and_holds_only_what_the_next_query_reads(cfg):
    w, x = _layer(cfg)
    full = mha.forward(x, w, cfg)
    cache = mha.KVCache(w, cfg)
    n_kv, before = _n_kv(cfg), []
    for i, row in enumerate(x):
        step = cache.append(row)
        held = _held(i, cfg)
        assert step.pos == i and list(step.held) == held
        np.testing.assert_allclose(step.y, full.y[i], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(step.probs, full.probs[:, i, held], rtol=1e-10, atol=1e-12)
        assert len(cache) == len(held) == (min(i + 1, cfg.sinks + cfg.window) if cfg.window else i + 1)
        per_row = cfg.d_k + cfg.d_v + 2 * 8 if cfg.kv_bits else (cfg.d_k + cfg.d_v) * 8  # int8: codes, two scales
        assert cache.nbytes == len(held) * n_kv * per_row
        assert cache.k.shape == (n_kv, len(held), cfg.d_k) and cache.v.shape == (n_kv, len(held), cfg.d_v)
        np.testing.assert_allclose(cache.v, full.v[:, held], rtol=1e-12, atol=1e-12)
        if cfg.kv_bits:  # the rows attention read, from the same codes
            np.testing.assert_allclose(cache.k, full.k_rot[:, held], rtol=1e-12, atol=1e-12)
        elif cfg.rotary_dims == 0:
            np.testing.assert_allclose(cache.k, full.k[:, held], rtol=1e-12, atol=1e-12)
        left = sorted((set(before) | {i}) - set(held))
        assert left == ([min(j for j in before if j >= cfg.sinks)] if left else [])  # the oldest non-sink
        before = held


def test_the_cache_s_length_stays_at_sinks_plus_window_as_the_oldest_leave():
    cfg = mha.AttentionConfig(n_tokens=9, n_heads=2, window=3, sinks=2)
    w, x = _layer(cfg)
    cache = mha.KVCache(w, cfg)
    helds = [list(cache.append(row).held) for row in x]
    assert [len(h) for h in helds] == [1, 2, 3, 4, 5, 5, 5, 5, 5]
    assert helds[-1] == [0, 1, 6, 7, 8] and helds[5] == [0, 1, 3, 4, 5]
    assert len(cache) == 5 and cache.nbytes == 5 * 2 * (7 + 11) * 8


@pytest.mark.parametrize("n_kv, floats", [(0, 36), (2, 36), (1, 18)])
def test_the_post_s_cache_per_token_drops_from_36_to_18_floats(n_kv, floats):
    cfg = mha.AttentionConfig(n_kv_heads=n_kv)
    w, x = _layer(cfg)
    cache = mha.KVCache(w, cfg)
    cache.append(x[0])
    assert cache.nbytes == floats * 8


# RoPE's relative positions


def test_the_reference_rope_pairs_neighbouring_dims():
    """Interleaved: dims 0 and 1 turn together by pos·θ₀ = pos, dims 2 and 3 by pos·100^(−1/2)."""
    np.testing.assert_allclose(rope([1.0, 0.0, 0.0, 0.0], 1, 4, 100.0), [math.cos(1), math.sin(1), 0, 0], atol=1e-15)
    np.testing.assert_allclose(rope([0.0, 0.0, 0.0, 1.0], 2, 4, 100.0), [0, 0, -math.sin(0.2), math.cos(0.2)],
                               atol=1e-15)
    assert rope([1.0, 2.0, 3.0], 5, 2, 10000.0)[2] == 3.0
    assert rope([1.0, 2.0, 3.0], 0, 2, 10000.0) == [1.0, 2.0, 3.0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).map(lambda p: 2 * p), st.integers(0, 40), st.integers(0, 40), st.integers(-20, 60),
       st.floats(1.5, 1e5), st.integers(0, 2**16))
def test_the_reference_rope_score_depends_only_on_the_distance(dims, i, j, shift, base, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(dims + 1).tolist(), rng.standard_normal(dims + 1).tolist()

    def score(a, b):
        return sum(u * v for u, v in zip(rope(q, a, dims, base), rope(k, b, dims, base)))

    assert score(i + shift, j + shift) == pytest.approx(score(i, j), rel=1e-9, abs=1e-9)
    assert math.hypot(*rope(q, i, dims, base)) == pytest.approx(math.hypot(*q), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(variant_configs(max_tokens=8, alibi=st.just(False), kv_bits=st.just(0)), st.data())
def test_with_identical_tokens_rope_scores_are_toeplitz_and_a_shift_changes_nothing(cfg, data):
    """Every row of X the same token: S[i, j] depends only on i − j, and the scores of positions c.. equal those of
    0.. (shifting every position by c). With float K only: an int8 cache rounds each turned key on its own scale."""
    w, x = _layer(cfg)
    same = np.broadcast_to(x[0], x.shape).copy()
    s = mha.forward(same, w, cfg).scores
    n = cfg.n_tokens
    np.testing.assert_allclose(s[:, 1:, 1:], s[:, :-1, :-1], rtol=1e-9, atol=1e-10)
    c = data.draw(st.integers(0, n - 1), label="shift")
    np.testing.assert_allclose(s[:, c:, c:], s[:, : n - c, : n - c], rtol=1e-9, atol=1e-10)


def test_rope_really_turns_the_post_s_first_six_dims():
    """At d_k = 7, rotary_dims 6: the last dim passes, position 0 is left alone, and later positions turn."""
    cfg = mha.AttentionConfig(rotary_dims=6)
    w, x = _layer(cfg)
    t = mha.forward(x, w, cfg)
    np.testing.assert_array_equal(t.q_rot[:, 0], t.q[:, 0])
    assert not np.allclose(t.q_rot[:, 1:, :6], t.q[:, 1:, :6])
    np.testing.assert_allclose(np.linalg.norm(t.q_rot, axis=-1), np.linalg.norm(t.q, axis=-1), rtol=1e-12)
    _check_forward(cfg)


# MLA


@settings(max_examples=60, deadline=None)
@given(configs(max_tokens=6, max_dim=6, max_heads=4), st.integers(1, 6))
def test_mla_both_orders_and_its_latent_cache_equal_the_naive_reference(cfg, d_latent):
    x = mha.init_input(cfg)
    w = mha.init_mla(cfg, d_latent)
    h = cfg.n_heads
    assert w.w_q.shape == (h, cfg.d_model, cfg.d_k) and w.w_dkv.shape == (cfg.d_model, d_latent)
    assert w.w_uk.shape == (h, d_latent, cfg.d_k) and w.w_uv.shape == (h, d_latent, cfg.d_v)
    assert w.w_o.shape == (h * cfg.d_v, cfg.d_model)
    tr = mha.mla_forward(x, w)
    c, _, _, y = mla_attention(x.tolist(), w.w_q.tolist(), w.w_dkv.tolist(), w.w_uk.tolist(), w.w_uv.tolist(),
                               w.w_o.tolist())
    _close(tr.latent, c, "latent")
    _close(tr.y, y, "y")
    np.testing.assert_allclose(tr.y_absorbed, tr.y, rtol=1e-9, atol=1e-10)
    cache = mha.MLACache(w)  # decoding keeps the latent rows only: d_latent floats per token for all heads
    for i, row in enumerate(x):
        step = cache.append(row)
        np.testing.assert_allclose(step.y, y[i], rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(step.latent, c[i], rtol=1e-12, atol=1e-12)
        assert len(cache) == i + 1 and cache.nbytes == (i + 1) * d_latent * 8


# refusals


@pytest.mark.parametrize(
    "fields, field",
    [
        (dict(n_heads=4, n_kv_heads=3), "n_kv_heads"),
        (dict(n_heads=2, n_kv_heads=4), "n_kv_heads"),
        (dict(n_kv_heads=-1), "n_kv_heads"),
        (dict(d_k=7, rotary_dims=3), "rotary_dims"),
        (dict(d_k=7, rotary_dims=8), "rotary_dims"),
        (dict(d_k=4, rotary_dims=6), "rotary_dims"),
        (dict(rotary_dims=-2), "rotary_dims"),
        (dict(window=-1), "window"),
        (dict(window=2, sinks=-1), "sinks"),
        (dict(rope_base=0.0), "rope_base"),
        (dict(rope_base=-10000.0), "rope_base"),
    ],
)
def test_a_variant_field_out_of_range_is_refused_by_name(fields, field):
    with pytest.raises(mha.ConfigError, match=field):
        mha.AttentionConfig(**fields)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), d_model=st.integers(1, 6), d_k=st.integers(1, 5), d_v=st.integers(1, 5),
       h=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2**16))
def test_mla_from_rebuilds_k_and_v_exactly_once_the_latent_holds_x_rank(n, d_model, d_k, d_v, h, seed):
    """mha.mla_from cuts every head's [W_K | W_V] to rank d_latent: at d_latent = d_model it is MHA itself, and
    one number fewer than the rank loses something (the SVD's error is its next singular value)."""
    cfg = mha.AttentionConfig(n_tokens=n, d_model=d_model, d_k=d_k, d_v=d_v, n_heads=h, seed=seed)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    full = mha.forward(x, w)
    exact = mha.mla_forward(x, mha.mla_from(w, d_model))
    np.testing.assert_allclose(exact.y, full.y, atol=1e-9)
    np.testing.assert_allclose(exact.k, full.k, atol=1e-9)
    wide = np.concatenate([w.w_k, w.w_v], axis=2).transpose(1, 0, 2).reshape(d_model, -1)
    sigma = np.linalg.svd(wide, compute_uv=False)
    if len(sigma) > 1 and sigma[-1] > 1e-6:
        cut = mha.mla_from(w, len(sigma) - 1)
        rebuilt = np.concatenate([cut.w_uk, cut.w_uv], axis=2).transpose(1, 0, 2).reshape(len(sigma) - 1, -1)
        assert np.linalg.norm(cut.w_dkv @ rebuilt - wide, 2) == pytest.approx(sigma[-1], rel=1e-9)


@pytest.mark.parametrize("h, n_kv", [(2, 1), (4, 2), (4, 1), (6, 3)])
def test_share_kv_is_how_init_weights_groups_heads(h, n_kv):
    plain = mha.init_weights(mha.AttentionConfig(n_heads=h, seed=3))
    grouped = mha.init_weights(mha.AttentionConfig(n_heads=h, n_kv_heads=n_kv, seed=3))
    shared = mha.share_kv(plain, n_kv)
    for name in ("w_q", "w_k", "w_v", "w_o"):
        np.testing.assert_array_equal(getattr(shared, name), getattr(grouped, name))
    group = h // n_kv
    for g in range(n_kv):  # KV head g is query head g·group's own K and V
        np.testing.assert_array_equal(shared.w_k[g], plain.w_k[g * group])
        np.testing.assert_array_equal(shared.w_v[g], plain.w_v[g * group])
    for wrong in (h + 1, 2 * h, 0, -n_kv):
        with pytest.raises(mha.ConfigError, match="n_kv_heads"):
            mha.share_kv(plain, wrong)


def test_share_kv_keeps_each_groups_first_biases_and_every_other_bias():
    """Biased weights (a GPT-2 layer's): a kv head's b_K and b_V are its group's first query head's, b_Q and b_O
    stay whole, and a bias the weights lack stays missing."""
    plain = mha.init_weights(mha.AttentionConfig(n_heads=4, d_k=3, d_v=2, seed=5))
    rng = np.random.default_rng(0)
    b_q, b_k, b_v, b_o = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), rng.normal(size=5)
    for has in ("qkvo", "kv", "o"):
        w = mha.Weights(plain.w_q, plain.w_k, plain.w_v, plain.w_o, *(b if name in has else None for name, b in
                                                                        zip("qkvo", (b_q, b_k, b_v, b_o))))
        shared = mha.share_kv(w, 2)
        for name, kept in (("b_q", b_q), ("b_k", b_k[[0, 2]]), ("b_v", b_v[[0, 2]]), ("b_o", b_o)):
            got = getattr(shared, name)
            if name[-1] in has:
                np.testing.assert_array_equal(got, kept, err_msg=f"{name} with {has}")
            else:
                assert got is None, (name, has)


@pytest.mark.parametrize("n, window", [(6, 0), (6, 2), (5, 3)])
def test_visible_defaults_to_no_window_and_no_sinks(n, window):
    """visible(n) is the causal mask; visible(n, window) keeps no sinks: key 0 leaves the window like any other."""
    want = np.array([[j <= i and (not window or j > i - window) for j in range(n)] for i in range(n)])
    np.testing.assert_array_equal(mha.variants.visible(n, window) if window else mha.variants.visible(n), want)


def test_every_config_field_is_a_size_or_a_variant():
    """A field added to AttentionConfig is one or the other: a variant's field (declared with _variant) reaches the
    lab's trace key, its downloads' record and these tests' configs through VARIANT_FIELDS; a new size is named here."""
    sizes = {"n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed", "init", "d_ff"}
    names = [f.name for f in dataclasses.fields(mha.AttentionConfig)]
    assert set(names) == sizes | set(mha.VARIANT_FIELDS) and not sizes & set(mha.VARIANT_FIELDS)
    cfg = mha.AttentionConfig(n_heads=4, n_kv_heads=2, window=3, sinks=1, alibi=True, rotary_dims=2, rope_base=50.0)
    assert dict(n_kv_heads=2, window=3, sinks=1, alibi=True, rotary_dims=2, rope_base=50.0).items() \
        <= mha.variant_fields(cfg).items()
    assert list(mha.variant_fields(cfg)) == list(mha.VARIANT_FIELDS)
    assert mha.variant_fields(mha.AttentionConfig(n_heads=4))["n_kv_heads"] == 4  # 0 says: a K and V per head
