"""What an interaction inside a stage costs the server, against a full rerun of that stage.

Not a test: it prints figures. One `streamlit run app.py` (the repository's .streamlit/config.toml) and headless
Chromium. For each interaction, on its stage, turn by turn and side by side: the interaction (each turn changes
something: two cells in turn, two steps in turn, a token added then the cache reset, the nudged row up then down),
then a full rerun of the stage (the sidebar's "numbers in cells" toggle, off and on). Each action's cost is the
server's CPU (user + system time of the process, all threads, from /proc) from just before the action until its
run has ended (read from the websocket, the same way for both) and the page has settled, plus a fixed pause for
the last messages. /proc counts in clock ticks (10 ms), so the figures are totals over every turn divided by the
turns; the idle server's CPU over the same pauses is shown apart, and the last column takes it off both sides
(each side ends with one such pause). Every interaction is checked to have shown what it should (the clicked
cell's sums, the step in the link, the cache's new length, the nudge's rows). Beside the CPU, what the server sent
the browser for each action (websocket bytes, per action) and how many chart elements the interactions sent in all:
a click on a matrix sends its mark (the cell alone) and the sums, none.

    python bench/click_cost.py [--turns 20] [--only scores-click,kv-add]
"""

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capacity import cpu_s  # noqa: E402
from ui_latency import APP, Server, launch, machine  # noqa: E402

PAUSE_S = 0.3  # after the page settles: the server's last messages of the run
OPTIONS = ".st-key-options_open summary"  # the sidebar's view options, opened once: their toggles are built while open
TOGGLE = ".st-key-cell_values label"  # the options' "numbers in cells": a full rerun, the same sizes


class RunEnds:
    """How many script runs (full or fragment) the page has seen end, read from its websocket: a fragment's run
    can be over before the page ever shows it running, so the page's own state cannot tell. Also the bytes the
    server has sent, and how many of its messages held a matrix chart's element (its figure)."""

    def __init__(self, page):
        self.count = self.bytes = self.charts = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if not isinstance(payload, bytes):
            return
        self.bytes += len(payload)
        self.charts += b'class="mha-spec"' in payload
        if ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
            self.count += 1


def settled(page, ends: RunEnds, before: int, chart: str) -> None:
    """The run an action started (after `before` ends) is over and the page has drawn the chart."""
    deadline = time.monotonic() + 60
    while ends.count == before and time.monotonic() < deadline:
        page.wait_for_timeout(10)  # Playwright delivers the websocket's frames while it waits
    if ends.count == before:
        raise TimeoutError("no run ended within 60 s of the action")
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
    page.wait_for_function(f"() => document.querySelectorAll('{chart} .mha-chart svg').length > 0")


def cost(pid: int, page, ends: RunEnds, chart: str, action) -> tuple[float, int, int]:
    """Server CPU from just before `action` to its run's end, the page settled and PAUSE_S more; the bytes the
    server sent meanwhile, and the chart elements among them."""
    before, runs, sent, charts = cpu_s(pid), ends.count, ends.bytes, ends.charts
    action()
    settled(page, ends, runs, chart)
    time.sleep(PAUSE_S)
    return cpu_s(pid) - before, ends.bytes - sent, ends.charts - charts


def click_point(chart: str, index: int, page) -> None:
    point = page.locator(f"{chart} .mha-chart .point").nth(index)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.click(x, y)


def shows(text: str, page) -> None:
    page.get_by_text(text, exact=False).first.wait_for(timeout=10_000)


def in_link(part: str, page) -> None:
    page.wait_for_function(f"() => location.search.includes('{part}')", timeout=10_000)


@dataclass(frozen=True)
class Interaction:
    stage: str
    chart: str  # the chart that must be drawn before the page counts as settled
    act: Callable  # act(page, turn)
    check: Callable  # check(page, turn): fails unless the page shows the interaction's result


def _button(selector: str, page) -> None:
    page.locator(selector).first.click()


INTERACTIONS = {
    "scores-click": Interaction(  # the click layer's points 3 and 4: S[2, 1] and S[2, 2]
        "scores", ".st-key-scores", lambda page, k: click_point(".st-key-scores", 3 + k % 2, page),
        lambda page, k: shows(f"S[2, {1 + k % 2}] = ", page)),
    "scores-step": Interaction(
        "scores", ".st-key-scores", lambda page, k: _button(f".st-key-phase button >> nth={0 if k % 2 == 0 else 3}",
                                                            page),
        lambda page, k: in_link("phase=qkt", page) if k % 2 == 0 else page.wait_for_function(
            "() => !location.search.includes('phase=')", timeout=10_000)),
    "qk-click": Interaction(  # Q₁[2, 3] and Q₁[2, 4]
        "qk", ".st-key-qk_q", lambda page, k: click_point(".st-key-qk_q", 9 + k % 2, page),
        lambda page, k: shows(f"Q₁[2, {3 + k % 2}] is row 2 of X", page)),
    "kv-add": Interaction(  # a token added, then the cache reset
        "kv_cache", ".st-key-kv_animation",
        lambda page, k: _button(".st-key-add_token button" if k % 2 == 0 else ".st-key-kv_reset button", page),
        lambda page, k: shows(f"The cache holds {4 if k % 2 == 0 else 3} tokens", page)),
    "nudge": Interaction(  # the nudged row 2 → 3 → 2
        "dependency", ".st-key-dependency_nudge",
        lambda page, k: _button(".st-key-nudge_j [data-testid=stNumberInputStep"
                                + ("Up]" if k % 2 == 0 else "Down]"), page),
        lambda page, k: shows("Untouched: rows 1–2 of Y" if k % 2 == 0 else "Untouched: row 1 of Y", page)),
}


def measure(page, ends: RunEnds, url: str, pid: int, what: Interaction, turns: int) -> tuple:
    """Server CPU seconds per interaction, per full rerun and per idle pause, on one stage; the bytes sent per
    interaction and per full rerun, and the chart elements the interactions sent."""
    runs = ends.count
    page.goto(f"{url}/?stage={what.stage}")
    settled(page, ends, runs, what.chart)
    if not page.locator(TOGGLE).count():
        cost(pid, page, ends, what.chart, lambda: page.locator(OPTIONS).click())
    for warm in range(2):  # first builds and imports are a one-off
        cost(pid, page, ends, what.chart, partial(what.act, page, warm))
        what.check(page, warm)
        cost(pid, page, ends, what.chart, lambda: page.locator(TOGGLE).click())
    acts, reruns, idle = [], [], []
    for turn in range(turns):
        acts.append(cost(pid, page, ends, what.chart, partial(what.act, page, turn)))
        what.check(page, turn)
        reruns.append(cost(pid, page, ends, what.chart, lambda: page.locator(TOGGLE).click()))
        before = cpu_s(pid)
        time.sleep(PAUSE_S)
        idle.append(cpu_s(pid) - before)
    act, rerun = ([sum(x) / turns for x in zip(*runs)] for runs in (acts, reruns))
    return act[0], rerun[0], sum(idle) / turns, act[1], rerun[1], sum(a[2] for a in acts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--only", help=f"comma-separated, of {', '.join(INTERACTIONS)} (default: all)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(INTERACTIONS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        app = Server(APP, Path(tmp) / "app.log")
        app.start()
        try:
            app.wait_healthy()
            with sync_playwright() as p:
                browser = launch(p)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                ends = RunEnds(page)
                for name in names:
                    rows.append((name, *measure(page, ends, app.url, app.proc.pid, INTERACTIONS[name], args.turns)))
                browser.close()
        finally:
            app.stop()
    print(f"env: {machine()}; {args.turns} turns each")
    print("| interaction | stage | server CPU per interaction | per full rerun | interaction / rerun | idle pause "
          "| ratio, the idle pause off both | sent per interaction | per full rerun | charts sent by interactions |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, act, rerun, idle, act_bytes, rerun_bytes, charts in rows:
        print(f"| {name} | {INTERACTIONS[name].stage} | {act * 1000:.1f} ms | {rerun * 1000:.1f} ms | "
              f"{act / rerun:.2f} | {idle * 1000:.1f} ms | {(act - idle) / (rerun - idle):.2f} | "
              f"{act_bytes / 1000:.1f} kB | {rerun_bytes / 1000:.1f} kB | {charts} |")


if __name__ == "__main__":
    main()
