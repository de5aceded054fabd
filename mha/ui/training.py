""""Train it again": the trained model retrained with another seed, from the browser.

A hosted demo has one process for a whole classroom, and a training run takes about a minute of one
core, so one run at a time per process: a second request while one runs is refused with a message, not
queued. Finished models are kept for every session (the last MAX_KEPT seeds), so a seed trained once opens
at once for anyone.
"""

import threading
from collections import OrderedDict

import numpy as np

from mha import train

STEPS = train.STEPS  # the shipped run's steps (tests make this smaller)
MAX_KEPT = 4  # retrained models kept in this process: ~1 MB each with their snapshots
N_EVAL = 200  # fresh sequences for the accuracy shown after training

_busy = threading.Lock()
_kept: "OrderedDict[int, train.Trained]" = OrderedDict()
_kept_lock = threading.Lock()


def model(seed: int | None) -> "train.Trained | None":
    """The model retrained with this seed, if this process has it."""
    if seed is None:
        return None
    with _kept_lock:
        found = _kept.get(seed)
        if found is not None:
            _kept.move_to_end(seed)
        return found


def retrain(seed: int, progress) -> "train.Trained | None":
    """Train the shipped configuration with `seed` (progress(fraction) as it goes) and keep it; None when
    another run holds the process's one training slot."""
    if (done := model(seed)) is not None:
        return done
    if not _busy.acquire(blocking=False):
        return None
    try:
        shipped = train.load_trained().meta  # the task and sizes to train again, as shipped
        trained, snaps, metrics = train.train_shipped(
            seed=seed, steps=STEPS, n_eval=N_EVAL, symbols=len(shipped["alphabet"]),
            distinct=shipped.get("distinct", True), progress=lambda step, loss: progress(step / STEPS))
        vocab = list(shipped["vocab"])
        meta = dict(shipped, seed=seed, steps=STEPS, **metrics)
        meta["snapshots"] = [rec for _, _, rec in snaps]
        snapshots = [(step, rec["loss"], train.model_of(params),
                      {k: np.array(rec[k]) for k in ("previous_token", "induction")})
                     for step, params, rec in snaps]
        result = train.Trained(trained, vocab, meta, snapshots)
    finally:
        _busy.release()
    with _kept_lock:
        _kept[seed] = result
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return result
