"""Presenter mode's first screen: for every view at 1280×720 with present=1, where its first figure lies.

Not a test (tests/e2e/test_presenter_e2e.py holds the views that must be whole): it prints, for each view opened
from its link and read scrolled to the top, the first figure's top and bottom in the page (px) and whether it is
whole on the 720 px screen, and writes them as JSON for bench/README.md's table. The first figure is found by the
same rule as the test's (the first matrix chart or Plotly chart in the main column; else the grid of X).

    python bench/presenter_first_screen.py OUT.json [en,zh]

The views: every stage, every variant's three lab parts, the trained heads' parts, the block's parts, the KV
cache's step with each of its variants (as opened, and with a token added) and its cost part. Needs Chromium (the
e2e tests' `launch`).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from mha.ui import settings as S  # noqa: E402
from tests.e2e.conftest import _free_port, launch, settle, start_server  # noqa: E402
from tests.e2e.test_presenter_e2e import FIRST, PRESENTER, TO_TOP  # noqa: E402


def views() -> list[dict]:
    out = [dict(stage=s) for s in S.STAGES]
    out += [dict(stage="variants", variant=v, part=p) for v in S.VARIANTS for p in S.LAB_PARTS]
    out += [dict(stage="heads", model="trained", part=p) for p in S.HEADS_PARTS]
    out += [dict(stage="block", part=p) for p in S.BLOCK_PARTS]
    out += [dict(stage="kv_cache", variant=v, **added) for v in S.KV_VARIANTS for added in ({}, {"kv": 1})]
    return out + [dict(stage="kv_cache", part="cost")]


def main(out: str, langs: list[str]) -> None:
    port = _free_port()
    server = start_server(port)
    found = []
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_context(viewport=PRESENTER).new_page()
            for lang in langs:
                for view in views():
                    query = "&".join(f"{k}={v}" for k, v in {**view, "lang": lang, "present": 1}.items())
                    page.goto(f"http://127.0.0.1:{port}/?{query}")
                    settle(page, 120_000)
                    page.evaluate(TO_TOP)
                    at = page.evaluate(FIRST)
                    first = at["first"]
                    whole = bool(first) and 0 <= first[0] < first[1] <= PRESENTER["height"]
                    found.append(dict(view=query, first=first, whole=whole))
                    print("whole" if whole else "     ", first, query, flush=True)
            browser.close()
    finally:
        server.terminate()
    Path(out).write_text(json.dumps(found, indent=0))
    for lang in langs:
        mine = [f for f in found if f"lang={lang}&" in f["view"] and f["first"]]
        print(f"{lang}: {sum(f['whole'] for f in mine)} of {len(mine)} views with a figure are whole")


if __name__ == "__main__":
    main(sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "en,zh").split(","))
