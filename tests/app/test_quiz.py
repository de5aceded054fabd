"""Predict, then reveal: a hidden cell, an answer, right or wrong, and the breakdown."""

import re

import numpy as np
import pytest

import mha

from .helpers import charts, page_text, rerun, run

TRACE = mha.forward(mha.init_input(mha.AttentionConfig()), mha.init_weights(mha.AttentionConfig()))


def _quiz(offset: float):
    at = run(stage="qk")
    at.button(key="quiz_start_qk_q").click()
    rerun(at)
    i, j = at.session_state["quiz_qk_q"]
    shown = np.array(charts(at)[0]["data"][2]["z"], dtype=float)
    assert np.isnan(shown[i, j]) and np.isfinite(np.delete(shown.ravel(), i * 7 + j)).all()  # only that cell hidden
    at.number_input(key="quiz_answer_qk_q").set_value(round(float(TRACE.q[0, i, j]) + offset, 4))
    at.button(key="quiz_check_qk_q").click()
    return rerun(at), (i, j)


def test_a_right_answer_is_praised_and_explained():
    at, (i, j) = _quiz(0.0)
    assert at.success and "Right" in at.success[0].value
    assert f"$Q_{{1}}[{i + 1}, {j + 1}]$ is row {i + 1} of $X$ times column {j + 1} of $W_{{Q1}}$" in page_text(at)


def test_a_wrong_answer_is_corrected_with_the_breakdown():
    at, (i, j) = _quiz(0.5)
    assert at.error and "Not quite" in at.error[0].value
    check = r"The (terms|products of the factors as written .*?) add up to"  # the breakdown's check
    assert re.search(check, page_text(at))


@pytest.mark.parametrize("answer, value, right", [(1.0, 1.005, True), (1.0, 1.02, False), (0.004, 0.0, True),
                                                  (-2.0, 2.0, False)])
def test_tolerance(answer, value, right):
    from mha.ui.product import quiz_right

    assert quiz_right(answer, value) is right


@pytest.mark.parametrize("restart", ["quiz_again_qk_q", "quiz_stop_qk_q"])
def test_a_new_cell_starts_with_an_empty_box_and_no_verdict(restart):
    at, _ = _quiz(0.5)
    assert at.error
    at.button(key=restart).click()
    rerun(at)
    if restart == "quiz_stop_qk_q":  # every cell shown, then "Quiz me" again
        at.button(key="quiz_start_qk_q").click()
        rerun(at)
    assert at.number_input(key="quiz_answer_qk_q").value is None
    assert not at.error and not at.success and not at.warning
    at.button(key="quiz_check_qk_q").click()
    rerun(at)
    assert [w.value for w in at.warning] == ["Type a value first."] and not at.error and not at.success
