"""Load and soak benchmark: N concurrent browser sessions against one Streamlit server (or a proxy in front of several).

Not a test: it prints figures and a pass/fail line per target. Exit code 1 only when a page showed an
exception, a server log (--log, or the server started here) holds a traceback, or a page showed another
session's state (cross-talk); a crash of the benchmark itself ends it with Python's traceback.

    python bench/load.py [--quick] [--sessions N] [--soak N]
    python bench/load.py --url http://127.0.0.1:8500 --pid PID1 --pid PID2 [--log FILE ...]

Without --url it starts `streamlit run app.py` on a free loopback port and measures that process; with --url
it drives an already running server (e.g. deploy/run.sh's nginx) and sums the RSS of the --pid processes.
All traffic goes to 127.0.0.1.

1. Warm-up: one session walks every stage once on each server process, reached on its own port (read from its
   command line), since first imports and code paths are a one-off cost, not a per-session one.
2. Load: N browser contexts (one Chromium) open their own link at once, each with its own sizes, seed, language,
   stage and an edited X[1,1] (`x=1.1~v`), then each does 4 interactions (n_tokens +, another stage, n_tokens +,
   stage qk). Once all are done, every page is checked again: its URL, its number inputs, its title's language,
   and the X chart on stage qk (`.st-key-qk_q` trace 0 is X: z[0][0] must be that session's v, its shape n × d_model;
   trace 1 is W_Q, d_model × d_k). A run counts as finished when the websocket's script_finished message has
   arrived and the page is settled (bench/ui_latency.py's MONITOR_JS).
3. Soak: one session, many interactions (n_tokens +/−, next stage, seed +), RSS at checkpoints.

RSS is VmRSS from /proc/PID/status, in MB (MiB). Streamlit keeps a closed tab's session for
server.disconnectedSessionTTL (120 s) in case it reconnects, and CPython seldom hands freed memory back to the
OS, so RSS after closing mostly stays up.
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

from playwright.async_api import async_playwright
from ui_latency import APP, CHROMIUM, CHROMIUM_ARGS, MONITOR_JS, VIEWPORT, Server, machine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mha.ui.settings import DEFAULTS, STAGES  # noqa: E402 - after the repository root is on the path
from mha.ui.strings import Text  # noqa: E402

TIMEOUT_MS = 180_000  # one run under load (12 pages, 2 cores) can take long
TARGET_MB_PER_SESSION = 20.0
TARGET_SOAK_MB = 20.0
STEP = {"n_up": '.st-key-n_tokens [data-testid="stNumberInputStepUp"]',
        "n_down": '.st-key-n_tokens [data-testid="stNumberInputStepDown"]',
        "seed_up": '.st-key-seed [data-testid="stNumberInputStepUp"]'}
STAGE_LABELS = '.st-key-stage [role="radiogroup"] label'  # the options, in STAGES order
SOAK_CYCLE = ("n_up", "stage", "n_down", "seed_up")
SIZE_KEYS = ("n_tokens", "d_model", "d_k", "n_heads", "seed")
STATE_JS = """() => {
  const num = k => { const el = document.querySelector(`.st-key-${k} input`); return el ? Number(el.value) : null; };
  const chart = document.querySelector('.st-key-qk_q .mha-chart');
  const d = chart && chart.mha && chart.mha.data;
  return {url: location.href, title: (document.querySelector('h1') || {}).textContent || '',
          n_tokens: num('n_tokens'), d_model: num('d_model'), d_k: num('d_k'), n_heads: num('n_heads'),
          seed: num('seed'),
          x11: d ? d[0].z[0][0] : null, x_shape: d ? [d[0].z.length, d[0].z[0].length] : null,
          wq_cols: d ? d[1].z[0].length : null};
}"""


# --- memory ----------------------------------------------------------------------------------------------

def rss_mb(pids: list[int]) -> float:
    """Summed VmRSS of the processes, in MB (MiB)."""
    total_kb = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
    return total_kb / 1024


def cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes have used so far."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_each(pids: list[int]) -> str:
    return ", ".join(f"pid {pid} {rss_mb([pid]):.1f}" for pid in pids)


# --- one session's plan and its checks --------------------------------------------------------------------

@dataclass
class Plan:
    """What a session puts in its link, and what its page must show once its interactions are done."""

    index: int
    n_tokens: int
    d_model: int
    d_k: int
    n_heads: int
    seed: int
    lang: str
    stage: str
    x11: float  # X[1,1], edited through the link

    @classmethod
    def for_session(cls, i: int) -> "Plan":
        return cls(i, n_tokens=2 + i % 5, d_model=4 + i % 3, d_k=(3, 5, 7, 11, 13, 2)[i % 6], n_heads=1 + i % 4,
                   seed=100 + i, lang=("en", "zh")[i % 2], stage=STAGES[i % len(STAGES)], x11=1.0 + 0.0625 * (i + 1))

    def link(self, base: str) -> str:
        params = {k: getattr(self, k) for k in SIZE_KEYS} | {"lang": self.lang, "stage": self.stage,
                                                            "x": f"1.1~{self.x11!r}"}
        return f"{base}/?{urlencode(params)}"

    def detour(self) -> str:
        """A stage to visit on the way to qk: neither the one the link opens nor qk itself."""
        return "heads" if self.stage != "heads" else "scores"

    def final(self) -> dict:
        """The settings after the interactions: n_tokens went up twice, the stage is qk."""
        return {k: getattr(self, k) for k in SIZE_KEYS} | {"n_tokens": self.n_tokens + 2, "stage": "qk",
                                                          "lang": self.lang}

    def describe(self) -> str:
        return (f"n={self.n_tokens} d_model={self.d_model} d_k={self.d_k:<2} h={self.n_heads} seed={self.seed} "
                f"{self.lang} {self.stage:<10} x11={self.x11:g}")


def url_mismatches(url: str, want: dict, x11: float) -> list[str]:
    """The link's parameters against the expected settings (a parameter left out means its default)."""
    params = {k: v[-1] for k, v in parse_qs(urlparse(url).query).items()}
    out = []
    for key, value in want.items():
        got = params.get(key, str(DEFAULTS[key]))
        if got != str(value):
            out.append(f"url {key}={got} (want {value})")
    if f"1.1~{x11!r}" not in params.get("x", "").split("_"):
        out.append(f"url x={params.get('x')} (want 1.1~{x11!r})")
    return out


def page_mismatches(state: dict, plan: Plan) -> list[str]:
    """What the page shows against what this session set: inputs, title language, the X and W_Q charts."""
    want = plan.final()
    out = url_mismatches(state["url"], want, plan.x11)
    out += [f"input {k}={state[k]} (want {want[k]})" for k in SIZE_KEYS if state[k] != want[k]]
    title = Text(plan.lang)("app_title")
    if state["title"].strip() != title:
        out.append(f"title {state['title']!r} (want {title!r})")
    if state["x11"] != plan.x11:
        out.append(f"chart X[1,1]={state['x11']} (want {plan.x11})")
    if state["x_shape"] != [want["n_tokens"], plan.d_model]:
        out.append(f"chart X shape {state['x_shape']} (want {[want['n_tokens'], plan.d_model]})")
    if state["wq_cols"] != plan.d_k:
        out.append(f"chart W_Q columns {state['wq_cols']} (want {plan.d_k})")
    return out


# --- driving one page ------------------------------------------------------------------------------------

@dataclass
class Session:
    context: object
    page: object
    backend: str = "-"  # nginx's X-Upstream header, when there is one
    load_s: float = 0.0
    act_s: list = field(default_factory=list)
    exceptions: int = 0  # exception elements seen, summed over every settled run
    mismatches: list = field(default_factory=list)


async def settle(s: Session) -> None:
    """Wait for the monitored run to finish and paint, then count exception boxes on the page."""
    await s.page.wait_for_function("window.__bench.tEnd !== null", timeout=TIMEOUT_MS, polling=50)
    s.exceptions += await s.page.locator('[data-testid="stException"]').count()


async def open_session(browser, url: str) -> Session:
    context = await browser.new_context(viewport=VIEWPORT)
    await context.add_init_script(MONITOR_JS)
    page = await context.new_page()
    s = Session(context, page)
    started = time.monotonic()
    response = await page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
    s.backend = (response.headers.get("x-upstream") if response else None) or "-"
    await settle(s)
    s.load_s = time.monotonic() - started
    return s


async def act(s: Session, action: str, stage: str | None = None) -> None:
    """One click that starts a rerun (a step button, or the sidebar radio's label of another stage)."""
    if action == "stage":
        target = s.page.locator(STAGE_LABELS).nth(STAGES.index(stage))
    else:
        target = s.page.locator(STEP[action])
    started = time.monotonic()
    await s.page.evaluate("window.__bench.arm()")
    await target.click(timeout=TIMEOUT_MS)
    await settle(s)
    s.act_s.append(time.monotonic() - started)


async def check(s: Session, plan: Plan) -> None:
    s.mismatches = page_mismatches(await s.page.evaluate(STATE_JS), plan)


# --- the phases ------------------------------------------------------------------------------------------

def backend_urls(pids: list[int]) -> list[str]:
    """Each server's own loopback URL, from `--server.port N` on its command line; [] if one has none."""
    urls = []
    for pid in pids:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        ports = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--server.port"]
        ports += [a.split("=", 1)[1] for a in args if a.startswith("--server.port=")]
        if not ports:
            return []
        urls.append(f"http://127.0.0.1:{ports[-1]}")
    return urls


async def warm_up(browser, urls: list[str]) -> None:
    """A session through every stage on each server: first imports and code paths are paid once per process,
    not per session. Each process is reached on its own port, since a proxy may send every try to one of them."""
    for url in urls:
        s = await open_session(browser, f"{url}/?stage={STAGES[0]}")
        for stage in STAGES[1:]:
            await act(s, "stage", stage)
        await s.context.close()


async def one_of_many(browser, base: str, plan: Plan) -> Session:
    s = await open_session(browser, plan.link(base))
    await act(s, "n_up")
    await act(s, "stage", plan.detour())
    await act(s, "n_up")
    await act(s, "stage", "qk")
    return s


@dataclass
class LoadResult:
    plans: list
    sessions: list
    rss: dict  # MB: cold, baseline, settled, closed; settled_each (text per pid); cpu_s (server CPU seconds)
    settle_s: float


async def load_phase(browser, base: str, pids: list[int], n: int, rss: dict) -> LoadResult:
    plans = [Plan.for_session(i) for i in range(n)]
    started, cpu = time.monotonic(), cpu_s(pids)
    sessions = await asyncio.gather(*(one_of_many(browser, base, p) for p in plans))
    settle_s = time.monotonic() - started
    rss["cpu_s"] = cpu_s(pids) - cpu
    for s, p in zip(sessions, plans):  # all are up and done: does each page still show its own state?
        await check(s, p)
    await asyncio.sleep(2)
    rss["settled"] = rss_mb(pids)
    rss["settled_each"] = rss_each(pids)
    for s in sessions:
        await s.context.close()
    await asyncio.sleep(5)
    rss["closed"] = rss_mb(pids)
    return LoadResult(plans, sessions, rss, settle_s)


@dataclass
class SoakResult:
    interactions: int
    checkpoints: list  # (interactions done, RSS MB)
    seconds: float
    exceptions: int
    act_median_s: float


async def soak_phase(browser, base: str, pids: list[int], count: int) -> SoakResult:
    plan = Plan(99, 3, 5, 7, 2, 7, "en", STAGES[0], 0.75)
    s = await open_session(browser, plan.link(base))
    every = max(count // 4, 1)
    checkpoints, stage, started = [(0, rss_mb(pids))], 0, time.monotonic()
    for i in range(count):
        action = SOAK_CYCLE[i % len(SOAK_CYCLE)]
        if action == "stage":
            stage = (stage + 1) % len(STAGES)
        await act(s, action, STAGES[stage])
        if (i + 1) % every == 0 or i + 1 == count:
            checkpoints.append((i + 1, rss_mb(pids)))
    seconds = time.monotonic() - started
    await s.context.close()
    return SoakResult(count, checkpoints, seconds, s.exceptions, statistics.median(s.act_s))


# --- report ----------------------------------------------------------------------------------------------

def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_sessions(load: LoadResult) -> None:
    print(f"{'#':>2}  {'link settings':<62} {'backend':<15} {'load s':>6} {'act s':>5} {'exc':>3}  check")
    for p, s in zip(load.plans, load.sessions):
        state = "ok" if not s.mismatches else "MISMATCH: " + "; ".join(s.mismatches)
        print(f"{p.index:>2}  {p.describe():<62} {s.backend:<15} {s.load_s:>6.1f} {statistics.median(s.act_s):>5.1f} "
              f"{s.exceptions:>3}  {state}")
    backends = {}
    for s in load.sessions:
        backends[s.backend] = backends.get(s.backend, 0) + 1
    if len(backends) > 1 or "-" not in backends:
        print("sessions per backend: " + ", ".join(f"{b} {c}" for b, c in sorted(backends.items())))


def print_load(load: LoadResult, n: int) -> float:
    r = load.rss
    per = (r["settled"] - r["baseline"]) / n
    print(f"RSS MB: cold {r['cold']:.1f}, after warm-up {r['baseline']:.1f}, {n} sessions settled {r['settled']:.1f} "
          f"({r['settled_each']}), growth {r['settled'] - r['baseline']:+.1f} = {per:+.2f}/session; "
          f"after closing them + 5 s {r['closed']:.1f} ({r['closed'] - r['settled']:+.1f})")
    loads = [s.load_s for s in load.sessions]
    print(f"settle: {n} sessions opened at once, loaded and did 4 interactions each in {load.settle_s:.1f} s "
          f"(first load median {statistics.median(loads):.1f} s, max {max(loads):.1f} s); server CPU "
          f"{r['cpu_s']:.1f} s in that time = {r['cpu_s'] / load.settle_s:.0%} of one core")
    return per


def print_soak(soak: SoakResult) -> float:
    marks = ", ".join(f"{i}: {mb:.1f}" for i, mb in soak.checkpoints)
    growth = soak.checkpoints[-1][1] - soak.checkpoints[0][1]
    after_first = soak.checkpoints[-1][1] - soak.checkpoints[1][1]
    print(f"soak: 1 session, {soak.interactions} interactions (n_tokens +/−, next stage, seed +) "
          f"in {soak.seconds:.0f} s "
          f"(median {soak.act_median_s:.2f} s each); RSS MB at {marks}; growth {growth:+.1f} "
          f"({after_first:+.1f} after the first checkpoint); exceptions {soak.exceptions}")
    return growth


def summary(load: LoadResult, soak: SoakResult, n: int, tracebacks: int | None) -> int:
    """Print the sessions, the figures and the targets; the exit code: 1 on an exception, a logged traceback or
    cross-talk."""
    print_sessions(load)
    per = print_load(load, n)
    growth = print_soak(soak)
    exceptions = sum(s.exceptions for s in load.sessions) + soak.exceptions
    crossed = [p.index for p, s in zip(load.plans, load.sessions) if s.mismatches]
    logged = "" if tracebacks is None else f"; tracebacks in server logs: {tracebacks}"
    print("targets:")
    print(f"  exceptions = 0 ............ {verdict(exceptions == 0 and not tracebacks)} ({exceptions}{logged})")
    print(f"  no cross-talk ............. {verdict(not crossed)}" + (f" (sessions {crossed})" if crossed else ""))
    print(f"  RSS growth ≤ {TARGET_MB_PER_SESSION:.0f} MB/session .. "
          f"{verdict(per <= TARGET_MB_PER_SESSION)} ({per:+.2f} MB/session)")
    print(f"  soak growth ≤ {TARGET_SOAK_MB:.0f} MB ....... {verdict(growth <= TARGET_SOAK_MB)} ({growth:+.1f} MB)")
    failures = (("exceptions on pages", exceptions), ("tracebacks in server logs", tracebacks), ("cross-talk", crossed))
    if any(bad for _, bad in failures):
        print("exit 1: " + " and ".join(what for what, bad in failures if bad))
        return 1
    return 0


# --- main ------------------------------------------------------------------------------------------------

def count_tracebacks(logs: list[Path]) -> int | None:
    if not logs:
        return None
    return sum(log.read_text(errors="replace").count("Traceback") for log in logs)


async def drive(base: str, pids: list[int], args) -> tuple[LoadResult, SoakResult]:
    async with async_playwright() as p:
        exe = CHROMIUM if os.path.exists(CHROMIUM) else None
        browser = await p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        print(f"env: {machine()}; "
              f"streamlit {version('streamlit')}, playwright {version('playwright')}, chromium {browser.version}; "
              f"server {base}, pids {pids}", flush=True)
        rss = {"cold": rss_mb(pids)}
        warm = backend_urls(pids) or [base]
        await warm_up(browser, warm)
        print(f"warm-up: every stage walked once on {', '.join(warm)}", flush=True)
        await asyncio.sleep(2)
        rss["baseline"] = rss_mb(pids)
        load = await load_phase(browser, base, pids, args.sessions, rss)
        soak = await soak_phase(browser, base, pids, args.soak)
        await browser.close()
    return load, soak


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 sessions and a 40-interaction soak")
    parser.add_argument("--sessions", type=int, help="concurrent sessions (default 12, quick 4)")
    parser.add_argument("--soak", type=int, help="soak interactions (default 200, quick 40)")
    parser.add_argument("--url", help="an already running server, e.g. http://127.0.0.1:8500 (loopback only)")
    parser.add_argument("--pid", type=int, action="append", default=[], help="with --url: a server pid (repeat)")
    parser.add_argument("--log", type=Path, action="append", default=[], help="with --url: a server log to scan")
    args = parser.parse_args()
    args.sessions = args.sessions or (4 if args.quick else 12)
    args.soak = args.soak or (40 if args.quick else 200)
    if args.url and (not args.pid or urlparse(args.url).hostname not in ("127.0.0.1", "localhost")):
        parser.error("--url must be on 127.0.0.1 or localhost, and needs at least one --pid")
    return args


def main() -> int:
    args = parse_args()
    if args.url:
        load, soak = asyncio.run(drive(args.url.rstrip("/"), args.pid, args))
        return summary(load, soak, args.sessions, count_tracebacks(args.log))
    with tempfile.TemporaryDirectory(prefix="load_") as tmp:
        server = Server(APP, Path(tmp) / "app.log")
        try:
            server.start()
            server.wait_healthy()
            load, soak = asyncio.run(drive(server.url, [server.proc.pid], args))
            tracebacks = count_tracebacks([server.log])
        finally:
            server.stop()
    return summary(load, soak, args.sessions, tracebacks)


if __name__ == "__main__":
    sys.exit(main())
