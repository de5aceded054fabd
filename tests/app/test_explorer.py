"""The explorer in AppTest: every stage, the post's shapes, the animation's frames, edits and clicks."""

import json
import re

import numpy as np
import pytest

import mha
from mha.ui.settings import STAGES
from mha.ui.strings import EN, ZH

from .helpers import charts, keyed_charts, page_text, rerun, run, z
from .test_walk import SECTIONS

RESIZED = dict(n_tokens=4, d_model=6, d_k=13, d_v=17, n_heads=3)


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_renders_at_the_defaults_and_resized(stage):
    run(stage=stage)
    at = run(stage=stage, **RESIZED)
    assert at.session_state["n_heads"] == 3 and at.session_state["d_k"] == 13


def _shapes_across_stages(**params) -> str:
    return " ".join(page_text(run(stage=s, **params)) for s in STAGES)


def test_the_posts_shapes_are_printed():
    text = _shapes_across_stages()
    for shape in ("3×5", "3×7", "3×11", "3×3", "3×22", "22×5", "5×7", "5×11"):
        assert shape in text, shape


def test_resized_shapes_are_printed():
    text = _shapes_across_stages(**RESIZED)
    for shape in ("4×6", "4×13", "4×17", "4×51", "51×6", "6×13", "6×17", "4×4"):
        assert shape in text, shape
    assert "3×7" not in text


def _post_trace():
    cfg = mha.AttentionConfig()
    return mha.forward(mha.init_input(cfg), mha.init_weights(cfg))


def test_scores_frames_walk_from_qkt_through_the_mask_to_s():
    spec = charts(run(stage="scores"))[0]
    tr = _post_trace()
    frames = spec["frames"]
    signed = [z(f["data"][1]) for f in frames]  # trace 3 of the figure: the signed scores
    probs = [z(f["data"][2]) for f in frames]  # trace 4: S
    marks = [f["data"][3] for f in frames]  # trace 5: "−∞" (and "0" once softmax has run) on masked cells
    full = next(i for i, a in enumerate(signed) if np.allclose(a, tr.scores[0], atol=1e-12, rtol=0))
    masked = next(i for i, a in enumerate(signed) if np.isnan(a).sum() == 3 and i > full)
    upper = np.triu(np.ones((3, 3), bool), k=1)
    np.testing.assert_allclose(signed[masked][~upper], tr.masked[0][~upper], atol=1e-12, rtol=0)
    assert np.all(np.isnan(signed[masked][upper]))  # −∞ drawn as gaps …
    labelled = set(zip(marks[masked]["y"], marks[masked]["x"]))
    assert labelled == {(1, 2), (1, 3), (2, 3)} and set(marks[masked]["text"]) == {"−∞"}  # … labelled −∞
    np.testing.assert_allclose(probs[-1][~upper], tr.probs[0][~upper], atol=1e-12, rtol=0)  # ends on S …
    assert np.all(tr.probs[0][upper] == 0) and set(marks[-1]["text"]) == {"0"}  # … its masked zeros labelled 0
    assert np.all(np.isnan(signed[-1]))
    assert [b["label"] for b in spec["layout"]["updatemenus"][0]["buttons"]] == [EN["play"], EN["pause"]]
    assert len(spec["layout"]["sliders"][0]["steps"]) == len(frames)


@pytest.mark.parametrize("lang, table", [("en", EN), ("zh", ZH)])
def test_a_phones_x_grid_wider_than_its_screen_says_to_swipe_and_one_that_fits_does_not(lang, table):
    """Audit 2026-12-07 #8: on a phone the trained model's X showed 5 of its 13 columns, the fifth cut at the edge,
    with nothing to say there were more (the post's 5 columns fit: 305 of 358 px, measured in Chromium at 390 px)."""
    said = table["input_swipe"].format(d=13)
    captions = lambda at: [c.value for c in at.caption]  # noqa: E731
    assert said in captions(run(stage="input", model="trained", lang=lang, phone=True))
    assert said in captions(run(stage="input", model="trained", text="A B C A B", lang=lang, phone=True))  # 5 rows
    assert said not in captions(run(stage="input", model="trained", lang=lang))  # a desk shows all 13
    for fits in (run(stage="input", lang=lang, phone=True),  # its columns, not its rows (planted p17): 14 rows of 5
                 run(stage="input", text="the cat sat on the mat, the dog also sat on the mat", lang=lang, phone=True)):
        assert not [c for c in captions(fits) if c.startswith(said[:6])]


def test_an_edited_cell_of_x_changes_q():
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {0: {"c0": 1.5}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    at.session_state["stage"] = "qk"
    rerun(at)
    q_chart = charts(at)[0]
    x_shown = z(q_chart["data"][0])
    assert x_shown[0, 0] == 1.5
    cfg = mha.AttentionConfig()
    x = mha.init_input(cfg)
    x[0, 0] = 1.5
    expected = mha.forward(x, mha.init_weights(cfg)).q[0]
    np.testing.assert_allclose(z(q_chart["data"][2]), expected, atol=1e-12, rtol=0)
    assert not np.allclose(expected, _post_trace().q[0])
    assert at.query_params["x"] == "1.1~1.5"  # the edit travels in the link


@pytest.mark.parametrize("stage, key, name", [("qk", "qk_q", "$Q_{1}"), ("values", "values_h", "$H_{1}"),
                                              ("output", "output_y", "$Y"), ("matmul", "mm", "$R")])
def test_a_clicked_cell_is_written_out_as_a_dot_product_that_sums_to_it(stage, key, name):
    """The check under a clicked cell's terms says the sum of the products as written and the cell's value: the same
    sentence where they agree at the digits written, the other (why not) where the factors' rounding moved them
    (test_output_numbers adds the written products up exactly)."""
    at = run(stage=stage)
    at.session_state[f"sel_{key}"] = (1, 2)
    rerun(at)
    text = page_text(at)
    assert f"{name}[2, 3]" in text
    same = re.search(r"The terms add up to (\S+); the cell holds (\S+)\.", text)
    rounded = re.search(r"The products of the factors as written .*? add up to (\S+); the cell, .*? holds (\S+)\.",
                        text)
    total, value = (float(s.replace("−", "-")) for s in (same or rounded).groups())  # the written sum, the cell
    assert abs(total - value) <= (1e-4 if same else 2e-3) * max(1.0, abs(value))


def test_the_scores_breakdown_goes_from_dot_product_to_softmax():
    at = run(stage="scores")
    at.session_state["sel_scores"] = (2, 1)
    rerun(at)
    text = page_text(at)
    tr = _post_trace()
    assert "S[3, 2]" in text and f"{tr.probs[0, 2, 1]:.4g}" in text
    at.session_state["sel_scores"] = (0, 2)
    rerun(at)
    assert "S[1, 3] = 0" in page_text(at)


@pytest.mark.parametrize("lang, table", [("en", EN), ("zh", ZH)])
@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_is_reachable_by_link_in_either_language(stage, lang, table):
    at = run(stage=stage, lang=lang)
    assert at.radio(key="stage").value == stage
    title_key = "kv_title" if stage == "kv_cache" else f"{stage}_title"
    heading = next(m.value for m in at.main.markdown if m.value.startswith("### "))
    assert heading.split("\n")[0] == "### " + table[title_key].format(h=1)


@pytest.mark.parametrize("stage", STAGES)
def test_chinese_on_every_zh_page_and_none_on_en_pages(stage):
    """None but the post's own heading of the stage's section, quoted as the post writes it (test_walk.SECTIONS)."""
    cjk = re.compile(r"[\u4e00-\u9fff]")
    assert cjk.search(page_text(run(stage=stage, lang="zh")))
    english = page_text(run(stage=stage, lang="en"))
    assert not cjk.search(english.replace(f"“{SECTIONS.get(stage, '')}”", ""))


def test_figures_are_not_rebuilt_differently_on_a_rerun():
    """Deterministic payloads: a rerun with nothing changed sends the same chart JSON."""
    at = run(stage="scores")
    before = json.dumps(keyed_charts(at))
    rerun(at)
    assert before == json.dumps(keyed_charts(at))


def test_large_sizes_hide_cell_numbers_and_window_long_axes():
    at = run(stage="qk", n_tokens=8, d_model=768, d_k=64, d_v=64, n_heads=12)
    spec = charts(at)[0]
    assert all(not t.get("texttemplate") for t in spec["data"][:3])
    assert z(spec["data"][0]).shape == (8, 48)  # X windowed to its first 48 features
    assert "Showing the first 8×48 of 8×768" in page_text(at)


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_runs_at_gpt2_small_widths(stage):
    """d_model 768, 12 heads of 64: every stage builds without an exception (the browser walks large sizes in
    test_screens_e2e)."""
    at = run(stage=stage, preset="gpt2")
    assert at.session_state["d_model"] == 768 and not at.exception
