"""MLA's contract beyond its numbers: weights of any numeric type stored as float64 that nobody can change, badly
shaped weights and a bad d_latent refused in words that name them, every field of the trace and of a decoded step
against a loop reference, a latent cache that grows past any capacity, and overflow refused in either order without a
floating-point warning. Written where mutation testing (bench/mutation.sh) found changes to mha/mla.py that no test
noticed."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest

import mha

from .reference import matmul, mla_attention, transpose

CFG = mha.AttentionConfig(n_tokens=4, d_model=5, d_k=3, d_v=2, n_heads=2, seed=7)  # d_k ≠ d_v ≠ d_latent
D_LATENT = 4
W = mha.init_mla(CFG, D_LATENT)
X = mha.init_input(CFG)
NAMES = ("w_q", "w_dkv", "w_uk", "w_uv", "w_o")


def _weights(**arrays) -> mha.MLAWeights:
    return mha.MLAWeights(**({name: getattr(W, name) for name in NAMES} | arrays))


def test_integer_weights_are_stored_as_float64_and_read_only():
    """Weights given as Python lists of ints: every array is float64 (so the products are float products), and
    writing into one raises instead of silently changing weights that caches and sessions share."""
    w = mha.MLAWeights(*(np.round(getattr(W, name) * 3).astype(int).tolist() for name in NAMES))
    for name in NAMES:
        a = getattr(w, name)
        assert a.dtype == np.float64, name
        assert not a.flags.writeable, name
        with pytest.raises(ValueError):
            a.flat[0] = 1.0
    np.testing.assert_array_equal(w.w_uk, np.round(W.w_uk * 3))


@pytest.mark.parametrize("name", NAMES)
def test_a_weight_with_nan_is_refused_by_name(name):
    a = np.array(getattr(W, name))
    a.flat[-1] = np.nan
    with pytest.raises(mha.InputError, match=f"^{name} holds NaN or infinite values; every weight must be finite"):
        _weights(**{name: a})


# Each badly shaped weight alone, against what W_Q (h 2, d_model 5, d_k 3), W_DKV (d_latent 4) and W_UV (d_v 2) fix.
BAD_SHAPES = {
    "w_dkv": (np.zeros((4, 4)), r"\(5, 4\); got \(4, 4\)"),
    "w_uk": (np.zeros((2, 4, 2)), r"\(2, 4, 3\); got \(2, 4, 2\)"),
    "w_uv": (np.zeros((1, 4, 2)), r"\(2, 4, 2\); got \(1, 4, 2\)"),
    "w_o": (np.zeros((4, 4)), r"\(4, 5\); got \(4, 4\)"),
}


@pytest.mark.parametrize("name", BAD_SHAPES)
def test_a_badly_shaped_weight_is_refused_naming_it_and_both_shapes(name):
    """The message names the weight, the shape it must have and the shape it has."""
    a, shapes = BAD_SHAPES[name]
    with pytest.raises(mha.InputError, match=f"^{name} must be {shapes}.$"):
        _weights(**{name: a})


@pytest.mark.parametrize("make", [mha.init_mla, lambda cfg, d: mha.mla_from(mha.init_weights(cfg), d)],
                         ids=["init_mla", "mla_from"])
@pytest.mark.parametrize("d_latent", [0, -1, 2.5, True, "3", None])
def test_a_d_latent_that_is_no_whole_number_from_1_is_refused_in_words(make, d_latent):
    """0 or less, a fraction, a bool, a string: a ConfigError that names d_latent and what was given."""
    with pytest.raises(mha.ConfigError, match=f"^d_latent must be a whole number >= 1; got {d_latent!r}.$"):
        make(CFG, d_latent)


@pytest.mark.parametrize("cfg", [mha.AttentionConfig(seed=5), mha.AttentionConfig(seed=5, init="integers")],
                         ids=["seed 5", "integers"])
def test_init_mla_keeps_init_weights_queries_and_output_and_is_fixed_by_the_seed(cfg):
    """W_Q and W_O are those init_weights(cfg) draws for cfg's own seed and init; the latent projections are the same
    on every call with the same seed, and others with another seed."""
    w, plain = mha.init_mla(cfg, 3), mha.init_weights(cfg)
    np.testing.assert_array_equal(w.w_q, plain.w_q)
    np.testing.assert_array_equal(w.w_o, plain.w_o)
    again = mha.init_mla(cfg, 3)
    other = mha.init_mla(mha.AttentionConfig(seed=6, init=cfg.init), 3)
    for name in ("w_dkv", "w_uk", "w_uv"):
        np.testing.assert_array_equal(getattr(again, name), getattr(w, name), err_msg=name)
        assert not np.array_equal(getattr(other, name), getattr(w, name)), name
    if cfg.init == "integers":
        for name in NAMES:
            a = getattr(w, name)
            assert set(np.unique(a)) <= {-1.0, 0.0, 1.0}, name


def _reference_trace(x, w):
    """Every field of MLATrace from plain loops: c, per head Q, K, V, S, H, Y, and the absorbed order's query
    Q W_UKᵀ, its scores against c, and Y from (S c) W_UV."""
    x, names = x.tolist(), {name: getattr(w, name).tolist() for name in NAMES}
    c, s, hd, y = mla_attention(x, *names.values())
    q = [matmul(x, wq) for wq in names["w_q"]]
    k = [matmul(c, wuk) for wuk in names["w_uk"]]
    v = [matmul(c, wuv) for wuv in names["w_uv"]]
    q_abs = [matmul(qi, transpose(wuk)) for qi, wuk in zip(q, names["w_uk"])]
    n, d_k = len(x), len(names["w_q"][0][0])
    s_abs = []
    for qa in q_abs:
        scores = matmul(qa, transpose(c))
        rows = []
        for i in range(n):
            e = [math.exp(scores[i][j] / math.sqrt(d_k) - max(scores[i][: i + 1]) / math.sqrt(d_k)) if j <= i else 0.0
                 for j in range(n)]
            rows.append([a / sum(e) for a in e])
        s_abs.append(rows)
    heads_abs = [matmul(matmul(si, c), wuv) for si, wuv in zip(s_abs, names["w_uv"])]
    y_abs = matmul([sum((h[i] for h in heads_abs), []) for i in range(n)], names["w_o"])
    return dict(x=x, latent=c, q=q, k=k, v=v, probs=s, heads=hd, y=y, q_absorbed=q_abs, probs_absorbed=s_abs,
                y_absorbed=y_abs)


def test_every_field_of_the_trace_is_the_loop_reference():
    """A page shows each of these; a field left empty or swapped would show the wrong matrix."""
    t = mha.mla_forward(X, W)
    for name, want in _reference_trace(X, W).items():
        np.testing.assert_allclose(getattr(t, name), np.array(want), rtol=1e-9, atol=1e-12, err_msg=name)


def test_x_given_as_a_list_of_ints_is_computed_as_floats():
    x = np.round(X * 2).astype(int)
    t = mha.mla_forward(x.tolist(), W)
    assert t.x.dtype == np.float64
    np.testing.assert_allclose(t.y, mha.mla_forward(x.astype(float), W).y, rtol=0, atol=0)


@pytest.mark.parametrize("capacity", [0, 1, 2, 3, 16])
def test_decoding_past_the_cache_capacity_keeps_every_row(capacity):
    """Seven tokens into a cache made for fewer: it grows, and each step still reads every earlier latent row.
    Every field of each step is the loop reference's row t of the trace, in the absorbed order."""
    cfg = mha.AttentionConfig(n_tokens=7, d_model=5, d_k=3, d_v=2, n_heads=2, seed=3)
    x = mha.init_input(cfg)
    w = mha.init_mla(cfg, D_LATENT)
    ref = _reference_trace(x, w)
    cache = mha.MLACache(w, capacity=capacity)
    for i, row in enumerate(x):
        step = cache.append(row.tolist())
        assert step.t == i + 1 and len(cache) == i + 1
        np.testing.assert_allclose(step.latent, ref["latent"][i], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(step.q_absorbed, np.array(ref["q_absorbed"])[:, i], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(step.probs, np.array(ref["probs_absorbed"])[:, i, : i + 1], rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(step.y, ref["y"][i], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(cache.latent, ref["latent"], rtol=1e-12, atol=1e-12)
    assert cache.nbytes == 7 * D_LATENT * 8
    with pytest.raises(ValueError):
        cache.latent[0, 0] = 1.0


def test_a_token_row_of_ints_is_decoded_as_floats():
    row = np.round(X[0] * 3).astype(int)
    got = mha.MLACache(W).append(row.tolist())
    want = mha.MLACache(W).append(row.astype(float))
    np.testing.assert_array_equal(got.y, want.y)
    assert got.y.dtype == np.float64


@pytest.mark.parametrize("row", [["a"] * 5, [[1.0, 2.0], [3.0]]], ids=["words", "ragged"])
def test_a_token_row_that_is_no_numbers_is_refused_as_input(row):
    """As KVCache does: an InputError the page shows, not numpy's bare ValueError."""
    with pytest.raises(mha.InputError, match="^The token row must hold numbers only"):
        mha.MLACache(W).append(row)


def test_a_token_row_of_the_wrong_width_is_refused():
    with pytest.raises(mha.InputError, match=r"n × 5; got shape \(1, 4\)"):
        mha.MLACache(W).append([1.0, 2.0, 3.0, 4.0])


@pytest.fixture
def fp_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.usefixtures("fp_warnings_are_errors")
def test_overflow_is_refused_in_words_without_a_floating_point_warning():
    """X × 1e300 overflows c and the scores (inf − inf in the softmax): one InputError that says what to do, and no
    RuntimeWarning from numpy on the way (the app would show those as noise)."""
    with pytest.raises(mha.InputError, match=r"^MLA's values overflow float64: scale X down, e\.g\. keep \|X\| below "
                                             r"1e100\.$"):
        mha.mla_forward(X * 1e300, W)
    with pytest.raises(mha.InputError, match=r"^This token's values overflow float64: scale it down \(\|x\| below "
                                             r"1e100\)\.$"):
        mha.MLACache(W).append(X[0] * 1e300)


@pytest.mark.usefixtures("fp_warnings_are_errors")
@pytest.mark.parametrize("order", ["naive", "absorbed"])
def test_overflow_in_either_order_alone_is_refused(order):
    """Weights scaled so that only one order overflows: K = c W_UK too large to build (the absorbed order never
    builds it), or Q W_UKᵀ too large (the naive order never builds it). Either is refused, not half a trace."""
    if order == "naive":
        w = _weights(w_q=W.w_q * 1e-200, w_dkv=W.w_dkv * 1e200, w_uk=W.w_uk * 1e200, w_uv=W.w_uv * 1e-200)
    else:
        w = _weights(w_q=W.w_q * 1e200, w_dkv=W.w_dkv * 1e-200, w_uk=W.w_uk * 1e200)
    with pytest.raises(mha.InputError, match="^MLA's values overflow float64"):
        mha.mla_forward(X, w)


def test_the_latent_cache_grows_by_doubling_only_when_full():
    """Sixteen tokens from capacity 1 at d_latent 1: the cache reallocates 4 times (to 2, 4, 8, 16 rows), a few
    hundred bytes in all; growing on every append instead would reach 2^17 rows (a megabyte)."""
    cfg = mha.AttentionConfig(n_tokens=16, d_model=5, d_k=3, d_v=2, n_heads=2, seed=1)
    w, x = mha.init_mla(cfg, 1), mha.init_input(cfg)
    cache = mha.MLACache(w, capacity=1)
    tracemalloc.start()
    try:
        for row in x:
            cache.append(row)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100_000 and len(cache) == 16


def test_mla_from_takes_the_thin_svd_of_a_tall_k_and_v():
    """d_model 3000, one head with d_k = d_v = 1: [W_K | W_V] is 3000 × 2, and its rank-2 cut needs U of 3000 × 2,
    not the full 3000 × 3000 one (72 MB). mla_from stays in kilobytes, and rebuilds K and V exactly."""
    rng = np.random.default_rng(0)
    w = mha.Weights(*(rng.standard_normal(s) for s in ((1, 3000, 1), (1, 3000, 1), (1, 3000, 1), (1, 3000))))
    tracemalloc.start()
    try:
        m = mha.mla_from(w, 2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000
    np.testing.assert_allclose(m.w_dkv @ m.w_uk[0], w.w_k[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.w_dkv @ m.w_uv[0], w.w_v[0], rtol=1e-9, atol=1e-12)


def test_biased_weights_are_refused_naming_each_bias_they_have():
    """MLA's low-rank K and V leave GPT-2's biases out: weights with some are refused, and the words say which."""
    w = mha.init_weights(mha.AttentionConfig(3, 5, 7, 11, 2, seed=0))
    biased = mha.Weights(w.w_q, w.w_k, w.w_v, w.w_o, b_k=np.ones((2, 7)), b_o=np.ones(5))
    with pytest.raises(mha.ConfigError) as e:
        mha.mla_from(biased, 3)
    assert str(e.value) == "MLA works on weights without biases; these have b_k, b_o (a GPT-2 checkpoint's)."
