"""What the core takes and what it refuses, said in words a user can act on: weights of any numeric type stored as
float64 that nobody can change, badly shaped weights named by what is wrong, a step that overflows named by its
letter, and a trace whose X is the X given (not the padded block the walk runs on). Written where mutation testing
(bench/mutation.sh) found changes to mha/attention.py that no test noticed."""

import warnings

import numpy as np
import pytest

import mha
from mha.attention import knock_out, share_kv

CFG = mha.AttentionConfig()  # the post's: h 2, d_model 5, d_k 7, d_v 11
W = mha.init_weights(CFG)
X = mha.init_input(CFG)


def _weights(**arrays) -> mha.Weights:
    return mha.Weights(**(dict(w_q=W.w_q, w_k=W.w_k, w_v=W.w_v, w_o=W.w_o) | arrays))


def test_integer_weights_are_stored_as_float64_and_read_only():
    w = mha.Weights(*(np.round(a).astype(np.int64) for a in (W.w_q, W.w_k, W.w_v, W.w_o)))
    for a in (w.w_q, w.w_k, w.w_v, w.w_o):
        assert a.dtype == np.float64 and not a.flags.writeable
    with pytest.raises(ValueError):
        w.w_q[0, 0, 0] = 1.0


def test_a_bias_after_an_absent_one_is_still_a_checked_read_only_float64_copy():
    """b_Q left out, as GPT-2's own checkpoints never do but a page's weights may: the biases after it are still copied,
    checked and made read-only."""
    w = _weights(b_k=[[1] * 7, [2] * 7], b_o=[0] * 5)
    assert w.b_q is None and all(a.dtype == np.float64 and not a.flags.writeable for a in (w.b_k, w.b_o))
    with pytest.raises(mha.InputError, match="^b_v holds NaN or infinite values"):
        _weights(b_v=np.full((2, 11), np.nan))


@pytest.mark.parametrize(("name", "shape", "wrong"), [("b_q", (2, 7), (2, 6)), ("b_k", (2, 7), (1, 7)),
                                                      ("b_v", (2, 11), (2, 7)), ("b_o", (5,), (11,))])
def test_a_bias_of_the_wrong_shape_is_refused_naming_it_and_both_shapes(name, shape, wrong):
    with pytest.raises(mha.InputError) as e:
        _weights(**{name: np.zeros(wrong)})
    assert str(e.value) == f"{name} must be {shape}, like the weight it is added after; got {wrong}."


@pytest.mark.parametrize("bad", [dict(w_q=W.w_q[0]), dict(w_v=W.w_v[0]), dict(w_o=W.w_o[None])],
                         ids=["w_q 2-D", "w_v 2-D", "w_o 3-D"])
def test_weights_of_the_wrong_rank_are_refused_by_rank(bad):
    """Each alone is enough: W_Q or W_V not 3-D, or W_O not 2-D."""
    with pytest.raises(mha.InputError, match=r"^w_q, w_k, w_v must be 3-D \(h, d_model, d·\) and w_o 2-D"):
        _weights(**bad)


@pytest.mark.parametrize("h_kv", [0, 4])
def test_k_heads_that_do_not_divide_the_query_heads_are_refused(h_kv):
    """Six query heads: no K head at all, or four, which do not make whole groups."""
    w = mha.init_weights(mha.AttentionConfig(n_heads=6))
    with pytest.raises(mha.InputError, match="w_k must be"):
        mha.Weights(w.w_q, w.w_k[:h_kv], w.w_v[:h_kv], w.w_o)


@pytest.mark.parametrize("n_kv", [-1, 0, 3, 5])
def test_sharing_k_and_v_takes_only_a_divisor_of_the_heads(n_kv):
    """Four heads share K and V in groups of 1, 2 or 4 only; -1 divides 4, but is no number of heads."""
    w = mha.init_weights(mha.AttentionConfig(n_heads=4))
    with pytest.raises(mha.ConfigError, match="n_kv_heads must divide"):
        share_kv(w, n_kv)


def test_weights_already_shared_are_not_shared_again():
    w = share_kv(mha.init_weights(mha.AttentionConfig(n_heads=4)), 2)
    with pytest.raises(mha.ConfigError, match="from weights with a K and V per head"):
        share_kv(w, 1)


def test_each_layer_draws_weights_of_its_own():
    """A stack of blocks: layer 1's weights are not layer 0's (and layer 0's are the single-layer walk's)."""
    zero, one = mha.init_weights(CFG, 0), mha.init_weights(CFG, 1)
    assert np.array_equal(zero.w_q, W.w_q)
    for a, b in zip((zero.w_q, zero.w_k, zero.w_v, zero.w_o), (one.w_q, one.w_k, one.w_v, one.w_o)):
        assert not np.any(a == b)


def test_an_empty_x_is_refused_in_words():
    with pytest.raises(mha.InputError, match="^X is empty: it needs at least one token row.$"):
        mha.forward(np.zeros((0, 5)), W)


# Weights that make exactly one step overflow float64 first, in the walk's order, on X × 1e5 (the weights alone stay
# finite: the Weights refuse any that is not).
OVERFLOWS = {
    "Q": dict(w_q=W.w_q * 1e306),
    "K": dict(w_k=W.w_k * 1e306),
    "V": dict(w_v=W.w_v * 1e306),
    "QKᵀ": dict(w_q=W.w_q * 1e160, w_k=W.w_k * 1e160),
    "Y": dict(w_o=W.w_o * 1e306),
}


@pytest.mark.parametrize("step", OVERFLOWS)
def test_the_step_that_overflows_is_named(step):
    w = _weights(**OVERFLOWS[step])
    with pytest.raises(mha.InputError, match=f"^{step} overflows float64"):
        mha.forward(X * 1e5, w)


def test_an_overflow_to_plus_infinity_alone_is_caught():
    """Scores that overflow upward only (every score positive): the smallest is finite, the largest is not."""
    w = _weights(w_q=np.abs(W.w_q) * 1e160, w_k=np.abs(W.w_k) * 1e160)
    with pytest.raises(mha.InputError, match="^QKᵀ overflows"):
        mha.forward(np.abs(X) + 1, w)


@pytest.mark.parametrize("n", [1, 3, 64, 65])
def test_the_trace_holds_the_x_it_was_given(n):
    """The walk runs on X padded to whole blocks of rows; the trace keeps the X given, n rows."""
    x = mha.init_input(mha.AttentionConfig(n_tokens=n))
    for cfg in (None, mha.AttentionConfig(n_tokens=n, window=2)):
        t = mha.forward(x, W, cfg)
        assert t.x.shape == (n, 5) and np.array_equal(t.x, x)


def test_shared_weights_run_their_variant_without_being_told():
    """GQA weights (fewer K and V heads than query heads) need the variant walk: forward finds it from the weights."""
    cfg = mha.AttentionConfig(n_heads=4, n_kv_heads=2)
    w = mha.init_weights(cfg)
    x = mha.init_input(cfg)
    told, found = mha.forward(x, w, cfg), mha.forward(x, w)
    for name in ("q", "k", "v", "probs", "heads", "y"):
        np.testing.assert_array_equal(getattr(found, name), getattr(told, name), err_msg=name)


def test_a_knocked_heads_block_of_concat_is_zero_and_y_is_concat_times_w_o():
    cfg = mha.AttentionConfig(n_heads=3)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    t = mha.attention.knock_out(mha.forward(x, w), w, [1])
    d_v = w.d_v
    assert np.all(t.concat[:, d_v:2 * d_v] == 0) and np.all(t.heads[1] == 0)
    np.testing.assert_array_equal(t.concat[:, :d_v], t.heads[0])
    np.testing.assert_allclose(t.y, t.concat @ w.w_o, rtol=0, atol=0)


def test_a_config_that_disagrees_with_the_weights_is_refused_in_words():
    """forward(x, w, cfg) with cfg's heads not w's, or more rotary dims than w's d_k: a ConfigError that says which."""
    with pytest.raises(mha.ConfigError, match=r"^cfg has n_heads = 4 and n_kv_heads = 4, but the weights have 2 and 2"):
        mha.forward(X, W, mha.AttentionConfig(n_heads=4))
    with pytest.raises(mha.ConfigError, match=r"^rotary_dims = 8 exceeds the weights' d_k = 7"):
        mha.forward(X, W, mha.AttentionConfig(d_k=9, rotary_dims=8))


def _biased(cfg: mha.AttentionConfig) -> mha.Weights:
    """cfg's weights with every bias drawn (a GPT-2 layer's kind)."""
    w, rng = mha.init_weights(cfg), np.random.default_rng(7)
    return mha.Weights(w.w_q, w.w_k, w.w_v, w.w_o, rng.normal(size=(w.n_heads, w.d_k)),
                       rng.normal(size=(w.n_kv_heads, w.d_k)), rng.normal(size=(w.n_kv_heads, w.d_v)),
                       rng.normal(size=w.d_model))


@pytest.mark.parametrize("variant", [dict(), dict(window=2)], ids=["walk", "variant walk"])
def test_a_biased_traces_k_and_a_knocked_out_y_hold_their_biases(variant):
    """b_K moves every score of a row by the same q·b_K, so S and Y cannot tell it is missing: K itself, shown on
    the page, must carry it. A knocked-out Y keeps b_O. Both against products worked here."""
    cfg = mha.AttentionConfig(n_tokens=4, seed=2, **variant)
    w, x = _biased(cfg), mha.init_input(cfg)
    t = mha.forward(x, w, cfg if variant else None)
    np.testing.assert_allclose(t.k, x @ w.w_k + w.b_k[:, None, :], rtol=1e-12, atol=1e-12)
    knocked = knock_out(t, w, [0])
    heads = t.heads.copy()
    heads[0] = 0
    np.testing.assert_allclose(knocked.y, heads.transpose(1, 0, 2).reshape(4, -1) @ w.w_o + w.b_o, rtol=1e-12,
                               atol=1e-12)


def test_an_overflowing_x_is_refused_in_words_without_a_floating_point_warning():
    """X × 1e200: the products overflow; forward says so once, as an InputError, with no RuntimeWarning from numpy
    on the way (the page would show those as noise)."""
    x = mha.init_input(CFG) * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(mha.InputError):
            mha.forward(x, W)


@pytest.mark.parametrize("rotary_dims", [0, 4])
def test_a_cut_variant_trace_holds_no_copy_it_does_not_need(rotary_dims):
    """n = 5 rows computed in a padded block of 64, then cut: without RoPE Q_rot and K_rot are Q and K themselves
    (one array each, counted once by the memory budget); a bias the same for every head stays one broadcast row;
    ALiBi's own bias is a contiguous array of its own, holding nothing of the padded block."""
    for alibi in (False, True):
        cfg = mha.AttentionConfig(n_tokens=5, d_k=4, window=3, rotary_dims=rotary_dims, alibi=alibi)
        t = mha.forward(mha.init_input(cfg), mha.init_weights(cfg), cfg)
        assert (t.q_rot is t.q and t.k_rot is t.k) == (rotary_dims == 0)
        assert t.bias.shape[1:] == (5, 5)
        if alibi:
            assert t.bias.base is None and t.bias.flags.c_contiguous
        else:
            assert t.bias.strides[0] == 0
