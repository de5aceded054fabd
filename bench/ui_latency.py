"""Benchmark of the app's latency in a browser, against a bare Streamlit page with the same kind of widget.

Not a test: it asserts nothing about speed, it prints figures. Two servers run side by side, the app
(`app.py`) and a bare page (one `st.number_input` and a line of text), and headless Chromium drives both,
taking turns (the order alternating) so that a noisy, shared machine slows both alike. A figure is a
median over the repeats; a ratio is the median of the per-turn ratios app/bare.

    python bench/ui_latency.py [--quick] [--acts 24] [--views scores,kv_cache] [--page bench/floor_page.py]

First load: a fresh browser context opens the view; the time runs from navigation start to the run
finished and painted. Interaction: a click on the sidebar's n_tokens step button (+ and − in turn, 3↔4);
the time runs from the click to the run finished and painted. A run is finished when the server's
`script_finished` message for a run begun after the click (or the navigation) has arrived, and then
the page shows `stApp` in state notRunning, nothing stale, no skeleton, every Plotly chart drawn
(`.main-svg`), every matrix chart element with its chart beside it (`.mha-spec`, then `.mha-chart svg`: the page
draws it in the commit that puts the element in, mha/ui/matrix_chart.js), followed by two animation frames. The
script-state attribute alone is not enough: a fast rerun can go running → notRunning within one React commit, so
the page never shows "running".
Kilobytes: the websocket frames received during an interaction (their payload lengths). Going 3↔4 and
back, Streamlit sends a message of 10 KB or more that the browser already holds as a reference
(ref_hash), so the first 3→4 change, not counted in the medians, is shown apart: what a new value costs.

`--page FILE` serves FILE in app.py's place (still "app" in the tables): bench/floor_page.py is the scores view's
elements without the app's work, Streamlit's and Plotly's floor for that view (`--views scores`).

A second table says where the time goes: each time split into "run" (until the script_finished message
arrives) and "paint" (after it), the JS chunks and fonts a first load fetches, the number of Plotly
charts and element containers on the app's page, and the app's largest message kinds.
"""

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from importlib.metadata import version
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
BARE = '''import streamlit as st

st.number_input("n_tokens", 1, 64, 3, key="n_tokens")
st.write("A bare page with the same kind of widget.")
'''
VIEWS = {"default": "/", "scores": "/?stage=scores", "kv_cache": "/?stage=kv_cache", "tokens": "/?stage=tokens",
         "block": "/?stage=block", "next_token": "/?stage=next_token",
         "lab_gqa": "/?stage=variants&variant=gqa", "lab_mla": "/?stage=variants&variant=mla",
         "lab_online": "/?stage=variants&variant=online", "lab_gqa_click": "/?stage=variants&variant=gqa&part=click",
         "lab_gqa_check": "/?stage=variants&variant=gqa&part=check",
         "lab_mla_click": "/?stage=variants&variant=mla&part=click"}
TARGET = 2.0  # app/bare, for both first load and interaction (issue 12)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 1600}
STEP = ('.st-key-n_tokens [data-testid="stNumberInputStepUp"]',
        '.st-key-n_tokens [data-testid="stNumberInputStepDown"]')
TIMEOUT_MS = 60_000
EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")

# Runs in every page before its own scripts. It sees each websocket message before Streamlit does, reads
# the ForwardMsg's top-level fields (field 6 = script_finished), and once a run has finished polls the
# page once per animation frame until it is settled, then waits two frames more (painted).
MONITOR_JS = """(() => {
  const B = window.__bench = {waiting: true, t0: 0, tFin: null, tEnd: null};
  B.arm = () => { B.waiting = true; B.t0 = null; B.tFin = null; B.tEnd = null; };
  addEventListener('click', () => { if (B.waiting && B.t0 === null) B.t0 = performance.now(); }, true);
  function finishStatus(buf) {
    const b = new Uint8Array(buf); let i = 0;
    const varint = () => { let v = 0, s = 1, x; do { x = b[i++]; v += (x & 127) * s; s *= 128; } while (x & 128);
                           return v; };
    while (i < b.length) {
      const key = varint(), fieldNo = Math.floor(key / 8), wire = key % 8;
      if (fieldNo === 6 && wire === 0) return varint();
      const skip = wire === 0 ? (varint(), 0) : wire === 2 ? varint() : wire === 1 ? 8 : wire === 5 ? 4 : -1;
      if (skip < 0) return -1;
      i += skip;  // after varint() has moved i: `i += varint()` would read i first
    }
    return -1;
  }
  const settled = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute('data-test-script-state') === 'notRunning'
      && !document.querySelector('[data-stale="true"]') && !document.querySelector('[data-testid="stSkeleton"]')
      && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].every(c => c.querySelector('.main-svg'))
      && [...document.querySelectorAll('.mha-spec')].every(s => s.parentNode.querySelector(':scope > .mha-chart svg'));
  };
  const frame = f => requestAnimationFrame(f);
  const poll = () => frame(() => settled() ? frame(() => frame(() => { B.tEnd = performance.now(); })) : poll());
  const onMessage = data => {
    if (!(data instanceof ArrayBuffer) || !B.waiting || B.t0 === null) return;
    const status = finishStatus(data);
    if (status >= 0 && status !== EARLY) { B.waiting = false; B.tFin = performance.now(); setTimeout(poll, 0); }
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); this.addEventListener('message', e => onMessage(e.data)); }
  };
})();""".replace("EARLY", str(EARLY_FOR_RERUN))


# --- servers ---------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    script: Path
    log: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    cwd: Path = ROOT  # where the server runs: its .streamlit/config.toml

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        cmd = [sys.executable, "-m", "streamlit", "run", str(self.script), "--server.headless", "true",
               "--server.port", str(self.port), "--server.address", "127.0.0.1",
               "--global.developmentMode", "false", "--server.fileWatcherType", "none",
               "--browser.gatherUsageStats", "false"]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT)

    def wait_healthy(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.script.name} exited:\n{self.log.read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{self.script.name}: no answer on /_stcore/health within {seconds:.0f} s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --- one page, its websocket frames, one measurement -----------------------------------------------------

def message_kind(payload: bytes) -> tuple[str, bool]:
    """What a ForwardMsg carries ("element:plotly_chart", "script_finished", …) and whether it ends a run."""
    msg = ForwardMsg.FromString(payload)
    kind = msg.WhichOneof("type") or "?"
    if kind == "script_finished":
        return kind, msg.script_finished != EARLY_FOR_RERUN
    if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
        return f"element:{msg.delta.new_element.WhichOneof('type')}", False
    if kind == "delta":
        return f"delta:{msg.delta.WhichOneof('type')}", False
    return kind, False


class Frames:
    """Websocket frames received by a page since the last reset: bytes, bytes by kind, run finished."""

    def __init__(self, page) -> None:
        self.reset()
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if "_stcore/stream" in ws.url:
            ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload) -> None:
        data = payload.encode() if isinstance(payload, str) else payload
        kind, ends_run = message_kind(data)
        self.by_kind[kind] += len(data)
        self.finished |= ends_run

    def reset(self) -> None:
        self.by_kind, self.finished = Counter(), False


@dataclass
class Sample:
    ms: float  # from the click (or navigation start) to the run finished and painted
    fin_ms: float  # from the same start to the run's script_finished message received
    kinds: Counter  # bytes received over the websocket, by message kind
    static_kb: float = 0.0  # first loads: files under /static/ fetched (JS chunks, fonts), compressed

    @property
    def kb(self) -> float:
        return self.kinds.total() / 1000


STATIC_KB_JS = """() => performance.getEntriesByType('resource').filter(e => e.name.includes('/static/'))
                         .reduce((sum, e) => sum + e.encodedBodySize, 0) / 1000"""


def settle(page, frames: Frames) -> Sample:
    """Wait for the monitored run to finish and paint; its times count from the click or navigation start."""
    page.wait_for_function("window.__bench.tEnd !== null", timeout=TIMEOUT_MS, polling=20)
    deadline = time.monotonic() + 5
    while not frames.finished and time.monotonic() < deadline:  # let the last frame events reach us
        page.wait_for_timeout(10)
    ms, fin_ms = page.evaluate("[window.__bench.tEnd - window.__bench.t0, window.__bench.tFin - window.__bench.t0]")
    return Sample(ms, fin_ms, Counter(frames.by_kind))


def open_page(browser, url: str):
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(MONITOR_JS)
    page = context.new_page()
    frames = Frames(page)
    page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
    return context, page, frames


def first_load(browser, url: str) -> Sample:
    context, page, frames = open_page(browser, url)
    try:
        sample = settle(page, frames)
        sample.static_kb = page.evaluate(STATIC_KB_JS)
        return sample
    finally:
        context.close()


def interact(page, frames: Frames, turn: int) -> Sample:
    """Click n_tokens' + (even turns) or − (odd turns) and wait for the rerun to finish and paint."""
    page.wait_for_timeout(50)
    page.evaluate("window.__bench.arm()")
    frames.reset()
    page.click(STEP[turn % 2], timeout=TIMEOUT_MS)
    return settle(page, frames)


# --- the runs, interleaved -------------------------------------------------------------------------------

@dataclass
class Figures:
    """One view's samples, each an (app, bare) pair measured back to back."""

    loads: list = field(default_factory=list)
    acts: list = field(default_factory=list)
    first_act: tuple | None = None  # the first 3→4 change: nothing of it in Streamlit's message cache yet
    charts: int = 0  # Plotly charts on the app's page
    elements: int = 0  # element containers on the app's page, sidebar included
    errors: int = 0  # exceptions shown on the app's page (the figures would then not mean much)


def pair(turn: int, run_app, run_bare) -> tuple:
    """Both measurements, app first on even turns, bare first on odd ones."""
    if turn % 2 == 0:
        a = run_app()
        return a, run_bare()
    b = run_bare()
    return run_app(), b


def measure_loads(browser, app_url: str, bare_url: str, fig: Figures, repeats: int) -> None:
    for turn in range(repeats):
        fig.loads.append(pair(turn, partial(first_load, browser, app_url), partial(first_load, browser, bare_url)))


def measure_interactions(browser, app_url: str, bare_url: str, fig: Figures, repeats: int) -> None:
    pages = [open_page(browser, app_url), open_page(browser, bare_url)]
    try:
        (_, app, app_frames), (_, bare, bare_frames) = pages
        settle(app, app_frames)
        settle(bare, bare_frames)
        fig.first_act = pair(0, partial(interact, app, app_frames, 0), partial(interact, bare, bare_frames, 0))
        for turn in range(1, repeats + 1):
            fig.acts.append(pair(turn, partial(interact, app, app_frames, turn),
                                 partial(interact, bare, bare_frames, turn)))
        fig.charts = app.locator('[data-testid="stPlotlyChart"]').count()
        fig.elements = app.locator('[data-testid="stElementContainer"]').count()
        fig.errors = app.locator('[data-testid="stException"]').count()
    finally:
        for context, _, _ in pages:
            context.close()


def run(browser, app: Server, bare: Server, loads: int, acts: int, views: list[str]) -> dict[str, Figures]:
    results = {}
    for view in views:
        path = VIEWS[view]
        results[view] = fig = Figures()
        for url in (app.url + path, bare.url + "/"):  # warm-up: the first run of a server imports everything
            first_load(browser, url)
        measure_loads(browser, app.url + path, bare.url + "/", fig, loads)
        measure_interactions(browser, app.url + path, bare.url + "/", fig, acts)
        print(f"  measured {view}", file=sys.stderr, flush=True)
    return results


# --- report ----------------------------------------------------------------------------------------------

def med(pairs: list, get, side: int | None = None) -> float:
    """Median of get(app) (side 0), get(bare) (side 1), or of get(app) / get(bare) (side None)."""
    values = [get(p[side]) if side is not None else get(p[0]) / get(p[1]) for p in pairs]
    return statistics.median(values) if values else float("nan")


def flag(ratio: float) -> str:
    return " " if ratio <= TARGET else "!"


def main_table(results: dict[str, Figures]) -> None:
    head = (f"{'view':<10} | {'load app ms':>11} {'bare ms':>8} {'ratio':>7} | "
            f"{'interact app ms':>15} {'bare ms':>8} {'ratio':>7} | {'KB/interact app':>15} {'bare':>6}")
    print(head)
    print("-" * len(head))
    ms, kb = (lambda s: s.ms), (lambda s: s.kb)
    for view, f in results.items():
        lr, ar = med(f.loads, ms), med(f.acts, ms)
        print(f"{view:<10} | {med(f.loads, ms, 0):>11.0f} {med(f.loads, ms, 1):>8.0f} {lr:>6.2f}{flag(lr)} | "
              f"{med(f.acts, ms, 0):>15.0f} {med(f.acts, ms, 1):>8.0f} {ar:>6.2f}{flag(ar)} | "
              f"{med(f.acts, kb, 0):>15.1f} {med(f.acts, kb, 1):>6.1f}")


def split(pairs: list, side: int) -> str:
    """Median time as run + paint: until script_finished arrives, then until painted."""
    fin, total = med(pairs, lambda s: s.fin_ms, side), med(pairs, lambda s: s.ms, side)
    return f"{fin:.0f}+{total - fin:.0f}"


def detail_table(results: dict[str, Figures]) -> None:
    print("where the time and bytes go (medians; ms as run + paint: until script_finished arrives, then until "
          "painted; static KB: JS chunks and fonts a first load fetches):")
    head = (f"{'view':<10} | {'charts':>6} {'elems':>5} | {'load app ms':>11} {'bare ms':>9} {'static KB app':>13} "
            f"{'bare':>5} | {'interact app ms':>15} {'bare ms':>8} | first 3→4: KB app, bare; app's largest")
    print(head)
    print("-" * len(head))
    static = lambda s: s.static_kb
    for view, f in results.items():
        app, bare = f.first_act
        top = ", ".join(f"{k} {v / 1000:.1f}" for k, v in app.kinds.most_common(3))
        print(f"{view:<10} | {f.charts:>6} {f.elements:>5} | {split(f.loads, 0):>11} {split(f.loads, 1):>9} "
              f"{med(f.loads, static, 0):>13.0f} {med(f.loads, static, 1):>5.0f} | {split(f.acts, 0):>15} "
              f"{split(f.acts, 1):>8} | {app.kb:.1f}, {bare.kb:.1f}; {top}")


def report(results: dict[str, Figures], env: str, loads: int, acts: int) -> None:
    print(env)
    print(f"per view: {loads} first loads and {acts} interactions per server, app and bare taking turns; "
          "ms and KB are medians, a ratio is the median of the per-turn ratios app/bare; ! = over target")
    main_table(results)
    print(f"targets: interaction ≤ {TARGET}× bare, first load ≤ {TARGET}× bare")
    print()
    detail_table(results)
    for view, f in results.items():
        if f.errors:
            print(f"WARNING: the app's {view} view shows {f.errors} exception(s)")
    print("KB/interact: the change goes 3↔4 and back; Streamlit then sends messages ≥ 10 KB that the browser "
          "got in the last runs by reference (ref_hash), so the first 3→4 shows what a new value costs.")


def machine() -> str:
    """The processor, its cores and the load average: every benchmark's env line starts with it, since a figure in
    seconds belongs to the machine it was measured on (the same commit gave 36 and 16 ms per rerun on two hosts)."""
    model = "?"
    try:
        info = dict(map(str.strip, line.split(":", 1)) for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if ":" in line)
        model = f"{info['model name']} {float(info['cpu MHz']):.0f} MHz"
    except (OSError, KeyError, ValueError):
        model = platform.processor() or model
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{platform.system()} {platform.machine()}, {model}, {os.cpu_count()} cpus, load {load}"


def environment(browser) -> str:
    versions = ", ".join(f"{name} {version(name)}" for name in ("streamlit", "plotly", "playwright"))
    return f"env: {machine()}; Python {platform.python_version()}, {versions}, chromium {browser.version}"


def launch(p):
    if os.path.exists(CHROMIUM):
        return p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    return p.chromium.launch(args=CHROMIUM_ARGS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 first load and 3 interactions per view")
    parser.add_argument("--acts", type=int, default=8,
                        help="interactions per view and server (default 8): an interaction takes a whole number of "
                             "frames, so one round's median moves by a frame's share (0.27×) on little; more narrow it")
    parser.add_argument("--views", default=",".join(VIEWS), help=f"comma-separated, of {', '.join(VIEWS)}")
    parser.add_argument("--page", type=Path, default=APP, help="the page served in the app's place (default app.py)")
    args = parser.parse_args()
    views = [v for v in args.views.split(",") if v]
    if not views or set(views) - set(VIEWS):
        parser.error(f"--views: choose from {', '.join(VIEWS)}")
    loads, acts = (1, 3) if args.quick else (3, args.acts)
    with tempfile.TemporaryDirectory(prefix="ui_latency_") as tmp:
        bare_script = Path(tmp) / "bare.py"
        bare_script.write_text(BARE)
        servers = [Server(args.page.resolve(), Path(tmp) / "app.log"), Server(bare_script, Path(tmp) / "bare.log")]
        try:
            for s in servers:
                s.start()
            for s in servers:
                s.wait_healthy()
            with sync_playwright() as p:
                browser = launch(p)
                started = time.monotonic()
                results = run(browser, *servers, loads, acts, views)
                env = environment(browser)
                browser.close()
        finally:
            for s in servers:
                s.stop()
    page = "" if args.page == APP else f"; the app is {args.page}" + (f" with FLOOR_CHART={os.environ['FLOOR_CHART']}"
                                                                     if "FLOOR_CHART" in os.environ else "")
    report(results, env + page, loads, acts)
    print(f"measured in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
