"""The shipped trained model (mha/trained/): it solves repeated random tokens with an induction circuit.

Every measurement here is made afresh from the shipped weights on sequences the training never drew
(a generator seeded apart from training's), not read back from meta.json; meta.json only says how to draw them.
"""

import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import mha
from mha import train

ROOT = Path(__file__).resolve().parents[2]
N_FRESH = 500


@cache
def shipped() -> train.Trained:
    return mha.load_trained()


@cache
def fresh_measurements() -> dict:
    """Greedy accuracy on each second copy (its tokens after the first) and each head's mean attention
    on the previous token (every position i >= 1) and on the token after the current one's earlier copy."""
    t = shipped()
    task = train.Task(tuple(t.meta["alphabet"]), tuple(t.meta["repeat_lengths"]), t.meta.get("distinct", True))
    rng = np.random.default_rng(20261129)
    hits, prev, induction, first_prev, first_older = [], [], [], [], []
    for _ in range(N_FRESH):
        row = task.sample(rng, 1)[0]
        n, half = len(row), len(row) // 2
        trace = mha.model_forward(row, t.weights)
        hits.extend(np.argmax(trace.logits[half:n - 1], -1) == row[half + 1:])
        probs = np.stack([layer.attn.probs for layer in trace.layers])  # (layers, heads, n, n)
        i, j = np.arange(1, n), np.arange(half, n)
        prev.append(probs[:, :, i, i - 1].mean(-1))
        k = np.arange(2, half)  # first-copy positions with two or more tokens before them: the induction head's keys
        first_prev.append(probs[:, :, k, k - 1].mean(-1))
        older = np.tril(np.ones((n, n)), -2)[k]  # (len(k), n): the tokens before the previous one
        first_older.append((probs[:, :, k] * older).sum(-1).mean(-1))
        induction.append(probs[:, :, j, j - half + 1].mean(-1))
    return {"accuracy": float(np.mean(hits)), "previous_token": np.mean(prev, 0), "induction": np.mean(induction, 0),
            "first_copy_previous": np.mean(first_prev, 0), "first_copy_older": np.mean(first_older, 0)}


def test_shipped_model_has_the_recorded_sizes_and_vocabulary():
    t = shipped()
    sizes = t.meta["sizes"]
    assert t.weights.n_layers == sizes["n_layers"] == 2
    assert t.weights.d_model == sizes["d_model"] and t.weights.vocab_size == len(t.vocab) == len(t.meta["alphabet"])
    attn = t.weights.blocks[0].attn
    assert (attn.n_heads, attn.d_k, attn.d_v) == (sizes["n_heads"], sizes["d_k"], sizes["d_v"])
    assert len(set(t.vocab)) == len(t.vocab) and all(len(s) == 1 for s in t.vocab)


def test_shipped_model_predicts_the_second_copy():
    assert fresh_measurements()["accuracy"] >= 0.95


def test_a_layer_one_head_attends_to_the_previous_token():
    """Some layer-1 head puts half or more of its attention on the previous token, over every position (the
    issue's bar); where the induction head reads it (the first copy) that head's share on the previous token is
    at least 3 times what it puts on all older tokens together."""
    m = fresh_measurements()
    head = int(np.argmax(m["previous_token"][0]))
    assert m["previous_token"][0][head] >= 0.5, m["previous_token"]
    assert m["first_copy_previous"][0][head] >= 3 * m["first_copy_older"][0][head]


def test_a_layer_two_head_is_an_induction_head():
    assert fresh_measurements()["induction"][1].max() >= 0.5


def test_head_scores_agree_with_the_direct_measurement():
    """mha.train.head_scores (used for meta.json and the snapshots) on fresh sequences of one length."""
    t = shipped()
    task = train.Task(tuple(t.meta["alphabet"]), (6, 6))
    ids = task.sample(np.random.default_rng(5), 200)
    s = train.head_scores(t.weights, ids)
    direct = fresh_measurements()
    assert s["induction"][1].max() >= 0.5
    assert np.argmax(s["previous_token"][0]) == np.argmax(direct["previous_token"][0])
    assert np.argmax(s["induction"][1]) == np.argmax(direct["induction"][1])


def test_one_layer_model_does_clearly_worse():
    """Trained by the same command for the same steps, one layer makes at least 3 times the errors on the second
    copy, at a loss at least 3 times as high (README: 0.893 against 0.977; it has no previous-token head to
    build the induction step on)."""
    meta = shipped().meta
    one = meta["one_layer"]
    assert one["layers"] == 1 and 1 - one["accuracy"] >= 3 * (1 - meta["accuracy"])
    assert one["final_loss"] >= 3 * meta["final_loss"]
    assert meta["accuracy"] == pytest.approx(fresh_measurements()["accuracy"], abs=0.02)


def test_shipped_files_are_small():
    sizes = [p.stat().st_size for p in train.TRAINED_DIR.iterdir() if p.is_file()]
    assert sum(sizes) < 1_000_000


def test_snapshots_trace_a_falling_loss():
    snaps = shipped().snapshots
    assert 18 <= len(snaps) <= 25
    steps = [s[0] for s in snaps]
    assert steps[0] == 0 and steps[-1] == shipped().meta["steps"] and steps == sorted(steps)
    losses = [s[1] for s in snaps]
    assert losses[-1] < losses[0] / 10
    for _, _, weights, scores in snaps:
        assert weights.n_layers == 2 and scores["induction"].shape == (2, shipped().meta["sizes"]["n_heads"])
    # the snapshot losses are those of the stored snapshot weights (float32-rounded: to 1e-3)
    probe = train.Task(tuple(shipped().meta["alphabet"]), (6, 6), shipped().meta.get("distinct", True)).sample(
        np.random.default_rng([shipped().meta["seed"], 13]), 64)
    for step, loss, weights, _ in (snaps[0], snaps[len(snaps) // 2], snaps[-1]):
        assert train._eval_loss(train.params_of(weights), probe) == pytest.approx(loss, rel=1e-3, abs=1e-3), step


def test_final_weights_are_the_last_snapshots():
    final, last = train.params_of(shipped().weights), train.params_of(shipped().snapshots[-1][2])
    assert all(np.array_equal(final[k], last[k]) for k in final)


def test_retraining_with_the_shipped_seed_is_reproducible():
    seed = shipped().meta["seed"]
    runs = [train.train_shipped(steps=12, seed=seed, snapshots=4, n_eval=5) for _ in range(2)]
    (m1, s1, r1), (m2, s2, r2) = runs
    assert [rec["train_loss"] for _, _, rec in s1] == [rec["train_loss"] for _, _, rec in s2]
    p1, p2 = train.params_of(m1), train.params_of(m2)
    assert all(np.array_equal(p1[k], p2[k]) for k in p1)
    assert r1["accuracy"] == r2["accuracy"]


def test_command_line_writes_a_loadable_model(tmp_path):
    out = tmp_path / "model"
    done = subprocess.run([sys.executable, "-m", "mha.train", "--steps", "30", "--eval", "20", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    t = mha.load_trained(out)
    assert t.meta["steps"] == 30 and t.meta["one_layer"]["layers"] == 1
    assert len(t.snapshots) == 21 and t.weights.n_layers == 2
    assert mha.model_forward([0, 1, 2, 0], t.weights).logits.shape == (4, len(t.vocab))
