"""The explorer in a real browser: every stage, Play, an edit in the grid, a clicked cell."""

import pytest

from mha.ui.strings import EN

from .conftest import rerun_after, settle, shoot

pytestmark = pytest.mark.e2e


def open_stage(page, url, stage, **params):
    query = "&".join(f"{k}={v}" for k, v in dict(stage=stage, **params).items())
    page.goto(f"{url}/?{query}")
    settle(page)


def _active_frame(page) -> int:
    return page.evaluate("() => document.querySelector('.st-key-scores .js-plotly-plot')._fullLayout.sliders[0].active")


def test_play_advances_the_scores_animation(page, app_url):
    """At rest the chart shows S (its last frame); Play starts over from QKᵀ and walks forward."""
    open_stage(page, app_url, "scores")
    last = page.evaluate("() => document.querySelector('.st-key-scores .js-plotly-plot')._fullLayout.sliders[0]"
                         ".steps.length") - 1
    assert last >= 4 and _active_frame(page) == last
    page.locator(".st-key-scores .updatemenu-button").first.click()
    page.wait_for_function(
        f"() => {{ const a = document.querySelector('.st-key-scores .js-plotly-plot')._fullLayout.sliders[0].active;"
        f" return a >= 2 && a < {last}; }}",
        timeout=15_000,
    )
    shoot(page, "scores-playing")
    page.locator(".st-key-scores .updatemenu-button").nth(1).click()  # pause
    assert _active_frame(page) >= 2


def test_an_edit_in_the_grid_reaches_q(page, app_url):
    open_stage(page, app_url, "input")
    grid = page.locator('.st-key-x_editor [data-testid="stDataFrameResizable"]')
    box = grid.bounding_box()
    page.mouse.dblclick(box["x"] + box["width"] - 20, box["y"] + 35 + 17)  # row 1, last column
    page.locator(".gdg-input").wait_for()  # the cell editor is open, its text selected
    page.keyboard.type("3.25", delay=50)  # React drops keys typed faster than it renders
    rerun_after(page, lambda: page.keyboard.press("Enter"))
    assert "3.25" in page.url  # the edit travels in the link
    shoot(page, "input-edited")
    rerun_after(page, page.locator(".st-key-stage label").filter(has_text=EN["stage_qk"]).click)
    x_row1 = page.evaluate("() => document.querySelector('.st-key-qk_q .js-plotly-plot').data[0].z[0]")
    assert x_row1[-1] == 3.25


def test_a_clicked_cell_shows_its_dot_product(page, app_url):
    open_stage(page, app_url, "qk")
    point = page.locator(".st-key-qk_q .scatterlayer .point").nth(9)  # row 2, column 3 of Q₁
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    rerun_after(page, lambda: page.mouse.click(x, y))
    assert page.get_by_text("Q₁[2, 3] is row 2 of X times column 3 of W_Q1").count() == 1
    check = page.get_by_text("The terms add up to").inner_text()
    total, value = (part.split()[-1].rstrip(".") for part in check.split(";"))
    assert total == value
    shoot(page, "qk-clicked")


def test_kv_cache_add_twice_and_play(page, app_url):
    open_stage(page, app_url, "kv_cache")
    for _ in range(2):
        rerun_after(page, page.locator(".st-key-add_token button").click)
    assert page.get_by_text("The cache holds 5 tokens").count() == 1
    assert page.get_by_text("0 — exactly").count() == 1
    plot = ".st-key-kv_animation .js-plotly-plot"
    assert page.evaluate(f"() => document.querySelector('{plot}')._fullLayout.sliders[0].active") == 0
    page.locator(".st-key-kv_animation .updatemenu-button").first.click()
    page.wait_for_function(f"() => document.querySelector('{plot}')._fullLayout.sliders[0].active >= 2",
                           timeout=15_000)
    shoot(page, "kv_cache-playing")


def test_a_click_on_the_scores_reruns_the_chart_only(page, app_url):
    """A clicked cell of S reruns the chart's fragment, not the page with its sidebar: the browser's rerun
    request names the fragment, and the breakdown appears."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    open_stage(page, app_url, "scores")
    point = page.locator(".st-key-scores .scatterlayer .point").nth(3)  # query 2, key 1
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    before = len(sent)
    rerun_after(page, lambda: page.mouse.click(x, y))
    reruns = []
    for payload in sent[before:]:
        if isinstance(payload, bytes):
            msg = BackMsg()
            msg.ParseFromString(payload)
            if msg.WhichOneof("type") == "rerun_script":
                reruns.append(msg.rerun_script)
    assert reruns and all(r.fragment_id for r in reruns), [r.fragment_id for r in reruns]
    assert page.get_by_text("over the 2 keys k that row 2 may see", exact=False).count() == 1
