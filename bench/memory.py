"""Memory of one Streamlit process: downloads prepared by many sessions, and one client walking the caps.

Not a test: it prints figures and asserts nothing about speed. Every user is bench/capacity.py's protocol client (an
asyncio websocket that speaks Streamlit's own BackMsg/ForwardMsg protocol), so no browser takes the machine's memory
or CPU; all traffic goes to 127.0.0.1. Each run starts a server of its own (capacity.Server: `streamlit run app.py`
with the e2e flags, from the tree's root, so its .streamlit/config.toml applies) and stops it at the end.

    python bench/memory.py [--runs 3] [--only downloads,walk] [--root DIR[,DIR...]]
    python bench/memory.py --only downloads --sessions 8 --after 120
    python bench/memory.py --only walk --passes 4 --idle 60 --think 0.5 [--heavy 4] [--switch 0.005,0.0005]
    python bench/memory.py --only room --room 4
    python bench/memory.py --only text [--chars 8300000]
    python bench/memory.py --only idle [--idlers 120] [--after 180]
    python bench/memory.py --only flood [--flooders 4] [--every 0.5] [--seconds 25]

--root: the app trees to serve (default: this one). With several, each run serves every tree in turn, the order
alternating from run to run, so that a noisy machine weighs on both alike: the original code side by side with this
one is `git worktree add --detach /tmp/mha-before a97675a`, then `--root /tmp/mha-before,.`.

downloads (a). One warm-up user loads the input stage and leaves. Then --sessions users, one after the other, each
open the input stage of the largest view under the 2-million-number cap (LARGEST, each with a seed of its own, so no
two views are the same), open the sidebar's downloads panel and press its Prepare button (`export_prepare`), and wait
for the run that shows the three download buttons. RSS (VmRSS) after each; the bytes Streamlit's media storage holds
(`/_stcore/metrics`, family cache_memory_bytes); whether each button's URL serves (HTTP HEAD: 200). Then every user
closes its websocket, and the server is left alone for --after seconds: RSS every 10 s, and at the end the media
bytes and the URLs again.

walk (b, c). One warm-up user. An ordinary user opens ?stage=scores at the post's sizes and, after exponential think
times (mean --think), sets n_tokens 3 ↔ 4 (capacity.change: a full rerun, checked to recompute). --heavy users open
the first stage at the caps (CAPS), each with seeds of its own. For --idle seconds they wait: the ordinary user's
reruns give the idle p50/p95. Then they walk, all at once: --passes passes, each with a new seed (the sidebar's
seed), through every stage of the sidebar's radio, and on the block and KV-cache stages through every part, saying
yes at once where the page asks before drawing (budget_draw); the ordinary user's reruns meanwhile give the walk's
p50/p95. RSS is sampled every 0.25 s: at the start, its peak during the walk, at the walk's end and 10 s later. The
server's full garbage collections during the walk are counted, with the longest one's pause (capacity.LAUNCHER logs
each): every thread, the ordinary user's run among them, waits for one.
--switch serves each tree once per GIL switch interval given (the environment's MHA_GIL_SWITCH_S, which
mha/ui/budget.py reads), side by side like the trees.

room (not run by default: --only room). --room users, one after the other, open the scores stage at the caps, each
with a seed of its own, and stay: RSS after each. What a page keeps between its runs (Streamlit keeps a fragment's
arguments: the view, its weights and its trace) is no cache's, and this is its size.

text (not run by default: --only text). One session opens the tokens stage and sends one text-box value of --chars
copies of U+FDFA, as a socket can past the browser's max_chars: RSS before, its peak (sampled every 0.05 s), the
server's CPU for that run, and RSS 20 s later. The red team's N1: the text was normalised whole before it was cut.

idle (not run by default: --only idle). --idlers users, one after the other, open the KV cache at d_model 1024 with
64 seeded tokens added (IDLE_LINK: a view under the seat floor, so no seat is needed) and stay idle; then they all
close, and the server is left alone for --after seconds: RSS before, with every session open, a session's share,
and after (the red team's N3: +2.7 MB a session, and RSS did not come back after they closed).

flood (not run by default: --only flood). --flooders sockets each ask for the input stage at 64×1024 (65,536 cells in
the grid, under the work budget) with a new seed every --every s for --seconds s, never waiting for a run to end;
an ordinary user opens the scores stage every 2 s and changes n_tokens once: its page opens, its changes, the
server's CPU and RSS peak (the red team's R1 of 2026-12-06: a new visitor's page took half a minute to open).

Last: a table per mode, each figure the median of the runs with every run's figure in brackets, and the load average
(os.getloadavg, as `uptime` prints it) at the start of each run.
"""

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from capacity import Server, Session, Tally, change, cpu_s, pct, rss_mb
from streamlit.proto.WidgetStates_pb2 import WidgetState
from ui_latency import machine

ROOT = Path(__file__).resolve().parents[1]
# The largest view whose download stays under the 2-million-number cap at 64 tokens (1,999,104 numbers: ~14 MB of
# .npz, ~40 MB of .json, ~17 MB of .csv.zip).
LARGEST = "n_tokens=64&d_model=130&d_k=128&d_v=128&n_heads=16"
CAPS = "n_tokens=64&d_model=1024&d_k=128&d_v=128&n_heads=16&d_ff=4096"  # settings.LIMITS
KINDS = ("npz", "json", "csv")
PARTS = {"block": "block_part", "kv_cache": "kv_part"}  # stages drawn a part at a time: the control's key
TIMEOUT = 300  # seconds a run may take (a cap-sized run on a busy 2-core host takes several)
SWITCH_ENV = "MHA_GIL_SWITCH_S"  # read by mha/ui/budget.py


# --- the client's gestures -------------------------------------------------------------------------------

async def load(url: str, query: str) -> Session:
    session = Session(url, query, TIMEOUT)
    await session.open()
    await rerun(session)
    return session


async def rerun(session: Session):
    run = await session.run()
    if run.exceptions or run.status is None:
        raise RuntimeError(f"a run of ?{session.query} failed: {run.exceptions} exception(s), status {run.status}")
    return run


async def press(session: Session, key: str) -> None:
    """Click a button: its trigger goes with one rerun, as the browser sends it."""
    button = session.find(key)
    if button is None:
        raise RuntimeError(f"no button {key!r} on ?{session.query}")
    session.widgets[button.id] = WidgetState(id=button.id, trigger_value=True)
    await rerun(session)


async def expand(session: Session, key: str) -> None:
    """Open a keyed expander (a widget whose state is its being open), and rerun, as its on_change does."""
    block = session.find(key)
    session.widgets[block.id] = WidgetState(id=block.id, bool_value=True)
    await rerun(session)


async def choose(session: Session, key: str, index: int) -> None:
    """Pick an option of a radio or segmented control by its place, and rerun."""
    w = session.find(key)
    if hasattr(w, "raw_values"):  # a segmented control (button_group): its labels
        session.widgets[w.id] = WidgetState(id=w.id)
        session.widgets[w.id].string_array_value.data.append(w.options[index].content)
    else:
        session.widgets[w.id] = WidgetState(id=w.id, string_value=w.options[index])
    await rerun(session)


async def set_number(session: Session, key: str, value: int) -> None:
    wid, _ = session.value(key)
    session.set_int(wid, value)
    await rerun(session)


# --- the server, seen from outside -----------------------------------------------------------------------

def media_mb(url: str) -> float | None:
    """The bytes Streamlit's media storage holds (download buttons' files), from its metrics endpoint."""
    try:
        text = urllib.request.urlopen(f"{url}/_stcore/metrics?families=cache_memory_bytes", timeout=30).read().decode()
    except OSError:
        return None
    held = [float(m) for m in re.findall(r'cache_memory_bytes\{[^}]*st_memory_media_file_storage[^}]*\} (\S+)', text)]
    return sum(held) / 2**20


def served(url: str, paths: list[str]) -> int:
    """How many of these media URLs the server still serves."""
    count = 0
    for path in paths:
        with contextlib.suppress(urllib.error.HTTPError):
            count += urllib.request.urlopen(urllib.request.Request(url + path, method="HEAD"), timeout=30).status == 200
    return count


class Sampler:
    """The server's RSS every `every` seconds, in a task of its own: the peak between marks."""

    def __init__(self, server: Server, every: float = 0.25) -> None:
        self.server, self.every, self.samples = server, every, []
        self.task = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            self.samples.append((time.monotonic(), rss_mb(*self.server.pids)))
            await asyncio.sleep(self.every)

    def peak(self, since: float) -> float:
        return max((mb for t, mb in self.samples if t >= since and mb is not None), default=float("nan"))

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


# --- the modes -------------------------------------------------------------------------------------------

async def warm_up(server: Server) -> None:
    """First imports are a one-off: a user loads the input stage and leaves."""
    session = await load(server.url, "stage=input")
    await session.close()


async def close_and_watch(server: Server, sessions: list[Session], seconds: float) -> list[float]:
    """Close every session, then leave the server alone `seconds`: its RSS every 10 s (printed, and returned)."""
    for session in sessions:
        await session.close()
    closed, after = time.monotonic(), []
    while (left := closed + seconds - time.monotonic()) > 0:
        await asyncio.sleep(min(10.0, left))
        after.append(rss_mb(*server.pids))
    print(f"  RSS every 10 s after they closed, MB: {', '.join(f'{mb:.0f}' for mb in after)}", flush=True)
    return after


async def downloads(server: Server, args) -> dict:
    await warm_up(server)
    await asyncio.sleep(2)
    figures = {"RSS before, MB": rss_mb(*server.pids)}
    line, sessions, urls = [], [], []
    for i in range(args.sessions):
        session = await load(server.url, f"stage=input&{LARGEST}&seed={100 + i}")
        await expand(session, "downloads_open")
        await press(session, "export_prepare")
        buttons = [session.find(f"download_{kind}") for kind in KINDS]
        if not all(buttons):
            raise RuntimeError(f"session {i + 1}: no download buttons after Prepare")
        urls += [b.url for b in buttons]
        sessions.append(session)
        line.append(rss_mb(*server.pids))
    print(f"  RSS after each session's Prepare, MB: {', '.join(f'{mb:.0f}' for mb in line)}", flush=True)
    figures |= {"RSS with every session's files, MB": line[-1], "media storage, MB": media_mb(server.url),
                "URLs served": served(server.url, urls)}
    after = await close_and_watch(server, sessions, args.after)
    return figures | {f"RSS {args.after:.0f} s after they closed, MB": after[-1],
                      f"media storage {args.after:.0f} s after, MB": media_mb(server.url),
                      f"URLs served {args.after:.0f} s after": served(server.url, urls)}


@dataclass
class Ordinary:
    """The ordinary user's reruns, sorted by phase."""

    latencies: dict = field(default_factory=lambda: {"idle": [], "walk": []})
    phase: str = "idle"
    tally: Tally = field(default_factory=Tally)


async def ordinary_user(session: Session, seen: Ordinary, stop: asyncio.Event, think: float, seed: int) -> None:
    rng = random.Random(seed)
    shapes = frozenset()
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rng.expovariate(1 / think))
        if stop.is_set():
            break
        phase = seen.phase
        run = await change(session, seen.tally, True, shapes)
        if run is None:
            raise RuntimeError("the ordinary user's page has no n_tokens")
        shapes = run.shapes
        if seen.phase == phase in seen.latencies:  # a rerun that straddles the walk's start or end counts in neither
            seen.latencies[phase].append(run.seconds)


async def walk_the_caps(session: Session, passes: int, first_seed: int) -> int:
    """Every stage, and every part of the stages drawn a part at a time, once per pass, each pass a new seed. Where
    the page asks before drawing a large view (budget.asks), the walker says yes at once."""
    runs = 0

    async def go_ahead() -> None:
        nonlocal runs
        runs += 1
        if session.find("budget_draw") is not None:
            await press(session, "budget_draw")
            runs += 1

    for p in range(passes):
        if p:
            await set_number(session, "seed", first_seed + p)
            await go_ahead()
        for i in range(len(session.find("stage").options)):
            await choose(session, "stage", i)
            await go_ahead()
            stage = re.search(r"stage=(\w+)", session.query).group(1)
            if stage in PARTS and session.find(PARTS[stage]) is not None:  # none while the page waits for a seat
                for j in range(1, len(session.find(PARTS[stage]).options)):
                    await choose(session, PARTS[stage], j)
                    await go_ahead()
    return runs


async def walk(server: Server, args) -> dict:
    await warm_up(server)
    ordinary = await load(server.url, "stage=scores")
    heavy = [await load(server.url, f"stage=matmul&{CAPS}&seed={1000 + 100 * k}") for k in range(args.heavy)]
    sampler = Sampler(server)
    seen, stop = Ordinary(), asyncio.Event()
    user = asyncio.create_task(ordinary_user(ordinary, seen, stop, args.think, 1))
    start = time.monotonic()
    rss_start = rss_mb(*server.pids)
    await asyncio.sleep(args.idle)
    seen.phase, began, began_at = "walk", time.monotonic(), time.time()
    runs = sum(await asyncio.gather(*(walk_the_caps(h, args.passes, 1000 + 100 * k) for k, h in enumerate(heavy))))
    walked, walked_at = time.monotonic(), time.time()
    seen.phase = "after"
    rss_end = rss_mb(*server.pids)
    await asyncio.sleep(10)
    stop.set()
    await user
    await sampler.stop()
    for session in (ordinary, *heavy):
        await session.close()
    idle, during = seen.latencies["idle"], seen.latencies["walk"]
    print(f"  the walk: {runs} runs in {walked - began:.0f} s; the ordinary user: {len(idle)} reruns idle, "
          f"{len(during)} during the walk, stale {seen.tally.stale}/{seen.tally.checked}, exceptions "
          f"{seen.tally.exceptions}", flush=True)
    return {"RSS at the start, MB": rss_start, "RSS peak during the walk, MB": sampler.peak(began),
            "RSS at the walk's end, MB": rss_end, "RSS 10 s later, MB": rss_mb(*server.pids),
            "ordinary p50, heavy user idle, s": pct(idle, 0.5), "ordinary p95, heavy user idle, s": pct(idle, 0.95),
            "ordinary p50 during the walk, s": pct(during, 0.5), "ordinary p95 during the walk, s": pct(during, 0.95),
            "walk seconds": walked - began, "idle seconds": began - start,
            **full_collections(server, began_at, walked_at)}


def full_collections(server: Server, since: float, until: float) -> dict:
    """The server's full garbage collections between two Unix times (capacity.LAUNCHER logs each one's pause): every
    thread waits for one, so the longest is a floor under the worst rerun's latency."""
    path = Path(f"{server.probe}.full")
    lines = path.read_text().splitlines() if path.exists() else []
    pauses = [float(p) for t, p in (line.split() for line in lines) if since <= float(t) <= until]
    return {"full collections during the walk": len(pauses),
            "longest full collection during the walk, ms": 1000 * max(pauses, default=0.0)}


async def room(server: Server, args) -> dict:
    """--room users, one after the other, open the scores stage at the caps, each with a seed of its own, and stay."""
    await warm_up(server)
    await asyncio.sleep(2)
    figures, sessions, line = {"RSS before, MB": rss_mb(*server.pids)}, [], []
    for i in range(args.room):
        sessions.append(await load(server.url, f"stage=scores&{CAPS}&seed={2000 + i}"))
        await asyncio.sleep(2)
        line.append(rss_mb(*server.pids))
    print(f"  RSS after each user opened, MB: {', '.join(f'{mb:.0f}' for mb in line)}", flush=True)
    for session in sessions:
        await session.close()
    return figures | {f"RSS with {args.room} users at the caps, MB": line[-1],
                      "RSS added by each user after the first, MB": (line[-1] - line[0]) / max(1, args.room - 1)}


async def text(server: Server, args) -> dict:
    """One session opens the tokens stage and sends one value of --chars copies of U+FDFA (﷽, which NFKC makes 18
    characters) as the text box's, past the browser's max_chars as a socket can; RSS before, at its peak while the
    run lasts, and 20 s after."""
    await warm_up(server)
    session = await load(server.url, "stage=tokens")
    await asyncio.sleep(2)
    sampler = Sampler(server, every=0.05)
    before, t0 = rss_mb(*server.pids), time.monotonic()
    box = session.find("text")
    session.widgets[box.id] = WidgetState(id=box.id, string_value="\ufdfa" * args.chars)
    cpu0 = server_cpu(server)
    await rerun(session)
    cpu = server_cpu(server) - cpu0
    await asyncio.sleep(1)
    peak = sampler.peak(t0)
    await asyncio.sleep(19)
    after = rss_mb(*server.pids)
    await sampler.stop()
    await session.close()
    return {"message, MB": len(("\ufdfa" * args.chars).encode()) / 1e6, "RSS before, MB": before,
            "RSS peak, MB": peak, "RSS added at the peak, MB": peak - before, "server CPU for the run, s": cpu,
            "RSS 20 s after, MB": after}


IDLE_LINK = "stage=kv_cache&d_model=1024&kv=64"  # the red team's N3: 64 tokens added at d_model 1024, under the
# seat floor (no seat needed), in a one-line link


async def idle(server: Server, args) -> dict:
    """--idlers users, one after the other, open IDLE_LINK (one seed) and stay idle; then every one closes, and the
    server is left alone --after seconds: RSS every 10 s."""
    await warm_up(server)
    await asyncio.sleep(2)
    before, sessions = rss_mb(*server.pids), []
    for _ in range(args.idlers):
        sessions.append(await load(server.url, IDLE_LINK))
    await asyncio.sleep(2)
    held = rss_mb(*server.pids)
    after = await close_and_watch(server, sessions, args.after)
    return {"RSS before, MB": before, f"RSS with {args.idlers} idle sessions, MB": held,
            "RSS a session, MB": (held - before) / max(1, args.idlers),
            f"RSS {args.after:.0f} s after they closed, MB": after[-1],
            "RSS kept after they closed, MB": after[-1] - before}


FLOOD = "stage=input&n_tokens=64&d_model=1024"  # 65,536 cells in the grid: 0.3–0.6 s a run, under the work budget


async def flood(server: Server, args) -> dict:
    """Pages asking for heavy runs without pause, and an ordinary user opening pages meanwhile (the docstring's
    flood)."""
    await warm_up(server)
    stop, opens, changes, asked = asyncio.Event(), [], [], [0]

    async def flooder(k: int) -> None:
        session = Session(server.url, f"{FLOOD}&seed={k}", TIMEOUT)
        await session.open()
        reader = asyncio.create_task(_drain(session))
        for seed in range(10_000 * (k + 1), 10_000 * (k + 2)):
            if stop.is_set():
                break
            session.query = f"{FLOOD}&seed={seed}"
            msg = session.rerun_msg()
            msg.rerun_script.ClearField("cached_message_hashes")
            await session.ws.send(msg.SerializeToString())
            asked[0] += 1
            await asyncio.sleep(args.every)
        reader.cancel()
        await session.close()

    async def ordinary() -> None:
        while not stop.is_set():
            began = time.monotonic()
            session = await load(server.url, "stage=scores")
            opens.append(time.monotonic() - began)
            changes.append((await change(session, Tally(), False, frozenset())).seconds)
            await session.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2)

    sampler, cpu, began = Sampler(server), server_cpu(server), time.monotonic()
    flooders = [asyncio.create_task(flooder(k)) for k in range(args.flooders)]
    await asyncio.sleep(1)
    user = asyncio.create_task(ordinary())
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.gather(*flooders)
    ended = time.monotonic()
    await user
    await sampler.stop()
    print(f"  {asked[0]} runs asked; the ordinary user's page opens {[round(s, 1) for s in opens]} s", flush=True)
    return {"ordinary first page open, s": opens[0], "ordinary page open p50, s": pct(opens, 0.5),
            "ordinary page open, slowest, s": max(opens), "ordinary change p95, s": pct(changes, 0.95),
            "ordinary user done after the flood, s": time.monotonic() - ended,
            "server CPU, s": server_cpu(server) - cpu, "RSS peak, MB": sampler.peak(began)}


async def _drain(session: Session) -> None:
    with contextlib.suppress(Exception):
        while True:
            await session.ws.recv()


def server_cpu(server: Server) -> float:
    return cpu_s(*server.pids) or 0.0


MODES = {"downloads": downloads, "walk": walk, "room": room, "text": text, "idle": idle, "flood": flood}


# --- runs and the summary --------------------------------------------------------------------------------

def one_run(mode: str, root: Path, switch: str | None, args, tmp: Path) -> dict:
    server = Server(f"{mode}:{root.name}", root / "app.py", root, tmp / f"{mode}-{root.name}-{time.time_ns()}.log")
    os.environ.pop(SWITCH_ENV, None)
    if switch is not None:
        os.environ[SWITCH_ENV] = switch  # the server's environment is this one's
    server.start()
    try:
        server.wait_healthy()
        load_avg = os.getloadavg()
        figures = asyncio.run(MODES[mode](server, args))
        if server.tracebacks():
            print(f"  WARNING: the server's log holds {server.tracebacks()} traceback(s): {server.log}")
        return figures | {"load average at the start": load_avg[0]}
    finally:
        server.stop()


def _switched(switch: str | None) -> str:
    return "" if switch is None else f", GIL switch {switch} s"


def median_line(name: str, values: list) -> str:
    shown = [v for v in values if v is not None and v == v]
    if not shown:
        return f"{name}: n/a"
    spec = ".2f" if max(abs(v) for v in shown) < 10 else ".0f"
    return (f"{name}: {format(statistics.median(shown), spec)} "
            f"({', '.join(format(v, spec) for v in values if v is not None)})")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--only", default="downloads,walk",
                   help="comma-separated modes: downloads, walk, room, text, idle, flood")
    p.add_argument("--root", default=str(ROOT), help="comma-separated app trees (default: this one)")
    p.add_argument("--sessions", type=int, default=8, help="downloads: sessions that prepare a max-size view")
    p.add_argument("--after", type=float, default=120, help="downloads: seconds the server is left after they close")
    p.add_argument("--passes", type=int, default=4, help="walk: passes over every stage, each with a new seed")
    p.add_argument("--idle", type=float, default=60, help="walk: seconds the heavy user waits before walking")
    p.add_argument("--think", type=float, default=0.5, help="walk: the ordinary user's mean think time, seconds")
    p.add_argument("--heavy", type=int, default=1, help="walk: heavy users walking the caps at once, seeds apart")
    p.add_argument("--switch", default="", help="walk: comma-separated GIL switch intervals (s) to serve each tree "
                                                "with, side by side (MHA_GIL_SWITCH_S; default: the app's own)")
    p.add_argument("--room", type=int, default=4, help="room: users at the caps, each with a seed of its own")
    p.add_argument("--chars", type=int, default=6_000_000, help="text: copies of U+FDFA in the one message "
                                                                 "(6,000,000: 18 MB, under Streamlit's 25 MB)")
    p.add_argument("--flooders", type=int, default=4, help="flood: sockets asking for heavy runs without pause")
    p.add_argument("--every", type=float, default=0.5, help="flood: seconds between one socket's asks")
    p.add_argument("--seconds", type=float, default=25, help="flood: how long they ask")
    p.add_argument("--idlers", type=int, default=120, help="idle: sessions that open the KV cache at d_model 1024 "
                                                            "with 64 tokens added, and stay")
    args = p.parse_args()
    args.only = [m for m in args.only.split(",") if m]
    args.root = [Path(r).resolve() for r in args.root.split(",") if r]
    args.switch = [s for s in args.switch.split(",") if s] or [None]
    return args


def main() -> int:
    args = parse_args()
    print(f"env: {machine()}; roots: {', '.join(str(r) for r in args.root)}", flush=True)
    variants = [(root, switch) for root in args.root for switch in args.switch]
    results = {(mode, *v): [] for mode in args.only for v in variants}
    with tempfile.TemporaryDirectory(prefix="memory_") as tmp:
        for k in range(args.runs):
            for mode in args.only:
                for root, switch in variants if k % 2 == 0 else variants[::-1]:
                    print(f"run {k + 1}, {mode}, {root}{_switched(switch)} "
                          f"(load {', '.join(f'{x:.2f}' for x in os.getloadavg())})", flush=True)
                    figures = one_run(mode, root, switch, args, Path(tmp))
                    print("  " + json.dumps({n: round(v, 3) if isinstance(v, float) else v
                                             for n, v in figures.items()}, ensure_ascii=False), flush=True)
                    results[mode, root, switch].append(figures)
    print(f"\nmedians of {args.runs} run(s), each run's figure in brackets; env: {machine()}")
    for (mode, root, switch), runs in results.items():
        print(f"{mode}, {root}{_switched(switch)}:")
        for name in runs[0]:
            print("  " + median_line(name, [r.get(name) for r in runs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
