"""Clicks right after a server restart: does an Add-token click sent d seconds after the page reconnects count once?

Not a test: it prints counts. For each delay and trial: a server of its own (`streamlit run app.py` from --root), a
Chromium page on the KV cache stage that adds one token (kv=1), then the server is killed by its PID and started
again on the same port; d seconds after the page shows itself connected again, a click lands where the Add-token
button was; after the page settles, the link says kv=2 (counted once), kv=1 (lost) or kv=3 (doubled).

    python bench/restart_clicks.py [--root DIR[,DIR...]] [--delays 0,0.03,0.06,0.1,0.2] [--trials 3]

The red team's N8 (restart_window.py, 23e3b1f): 1 of 16 clicks counted 0.09–0.53 s after the reconnect.
"""

import argparse
import os
import re
import signal
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e.conftest import _free_port, launch, rerun_after, settle, start_server  # noqa: E402

APP = '[data-testid="stApp"]'


def trial(browser, root: Path, delay: float) -> str:
    port = _free_port()
    server = start_server(port, root / "app.py")
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    try:
        page.goto(f"http://127.0.0.1:{port}/?stage=kv_cache")
        settle(page, 60_000)
        add = page.locator(".st-key-add_token button")
        rerun_after(page, add.click)
        box = add.bounding_box()
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
        page.wait_for_selector(f"{APP}:not([data-test-connection-state='CONNECTED'])", timeout=30_000)
        server = start_server(port, root / "app.py")
        page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=30_000)
        time.sleep(delay)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        time.sleep(4)
        settle(page, 60_000)
        found = re.search(r"kv=(\d+)", page.url)
        return {"2": "counted", "1": "lost", "3": "doubled"}.get(found.group(1) if found else "", "other")
    finally:
        page.context.close()
        server.kill()
        server.wait()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=str(ROOT), help="comma-separated app trees")
    p.add_argument("--delays", default="0,0.03,0.06,0.1,0.2", help="seconds after the reconnect")
    p.add_argument("--trials", type=int, default=3)
    args = p.parse_args()
    delays = [float(d) for d in args.delays.split(",")]
    print(f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with sync_playwright() as pw:
        browser = launch(pw)
        for root in (Path(r).resolve() for r in args.root.split(",")):
            for delay in delays:
                seen = [trial(browser, root, delay) for _ in range(args.trials)]
                print(f"{root}: {delay:.2f} s after the reconnect: {seen.count('counted')}/{len(seen)} counted "
                      f"({', '.join(seen)})", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
