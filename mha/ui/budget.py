"""Heavy work, costed before it starts, so that one participant's view does not stall everyone else's.

One process serves every visitor, and only one of its threads runs Python at a time (the GIL). Three rules:
- A view is costed before anything of it is computed: the numbers of its weights and of its walk (`work`). Over
  WORK_BUDGET the page asks first (`asks`), once per session for views up to that size.
- Views over WORK_BUDGET are drawn one at a time in the process (`lane`): a room opening the largest view queues
  its draws instead of running them all at once, and ordinary views never wait for it.
- The interpreter hands the GIL to a waiting thread every SWITCH_S seconds (sys.setswitchinterval; Python's
  default is 5 ms): a run that waits on the network, a lock or numpy gets it back that much sooner from a heavy
  draw, which it asks for again dozens of times a run.
"""

import sys
import threading
from contextlib import contextmanager

import streamlit as st

import mha

from . import exports
from . import settings as S
from .strings import Text

WORK_BUDGET = 4_000_000  # numbers: above, a view's first draw costs the server's one Python thread over a second
SWITCH_S = 0.0005
CLEARED = "work_cleared"  # session key: the most numbers this session has said yes to

sys.setswitchinterval(SWITCH_S)
_lane = threading.Lock()


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
