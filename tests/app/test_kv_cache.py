"""The KV-cache stage: two additions from the post's 3 tokens, the animated step, the live proof, the cost."""

import numpy as np
import pytest

import mha
from mha.ui.strings import EN, TABLES
from tests.figures.test_cache_figure import _frame_traces, _letter, drawn, panels

from .helpers import chart_keys, chart_text, charts, page_text, rerun, run, warnings


def _add_twice():
    at = run(stage="kv_cache")
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    return at


def _table(at, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header holds `header` (in an element of its own or after a paragraph),
    as cells."""
    tables = ([line for line in m.value.split("\n") if line.startswith("|")] for m in at.markdown)
    lines = next(table for table in tables if table and header in table[0])
    rows = [line.strip("|").split(" | ") for line in lines]
    return [[cell.strip().replace("\\|", "|") for cell in row] for row in rows[2:]]


def _proof(at) -> dict:
    return {what: delta for what, delta in _table(at, "max \\|Δ\\|")}


def test_two_additions_show_the_caches_the_animation_and_the_proof():
    at = _add_twice()
    text = page_text(at)
    assert "K cache (K<sub>1</sub>)</b> · 5×7" in text and "V cache (V<sub>1</sub>)</b> · 5×11" in text
    animation = next(c for c in charts(at) if c.get("frames"))
    assert len(animation["frames"]) == 6 and animation["layout"]["sliders"][0]["steps"]
    proof = _proof(at)
    assert proof["rows 1–4 of Y before X₅ arrived vs. after (full recompute)"] == EN["kv_exact"]
    assert float(proof["Y₅ from the cache vs. the last row of a full recompute"]) <= 1e-12
    assert float(proof["S row 5 from the cache vs. the last row of the full S (every head)"]) <= 1e-12


def _animation_panels(at) -> tuple[dict, dict]:
    """The KV animation's spec and its panels by matrix letter (Q, K, V, S, H, Y) -> axes."""
    animation = next(c for c in charts(at) if c.get("frames"))
    return animation, {_letter(title): axes for title, axes in panels(animation).items()}


def _matrix(cells: dict, rows: int, cols: int) -> np.ndarray:
    """Drawn cells -> a rows×cols matrix (NaN where nothing is drawn)."""
    out = np.full((rows, cols), np.nan)
    for (r, c), (value, _) in cells.items():
        out[r - 1, c - 1] = value
    return out


def test_the_cache_holds_the_seeded_tokens_and_the_frames_end_on_the_cached_row():
    at = _add_twice()
    cfg = mha.AttentionConfig()
    w = mha.init_weights(cfg)
    rows = np.stack([mha.next_token(cfg, i) for i in range(5)])  # X, then the two seeded additions
    cache = mha.KVCache(w)
    steps = [cache.append(r) for r in rows]
    animation, axes = _animation_panels(at)
    first, last = _frame_traces(animation, 0), _frame_traces(animation, len(animation["frames"]) - 1)
    k_first, k_last = _matrix(drawn(first, axes["K"]), 5, 7), _matrix(drawn(last, axes["K"]), 5, 7)
    assert np.isnan(k_first[-1]).all()  # k_5 not yet appended …
    np.testing.assert_allclose(k_first[:-1], cache.k[0][:-1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(k_last, cache.k[0], atol=1e-12, rtol=0)  # … then the whole K cache
    np.testing.assert_allclose(_matrix(drawn(last, axes["Y"]), 5, 5)[-1], steps[-1].y, atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, axes["S"]), 5, 5)[-1], steps[-1].probs[0], atol=1e-12, rtol=0)
    q_first, q_last = drawn(first, axes["Q"]), drawn(last, axes["Q"])
    assert all(o == 1 for _, o in q_first.values()) and all(o < 0.5 for _, o in q_last.values())  # Q fades out


def test_the_animation_follows_the_head_shown_and_comes_back_with_it():
    """The animation is built once per view for every session (shared_figure): choosing another head shows that
    head's K cache and S, and going back shows the first head's again, not a figure kept for the other."""
    at = run(stage="kv_cache")
    cfg = mha.AttentionConfig()
    w = mha.init_weights(cfg)
    cache = mha.KVCache(w)
    probs = [cache.append(mha.next_token(cfg, i)).probs for i in range(3)][-1]
    for head in (1, 2, 1):
        at.segmented_control(key="head").set_value(head)
        rerun(at)
        animation, axes = _animation_panels(at)
        last = _frame_traces(animation, len(animation["frames"]) - 1)
        np.testing.assert_allclose(_matrix(drawn(last, axes["K"]), 3, 7), cache.k[head - 1], atol=1e-12, rtol=0)
        np.testing.assert_allclose(_matrix(drawn(last, axes["S"]), 3, 3)[-1], probs[head - 1], atol=1e-12, rtol=0)
        assert f"<b>S<sub>{head}</sub></b> · 3×3" in chart_text(at)


def test_the_animation_speaks_the_pages_language_after_a_switch():
    """Built once per view for every session: the same rows, weights and head in the other language are another
    figure, with its steps' sentences in that language."""
    at = run(stage="kv_cache", lang="en")
    assert "X₃ arrives" in chart_text(at)
    at.sidebar.segmented_control(key="lang").set_value("zh")
    rerun(at)
    assert "X₃ arrives" not in chart_text(at) and "X₃ 到来" in chart_text(at)


def test_after_adding_a_token_s_grows_by_a_row_and_its_first_rows_are_the_s_of_the_tokens_before():
    at = run(stage="kv_cache")
    at.button(key="add_token").click()
    rerun(at)
    cfg = mha.AttentionConfig()
    w = mha.init_weights(cfg)
    x = np.stack([mha.next_token(cfg, i) for i in range(4)])  # X₁..X₃ and the seeded X₄: the post's example
    s_before = mha.forward(x[:3], w).probs[0]
    cache = mha.KVCache(w)
    s_row_4 = [cache.append(r) for r in x][-1].probs[0]
    animation, axes = _animation_panels(at)
    for k in range(len(animation["frames"])):
        s = _matrix(drawn(_frame_traces(animation, k), axes["S"]), 4, 4)
        np.testing.assert_allclose(np.nan_to_num(s[:3, :3]), s_before, atol=1e-12, rtol=0)  # rows 1..3: S of X₁..X₃
        assert np.isnan(s[:3][np.triu_indices(3, 1, 4)]).all()  # their masked cells stay masked (drawn empty)
    final = _matrix(drawn(_frame_traces(animation, len(animation["frames"]) - 1), axes["S"]), 4, 4)
    np.testing.assert_allclose(final[3], s_row_4, atol=1e-12, rtol=0)  # row 4: the cached step's softmax
    assert "<b>S<sub>1</sub></b> · 4×4" in chart_text(at)


def _open_cost_tab(at):
    at.session_state["kv_part"] = "cost"
    return rerun(at)


def test_reset_returns_to_the_tokens_of_x_and_costs_are_shown():
    at = _add_twice()
    at.button(key="kv_reset").click()
    rerun(at)
    assert "The cache holds 3 tokens" in page_text(at)
    assert "recomputing all 3 tokens" not in page_text(at)  # the cost tab is not built until opened
    _open_cost_tab(at)
    rows = _table(at, "FLOPs")
    c = mha.cost(mha.AttentionConfig(), 3)
    assert [r[1] for r in rows] == [f"{c.step_flops_cached:,}", f"{c.step_flops_recompute:,}"]
    assert any(c.get("data") and c["layout"]["xaxis"].get("type") == "log" for c in charts(at))


def test_an_edited_next_token_is_the_one_added():
    at = run(stage="kv_cache")
    at.session_state["kv_next_open"] = True
    rerun(at)
    at.session_state["kv_next"] = {"edited_rows": {0: {"c2": 4.5}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    at.button(key="add_token").click()
    rerun(at)
    assert at.session_state["kv_added"][0][2] == 4.5
    assert "The cache holds 4 tokens" in page_text(at)


def test_measuring_times_both_ways():
    at = _open_cost_tab(run(stage="kv_cache"))
    at.number_input(key="kv_measure_T").set_value(16)
    at.button(key="kv_measure").click()
    rerun(at)
    cfg, (cached, full) = at.session_state["kv_timing"]
    assert len(cached) == len(full) == 16 and np.all(cached > 0)
    assert "ms with the cache" in page_text(at)


def test_adding_stops_at_the_cap():
    from mha.ui.settings import KV_MAX_ADDED as MAX_ADDED

    at = run(stage="kv_cache")
    at.session_state["kv_added"] = [list(map(float, mha.next_token(mha.AttentionConfig(), 3 + i)))
                                    for i in range(MAX_ADDED)]
    rerun(at)
    assert at.button(key="add_token").disabled
    assert f"at most {MAX_ADDED} tokens" in page_text(at)


def test_added_tokens_travel_in_the_link_and_a_fresh_session_shows_the_same_cache():
    at = run(stage="kv_cache", n_tokens=4, d_model=7, d_k=5, seed=3)
    at.session_state["kv_next_open"] = True
    rerun(at)
    at.session_state["kv_next"] = {"edited_rows": {0: {"c2": 4.5}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    for _ in range(3):  # the edited token, then two seeded ones
        at.button(key="add_token").click()
        rerun(at)
    link = dict(at.query_params)
    assert link["kv"] == "3_1.3~4.5"  # three tokens; cell 3 of the first differs from its seeded value
    cfg = mha.AttentionConfig(n_tokens=4, d_model=7, d_k=5, seed=3)
    expected = np.stack([mha.next_token(cfg, i) for i in range(7)])
    expected[4, 2] = 4.5
    fresh = run(**link)  # a reload, or the link opened in another browser
    np.testing.assert_array_equal(np.array(fresh.session_state["kv_added"]), expected[4:])
    assert "The cache holds 7 tokens" in page_text(fresh) and not fresh.warning
    animation, axes = _animation_panels(fresh)
    cache = mha.KVCache(mha.init_weights(cfg))
    for row in expected:
        cache.append(row)
    last = _frame_traces(animation, len(animation["frames"]) - 1)
    np.testing.assert_allclose(_matrix(drawn(last, axes["K"]), 7, 5), cache.k[0], atol=1e-12, rtol=0)
    assert charts(fresh) == charts(at)


def test_added_tokens_stay_in_the_link_on_other_stages_and_leave_it_on_reset():
    at = _add_twice()
    at.session_state["stage"] = "scores"
    rerun(at)
    assert at.query_params["kv"] == "2"
    at.session_state["stage"] = "kv_cache"
    rerun(at)
    at.button(key="kv_reset").click()
    rerun(at)
    assert "kv" not in at.query_params


@pytest.mark.parametrize("kv, tokens, notice", [
    ("2", 5, None), ("0", 3, None), ("abc", 3, "kv=abc does not start with a number"),
    ("-1", 3, "does not start with a number"), ("999_1.1~2", 3 + 64, "adds 999 tokens"),
    ("2_1.1~nan_3.1~1_1.9~1_1.2~1e400_x", 5, "5 cells of the tokens added"),
    ("1_" + "1.1~1_" * 800, 3, "characters (limit 4000)"),
])
def test_a_link_with_unusable_added_tokens_says_so(kv, tokens, notice):
    at = run(stage="kv_cache", kv=kv)
    assert f"The cache holds {tokens} tokens" in page_text(at)
    warned = " ".join(warnings(at))
    assert (notice in warned) if notice else not warned


def test_the_cost_part_is_in_the_link_and_a_link_opens_on_it():
    at = run(stage="kv_cache", part="cost", lang="zh")
    assert any(c.get("data") and c["layout"]["xaxis"].get("type") == "log" for c in charts(at))  # the cost chart
    assert "kv_animation" not in chart_keys(at)
    replays = TABLES["zh"]["kv_hint"][:12]  # the note on the step's replay: only where the replay is drawn
    assert at.query_params["part"] == "cost" and replays not in page_text(at)
    at.session_state["kv_part"] = "step"  # the first part is the default: the link leaves it out
    assert "part" not in rerun(at).query_params
    assert "kv_animation" in chart_keys(at) and replays in page_text(at)
    at.session_state["kv_part"] = "cost"
    assert rerun(at).query_params["part"] == "cost"
    at.session_state["stage"] = "block"  # the block's link names the block's part, not this one
    assert "part" not in rerun(at).query_params
    at.session_state["stage"] = "kv_cache"  # back: still on the cost part
    assert rerun(at).query_params["part"] == "cost"


@pytest.mark.parametrize("lang, words", [("en", "is not one of the known values"), ("zh", "已改用默认值")])
def test_a_block_part_on_the_kv_stage_is_unknown_there(lang, words):
    at = run(stage="kv_cache", part="gelu", lang=lang)
    assert any("part=gelu" in w and words in w for w in warnings(at))
    assert "kv_animation" in chart_keys(at) and "part" not in at.query_params
    assert at.session_state["block_part"] == "attn"  # the block keeps its own first part (post-LN's attention)


@pytest.mark.parametrize("sizes, says", [
    (dict(n_tokens=20), "Drawn: the last 16 tokens, so S shows its last 16 rows and its last 16 columns;"),
    (dict(d_v=23), "Drawn: the first 20 columns of each matrix wider than that;"),
    (dict(n_tokens=20, d_v=23), "Drawn: the last 16 tokens, so S shows its last 16 rows and its last 16 columns, "
                                "and the first 20 columns of every other matrix wider than that;"),
])
def test_the_drawn_in_part_caption_says_what_the_figure_draws(sizes, says):
    """The caption under the KV figure against the figure: the rows (tokens) and columns each panel draws."""
    at = run(stage="kv_cache", **sizes)
    captions = [c.value for c in at.caption if c.value.startswith("Drawn:")]
    assert captions == [says + " every number is computed from the whole matrices."]
    animation, by_letter = _animation_panels(at)
    t, widths = sizes.get("n_tokens", 3), dict(Q=7, K=7, V=sizes.get("d_v", 11), H=sizes.get("d_v", 11), Y=5)
    first = max(t - 16, 0) + 1  # the first token drawn
    lay = animation["layout"]
    for letter, (xa, ya) in by_letter.items():
        cols = lay[xa.replace("x", "xaxis")]["range"]
        rows = sorted(lay[ya.replace("y", "yaxis")]["range"])
        if letter != "Y":  # Y: the new token's row alone
            assert rows == [first - 0.5, t + 0.5], letter
        if letter == "S":
            assert cols == [first - 0.5, t + 0.5]  # the last keys, not the first columns
        else:
            assert cols == [0.5, min(widths[letter], 20) + 0.5], letter


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_projector_says_under_the_step_that_it_draws_the_last_four_tokens(lang):
    """A projector draws the KV step's last 4 tokens, and its titles do not say so (a line less keeps the figure on
    the screen): the caption under the figure does, once the cache holds more; with 4 it draws them all, unsaid."""
    table = TABLES[lang]
    note = table["kv_window_rows"].format(rows=4)
    assert note not in page_text(run(stage="kv_cache", kv=1, present=1, lang=lang))  # X₁…X₄: all drawn
    at = run(stage="kv_cache", kv=2, present=1, lang=lang)
    assert note in page_text(at)
    titles = list(panels(next(c for c in charts(at) if c.get("frames"))))
    assert len(titles) == 6 and not any("<br>" in t for t in titles), titles


def test_a_projector_writes_the_steps_numbers_before_a_texts_long_words():
    """Rows named by a text's long words left a projector's V 36 px cells, under the 40 that write numbers, and the
    step was colour only (review 2026-12-07). Numbers come first: a projector draws the rows by number and writes
    every panel's numbers as a desk does; a desk, with room for both, keeps the words."""
    text = "understanding transformers requires patience"

    def step(**screen) -> dict:
        return next(c for c in charts(run(stage="kv_cache", kv=1, text=text, **screen)) if c.get("frames"))

    def writing(animation: dict) -> list[str]:
        return [tr["name"] for tr in animation["data"] if tr.get("type") == "heatmap"
                and any(s for row in tr.get("text") or () for s in row)]

    desk, projector = step(), step(present=1)
    assert len(writing(desk)) == 6 and writing(projector) == writing(desk)
    assert desk["layout"]["yaxis"]["ticktext"][:2] == ["underst…", "transfo…"]
    assert not projector["layout"]["yaxis"].get("ticktext")


@pytest.mark.parametrize("variant", ["mha", "sinks"])
def test_a_phone_names_each_stacked_panels_rows_by_the_texts_words(variant):
    """Audit 2026-12-07 #7: on a phone, with a text, Q, the caches, H and Y were numbered 1–6 and only S's columns
    had the words; six panels stacked 1,600 px tall left no way to tell which row was "not". Every panel names its
    rows by word (a window's by the words it holds), writes its numbers, and stays within the phone's column."""
    words = "to be or not to be".split()
    at = run(stage="kv_cache", text=" ".join(words), variant=variant, phone=True)
    spec = next(c for c in charts(at) if c.get("frames"))
    held = [0, 4, 5] if variant == "sinks" else range(6)  # s = 1, W = 2: the first token and the last two
    rows = [a for k, a in spec["layout"].items() if k.startswith("yaxis")]
    assert len(rows) == 6 and all(a.get("ticktext") == [words[p] for p in held] for a in rows), rows
    assert all(any(s for row in tr.get("text") or () for s in row) for tr in spec["data"][:1])
    writes = {tr["yaxis"] for tr in spec["data"] if tr.get("type") == "heatmap" and tr.get("text")}
    assert len(writes) == 6 and spec["layout"]["width"] <= 358


def test_the_next_tokens_box_and_button_name_the_token_to_come():
    """The box that holds the next token and the button that adds it name the same token, X_{t+1}, after each added
    token (planted 2026-12-07: the box said X_t, the last one already cached)."""
    at = run(stage="kv_cache")
    for t in (3, 4, 5):
        box = next(e.label for e in at.expander if e.label.startswith(EN["kv_next"].split("{")[0]))
        name = "X" + str(t + 1).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
        assert f"{name} " in box and at.button(key="add_token").label.endswith(name), (box, t)
        at.button(key="add_token").click()
        rerun(at)


def _blocks(node, found=None) -> list:
    """Every block of the page, each as (its direct children's keys and types, its markdown values), in page order."""
    found = [] if found is None else found
    kids = list(getattr(node, "children", {}).values())
    found.append(([getattr(k, "key", None) or getattr(k, "type", None) for k in kids],
                  [k.value for k in kids if getattr(k, "type", None) == "markdown"]))
    for kid in kids:
        if getattr(kid, "type", None) not in ("html", "markdown", "caption"):
            _blocks(kid, found)
    return found


def _row_of(at, key: str) -> tuple[list, list]:
    return next(block for block in _blocks(at.main) if key in block[0])


@pytest.mark.parametrize("text", [None, "to be or not to be"])
def test_a_projector_puts_the_head_the_part_and_the_add_button_in_one_row_above_the_step_and_a_desk_does_not(text):
    """Issue 46 item 3: on a projector the step opens whole under two rows of controls, its head, part and add button
    sharing the second (with a text too, whose button adds the model's next word), the next token's editor under the
    figure; a desk keeps the add button over the cache's state, then the part control, then the step."""
    link = dict(stage="kv_cache") | (dict(text=text) if text else {})
    keys = _row_of(run(**link, present=1), "add_token")[0]
    assert {"head", "kv_part", "add_token"} <= set(keys), keys
    page = [key for block in _blocks(run(**link, present=1).main) for key in block[0]]
    if not text:
        assert page.index("kv_animation") < page.index("kv_next_open"), page
        # with a token added, the way back goes under the figure too: beside four heads' names it wrapped the row
        # and pushed the step 60 px lower, past the screen
        added = run(**link, present=1, kv=1, n_heads=4)
        assert "kv_reset" not in _row_of(added, "add_token")[0]
        page = [key for block in _blocks(added.main) for key in block[0]]
        assert page.index("kv_animation") < page.index("kv_next_open") < page.index("kv_reset"), page
        assert "kv_reset" in _row_of(run(**link, kv=1, n_heads=4), "add_token")[0]  # a desk's: beside the add button
    keys, said = _row_of(run(**link), "add_token")  # a desk: the fragment's own column, in this order
    assert keys.index("add_token") < keys.index("markdown") < keys.index("kv_part") < keys.index("kv_animation"), keys
    assert "head" not in keys and any("K and V" in m for m in said), (keys, said)  # the markdown is the state


@pytest.mark.parametrize("variant, key, beside", [("window", "window", True), ("gqa", "kv_heads", True),
                                                  ("rope", "rotary_dims", True), ("sinks", "window", False)])
def test_a_projectors_one_knob_has_its_name_beside_its_box_and_two_keep_theirs_over_them(variant, key, beside):
    """A knob beside the KV stage's picker: on a projector its name is written once, beside its box, so that the row
    is no taller than the others' (its label collapsed, the name in the row); sinks' two knobs do not fit a row so,
    and keep their labels over their boxes. A desk always writes the label over the box."""
    from mha.ui.variant_defs import VARIANTS

    knob = next(k for k in VARIANTS[variant].knobs if k.key == key)
    name = EN[knob.kv_label]
    for present in (1, 0):
        at = run(stage="kv_cache", variant=variant, present=present)
        widget = _widget(at.main, key)
        said = _row_of(at, key)[1]
        collapsed = widget.proto.label_visibility.value == widget.proto.label_visibility.COLLAPSED
        assert collapsed == (beside and present == 1), (variant, present)
        assert said.count(name) == (1 if beside and present else 0), (variant, present, said)


def _widget(node, key: str):
    for kid in getattr(node, "children", {}).values():
        if getattr(kid, "key", None) == key:
            return kid
        if (found := _widget(kid, key)) is not None:
            return found
    return None


@pytest.mark.parametrize("lang, held", [("en", "rows 1–3"), ("zh", "第 1–3 行")])
def test_the_key_to_the_steps_boxes_names_the_rows_held_before_the_new_one(lang, held):
    """With X₄ added, the dotted box holds rows 1–3 (as before X₄ arrived) and the solid one row 4: in the figure on a
    desk, in the caption under it on a projector."""
    for present in (0, 1):
        at = run(stage="kv_cache", kv=1, lang=lang, present=present)
        said = chart_text(at) if not present else " ".join(c.value for c in at.caption)
        assert held in said and "X₄" in said and held.replace("3", "4") not in said, (present, said)
