"""Heavy work, costed before it starts, so that one participant's view does not stall everyone else's.

One process serves every visitor, and only one of its threads runs Python at a time (the GIL). Four rules:
- A view is costed before anything of it is computed: the numbers of its weights and of its walk (`work`). Over
  WORK_BUDGET the page asks first (`asks`), once per session for views up to that size.
- The views shown at once hold at most HELD_BUDGET between them (`seated`): a page keeps its view (weights, walk,
  figures' operands) while it shows it, 72 MB at the caps and 136 MB with the FFN, and the process's memory is the
  demo's to share. Pages on the same weights (sizes and seed) count them once, as they share them: a room on one
  link costs one set of weights and a walk a page. A page that disconnects lets go of what it held, and so does a
  page left without a click for IDLE_S, or holding its seat for HOLD_S, once another needs the room (its next run
  takes a seat again if there is one: pages that all want the whole budget take turns of HOLD_S); a page refused is
  told how many seconds until a seat is free if nobody clicks meanwhile.
- Views over WORK_BUDGET are drawn one at a time in the process (`lane`): a room opening the largest view queues
  its draws instead of running them all at once, and ordinary views never wait for it.
- A page whose runs have used more than PACE_CPU_S of the CPU in the last PACE_WINDOW_S takes turns with the other
  such pages, one run at a time (`paced`): a few pages asking for heavy runs without pause (0.3–0.6 s each at the
  caps, under WORK_BUDGET) held the one Python thread among them and kept a new visitor's page from opening for
  half a minute. A page that runs little never waits, and a heavy page alone goes at once.
- The interpreter's GIL switch interval is Python's own (5 ms) unless MHA_GIL_SWITCH_S sets another (SWITCH_S;
  startup.install() applies it, once a process). 0.5 ms was tried for the ordinary page's sake: with four clients
  walking the caps its p95 did not move beyond the runs' noise, while a room's 200 followers took 35% longer to
  follow a change and a walk at the caps 15% longer (bench/README.md, "The eleventh session").
"""

import math
import os
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import NamedTuple

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

import mha

from . import exports, walk
from .shared import HEAVY, MB
from .strings import Text
from .x_source import has_text

WORK_BUDGET = 4_000_000  # numbers: a larger view's first draw keeps every other page waiting for the one Python thread
SWITCH_S = float(os.environ["MHA_GIL_SWITCH_S"]) if os.environ.get("MHA_GIL_SWITCH_S") else None  # bench/memory.py
# --switch and bench/classroom.py compare intervals through it; None: Python's
CLEARED = "work_cleared"  # session key: the most numbers this session has said yes to
HELD_BUDGET = 136 * MB  # bytes the views shown at once may hold: the largest one view (the caps' block), no more
HELD_FROM = 100_000  # numbers: a smaller view (under 1 MB) is not counted

IDLE_S = 60.0  # s without a click after which a page's seat may go to another page that needs the room
HOLD_S = 120.0  # s a page may keep its seat, clicks or not, before it goes to another page that needs the room
PACE_WINDOW_S, PACE_CPU_S = 3.0, 1.0  # a page whose runs used more CPU than this in the window takes turns


class Seat(NamedTuple):
    """A page's hold on the memory for views shown: what its view holds (`holds`), when it was last used
    (time.monotonic(): its last run, or the last click it sent) and since when it has held a seat without a break."""

    holds: tuple[dict, int]
    used: float
    since: float

    def free_at(self) -> float:
        """When another page that needs the room may take this seat if its page is not used meanwhile: IDLE_S after
        its last use, or HOLD_S after it was taken, whichever comes first (the red team's T5: one rerun every
        50 s kept a seat at the caps, and every larger view of the others out, for as long as a script liked)."""
        return min(self.used + IDLE_S, self.since + HOLD_S)


_paced = threading.Lock()  # taken for a run by a page over its pace (`paced`), before HEAVY if both
_spent: dict[str, deque] = {}  # session id -> (when, CPU seconds) of its recent runs, within PACE_WINDOW_S
_own: dict[str, threading.Lock] = {}  # session id -> the lock its runs take one at a time (`paced`)
_spent_lock = threading.Lock()
_seat_lock = threading.Lock()
_seats: dict[str, Seat] = {}  # session id -> its seat, for the sessions whose last full run drew a view of
# HELD_FROM numbers or more


def work(cfg: mha.AttentionConfig, stage: str) -> int:
    """The numbers a view computes: its weights and every matrix of the walk (what a download of it holds), and
    the block's feed-forward weights on the stages that run it."""
    ffn = 2 * cfg.d_model * cfg.d_ff if _ffn(stage) else 0
    return exports.size(cfg) + ffn


def _ffn(stage: str) -> bool:
    """Whether the stage runs the block's feed-forward network: the stages that draw it, and the KV cache's with a
    text, which decodes the model's next word."""
    return stage in walk.FFN_STAGES or (stage == "kv_cache" and has_text())


def asks(t: Text, numbers: int, stage: str) -> bool:
    """Whether the page asks before drawing a view of `numbers` numbers (and, if so, asks: under the stage's name,
    the question and its button). A yes holds for every view up to that size for the rest of the session."""
    if numbers <= max(WORK_BUDGET, st.session_state.get(CLEARED, 0)):
        return False
    st.markdown(f"### {walk.title(t, stage)}")
    st.info(t("budget_ask", numbers=numbers, budget=WORK_BUDGET), icon=":material/hourglass_top:")
    st.button(t("budget_draw"), key="budget_draw", type="primary", on_click=_clear, args=(numbers,))
    return True


def seated(t: Text, cfg: mha.AttentionConfig, stage: str) -> bool:
    """Whether this session may draw this view: if what the views shown at once hold, with this one in place of
    the session's last, stays within HELD_BUDGET (a view under HELD_FROM numbers always may, uncounted). Sessions
    that have disconnected are let go of first. Otherwise the page says why, with a button to try again."""
    ctx = get_script_run_ctx()
    sid = ctx.session_id if ctx else ""
    mine = holds(cfg, stage)
    needs = _held({sid: mine})
    now = time.monotonic()
    with _seat_lock:
        kept = _seats.pop(sid, None)
        if needs < 8 * HELD_FROM:
            return True
        if _fits(_seats, mine):  # its own seat again, or a seat that was free: held since it was first taken
            _seats[sid] = Seat(mine, now, kept.since if kept else now)
            return True
        for s in [s for s, seat in _seats.items() if not _connected(s) or seat.free_at() <= now]:
            del _seats[s]
        if _fits(_seats, mine):
            _seats[sid] = Seat(mine, now, now)
            return True
        held, wait = _held({s: seat.holds for s, seat in _seats.items()}), _free_in(mine, now)
    st.markdown(f"### {walk.title(t, stage)}")  # the stage it waits to draw, as a page that asks says it
    st.warning(t("budget_full", held=round(held / MB), budget=round(HELD_BUDGET / MB), needs=round(needs / MB),
                 idle=round(IDLE_S), hold=round(HOLD_S), wait=wait), icon=":material/group:")
    st.button(t("budget_retry"), key="budget_retry")
    return False


def touch(session_id: str) -> None:
    """A click of this session's page (reruns.py's wrapper calls it for every rerun a page asks for): its seat, if
    it holds one, counts as used now."""
    with _seat_lock:
        seat = _seats.get(session_id)
        if seat is not None:
            _seats[session_id] = seat._replace(used=time.monotonic())


def _fits(seats: dict[str, Seat], mine: tuple[dict, int]) -> bool:
    return _held({**{s: seat.holds for s, seat in seats.items()}, "": mine}) <= HELD_BUDGET


def _free_in(mine: tuple[dict, int], now: float) -> int:
    """Whole seconds until the seats held now leave room for `mine`, if none of their pages is used meanwhile: each
    seat may be given up at its free_at, the earliest first. Called with _seat_lock held."""
    left = dict(_seats)
    for s, seat in sorted(_seats.items(), key=lambda item: item[1].free_at()):
        del left[s]
        if _fits(left, mine):
            return max(1, math.ceil(seat.free_at() - now))
    return math.ceil(IDLE_S)


def holds(cfg: mha.AttentionConfig, stage: str) -> tuple[dict, int]:
    """What a page showing this view holds: its weights' bytes by what pages share them by (the attention's by sizes
    and seed; the FFN's, on the stages that run it, with d_ff too), and its walk's bytes, its own."""
    attention = (cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init)
    weights = {attention: 8 * (exports.size(cfg) - exports.trace_size(cfg))}
    if _ffn(stage):
        weights[(*attention, cfg.d_ff)] = 8 * 2 * cfg.d_model * cfg.d_ff
    return weights, 8 * exports.trace_size(cfg)


def _held(seats: dict) -> int:
    """The bytes these pages hold: each set of weights once, each page's walk."""
    weights = {key: size for held, _ in seats.values() for key, size in held.items()}
    return sum(weights.values()) + sum(walk for _, walk in seats.values())


def _connected(session_id: str) -> bool:
    return not Runtime.exists() or Runtime.instance().is_active_session(session_id)


def _clear(numbers: int) -> None:
    st.session_state[CLEARED] = max(numbers, st.session_state.get(CLEARED, 0))


@contextmanager
def lane(t: Text, numbers: int):
    """Draw a view over WORK_BUDGET in the heavy lane, one such draw at a time in the process (a waiting one holds
    no GIL, and the page says what it waits for); a smaller view goes at once."""
    if numbers <= WORK_BUDGET:
        yield
        return
    if not HEAVY.acquire(blocking=False):
        with st.spinner(t("budget_waiting")):
            HEAVY.acquire()
    try:
        yield
    finally:
        HEAVY.release()


def spent(session_id: str, now: float) -> float:
    """The CPU seconds this session's runs have used in the last PACE_WINDOW_S."""
    with _spent_lock:
        return sum(cpu for when, cpu in _spent.get(session_id, ()) if when >= now - PACE_WINDOW_S)


def _ran(session_id: str, cpu: float) -> None:
    """A run of this session used `cpu` seconds: noted, and every run older than the window forgotten; a session that
    has not run within it, and has disconnected, is forgotten whole (a live one keeps its lock: a run about to take
    it must find the same one)."""
    now = time.monotonic()
    with _spent_lock:
        _spent.setdefault(session_id, deque()).append((now, cpu))
        for sid, runs in list(_spent.items()):
            while runs and runs[0][0] < now - PACE_WINDOW_S:
                runs.popleft()
            if not runs:
                del _spent[sid]
                if (lock := _own.get(sid)) is not None and not lock.locked() and not _connected(sid):
                    del _own[sid]


@contextmanager
def paced(t: Text, payer: str | None = None):
    """A page's run, timed on its own thread's CPU clock, and one at a time for the page: with fast reruns
    (.streamlit/config.toml) Streamlit starts a click's run at once on a thread of its own, while the run it replaces
    stops only at its next element, so a page asking without pause ran on many threads at once. Here a run first
    waits for the page's run before it to end. A page over its pace (more than PACE_CPU_S in the last PACE_WINDOW_S)
    then runs only when no other page over its pace is running: it waits holding no GIL, and the page says what it
    waits for. The run's CPU counts towards the page's pace however it ends (a newer click stops it), or towards
    `payer`'s where one is given: a room's followers all pay the room's (classroom.payer), so that one change sent
    to many pages is paced as the one page's work it is (red team 2026-12-07 T1: 150 followers rerunning together
    took a light page's p95 from 0.07 to 33 s)."""
    ctx = get_script_run_ctx()
    sid = ctx.session_id if ctx else ""
    payer = payer or sid
    with _spent_lock:
        own = _own.setdefault(sid, threading.Lock())
    own.acquire()
    try:
        turn = spent(payer, time.monotonic()) > PACE_CPU_S
        if turn and not _paced.acquire(blocking=False):
            with st.spinner(t("budget_pace")):
                _paced.acquire()
        start = time.thread_time()
        try:
            yield
        finally:
            _ran(payer, time.thread_time() - start)
            if turn:
                _paced.release()
    finally:
        own.release()
