"""The training code's backward pass against central differences, and its forward against model_forward."""

import numpy as np
import pytest

import mha
from mha import train

TOLERANCE = 1e-5  # relative error of an analytic gradient against central differences


def _model(seed: int, layers: int = 2, d_model: int = 4, vocab: int = 6):
    cfg = mha.AttentionConfig(d_model=d_model, d_k=3, d_v=2, n_heads=2, d_ff=5, seed=seed)
    mw = mha.init_model(cfg, [f"s{i}" for i in range(vocab)], n_layers=layers, positions="learned", n_ctx=8)
    p = train.params_of(mw)
    rng = np.random.default_rng(seed)
    for k in p:  # move every parameter off its initial value (γ = 1, β = 0 hide some terms)
        p[k] += 0.3 * rng.standard_normal(p[k].shape)
    ids = rng.integers(vocab, size=(2, 6))
    return p, ids


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("layers", [1, 2])
def test_gradients_match_central_differences(seed, layers):
    p, ids = _model(seed, layers)
    weights = np.random.default_rng(seed + 100).random((2, 5))
    _, grads = train.loss_and_grads(p, ids, weights)
    assert grads.keys() == p.keys()
    rng = np.random.default_rng(seed)
    h = 1e-6
    for name, value in p.items():
        for flat in rng.choice(value.size, size=min(value.size, 6), replace=False):
            idx = np.unravel_index(flat, value.shape)
            old = value[idx]
            value[idx] = old + h
            up, _ = train.loss_and_grads(p, ids, weights)
            value[idx] = old - h
            down, _ = train.loss_and_grads(p, ids, weights)
            value[idx] = old
            numeric = (up - down) / (2 * h)
            analytic = grads[name][idx]
            scale = max(abs(numeric), abs(analytic), 1e-4)
            assert abs(numeric - analytic) / scale <= TOLERANCE, (name, idx, numeric, analytic)


def test_training_loss_is_model_forwards_cross_entropy():
    p, ids = _model(3)
    loss, _ = train.loss_and_grads(p, ids)
    mw = train.model_of(p)
    expected = np.mean([-np.log(mha.model_forward(row, mw).probs[i, row[i + 1]])
                        for row in ids for i in range(len(row) - 1)])
    assert loss == pytest.approx(expected, rel=1e-12)


def test_params_round_trip_through_a_model():
    p, _ = _model(1)
    back = train.params_of(train.model_of(p))
    assert back.keys() == p.keys() and all(np.array_equal(back[k], p[k]) for k in p)


def test_task_sequences_repeat_a_run_of_distinct_symbols():
    task = train.Task(alphabet=(2, 3, 4, 5, 6, 7), lengths=(3, 5))
    ids = task.sample(np.random.default_rng(0), batch=50)
    half = ids.shape[1] // 2
    assert 3 <= half <= 5
    np.testing.assert_array_equal(ids[:, :half], ids[:, half:])
    assert all(len(set(row[:half])) == half and set(row) <= set(task.alphabet) for row in ids)


def test_a_task_whose_first_copy_may_repeat_draws_repeats_and_copies_them():
    """distinct=False: symbols drawn with replacement (some first copies repeat one), then the same again."""
    rng = np.random.default_rng(0)
    ids = train.Task(alphabet=(0, 1, 2), lengths=(6, 6), distinct=False).sample(rng, 50)
    assert ids.shape == (50, 12) and np.array_equal(ids[:, :6], ids[:, 6:])
    assert all(len(set(row[:6])) < 6 for row in ids)  # 6 draws from 3 symbols must repeat one
    distinct = train.Task(alphabet=tuple(range(8)), lengths=(6, 6)).sample(rng, 50)
    assert all(len(set(row[:6])) == 6 for row in distinct)
