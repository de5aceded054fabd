"""Knocking heads out of a run already made: model.resume runs only the blocks from the first knocked layer on, and
gives what a whole new run gives; the repeated random sequences that find induction heads, and each head's scores
averaged over them (mha/circuits.py)."""

import numpy as np
import pytest

import mha
import mha.model
from mha.train import load_trained


@pytest.fixture(scope="module")
def model():
    return load_trained().weights


def _blocks_run(monkeypatch) -> list[int]:
    calls = []
    real = mha.model.block

    def counted(x, bw, *args, **kwargs):
        calls.append(1)
        return real(x, bw, *args, **kwargs)

    monkeypatch.setattr(mha.model, "block", counted)
    return calls


@pytest.mark.parametrize("knocked", [(), ((1, 0),), ((0, 1),), ((1, 1), (0, 0))])
def test_a_resumed_run_is_a_new_run_with_the_same_heads_knocked_out(model, knocked):
    ids = np.array([3, 1, 4, 1, 5, 2, 6, 5, 3, 5, 1, 4])
    whole = mha.model_forward(ids, model)
    new, resumed = mha.model_forward(ids, model, knocked=knocked), mha.resume(whole, model, knocked)
    for name in ("ids", "e", "p", "x", "final", "logits", "probs"):
        assert np.array_equal(getattr(resumed, name), getattr(new, name)), name
    cooled = mha.resume(whole, model, knocked, temperature=0.5)
    assert np.array_equal(cooled.probs, mha.model_forward(ids, model, temperature=0.5, knocked=knocked).probs)
    for a, b in zip(resumed.layers, new.layers, strict=True):
        assert np.array_equal(a.y, b.y) and np.array_equal(a.attn.probs, b.attn.probs)
    if knocked:
        assert not np.array_equal(resumed.logits, whole.logits)  # the knock-out is not lost on the way


@pytest.mark.parametrize(("knocked", "blocks"), [(((1, 0),), 1), (((0, 1),), 2), ((), 0)])
def test_a_resumed_run_runs_only_the_blocks_from_the_first_knocked_layer_on(model, monkeypatch, knocked, blocks):
    whole = mha.model_forward(np.arange(8), model)
    calls = _blocks_run(monkeypatch)
    mha.resume(whole, model, knocked)
    assert len(calls) == blocks


def test_the_task_score_from_runs_already_made_is_the_score_from_new_runs(model, monkeypatch):
    seqs = mha.repeated_tokens(model.vocab_size, 5, 6, seed=3)
    runs = [mha.model_forward(s, model) for s in seqs]
    new = mha.task_score(model, seqs, ((1, 0),))
    calls = _blocks_run(monkeypatch)
    assert mha.task_score(model, seqs, ((1, 0),), traces=runs) == new
    assert len(calls) == len(seqs)  # one block (layer 2) a sequence


def test_repeated_tokens_are_a_random_copy_then_the_same_copy():
    seqs = mha.repeated_tokens(50257, 20, 8, seed=1)
    assert seqs.shape == (8, 40) and seqs.dtype.kind == "i"
    assert np.array_equal(seqs[:, :20], seqs[:, 20:])
    assert all(len(set(row[:20])) == 20 for row in seqs)  # no id twice in a copy: each repeat is the copy's
    assert 0 <= seqs.min() and seqs.max() < 50257 and len(set(seqs.ravel())) > 150  # drawn from the whole vocabulary
    assert np.array_equal(seqs, mha.repeated_tokens(50257, 20, 8, seed=1))
    assert not np.array_equal(seqs, mha.repeated_tokens(50257, 20, 8, seed=2))
    for half in (0, 11):
        with pytest.raises(mha.ConfigError, match=f"^half must be 1..10 \\(the vocabulary\\); got {half}.$"):
            mha.repeated_tokens(10, half, 1)
    assert mha.repeated_tokens(10, 1, 2).shape == (2, 2)  # the edges of 1..vocab: one id, or every id once
    assert sorted(mha.repeated_tokens(10, 10, 1)[0, :10]) == list(range(10))


def test_each_heads_scores_are_its_attention_to_the_previous_token_and_to_the_token_after_the_earlier_copy(model):
    seqs = mha.repeated_tokens(model.vocab_size, 6, 5, seed=0)
    runs = [mha.model_forward(s, model) for s in seqs]
    prev, induction = mha.head_scores(runs)
    assert prev.shape == induction.shape == (model.n_layers, model.blocks[0].attn.n_heads)
    for layer in range(model.n_layers):  # by hand: S[i, i-1] over rows 1.., and S[i, i-L+1] over the second copy
        for head in range(prev.shape[1]):
            p = np.mean([np.mean([r.layers[layer].attn.probs[head, i, i - 1] for i in range(1, 12)]) for r in runs])
            ind = np.mean([np.mean([r.layers[layer].attn.probs[head, i, i - 5] for i in range(6, 12)]) for r in runs])
            assert prev[layer, head] == pytest.approx(p, abs=1e-12)
            assert induction[layer, head] == pytest.approx(ind, abs=1e-12)
    assert induction[1].max() > 0.5 > induction[0].max()  # the trained model's induction heads are in layer 2
    assert prev[0].max() > 0.3  # and a head of layer 1 reads the token before
