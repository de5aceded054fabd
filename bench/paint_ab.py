"""The browser's work after a change of the scores chart: this checkout against another commit, side by side.

Not a test: it asserts nothing about speed, it prints figures. The app as it is here and the app at `--base` (a
git worktree made for the run and removed after it) are served side by side, and headless Chromium changes the
scores chart on both, taking turns (the order alternating), so that a noisy, shared machine slows both alike:
`--change size` clicks n_tokens' + and − in turn (3↔4), `--change click` clicks one cell of S and then another.
For each change it sums the page's long tasks (main-thread tasks over 50 ms, from a PerformanceObserver) in the
2.5 s after it, and notes when the last of them ended, counted from the change. A ratio is the median of the
per-turn ratios this/base.

    python bench/paint_ab.py --base 78428a7 [--change size|click] [--turns 12]
"""

import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright
from ui_latency import ROOT, STEP, VIEWPORT, Server, launch

WATCH_LONG_TASKS = """(() => {
  window.__long = [];
  new PerformanceObserver(list => list.getEntries().forEach(e => window.__long.push([e.startTime, e.duration])))
    .observe({type: 'longtask', buffered: true});
})();"""
SETTLED = "document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') === 'notRunning'"
AFTER_MS = 2500


def open_scores(browser, server: Server):
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WATCH_LONG_TASKS)
    page = context.new_page()
    page.goto(f"{server.url}/?stage=scores", timeout=60_000)
    page.wait_for_selector(".st-key-scores .main-svg, .st-key-scores .mha-chart svg", timeout=60_000)  # Plotly or SVG
    page.wait_for_function(SETTLED, timeout=60_000)
    page.wait_for_timeout(2000)
    return page


def change(page, how: str, turn: int) -> tuple[float, float]:
    """(long tasks summed, end of the last one), in ms from the change."""
    if how == "size":
        target = page.locator(STEP[turn % 2])
    else:  # cells 4 and 5 of the click layer: row 2, columns 1 and 2 of S
        target = page.locator(".st-key-scores .scatterlayer .point, .st-key-scores .mha-chart .point").nth(3 + turn % 2)
    box = target.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.wait_for_timeout(300)
    t0 = page.evaluate("window.__long = []; performance.now()")
    page.mouse.click(x, y)
    page.wait_for_timeout(AFTER_MS)
    page.wait_for_function(SETTLED, timeout=60_000)
    tasks = [(start - t0, length) for start, length in page.evaluate("window.__long") if start >= t0]
    return sum(length for _, length in tasks), max((start + length for start, length in tasks), default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--change", choices=("size", "click"), default="size")
    parser.add_argument("--turns", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="paint_ab_") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.base], check=True)
        servers = {"this": Server(ROOT / "app.py", Path(tmp) / "this.log"),
                   "base": Server(base / "app.py", Path(tmp) / "base.log", cwd=base)}
        try:
            for s in servers.values():
                s.start()
            for s in servers.values():
                s.wait_healthy()
            with sync_playwright() as p:
                browser = launch(p)
                pages = {name: open_scores(browser, s) for name, s in servers.items()}
                got = {name: [] for name in servers}
                for turn in range(args.turns):
                    for name in (("this", "base") if turn % 2 == 0 else ("base", "this")):
                        got[name].append(change(pages[name], args.change, turn))
                browser.close()
        finally:
            for s in servers.values():
                s.stop()
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    this, old = got["this"], got["base"]
    print(f"scores chart, --change {args.change}, {args.turns} turns each, this checkout against {args.base}")
    print("measure (ms after the change)     |  this  |  base  | this/base")
    for i, what in enumerate(("long tasks, summed", "end of the last long task")):
        ratio = statistics.median(a[i] / b[i] for a, b in zip(this, old))
        print(f"{what:33} | {statistics.median(a[i] for a in this):6.0f} | "
              f"{statistics.median(b[i] for b in old):6.0f} | {ratio:6.2f}")


if __name__ == "__main__":
    main()
