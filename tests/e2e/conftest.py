"""Start the app with `streamlit run` and drive it in headless Chromium.

Debian's /usr/bin/chromium is used where it is installed; elsewhere Playwright's own browser
(`python -m playwright install chromium`). With MHA_SHOTS=1 in the environment, the tests save a screenshot of
each page they check to test-artifacts/screenshots/ (off by default: a full-page shot costs about a tenth of a walk's
CPU, and nothing asserts on it).
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
SHOOTING = os.environ.get("MHA_SHOTS") == "1"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, app: Path = ROOT / "app.py", env: dict[str, str] | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--global.developmentMode", "false",
           "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode()) from None
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not answer on /_stcore/health within 60 s")


@pytest.fixture(scope="session")
def app_url():
    port = _free_port()
    proc = start_server(port)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


ENDED: dict = {}  # page -> how many script runs (full or fragment) it has seen end, read from its websocket
SENT: dict = {}  # page -> how many messages it has sent its server (a click's or an edit's rerun request is one)
SOCKETS: dict = {}  # page -> its websockets, oldest first (a reconnect or a new address opens another)


def _count_ends(page, payload) -> None:
    if isinstance(payload, bytes) and ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
        ENDED[page] += 1


def _watch(page) -> None:
    ENDED[page], SENT[page], SOCKETS[page] = 0, 0, []

    def opened(ws) -> None:
        SOCKETS[page].append(ws)
        ws.on("framereceived", lambda payload: _count_ends(page, payload))
        ws.on("framesent", lambda _: SENT.__setitem__(page, SENT[page] + 1))

    page.on("websocket", opened)
    page.on("close", lambda _: [d.pop(page, None) for d in (ENDED, SENT, SOCKETS)])


class WatchedBrowser:
    """A browser whose every page counts the script runs it sees end (`rerun_after` waits for the next one)."""

    def __init__(self, browser):
        self._browser = browser

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        context.on("page", _watch)
        return context


def launch(playwright) -> WatchedBrowser:
    if os.path.exists(CHROMIUM):
        return WatchedBrowser(playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS))
    return WatchedBrowser(playwright.chromium.launch(args=ARGS))


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


TALL_DESK = {"width": 1400, "height": 1600}
LISTENERS: dict = {}  # page -> the (event, handler) pairs a test added with `listen`, taken off after it


@pytest.fixture(scope="session")
def _tabs(browser):
    context = browser.new_context(viewport=TALL_DESK)
    yield context
    context.close()


@pytest.fixture
def page(_tabs):
    """This test worker's tab, at 1400×1600 (a test may resize it before opening a page), kept open from test
    to test: a new tab's first page of the app costs Chromium ~10 CPU-seconds (its renderer compiles
    Streamlit's and Plotly's scripts afresh), the next page in the same tab ~3. Afterwards the tab goes to
    about:blank, which ends the test's Streamlit session; a tab that will not is closed, and the next test
    opens a new one."""
    pg = _tabs.pages[0] if _tabs.pages else _tabs.new_page()  # a closed page leaves the context's list
    pg.set_viewport_size(TALL_DESK)
    yield pg
    for event, handler in LISTENERS.pop(pg, []):
        pg.remove_listener(event, handler)
    try:
        pg.goto("about:blank", timeout=10_000)
    except Exception:  # noqa: BLE001 - a crashed or hung tab: replaced by the next test
        pg.close()


def listen(page, event: str, handler) -> None:
    """page.on(event, handler) for this test only: the `page` fixture takes it off afterwards."""
    page.on(event, handler)
    LISTENERS.setdefault(page, []).append((event, handler))


QUIET_MS = 1000  # the page must stay settled this long: a component's first report can start another run
RERUN_QUIET_MS = 100  # after a run seen to end and its elements no longer stale: React and Plotly have drawn what it
# sent by then. The e2e tests make about 360 such reruns: 300 ms here was 73 s of waiting.


def settle(page, timeout: float = 60_000, quiet_ms: int = QUIET_MS) -> None:
    """Wait until the script run is over, nothing is stale or loading, charts are drawn, and all of that has
    held for quiet_ms with the same charts at the same sizes.

    The screen probe reports a phone-width window only once it is mounted, after the first run: that starts a
    second run which redraws the charts for the phone, so a page is settled only once it has stayed quiet.
    """
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)
    page.wait_for_function(
        """(quietMs) => {
             const app = document.querySelector('[data-testid="stApp"]');
             const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
             const matrices = [...document.querySelectorAll('.mha-chart')];
             const ready = app && app.getAttribute('data-test-script-state') === 'notRunning'
                 && !document.querySelector('[data-stale="true"]')
                 && !document.querySelector('[data-testid="stSkeleton"]')
                 && charts.every(c => c.querySelector('.main-svg')) && matrices.every(c => c.querySelector('svg'));
             const look = JSON.stringify(charts.map(c => {
                 const gd = c.querySelector('.js-plotly-plot');
                 return gd && gd._fullLayout ? [gd._fullLayout.width, gd._fullLayout.height] : null;
             }).concat(matrices.map(c => c.dataset.drawn)));
             const now = performance.now();
             const q = window.__settle;
             if (!ready || !q || q.look !== look) {
                 window.__settle = ready ? {since: now, look: look} : null;
                 return false;
             }
             return now - q.since >= quietMs;
           }""",
        arg=quiet_ms,
        timeout=timeout,
        polling=100,
    )
    page.evaluate("() => { window.__settle = null; }")


def rerun_after(page, action, timeout: float = 60_000) -> None:
    """Do `action` (a click, a key press), wait until the page's websocket brings the end of a script run
    (full or fragment) that started after it, then settle.

    The end is read from the messages, not the page: a fragment's run can be over before the page ever shows
    it running. An action that starts no run is given 2 s, then the page is settled as it is.
    """
    if page not in ENDED:
        raise RuntimeError("rerun_after needs a page from a context of launch()'s browser: only those count runs")
    ended = ENDED[page]
    action()
    deadline = time.monotonic() + 2
    while ENDED[page] == ended and time.monotonic() < deadline:
        page.wait_for_timeout(20)  # Playwright delivers the websocket's frames while it waits
    settle(page, timeout, RERUN_QUIET_MS if ENDED[page] > ended else QUIET_MS)


def type_in_x(page, row: int, text: str) -> None:
    """Type into the last column of X's row `row` (1-based) in the grid, as a user does, and press Enter; the edit
    must leave the browser (its page sends a message).

    The cell editor is focused by the test before the keys, though it is the page's active element already. A tab
    with other tabs of the app in its browser context loses edits under load: the grid closes its editor on Enter
    without the text, nothing sent (2026-12-07: 5 of about 31 classroom walks without the focus(); with it, 21 of
    120 edits beside a room's three followers, none of 40 with the followers in a context of their own, as
    test_classroom_e2e opens them now)."""
    box = page.locator('.st-key-x_editor [data-testid="stDataFrameResizable"]').bounding_box()
    page.mouse.dblclick(box["x"] + box["width"] - 20, box["y"] + 35 * row + 17)
    editor = page.locator(".gdg-input")
    editor.wait_for()  # the cell editor is open, its text selected
    editor.focus()
    page.keyboard.type(text, delay=50)  # React drops keys typed faster than it renders
    if editor.input_value() != text:  # a key dropped all the same, on a machine under load ("7.5" typed as "75")
        editor.fill(text)
    assert editor.input_value() == text
    sent = SENT[page]
    rerun_after(page, lambda: page.keyboard.press("Enter"))
    assert SENT[page] > sent, f"the grid closed its editor on {text!r} (X's row {row}) and sent nothing"


def shot_path(name: str) -> Path | None:
    """Where the screenshot `name` goes, or None when screenshots are off (MHA_SHOTS unset)."""
    if not SHOOTING:
        return None
    SHOTS.mkdir(parents=True, exist_ok=True)
    print(f"screenshot: {SHOTS / name}.png")
    return SHOTS / f"{name}.png"


def shoot(page, name: str, **options) -> None:
    """The whole page (or what `options` say: clip=…), when screenshots are on."""
    if path := shot_path(name):
        page.screenshot(path=str(path), **({"full_page": True} | options))


def shoot_element(locator, name: str) -> None:
    """One element, when screenshots are on."""
    if path := shot_path(name):
        locator.screenshot(path=str(path))
