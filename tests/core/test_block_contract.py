"""The block's contract beyond its numbers: weights stored as float64 that nobody can change, badly shaped or
non-finite weights and an unknown order refused in words, and each step that overflows float64 named, in both
orders. Written where mutation testing (bench/mutation.sh) found changes to mha/block.py that no test noticed."""

import re
import warnings

import numpy as np
import pytest

import mha
from mha.block import block_row

CFG = mha.AttentionConfig(d_ff=4)  # the post's sizes: d_model 5
BW = mha.init_block(CFG)
NAMES = ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_fc", "b_fc", "w_proj", "b_proj")


def _block(**change) -> mha.BlockWeights:
    return mha.BlockWeights(**({"attn": BW.attn} | {n: getattr(BW, n) for n in NAMES} | change))


def test_integer_block_weights_are_stored_as_float64_and_read_only():
    bw = _block(**{n: np.round(getattr(BW, n)).astype(int).tolist() for n in NAMES})
    for n in NAMES:
        a = getattr(bw, n)
        assert a.dtype == np.float64, n
        with pytest.raises(ValueError):
            a.flat[0] = 1.0
    assert bw.d_model == 5 and bw.d_ff == 4


@pytest.mark.parametrize("name", NAMES)
def test_a_block_weight_with_nan_is_refused_by_name(name):
    a = np.array(getattr(BW, name))
    a.flat[0] = np.nan
    with pytest.raises(mha.InputError, match=f"^{name} holds NaN or infinite values; every weight must be finite.$"):
        _block(**{name: a})


@pytest.mark.parametrize("name, shape, want", [
    ("ln1_g", (4,), "(5,)"), ("ln1_b", (6,), "(5,)"), ("ln2_g", (5, 1), "(5,)"), ("ln2_b", (1,), "(5,)"),
    ("b_fc", (5,), "(4,)"), ("w_proj", (4, 4), "(4, 5)"), ("b_proj", (4,), "(5,)"), ("w_fc", (4, 4), "(5, 4)"),
])
def test_a_badly_shaped_block_weight_is_refused_naming_it_both_shapes_and_the_sizes(name, shape, want):
    """One weight at a time; d_ff is read from W_fc (4 here)."""
    got = str(shape).replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(mha.InputError, match=f"^{name} must have shape {want.replace('(', r'[(]').replace(')', r'[)]')}"
                                             rf" \(d_model=5, d_ff=4\); got {got}\.$"):
        _block(**{name: np.zeros(shape)})


def test_a_w_fc_that_is_not_a_matrix_is_refused():
    with pytest.raises(mha.InputError, match=r"^w_fc must have shape \(5, -1\) \(d_model=5, d_ff=-1\); got \(20,\)\.$"):
        _block(w_fc=np.zeros(20))


@pytest.mark.parametrize("ln", ["mid", "Pre", None])
def test_an_unknown_order_is_refused_listing_both(ln):
    with pytest.raises(mha.ConfigError, match=rf"^ln must be one of 'pre', 'post' \(where the layer norms sit\); "
                                              rf"got {ln!r}\.$"):
        mha.block(mha.init_input(CFG), BW, ln=ln)
    with pytest.raises(mha.ConfigError, match="^ln must be one of"):
        block_row(mha.init_input(CFG)[0], BW, lambda r: r, ln=ln)


def _message(step: str) -> str:
    return (rf"^{re.escape(step)} overflows float64 \(values beyond ±1\.8e308\): scale X down, e\.g\. keep \|X\| "
            r"below 1e100\.$")


def _blind(a: np.ndarray) -> np.ndarray:
    """Each head's W with row 0 zero: X's column 0 reaches no Q, K or V."""
    out = np.array(a)
    out[:, 0] = 0
    return out


def _overflow_cases():
    """(order, step, weights, x): weights and x that overflow float64 first at that step, everything before it
    finite. In pre-LN, a row like (1e308, −1e308, …) has a variance past float64, so LN₁ and LN₂ hand on β alone and
    the sums carry X's own huge entries; in post-LN X's column 0 (1e306) reaches no Q, K or V, only the sum."""
    x_huge = np.array([[1e308, -1e308, 1e308, -1e308, 0.0]] * 2)
    v = np.ones(5) @ BW.attn.w_v  # what each head's V is for a row of LN₁ = β = 1
    w_o = np.zeros_like(BW.attn.w_o)
    w_o[:, 0] = 1e308 / np.abs(v).sum() * np.sign(v.reshape(-1))
    loud = mha.Weights(BW.attn.w_q, BW.attn.w_k, BW.attn.w_v, w_o)
    x = mha.init_input(CFG)
    yield "pre", "x + attention", _block(attn=loud, ln1_b=np.ones(5)), x_huge
    yield "pre", "the block's output", _block(b_proj=np.array([1e308, 0, 0, 0, 0])), x_huge
    for ln in ("pre", "post"):
        yield ln, "the FFN", _block(b_fc=np.full(4, 1.7e308), w_fc=np.full((5, 4), 1e308)), x  # z·W_fc + b_fc
        yield ln, "the FFN", _block(b_proj=np.full(5, 1.7e308), w_proj=np.full((4, 5), 1e308)), x  # act·W_proj + …
    x_post = np.tile(x[:1], (3, 1))
    x_post[:, 0] = 1e306
    a = BW.attn
    v = (x_post @ _blind(a.w_v))[:, 0].reshape(-1)
    w_o = np.zeros_like(a.w_o)
    w_o[:, 0] = 1.79e308 / np.abs(v).sum() * np.sign(v)
    yield "post", "x + attention", _block(attn=mha.Weights(_blind(a.w_q), _blind(a.w_k), _blind(a.w_v), w_o)), x_post
    w_proj = np.array(BW.w_proj)
    w_proj[:, 0] = 0
    yield "post", "the block's output", _block(w_proj=w_proj, b_proj=np.array([1.79e308, 0, 0, 0, 0]),
                                               ln1_b=np.array([1e306, 0, 0, 0, 0])), x


@pytest.mark.parametrize("case", list(_overflow_cases()), ids=lambda c: f"{c[0]}: {c[1]}")
def test_the_step_that_overflows_is_named_in_either_order(case):
    ln, step, bw, x = case
    with pytest.raises(mha.InputError, match=_message(step)):
        mha.block(x, bw, ln=ln)


@pytest.mark.parametrize("ln", ["pre", "post"])
def test_overflow_is_refused_without_a_floating_point_warning(ln):
    """Every overflow above, a row of 1e200 (its variance overflows) and a row of 1e308 (its mean overflows, and
    LN₁ turns it into nan): an InputError each time, and no RuntimeWarning from numpy on the way."""
    x200, x308 = mha.init_input(CFG), mha.init_input(CFG)
    x200[0, 1] = 1e200
    x308[1] = 1e308
    cases = [(bw, x) for order, _, bw, x in _overflow_cases() if order == ln] + [(BW, x200), (BW, x308)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for bw, x in cases:
            with pytest.raises(mha.InputError):
                mha.block(x, bw, ln=ln)


def test_rows_of_very_different_sizes_are_normalised_each_alone():
    """Rows of ±1e160 (each constant) beside an ordinary one: no row's variance overflows, though the variance of
    the whole matrix, or of a column, would. The pre-LN block runs, and the ordinary row's y is what it is alone."""
    x = np.array([[1e160] * 5, [-1e160] * 5, mha.init_input(CFG)[0]])
    t = mha.block(x, BW)
    assert np.all(np.isfinite(t.y))
    np.testing.assert_array_equal(t.ln1[:2], np.tile(BW.ln1_b, (2, 1)))  # a constant row: LN gives β


def test_a_knocked_head_writes_nothing_in_the_post_ln_block_too():
    """ln="post", head 1 knocked: its H is 0, attn.y is Concat·W_O without it, and the rest follows from that."""
    cfg = mha.AttentionConfig(d_ff=4, n_heads=3)
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    t = mha.block(x, bw, ln="post", knocked=[1])
    assert not t.attn.heads[1].any()
    d_v = bw.attn.d_v
    concat = np.concatenate([t.attn.heads[0], np.zeros_like(t.attn.heads[1]), t.attn.heads[2]], axis=1)
    np.testing.assert_allclose(t.attn.y, concat @ bw.attn.w_o, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t.sum1, x + t.attn.y, rtol=0, atol=0)
    assert concat.shape[1] == 3 * d_v


def test_a_row_too_large_for_a_layer_norm_is_refused_in_words():
    x = mha.init_input(CFG)
    x[1, 2] = 1e200
    with pytest.raises(mha.InputError, match=r"^a layer norm's variance overflows float64: X is too large for the "
                                             r"block\.$"):
        mha.block(x, BW)
