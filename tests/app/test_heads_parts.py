"""The heads stage's parts with the trained model (issue 35): what the page shows equals the core, in both languages,
for several knock-out sets and links; the parts keep to the other chart stages' element count."""

import gc
import re

import numpy as np
import pytest

import mha
from mha.circuits import copies
from mha.train import held_out
from mha.ui import settings as S
from mha.ui.strings import EN, ZH

from .helpers import keyed_charts, page_text, rerun, run, warnings, z
from .test_lab_budget import count
from .test_trained_ui import ids_of

TEXT = "E F D C B E F D C B"
TABLES = dict(en=EN, zh=ZH)


@pytest.fixture(scope="module")
def trained():
    return mha.load_trained()


@pytest.fixture(scope="module")
def sequences():
    return held_out()


def knocked_of(names: str) -> list[tuple[int, int]]:
    """layer.head from 1, written here apart from the page's parser."""
    return [(int(n[0]) - 1, int(n[2]) - 1) for n in names.split(",") if n]


def rows_of(markdown: str, first: str) -> list[list[str]]:
    """The rows of the table whose header starts with `first` in the page's Markdown."""
    for block in markdown.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].startswith(f"| {first}"):
            return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    raise AssertionError(f"no table starting {first!r}")


def knock_text(at) -> str:
    return next(m.value for m in at.markdown if "| " in m.value and "%" in m.value)


@pytest.mark.parametrize("names", ["2.1,2.2", "1.2", "1.1", "1.2,2.1", "2.2"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_knocking_heads_out_shows_the_cores_scores_and_predictions(trained, sequences, names, lang):
    """i ≠ j on purpose (1.2 and 2.1): a page that swaps layer and head, or counts from 0, knocks another head."""
    t = TABLES[lang]
    at = run(model="trained", stage="heads", text=TEXT, knock=names, lang=lang)
    assert at.session_state["heads_part"] == "knock"  # a link with knock= opens on the knock-out part
    assert sorted(at.session_state["knock"]) == sorted(names.split(","))
    knocked = knocked_of(names)
    whole, gone = mha.task_score(trained.weights, sequences), mha.task_score(trained.weights, sequences, knocked)
    text = knock_text(at)
    rows = rows_of(text, " ")
    assert rows[0][1:] == [f"{100 * whole.accuracy:.1f}%", f"{whole.loss:.3f}"]
    assert rows[1][1:] == [f"{100 * gone.accuracy:.1f}%", f"{gone.loss:.3f}"]
    assert rows[1][0] == t["knock_row_without"].format(names=t["list_sep"].join(sorted(names.split(","))))
    # the predictions, position by position, against the core's forward with those heads zeroed
    ids = ids_of(TEXT)
    before = np.argmax(mha.model_forward(ids, trained.weights).logits, -1)
    after = np.argmax(mha.model_forward(ids, trained.weights, knocked=knocked).logits, -1)
    seq = rows_of(text, t["knock_seq_pos"])
    assert seq[2][1:] == [trained.vocab[i] for i in before]
    assert seq[3][1:] == [f"**{trained.vocab[b]}**" if a != b else trained.vocab[b] for a, b in zip(before, after)]
    changed = int((before != after).sum())
    assert t["knock_seq_changed"].format(changed=changed, n=len(ids)) in text
    # what the page concludes is said at the size measured
    drop = whole.accuracy - gone.accuracy
    verdict = ("knock_needs_chance" if gone.accuracy <= 2 / 8 else "knock_needs") if drop >= 0.25 else \
        "knock_leans" if drop >= 0.1 else "knock_barely"
    chosen = sorted(names.split(","))
    said = t[verdict].format(names=t["list_sep"].join(chosen), before=f"{100 * whole.accuracy:.1f}%",
                             after=f"{100 * gone.accuracy:.1f}%", drop=f"{100 * drop:.1f}", chance="12.5%",
                             them=t["knock_them_one" if len(chosen) == 1 else "knock_them_many"])
    assert said in text
    # the link carries the heads back
    assert at.query_params["knock"] == ",".join(sorted(names.split(",")))


def test_the_induction_heads_together_take_the_model_to_guessing(trained, sequences):
    at = run(model="trained", stage="heads", text=TEXT, knock="2.1,2.2")
    text = knock_text(at)
    assert EN["knock_needs_chance"].split("{")[0] in text
    at.pills(key="knock").set_value([])  # nothing knocked: the whole model, no second row
    rerun(at)
    assert EN["knock_none"] in page_text(at) and "knock" not in at.query_params


@pytest.mark.parametrize("present", [0, 1])
def test_a_projector_opens_the_knock_out_part_on_its_table_and_a_desk_on_its_introduction(present):
    """Issue 46 item 3: what the room reads first is the held-out table under the heads picked; the words that say
    what knocking out is come after it on a projector, and before it at a desk."""
    text = knock_text(run(model="trained", stage="heads", text=TEXT, knock="1.2", present=present))
    table, intro = text.index(f"| {EN['knock_col_acc']} |"), text.index(EN["knock_intro"].split("$")[0])
    assert (table < intro) == bool(present), (table, intro)


def test_a_link_naming_a_head_the_model_lacks_gets_a_notice_and_keeps_the_rest():
    at = run(model="trained", stage="heads", text=TEXT, knock="9.9,2.1,<b>x</b>")
    assert at.session_state["knock"] == ["2.1"]
    said = " ".join(warnings(at))
    assert "knock=9.9" in said and "knock=<b>x</b>" in said  # the link's own text, shown as text
    assert "<b>" not in " ".join(w.value for w in at.warning)  # reaching Markdown escaped


# A letter three times, each time followed by another: the latest earlier copy and the first differ (A at 5 follows
# the A at 3, whose next letter is C, not the first A's B), and so do the boxes and the count of hits.
THRICE = "A B A C A D A B"


@pytest.mark.parametrize("name, lang, text, repeats", [("1.2", "en", TEXT, 5), ("2.1", "zh", TEXT, 5),
                                                       ("2.2", "en", TEXT, 5), ("2.1", "en", THRICE, 4)])
def test_what_a_head_writes_is_its_direct_logits_and_the_parts_add_up(trained, name, lang, text, repeats):
    at = run(model="trained", stage="heads", text=text, part="writes", lang=lang)
    at.segmented_control(key="writes_head").set_value(name)
    rerun(at)
    ids = ids_of(text)
    tr = mha.model_forward(ids, trained.weights)
    layer, head = knocked_of(name)[0]
    drawn = dict(keyed_charts(at))["writes_figure"]["data"][0]
    np.testing.assert_allclose(z(drawn), mha.head_logits(tr, trained.weights)[layer, head], atol=1e-9, rtol=0)
    # the dotted boxes: in each row whose letter came before, the letter that followed its latest earlier copy
    shapes = dict(keyed_charts(at))["writes_figure"]["layout"]["shapes"]
    boxed = sorted((round(s["y0"] + 0.5) - 1, round(s["x0"] + 0.5) - 1) for s in shapes
                   if s["line"].get("dash") == "dot")
    want = sorted((i, int(ids[max(j for j in range(i) if ids[j] == ids[i]) + 1]))
                  for i in range(len(ids)) if ids[i] in ids[:i])
    assert boxed == want and len(want) == repeats
    # the sum at the last position, part by part, equals the forward's logit of the predicted letter
    t = TABLES[lang]
    text = next(m.value for m in at.markdown if t["writes_col_part"] in m.value)
    top = int(np.argmax(tr.logits[-1]))
    rows = rows_of(text, t["writes_col_part"])
    parts = mha.logit_parts(tr, trained.weights)
    values = [float(r[1].replace("−", "-")) for r in rows[:len(parts)]]
    np.testing.assert_allclose(values, [p[-1, top] for p in parts.values()], rtol=1e-3, atol=1e-4)
    assert rows[-1][1].endswith("✓")
    # how often the head's largest push is the letter after the earlier copy, counted here
    hits = total = 0
    for i, tok in enumerate(ids):
        earlier = [j for j in range(i) if ids[j] == tok]
        if earlier:
            total += 1
            hits += int(np.argmax(mha.head_logits(tr, trained.weights)[layer, head][i]) == ids[earlier[-1] + 1])
    assert t["writes_copies"].format(name=name, hits=hits, rows=total) in text


@pytest.mark.parametrize("name, kind, through", [("2.2", "ov", None), ("1.2", "ov", None), ("2.1", "qk", "1.2"),
                                                 ("2.1", "qk", "none"), ("1.1", "qk", None)])
def test_the_circuits_are_the_cores_products(trained, name, kind, through):
    at = run(model="trained", stage="heads", text=TEXT, part="circuits")
    at.segmented_control(key="circuit_head").set_value(name)
    at.segmented_control(key="circuit").set_value(kind)
    rerun(at)
    if through:
        at.segmented_control(key="circuit_through").set_value(through)
        rerun(at)
    else:
        assert not [w for w in at.segmented_control if w.key == "circuit_through"]  # layer 1 has no earlier head
    layer, head = knocked_of(name)[0]
    pair = None if through in (None, "none") else knocked_of(through)[0]
    want = mha.ov_circuit(trained.weights, layer, head) if kind == "ov" else \
        mha.qk_circuit(trained.weights, layer, head, pair)
    spec = dict(keyed_charts(at))["circuit_product"]
    product = spec["data"]
    np.testing.assert_allclose(z(product[2]), want, atol=1e-9, rtol=0)
    assert f"{copies(want)} of 8" in page_text(at) or f"{copies(want)} times in 8" in page_text(at)
    # the rows are letters of the vocabulary, not positions (zh review 2026-12-04), named by them; OV's inner
    # dimension counts d_model's features
    inner = EN["feature"] if kind == "ov" else EN["cols_of"]
    for trace, (rows, cols) in zip(product[:3], (("writes_letter", None), (None, "writes_letter"),
                                                 ("writes_letter", "writes_letter"))):
        said = trace["hovertemplate"].split("<br>")[1]
        assert said.startswith(EN[rows] if rows else inner) and said.split(" · ")[1].startswith(
            EN[cols] if cols else inner), said
    assert spec["layout"]["yaxis"]["ticktext"] == list(trained.vocab)


def test_the_timeline_shows_the_knock_out_gap_opening_as_induction_rises(trained):
    at = run(model="trained", stage="heads", text=TEXT, part="timeline")
    spec = dict(keyed_charts(at))["timeline_knock"]
    lines = [d for d in spec["data"] if d.get("showlegend", True)]
    whole, knocked, induction = (np.array(d["y"]) for d in lines)
    probe = mha.train.Task(tuple(trained.meta["alphabet"]), (6, 6), trained.meta["distinct"]).sample(
        np.random.default_rng([trained.meta["seed"], 13]), 32)
    for k in (0, 2, len(trained.snapshots) - 1):  # before, while and after the heads form
        weights = trained.snapshots[k][2]
        assert whole[k] == pytest.approx(mha.task_score(weights, probe).accuracy)
        assert knocked[k] == pytest.approx(mha.task_score(weights, probe, [(1, 0), (1, 1)]).accuracy)
        assert induction[k] == pytest.approx(np.max(trained.snapshots[k][3]["induction"][1]))
    gap = whole - knocked
    assert gap[0] < 0.05 and gap[-1] > 0.7 and induction[-1] > induction[0] + 0.5


def test_the_seeded_stage_offers_the_trained_model():
    at = run(stage="heads")
    assert EN["heads_offer"] in page_text(at)
    at.button(key="heads_trained").click()
    rerun(at)
    assert at.session_state["model"] == "trained" and at.segmented_control(key="heads_part").value == "patterns"


@pytest.mark.parametrize("part", S.HEADS_PARTS)
def test_every_heads_part_keeps_to_the_other_stages_element_count(part):
    budget = max(count(run(**p)) for p in [dict(stage="scores"), dict(stage="kv_cache"),
                                          *(dict(stage="block", part=b) for b in S.BLOCK_PARTS)])
    at = run(model="trained", stage="heads", text=TEXT, part=part)
    assert count(at) <= budget, f"{part}: {count(at)} > {budget}"


@pytest.mark.parametrize("names, lang", [("1.2", "en"), ("1.1,2.2", "zh")])
def test_knocking_a_layer_1_head_moves_layer_2s_patterns(trained, names, lang):
    """K-composition on the page: layer 2's own weights are untouched, yet its patterns are the knocked forward's."""
    t = TABLES[lang]
    at = run(model="trained", stage="heads", text=TEXT, knock=names, lang=lang)
    ids = ids_of(TEXT)
    knocked = mha.model_forward(ids, trained.weights, knocked=knocked_of(names))
    drawn = dict(keyed_charts(at))["knock_s"]["data"]
    whole = mha.model_forward(ids, trained.weights)
    for h in range(2):  # each head's row: with every head, then with the knocked ones out
        np.testing.assert_allclose(np.nan_to_num(z(drawn[2 * h])), whole.layers[1].attn.probs[h], atol=1e-9)
        np.testing.assert_allclose(np.nan_to_num(z(drawn[2 * h + 1])), knocked.layers[1].attn.probs[h], atol=1e-9)
        for panel in (drawn[2 * h], drawn[2 * h + 1]):  # named as the part names the head (audit 2026-12-04 #16)
            assert panel["name"].startswith(f"S<sub>2.{h + 1}</sub> · "), panel["name"]
    before = mha.head_roles(mha.model_forward(ids, trained.weights).layers[1].attn.probs, ids)[1]
    after = mha.head_roles(knocked.layers[1].attn.probs, ids)[1]
    for h in range(2):
        assert t["knock_composed_head"].format(name=f"2.{h + 1}", before=f"{before[h]:.2f}", after=f"{after[h]:.2f}") \
            in page_text(at)
    if names == "1.2":  # without the previous-token head the induction heads lose their target
        assert after.max() < before.min() - 0.2


def test_knocking_only_layer_2_leaves_no_patterns_to_redraw():
    at = run(model="trained", stage="heads", text=TEXT, knock="2.1")
    assert "knock_s" not in dict(keyed_charts(at)) and EN["knock_composed_title"].split("{")[0] not in page_text(at)


def test_knocked_heads_and_circuit_choices_stay_while_other_parts_are_shown():
    """A learner's knock-out set and circuit are still there after a visit to another part and another layer."""
    at = run(model="trained", stage="heads", text=TEXT, part="knock")
    at.pills(key="knock").set_value(["1.2"])
    rerun(at)
    at.session_state["heads_part"] = "circuits"
    rerun(at)
    at.segmented_control(key="circuit_head").set_value("2.2")
    at.segmented_control(key="circuit").set_value("qk")
    rerun(at)
    for part in ("patterns", "writes", "timeline"):
        at.session_state["heads_part"] = part
        rerun(at)
    at.sidebar.segmented_control(key="layer").set_value(2)
    rerun(at)
    assert at.query_params["knock"] == "1.2"
    at.session_state["heads_part"] = "circuits"
    rerun(at)
    assert (at.segmented_control(key="circuit_head").value, at.segmented_control(key="circuit").value) == ("2.2", "qk")
    at.session_state["heads_part"] = "knock"
    rerun(at)
    assert at.pills(key="knock").value == ["1.2"] and "without 1.2" in knock_text(at)


def test_a_projector_draws_the_circuit_alone_large_and_a_desk_only_in_the_product(trained):
    at = run(model="trained", stage="heads", text=TEXT, part="circuits", present=1)
    drawn = dict(keyed_charts(at))
    np.testing.assert_allclose(z(drawn["circuit_alone"]["data"][0]), mha.ov_circuit(trained.weights, 1, 0),
                               atol=1e-9, rtol=0)
    assert "circuit_alone" not in dict(keyed_charts(run(model="trained", stage="heads", text=TEXT, part="circuits")))


def test_knock_on_seeded_weights_is_refused_with_a_notice_and_writes_says_it_is_the_whole_model():
    at = run(stage="heads", knock="2.1")
    assert "knock" not in at.session_state and any("knock=2.1" in w for w in warnings(at))
    at = run(model="trained", stage="heads", text=TEXT, knock="2.1", part="writes")
    assert EN["writes_whole"].format(names="2.1") in " ".join(m.value for m in at.markdown).replace("\\.", ".")


def test_the_letter_after_an_earlier_copy_is_the_latest_copys():
    from mha.ui.heads import earlier_next

    assert earlier_next(np.array([0, 1, 0, 2, 0, 3, 1])) == [None, None, 1, None, 2, None, 0]  # A B A C A D B


def test_the_timeline_s_gap_is_the_difference_of_the_percentages_it_shows():
    """Audit #12: "accuracy 98% … 14% … a gap of 83 points", where a reader subtracts 84: the gap was taken from the
    unrounded accuracies. At every step the slider offers, it is the difference of the two numbers written."""
    at = run(stage="heads", model="trained", part="timeline")
    for step in at.select_slider(key="snapshot").options:
        at.select_slider(key="snapshot").set_value(step)
        at = rerun(at)
        said = next(m.value for m in at.markdown if "a gap of" in m.value)
        acc, without, gap = (int(x) for x in re.search(r"accuracy (\d+)%.*?, (\d+)% without.*?gap of (-?\d+) points?",
                                                         said).groups())
        assert acc - without == gap, said
        assert ("points" in said) == (abs(gap) != 1), said  # "a gap of 1 point" (the audit of 2026-12-06)


def test_the_sidebar_offers_a_layer_only_where_the_part_reads_one():
    """Audit 2026-12-04 #16: the sidebar's Layer control stood at 1 beside head 2.1's circuit. The parts that draw
    both layers (knock-out, writes, circuits) leave it out; the patterns and the timeline, drawn for one layer, keep
    it; the layer chosen survives the parts without it."""
    at = run(model="trained", stage="heads", text=TEXT, part="patterns", layer=2)
    for part, shown in (("patterns", True), ("knock", False), ("writes", False), ("circuits", False),
                        ("timeline", True)):
        at.session_state["heads_part"] = part
        rerun(at)
        keys = [w.key for w in at.sidebar.get("button_group")]
        assert ("layer" in keys) == shown and at.session_state["layer"] == 2, (part, keys)


def test_the_heads_caches_keep_no_model_alive_and_hold_their_bytes_within_a_budget(trained, monkeypatch):
    """A retrained model leaves the process when the trainer lets go of it and no page shows it: the scores, traces
    and timeline the heads parts made for it are keyed by a number of its own, never by the model, and they are held
    within HEADS_BUDGET bytes (a model trained every few minutes for a day would otherwise stay, ~1 MB each)."""
    import gc
    import weakref

    from mha.ui import heads

    other = mha.train.Trained(trained.weights, trained.vocab, dict(trained.meta), trained.snapshots)
    gone = weakref.ref(other)
    ids = tuple(range(len(trained.vocab))) * 2
    assert heads.score(other, ((1, 0),)).accuracy == heads.score(trained, ((1, 0),)).accuracy
    heads.knocked_trace(other, ids, ((1, 0),))
    heads.timeline(other)
    del other
    gc.collect()
    assert gone() is None
    monkeypatch.setattr(heads.HELD, "budget", 2**20)  # 1 MB: about ten of the traces below
    for knocked in ((), ((0, 0),), ((0, 1),), ((1, 1),)):
        for start in range(len(trained.vocab)):
            seq = ids[start:start + 12]  # each sequence its own trace: a value is never another key's
            want = mha.model_forward(np.array(seq), trained.weights, knocked=knocked).logits
            np.testing.assert_array_equal(heads.knocked_trace(trained, seq, knocked).logits, want)
            assert heads.HELD.held <= 2**20
    assert heads.HELD.held > 2**19  # what it holds is counted: the traces' arrays


def test_each_model_gets_its_own_knock_out_scores_even_once_the_last_one_is_gone(trained):
    """Models made and let go one after another, as *Train it again* does: each knock-out score shown is its own
    model's, and no two models share the number the heads caches are keyed by (a freed model's id is soon another
    model's, so an id would hand a new model the old one's scores)."""
    from mha.ui import heads

    numbers = set()
    for i in range(8):
        weights = trained.snapshots[0 if i % 2 else -1][2]  # untrained and trained, in turn
        m = mha.train.Trained(weights, trained.vocab, dict(trained.meta), trained.snapshots)
        numbers.add(heads._number(m))
        got, want = heads.score(m, ((1, 0),)), mha.task_score(weights, heads.sequences(), ((1, 0),))
        assert (got.accuracy, got.loss) == (want.accuracy, want.loss), i
        del m
        gc.collect()
    assert len(numbers) == 8
