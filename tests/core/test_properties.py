"""The post's claims on hundreds of random shapes, and forward against an independent reference."""

from dataclasses import replace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import mha

from .reference import attention as reference
from .strategies import configs


def _layer(cfg):
    return mha.init_weights(cfg), mha.init_input(cfg)


@given(configs())
def test_probs_rows_sum_to_one_and_are_zero_above_the_diagonal(cfg):
    w, x = _layer(cfg)
    t = mha.forward(x, w)
    upper = np.triu(np.ones((cfg.n_tokens,) * 2, bool), k=1)
    assert np.all(t.probs[:, upper] == 0.0)
    assert np.all(t.masked[:, upper] == -np.inf)
    np.testing.assert_allclose(t.probs.sum(-1), 1.0, rtol=0, atol=1e-14)
    assert np.all(t.probs >= 0)


@given(configs(), st.data())
def test_rows_of_y_ignore_later_rows_of_x(cfg, data):
    """Y_i = f_i(X_1..X_i): rewriting rows after i leaves Y_1..Y_i exactly as they were."""
    w, x = _layer(cfg)
    i = data.draw(st.integers(0, cfg.n_tokens - 1), label="last kept row")
    changed = x.copy()
    changed[i + 1:] = data.draw(st.floats(-50, 50), label="new value") + 1.0
    np.testing.assert_array_equal(mha.forward(changed, w).y[: i + 1], mha.forward(x, w).y[: i + 1])


@given(configs(max_tokens=mha.attention.BLOCK - 1))
def test_appending_a_token_leaves_earlier_rows_bit_for_bit(cfg):
    """forward pads to blocks of BLOCK rows, so n and n + 1 tokens run the same products."""
    w, x = _layer(cfg)
    longer = np.vstack([x, mha.next_token(cfg, cfg.n_tokens)])
    before, after = mha.forward(x, w), mha.forward(longer, w)
    np.testing.assert_array_equal(after.y[:-1], before.y)
    np.testing.assert_array_equal(after.probs[:, :-1, :-1], before.probs)


@given(configs(max_tokens=12))
def test_token_by_token_cache_equals_forward(cfg):
    w, x = _layer(cfg)
    full = mha.forward(x, w)
    cache = mha.KVCache(w, capacity=1)  # capacity 1 forces every growth step
    for i, row in enumerate(x):
        step = cache.append(row)
        assert step.t == i + 1 == len(cache)
        np.testing.assert_allclose(step.y, full.y[i], rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.probs, full.probs[:, i, : i + 1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(cache.k, full.k, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cache.v, full.v, rtol=0, atol=1e-12)


@given(configs(max_tokens=5, max_dim=6, max_heads=3))
def test_forward_matches_a_loop_reference(cfg):
    w, x = _layer(cfg)
    t = mha.forward(x, w)
    s, h, y = reference(x.tolist(), w.w_q.tolist(), w.w_k.tolist(), w.w_v.tolist(), w.w_o.tolist())
    np.testing.assert_allclose(t.probs, s, rtol=0, atol=1e-10)
    np.testing.assert_allclose(t.heads, h, rtol=0, atol=1e-10)
    np.testing.assert_allclose(t.y, y, rtol=0, atol=1e-10)


@given(configs(max_tokens=5, max_dim=5, max_heads=3))
def test_dependency_is_lower_triangular_and_nonzero_below(cfg):
    w, x = _layer(cfg)
    d = mha.dependency(x, w)
    upper = np.triu(np.ones((cfg.n_tokens,) * 2, bool), k=1)
    assert np.all(d[upper] == 0.0)
    assert np.all(d[~upper] > 0.0)


def _finite_differences(x: np.ndarray, w: mha.Weights) -> np.ndarray:
    """‖∂Y_i/∂X_j‖_F by central differences, step 1e-6: truncation O(1e-12), rounding O(1e-10)."""
    n, d = x.shape
    fd = np.zeros((n, n))
    for j in range(n):
        blocks = []
        for a in range(d):
            up, down = x.copy(), x.copy()
            up[j, a] += 1e-6
            down[j, a] -= 1e-6
            blocks.append((mha.forward(up, w).y - mha.forward(down, w).y) / 2e-6)  # (n, d) for this input
        fd[:, j] = np.linalg.norm(np.stack(blocks), axis=(0, 2))
    return fd


@given(configs(max_tokens=4, max_dim=4, max_heads=2))
def test_dependency_matches_finite_differences(cfg):
    """Tolerance 1e-6 relative."""
    w, x = _layer(cfg)
    np.testing.assert_allclose(mha.dependency(x, w), _finite_differences(x, w), rtol=1e-6, atol=1e-7)


@given(configs(max_tokens=4, max_dim=4, max_heads=2))
def test_dependency_with_a_checkpoints_biases_matches_finite_differences(cfg):
    """GPT-2's biases move Q, K and V (the dependency stage on a checkpoint's layer): the closed form reads the biased
    ones from the trace."""
    w, x = _layer(cfg)
    rng = np.random.default_rng(cfg.seed)
    w = replace(w, b_q=rng.standard_normal((w.n_heads, w.d_k)), b_k=rng.standard_normal((w.n_heads, w.d_k)),
                b_v=rng.standard_normal((w.n_heads, w.d_v)), b_o=rng.standard_normal(w.d_model))
    np.testing.assert_allclose(mha.dependency(x, w), _finite_differences(x, w), rtol=1e-6, atol=1e-7)


@given(configs(), st.sampled_from([1e100, -1e100]))
def test_huge_inputs_give_finite_probabilities(cfg, scale):
    w, x = _layer(cfg)
    t = mha.forward(x * scale + scale, w)
    assert np.all(np.isfinite(t.probs)) and np.all(np.isfinite(t.y))
    np.testing.assert_allclose(t.probs.sum(-1), 1.0, atol=1e-12)


@given(configs(), st.sampled_from([1e200, -1e300]))
def test_overflowing_inputs_are_refused_with_a_reason(cfg, scale):
    w, x = _layer(cfg)
    try:
        t = mha.forward(x * scale + scale, w)
    except mha.InputError as e:
        assert "overflow" in str(e) and "scale X down" in str(e)
    else:  # tiny weights can keep even these finite; then nothing may be NaN
        assert np.all(np.isfinite(t.probs)) and np.all(np.isfinite(t.y))


@st.composite
def score_arrays(draw):
    """Arrays softmax meets: random scores, some -inf (a mask), a few huge or infinite, rows of every length."""
    shape = draw(st.lists(st.integers(1, 9), min_size=1, max_size=3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.standard_normal(shape) * draw(st.sampled_from([1.0, 30.0, 1e300]))
    for value in (-np.inf, np.inf):
        a[rng.random(shape) < draw(st.sampled_from([0.0, 0.2, 0.9]))] = value
    return a, draw(st.integers(-len(shape), len(shape) - 1))


@given(score_arrays())
def test_the_lean_softmax_forward_runs_is_the_shown_softmax_bit_for_bit(case):
    a, axis = case
    with np.errstate(over="ignore", invalid="ignore"):
        np.testing.assert_array_equal(mha.attention._softmax_lean(a, axis), mha.softmax(a, axis))


@given(configs(max_tokens=70))
def test_forward_is_the_plain_walk_with_exactness_and_guards_around_it(cfg):
    """Padding to BLOCK rows and the overflow checks change no number beyond rounding, and no shape."""
    w, x = _layer(cfg)
    t, plain = mha.forward(x, w), mha.attention.walk(x, w)
    for name in ("q", "k", "v", "scores", "scaled", "masked", "probs", "heads", "concat", "y"):
        assert getattr(t, name).shape == getattr(plain, name).shape, name
        np.testing.assert_allclose(getattr(t, name), getattr(plain, name), rtol=1e-12, atol=1e-12, err_msg=name)
    np.testing.assert_array_equal(t.x, x)
