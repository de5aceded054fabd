"""State and controls in a real browser: what the page keeps, resets and carries across a reload or a restart."""

import pytest

from .conftest import rerun_after, settle

pytestmark = pytest.mark.e2e


def _alerts(page) -> list[str]:
    return page.locator('[data-testid="stAlert"]').all_inner_texts()


@pytest.mark.parametrize("commit", ["enter", "typed only"])
def test_another_cell_empties_the_answer_box(page, app_url, commit):
    page.goto(f"{app_url}/?stage=qk")
    settle(page)
    rerun_after(page, page.locator(".st-key-quiz_start_qk_q button").click)
    box = page.locator(".st-key-quiz_answer_qk_q input")
    box.fill("1.234")
    rerun_after(page, lambda: box.press("Enter"))
    rerun_after(page, page.locator(".st-key-quiz_check_qk_q button").click)
    assert any("you said 1.234" in a for a in _alerts(page))
    if commit == "typed only":  # a second answer typed but not entered when "Another cell" is pressed
        box.fill("2.5")
    rerun_after(page, page.locator(".st-key-quiz_again_qk_q button").click)
    settle(page)
    assert box.input_value() == ""
    assert _alerts(page) == []  # nothing graded against the new cell
    rerun_after(page, page.locator(".st-key-quiz_check_qk_q button").click)
    assert box.input_value() == ""
    assert _alerts(page) == ["Type a value first."]
