"""The training loop's contract against references written here: Adam's update from its formulas, fit's schedule
(warm-up over 5% of the steps, cosine down to 10%), its snapshots and progress calls, greedy accuracy and evaluate's
pooling from loops over model_forward, what train_shipped passes on and records, and the command line writing a
model that loads. Tiny models and a handful of steps: each test runs in well under a second. Written where mutation
testing (bench/mutation.sh) found changes to mha/train.py that no test noticed (the reproducibility test compares two
runs of the same code, so a change to both goes unseen)."""

import json
import math
import re
import time
import warnings

import numpy as np
import pytest

import mha
from mha import train

VOCAB = ["a", "b", "c", "d"]
TASK = train.Task(alphabet=(0, 1, 2, 3), lengths=(2, 3), distinct=False)


def _tiny(seed: int = 0) -> mha.ModelWeights:
    cfg = mha.AttentionConfig(d_model=4, d_k=3, d_v=2, n_heads=2, d_ff=5, seed=seed)
    return mha.init_model(cfg, VOCAB, n_layers=1, positions="learned", n_ctx=8)


# ---------------------------------------------------------------- Adam


def _adam_reference(p0, grads_by_step, lrs, betas=(0.9, 0.99), eps=1e-8):
    """Kingma & Ba's Adam, element by element: m, v moving averages, bias-corrected by 1 − β^t, t from 1."""
    p = {k: v.astype(float).copy() for k, v in p0.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    for t, (grads, lr) in enumerate(zip(grads_by_step, lrs), start=1):
        for k, g in grads.items():
            for idx in np.ndindex(g.shape):
                m[k][idx] = betas[0] * m[k][idx] + (1 - betas[0]) * g[idx]
                v2[k][idx] = betas[1] * v2[k][idx] + (1 - betas[1]) * g[idx] ** 2
                m_hat = m[k][idx] / (1 - betas[0] ** t)
                v_hat = v2[k][idx] / (1 - betas[1] ** t)
                p[k][idx] -= lr * m_hat / (math.sqrt(v_hat) + eps)
    return p


def test_adam_steps_follow_the_formulas_with_the_default_betas_and_eps():
    """Three steps, gradients from 1e-9 (where ε = 1e-8 dominates the denominator) to 3, the second step with an
    lr of its own: the parameters are Adam's, and the lr given to the optimiser is used when a step gives none."""
    rng = np.random.default_rng(0)
    p = {"a": rng.standard_normal((2, 3)), "b": rng.standard_normal(4)}
    scales = np.array([1e-9, 1e-3, 1.0, 3.0])
    grads = [{"a": rng.standard_normal((2, 3)) * scales[1:3].mean(), "b": rng.standard_normal(4) * scales}
             for _ in range(3)]
    want = _adam_reference(p, grads, [0.05, 0.2, 0.05])
    opt = train.Adam(p, 0.05)
    opt.step(p, grads[0])
    opt.step(p, grads[1], 0.2)
    opt.step(p, grads[2], None)
    for k in p:
        np.testing.assert_allclose(p[k], want[k], rtol=1e-12, atol=1e-15, err_msg=k)


# ---------------------------------------------------------------- fit


def _second_copy(n: int) -> np.ndarray:
    """Which of the n−1 predictions count: position i predicts token i+1; those of the second copy after its first
    token are i = L..2L−2."""
    half = n // 2
    return np.array([1.0 if half <= i <= n - 2 else 0.0 for i in range(n - 1)])


def _fit_reference(mw, task, *, steps, batch, lr, seed, snapshots):
    """fit written from its docstring: Adam on the second copy's loss, batches from default_rng([seed, 7]); the lr
    scaled by min(1, (step+1)/warm) with warm = max(1, steps // 20), times 0.1 + 0.9·(1 + cos(π step/steps))/2;
    snapshots at floor(i·steps/snapshots), i = 0..snapshots, each with the mean loss of the steps since the last."""
    p = train.params_of(mw)
    rng = np.random.default_rng([seed, 7])
    marks = {i * steps // snapshots for i in range(snapshots + 1)}
    warm = max(1, steps // 20)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    history, recent = [], []
    for step in range(steps + 1):
        if step in marks:
            history.append((step, float(np.mean(recent)) if recent else math.nan, {k: a.copy() for k, a in p.items()}))
            recent = []
        if step == steps:
            break
        ids = task.sample(rng, batch)
        loss, grads = train.loss_and_grads(p, ids, np.tile(_second_copy(ids.shape[1]), (batch, 1)))
        recent.append(loss)
        rate = lr * min(1.0, (step + 1) / warm) * (0.1 + 0.9 * (1 + math.cos(math.pi * step / steps)) / 2)
        t = step + 1
        for k, g in grads.items():
            m[k] = 0.9 * m[k] + 0.1 * g
            v2[k] = 0.99 * v2[k] + 0.01 * g * g
            p[k] = p[k] - rate * (m[k] / (1 - 0.9**t)) / (np.sqrt(v2[k] / (1 - 0.99**t)) + 1e-8)
    return p, history


@pytest.mark.parametrize("steps, snapshots", [(5, 2), (41, 4)], ids=["warm 1, a fractional mark", "warm 2"])
def test_fit_is_adam_with_warmup_and_cosine_decay_and_keeps_its_snapshots(steps, snapshots):
    """Trained parameters, every snapshot (its step, the mean training loss since the one before, nan at step 0,
    and a copy of the parameters then) and every progress call are the reference's."""
    mw = _tiny()
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # step 0's nan loss is said, not numpy's mean of nothing
        trained, history = train.fit(mw, TASK, steps=steps, batch=3, lr=0.05, seed=4, snapshots=snapshots,
                                     progress=lambda step, loss: calls.append((step, loss)))
    want_p, want_history = _fit_reference(mw, TASK, steps=steps, batch=3, lr=0.05, seed=4, snapshots=snapshots)
    got_p = train.params_of(trained)
    for k in want_p:
        np.testing.assert_allclose(got_p[k], want_p[k], rtol=1e-9, atol=1e-12, err_msg=k)
    assert [s.step for s in history] == [s for s, _, _ in want_history]
    assert math.isnan(history[0].loss) and math.isnan(calls[0][1])
    np.testing.assert_allclose([s.loss for s in history[1:]], [loss for _, loss, _ in want_history[1:]], rtol=1e-9)
    assert [c[0] for c in calls] == [s.step for s in history]
    np.testing.assert_array_equal([c[1] for c in calls[1:]], [s.loss for s in history[1:]])
    for snap, (step, _, params) in zip(history, want_history):
        for k in params:
            np.testing.assert_allclose(snap.params[k], params[k], rtol=1e-9, atol=1e-12, err_msg=f"{step} {k}")


def test_fit_defaults_are_batch_32_lr_0_01_seed_0_and_20_snapshots():
    """fit(mw, task, steps=40) is fit with batch 32, lr 0.01, seed 0, 20 snapshots: one every 2 steps."""
    mw = _tiny()
    (plain, h1), (told, h2) = train.fit(mw, TASK, steps=40), train.fit(mw, TASK, steps=40, batch=32, lr=0.01, seed=0,
                                                                        snapshots=20)
    assert [s.step for s in h1] == list(range(0, 41, 2)) == [s.step for s in h2]
    p1, p2 = train.params_of(plain), train.params_of(told)
    assert all(np.array_equal(p1[k], p2[k]) for k in p1)


# ---------------------------------------------------------------- accuracy and evaluate


@pytest.fixture(scope="module")
def shipped() -> mha.ModelWeights:
    return train.load_trained().weights


def _hits(mw, row):
    """Per prediction of the second copy after its first token: did the greedy choice name the next token?"""
    logits = mha.model_forward(row, mw).logits
    half = len(row) // 2
    return [int(np.argmax(logits[i])) == int(row[i + 1]) for i in range(half, len(row) - 1)]


def test_accuracy_counts_the_greedy_hits_of_the_second_copy(shipped):
    """On the shipped model (which copies well but not perfectly) and on an untrained one (which mostly fails)."""
    ids = train.Task(tuple(range(8)), (6, 6), distinct=False).sample(np.random.default_rng(1), 8)
    for mw in (shipped, mha.init_model(mha.AttentionConfig(seed=1, **train.SHIPPED), list(train.SYMBOLS[:8]),
                                       n_layers=2, positions="learned", n_ctx=16)):
        hits = [h for row in ids for h in _hits(mw, row)]
        assert train.accuracy(mw, ids) == pytest.approx(np.mean(hits), abs=1e-12)


def test_evaluate_pools_every_prediction_and_averages_head_scores_over_sequences(shipped):
    """Sequences of several lengths: accuracy is the hits over all predictions (a length with more predictions
    weighs more), and each head's scores the mean over the n sequences of head_scores on each alone."""
    task = train.Task(tuple(range(8)), (2, 8), distinct=False)
    n = 9
    untrained = mha.init_model(mha.AttentionConfig(seed=1, **train.SHIPPED), list(train.SYMBOLS[:8]), n_layers=2,
                               positions="learned", n_ctx=16)
    for mw in (shipped, untrained):  # the shipped model copies (almost) every token; the untrained one does not
        got = train.evaluate(mw, task, np.random.default_rng(5), n)
        rng = np.random.default_rng(5)
        rows = [task.sample(rng, 1)[0] for _ in range(n)]
        assert len({len(r) for r in rows}) > 2
        hits = [h for row in rows for h in _hits(mw, row)]
        scores = [train.head_scores(mw, row[None]) for row in rows]
        assert got["accuracy"] == pytest.approx(np.mean(hits), abs=1e-12)
        for kind in ("previous_token", "induction"):
            np.testing.assert_allclose(got[kind], np.mean([s[kind] for s in scores], 0), rtol=1e-12, err_msg=kind)
        assert set(got) == {"accuracy", "previous_token", "induction"}
    assert 0 < np.mean(hits) < 1


def test_evaluate_draws_500_sequences_by_default(monkeypatch):
    seen = []
    monkeypatch.setattr(train, "accuracy", lambda mw, ids: seen.append(len(ids)) or 1.0)
    monkeypatch.setattr(train, "head_scores", lambda mw, ids: {"previous_token": np.ones((1, 1)),
                                                               "induction": np.ones((1, 1))})
    got = train.evaluate(None, TASK, np.random.default_rng(0))
    assert sum(seen) == 500 and got["accuracy"] == 1.0 and got["previous_token"] == [[1.0]]


# ---------------------------------------------------------------- train_shipped, save, load, main


def _spies(monkeypatch):
    """fit passed through (recording its arguments), evaluate recorded and answered cheaply."""
    calls = {}
    real_fit = train.fit

    def fit(mw, task, **kwargs):
        calls["fit"] = (mw, task, kwargs)
        return real_fit(mw, task, **kwargs)

    def evaluate(mw, task, rng, n=500):
        calls["evaluate"] = (mw, task, rng.random(), n)
        return {"accuracy": 0.5, "previous_token": [[0.0]], "induction": [[0.0]]}

    monkeypatch.setattr(train, "fit", fit)
    monkeypatch.setattr(train, "evaluate", evaluate)
    return calls


def test_train_shipped_defaults_are_the_shipped_settings(monkeypatch):
    """Two layers over A..H of the shipped sizes, seed 0, batch 32, lr 0.01, 20 snapshots, 500 evaluation sequences,
    on the task whose first copy may repeat a symbol."""
    calls = _spies(monkeypatch)
    trained, snaps, metrics = train.train_shipped(steps=0)
    mw, task, kwargs = calls["fit"]
    assert task == train.Task(tuple(range(8)), (4, 8), False)
    assert kwargs == dict(steps=0, batch=32, lr=0.01, seed=0, snapshots=20, progress=None)
    assert calls["evaluate"][3] == 500 and calls["evaluate"][1] == task
    assert calls["evaluate"][2] == np.random.default_rng([0, 11]).random()
    want = mha.init_model(mha.AttentionConfig(seed=0, **train.SHIPPED), list("ABCDEFGH"), n_layers=2,
                          positions="learned", n_ctx=16)
    p, q = train.params_of(trained), train.params_of(want)
    assert p.keys() == q.keys() and all(np.array_equal(p[k], q[k]) for k in p)
    assert metrics["layers"] == 2 and len(snaps) == 1


def test_train_shipped_passes_its_settings_on_and_records_each_snapshot(monkeypatch):
    """Every setting reaches fit, the model is init_model's for that seed, and each snapshot's record holds its
    step, its loss on the fixed probe (64 sequences of L = 6 from default_rng([seed, 13])), its training loss (None
    at step 0) and head_scores on the probe; the metrics add the last record's losses and the CPU seconds."""
    calls = _spies(monkeypatch)
    clock = [100.0, 102.34567]
    monkeypatch.setattr(time, "process_time", lambda: clock.pop(0) if len(clock) > 1 else clock[0])
    progress = []
    trained, snaps, metrics = train.train_shipped(layers=1, steps=3, batch=2, lr=0.2, seed=3, snapshots=3,
                                                  n_eval=7, symbols=10, distinct=True,
                                                  progress=lambda s, loss: progress.append(s))
    mw, task, kwargs = calls["fit"]
    assert task == train.Task(tuple(range(10)), (4, 8), True)
    assert kwargs == dict(steps=3, batch=2, lr=0.2, seed=3, snapshots=3, progress=kwargs["progress"])
    assert progress == [0, 1, 2, 3]
    assert calls["evaluate"][3] == 7 and calls["evaluate"][2] == np.random.default_rng([3, 11]).random()
    start = mha.init_model(mha.AttentionConfig(seed=3, **train.SHIPPED), list("ABCDEFGHIJ"), n_layers=1,
                           positions="learned", n_ctx=16)
    p0, s0 = train.params_of(start), snaps[0][1]
    assert all(np.array_equal(p0[k], s0[k]) for k in p0)
    assert trained.n_layers == 1
    probe = train.Task(tuple(range(10)), (6, 6), True).sample(np.random.default_rng([3, 13]), 64)
    assert [step for step, _, _ in snaps] == [0, 1, 2, 3]
    for step, params, rec in snaps:
        assert set(rec) == {"step", "loss", "train_loss", "previous_token", "induction"} and rec["step"] == step
        assert rec["loss"] == pytest.approx(train._eval_loss(params, probe), rel=1e-12)
        s = train.head_scores(train.model_of(params), probe)
        assert rec["previous_token"] == s["previous_token"].tolist() and rec["induction"] == s["induction"].tolist()
        assert (rec["train_loss"] is None) == (step == 0)
    assert snaps[1][2]["loss"] != snaps[-1][2]["loss"]
    assert metrics["final_loss"] == snaps[-1][2]["loss"] and metrics["final_train_loss"] == snaps[-1][2]["train_loss"]
    assert metrics["train_cpu_seconds"] == 2.35 and metrics["layers"] == 1 and metrics["accuracy"] == 0.5


def test_a_trained_model_saves_and_loads_back_with_its_snapshots(tmp_path):
    """save_trained writes float32 weights (final and one set per snapshot) and meta.json; load_trained reads them
    back as float64 with each snapshot's step, loss and head scores from meta."""
    mw = _tiny(2)
    trained, history = train.fit(mw, TASK, steps=2, batch=2, snapshots=2)
    records = [{"step": s.step, "loss": 1.5 + i, "previous_token": [[0.25, 0.5]], "induction": [[0.75, 1.0]]}
               for i, s in enumerate(history)]
    meta = {"vocab": VOCAB, "snapshots": records, "note": "ünïcode"}
    train.save_trained(tmp_path / "new" / "dir", trained, [(s.step, s.params, r) for s, r in zip(history, records)],
                       meta)
    out = tmp_path / "new" / "dir"
    assert json.loads((out / "meta.json").read_text(encoding="utf-8")) == meta
    text = (out / "meta.json").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    lines = text.splitlines()  # one key a line, indented by one space a level: small diffs when it is retrained
    assert lines[0] == "{" and lines[1] == ' "vocab": [' and lines[2] == '  "a",'
    with np.load(out / "weights.npz") as z:
        assert all(z[k].dtype == np.float32 for k in z.files)
        assert sorted({k.split("/")[0] for k in z.files}) == ["final", "snap00", "snap01", "snap02"]
    back = train.load_trained(out)
    assert back.vocab == VOCAB and back.meta == meta
    want = train.params_of(trained)
    got = train.params_of(back.weights)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k].astype(np.float32).astype(np.float64), err_msg=k)
    for (step, loss, weights, scores), snap, rec in zip(back.snapshots, history, records):
        assert step == snap.step and loss == rec["loss"]
        np.testing.assert_array_equal(scores["induction"], rec["induction"])
        np.testing.assert_array_equal(scores["previous_token"], rec["previous_token"])
        p = train.params_of(weights)
        assert all(np.array_equal(p[k], snap.params[k].astype(np.float32)) for k in p)


@pytest.mark.parametrize("first_copy", ["distinct", "repeats"])
def test_the_command_line_trains_both_models_and_writes_what_it_was_told(tmp_path, capsys, first_copy):
    """python -m mha.train with zero steps: the two-layer model and the one-layer one are trained, meta.json
    records every setting and both models' metrics, and what is printed says where the files went."""
    out = tmp_path / "model"
    meta = train.main(["--steps", "0", "--eval", "3", "--out", str(out), "--seed", "2", "--layers", "2",
                       "--batch", "4", "--lr", "0.5", "--first-copy", first_copy, "--symbols", "9"])
    distinct = first_copy == "distinct"
    task = ("L distinct random symbols, then the same L again; predict the second copy after its first token"
            if distinct else
            "L random symbols (they may repeat), then the same L again; predict the second copy after its first token")
    assert meta["task"] == task and meta["distinct"] is distinct
    assert meta["vocab"] == list("ABCDEFGHI") and meta["alphabet"] == list(range(9))
    assert meta["repeat_lengths"] == [4, 8]
    assert meta["sizes"] == {**train.SHIPPED, "n_layers": 2, "positions": "learned", "n_ctx": 16}
    assert (meta["steps"], meta["batch"], meta["lr"], meta["seed"], meta["eval_sequences"]) == (0, 4, 0.5, 2, 3)
    assert meta["schedule"] == "Adam (0.9, 0.99); warm-up over 5% of the steps, cosine down to 10%"
    assert meta["snapshot_loss"] == "cross-entropy on the second copy of 64 fixed sequences (L = 6)"
    assert meta["numpy"] == np.__version__ and meta["layers"] == 2 and meta["one_layer"]["layers"] == 1
    assert len(meta["snapshots"]) == 1 and meta["snapshots"][0]["step"] == 0
    assert json.loads((out / "meta.json").read_text(encoding="utf-8")) == meta
    t = mha.load_trained(out)
    assert t.weights.n_layers == 2 and t.vocab == list("ABCDEFGHI")
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"2 layer(s): accuracy {meta['accuracy']:.4f}, loss {meta['final_loss']:.4g}, ")
    assert printed[1].startswith(f"1 layer: accuracy {meta['one_layer']['accuracy']:.4f}, ")
    size = (out / "weights.npz").stat().st_size
    assert printed[2] == f"wrote {out / 'weights.npz'} ({size} bytes) and meta.json"


def test_the_command_line_defaults(monkeypatch, tmp_path):
    """Without options: seed 0, the shipped steps, 2 layers, batch 32, lr 0.01, 500 evaluation sequences, A..H
    that may repeat, written to mha/trained/ (here: every call recorded instead)."""
    seen = []

    def fake(**settings):
        seen.append(settings)
        return None, [], {"accuracy": 0.0, "final_loss": 0.0, "train_cpu_seconds": 0.0}

    monkeypatch.setattr(train, "train_shipped", fake)
    monkeypatch.setattr(train, "save_trained", lambda out, *a: seen.append(out))
    train.main([])  # (its last line sizes the shipped weights.npz, which save_trained did not touch)
    settings = dict(steps=train.STEPS, batch=32, lr=0.01, seed=0, n_eval=500, distinct=False, symbols=8)
    assert seen[:2] == [dict(layers=2, **settings), dict(layers=1, **settings)]
    assert seen[2] == train.TRAINED_DIR


@pytest.mark.parametrize("symbols", ["1", "17"])
def test_the_command_line_refuses_fewer_than_2_or_more_than_16_symbols(symbols, capsys, tmp_path):
    with pytest.raises(SystemExit):
        train.main(["--symbols", symbols, "--steps", "0", "--eval", "1", "--out", str(tmp_path)])
    assert "argument --symbols: invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("symbols", [2, 16])
def test_the_command_line_takes_2_to_16_symbols(symbols, tmp_path):
    meta = train.main(["--symbols", str(symbols), "--steps", "0", "--eval", "1", "--out", str(tmp_path)])
    assert meta["vocab"] == list(train.SYMBOLS[:symbols]) and meta["alphabet"] == list(range(symbols))


# ---------------------------------------------------------------- the pieces fit and the measurements use


def test_training_a_model_with_sinusoidal_positions_is_refused_in_words():
    mw = mha.init_model(mha.AttentionConfig(d_model=4, d_k=3, d_v=2), VOCAB)
    with pytest.raises(ValueError, match=r"^training needs learned positions \(init_model\(\.\.\., "
                                         r"positions='learned'\)\)\.$"):
        train.params_of(mw)


def test_a_task_sample_of_a_given_length_has_that_length():
    """length= overrides the task's range: 6 symbols twice even where the task draws 2 or 3."""
    ids = TASK.sample(np.random.default_rng(0), 4, length=6)
    assert ids.shape == (4, 12) and np.array_equal(ids[:, :6], ids[:, 6:])


@pytest.mark.parametrize("n", [2, 7, 8])
def test_second_copy_weights_mark_the_predictions_after_the_second_copys_first_token(n):
    """Position i predicts token i+1: of the n−1 predictions those from i = n//2 on count, each with weight 1."""
    assert train.second_copy_weights(n).tolist() == _second_copy(n).tolist()


def test_held_out_sequences_are_the_shipped_task_from_their_own_stream():
    """200 sequences by default, drawn one at a time from default_rng([0, 35]): L of A..H that may repeat (the
    shipped task), then the same L again."""
    seqs = train.held_out()
    assert len(seqs) == 200
    rng = np.random.default_rng([0, 35])
    for row in seqs:
        length = int(rng.integers(4, 9))
        first = rng.choice(8, size=(1, length), replace=True)[0]
        np.testing.assert_array_equal(row, np.concatenate([first, first]))
    assert any(len(set(row[: len(row) // 2])) < len(row) // 2 for row in seqs)
    assert all(set(row) <= set(range(5)) for row in train.held_out(3, symbols=5))


def test_the_command_line_explains_itself(monkeypatch, capsys):
    """--help: what the command does, and what --eval, --first-copy and --symbols mean."""
    monkeypatch.setenv("COLUMNS", "300")
    with pytest.raises(SystemExit):
        train.main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m mha.train [-h] [--seed SEED] [--steps STEPS] [--layers LAYERS] "
                          "[--batch BATCH] [--lr LR] [--eval EVAL] [--out OUT] [--first-copy {distinct,repeats}] "
                          "[--symbols 2..16]\n")
    assert ("\nTrain the shipped induction-head model (and a one-layer one to compare) and write weights.npz + "
            "meta.json.\n") in out
    for option, words in (("--eval EVAL", "fresh sequences for the final metrics"),
                          ("--first-copy {distinct,repeats}",
                           "whether the first copy's symbols are distinct or may repeat"),
                          ("--symbols 2..16",
                           "how many symbols (A, B, …) the task draws from; they are the whole vocabulary")):
        assert re.search(rf"\n  {re.escape(option)}\s+{re.escape(words)}\n", out), option
