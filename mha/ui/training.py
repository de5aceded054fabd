""""Train it again": the trained model retrained with another seed, from the browser.

A hosted demo has one process for a whole classroom, and a training run takes about a minute of one core, so:
- one run at a time per process, in a thread of its own: it belongs to the process, not to the script run that
  asked for it, so a second click (or any rerun) of the page that started it neither cancels nor restarts it;
- the trainer rests REST_S between runs, whoever asked: no client can keep a core training without pause, and a
  refused page says how many seconds are left, counted from the clock (a run's own time left, from its progress);
- finished models are kept for every session (the last MAX_KEPT seeds), so a seed trained once opens at once.
"""

import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from mha import train

STEPS = train.STEPS  # the shipped run's steps (tests make this smaller)
MAX_KEPT = 4  # retrained models kept in this process: ~1 MB each with their snapshots
N_EVAL = 200  # fresh sequences for the accuracy shown after training
REST_S = 60.0  # s the trainer rests after a run before it starts the next (about one run's length: half a core)

_kept: "OrderedDict[int, train.Trained]" = OrderedDict()
_lock = threading.Lock()  # guards _kept, _job and _rested_at


@dataclass
class Job:
    """A run: who asked (a page's own id, not Streamlit's session id), its seed, how far it is, and its model or
    the error it met once it ended."""

    seed: int
    owner: str
    started: float
    shipped: dict  # the shipped model's meta: the task and sizes to train again
    fraction: float = 0.0
    result: "train.Trained | None" = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def left_s(self, now: float) -> float:
        """Seconds this run still needs, from its pace so far (a minute before it has any)."""
        if self.fraction <= 0.02:
            return 60.0
        return (now - self.started) * (1 - self.fraction) / self.fraction


_job: Job | None = None  # the process's run: running, or ended and not yet collected by its page
_rested_at = 0.0  # time.monotonic() from which the next run may start


def new_owner() -> str:
    return uuid.uuid4().hex


def model(seed: int | None) -> "train.Trained | None":
    """The model retrained with this seed, if this process has it."""
    if seed is None:
        return None
    with _lock:
        found = _kept.get(seed)
        if found is not None:
            _kept.move_to_end(seed)
        return found


def start(seed: int, owner: str, shipped: dict) -> tuple[str, float]:
    """Ask for a run of `seed` for the page `owner`, trained as the model whose meta is `shipped` (read by the page
    from its cached copy: the run's thread reads no files, since numpy parses each .npy header with `ast`, and
    CPython 3.11 counts the depth of every thread's `ast` work in one shared counter, so a parse in this thread
    while a script run parses its own can raise SystemError there); ("kept", 0) the model is here already;
    ("started", 0) or ("yours", 0) a run of this page's runs now (watch it with `job`); ("busy", s) another page's
    run has about s seconds left; ("resting", s) the trainer rests s more seconds."""
    global _job
    if model(seed) is not None:
        return "kept", 0.0
    now = time.monotonic()
    with _lock:
        if _job is not None and not _job.done.is_set():
            if _job.owner == owner:
                return "yours", 0.0
            return "busy", _job.left_s(now) + REST_S
        if now < _rested_at:
            return "resting", _rested_at - now
        _job = Job(seed, owner, now, shipped)
        job = _job
    threading.Thread(target=_run, args=(job,), name=f"retrain-{seed}", daemon=True).start()
    return "started", 0.0


def job(owner: str) -> Job | None:
    """This page's run, running or ended and not collected yet."""
    with _lock:
        return _job if _job is not None and _job.owner == owner else None


def collect(owner: str) -> Job | None:
    """This page's ended run, handed over once: the process then forgets it."""
    global _job
    with _lock:
        if _job is None or _job.owner != owner or not _job.done.is_set():
            return None
        ended, _job = _job, None
        return ended


def _run(job: Job) -> None:
    global _rested_at
    try:
        job.result = _train(job)
        with _lock:
            _kept[job.seed] = job.result
            while len(_kept) > MAX_KEPT:
                _kept.popitem(last=False)
    except Exception as e:  # noqa: BLE001 - said on the asking page; the process goes on
        job.error = f"{type(e).__name__}: {e}"
    finally:
        with _lock:
            _rested_at = time.monotonic() + REST_S
        job.done.set()


def _train(job: Job) -> "train.Trained":
    """The shipped configuration trained with the job's seed, as shipped otherwise."""
    shipped = job.shipped

    def progress(step, loss):
        job.fraction = step / STEPS

    trained, snaps, metrics = train.train_shipped(
        seed=job.seed, steps=STEPS, n_eval=N_EVAL, symbols=len(shipped["alphabet"]),
        distinct=shipped.get("distinct", True), progress=progress)
    vocab = list(shipped["vocab"])
    meta = dict(shipped, seed=job.seed, steps=STEPS, **metrics)
    meta["snapshots"] = [rec for _, _, rec in snaps]
    snapshots = [(step, rec["loss"], train.model_of(params),
                  {k: np.array(rec[k]) for k in ("previous_token", "induction")})
                 for step, params, rec in snaps]
    return train.Trained(trained, vocab, meta, snapshots)
