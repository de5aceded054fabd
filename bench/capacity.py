"""Capacity of one Streamlit process: N protocol-level users against the app and against a bare page.

Not a test: it prints figures, and asserts nothing about speed. No browser runs while it measures: each
user is an asyncio websocket client that speaks Streamlit 1.67's own protocol (ws://HOST:PORT/_stcore/stream,
BackMsg out, ForwardMsg in, both protobufs from streamlit.proto), so the load generator leaves the server
most of the machine. All traffic goes to 127.0.0.1.

    python bench/capacity.py [--quick] [--users 20,40,80,120,200] [--duration 60] [--stage scores]
    python bench/capacity.py --burst 120
    python bench/capacity.py --soak [--soak-users 40] [--interactions 2000] [--gc off|on]
    python bench/capacity.py --check-protocol
    python bench/capacity.py --url http://127.0.0.1:8501 [--pid PID[,PID...]] ...   (a server already running)
    python bench/capacity.py --page bench/floor_page.py ...   (another page in the app's place)

Servers. Without --url it starts `streamlit run app.py` with tests/e2e/conftest.py's flags (headless,
developmentMode false, fileWatcherType none, loopback address) from the repository root, so the repository's
.streamlit/config.toml applies; and always a bare page (bench/ui_latency.py's BARE: one number_input keyed
`n_tokens` and a line of text) from a temporary directory holding a copy of that config.toml, so both run
under the same configuration. `--page FILE` serves FILE from the repository root in app.py's place (still called
"app" in the tables): bench/floor_page.py is the scores view's elements without the app's work, Streamlit's floor
for that view. `--gc on|off` adds `--runner.postScriptGC true|false` to both (the default
leaves the setting to config.toml). A started server runs through a small launcher that is `python -m
streamlit` plus a SIGUSR1 handler; the soak sends that signal at each checkpoint and the handler writes
`gc.get_count()`, `gc.get_stats()`, the number of objects the collector tracks and how many of them are
instances of classes from `mha`, without collecting anything. With --url the process is the Streamlit one listening on
that port, or --pid's (several are summed: `deploy/run.sh start` puts nginx on the port and K processes behind it,
`--url http://127.0.0.1:8500 --pid $(cat /tmp/mha-deploy/streamlit-*.pid | paste -sd,)`); their CPU and RSS are read
if /proc lets us, and the gc figures are not available.

A user. Opens a websocket, sends the first `rerun_script` (the view's query string, empty widget states, context
info), reads the run to its `script_finished`, then repeatedly: waits an exponential think time (mean --think,
5 s), sets the sidebar's `n_tokens` number_input to 4 if it shows 3 and back to 3 otherwise, and sends a rerun
carrying every widget's state. Latency runs from sending that BackMsg to receiving the run's `script_finished`;
a run with no script_finished within --run-timeout is a timeout, and its latency counts as infinite. A run
succeeds with status FINISHED_SUCCESSFULLY (an app's exception still ends that way); exceptions are `exception`
element deltas and compilation errors (a script_compilation_exception event, status
FINISHED_WITH_COMPILE_ERROR); tracebacks in a started server's log are reported apart. The client behaves like
the browser's frontend where that matters to the server: it keeps the frontend's message cache (cacheable
messages by hash, expired after max_cached_message_age finished runs) and sends the hashes it holds, so the
server sends references to large unchanged elements exactly as it would to a browser; it keeps the widget states
the frontend would hold (a widget's value from the last run's element: `value`/`raw_value` when the server set
it, else the value the client holds, else the default; widgets gone from the run are dropped; buttons send
nothing until clicked), the query string the app last wrote (page_info_changed), and the page_script_hash from
new_session. Widget types other than number_input, checkbox/toggle, radio, selectbox, button_group, multiselect,
slider, text_input, text_area and color_picker send no state; only the scores view's widgets are checked
against Chromium (--check-protocol), so another stage's own widgets (the input stage's data editor, a chart
selection) may differ from what a browser sends.

Does a rerun recompute? After setting n_tokens to m, the run's elements (references resolved from the cache)
must carry a shape with m rows (a heatmap's z, or an "m×k" in a heading, markdown or a chart annotation)
and their shapes must differ from the previous run's; a rerun that does not is "stale". The bare page, or a view
that shows no shape at all, cannot be checked: n/a; a view whose shapes do not follow n_tokens (the matmul
refresher) counts every rerun as stale, so measure a view that does. Each server first gets one unmeasured
warm-up user (a load and two changes): first imports are a one-off, not a user's cost.

Slices (default mode). For each N in --users, one slice on the app and one on the bare page, the order
alternating from one N to the next so a noisy machine slows both alike. A slice opens N users spread over
--ramp seconds, waits for every first run, then measures for --duration seconds: p50/p95/max latency of the
reruns sent in that window, the server's CPU seconds per run finished in the window (utime + stime from
/proc/PID/stat), its RSS (VmRSS) at the slice's start and end, exceptions, stale runs, timeouts (no
script_finished within --run-timeout), and the client's own CPU use. Then the users close; Streamlit keeps a
closed session for server.disconnectedSessionTTL, so RSS carries over between slices. Last line: the largest
N whose app slice had p95 ≤ 1 s.
--burst N: N users send their first rerun at once, on the app and then the bare page; when the last first run
finished, seconds from the start. --soak (the app only): --soak-users users open over --ramp seconds, then
make --interactions interactions in all (at most --soak-limit seconds); RSS and the gc figures before the users
open, once all are open, every --checkpoint interactions and at the end. With postScriptGC off Python's own
generational collector still runs: a count of mha instances that keeps rising would be a cycle of ours that
survives it. Every loop has a count and a time limit.

--check-protocol (once, with /usr/bin/chromium): Chromium opens the app at ?stage=scores and presses the
sidebar's n_tokens + button, then its − button; Playwright records the websocket frames it sends
(page.on("websocket") → framesent) and receives, and the handshake through the DevTools protocol. Then the
client does the same (3 → 4 → 3) on the same server, and the two are compared field by field: the BackMsgs
(query string, page_script_hash, page_name, fragment_id, flags, context info, every widget state by id, the
cached message hashes), the sequence of ForwardMsg kinds each run received (a reference where the browser
got one), and the handshake (subprotocol, extensions, origin). It also lists the HTTP requests the browser
made that the client does not make. Exit status 1 when a BackMsg field or a message sequence differs.
What it found (Streamlit 1.67.0, Chromium 156, this app's main): every compared field matched in all three
BackMsgs, and every run received the same sequence of messages. The first rerun_script carries
query_string "stage=scores", a present but empty widget_states, no page_script_hash and no cached hashes,
and context_info {timezone "UTC", timezone_offset 0, locale "en-US", url = the page's address without its
query, is_embedded false, color_scheme "light"}. The second carries the query string the app wrote back
("lang=en&stage=scores&preset=post"), all 13 sidebar widgets' states (n_tokens as int_value 4, the radio and
selectbox as string_value of the option's label, the segmented controls as string_array_value of labels, the
toggles as bool_value), the page_script_hash from new_session, and one cached hash (the 40 KB scores chart).
The third (back to 3) carries two hashes and gets the 3-row chart back as a reference, as the browser did.
The handshakes differ in one header: the browser offers the subprotocols "streamlit" and an XSRF token,
which the server reads only for authentication cookies. Both offer permessage-deflate and the server accepts
it for neither, so frames go uncompressed to both. The browser also fetched the page, 106 static files (JS
chunks, fonts), /_stcore/health, /_stcore/host-config and the favicon: a first visit's cost to the server that
--burst leaves out.
"""

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlparse

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from ui_latency import BARE, CHROMIUM, CHROMIUM_ARGS, machine
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
CONFIG = ROOT / ".streamlit" / "config.toml"
KEY = "n_tokens"  # the sidebar number_input every user changes, 3 ↔ 4
TARGET_P95_S = 1.0
EARLY = ForwardMsg.FINISHED_EARLY_FOR_RERUN
SUCCESS = ForwardMsg.FINISHED_SUCCESSFULLY
# What headless Chromium on this machine reports (--check-protocol compares it).
CONTEXT = {"timezone": "UTC", "timezone_offset": 0, "locale": "en-US", "is_embedded": False, "color_scheme": "light"}
STEPS = ("stNumberInputStepUp", "stNumberInputStepDown")  # --check-protocol: n_tokens 3 → 4 → 3
SHAPE_TEXT = re.compile(r"(\d+)\s*×\s*(\d+)")

# `python -m streamlit` plus a SIGUSR1 handler that appends the collector's figures to $CAPACITY_GC_PROBE, and a
# gc callback that appends each full collection's end (Unix time) and pause (s) to $CAPACITY_GC_PROBE.full.
LAUNCHER = """
import gc, json, os, signal, time

def module_of(o):
    name = type(o).__dict__.get("__module__")  # the class's own entry: on some classes a property
    return name if isinstance(name, str) else ""

def probe(signum, frame):
    try:  # an exception here would surface in the server's event loop
        tracked = gc.get_objects()
        ours = sum(1 for o in tracked if module_of(o).partition(".")[0] == "mha")
        line = {"time": time.time(), "count": gc.get_count(), "stats": gc.get_stats(), "tracked": len(tracked),
                "mha": ours, "garbage": len(gc.garbage)}
        del tracked
    except Exception as e:
        line = {"error": repr(e)}
    try:
        with open(os.environ["CAPACITY_GC_PROBE"], "a") as f:
            f.write(json.dumps(line) + "\\n")
    except Exception:
        pass

signal.signal(signal.SIGUSR1, probe)

began = []
def full_pause(phase, info):  # each full collection (generation 2) with its pause, for bench/memory.py
    if info["generation"] != 2:
        return
    if phase == "start":
        began[:] = [time.perf_counter()]
        return
    try:
        with open(os.environ["CAPACITY_GC_PROBE"] + ".full", "a") as f:
            f.write(f"{time.time():.3f} {time.perf_counter() - began[0]:.4f}\\n")
    except Exception:
        pass

gc.callbacks.append(full_pause)
from streamlit.web.cli import main
main(prog_name="streamlit")
"""


# --- the server process: start, CPU, memory, gc --------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_listening_on(port: int) -> int | None:
    """The process holding the listening socket of a loopback port, found through /proc (None if unreadable)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(f"socket:[{cols[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    return int(proc.name)
    return None


def cpu_s(*pids: int) -> float | None:
    """CPU seconds (user + system, all threads) the processes have used so far, summed (None for none)."""
    if not pids:
        return None
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15: utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def rss_mb(*pids: int) -> float | None:
    """Resident memory of the processes, summed (None for none)."""
    if not pids:
        return None
    total = 0
    for pid in pids:
        kb = next((int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                   if line.startswith("VmRSS:")), None)
        if kb is None:  # a process that has exited and not been reaped has no memory to show
            return None
        total += kb
    return total / 1024


def streamlit_pids(url: str, given: list[int] | None) -> tuple[int, ...]:
    """The server processes behind --url: --pid's, else the one listening on its port if it is a Streamlit process.
    Behind a proxy (deploy/run.sh: nginx on the port) there is none to find, and CPU and RSS are not shown rather
    than nginx's: pass the Streamlit processes' pids."""
    if given:
        return tuple(given)
    port = urlparse(url).port or 80
    pid = pid_listening_on(port)
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode() if pid else ""
    except OSError:
        command = ""
    if "streamlit" in command:
        return (pid,)
    name = command.split(" ", 1)[0].rstrip(":") or "unreadable"
    print(f"note: the process on port {port} ({name}) is not a Streamlit server; "
          "CPU and RSS are n/a: pass --pid PID[,PID...] (behind deploy/run.sh: $RUN_DIR/streamlit-*.pid)")
    return ()


@dataclass
class Server:
    name: str
    script: Path
    cwd: Path
    log: Path
    extra: list = field(default_factory=list)
    url: str = ""
    pid: int | None = None
    pids: tuple[int, ...] = ()  # whose CPU and RSS are measured: the started process, or --url's servers
    proc: subprocess.Popen | None = None
    probe: Path | None = None  # where the launcher's SIGUSR1 handler writes

    def start(self) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.probe = self.log.with_suffix(".gc")
        cmd = [sys.executable, "-c", LAUNCHER, "run", str(self.script), "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1", "--global.developmentMode", "false",
               "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false", *self.extra]
        env = os.environ | {"CAPACITY_GC_PROBE": str(self.probe)}
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
        self.pid = self.proc.pid
        self.pids = (self.pid,)

    def wait_healthy(self, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited:\n{self.log.read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2)
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"{self.name}: no answer on /_stcore/health within {seconds:.0f} s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def tracebacks(self) -> int | None:
        """Tracebacks in the log of a server started here (None for --url: its log is elsewhere)."""
        return self.log.read_text(errors="replace").count("Traceback") if self.log.exists() else None

    async def gc_figures(self, seconds: float = 20) -> dict | None:
        """Ask the launcher for the collector's figures (SIGUSR1) and wait for its line."""
        if not (self.proc and self.probe and self.proc.poll() is None):
            return None
        before = self.probe.read_text().count("\n") if self.probe.exists() else 0
        os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            lines = self.probe.read_text().splitlines() if self.probe.exists() else []
            if len(lines) > before:
                return json.loads(lines[-1])
            await asyncio.sleep(0.1)
        return None


# --- the browser's side of the protocol -----------------------------------------------------------------

class MessageCache:
    """The frontend's ForwardMsg cache: cacheable messages by hash, dropped after max_age finished runs unused."""

    def __init__(self) -> None:
        self.entries: dict[str, list] = {}  # hash -> [message, run count when last used]
        self.runs = 0

    def resolve(self, msg: ForwardMsg) -> ForwardMsg | None:
        """The message itself, or for a reference the cached message it names (None when missing)."""
        if msg.WhichOneof("type") == "ref_hash":
            entry = self.entries.get(msg.ref_hash)
            if entry is None:
                return None
            entry[1] = self.runs
            return entry[0]
        if msg.metadata.cacheable:
            entry = self.entries.setdefault(msg.hash, [msg, self.runs])
            entry[1] = self.runs
        return msg

    def run_finished(self, max_age: int) -> None:
        self.runs += 1
        self.entries = {h: e for h, e in self.entries.items() if self.runs - e[1] <= max_age}

    def hashes(self) -> list[str]:
        return list(self.entries)


def widget_state(el: Element, held: WidgetState | None) -> WidgetState | None:
    """The state the frontend holds for a widget element after a run (None: it sends none)."""
    kind = el.WhichOneof("type")
    w = getattr(el, kind)
    if not getattr(w, "id", "") or kind not in WIDGETS:
        return None
    if held is not None and not getattr(w, "set_value", False):
        return held
    state = WidgetState(id=w.id)
    return state if WIDGETS[kind](w, state) is not False else None


def _number(w, s):
    if not (w.set_value and w.HasField("value")) and not w.HasField("default"):
        return False
    v = w.value if w.set_value and w.HasField("value") else w.default
    if w.data_type == w.INT:
        s.int_value = int(v)
    else:
        s.double_value = v


def _one_of(w, s):
    if w.HasField("raw_value"):
        s.string_value = w.raw_value
    elif w.HasField("default"):
        s.string_value = w.options[w.default]
    else:
        return False


def _slider(w, s):
    if w.type == w.SELECT_SLIDER:
        s.string_array_value.data.extend(w.raw_value if w.set_value else [w.options[int(i)] for i in w.default])
    else:
        s.double_array_value.data.extend(w.value if w.set_value else w.default)


def _text(w, s):
    if w.set_value and w.HasField("value"):
        s.string_value = w.value
    elif w.HasField("default"):
        s.string_value = w.default
    else:
        return False


WIDGETS = {
    "number_input": _number,
    "checkbox": lambda w, s: setattr(s, "bool_value", w.value if w.set_value else w.default),
    "radio": _one_of,
    "selectbox": _one_of,
    "button_group": lambda w, s: s.string_array_value.data.extend(
        w.raw_values if w.set_value else [w.options[i].content for i in w.default]),
    "multiselect": lambda w, s: s.string_array_value.data.extend(
        w.raw_values if w.set_value else [w.options[i] for i in w.default]),
    "slider": _slider,
    "text_input": _text,
    "text_area": _text,
    "color_picker": lambda w, s: setattr(s, "string_value", w.value if w.set_value else w.default),
}

_shapes_by_hash: dict[str, frozenset] = {}


class _MatrixSpec(HTMLParser):
    """The figure of a matrix chart's st.html (chart.spec_html): its div.mha-spec's data-spec attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.spec: str | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "div" and ("class", "mha-spec") in attrs:
            self.spec = dict(attrs).get("data-spec")


def matrix_spec(body: str) -> str | None:
    parser = _MatrixSpec()
    parser.feed(body)
    return parser.spec


def element_shapes(msg: ForwardMsg) -> frozenset:
    """Matrix shapes a delta shows: heatmap z arrays (a Plotly chart's or a matrix chart's figure), and "a×b" in
    text and chart annotations."""
    if msg.hash in _shapes_by_hash:
        return _shapes_by_hash[msg.hash]
    el = msg.delta.new_element
    kind = el.WhichOneof("type")
    out = set()
    if kind in ("markdown", "heading"):
        out.update(SHAPE_TEXT.findall(getattr(el, kind).body))
    elif text := (el.plotly_chart.spec if kind == "plotly_chart" else
                  matrix_spec(el.html.body) if kind == "html" else None):
        spec = json.loads(text)
        for trace in spec.get("data", []):
            z = trace.get("z")
            if isinstance(z, list) and z:
                out.add((len(z), len(z[0]) if isinstance(z[0], list) else 1))
            elif isinstance(z, dict) and "shape" in z:  # a typed array: {"dtype", "bdata", "shape": "3, 7"}
                out.add(tuple(int(d) for d in str(z["shape"]).split(",")))
        for note in spec.get("layout", {}).get("annotations", []):
            out.update(SHAPE_TEXT.findall(str(note.get("text", ""))))
    shapes = frozenset(tuple(int(d) for d in s) for s in out)
    if len(_shapes_by_hash) > 10_000:
        _shapes_by_hash.clear()
    _shapes_by_hash[msg.hash] = shapes
    return shapes


def message_kind(msg: ForwardMsg) -> str:
    kind = msg.WhichOneof("type") or "?"
    if kind == "delta":
        delta = msg.delta.WhichOneof("type")
        return f"element:{msg.delta.new_element.WhichOneof('type')}" if delta == "new_element" else f"delta:{delta}"
    return kind


@dataclass
class Run:
    sent: float  # time.monotonic() when the rerun BackMsg went out
    done: float | None = None  # when its script_finished arrived (None: timed out or the connection failed)
    status: int | None = None
    exceptions: int = 0
    shapes: frozenset = frozenset()
    kinds: list = field(default_factory=list)  # what arrived, a reference named as such

    @property
    def seconds(self) -> float:
        return self.done - self.sent


class Session:
    """One user's websocket, speaking to the server as the browser's frontend does."""

    def __init__(self, base: str, query: str, timeout: float, record: bool = False) -> None:
        self.base, self.query, self.timeout = base.rstrip("/"), query, timeout
        self.page_hash = ""
        self.max_age = 2
        self.widgets: dict[str, WidgetState] = {}
        self.elements: list[Element] = []  # the last run's elements and blocks (references resolved), in order
        self.blocks: list = []
        self.cache = MessageCache()
        self.ws = None
        self.sent: list[BackMsg] = [] if record else None

    async def open(self) -> None:
        host = urlparse(self.base).netloc
        self.ws = await connect(f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], origin=self.base,
                                proxy=None, max_size=None, ping_interval=None, open_timeout=self.timeout,
                                close_timeout=2)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()

    def rerun_msg(self) -> BackMsg:
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.widget_states.SetInParent()
        cs.widget_states.widgets.extend(self.widgets.values())
        cs.page_script_hash = self.page_hash
        cs.cached_message_hashes.extend(self.cache.hashes())
        for name, value in CONTEXT.items():
            setattr(cs.context_info, name, value)
        cs.context_info.url = self.base + "/"
        return msg

    def value(self, key: str) -> tuple[str, int] | None:
        """The widget id and int value the session holds for a keyed number_input."""
        for wid, state in self.widgets.items():
            if wid.endswith(f"-{key}") and state.WhichOneof("value") == "int_value":
                return wid, state.int_value
        return None

    def set_int(self, wid: str, value: int) -> None:
        self.widgets[wid] = WidgetState(id=wid, int_value=value)

    def find(self, key: str):
        """The last run's element or block whose widget id ends with `-key` (None if it drew none)."""
        for part in (*self.elements, *self.blocks):
            proto = getattr(part, part.WhichOneof("type"))
            if getattr(proto, "id", "").endswith(f"-{key}"):
                return proto
        return None

    async def run(self) -> Run:
        """Send a rerun with the current client state and read its messages to the run's script_finished."""
        msg = self.rerun_msg()
        if self.sent is not None:
            self.sent.append(msg)
        run = Run(time.monotonic())
        await self.ws.send(msg.SerializeToString())
        return await self.finish(run)

    async def finish(self, run: Run) -> Run:
        """Read the messages of a run (one this page asked for, or one the server started) to its script_finished."""
        elements, blocks, started, shapes = [], [], False, set()
        async with asyncio.timeout(self.timeout):
            while True:
                fwd = ForwardMsg.FromString(await self.ws.recv())
                kind = fwd.WhichOneof("type")
                msg = self.cache.resolve(fwd)
                if kind == "new_session":
                    started, elements, blocks, shapes, run.kinds = True, [], [], set(), []
                    self.page_hash = fwd.new_session.page_script_hash
                    self.max_age = fwd.new_session.config.max_cached_message_age or self.max_age
                if not started:
                    continue
                run.kinds.append("ref:" + message_kind(msg) if kind == "ref_hash" and msg else message_kind(fwd))
                if kind == "page_info_changed":
                    self.query = fwd.page_info_changed.query_string
                elif kind == "session_event" and fwd.session_event.HasField("script_compilation_exception"):
                    run.exceptions += 1
                elif msg is not None and msg.WhichOneof("type") == "delta" and msg.delta.HasField("new_element"):
                    el = msg.delta.new_element
                    elements.append(el)
                    run.exceptions += el.WhichOneof("type") == "exception"
                    shapes |= element_shapes(msg)
                elif msg is not None and msg.WhichOneof("type") == "delta" and msg.delta.HasField("add_block"):
                    blocks.append(msg.delta.add_block)
                elif kind == "script_finished" and fwd.script_finished != EARLY:
                    run.done, run.status, run.shapes = time.monotonic(), fwd.script_finished, frozenset(shapes)
                    self.cache.run_finished(self.max_age)
                    self._keep_widgets(elements, blocks)
                    self.elements, self.blocks = elements, blocks
                    return run

    def _keep_widgets(self, elements: list, blocks: list) -> None:
        """The frontend drops the state of widgets no longer on the page and takes values the server set. A keyed
        expander is a widget too: the state a click gave it stays while the expander is on the page."""
        kept = {}
        for el in elements:
            wid = getattr(getattr(el, el.WhichOneof("type")), "id", "")
            state = widget_state(el, self.widgets.get(wid))
            if state is not None:
                kept[wid] = state
        for block in blocks:
            wid = block.expandable.id if block.WhichOneof("type") == "expandable" else ""
            if wid in self.widgets:
                kept[wid] = self.widgets[wid]
        self.widgets = kept


# --- users and tallies ----------------------------------------------------------------------------------

@dataclass
class Tally:
    latencies: list = field(default_factory=list)  # reruns sent inside the window, seconds
    first: list = field(default_factory=list)  # first runs: seconds from the slice's (or burst's) start
    finished_in_window: int = 0  # runs of any kind whose script_finished arrived inside the window
    exceptions: int = 0  # exception elements and compilation exceptions
    failed: int = 0  # runs that ended with a status other than FINISHED_SUCCESSFULLY
    stale: int = 0  # reruns whose elements did not carry the new n_tokens shape
    checked: int = 0
    timeouts: int = 0
    errors: Counter = field(default_factory=Counter)  # connection failures by kind

    def count(self, run: Run) -> None:
        self.exceptions += run.exceptions
        self.failed += run.status != SUCCESS


@dataclass
class Window:
    start: float = float("inf")
    end: float = float("inf")

    def holds(self, t: float | None) -> bool:
        return t is not None and self.start <= t <= self.end


def changed_shape(run: Run, before: frozenset, rows: int) -> bool:
    return run.shapes != before and any(s[0] == rows for s in run.shapes)


async def change(session: Session, tally: Tally, check_shapes: bool, before: frozenset) -> Run | None:
    """Set n_tokens 3 → 4 (or anything else → 3) and rerun; None when the page has no n_tokens."""
    held = session.value(KEY)
    if held is None:
        return None
    wid, now = held
    rows = 4 if now != 4 else 3
    session.set_int(wid, rows)
    run = await session.run()
    tally.count(run)
    if check_shapes and (run.shapes or before):  # a view that shows no shape at all cannot be checked
        tally.checked += 1
        tally.stale += not changed_shape(run, before, rows)
    return run


async def user(i: int, url: str, query: str, args, tally: Tally, t0: float, delay: float, check_shapes: bool,
               start: asyncio.Event | None = None, window: Window | None = None, budget=None) -> None:
    """Open after `delay` and do the first run; then (given `start`) wait for it and change n_tokens after
    exponential think times, until the window ends or the shared budget of interactions is spent."""
    rng = random.Random(args.seed * 100_003 + i)
    session = Session(url, query, args.run_timeout)
    window = window or Window(0.0, float("inf"))
    try:
        await asyncio.sleep(delay)
        await session.open()
        run = await session.run()
        tally.count(run)
        tally.first.append(run.done - t0)
        if start is None:
            return
        await start.wait()
        while True:
            think = rng.expovariate(1 / args.think)
            if time.monotonic() + think > window.end:
                break
            await asyncio.sleep(think)
            if budget is not None and not budget.take():
                break
            sent = time.monotonic()
            try:
                run = await change(session, tally, check_shapes, run.shapes)
            except TimeoutError:
                if window.holds(sent):
                    tally.latencies.append(math.inf)  # a lost run is a latency beyond any target
                raise
            if run is None:
                tally.errors["no n_tokens widget"] += 1
                break
            tally.finished_in_window += window.holds(run.done)
            if window.holds(run.sent):
                tally.latencies.append(run.seconds)
            if budget is not None:
                await budget.done()
    except TimeoutError:
        tally.timeouts += 1
    except (OSError, WebSocketException) as e:
        tally.errors[type(e).__name__] += 1
    finally:
        await session.close()


async def all_opened(tally: Tally, n: int, seconds: float) -> None:
    """Until every user has finished its first run or failed, at most `seconds`."""
    deadline = time.monotonic() + seconds
    while len(tally.first) + tally.timeouts + sum(tally.errors.values()) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


async def finish(tasks: list, seconds: float) -> None:
    if tasks:
        await asyncio.wait(tasks, timeout=seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# --- reports --------------------------------------------------------------------------------------------

def pct(values: list, q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def fmt(x: float | None, spec: str = ".2f") -> str:
    return "n/a" if x is None or x != x else format(x, spec)


def environment(servers: list[Server], args) -> str:
    gc_flag = {"on": "postScriptGC true", "off": "postScriptGC false"}.get(args.gc, "postScriptGC as config.toml")
    return (f"env: {machine()}; Python "
            f"{platform.python_version()}, streamlit {version('streamlit')}, websockets {version('websockets')}; "
            f"{gc_flag}; servers: "
            + ", ".join(f"{s.name} {s.url} pid {','.join(map(str, s.pids)) or 'n/a'}" for s in servers)
            + ("" if args.page == APP else f"; the app is {os.path.relpath(args.page, ROOT)}"))


# --- modes ----------------------------------------------------------------------------------------------

async def warm_up(server: Server, query: str, args) -> None:
    """One session loads the view and changes n_tokens twice: first imports are a one-off, not a user's cost."""
    session = Session(server.url, query, max(args.run_timeout, 120))
    try:
        await session.open()
        run = await session.run()
        for _ in range(2):
            run = await change(session, Tally(), False, run.shapes) or run
    finally:
        await session.close()


@dataclass
class SliceResult:
    page: str
    n: int
    tally: Tally
    cpu: float | None
    rss: tuple
    client_cpu: float

    @property
    def cpu_per_run_ms(self) -> float | None:
        runs = self.tally.finished_in_window
        return None if self.cpu is None or not runs else 1000 * self.cpu / runs


async def one_slice(server: Server, page: str, query: str, n: int, args, check_shapes: bool) -> SliceResult:
    rss0 = rss_mb(*server.pids)
    tally, window, start = Tally(), Window(), asyncio.Event()
    t0 = time.monotonic()
    users = [asyncio.create_task(user(i, server.url, query, args, tally, t0, args.ramp * i / n, check_shapes,
                                      start, window)) for i in range(n)]
    await all_opened(tally, n, args.ramp + 2 * args.run_timeout)
    await asyncio.sleep(max(0.0, t0 + args.ramp - time.monotonic()))
    window.start = time.monotonic()
    window.end = window.start + args.duration
    cpu0, client0 = cpu_s(*server.pids), sum(os.times()[:2])
    start.set()
    await asyncio.sleep(args.duration)
    cpu1, client1 = cpu_s(*server.pids), sum(os.times()[:2])
    await finish(users, args.run_timeout + 5)
    cpu = None if cpu0 is None else cpu1 - cpu0
    return SliceResult(page, n, tally, cpu, (rss0, rss_mb(*server.pids)),
                       100 * (client1 - client0) / args.duration)


def slice_line(r: SliceResult) -> str:
    t = r.tally
    stale = f"{t.stale}/{t.checked}" if t.checked else "n/a"
    errors = ", ".join(f"{k} {v}" for k, v in t.errors.items()) or "0"
    return (f"{r.n:>5} {r.page:<4} | {len(t.latencies):>6} {fmt(pct(t.latencies, 0.5)):>6} "
            f"{fmt(pct(t.latencies, 0.95)):>6} {fmt(max(t.latencies, default=float('nan'))):>6} | "
            f"{fmt(r.cpu_per_run_ms, '.0f'):>10} | {fmt(r.rss[0], '.0f'):>7} → {fmt(r.rss[1], '.0f'):<8} | "
            f"{t.exceptions:>4} {t.failed:>4} {stale:>8} {t.timeouts:>4} {errors:>6} | {r.client_cpu:>5.0f}%")


async def run_slices(app: Server, bare: Server, args) -> None:
    query = f"stage={args.stage}"
    head = (f"{'users':>5} {'page':<4} | {'reruns':>6} {'p50 s':>6} {'p95 s':>6} {'max s':>6} | {'cpu ms/run':>10} | "
            f"{'RSS MB start → end':<18} | {'exc':>4} {'fail':>4} {'stale':>8} {'tout':>4} {'errors':>6} | "
            f"{'client':>6}")
    print(f"view ?{query}; think exp(mean {args.think} s); ramp {args.ramp} s; window {args.duration} s per slice; "
          "latency: rerun BackMsg sent → its script_finished; cpu: server CPU in the window / runs finished in it")
    print(head)
    print("-" * len(head))
    results = []
    for k, n in enumerate(args.users):
        order = [("app", app, query, True), ("bare", bare, "", False)]
        for page, server, q, is_app in order if k % 2 == 0 else order[::-1]:
            r = await one_slice(server, page, q, n, args, is_app)
            results.append(r)
            print(slice_line(r), flush=True)
            await asyncio.sleep(2)
    ok = [r.n for r in results if r.page == "app" and pct(r.tally.latencies, 0.95) <= TARGET_P95_S]
    print(f"largest N with the app's p95 ≤ {TARGET_P95_S:g} s: {max(ok) if ok else 'none of ' + str(args.users)}")
    print("exc: exception elements and compilation exceptions; fail: runs not FINISHED_SUCCESSFULLY; stale: reruns "
          "whose elements did not carry the new n_tokens shape / reruns checked; tout: runs without script_finished "
          "within --run-timeout (their latency counts as inf); client: the load generator's own CPU over the window "
          "(100% = one core)")


async def burst(server: Server, query: str, n: int, args, check_shapes: bool) -> str:
    tally = Tally()
    t0 = time.monotonic()
    users = [asyncio.create_task(user(i, server.url, query, args, tally, t0, 0.0, check_shapes)) for i in range(n)]
    await finish(users, 2 * args.run_timeout)
    errors = ", ".join(f"{k} {v}" for k, v in tally.errors.items()) or "0"
    return (f"{n} users at once: {len(tally.first)} first runs finished, the last after "
            f"{fmt(max(tally.first, default=None))} s (p50 {fmt(pct(tally.first, 0.5))} s, p95 "
            f"{fmt(pct(tally.first, 0.95))} s); exceptions {tally.exceptions}, failed runs {tally.failed}, timeouts "
            f"{tally.timeouts}, connection errors {errors}; RSS {fmt(rss_mb(*server.pids), '.0f')} MB")


class Budget:
    """The soak's interactions, shared by its users, with a checkpoint every `every` interactions done."""

    def __init__(self, total: int, every: int, checkpoint) -> None:
        self.total, self.every, self.checkpoint = total, every, checkpoint
        self.taken = self.finished = 0
        self.pending: list = []

    def take(self) -> bool:
        if self.taken >= self.total:
            return False
        self.taken += 1
        return True

    async def done(self) -> None:
        self.finished += 1
        if self.finished % self.every == 0 or self.finished == self.total:
            self.pending.append(asyncio.create_task(self.checkpoint(self.finished)))


async def soak(server: Server, query: str, args) -> None:
    t0 = time.monotonic()
    rows = []

    async def checkpoint(label) -> None:
        figures = await server.gc_figures()
        rows.append((label, time.monotonic() - t0, rss_mb(*server.pids), figures))
        print(checkpoint_line(*rows[-1], rows[1][2] if len(rows) > 1 else None), flush=True)

    print(f"soak: {args.soak_users} users on ?{query}, {args.interactions} interactions, think exp(mean "
          f"{args.think} s); "
          "Δ = RSS minus RSS once every user is open; gc: get_count() gen0/1/2, collections so far gen0/1/2, "
          "objects tracked, of them instances of mha classes")
    await checkpoint("before")
    tally, start = Tally(), asyncio.Event()
    budget = Budget(args.interactions, args.checkpoint, checkpoint)
    limit = args.soak_limit or 120 + 4 * args.interactions * args.think / args.soak_users
    users = [asyncio.create_task(user(i, server.url, query, args, tally, t0, args.ramp * i / args.soak_users, True,
                                      start, budget=budget)) for i in range(args.soak_users)]
    await all_opened(tally, args.soak_users, args.ramp + 2 * args.run_timeout)
    await checkpoint("opened")
    start.set()
    await finish(users, limit)
    await asyncio.gather(*budget.pending, return_exceptions=True)
    if budget.finished < args.interactions:
        await checkpoint(f"stopped at {budget.finished}")
    rss = [r[2] for r in rows if r[2] is not None]
    errors = ", ".join(f"{k} {v}" for k, v in tally.errors.items()) or "0"
    print(f"interactions {budget.finished}/{args.interactions} in {time.monotonic() - t0:.0f} s "
          f"(limit {limit:.0f} s); latency p50 {fmt(pct(tally.latencies, 0.5))} s, p95 "
          f"{fmt(pct(tally.latencies, 0.95))} s, max {fmt(max(tally.latencies, default=None))} s")
    print(f"exceptions {tally.exceptions}, failed runs {tally.failed}, stale {tally.stale}/{tally.checked}, timeouts "
          f"{tally.timeouts}, connection errors {errors}, server log tracebacks {fmt(server.tracebacks(), 'd')}")
    if len(rss) >= 2:
        print(f"RSS: {rss[0]:.0f} MB before, {rss[1]:.0f} MB once open, {rss[-1]:.0f} MB at the end: "
              f"{rss[-1] - rss[1]:+.1f} MB over the interactions, {rss[-1] - rss[0]:+.1f} MB in all")


def checkpoint_line(label, elapsed: float, rss: float | None, g: dict | None, opened_rss: float | None) -> str:
    delta = f"Δ {rss - opened_rss:+6.1f}" if rss is not None and opened_rss is not None else " " * 8
    gc_text = "gc n/a"
    if g and "error" in g:
        gc_text = f"gc probe failed: {g['error']}"
    elif g:
        collections = "/".join(str(s["collections"]) for s in g["stats"])
        gc_text = (f"gc {'/'.join(map(str, g['count']))}, collections {collections}, tracked {g['tracked']:,}, "
                   f"mha {g['mha']:,}, garbage {g['garbage']}")
    return f"  {str(label):>10} {elapsed:>6.0f} s  RSS {fmt(rss, '.1f'):>6} MB {delta}  {gc_text}"


# --- protocol check against Chromium --------------------------------------------------------------------

def browser_capture(url: str, timeout_s: float) -> dict:
    """Chromium opens `url`, waits for the run, presses n_tokens' + and waits for that run: frames both ways."""
    from playwright.sync_api import sync_playwright

    sent, received, handshake, http = [], [], {}, []
    finished = []

    def on_ws(ws) -> None:
        if "_stcore/stream" not in ws.url:
            return
        ws.on("framesent", lambda p: sent.append(p if isinstance(p, bytes) else p.encode()))

        def got(p) -> None:
            data = p if isinstance(p, bytes) else p.encode()
            received.append(data)
            msg = ForwardMsg.FromString(data)
            if msg.WhichOneof("type") == "script_finished" and msg.script_finished != EARLY:
                finished.append(len(received))
        ws.on("framereceived", got)

    def wait_runs(page, count: int) -> None:
        deadline = time.monotonic() + timeout_s
        while len(finished) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"Chromium: run {count} did not finish within {timeout_s:.0f} s")
            page.wait_for_timeout(50)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.on("Network.webSocketWillSendHandshakeRequest",
                   lambda e: handshake.__setitem__("request", e["request"]["headers"]))
            cdp.on("Network.webSocketHandshakeResponseReceived",
                   lambda e: handshake.__setitem__("response", e["response"]["headers"]))
            page.on("websocket", on_ws)
            page.on("requestfinished", lambda r: http.append(urlparse(r.url).path))
            page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
            wait_runs(page, 1)
            for count, button in enumerate(STEPS, start=2):
                page.wait_for_timeout(500)
                page.click(f'.st-key-{KEY} [data-testid="{button}"]', timeout=timeout_s * 1000)
                wait_runs(page, count)
            page.wait_for_timeout(1500)  # anything the frontend sends after a run
        finally:
            browser.close()
    runs = [received[a:b] for a, b in zip([0, *finished], finished)]
    return {"sent": [BackMsg.FromString(b) for b in sent], "runs": [run_kinds(r) for r in runs],
            "handshake": handshake, "http": http}


def run_kinds(frames: list[bytes]) -> list[str]:
    """The kinds of a run's messages from its new_session on, a reference shown as `ref` (unresolved)."""
    kinds, started = [], False
    for data in frames:
        msg = ForwardMsg.FromString(data)
        started |= msg.WhichOneof("type") == "new_session"
        if started:
            kinds.append("ref" if msg.WhichOneof("type") == "ref_hash" else message_kind(msg))
    return kinds


async def client_capture(url: str, query: str, timeout_s: float) -> dict:
    session = Session(url, query, timeout_s, record=True)
    await session.open()
    try:
        runs = [await session.run()]
        for step in (1, -1):  # what the + and − buttons do
            wid, now = session.value(KEY)
            session.set_int(wid, now + step)
            runs.append(await session.run())
        headers = {"request": dict(session.ws.request.headers.raw_items()),
                   "response": dict(session.ws.response.headers.raw_items())}
    finally:
        await session.close()
    kinds = [["ref" if k.startswith("ref:") else k for k in r.kinds] for r in runs]
    return {"sent": session.sent, "runs": kinds, "handshake": headers}


def state_value(s: WidgetState):
    kind = s.WhichOneof("value")
    value = getattr(s, kind) if kind else None
    return kind, list(value.data) if hasattr(value, "data") else value


def compare_backmsgs(b: BackMsg, c: BackMsg) -> list[tuple[str, bool, str]]:
    """(field, equal, detail) for every field of the two BackMsgs that either one sets."""
    rows = [("type", b.WhichOneof("type") == c.WhichOneof("type"), f"{b.WhichOneof('type')} / {c.WhichOneof('type')}")]
    if b.WhichOneof("type") != "rerun_script" or c.WhichOneof("type") != "rerun_script":
        return rows
    bs, cs = b.rerun_script, c.rerun_script
    for name in ("query_string", "page_script_hash", "page_name", "fragment_id", "is_auto_rerun",
                 "is_history_navigation"):
        bv, cv = getattr(bs, name), getattr(cs, name)
        rows.append((name, bv == cv, repr(bv) if bv == cv else f"browser {bv!r}, client {cv!r}"))
    rows.append(("widget_states present", bs.HasField("widget_states") == cs.HasField("widget_states"),
                 f"{bs.HasField('widget_states')} / {cs.HasField('widget_states')}"))
    bw = {w.id: state_value(w) for w in bs.widget_states.widgets}
    cw = {w.id: state_value(w) for w in cs.widget_states.widgets}
    for wid in list(bw) + [w for w in cw if w not in bw]:
        short = wid.rsplit("-", 1)[-1]
        same = bw.get(wid) == cw.get(wid)
        rows.append((f"widget {short}", same,
                     f"{bw[wid][0]}={bw[wid][1]!r}" if same else f"browser {bw.get(wid)}, client {cw.get(wid)}"))
    bh, ch = sorted(bs.cached_message_hashes), sorted(cs.cached_message_hashes)
    rows.append(("cached_message_hashes", bh == ch,
                 f"{len(bh)} hash(es)" if bh == ch else f"browser {bh}, client {ch}"))
    for name in ("timezone", "timezone_offset", "locale", "url", "is_embedded", "color_scheme"):
        bv, cv = getattr(bs.context_info, name), getattr(cs.context_info, name)
        rows.append((f"context_info.{name}", bv == cv, repr(bv) if bv == cv else f"browser {bv!r}, client {cv!r}"))
    rows.append(("context_info present", bs.HasField("context_info") == cs.HasField("context_info"),
                 f"{bs.HasField('context_info')} / {cs.HasField('context_info')}"))
    return rows


def check_protocol(url: str, query: str, timeout_s: float) -> bool:
    print(f"Chromium: {url}/?{query}, then the sidebar's {KEY} + button, then its − button")
    browser = browser_capture(f"{url}/?{query}", timeout_s)
    print("protocol client: the same on the same server")
    client = asyncio.run(client_capture(url, query, timeout_s))
    ok = True
    if len(browser["sent"]) != len(client["sent"]):
        ok = False
        print(f"DIFFERS: the browser sent {len(browser['sent'])} BackMsg(s), the client {len(client['sent'])}")
        for m in browser["sent"]:
            print(f"  browser sent: {m.WhichOneof('type')}")
    for i, (b, c) in enumerate(zip(browser["sent"], client["sent"])):
        print(f"BackMsg {i + 1} ({('first load', 'after the + click', 'after the − click')[min(i, 2)]}):")
        for name, same, detail in compare_backmsgs(b, c):
            ok &= same
            print(f"  {'match  ' if same else 'DIFFERS'} {name}: {detail}")
    for i, (b, c) in enumerate(zip(browser["runs"], client["runs"])):
        same = b == c
        ok &= same
        refs = sum(k == "ref" for k in b)
        at = next((k for k, (x, y) in enumerate(zip(b, c)) if x != y), min(len(b), len(c)))
        where = "" if same else f"; first difference at message {at + 1}: browser {b[at:at + 1]}, client {c[at:at + 1]}"
        print(f"{'match  ' if same else 'DIFFERS'} messages received in run {i + 1}: {len(b)} (browser) / {len(c)} "
              f"(client), {refs} reference(s) in the browser's{where}")
    lower = lambda h: {k.lower(): v for k, v in h.items()}  # noqa: E731
    for side in ("request", "response"):
        bh, ch = lower(browser["handshake"].get(side, {})), lower(client["handshake"].get(side, {}))
        for name in ("sec-websocket-protocol", "sec-websocket-extensions") + (("origin",) if side == "request" else ()):
            if name in bh or name in ch or side == "response":
                same = bh.get(name) == ch.get(name)
                print(f"  {'same   ' if same else 'differs'} handshake {side} {name}: browser {bh.get(name)!r}, "
                      f"client {ch.get(name)!r}")
    paths = Counter("static files" if "/static/" in p else p for p in browser["http"])
    print("HTTP requests the browser made that the client does not: "
          + ", ".join(f"{p} ×{n}" for p, n in paths.most_common()))
    print("protocol check: " + ("every BackMsg field and message sequence matched" if ok else "DIFFERENCES above"))
    return ok


# --- main -----------------------------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="an app server already running on 127.0.0.1 (default: start `streamlit run app.py`)")
    p.add_argument("--page", type=Path, default=APP,
                   help="the page served in the app's place, from the repository root (default app.py)")
    p.add_argument("--pid", type=lambda v: [int(x) for x in v.split(",")],
                   help="with --url: the server's process id, or several comma-separated, summed (default: the "
                        "Streamlit process listening on --url's port)")
    p.add_argument("--users", help="comma-separated N, one pair of slices each (default 20,40,80,120,200)")
    p.add_argument("--duration", type=float, help="seconds measured per slice, after the ramp (default 60)")
    p.add_argument("--ramp", type=float, help="seconds over which a slice's (or soak's) users open (default 15)")
    p.add_argument("--think", type=float, default=5, help="mean of the exponential think time, seconds")
    p.add_argument("--stage", default="scores", help="the view users load: ?stage=STAGE")
    p.add_argument("--run-timeout", type=float, default=60, help="seconds a run may take before it counts as lost")
    p.add_argument("--gc", choices=["config", "on", "off"], default="config",
                   help="runner.postScriptGC for the servers started here (default: as config.toml says)")
    p.add_argument("--seed", type=int, default=0, help="seeds the think times")
    p.add_argument("--quick", action="store_true", help="smoke run: N=5, 10 s slices, 3 s ramp (unless given)")
    p.add_argument("--burst", type=int, metavar="N", help="N users opening at once instead of slices")
    p.add_argument("--soak", action="store_true", help="a long run of interactions instead of slices")
    p.add_argument("--soak-users", type=int, default=40)
    p.add_argument("--interactions", type=int, default=2000)
    p.add_argument("--checkpoint", type=int, default=250, help="soak: RSS and gc figures every this many")
    p.add_argument("--soak-limit", type=float, default=0, help="soak: seconds at most (default: from the counts)")
    p.add_argument("--check-protocol", action="store_true", help="compare the client's messages with Chromium's")
    args = p.parse_args()
    defaults = {"users": "5", "duration": 10, "ramp": 3} if args.quick else \
        {"users": "20,40,80,120,200", "duration": 60, "ramp": 15}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    args.users = [int(n) for n in str(args.users).split(",") if n.strip()]
    args.page = args.page.resolve()
    if args.url:
        host = urlparse(args.url).hostname
        if host not in ("127.0.0.1", "localhost"):
            p.error("--url must point at 127.0.0.1: this tool sends traffic to loopback only")
        if args.gc != "config":
            p.error("--gc applies to servers started here, not to --url")
        if args.page != APP:
            p.error("--page applies to servers started here, not to --url")
    return args


async def main_async(args, app: Server, bare: Server) -> None:
    query = f"stage={args.stage}"
    await warm_up(app, query, args)
    if args.soak:
        await soak(app, query, args)
        return
    await warm_up(bare, "", args)
    if args.burst:
        for name, server, q, is_app in (("app", app, query, True), ("bare", bare, "", False)):
            print(f"{name}: " + await burst(server, q, args.burst, args, is_app), flush=True)
            await asyncio.sleep(2)
    else:
        await run_slices(app, bare, args)
    for s in (app, bare):
        if s.tracebacks():
            print(f"WARNING: {s.name}'s log holds {s.tracebacks()} traceback(s): {s.log}")


def main() -> int:
    args = parse_args()
    gc_flag = {"on": ["--runner.postScriptGC", "true"], "off": ["--runner.postScriptGC", "false"]}.get(args.gc, [])
    with tempfile.TemporaryDirectory(prefix="capacity_") as tmp:
        tmp = Path(tmp)
        (tmp / ".streamlit").mkdir()
        shutil.copy(CONFIG, tmp / ".streamlit" / "config.toml")
        (tmp / "bare.py").write_text(BARE)
        app = Server("app", args.page, ROOT, tmp / "app.log", gc_flag)
        bare = Server("bare", tmp / "bare.py", tmp, tmp / "bare.log", gc_flag)
        started = [bare] if args.url else [app, bare]
        if args.check_protocol:
            started = [] if args.url else [app]
        elif args.soak:
            started = [] if args.url else [app]
        if args.url:
            app.url = args.url.rstrip("/")
            app.pids = streamlit_pids(app.url, args.pid)
        try:
            for s in started:
                s.start()
            for s in started:
                s.wait_healthy()
            if args.check_protocol:
                return 0 if check_protocol(app.url, f"stage={args.stage}", max(args.run_timeout, 120)) else 1
            print(environment([app] if args.soak else [app, bare], args))
            began = time.monotonic()
            asyncio.run(main_async(args, app, bare))
            print(f"done in {time.monotonic() - began:.0f} s; load {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        finally:
            for s in started:
                s.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
