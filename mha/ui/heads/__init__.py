"""The heads stage's parts beyond the patterns, with the trained model (S.HEADS_PARTS): heads knocked out
(`knock`), what each head writes into the logits (`writes`), its OV and QK circuits (`circuits`). What they share is
here: the heads' names and measured roles, the held-out sequences and the scores on them, and the page's sequence
run with heads knocked out, each made once per process for a model and shared read-only by every session."""

import itertools
import threading
import weakref
from functools import lru_cache

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.analysis import ROLE_FLOOR
from mha.figures.ticks import token_ticks
from mha.train import Task, held_out

from .. import settings as S
from ..chart import chart
from ..shared import MB, Shared, footprint
from ..strings import Text
from ..view import View, first_screen, name


def s_maps(v: View, tr: mha.Trace, key: str, before: mha.Trace | None = None, layer: int | None = None,
           first: int | None = None) -> None:
    """Every head's S of one attention trace side by side, masked cells as gaps, rows and keys named by token. With
    `before`, each head's S there and in tr in one row, titled as the model with every head and with heads knocked
    out. With `layer` (from 1), each head is named as the knock-out part names it, layer.head: S₂.₁, not S₁ (audit
    2026-12-04 #16). `first`: the view's first figure, under that many rows of controls (view.first_screen)."""
    t, h = v.t, len(tr.probs)
    shown = [(tr, "")] if before is None else [(before, t("knock_s_before")), (tr, t("knock_s_after"))]
    head = (lambda i: str(i + 1)) if layer is None else (lambda i: f"{layer}.{i + 1}")
    probs = [F.Mat(one.probs[i], f"{name('S', head(i)).html}{f' · {said}' if said else ''}", "probs", t("token"),
                   t("key_pos"), np.isneginf(one.masked[i])) for i in range(h) for one, said in shown]
    axes = [f"{a}axis{i + 1 if i else ''}" for i in range(len(probs)) for a in "xy"]
    look = v.named if first is None else first_screen(v.named, first)
    fig = F.grid_figure(probs, text=v.text, words=v.words, look=look, per_row=None if before is None else 2)
    chart(token_ticks(fig, v.tokens, axes, v.look), key=key)
    if any(trace.get("showscale") for trace in fig.to_dict()["data"]):  # cells too small for numbers: a colour key
        st.caption(t("heads_colour_only"))


def pairs(names) -> tuple[tuple[int, int], ...]:
    """`knock` names ("2.1", layer.head from 1) as the core's (layer, head) pairs from 0, in order."""
    return tuple(sorted(S.knocked_pairs(names)))


def role_of(m: "mha.train.Trained", name: str) -> str:
    """The role a head earned on the model's own probe sequences (its meta's mean scores): "previous", "induction",
    or "none" (neither score reaches ROLE_FLOOR)."""
    (layer, head), = S.knocked_pairs([name])
    prev, induction = (float(np.array(m.meta[k])[layer, head]) for k in ("previous_token", "induction"))
    if max(prev, induction) < ROLE_FLOOR:
        return "none"
    return "previous" if prev >= induction else "induction"


def label(t: Text, m: "mha.train.Trained", name: str) -> str:
    """A head as the controls name it: its layer.head and its measured role."""
    return t("knock_head", name=name, role=t(f"knock_role_{role_of(m, name)}"))


@lru_cache(maxsize=1)
def sequences() -> tuple[np.ndarray, ...]:
    """The held-out task sequences (mha.train.held_out), made once per process."""
    return tuple(held_out())


# The scores, traces and timelines below, for every model a page shows (the shipped one, and those the trainer keeps):
# a trace of 16 tokens is about 117 KB, a score and a timeline under 1 KB (each counted as 1 KB here, so that they
# too leave once the budget is full).
HEADS_BUDGET = 8 * MB
HELD = Shared(HEADS_BUDGET, size=lambda v: max(sum(footprint(v).values()), 1024))
_numbers: "weakref.WeakKeyDictionary[mha.train.Trained, int]" = weakref.WeakKeyDictionary()
_counted = itertools.count()
_lock = threading.Lock()


def _number(m: "mha.train.Trained") -> int:
    """A number of m's own, never given to another model: the caches' keys hold it, not m, so a model the trainer
    lets go of and no page shows leaves the process (its values stay until the budget pushes them out)."""
    with _lock:
        if m not in _numbers:
            _numbers[m] = next(_counted)
        return _numbers[m]


def score(m: "mha.train.Trained", knocked: tuple[tuple[int, int], ...]) -> mha.TaskScore:
    """The model's second-copy accuracy and loss on the held-out sequences with `knocked` heads."""
    return HELD.get(("score", _number(m), knocked), lambda: mha.task_score(m.weights, sequences(), knocked))


def knocked_trace(m: "mha.train.Trained", ids: tuple[int, ...],
                  knocked: tuple[tuple[int, int], ...]) -> mha.ModelTrace:
    """The model on the page's sequence with `knocked` heads."""
    return HELD.get(("trace", _number(m), ids, knocked),
                    lambda: mha.model_forward(np.array(ids, dtype=np.int64), m.weights, knocked=knocked))


PROBE = 32  # sequences of the timeline's probe on which each snapshot's accuracy is measured, knocked and not


def timeline(m: "mha.train.Trained") -> tuple[list[float], list[float], list[float]]:
    """The training timeline's three curves (_timeline), made once per model while the budget holds them."""
    return HELD.get(("timeline", _number(m)), lambda: _timeline(m))


def _timeline(m: "mha.train.Trained") -> tuple[list[float], list[float], list[float]]:
    """At each snapshot: the accuracy with every head, without the last layer's heads (the induction heads'
    layer), and the last layer's best induction score; on the first PROBE of the sequences the loss is measured on
    (the model's task at L = 6, seed [seed, 13]). Made once per model kept (about a second or two)."""
    meta = m.meta
    probe = Task(tuple(meta["alphabet"]), (6, 6), meta.get("distinct", True)).sample(
        np.random.default_rng([meta["seed"], 13]), PROBE)
    last = m.weights.n_layers - 1
    gone = tuple((last, h) for h in range(m.weights.blocks[last].attn.n_heads))
    whole, knocked, induction = [], [], []
    for _, _, weights, scores in m.snapshots:
        whole.append(mha.task_score(weights, probe).accuracy)
        knocked.append(mha.task_score(weights, probe, gone).accuracy)
        induction.append(float(np.max(scores["induction"][last])))
    return whole, knocked, induction


def earlier_next(ids: np.ndarray) -> list[int | None]:
    """For each position i: the token that followed the latest earlier copy of ids[i] (what an induction head
    looks for and copies), or None where ids[i] has not come before with a token after it."""
    out = []
    for i, tok in enumerate(ids):
        before = [j for j in range(i) if ids[j] == tok]
        out.append(int(ids[before[-1] + 1]) if before else None)
    return out
