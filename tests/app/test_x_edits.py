"""Edited cells of X are the user's: a new seed or kind of numbers draws the rest anew, keeps them, and says so."""

import numpy as np
import pytest

import mha

from .helpers import page_text, rerun, run

EDITS = {"edited_rows": {0: {"c4": 3.25}, 2: {"c0": -1.5}}, "added_rows": [], "deleted_rows": []}


def _edited(**params):
    at = run(stage="input", **params)
    at.session_state["x_editor"] = EDITS
    return rerun(at)


@pytest.mark.parametrize("change, cfg", [("seed", mha.AttentionConfig(seed=4)),
                                         ("integers", mha.AttentionConfig(init="integers"))])
def test_a_new_seed_or_kind_of_numbers_keeps_the_edited_cells_and_says_how_many(change, cfg):
    at = _edited()
    if change == "seed":
        at.number_input(key="seed").set_value(4)
    else:
        at.toggle(key="integers").set_value(True)
    rerun(at)
    expected = mha.init_input(cfg)
    expected[0, 4], expected[2, 0] = 3.25, -1.5
    np.testing.assert_array_equal(at.session_state["x_base"], expected)
    assert "your 2 edited cell(s) of X were kept" in page_text(at)
    assert at.query_params["x"] == "1.5~3.25_3.1~-1.5"  # the link carries them over the new seed
    rerun(at)  # the editor starts afresh on the new X: the edits are not applied twice or lost
    np.testing.assert_array_equal(at.session_state["x_base"], expected)
    assert "were kept" not in page_text(at)  # said once, where it happened


def test_the_note_offers_a_reset_to_the_new_seed():
    at = _edited()
    at.session_state["stage"] = "qk"
    rerun(at)
    at.number_input(key="seed").set_value(4)
    rerun(at)
    at.button(key="reset_x_kept").click()
    rerun(at)
    np.testing.assert_array_equal(at.session_state["x_base"], mha.init_input(mha.AttentionConfig(seed=4)))
    assert "x" not in at.query_params


def test_a_new_seed_without_edits_says_nothing():
    at = run(stage="qk")
    at.number_input(key="seed").set_value(4)
    rerun(at)
    np.testing.assert_array_equal(at.session_state["x_base"], mha.init_input(mha.AttentionConfig(seed=4)))
    assert "were kept" not in page_text(at)


def test_edits_from_a_link_are_kept_on_another_stage_in_chinese():
    at = run(stage="scores", lang="zh", x="2.2~9.5")
    at.number_input(key="seed").set_value(1)
    rerun(at)
    assert at.session_state["x_base"][1, 1] == 9.5
    assert "你改过的 1 个 X 的格子保留了原来的值" in page_text(at)
