"""A classroom on one process, or on replicas sharing a Redis: a presenter's changes reaching its followers (issue
44's numbers).

Not a test: it prints figures and asserts nothing about speed. Every page is bench/capacity.py's protocol client, so
no browser takes the machine's CPU; each run starts a server of its own (capacity.Server) and stops it.

    python bench/classroom.py [--followers 200] [--changes 20] [--idle 60] [--runs 3] [--replicas 1,2] [--stalled 0,20]

With --replicas K (K > 1), a run also starts a redis-server of its own (Debian's, on a free loopback port) and K
servers with MHA_ROOMS naming it: the presenter on the first, the followers dealt to the K servers in turn, and the
idle CPU summed over the K. With --replicas 1,2 each run measures one server, then two with Redis, and the table
gives both side by side with their ratio. With --stalled N, N more pages join the room and never read a message
(a participant's bad connection: the server's messages to them pile up); with --stalled 0,20 each run measures the
room without and with them, the presenter's rerun times and the readers' delays side by side.

A presenter opens `?room=new&stage=qk`; --followers pages open `?room=CODE` one after the other and stay, each
reading what the server sends it. First, with no follower yet, the presenter makes --changes changes (the stage
radio, through the walk's second to sixth stages in turn) twice: its own rerun times alone, the second time (the
first builds the figures the process shares). Then with the followers: the
same changes, each sent once every follower has finished the rerun the last one started (or 30 s have passed); for
each change, the seconds from the presenter's rerun request to each follower's finished rerun (p50, p95, max, and
how many followers never finished), and the presenter's rerun times beside those alone. Last, --idle seconds with
nothing changed: the server's CPU over them, as a share of one core. Each figure is the median of the runs, with
every run's in brackets, and the load average at each run's start.
"""

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capacity import Run, Server, Session, cpu_s  # noqa: E402
from memory import TIMEOUT, choose, load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PLACES = 5  # the walk's second to sixth stages (tokens … scores), one after another
WAIT_S = 30  # a change's followers are waited for at most this long before the next change


def p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


async def follow(session: Session, done: list, stop: asyncio.Event) -> None:
    """Read the runs the server starts on this page; the arrival time of each one's end goes into `done`."""
    while not stop.is_set():
        try:
            run = await session.finish(Run(time.monotonic()))
        except (TimeoutError, Exception):  # noqa: BLE001 - a closed socket at the end, or a run that never ended
            return
        done.append(run.done)


async def changes(presenter: Session, count: int, waits: list[list] | None) -> tuple[list[float], list[list[float]]]:
    """The presenter's `count` changes of stage; its rerun times, and per change each follower's delay."""
    own, delays = [], []
    for i in range(count):
        before = [len(w) for w in waits] if waits else []
        start = time.monotonic()
        await choose(presenter, "stage", 1 + i % PLACES)  # the radio's stages after the first, in turn
        own.append(time.monotonic() - start)
        if waits:
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline and any(len(w) <= b for w, b in zip(waits, before)):
                await asyncio.sleep(0.02)
            delays.append([w[b] - start if len(w) > b else float("inf") for w, b in zip(waits, before)])
    return own, delays


def start_redis(tmp: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port", str(port), "--bind",
                             "127.0.0.1", "--dir", str(tmp), "--save", "", "--appendonly", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as c:
                c.sendall(b"PING\r\n")
                if c.recv(8).startswith(b"+PONG"):
                    return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("redis-server did not answer")


async def one_run(args, tmp: Path) -> dict:
    redis = None
    if args.replicas > 1:
        redis, os.environ["MHA_ROOMS"] = start_redis(tmp)
    servers = [Server(f"classroom{i}", ROOT / "app.py", ROOT, tmp / f"server{i}.log") for i in range(args.replicas)]
    for server in servers:
        server.start()
    for server in servers:
        server.wait_healthy()
    server = servers[0]
    try:
        presenter = await load(server.url, "room=new&stage=qk")
        code = parse_qs(presenter.query)["room"][0]
        await changes(presenter, args.changes, None)  # each stage drawn once: the figures the room shares are built
        alone, _ = await changes(presenter, args.changes, None)
        followers, waits, stop = [], [], asyncio.Event()
        for i in range(args.followers):
            followers.append(await load(servers[i % len(servers)].url, f"room={code}"))
            waits.append([])
        stalled = [await load(servers[i % len(servers)].url, f"room={code}") for i in range(args.stalled)]
        readers = [asyncio.create_task(follow(f, w, stop)) for f, w in zip(followers, waits)]  # the stalled: none
        together, delays = await changes(presenter, args.changes, waits)
        await asyncio.sleep(2)
        cpu0, t0 = sum(cpu_s(s.pid) for s in servers), time.monotonic()
        await asyncio.sleep(args.idle)
        idle = (sum(cpu_s(s.pid) for s in servers) - cpu0) / (time.monotonic() - t0)
        stop.set()
        for f in (presenter, *followers, *stalled):
            await f.close()
        for r in readers:
            r.cancel()
        flat = [d for change in delays for d in change if d != float("inf")]
        return {"p50 s": p(flat, 0.5), "p95 s": p(flat, 0.95), "max s": max(flat, default=float("nan")),
                "never": sum(d == float("inf") for change in delays for d in change),
                "presenter alone s": statistics.median(alone),
                "presenter with followers s": statistics.median(together),
                "idle CPU % of a core": 100 * idle, "tracebacks": sum(s.tracebacks() for s in servers)}
    finally:
        for server in servers:
            server.stop()
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=20)
            os.environ.pop("MHA_ROOMS")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--followers", type=int, default=200)
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--idle", type=float, default=60)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--replicas", default="1", help="servers sharing one redis-server's rooms (1: no Redis); several "
                    "counts, as 1,2, are measured in turn in each run and printed side by side")
    ap.add_argument("--stalled", default="0", help="pages that join the room and never read what the server sends "
                    "them (a bad connection), beside the followers; several counts, as 0,20, side by side")
    args = ap.parse_args()
    counts = [(int(k), int(n)) for k in args.replicas.split(",") for n in args.stalled.split(",")]
    results, loads = {k: [] for k in counts}, []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            loads.append(os.getloadavg()[0])
            for k in counts:  # in turn within each run: a noisy machine's hours fall on every setting alike
                setting = argparse.Namespace(**{**vars(args), "replicas": k[0], "stalled": k[1]})
                results[k].append(asyncio.run(one_run(setting, Path(tmp))))
                print(k, results[k][-1], flush=True)
    print(f"\n{args.followers} followers, {args.changes} changes, {args.idle:.0f} s idle; "
          f"load at each run's start {', '.join(f'{x:.2f}' for x in loads)}; timeout {TIMEOUT} s a run")
    named = [f"{k} server{'s' if k > 1 else ''}" + (f", {n} stalled" if n else "") for k, n in counts]
    print("| median (each run) | " + " | ".join(named) + (f" | {named[-1]} ÷ {named[0]} |" if len(counts) > 1
                                                           else " |"))
    for key in results[counts[0]][0]:
        medians = [statistics.median(r[key] for r in results[k]) for k in counts]
        cells = [f"{m:.3g} ({', '.join(f'{r[key]:.3g}' for r in results[k])})" for m, k in zip(medians, counts)]
        ratio = f" | {medians[-1] / medians[0]:.2f}" if len(counts) > 1 and medians[0] else (" | –" if len(counts) > 1
                                                                                           else "")
        print(f"| {key} | " + " | ".join(cells) + ratio + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
