"""The trained model in the app (`model=trained`): its sizes, its letters, the chosen layer's real numbers on
every stage of the walk, each head named by scores measured on the page's sequence, and the next letter
continuing the repeat. Every number is computed again here from mha's core, with loops where it is a score."""

import ast
import re
import threading
import time

import numpy as np
import pytest

import mha
from mha.ui.stages.heads import TRAINER
from mha.ui.strings import EN, TABLES, ZH, Text, md_escape

from .helpers import charts, page_text, rerun, run, warnings, z

TRAINED = mha.load_trained()
INDEX = {c: i for i, c in enumerate(TRAINED.vocab)}


def ids_of(text: str) -> np.ndarray:
    return np.array([INDEX[c] for c in text if not c.isspace()])


def loop_scores(probs: np.ndarray, ids: np.ndarray) -> tuple[float, float]:
    """Previous-token and induction score of one head's S (n, n), one row at a time."""
    n = len(ids)
    prev = sum(probs[i, i - 1] for i in range(1, n)) / (n - 1)
    hits = []
    for i in range(n):
        earlier = [j for j in range(i) if ids[j] == ids[i]]
        if earlier:
            hits.append(probs[i, earlier[-1] + 1])
    return prev, (sum(hits) / len(hits)) if hits else float("nan")


def table_rows(at) -> list[list[str]]:
    """The rows of every table on the page, in order (a table may follow words in its element)."""
    tables = [block.splitlines() for m in at.markdown for block in m.value.split("\n\n") if block.startswith("| ")]
    return [[c.strip().strip("*") for c in line.strip("|").split("|")] for table in tables for line in table[2:]]


def test_the_trained_model_fixes_the_sizes_and_opens_on_a_repeat_of_its_task():
    at = run(model="trained", stage="tokens")
    ss = at.session_state
    sizes = TRAINED.meta["sizes"]
    assert [ss[k] for k in ("d_model", "d_k", "d_v", "n_heads", "d_ff")] == \
        [sizes[k] for k in ("d_model", "d_k", "d_v", "n_heads", "d_ff")]
    letters = ss["text"].split()
    half = len(letters) // 2
    assert letters[:half] == letters[half:] and set(letters) <= set(TRAINED.vocab) and len(set(letters[:half])) == half
    lo, hi = TRAINED.meta["repeat_lengths"]
    assert lo <= half <= hi and ss["n_tokens"] == 2 * half
    assert all(at.sidebar.number_input(key=k).disabled for k in ("d_model", "d_k", "d_v", "n_heads"))
    at.sidebar.radio(key="stage").set_value("block")  # d_ff is in the sidebar where the FFN is drawn, fixed too
    assert rerun(at).sidebar.number_input(key="d_ff").disabled
    at.sidebar.radio(key="stage").set_value("tokens")
    rerun(at)
    at.button(key="new_repeat").click()
    rerun(at)
    assert at.session_state["text"] != " ".join(letters)


@pytest.mark.parametrize("layer", [1, 2])
@pytest.mark.parametrize("head", [1, 2])
def test_the_walk_shows_the_chosen_layer_s_attention(layer, head):
    text = "C F A G E C F A G E"
    at = run(model="trained", stage="scores", layer=layer, head=head, text=text)
    tr = mha.model_forward(ids_of(text), TRAINED.weights)
    s = tr.layers[layer - 1].attn.probs[head - 1]
    spec = charts(at)[0]
    drawn = next(z(t) for t in spec["data"] if t.get("type") == "heatmap" and z(t).shape == s.shape
                 and np.allclose(np.nan_to_num(z(t)), s, atol=1e-9))
    assert drawn is not None
    assert spec["layout"]["yaxis"]["ticktext"] == text.split()


@pytest.mark.parametrize("text", ["H B F D A H B F D A", "H B F D A H B F D A H B F"])  # thresholds 0.40/0.41, 0.40
@pytest.mark.parametrize("lang, table", [("en", EN), ("zh", ZH)])
def test_the_heads_panel_scores_every_head_on_this_sequence(lang, table, text):
    at = run(model="trained", stage="heads", text=text, lang=lang)
    assert table["roles_title"] in page_text(at)
    tr = mha.model_forward(ids_of(text), TRAINED.weights)
    rows = table_rows(at)[:4]
    for row in rows:
        layer, head, prev, induction, role = row
        want_prev, want_ind = loop_scores(tr.layers[int(layer) - 1].attn.probs[int(head) - 1], ids_of(text))
        assert float(prev) == pytest.approx(want_prev, abs=0.005)
        assert float(induction) == pytest.approx(want_ind, abs=0.005)
        bars = untrained_bars(text)
        named = [k for k, v, bar in (("previous", want_prev, bars[0]), ("induction", want_ind, bars[1])) if v >= bar]
        want = table["role_both"] if len(named) == 2 else table[f"role_{named[0]}"] if named else table["role_none"]
        assert role == want
    assert any(r[4] == table["role_induction"] and r[0] == "2" for r in rows)  # the shipped model's layer 2
    # the words give the page's thresholds, each number once (audit 2026-12-04 #12: "at least 0.40
    # (previous-token) or 0.40 (induction): 0.40, or …")
    prev_bar, ind_bar = (f"{b:.2f}" for b in untrained_bars(text))
    said = Text(lang)("roles_bars_same", bar=prev_bar) if prev_bar == ind_bar else \
        Text(lang)("roles_bars", prev_bar=prev_bar, ind_bar=ind_bar)
    words = next(m.value for m in at.markdown if table["roles_title"] in m.value)
    assert said in words, words


def untrained_bars(text: str) -> tuple[float, float]:
    """Independent of the app: 0.4, or 0.05 above the best score of any head of the untrained snapshot (step 0) on
    the same sequence, for each kind of score."""
    ids = ids_of(text)
    tr = mha.model_forward(ids, TRAINED.snapshots[0][2])
    scores = [loop_scores(layer.attn.probs[h], ids) for layer in tr.layers for h in range(len(layer.attn.probs))]
    return tuple(max(0.4, max(s[k] for s in scores if not np.isnan(s[k])) + 0.05) for k in (0, 1))


@pytest.mark.parametrize("text", ["C D C D", "C E C E", "D F C A B D F C A B", "G C E G C E", "H B F D A H B F D A"])
def test_at_step_0_no_head_is_named(text):
    """Untrained heads scored up to 0.72 on such sequences (the mask alone gives row 2 half its weight on row 1),
    and one was named a previous-token head at 0.40 against a 0.4 bar. A name now needs a score clear of what the
    untrained model's heads reach on the same sequence."""
    at = run(model="trained", stage="heads", text=text, part="timeline")
    at.select_slider(key="snapshot").set_value(0)
    rerun(at)
    then = table_rows(at)
    assert len(then) == 4 and all(r[4] == EN["role_none"] for r in then), then
    bars = untrained_bars(text)
    at.session_state["heads_part"] = "patterns"  # where the bars are said, over the page's own table
    rerun(at)
    assert f"{bars[0]:.2f}" in page_text(at) and f"{bars[1]:.2f}" in page_text(at)


def test_a_head_s_label_follows_its_scores_not_a_list():
    """A sequence without a repeat gives no induction score and names no induction head."""
    at = run(model="trained", stage="heads", text="A B C D E F")
    rows = table_rows(at)
    at.session_state["heads_part"] = "timeline"
    rows += table_rows(rerun(at))
    assert len(rows) == 8  # now and at the last snapshot
    assert all(r[3] == EN["roles_no_repeat"] and r[4] != EN["role_induction"] for r in rows)


def test_the_next_letter_continues_the_repeat_and_appending_completes_it():
    at = run(model="trained", stage="next_token", text="B C G A E B C")
    for want in "GAE":
        chosen = next(m.value for m in at.markdown if m.value.startswith("Greedy choice"))
        assert f"“{want}”" in chosen, chosen
        at.button(key="append_token").click()
        rerun(at)
    assert at.session_state["text"].split() == list("BCGAEBCGAE")
    assert EN["next_trained"] in page_text(at)


def test_letters_the_model_does_not_know_are_left_out_with_a_notice():
    at = run(model="trained", stage="tokens", text="a b z 9 a b")
    assert at.session_state["n_tokens"] == 4  # a b a b, read as A B A B
    vocab = len(TRAINED.vocab)
    assert f"4 tokens, 2 distinct; the trained model's vocabulary has {vocab} letters, so E has {vocab} rows" \
        in page_text(at)
    warning = " ".join(warnings(at))
    assert "z" in warning and "9" in warning


def test_the_model_and_layer_travel_in_the_link_and_the_fixed_sizes_do_not():
    at = run(stage="heads")
    at.sidebar.segmented_control(key="model").set_value("trained")
    rerun(at)
    at.sidebar.segmented_control(key="layer").set_value(2)
    rerun(at)
    params = at.query_params
    assert params["model"] == "trained" and params["layer"] == "2"
    assert "d_model" not in params and "d_ff" not in params
    again = run(**dict(params))
    assert again.session_state["layer"] == 2 and again.session_state["text"] == at.session_state["text"]
    at.sidebar.segmented_control(key="model").set_value("seeded")
    rerun(at)
    assert at.session_state["d_model"] == 5 and "model" not in at.query_params


def test_a_bad_layer_in_a_link_is_clamped_with_a_notice():
    at = run(model="trained", layer=7, stage="qk")
    assert at.session_state["layer"] == 2
    assert any("layer" in w.value for w in at.warning)


def test_the_timeline_scrubs_through_training():
    """At a snapshot before the induction head formed, layer 2's patterns and scores are that snapshot's, the
    loss curve marks it, and no layer-2 head is named an induction head; at the last one, one is."""
    text = "H B F D A H B F D A"
    at = run(model="trained", stage="heads", text=text, layer=2, part="timeline")
    slider = at.select_slider(key="snapshot")
    steps = [step for step, *_ in TRAINED.snapshots]
    assert slider.value == steps[-1]
    slider.set_value(300)
    rerun(at)
    k = steps.index(300)
    snap = TRAINED.snapshots[k][2]
    tr = mha.model_forward(ids_of(text), snap)
    loss = next(s for s in charts(at) if any(t.get("mode") == "lines+markers" for t in s["data"]))
    assert loss["data"][1]["x"] == [300] and loss["data"][1]["y"] == [TRAINED.snapshots[k][1]]
    maps = [s for s in charts(at) if sum(t.get("type") == "heatmap" for t in s["data"]) == 2]
    np.testing.assert_allclose(np.nan_to_num(z(maps[-1]["data"][0])), tr.layers[1].attn.probs[0], atol=1e-9)
    then = table_rows(at)  # the snapshot's heads
    for layer, head, prev, induction, _ in then:
        want = loop_scores(tr.layers[int(layer) - 1].attn.probs[int(head) - 1], ids_of(text))
        assert float(prev) == pytest.approx(want[0], abs=0.005)
        assert float(induction) == pytest.approx(want[1], abs=0.005)
    assert not any(r[0] == "2" and r[4] == EN["role_induction"] for r in then)
    at.session_state["heads_part"] = "patterns"  # the page's own run, the trained model as shipped
    assert any(r[0] == "2" and r[4] == EN["role_induction"] for r in table_rows(rerun(at)))


@pytest.fixture
def short_training(monkeypatch):
    """A retraining of 40 steps (the page's run is 6000: a minute): the mechanics, not the model. No rest between
    runs unless a test sets one."""
    from mha.ui import training

    monkeypatch.setattr(training, "STEPS", 40)
    monkeypatch.setattr(training, "N_EVAL", 10)
    monkeypatch.setattr(training, "REST_S", 0.0)
    monkeypatch.setattr(training, "_kept", type(training._kept)())
    monkeypatch.setattr(training, "_job", None)
    monkeypatch.setattr(training, "_rested_at", 0.0)
    return training


def test_the_server_keeps_the_last_max_kept_seeds_it_says_it_keeps(short_training, monkeypatch):
    """The page says the server "keeps the last {kept} seeds" (MAX_KEPT): as many are kept, and the next run lets
    the oldest go, the others staying (planted p24: one fewer kept). The trainer's own run, its training a stand-in."""
    monkeypatch.setattr(short_training, "_train", lambda job: f"model of seed {job.seed}")
    seeds = list(range(1, short_training.MAX_KEPT + 2))
    for seed in seeds[:-1]:
        short_training._run(short_training.Job(seed, "owner", 0.0, {}))
    assert [short_training.model(s) for s in seeds[:-1]] == [f"model of seed {s}" for s in seeds[:-1]]
    short_training._run(short_training.Job(seeds[-1], "owner", 0.0, {}))
    assert short_training.model(seeds[0]) is None and all(short_training.model(s) for s in seeds[1:])


def _click_train(at, seed: int | None = None):
    if seed is not None:
        at.number_input(key="retrain_seed").set_value(seed)
    at.button(key="retrain").click()
    return rerun(at)


def _until_trained(at, training):
    """The page's run ended (it trains in a thread of its own); the page's next run shows its model."""
    job = training.job(at.session_state[TRAINER])
    assert job is not None and job.done.wait(timeout=60)
    return rerun(at)


def test_train_it_again_shows_the_retrained_model_and_keeps_it_for_everyone(short_training, monkeypatch):
    parsed_in, parse = set(), ast.parse

    def parse_seen(*args, **kwargs):
        parsed_in.add(threading.current_thread().name)
        return parse(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse_seen)
    at = run(model="trained", stage="heads", text="A B C A B C", part="timeline")
    _until_trained(_click_train(at, 7), short_training)
    assert at.session_state["train_seed"] == 7
    # The run's thread parses nothing (np.load parses .npy headers with ast): CPython 3.11 counts every thread's
    # ast depth in one counter, and a script run parsing app.py at the same moment raised SystemError.
    assert not [name for name in parsed_in if name.startswith("retrain-")], parsed_in
    kept = short_training.model(7)
    assert kept is not None and kept.meta["seed"] == 7 and kept.meta["steps"] == 40
    assert len(kept.snapshots) == 21 and kept.snapshots[-1][0] == 40
    info = " ".join(i.value for i in at.info)
    assert "seed 7" in info
    # the summary's scores are means over fresh sequences, the table's this page's: each says which (0.34/0.45
    # under a table of 0.53/0.72, with nothing saying they were measured on different sequences)
    assert "means over 10 fresh sequences" in info and "not on this page's sequence" in info
    at.session_state["heads_part"] = "patterns"
    rerun(at)
    assert EN["roles_title"] in page_text(at) and "this sequence" in EN["roles_title"]
    tr = mha.model_forward(ids_of("ABCABC"), kept.weights)  # the walk's numbers are the retrained model's now
    prev, _ = loop_scores(tr.layers[0].attn.probs[0], ids_of("ABCABC"))
    assert float(table_rows(at)[0][2]) == pytest.approx(prev, abs=0.005)
    other = run(model="trained", stage="heads", text="A B C A B C", part="timeline")  # another session: kept
    _click_train(other, 7)
    assert other.session_state["train_seed"] == 7 and short_training.model(7) is kept
    assert short_training.job(other.session_state[TRAINER]) is None  # no second run
    # the link holds it (audit 2026-12-07 #9: a reload or a shared link showed the shipped model): opened elsewhere
    assert at.query_params["train_seed"] == "7"
    shared = run(**dict(at.query_params))
    assert shared.session_state["train_seed"] == 7 and table_rows(shared) == table_rows(at)
    at.session_state["heads_part"] = "timeline"
    rerun(at)
    at.button(key="retrain_back").click()
    rerun(at)
    assert "train_seed" not in at.session_state and "train_seed" not in at.query_params
    _until_trained(_click_train(at, 0), short_training)  # seed 0, the box's least (planted p08, p10: a seed of 0
    assert at.query_params["train_seed"] == "0"  # left out of the link as falsy, or clamped to 1 when read back)
    assert run(**dict(at.query_params)).session_state["train_seed"] == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_retrained_model_the_server_let_go_is_said_and_the_page_shows_the_shipped_one(short_training, lang):
    """Red team 2026-12-07 T8: once MAX_KEPT other seeds were trained, a page showing seed 5 showed the shipped model's
    numbers under the words "retrained with seed 5". Now it says the model is gone and shows the shipped one as such."""
    at = run(model="trained", stage="heads", text="A B C A B C", part="timeline", lang=lang)
    _until_trained(_click_train(at, 5), short_training)
    assert at.session_state["train_seed"] == 5
    kept, model = short_training._kept, short_training.model(5)
    for seed in range(6, 6 + short_training.MAX_KEPT):  # other pages' seeds take its place, as _run keeps them
        kept[seed] = model
        while len(kept) > short_training.MAX_KEPT:
            kept.popitem(last=False)
    assert short_training.model(5) is None
    rerun(at)
    said = TABLES[lang]["notice_retrain_gone"].format(seed=5, kept=short_training.MAX_KEPT)
    assert "train_seed" not in at.session_state and said in " ".join(w.value for w in at.warning)
    assert not any("5" in i.value for i in at.info)  # no "showing the model retrained with seed 5"
    assert "train_seed" not in at.query_params
    linked = run(model="trained", stage="heads", part="timeline", train_seed="5", lang=lang)  # its link, later
    assert "train_seed" not in linked.session_state and said in " ".join(w.value for w in linked.warning)
    assert "train_seed" not in linked.query_params


def _held_at_start(training, monkeypatch) -> threading.Event:
    """Each run waits at its start until the test sets the event it returns."""
    gate, train_shipped = threading.Event(), training.train.train_shipped

    def held(**kwargs):
        gate.wait(timeout=60)
        return train_shipped(**kwargs)

    monkeypatch.setattr(training.train, "train_shipped", held)
    return gate


def test_a_second_click_on_the_same_page_leaves_its_run_going(short_training, monkeypatch):
    """The red team's N6: a second click (Streamlit stops the running script for the new run) cancelled the page's
    own training and blamed "another model". The run is the process's now: the second click finds it going."""
    gate = _held_at_start(short_training, monkeypatch)
    at = run(model="trained", stage="heads", text="A B C A B C", part="timeline")
    _click_train(at, 3)
    first = short_training.job(at.session_state[TRAINER])
    assert first is not None and not first.done.is_set()
    assert [p.text for p in at.get("progress")] == [EN["retrain_running"].format(seed=3)]
    _click_train(at, 3)  # again, while it runs
    assert short_training.job(at.session_state[TRAINER]) is first and not at.warning
    gate.set()
    _until_trained(at, short_training)
    assert at.session_state["train_seed"] == 3 and short_training.model(3) is not None


def test_another_page_is_told_when_the_next_run_can_start(short_training, monkeypatch):
    """While one page's run goes, another page's click is refused with the seconds until the slot is free (what
    the run has left, from its pace, plus the rest); after a run the trainer rests REST_S, and a click is told the
    seconds left of that rest, counted from the clock. Two other pages, one in each language, are told so in theirs
    (one run of the page that trains: a run costs CPU)."""
    monkeypatch.setattr(short_training, "REST_S", 60.0)
    gate = _held_at_start(short_training, monkeypatch)
    mine = run(model="trained", stage="heads", text="A B C A B C", part="timeline")
    _click_train(mine, 5)
    job = short_training.job(mine.session_state[TRAINER])
    job.fraction, job.started = 0.5, job.started - 20  # half done in 20 s: about 20 s to go, then 60 s of rest
    others = {lang: run(model="trained", stage="heads", text="A B C A B C", part="timeline", lang=lang)
              for lang in ("en", "zh")}

    def told(lang: str, key: str, wait) -> int:
        """The seconds the other page in `lang` is told after a click on Train it again, in its language's words,
        checked against `wait`(the clock) read just before and just after the click: the page rounds to whole
        seconds what the clock gave at some moment between (a busy machine's run of the page takes seconds)."""
        before = wait(time.monotonic())
        [said] = [w.value for w in _click_train(others[lang], 6).warning]
        after = wait(time.monotonic())
        assert TABLES[lang][key].split("{s}")[0] in said, said
        seconds = int(re.search(r"(\d+)", said).group(1))
        assert min(before, after) - 1 <= seconds <= max(before, after) + 1, (lang, key, seconds, before, after)
        return seconds

    run_left = lambda now: (now - job.started) + 60  # noqa: E731 (half done: as long again as it ran, then the rest)
    rest_left = lambda now: short_training._rested_at - now  # noqa: E731
    for lang in others:
        assert 78 <= told(lang, "retrain_busy", run_left)
        assert short_training.model(6) is None and "train_seed" not in others[lang].session_state
    gate.set()
    _until_trained(mine, short_training)
    for lang in others:
        assert told(lang, "retrain_resting", rest_left) <= 60  # the rest's seconds left, however long the run took
    monkeypatch.setattr(short_training, "_rested_at", short_training._rested_at - 35)  # 35 s of the rest gone by
    assert told("zh", "retrain_resting", rest_left) <= 25
    monkeypatch.setattr(short_training, "_rested_at", 0.0)  # the rest is over
    _until_trained(_click_train(others["en"], 6), short_training)
    assert others["en"].session_state["train_seed"] == 6


def test_a_run_that_fails_is_said_on_its_page_and_the_trainer_goes_on(short_training, monkeypatch):
    def broken(**kwargs):
        raise ValueError("no memory left *here*")

    monkeypatch.setattr(short_training.train, "train_shipped", broken)
    gate = _held_at_start(short_training, monkeypatch)
    at = run(model="trained", stage="heads", text="A B C A B C", part="timeline", lang="zh")
    _click_train(at, 9)
    gate.set()
    _until_trained(at, short_training)
    said = ZH["retrain_failed"].format(seed=9, error=md_escape("ValueError: no memory left *here*"))  # as it is,
    assert said in [e.value for e in at.error] and r"\*here\*" in said  # no emphasis
    assert "train_seed" not in at.session_state and short_training.job(at.session_state[TRAINER]) is None


def test_the_trained_positions_are_not_called_random_or_untrained():
    at = run(model="trained", stage="tokens", text="A B C A B C")
    captions = " ".join(c.value for c in at.caption)
    assert EN["positions_trained_note"].format(most=TRAINED.weights.wpe.shape[0]) in captions
    assert EN["positions_learned_note"] not in captions and "drawn at random" not in captions
    seeded = run(stage="tokens", text="a b c", positions="learned")  # the seeded model's learned positions are
    assert EN["positions_learned_note"] in " ".join(c.value for c in seeded.caption)  # drawn at random: it says so


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tokens_stage_does_not_call_its_x_the_walks_with_the_trained_model(lang):
    """Audit #6: under E[ids] + P the tokens stage said "this X is what layer 1's attention reads: LN1 of the residual
    stream", a matrix of other numbers (the input stage's). It says now that the walk's X is LN1 of the stream; the
    input stage, whose grid is that X, keeps its own note."""
    t = Text(lang)
    tokens = run(stage="tokens", model="trained", lang=lang)
    infos = [i.value for i in tokens.info]
    assert t("tokens_x_trained", layer=1) in infos and not any(t("input_trained", layer=1, n=10)[:30] in i
                                                                for i in infos)
    assert t("input_trained", layer=1, n=len(tokens.session_state["text"].split())) in [
        i.value for i in run(stage="input", model="trained", lang=lang).info]
