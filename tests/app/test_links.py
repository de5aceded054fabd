"""A view travels in its link: settings and edited X go into the URL, and a fresh session rebuilds it."""

import numpy as np
import pytest

import mha
from mha.ui.strings import EN, TABLES

from .helpers import charts, rerun, run


def test_link_round_trip_rebuilds_the_same_trace():
    at = run(stage="input", n_tokens=4, n_heads=3, d_k=13, lang="zh", seed=7)
    at.session_state["x_editor"] = {"edited_rows": {2: {"c1": -1.25}, 0: {"c4": 3.5}}, "added_rows": [],
                                    "deleted_rows": []}
    rerun(at)
    at.session_state["stage"] = "values"
    rerun(at)
    link = dict(at.query_params)
    assert link["n_tokens"] == "4" and link["n_heads"] == "3" and link["lang"] == "zh" and link["stage"] == "values"
    fresh = run(**link)
    for key in ("n_tokens", "n_heads", "d_k", "seed", "lang", "stage"):
        assert fresh.session_state[key] == at.session_state[key], key
    np.testing.assert_array_equal(fresh.session_state["x_base"], at.session_state["x_base"])
    cfg = mha.AttentionConfig(n_tokens=4, n_heads=3, d_k=13, seed=7)
    x = mha.init_input(cfg)
    x[2, 1], x[0, 4] = -1.25, 3.5
    v_chart = charts(fresh)[0]
    np.testing.assert_allclose(v_chart["data"][2]["z"], mha.forward(x, mha.init_weights(cfg)).v[0], atol=1e-12)


def test_link_sets_the_widgets():
    at = run(n_tokens=4, n_heads=3, d_k=13, lang="zh")
    assert at.number_input(key="n_tokens").value == 4
    assert at.number_input(key="n_heads").value == 3
    assert at.number_input(key="d_k").value == 13
    assert at.session_state["lang"] == "zh"


def test_a_preset_in_the_link_sets_its_sizes():
    at = run(preset="gpt2", stage="qk")
    assert (at.session_state["d_model"], at.session_state["n_heads"]) == (768, 12)
    labels = at.selectbox(key="preset").options
    assert [EN[f"preset_{p}"] for p in ("post", "mask", "tiny", "hand", "gpt2", "custom")] == labels


def test_the_share_panel_writes_the_link_of_this_view():
    at = run(stage="scores", n_tokens=4, lang="zh")
    at.session_state["share_open"] = True
    rerun(at)
    link = next(c.value for c in at.code if "stage=scores" in c.value)
    query = dict(part.split("=", 1) for part in link.split("?", 1)[1].split("&"))
    assert query == dict(at.query_params)
    assert query["n_tokens"] == "4" and query["lang"] == "zh"


def test_numbers_in_cells_off_travels_in_the_link():
    at = run(stage="qk", cells="0")
    assert at.session_state["cell_values"] is False
    assert at.query_params["cells"] == "0"


def test_the_head_chosen_on_one_stage_stays_through_stages_without_the_control_and_in_the_link():
    """The head control is drawn by the stages that show one head; on the others it is not drawn, and the head
    chosen stays (persist_state), in the page and in the link."""
    at = run(stage="scores", n_heads=3)
    at.segmented_control(key="head").set_value(3)
    rerun(at)
    for stage in ("input", "tokens", "output", "values"):
        at.session_state["stage"] = stage
        rerun(at)
        assert at.session_state["head"] == 3 and at.query_params["head"] == "3", stage
    assert at.segmented_control(key="head").value == 3
    assert "<b>H<sub>3</sub></b>" in " ".join(a.get("text", "") for c in charts(at) for a in c["layout"]["annotations"])


def test_one_head_draws_no_head_control_and_fewer_heads_bring_the_head_back_in_range():
    at = run(stage="qk", n_heads=1)
    assert not [w for w in at.segmented_control if w.key == "head"]
    at = run(stage="qk", n_heads=3, head=3)
    at.number_input(key="n_heads").set_value(2)
    rerun(at)
    assert at.session_state["head"] == 2 and at.segmented_control(key="head").options == ["1", "2"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_projectors_head_control_says_on_each_choice_that_it_is_a_head(lang):
    """It has no label there (the figure needs the height), and the lab's GQA row sets it beside the K and V heads'
    own 1 and 2 (audit 2026-12-06 #8)."""
    at = run(stage="variants", variant="gqa", present=1, lang=lang)
    assert at.segmented_control(key="head").options == [TABLES[lang]["head_pill"].format(i=i) for i in (1, 2)]


def test_the_link_names_a_part_only_on_its_stage_and_the_heads_parts_only_with_the_trained_model():
    """Each stage in parts (walk.WALK) writes `part` when it shows another than its first; the heads stage's parts
    belong to the trained model, so with the seeded weights its link names none, whatever part was left chosen."""
    at = run(stage="heads", model="trained", part="knock")
    assert at.query_params["part"] == "knock"
    at.session_state["model"] = "seeded"
    assert "part" not in rerun(at).query_params
    for stage, part in (("kv_cache", "cost"), ("variants", "check"), ("block", "gelu")):
        assert run(stage=stage, part=part).query_params["part"] == part, stage
    assert "part" not in run(stage="block", part="attn").query_params  # post-LN's first part


def test_a_parameter_given_twice_is_read_once_as_its_last_value_and_written_back_once():
    """A link can name a parameter twice (`ln=post&ln=pre`, pasted or hand-made; red team 2026-12-04, N11: values the
    page does not use must not stay in the link). The page reads one value, the last, and rewrites the link with it
    alone."""
    from streamlit.testing.v1 import AppTest

    from .helpers import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(stage=["variants", "block"], ln=["post", "pre"], n_heads=["3", "2"])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert (at.session_state["stage"], at.session_state["block_ln"], at.session_state["n_heads"]) == ("block", "pre", 2)
    assert (at.query_params["stage"], at.query_params["ln"]) == ("block", "pre")
    assert "n_heads" not in at.query_params or at.query_params["n_heads"] == "2"  # the default, left out or once
