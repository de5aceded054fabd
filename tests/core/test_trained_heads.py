"""Issue 35's claims about the shipped model, measured on the held-out task sequences (mha.train.held_out): which
heads the model needs to copy, and what the induction heads write. The heads are found by their measured roles (the
shipped meta.json's scores), not by their numbers; `python -m mha.knockouts` prints the same table for the README."""

import numpy as np
import pytest

import mha
from mha.circuits import copies, task_score
from mha.train import held_out


@pytest.fixture(scope="module")
def model():
    trained = mha.load_trained()
    return trained.weights, trained.meta, held_out()


def roles(meta):
    prev, induction = np.array(meta["previous_token"]), np.array(meta["induction"])
    previous = (0, int(prev[0].argmax()))  # layer 1's previous-token head
    idle = (0, 1 - previous[1])  # layer 1's other head: no named role
    return previous, idle, [(1, h) for h in range(induction.shape[1]) if induction[1, h] > 0.4]


def test_the_held_out_set_is_fixed_and_the_shipped_task():
    a, b = held_out(), held_out()
    assert len(a) == 200 and all(np.array_equal(x, y) for x, y in zip(a, b))
    for row in a:
        half = len(row) // 2
        assert 4 <= half <= 8 and np.array_equal(row[:half], row[half:]) and row.max() < 8


def test_the_model_needs_both_induction_heads_and_the_previous_token_head(model):
    mw, meta, seqs = model
    previous, idle, induction = roles(meta)
    assert len(induction) == 2
    whole = task_score(mw, seqs).accuracy
    assert whole > 0.95
    assert task_score(mw, seqs, induction).accuracy <= 0.3
    assert whole - task_score(mw, seqs, [previous]).accuracy >= 0.25
    assert whole - task_score(mw, seqs, [idle]).accuracy < 0.1
    for head in induction:  # each alone: the other backs it up
        assert task_score(mw, seqs, [head]).accuracy > 0.6


def test_the_induction_heads_ov_circuits_copy(model):
    mw, meta, _ = model
    for layer, head in roles(meta)[2]:
        assert copies(mha.ov_circuit(mw, layer, head)) >= 5


def test_task_score_against_a_count_by_hand(model):
    mw, _, seqs = model
    hits = total = 0
    loss = 0.0
    for row in seqs[:20]:
        half = len(row) // 2
        for i in range(half, len(row) - 1):
            logits = mha.model_forward(row[: i + 1], mw).logits[-1]
            hits += int(np.argmax(logits) == row[i + 1])
            loss += float(np.log(np.exp(logits - logits.max()).sum()) + logits.max() - logits[row[i + 1]])
            total += 1
    score = task_score(mw, seqs[:20])
    assert score.predictions == total
    assert score.accuracy == pytest.approx(hits / total)
    assert score.loss == pytest.approx(loss / total, rel=1e-9)
