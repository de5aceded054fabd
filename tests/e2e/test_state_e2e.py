"""State and controls in a real browser: what the page keeps, resets and carries across a reload or a restart."""

import pytest

from .conftest import _free_port, rerun_after, settle, start_server

pytestmark = pytest.mark.e2e
LOAD = 90_000  # ms a first load may take on a busy machine (Plotly's script is 4.7 MB)
APP = '[data-testid="stApp"]'


def _alerts(page) -> list[str]:
    return page.locator('[data-testid="stAlert"]').all_inner_texts()


@pytest.mark.parametrize("commit", ["enter", "typed only"])
def test_another_cell_empties_the_answer_box(page, app_url, commit):
    page.goto(f"{app_url}/?stage=qk")
    settle(page, LOAD)
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


def _k_cache(page) -> list:
    """The K cache the KV animation's last frame draws."""
    return page.evaluate("""() => { const f = document.querySelector('.st-key-kv_animation .mha-chart').mha.frames;
                                    return f[f.length - 1].data[2].z; }""")


def test_a_reload_and_a_fresh_browser_keep_the_added_tokens(browser, page, app_url):
    page.goto(f"{app_url}/?stage=kv_cache&seed=5")
    settle(page, LOAD)
    for _ in range(2):
        rerun_after(page, page.locator(".st-key-add_token button").click)
    assert "kv=2" in page.url
    before = _k_cache(page)
    assert len(before) == 5
    page.reload()
    settle(page, LOAD)
    assert page.get_by_text("The cache holds 5 tokens").count() == 1 and _k_cache(page) == before
    other = browser.new_context(viewport={"width": 1400, "height": 1600})
    fresh = other.new_page()
    fresh.goto(page.url)
    settle(fresh, LOAD)
    assert fresh.get_by_text("The cache holds 5 tokens").count() == 1 and _k_cache(fresh) == before
    other.close()


def _type_in_x(page, row: int, text: str) -> None:
    """Type into the last column of X's row `row` (1-based) in the grid, as a user does, and press Enter."""
    box = page.locator('.st-key-x_editor [data-testid="stDataFrameResizable"]').bounding_box()
    page.mouse.dblclick(box["x"] + box["width"] - 20, box["y"] + 35 * row + 17)
    page.locator(".gdg-input").wait_for()  # the cell editor is open, its text selected
    page.keyboard.type(text, delay=50)  # React drops keys typed faster than it renders
    rerun_after(page, lambda: page.keyboard.press("Enter"))


def test_a_typed_1e200_is_stored_as_1e200(page, app_url):
    page.goto(f"{app_url}/?stage=input")
    settle(page, LOAD)
    _type_in_x(page, 1, "1e200")
    assert "1.5~1e%2B200" in page.url or "1.5~1e+200" in page.url  # X[1, 5] = 1e200 travels in the link
    rerun_after(page, page.locator(".st-key-next_stage button").click)  # on to Q and K: refused, with the reason
    assert page.get_by_text("overflows float64").count() >= 1


@pytest.mark.parametrize("click, expect", [
    (".st-key-n_tokens button >> nth=-1", lambda page: page.locator(".st-key-n_tokens input").input_value() == "5"),
    (".st-key-next_stage button", lambda page: "stage=qk" in page.url),  # a button whose callback moves on
])
def test_the_first_click_after_a_server_restart_counts(page, click, expect):
    port = _free_port()
    server = start_server(port)
    try:
        page.goto(f"http://127.0.0.1:{port}/?stage=input&n_tokens=4")
        settle(page, LOAD)
        server.terminate()
        server.wait(timeout=30)
        page.wait_for_selector(f"{APP}:not([data-test-connection-state='CONNECTED'])", timeout=LOAD)  # cut off
        server = start_server(port)  # a redeploy, or a hosted app waking up, on the same address
        page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=LOAD)
        settle(page, LOAD)
        assert page.locator(".st-key-n_tokens input").input_value() == "4" and "n_tokens=4" in page.url
        rerun_after(page, page.locator(click).click)
        assert expect(page), page.url
        assert "n_tokens=5" in page.url if "n_tokens" in click else "n_tokens=4" in page.url
    finally:
        server.terminate()
        server.wait(timeout=30)
