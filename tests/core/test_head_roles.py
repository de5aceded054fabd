"""mha.head_roles: a head's previous-token and induction scores on any sequence, against loops over rows, and
equal to the training script's scores on the task's repeated sequences."""

import warnings

import numpy as np
import pytest

import mha
from mha import train


def loop(probs: np.ndarray, ids) -> tuple[list[float], list[float]]:
    prev, ind = [], []
    for s in probs:
        n = len(ids)
        prev.append(sum(s[i, i - 1] for i in range(1, n)) / (n - 1) if n > 1 else float("nan"))
        hits = [s[i, max(j for j in range(i) if ids[j] == ids[i]) + 1] for i in range(n) if ids[i] in ids[:i]]
        ind.append(sum(hits) / len(hits) if hits else float("nan"))
    return prev, ind


@pytest.mark.parametrize("seed", range(40))
def test_the_scores_match_a_loop_over_rows(seed):
    rng = np.random.default_rng(seed)
    n, h = int(rng.integers(1, 12)), int(rng.integers(1, 4))
    ids = rng.integers(0, 4, size=n).tolist()  # small alphabet: repeats, several earlier copies
    raw = rng.random((h, n, n)) * np.tril(np.ones((n, n)))
    probs = raw / raw.sum(-1, keepdims=True)
    got = mha.head_roles(probs, ids)
    want = loop(probs, ids)
    np.testing.assert_allclose(got[0], want[0], atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], atol=1e-12)


def test_a_pure_previous_token_head_and_a_pure_induction_head_score_one():
    ids = [3, 1, 4, 3, 1, 4]
    prev = np.eye(6, k=-1)
    prev[0, 0] = 1
    induction = np.zeros((6, 6))
    induction[np.arange(6), [0, 1, 2, 1, 2, 3]] = 1  # rows 3..5 look at the token after the earlier copy
    p, i = mha.head_roles(np.stack([prev, induction]), ids)
    assert p[0] == 1 and i[1] == 1 and i[0] == 0


def test_on_the_task_s_sequences_they_are_the_training_script_s_scores():
    m = mha.load_trained()
    ids = train.Task(tuple(m.meta["alphabet"]), (5, 5)).sample(np.random.default_rng(3), 8)
    want = train.head_scores(m.weights, ids)
    got = [[mha.head_roles(layer.attn.probs, row) for layer in mha.model_forward(row, m.weights).layers]
           for row in ids]
    np.testing.assert_allclose(np.mean([[g[0] for g in r] for r in got], 0), want["previous_token"], atol=1e-12)
    np.testing.assert_allclose(np.mean([[g[1] for g in r] for r in got], 0), want["induction"], atol=1e-12)


@pytest.mark.parametrize("length", [1, 4, 8])
def test_head_scores_read_the_copy_position_where_the_first_copy_repeats_a_symbol(length):
    """The shipped task draws its first copy with repeats. head_scores still reads each second-copy row i against
    i − L + 1, the token after the same position of the first copy, not against the latest earlier equal symbol."""
    m = mha.load_trained()
    ids = train.Task(tuple(m.meta["alphabet"]), (length, length), distinct=False).sample(np.random.default_rng(9), 12)
    assert length == 1 or any(len(set(row[:length])) < length for row in ids)  # repeats to tell the two apart
    prev, induction = [], []
    for row in ids:
        for layer, trace in enumerate(mha.model_forward(row, m.weights).layers):
            s = trace.attn.probs
            prev.append((layer, [np.mean([h[i, i - 1] for i in range(1, 2 * length)]) for h in s]))
            induction.append((layer, [np.mean([h[i, i - length + 1] for i in range(length, 2 * length)]) for h in s]))
    got = train.head_scores(m.weights, ids)
    for name, rows in (("previous_token", prev), ("induction", induction)):
        want = [np.mean([r for layer, r in rows if layer == k], 0) for k in range(m.weights.n_layers)]
        np.testing.assert_allclose(got[name], want, rtol=0, atol=1e-12)


def test_the_shipped_timeline_shows_the_loss_falling_as_the_induction_head_forms():
    """What the timeline tells a learner: while no layer-2 head does induction (score < 0.2) the loss stays
    high (>= 1.5); once one does (>= 0.8) it is low (<= 0.5)."""
    snaps = mha.load_trained().snapshots[1:]  # step 0 is the untrained model
    before = [loss for _, loss, _, s in snaps if s["induction"][1].max() < 0.2]
    after = [loss for _, loss, _, s in snaps if s["induction"][1].max() >= 0.8]
    assert before and after
    assert min(before) >= 1.5 and max(after) <= 0.5


def test_generation_through_the_kv_cache_continues_the_repeat():
    """From the first copy and the first letter of the second, the shipped model, one token at a time through
    its per-layer KV cache, writes the rest of the second copy (on 50 fresh sequences of the task: 0.93 of the
    letters; a wrong letter is read back as context, so free generation does a little worse than the 0.977 of
    one prediction at a time)."""
    m = mha.load_trained()
    task = train.Task(tuple(m.meta["alphabet"]), tuple(m.meta["repeat_lengths"]), m.meta.get("distinct", True))
    rng = np.random.default_rng(2026)
    right = total = 0
    for _ in range(50):
        seq = task.sample(rng, 1)[0]
        half = len(seq) // 2
        out = mha.generate(seq[: half + 1], m.weights, steps=half - 1)
        right += int(np.sum(np.array(out) == seq[half + 1:]))
        total += half - 1
    assert right / total >= 0.9, right / total


def test_role_bars_stand_clear_of_the_untrained_heads():
    """The bar is 0.4, or 0.05 above the best untrained head's score (nan ignored), for each kind of score."""
    low = [(np.array([0.1, 0.2]), np.array([np.nan, np.nan]))]
    assert mha.role_bars(low) == (0.4, 0.4)
    high = [(np.array([0.1, 0.5]), np.array([0.3, np.nan])), (np.array([0.62, 0.2]), np.array([0.7, 0.1]))]
    assert mha.role_bars(high) == pytest.approx((0.67, 0.75))


def test_with_a_letter_three_times_the_induction_score_reads_the_latest_earlier_copy():
    """The rows of the third A look at the token after the second A (C), not after the first (B): where the two
    rules differ, a head attending to the first copy's follower scores 0."""
    ids = [0, 1, 0, 2, 0, 3]  # A B A C A D
    latest, first = np.zeros((6, 6)), np.zeros((6, 6))
    latest[np.arange(6), [0, 0, 1, 0, 3, 0]] = 1  # row 2 (A again): B at 1; row 4 (A a third time): C at 3
    first[np.arange(6), [0, 0, 1, 0, 1, 0]] = 1  # row 4 on B at 1, the first copy's follower
    _, induction = mha.head_roles(np.stack([latest, first]), ids)
    assert induction.tolist() == [1.0, 0.5]


def test_one_token_has_no_scores_and_no_warning():
    """n = 1: no row has a previous token and no token repeats, so both scores are nan, with no numpy warning of a
    mean over nothing on the way."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prev, induction = mha.head_roles(np.ones((3, 1, 1)), [4])
    assert prev.shape == induction.shape == (3,) and np.isnan(prev).all() and np.isnan(induction).all()


def test_scores_are_float64_means_whatever_the_patterns_dtype():
    """Patterns in float32 (as a smaller trace might hold them): the scores are the float64 means of those values,
    not float32 means rounded to 7 digits."""
    rng = np.random.default_rng(0)
    probs = rng.random((2, 6, 6)).astype(np.float32)
    ids = [0, 1, 2, 0, 1, 2]
    prev, induction = mha.head_roles(probs, ids)
    assert prev.dtype == induction.dtype == np.float64
    exact = probs.astype(np.float64)
    for h in range(2):
        assert prev[h] == pytest.approx(sum(exact[h, i, i - 1] for i in range(1, 6)) / 5, rel=1e-15)
        assert induction[h] == pytest.approx(sum(exact[h, i, i - 2] for i in range(3, 6)) / 3, rel=1e-15)


def test_role_bars_read_missing_scores_as_none_and_warn_of_nothing():
    """Scores read back from JSON, where a score that does not exist is null: None counts as no score (nan). A kind
    with no score at all anywhere gives the floor, without numpy's all-nan warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mha.role_bars([([None, 0.5], [None, None])]) == pytest.approx((0.55, 0.4))
        assert mha.role_bars([(np.array([np.nan]), np.array([np.nan]))], floor=0.3) == (0.3, 0.3)
