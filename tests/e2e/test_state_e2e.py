"""State and controls in a real browser: what the page keeps, resets and carries across a reload or a restart."""

import os
import re
import signal
import time
from contextlib import contextmanager
from types import SimpleNamespace

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from mha.ui.strings import EN

from .conftest import _free_port, listen, rerun_after, settle, start_server
from .test_explorer_e2e import _click_point

pytestmark = pytest.mark.e2e
LOAD = 90_000  # ms a first load may take on a busy machine (Plotly's script is 4.7 MB)
APP = '[data-testid="stApp"]'
STEP_S = 0.005  # s a restarted server runs at a time while a test waits for it to draw (_step_until)


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


def _traffic(page) -> list[str]:
    """What passes on the page's websocket from now on, in order: the type of each message the server sends, and
    "rerun" for each rerun request the page sends (call it before the page opens its socket)."""
    seen: list[str] = []

    def received(payload) -> None:
        if isinstance(payload, bytes):
            seen.append(ForwardMsg.FromString(payload).WhichOneof("type"))

    def sent(payload) -> None:
        if isinstance(payload, bytes) and BackMsg.FromString(payload).WhichOneof("type") == "rerun_script":
            seen.append("rerun")

    listen(page, "websocket", lambda ws: (ws.on("framereceived", received), ws.on("framesent", sent)))
    return seen


def _wait_for(page, traffic: list[str], since: int, kind: str) -> None:
    """Wait until `traffic` has an entry of this kind after its first `since`."""
    deadline = time.monotonic() + LOAD / 1000
    while kind not in traffic[since:]:
        assert time.monotonic() < deadline, f"no {kind} on the page's websocket"
        page.wait_for_timeout(10)  # Playwright delivers the websocket's frames while it waits


def _step_until(page, server, traffic: list[str], since: int, kind: str) -> None:
    """Let `server` run in steps of STEP_S (SIGCONT, then SIGSTOP) until the page has a message of this kind from it;
    the server is left stopped, at most a step or two past sending it."""
    deadline = time.monotonic() + LOAD / 1000
    while True:
        os.kill(server.pid, signal.SIGSTOP)
        page.wait_for_timeout(4 * STEP_S * 1000)  # what the step sent arrives (Playwright delivers it while it waits)
        if kind in traffic[since:]:
            return
        assert time.monotonic() < deadline, f"no {kind} from the server"
        os.kill(server.pid, signal.SIGCONT)
        time.sleep(STEP_S)


def _restart_and_click(page, server, port: int, traffic: list[str], click):
    """Kill the server by its PID, start another on the same port, and `click` while the page's reconnect run is
    drawing the page anew; return the new server once the runs that follow are over.

    The click is made once that run has begun to draw (its first delta: the app is imported, the stage not yet
    drawn), as a user's click while a fresh process draws its first page (a second or more). So that it reaches
    the server before the run has drawn the stage however fast this machine is, the new process runs in steps until
    that delta, and stays stopped until the click is sent."""
    os.kill(server.pid, signal.SIGKILL)
    server.wait(timeout=30)
    page.wait_for_selector(f"{APP}:not([data-test-connection-state='CONNECTED'])", timeout=LOAD)  # cut off
    since = len(traffic)
    server = start_server(port)
    page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=LOAD)
    try:
        _step_until(page, server, traffic, since, "delta")
        since = len(traffic)
        click()
        _wait_for(page, traffic, since, "rerun")
    finally:
        os.kill(server.pid, signal.SIGCONT)
    _wait_for(page, traffic, since, "script_finished")
    settle(page, LOAD)
    return server


def _click_at(page, locator):
    """A click at the middle of what `locator` finds now, to be made later at once: a user's click, not Playwright's,
    which would wait for the element to be drawn anew."""
    box = locator.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    return lambda: page.mouse.click(x, y)


def _sums_rows(page) -> list[int]:
    """The rows of S whose clicked cell's sums the page shows."""
    texts = page.get_by_text("keys k that row", exact=False).all_inner_texts()
    return [int(t.split("keys k that row")[1].split()[0]) for t in texts]


@contextmanager
def _restartable(page, link: str):
    """A server of the test's own with the page open on `link`'s query, and what a test does with it: open(link)
    opens another query on it, restart(click) kills it and clicks as _restart_and_click does, and stop_start(tabs)
    stops it as a redeploy does and starts another on the same address, returning once each of `tabs` has
    reconnected and drawn its page again. Whichever server runs last is killed at the end."""
    port, servers, traffic = _free_port(), [], _traffic(page)
    servers.append(start_server(port))

    def open_link(query: str) -> None:
        page.goto(f"http://127.0.0.1:{port}/?{query}")
        settle(page, LOAD)

    def stop_start(tabs) -> None:
        servers[-1].terminate()
        servers[-1].wait(timeout=30)
        for tab in tabs:
            tab.wait_for_selector(f"{APP}:not([data-test-connection-state='CONNECTED'])", timeout=LOAD)  # cut off
        servers.append(start_server(port))
        for tab in tabs:
            tab.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=LOAD)
            settle(tab, LOAD)

    try:
        open_link(link)
        yield SimpleNamespace(port=port, open=open_link, stop_start=stop_start,
                              restart=lambda click: servers.append(
                                  _restart_and_click(page, servers[-1], port, traffic, click)))
    finally:
        servers[-1].kill()
        servers[-1].wait(timeout=30)


def test_the_first_clicks_after_a_server_restart_count(page):
    """One server of the test's own, restarted three times (a start costs CPU).

    First two tabs on it, a classroom's presenter and a follower, and it is stopped and started again (a redeploy, or
    a hosted app waking up, on the same address); once each tab has reconnected and drawn its page again, each says
    its room went with the server (rooms live in its process) and makes its session's first click: a step of n in
    one, a button whose callback moves on in the other. Both count. Then it is killed and started while the page is
    drawn anew, twice, and a click made during that drawing counts: Add token, then a cell of the scores."""
    with _restartable(page, "stage=input&n_tokens=4&room=new") as server:
        other = page.context.new_page()
        try:
            code = re.search(r"room=(\w+)", page.url).group(1)
            other.goto(f"http://127.0.0.1:{server.port}/?room={code}")
            settle(other, LOAD)
            assert "n_tokens=4" in other.url  # following the presenter
            server.stop_start((page, other))
            for tab in (page, other):
                assert tab.locator(".st-key-n_tokens input").input_value() == "4" and "n_tokens=4" in tab.url
                tab.get_by_text(EN["room_gone"].format(code=code)).wait_for(timeout=LOAD)  # not left waiting
            rerun_after(page, page.locator(".st-key-n_tokens button >> nth=-1").click)
            assert page.locator(".st-key-n_tokens input").input_value() == "5" and "n_tokens=5" in page.url, page.url
            rerun_after(other, other.locator(".st-key-next_stage button").click)
            assert "stage=qk" in other.url and "n_tokens=4" in other.url, other.url
        finally:
            other.close()
        server.open("stage=kv_cache")
        add = page.locator(".st-key-add_token button")
        rerun_after(page, add.click)
        assert page.get_by_text("The cache holds 4 tokens").count() == 1 and "kv=1" in page.url
        server.restart(_click_at(page, add))
        assert page.get_by_text("The cache holds 5 tokens").count() == 1 and "kv=2" in page.url
        server.open("stage=scores")
        rerun_after(page, _click_point(page, ".st-key-scores", 3))  # query 2, key 1
        assert _sums_rows(page) == [2]
        server.restart(_click_point(page, ".st-key-scores", 6))  # query 3
        assert _sums_rows(page) == [3]  # its sums: the click counted, and the sums shown are not wiped to none
