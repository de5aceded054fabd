"""mha.cost for every variant against a count written here: the multiply-adds of one decoding step and of one
recompute, added up head by head and key by key as mha/cache.py, mha/mla.py and forward run them (2 FLOPs each);
the bytes as the elements of every array a step reads or makes; the cache's bytes and the keys it holds from a real
cache fed the same tokens. Drawn sizes; every step 1..T, so a window is both longer and shorter than t."""

import re
from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mha

FIXED = dict(mha={}, gqa=dict(n_heads=4, n_kv_heads=2), mqa=dict(n_heads=4, n_kv_heads=1), window={}, sinks={},
             alibi=dict(alibi=True), rope={}, mla={}, int8=dict(kv_bits=8))
ITEM = 8


@st.composite
def cases(draw, variant: str) -> tuple[mha.AttentionConfig, int, int]:
    """(cfg, d_latent, T): the variant on drawn sizes, and the last step to count."""
    sizes = dict(n_tokens=draw(st.integers(1, 12)), d_model=draw(st.integers(1, 9)), d_k=draw(st.integers(2, 9)),
                 d_v=draw(st.integers(1, 9)), n_heads=draw(st.integers(1, 5)), seed=draw(st.integers(0, 2**16)))
    sizes.update(FIXED[variant])
    if variant == "rope":
        sizes["rotary_dims"] = 2 * draw(st.integers(1, sizes["d_k"] // 2))
    if variant in ("window", "sinks"):
        sizes["window"] = draw(st.integers(1, 8))
        sizes["sinks"] = draw(st.integers(1, 4)) if variant == "sinks" else 0
        last = sizes["window"] + sizes["sinks"] + draw(st.integers(1, 5))  # past the window: L stops growing
    else:
        last = draw(st.integers(1, 14))
    latent = draw(st.integers(1, 9)) if variant == "mla" else 0
    return mha.AttentionConfig(**sizes), latent, last


def _kept(cfg: mha.AttentionConfig, t: int) -> list[int]:
    """The positions step t's query may read (from 0): every earlier one, or the sinks and the last `window`."""
    return [p for p in range(t) if not cfg.window or p < cfg.sinks or t - p <= cfg.window]


def _weights(cfg: mha.AttentionConfig, c: int) -> int:
    h, d, dk, dv, g = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, cfg.kv_heads
    if c:  # W_Q, W_DKV, W_UK, W_UV, W_O
        return h * d * dk + d * c + h * c * dk + h * c * dv + h * dv * d
    return h * d * dk + g * d * dk + g * d * dv + h * dv * d  # W_Q, W_K, W_V, W_O


def _cached(cfg: mha.AttentionConfig, t: int, c: int) -> tuple[int, int]:
    """FLOPs and bytes of step t with the cache: one token's products against the rows the cache holds."""
    h, d, dk, dv, g = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, cfg.kv_heads
    keys = range(t) if c else _kept(cfg, t)
    madds, held = 0, 0
    if c:
        madds += d * c  # the token's latent row x·W_DKV, cached
        held += len(keys) * c
    for _ in range(0 if c else g):  # each KV head's k and v of the token
        madds += d * (dk + dv)
        held += len(keys) * (dk + dv)
    for _ in range(h):
        madds += d * dk  # q = x·W_Q
        if c:
            madds += dk * c  # q·W_UKᵀ: the query in the latent's space
        for _ in keys:
            madds += 2 * c if c else dk + dv  # its score, and its row weighed into S·V (MLA: S·c)
        if c:
            madds += c * dv  # (S·c)·W_UV
    madds += h * dv * d  # Concat·W_O
    # the rows read: int8 keeps a byte a number and a float scale for each row of K and of V, each KV head's
    read = held + 2 * g * len(keys) * ITEM if cfg.kv_bits else ITEM * held
    return 2 * madds, ITEM * (_weights(cfg, c) + d + h * len(keys) + d) + read  # + x, scores, y


def _recompute(cfg: mha.AttentionConfig, t: int, c: int) -> tuple[int, int]:
    """FLOPs and bytes of forward on all t rows: every row's products, all t×t scores (the mask is added after)."""
    h, d, dk, dv, g = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, cfg.kv_heads
    madds = 0
    for _ in range(t):
        madds += d * c if c else g * d * (dk + dv)
        for _ in range(h):
            madds += d * dk + (dk * c + c * dv if c else 0)
            for _ in range(t):
                madds += 2 * c if c else dk + dv
        madds += h * dv * d
    made = t * c + h * t * dk + 2 * h * t * c if c else h * t * dk + g * t * (dk + dv)  # c, Q, Q·W_UKᵀ, S·c / Q, K, V
    return 2 * madds, ITEM * (_weights(cfg, c) + t * d + made + h * t * t + h * t * dv + t * d)


def _real_cache(cfg: mha.AttentionConfig, c: int, last: int) -> list[tuple[int, int]]:
    """(tokens held, bytes) of a real cache after each step 1..last."""
    w = mha.init_weights(cfg)
    cache = mha.MLACache(mha.mla_from(w, c)) if c else mha.KVCache(w, cfg)
    out = []
    for i in range(last):
        cache.append(mha.next_token(cfg, i))
        out.append((len(cache), cache.nbytes))
    return out


@pytest.mark.parametrize("variant", list(FIXED))
@given(data=st.data())
def test_cost_counts_each_variants_step_and_generation(variant, data):
    cfg, c, last = data.draw(cases(variant))
    steps = np.arange(1, last + 1)
    got = mha.cost(cfg, steps, ITEM, c)
    real = _real_cache(cfg, c, last)
    gen_cached = gen_full = 0
    for t in steps.tolist():
        one = mha.cost(cfg, t, ITEM, c)
        for f in fields(one):  # the array's entries are the scalar call's numbers, which are Python ints
            assert type(getattr(one, f.name)) is int and getattr(got, f.name)[t - 1] == getattr(one, f.name)
        (flops_c, bytes_c), (flops_f, bytes_f) = _cached(cfg, t, c), _recompute(cfg, t, c)
        gen_cached, gen_full = gen_cached + flops_c, gen_full + flops_f
        assert (one.step_flops_cached, one.step_bytes_cached) == (flops_c, bytes_c)
        assert (one.step_flops_recompute, one.step_bytes_recompute) == (flops_f, bytes_f)
        assert (one.gen_flops_cached, one.gen_flops_recompute) == (gen_cached, gen_full)
        assert (one.held, one.cache_bytes) == real[t - 1]
        assert one.t == t
    assert got.gen_flops_cached.dtype == np.int64


@pytest.mark.parametrize("variant", list(FIXED))
@given(data=st.data())
def test_step_t_defaults_to_the_configs_tokens(variant, data):
    cfg, c, _ = data.draw(cases(variant))
    assert mha.cost(cfg, d_latent=c) == mha.cost(cfg, cfg.n_tokens, 8, c)


def test_alibi_and_rope_are_counted_as_mha():
    """Their bias and turn are element-wise: the same matrix products as the post's attention."""
    plain = mha.AttentionConfig(n_tokens=9, n_heads=4)
    for changed in (mha.AttentionConfig(n_tokens=9, n_heads=4, alibi=True),
                    mha.AttentionConfig(n_tokens=9, n_heads=4, rotary_dims=6)):
        assert mha.cost(changed) == mha.cost(plain)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "4"])
def test_a_bad_latent_width_is_refused(bad):
    with pytest.raises(mha.ConfigError, match="d_latent"):
        mha.cost(mha.AttentionConfig(), d_latent=bad)


@pytest.mark.parametrize("change", [dict(n_kv_heads=1), dict(window=2), dict(window=2, sinks=1)])
def test_mla_takes_no_kv_heads_or_window(change):
    with pytest.raises(mha.ConfigError, match="MLA"):
        mha.cost(mha.AttentionConfig(**change), d_latent=4)


@pytest.mark.parametrize("bad", [-1, 1.5, True, np.bool_(False), "4", None])
def test_a_bad_latent_width_is_refused_in_words(bad):
    with pytest.raises(mha.ConfigError, match=rf"^d_latent must be a whole number >= 0 \(0: no MLA\); "
                                              rf"got {re.escape(repr(bad))}\.$"):
        mha.cost(mha.AttentionConfig(), d_latent=bad)


@pytest.mark.parametrize("change, got", [(dict(n_heads=2, n_kv_heads=1), "n_kv_heads=1, window=0, sinks=0"),
                                         (dict(window=2), "n_kv_heads=0, window=2, sinks=0"),
                                         (dict(window=2, sinks=1), "n_kv_heads=0, window=2, sinks=1")])
def test_mla_s_refusal_names_each_field_it_cannot_take(change, got):
    """Each alone is enough: shared K and V, a window, or a window with sinks."""
    with pytest.raises(mha.ConfigError, match=r"^MLA caches one latent row per token for every head: its cost takes "
                                              rf"no n_kv_heads, window or sinks; got {got}\.$"):
        mha.cost(mha.AttentionConfig(**change), d_latent=4)


def test_mla_with_every_head_its_own_kv_and_numpy_widths_is_counted():
    """n_kv_heads = n_heads is MHA (no sharing): MLA's cost takes it, and a numpy integer d_latent."""
    cfg = mha.AttentionConfig(n_heads=2, n_kv_heads=2)
    assert mha.cost(cfg, d_latent=np.int64(3)) == mha.cost(mha.AttentionConfig(n_heads=2), d_latent=3)


def test_sinks_without_a_window_cost_nothing_extra():
    """Sinks only matter beside a window: without one every key is read anyway, and the cost is MHA's."""
    plain = mha.AttentionConfig(n_tokens=9, n_heads=2)
    assert mha.cost(mha.AttentionConfig(n_tokens=9, n_heads=2, sinks=3)) == mha.cost(plain)
    steps = np.arange(1, 10)
    assert mha.cost(mha.AttentionConfig(n_heads=2, sinks=3), steps).held.tolist() == steps.tolist()
