"""What a click on a cell of the scores chart costs the server, against a full rerun of that stage.

Not a test: it prints figures. One `streamlit run app.py` (the repository's .streamlit/config.toml) and headless
Chromium on ?stage=scores. Turn by turn, side by side: a click on a cell of S (two cells in turn, so each click
changes the selection), then a full rerun of the stage (the sidebar's "numbers in cells" toggle, off and on).
Each action's cost is the server's CPU (user + system time of the process, all threads, from /proc) from just
before the action until its run has finished and the page has settled, plus a fixed pause for the last messages.
/proc counts in clock ticks (10 ms), so the figures are totals over every turn divided by the turns; the idle
server's CPU over the same pauses is shown apart.

    python bench/click_cost.py [--turns 40]
"""

import argparse
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capacity import cpu_s  # noqa: E402
from ui_latency import APP, Server, launch  # noqa: E402

PAUSE_S = 0.3  # after the page settles: the server's last messages of the run
CELLS = (3, 4)  # the click layer's points: (query 2, key 1) and (query 2, key 2)
TOGGLE = ".st-key-cell_values label"  # the sidebar's "numbers in cells": a full rerun, the same sizes


def settled(page) -> None:
    try:
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"]', timeout=1_000)
    except Exception:  # noqa: BLE001 - a fast run may be over before we look
        pass
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
    page.wait_for_function("() => document.querySelectorAll('.st-key-scores .js-plotly-plot .main-svg').length > 0")


def cost(pid: int, page, action) -> float:
    before = cpu_s(pid)
    action()
    settled(page)
    time.sleep(PAUSE_S)
    return cpu_s(pid) - before


def click_cell(page, index: int) -> None:
    point = page.locator(".st-key-scores .scatterlayer .point").nth(index)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.click(x, y)


def clicked(page, index: int) -> None:
    """Fail unless the page shows the sums of the cell just clicked (S[2, 1] or S[2, 2])."""
    page.get_by_text(f"S[2, {index - 2}] = ", exact=False).first.wait_for(timeout=10_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = Server(APP, Path(tmp) / "app.log")
        app.start()
        try:
            app.wait_healthy()
            with sync_playwright() as p:
                browser = launch(p)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{app.url}/?stage=scores")
                settled(page)
                for warm in range(2):  # first builds and imports are a one-off
                    click_cell(page, CELLS[warm])
                    settled(page)
                    page.locator(TOGGLE).click()
                    settled(page)
                clicks, reruns, idle = [], [], []
                for turn in range(args.turns):
                    cell = CELLS[turn % 2]
                    clicks.append(cost(app.proc.pid, page, partial(click_cell, page, cell)))
                    clicked(page, cell)
                    reruns.append(cost(app.proc.pid, page, lambda: page.locator(TOGGLE).click()))
                    before = cpu_s(app.proc.pid)
                    time.sleep(PAUSE_S)
                    idle.append(cpu_s(app.proc.pid) - before)
                browser.close()
        finally:
            app.stop()
    click, rerun = sum(clicks) / len(clicks), sum(reruns) / len(reruns)
    print(f"env: {os.cpu_count()} cpus, load {', '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.turns} turns")
    print(f"server CPU per cell click on scores: {click * 1000:.1f} ms; per full rerun of the stage: "
          f"{rerun * 1000:.1f} ms; click / rerun = {click / rerun:.2f}; idle over a {PAUSE_S} s pause: "
          f"{sum(idle) / len(idle) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
