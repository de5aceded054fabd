"""Workshop flows in a real browser: a link opened elsewhere shows the same numbers; Chinese; a quiz."""

import re

import pytest

import mha

from .conftest import rerun_after, settle, shoot

pytestmark = pytest.mark.e2e
CJK = re.compile(r"[\u4e00-\u9fff]")


def _chart_z(page, key: str) -> list:
    return page.evaluate(f"() => document.querySelector('.st-key-{key} .mha-chart').mha.data.map(d => d.z)")


def test_a_copied_link_shows_the_same_values_in_a_fresh_browser(browser, page, app_url):
    page.goto(f"{app_url}/?stage=input&n_tokens=4&d_k=13&seed=3")
    settle(page)
    grid = page.locator('.st-key-x_editor [data-testid="stDataFrameResizable"]').bounding_box()
    page.mouse.dblclick(grid["x"] + grid["width"] - 20, grid["y"] + 35 + 17)
    page.locator(".gdg-input").wait_for()
    page.keyboard.type("-2.5", delay=50)
    rerun_after(page, lambda: page.keyboard.press("Enter"))
    rerun_after(page, page.locator(".st-key-next_stage button").click)  # on to Q and K
    link, before = page.url, _chart_z(page, "qk_q")
    assert "x=" in link and "stage=qk" in link
    other = browser.new_context(viewport={"width": 1400, "height": 1600})
    fresh = other.new_page()
    fresh.goto(link)
    settle(fresh)
    assert _chart_z(fresh, "qk_q") == before
    assert before[0][0][-1] == -2.5  # X as edited, row 1, last column
    shoot(fresh, "link-opened-elsewhere")
    other.close()


def test_chinese_pages_draw_cjk_glyphs(page, app_url):
    page.goto(f"{app_url}/?stage=heads&lang=zh")
    settle(page)
    assert CJK.search(page.locator("h3").first.inner_text())
    widths = page.evaluate("""() => {
        const c = document.createElement('canvas').getContext('2d');
        c.font = '20px "Noto Sans CJK SC"'; const cjk = c.measureText('多头注意力').width;
        c.font = '20px serif'; const fallback = c.measureText('多头注意力').width;
        return [cjk, fallback]; }""")
    assert widths[0] > 50  # five full-width glyphs, not zero-width or missing
    shoot(page, "heads-zh-glyphs")


def test_a_quiz_answered_right_then_another_answered_wrong(page, app_url):
    page.goto(f"{app_url}/?stage=qk")
    settle(page)
    rerun_after(page, page.locator(".st-key-quiz_start_qk_q button").click)
    cfg = mha.AttentionConfig()
    q = mha.forward(mha.init_input(cfg), mha.init_weights(cfg)).q
    for offset, verdict in ((0.0, "Right"), (0.75, "Not quite")):
        if offset:  # another quiz, another cell maybe
            rerun_after(page, page.locator(".st-key-quiz_again_qk_q button").click)
        text = page.get_by_text("One cell is hidden").inner_text()
        i, j = (int(n) - 1 for n in re.search(r"Row (\d+) of .*?column (\d+)", text, re.S).groups())  # names: math
        page.locator(".st-key-quiz_answer_qk_q input").fill(f"{float(q[0, i, j]) + offset:.4f}")
        rerun_after(page, lambda: page.keyboard.press("Enter"))
        rerun_after(page, page.locator(".st-key-quiz_check_qk_q button").click)
        assert page.get_by_text(verdict).count() >= 1, verdict
        shoot(page, f"quiz-{verdict.split()[0].lower()}")
