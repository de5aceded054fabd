"""A view travels in its link: settings and edited X go into the URL, and a fresh session rebuilds it."""

import numpy as np

import mha
from mha.ui.strings import EN

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
