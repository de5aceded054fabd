"""The GPT-2 checkpoints a server offers (issue 45): the folders `MHA_MODELS` lists, each read when a page first
asks for it and then shared read-only by every session, within a byte budget (`MHA_MODEL_MB`). A checkpoint whose
numbers do not fit is never read: the page says how much it needs and what the server allows.

MHA_MODELS holds folders separated by the system's path separator (":" on Linux). A folder with a config.json is a
checkpoint, named by its folder; a folder without one offers each checkpoint folder directly inside it. Nothing is
downloaded unless MHA_HUB names a folder for it (hub.py): the hosted demo sets neither and offers none."""

import hashlib
import math
import os
import re
import tempfile
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

import mha

from .shared import MB, Shared, footprint

FOLDERS, BUDGET, HUB = "MHA_MODELS", "MHA_MODEL_MB", "MHA_HUB"
BUDGET_MB = 48  # with uploads.PROCESS_MAX, the smallest host's 690 MB less the app's 620 (README, Memory)
NAME_MOST = 40  # characters of a checkpoint's name in a link (`ckpt=`): its folder's
NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{NAME_MOST - 1}}}")
HALF, PROBES = 20, 8  # the induction probe: 8 sequences of 20 random tokens, then the same 20 again
# The most layers and heads a checkpoint read here may have: GPT-2 medium's 24 layers of 16 heads (Radford et al.,
# 2019), the largest GPT-2 whose float64 weights (2.8 GB) one server here could hold. The heads stage draws every
# head and runs the probe through every layer, so a toy model of hundreds of thin layers, which fits any byte budget,
# would still cost a page seconds of the shared CPU and gigabytes while it draws.
MAX_LAYERS, MAX_HEADS = 24, 384
_held = Shared(BUDGET_MB * MB)


def budget() -> int:
    """The bytes checkpoints may hold in this process: MHA_MODEL_MB (megabytes), else BUDGET_MB."""
    try:
        mb = float(os.environ.get(BUDGET, ""))
    except ValueError:
        mb = BUDGET_MB
    return int(mb * MB) if math.isfinite(mb) and mb >= 0 else BUDGET_MB * MB


def offered() -> dict[str, Path]:
    """name -> folder, for every checkpoint MHA_MODELS offers, in its order, then those fetched into MHA_HUB (hub.py)
    (a second folder of the same name, or a name a link could not carry, is left out)."""
    listed = [os.environ.get(FOLDERS, ""), os.environ.get(HUB, "").strip()]
    return dict(_offered(os.pathsep.join(filter(None, listed))))


def forget_offered() -> None:
    """A checkpoint was added to a folder (hub.fetch): the next offered() looks again."""
    _offered.cache_clear()


@lru_cache(maxsize=4)
def _offered(listed: str) -> tuple[tuple[str, Path], ...]:
    found: dict[str, Path] = {}
    for entry in filter(None, listed.split(os.pathsep)):
        folder = Path(entry).expanduser()
        inside = [folder] if (folder / "config.json").is_file() else (
            sorted(p for p in folder.iterdir() if (p / "config.json").is_file()) if folder.is_dir() else [])
        for path in inside:
            if NAME.fullmatch(path.name) and path.name not in found:
                found[path.name] = path
    return tuple(found.items())


UPLOAD_FILES = ("config.json", "model.safetensors", "tokenizer.json", "vocab.json", "merges.txt")
UPLOAD = ":upload"  # the picker's value for a tab's own upload: no folder's name (NAME has no colon), so no link's


UPLOAD_MB = 1  # the server's own limit on an upload (.streamlit/config.toml, maxUploadSize): a toy model's size


def read_upload(files: list[tuple[str, bytes]]) -> tuple[mha.GPT2, int]:
    """A checkpoint from a page's uploaded files (each (name, bytes); the server's upload limit has bounded them),
    and the numbers it holds: written to a folder of its own, read as load_gpt2 reads a folder (TooLarge first if
    it does not fit the checkpoints' budget), and named by a digest of the files, so that two tabs with the same
    upload share its probe. CheckpointError naming a file it does not read or a name given twice, or what load_gpt2
    finds wrong; nothing of it is kept on the disk."""
    names = [name for name, _ in files]
    if other := [n for n in names if n not in UPLOAD_FILES]:
        raise mha.CheckpointError(f"{other[0]}: not a file of a GPT-2 checkpoint ({', '.join(UPLOAD_FILES)}).",
                                  "not_a_file", file=other[0], files=", ".join(UPLOAD_FILES))
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise mha.CheckpointError(f"{twice} is given twice.", "twice", file=twice)
    digest = hashlib.sha256(b"".join(hashlib.sha256(n.encode() + b"\0" + data).digest()
                                     for n, data in sorted(files))).hexdigest()[:12]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "upload"
        folder.mkdir()
        for name, data in files:
            (folder / name).write_bytes(data)
        if (nbytes := _bytes(folder)) > budget():
            raise TooLarge("upload", nbytes, budget(), fitting(budget()))
        numbers = sized(folder)
        m = mha.load_gpt2(folder)
    return replace(m, name=f"{UPLOAD}-{digest}"), numbers


def need(name: str) -> int:
    """The bytes checkpoint `name` takes here, from its config.json alone: its numbers (float64), and one run on the
    most tokens a page gives it (the run's logits and probabilities are tokens × vocabulary each: a 1 MB upload of a
    vocabulary of 495,000 made a run of 1 GB, red team 2026-12-07 T2)."""
    return _bytes(offered()[name])


def _bytes(folder: Path) -> int:
    from .settings import LIMITS  # here: settings reads the checkpoints a server offers

    config, _ = mha.checkpoint_numbers(folder)
    d, heads = config["n_embd"], config["n_head"]
    sizes = dict(layers=config["n_layer"], heads=heads, d=d, d_k=config.get("mha_d_k") or d // heads,
                 d_v=config.get("mha_d_v") or d // heads, d_ff=config.get("n_inner") or 4 * d,
                 vocab=config["vocab_size"])
    return 8 * sized(folder) + run_bytes(min(config["n_positions"], LIMITS["n_tokens"]), **sizes)


def sized(folder: Path) -> int:
    """The numbers of the checkpoint in `folder`, from its config.json alone; CheckpointError if it has more layers
    or heads than MAX_LAYERS and MAX_HEADS."""
    config, numbers = mha.checkpoint_numbers(folder)
    layers, heads = config["n_layer"], config["n_layer"] * config["n_head"]
    if layers > MAX_LAYERS or heads > MAX_HEADS:
        raise mha.CheckpointError(f"{layers} layers and {heads} heads; this server reads up to {MAX_LAYERS} layers and "
                                  f"{MAX_HEADS} heads.", "too_deep", layers=layers, heads=heads,
                                  most_layers=MAX_LAYERS, most_heads=MAX_HEADS)
    return numbers


def run_bytes(n: int, *, layers: int, heads: int, d: int, d_k: int, d_v: int, d_ff: int, vocab: int) -> int:
    """About the bytes one run on n tokens holds (model_forward's trace): each layer's four n × n maps a head and the
    mask, its Q, K, V, H and Concat, its residual stream and feed-forward rows; the logits and probabilities, n ×
    vocab each (within 10%: tests/app/test_checkpoints.py measures it)."""
    layer = (4 * heads + 1) * n * n + heads * n * (2 * d_k + 3 * d_v) + 5 * n * d + 2 * n * d_ff
    return 8 * (layers * layer + 2 * n * d + 2 * n * vocab + 2 * n)


def megabytes(nbytes: int) -> str:
    """A size in MB as the page writes it: 995, 12.4, 0.21 (two significant digits below 10 MB)."""
    mb = nbytes / MB
    return f"{mb:,.0f}" if mb >= 100 else f"{mb:.3g}" if mb >= 10 else f"{mb:.2g}"


class TooLarge(mha.CheckpointError):
    """A checkpoint whose numbers need more than this server keeps: how much, the budget, and the offered ones that
    fit (the page says it in its language)."""

    def __init__(self, name: str, nbytes: int, allowed: int, fits: list[str]):
        super().__init__(f"{name} needs {megabytes(nbytes)} MB here (float64) and this server keeps checkpoints up to "
                         f"{megabytes(allowed)} MB ({BUDGET}).")
        self.name, self.nbytes, self.allowed, self.fits = name, nbytes, allowed, fits


def fitting(allowed: int) -> list[str]:
    """The offered checkpoints whose numbers fit `allowed` bytes (those whose config.json can be read)."""
    out = []
    for name in offered():
        try:
            if need(name) <= allowed:
                out.append(name)
        except mha.CheckpointError:
            continue
    return out


def load(name: str) -> mha.GPT2:
    """Checkpoint `name`, read once and shared (TooLarge if it does not fit this server's budget, CheckpointError
    naming what else is wrong with it)."""
    found = _held.peek(name)
    if found is not None:
        return found
    nbytes, allowed = need(name), budget()
    if nbytes > allowed:
        raise TooLarge(name, nbytes, allowed, fitting(allowed))
    _held.budget = allowed
    _held.room(nbytes)
    return _held.get(name, lambda: mha.load_gpt2(offered()[name]))


class ProbeTooLarge(mha.CheckpointError):
    """A checkpoint whose probe's runs, beside its weights, do not fit the budget: the bytes each needs, and the
    budget (the page says it, and draws no scores or knock-outs)."""

    def __init__(self, probe: int, weights: int, allowed: int):
        super().__init__(f"the probe needs {megabytes(probe)} MB beside the weights' {megabytes(weights)} MB, and "
                         f"checkpoints may hold {megabytes(allowed)} MB ({BUDGET}).")
        self.probe, self.weights, self.allowed = probe, weights, allowed


def probe_bytes(w: mha.ModelWeights) -> int:
    """About the bytes probe() holds for a model of these sizes, worked out before any of it is run: PROBES runs of
    2·HALF tokens (fewer where its context is short)."""
    a = w.blocks[0].attn
    return PROBES * run_bytes(2 * min(HALF, w.n_ctx // 2, w.vocab_size), layers=w.n_layers, heads=a.n_heads,
                              d=w.d_model, d_k=a.d_k, d_v=a.d_v, d_ff=w.blocks[0].w_fc.shape[1], vocab=w.vocab_size)


def probe(m: mha.GPT2) -> tuple[np.ndarray, tuple[mha.ModelTrace, ...], tuple[np.ndarray, np.ndarray]]:
    """The induction probe on model m: PROBES sequences of random tokens from its whole vocabulary, HALF of them
    (fewer where its context is short) then the same again; its runs on them (kept whole: a knock-out resumes from
    them); each head's mean previous-token and induction score, (layers, heads) each. Held with the checkpoints,
    within their budget: ProbeTooLarge, before any of it is run, if it cannot be held beside the model's weights
    (else each run of the page would make it again)."""
    held = _held.peek(("probe", m.name))
    if held is not None:
        return held
    weights, allowed = sum(footprint(m.weights).values()), budget()
    if (need := probe_bytes(m.weights)) + weights > allowed:
        raise ProbeTooLarge(need, weights, allowed)

    def make():
        half = min(HALF, m.weights.n_ctx // 2, m.weights.vocab_size)
        seqs = mha.repeated_tokens(m.weights.vocab_size, half, PROBES)
        runs = tuple(mha.model_forward(s, m.weights) for s in seqs)
        return seqs, runs, mha.head_scores(runs)

    return _held.get(("probe", m.name), make)


def knocked_score(m: mha.GPT2, knocked: tuple[tuple[int, int], ...]) -> mha.TaskScore:
    """The second copy's accuracy and loss on the probe with `knocked` heads, each run resumed from the probe's own
    at the first knocked layer."""
    seqs, runs, _ = probe(m)
    return _held.get(("score", m.name, knocked), lambda: mha.task_score(m.weights, seqs, knocked, traces=runs))


def piece(b: bytes) -> tuple[str, bool]:
    """A BPE token's bytes as a reader sees them: its text with a space as ␣, or, where the bytes are not whole
    UTF-8 (part of a character), their hex; and whether it is whole."""
    try:
        return b.decode("utf-8").replace(" ", "␣"), True
    except UnicodeDecodeError:
        return " ".join(f"{c:02x}" for c in b), False


def labels(m: mha.GPT2, ids) -> tuple[str, ...]:
    """Token ids as the page names them (piece)."""
    return tuple(piece(m.tokenizer.piece(int(i)))[0] for i in ids)


def vocabulary(m: mha.GPT2) -> tuple[str, ...]:
    """Every token of m's vocabulary as the page names it, by id (the logits' columns): held with the checkpoints,
    within their budget (GPT-2's 50,257 names take about 3 MB)."""
    return _held.get(("vocab", m.name), lambda: labels(m, range(m.weights.vocab_size)))


def run(m: mha.GPT2, ids: tuple[int, ...]) -> mha.ModelTrace:
    """Model m on the page's token ids."""
    return _held.get(("run", m.name, ids), lambda: mha.model_forward(np.array(ids, dtype=np.int64), m.weights))
