"""What a hand can do to the page in a real browser: a typo in a number box, a select-all and Delete in the grid."""

import time

import pytest

from .conftest import rerun_after, settle, type_in_x

pytestmark = pytest.mark.e2e
LOAD = 90_000


def _alerts(page) -> list[str]:
    return page.locator('[data-testid="stAlert"]').all_inner_texts()


def test_letters_in_tokens_n_keep_n_and_the_edits_and_say_so_in_chinese(page, app_url):
    page.goto(f"{app_url}/?stage=input&lang=zh")
    settle(page, LOAD)
    type_in_x(page, 3, "7.5")  # X₃'s last cell
    assert "3.5~7.5" in page.url
    box = page.locator(".st-key-n_tokens input")
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("e")  # the one letter a number box lets in: what it holds is then no number
    assert box.input_value() == ""
    rerun_after(page, lambda: page.keyboard.press("Enter"))
    assert box.input_value() == "3" and "3.5~7.5" in page.url
    said = " ".join(_alerts(page))
    assert "词元数 n 需要 1 到 64 之间的数" in said and "Number is" not in page.inner_text("body")
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("99")
    rerun_after(page, lambda: page.keyboard.press("Enter"))
    assert box.input_value() == "3" and "99 超出了这个范围" in " ".join(_alerts(page))
    assert "Number is" not in page.inner_text("body")  # not Streamlit's own English message


def test_emptying_the_largest_grid_gives_one_notice_and_the_page_stays_live(page, app_url):
    page.goto(f"{app_url}/?stage=input&n_tokens=64&d_model=1024")
    settle(page, LOAD)
    grid = page.locator('.st-key-x_editor [data-testid="stDataFrameResizable"]').bounding_box()
    page.mouse.click(grid["x"] + 80, grid["y"] + 52)  # a cell of X₁
    # the keys go to the grid only once it holds the focus (on a busy machine, a while after the click)
    page.wait_for_function("() => !!(document.activeElement && document.activeElement.closest('.st-key-x_editor'))",
                           timeout=30_000)
    page.keyboard.press("Control+A")
    start = time.monotonic()
    rerun_after(page, lambda: page.keyboard.press("Delete"), timeout=120_000)
    took = time.monotonic() - start
    print(f"a select-all and Delete at 64×1024: {took:.1f} s to a settled page")
    alerts = [a for a in _alerts(page) if "cells are empty or not finite numbers" in a]
    assert len(alerts) == 1 and "65,536 cells" in alerts[0], (alerts, took)
    rerun_after(page, page.locator(".st-key-next_stage button").click)  # the page still answers
    assert "stage=qk" in page.url


def test_a_typed_1e200_is_stored_as_1e200_comes_back_on_a_reload_and_is_refused_with_its_reason(page, app_url):
    page.goto(f"{app_url}/?stage=input")
    settle(page, LOAD)
    type_in_x(page, 2, "1e200")
    assert "2.5~1e200" in page.url  # X[2, 5] = 1e200 travels in the link, its exponent with no + to lose
    page.reload()
    settle(page, LOAD)
    assert "2.5~1e200" in page.url  # no + in the exponent: a decoded copy of the address would read it as a space
    assert page.locator('.st-key-x_editor [data-testid="stDataFrameResizable"]').count() == 1
    assert not [a for a in _alerts(page) if "could not be used" in a]  # the link carried it back
    rerun_after(page, page.locator(".st-key-next_stage button").click)  # on to Q and K: refused, with the reason
    assert page.get_by_text("overflows float64").count() >= 1
