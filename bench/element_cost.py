"""What one element costs the browser on every full rerun: a page of 20 copies of it against a page of none.

Not a test: it asserts nothing about speed, it prints figures. One server serves a page whose kind of element is
chosen by the URL (`?kind=markdown`), with one number input to change; headless Chromium changes it 10 times
per page and reads Chromium's own task time (`Performance.getMetrics`: TaskDuration, every task of the page's main
thread), the pages taking turns with the empty page ("none") so that a noisy, shared machine slows both alike.
A kind's cost per element is (its task time per change − the empty page's) / 20, the median over the turns.

    python bench/element_cost.py [--turns 3] [--kinds markdown,latex]
"""

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ui_latency import ROOT, STEP, Server, launch, machine  # noqa: E402

COPIES = 20
CHANGES = 10
PAGE = '''import streamlit as st

st.number_input("n_tokens", 1, 64, 3, key="n_tokens")
kind = st.query_params.get("kind", "none")
for i in range(COPIES if kind != "none" else 0):
    key = f"w{i}"
    if kind == "markdown":
        st.markdown(f"**Sizes {i}**: a line of Markdown")
    elif kind == "caption":
        st.caption(f"All sizes are distinct primes, so a shape names its source ({i}).")
    elif kind == "number_input":
        st.number_input(f"Embedding size {i}", 1, 64, 5, key=key)
    elif kind == "toggle":
        st.toggle(f"Numbers in cells {i}", key=key)
    elif kind == "segmented_control":
        st.segmented_control(f"Head {i}", [1, 2], key=key, default=1, required=True)
    elif kind == "radio_12":
        st.radio(f"The walk {i}", list(range(12)), format_func=lambda s: f"Stage {s}", key=key)
    elif kind == "selectbox":
        st.selectbox(f"Sizes {i}", ["post", "small", "custom"], key=key)
    elif kind == "expander":
        st.expander(f"Link to this view {i}", key=key, on_change="rerun")
    elif kind == "latex":
        st.latex(rf"S_{{{i}}} = \\mathrm{{softmax}}\\left(\\frac{{QK^T}}{{\\sqrt{{7}}}} + M\\right)")
    elif kind == "markdown_3_formulas":
        st.markdown(f"Row t of S ({i}) is $\\\\mathrm{{softmax}}(q_t K^\\\\top/\\\\sqrt{{d_k}})$; only $q_t$ appears, "
                    f"$q_1, \\\\dots, q_{{t-1}}$ were used.")
    elif kind == "button":
        st.button(f"Next {i}", key=key)
    elif kind == "container":
        st.container(horizontal=True)
'''.replace("COPIES", str(COPIES))
KINDS = ["markdown", "caption", "number_input", "toggle", "segmented_control", "radio_12", "selectbox", "expander",
         "latex", "markdown_3_formulas", "button", "container"]


def task_ms(context, kind: str, base: str) -> float:
    """Chromium's main-thread task time per change of n_tokens on the page of `kind`, in ms (a fresh tab)."""
    page = context.new_page()
    try:
        return _task_ms(page, kind, base)
    finally:
        page.close()


def _task_ms(page, kind: str, base: str) -> float:
    page.goto(f"{base}/?kind={kind}")
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    page.wait_for_timeout(1500)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    metric = lambda: next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]
                          if m["name"] == "TaskDuration")
    for k in range(2):  # warm-up
        page.click(STEP[k % 2])
        page.wait_for_timeout(600)
    before = metric()
    for k in range(CHANGES):
        page.click(STEP[k % 2])
        page.wait_for_timeout(600)
    return (metric() - before) / CHANGES * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    tmp = Path(tempfile.mkdtemp())
    (tmp / "elements.py").write_text(PAGE)
    server = Server(tmp / "elements.py", tmp / "server.log", cwd=ROOT)
    server.start()
    try:
        server.wait_healthy()
        print(f"env: {machine()}; {COPIES} copies, {CHANGES} changes per page, {args.turns} turns", flush=True)
        with sync_playwright() as p:
            browser = launch(p)
            context = browser.new_context(viewport={"width": 1400, "height": 1600})
            costs = {kind: [] for kind in kinds}
            empty = []
            for turn in range(args.turns):
                for kind in kinds:
                    if turn % 2 == 0:  # the order alternating
                        none, this = task_ms(context, "none", server.url), task_ms(context, kind, server.url)
                    else:
                        this, none = task_ms(context, kind, server.url), task_ms(context, "none", server.url)
                    empty.append(none)
                    costs[kind].append((this - none) / COPIES)
            browser.close()
        print(f"the empty page: {statistics.median(empty):.0f} ms of tasks per change")
        print("| element | ms per element per full rerun (median; each turn) |\n|---|---|")
        for kind, values in costs.items():
            print(f"| {kind} | {statistics.median(values):.2f} ({', '.join(f'{v:.2f}' for v in values)}) |")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
