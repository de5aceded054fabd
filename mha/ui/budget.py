"""Heavy work, costed before it starts, so that one participant's view does not stall everyone else's.

One process serves every visitor, and only one of its threads runs Python at a time (the GIL). Four rules:
- A view is costed before anything of it is computed: the numbers of its weights and of its walk (`work`). Over
  WORK_BUDGET the page asks first (`asks`), once per session for views up to that size.
- At most SEATS different views over WORK_BUDGET are shown at a time (`seated`): a page keeps its view (weights,
  trace, figures' operands) while it shows it, about 100 MB at the caps, and the process's memory is the demo's to
  share. Pages on the same weights (sizes and seed) share a seat, as they share the weights: a room on one link
  costs little more than one page. A seat is free once no connected session shows its view.
- Views over WORK_BUDGET are drawn one at a time in the process (`lane`): a room opening the largest view queues
  its draws instead of running them all at once, and ordinary views never wait for it.
- The interpreter hands the GIL to a waiting thread every SWITCH_S seconds (sys.setswitchinterval; Python's
  default is 5 ms): a run that waits on the network, a lock or numpy gets it back that much sooner from a heavy
  draw, which it asks for again dozens of times a run.
"""

import os
import sys
import threading
from contextlib import contextmanager

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

import mha

from . import exports
from . import settings as S
from .strings import Text

WORK_BUDGET = 4_000_000  # numbers: above, a view's first draw costs the server's one Python thread over a second
SWITCH_S = float(os.environ.get("MHA_GIL_SWITCH_S", "0.0005"))  # bench/memory.py --switch compares values
CLEARED = "work_cleared"  # session key: the most numbers this session has said yes to
SEATS = 2  # views over WORK_BUDGET (weights apart) that may be shown at once

sys.setswitchinterval(SWITCH_S)
_lane = threading.Lock()
_seat_lock = threading.Lock()
_seats: dict[str, tuple] = {}  # session id -> the weights of the view over WORK_BUDGET its last full run drew


def work(cfg: mha.AttentionConfig, stage: str) -> int:
    """The numbers a view computes: its weights and every matrix of the walk (what a download of it holds), and
    the block's feed-forward weights on the stages that draw it."""
    ffn = 2 * cfg.d_model * cfg.d_ff if stage in S.FFN_STAGES else 0
    return exports.size(cfg) + ffn


def asks(t: Text, numbers: int, stage: str) -> bool:
    """Whether the page asks before drawing a view of `numbers` numbers (and, if so, asks: under the stage's name,
    the question and its button). A yes holds for every view up to that size for the rest of the session."""
    if numbers <= max(WORK_BUDGET, st.session_state.get(CLEARED, 0)):
        return False
    st.markdown(f"### {t(f'stage_{stage}')}")
    st.info(t("budget_ask", numbers=numbers, budget=WORK_BUDGET), icon=":material/hourglass_top:")
    st.button(t("budget_draw"), key="budget_draw", type="primary", on_click=_clear, args=(numbers,))
    return True


def seated(t: Text, cfg: mha.AttentionConfig, numbers: int) -> bool:
    """Whether this session may draw a view of these sizes and `numbers` numbers: at once within WORK_BUDGET (and
    the session leaves its seat, if it had one), else if its weights are seated already or a seat is free.
    Otherwise the page says why, with a button to try again."""
    ctx = get_script_run_ctx()
    sid = ctx.session_id if ctx else ""
    weights = (cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.d_ff, cfg.seed, cfg.init)
    with _seat_lock:
        if numbers <= WORK_BUDGET:
            _seats.pop(sid, None)
            return True
        others = {s: w for s, w in _seats.items() if s != sid}
        if weights not in others.values() and len(set(others.values())) >= SEATS:
            for s in [s for s in others if not _connected(s)]:
                del _seats[s], others[s]
        if weights in others.values() or len(set(others.values())) < SEATS:
            _seats[sid] = weights
            return True
    st.warning(t("budget_full", seats=SEATS), icon=":material/group:")
    st.button(t("budget_retry"), key="budget_retry")
    return False


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
    if not _lane.acquire(blocking=False):
        with st.spinner(t("budget_waiting")):
            _lane.acquire()
    try:
        yield
    finally:
        _lane.release()
