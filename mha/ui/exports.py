"""The current view's whole trace as .npz, .json, or a .zip of one .csv per matrix."""

import io
import json
import zipfile
from dataclasses import replace

import numpy as np

import mha

from .shared import digest

MAX_VALUES = 2_000_000  # numbers in one export (a JSON of that many is ~40 MB): the hosted demo's cap
READY_MAX = 10_000  # numbers: a view up to this size has its files ready (cheap to write); larger ones on request
NOTE = "QK^T_masked holds -inf above the diagonal, written here as null."


def size(cfg: mha.AttentionConfig) -> int:
    """How many numbers an export of this view holds."""
    d, k, v, h = cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads
    return h * d * (2 * k + v) + h * v * d + trace_size(cfg)


def trace_size(cfg: mha.AttentionConfig) -> int:
    """How many numbers a trace of this view holds (X, Q, K, V, the four n×n steps, H, Concat, Y)."""
    n, d, k, v, h = cfg.n_tokens, cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads
    return n * d * 2 + h * n * (2 * k + v) + 4 * h * n * n + h * n * v + n * h * v


def arrays(x: np.ndarray, w: mha.Weights) -> dict[str, np.ndarray]:
    """Every matrix of the walk, named as in the post; per-head ones keep the head axis first."""
    t = mha.forward(x, w)
    return {"X": t.x, "W_Q": w.w_q, "W_K": w.w_k, "W_V": w.w_v, "W_O": w.w_o, "Q": t.q, "K": t.k, "V": t.v,
            "QK^T": t.scores, "QK^T_scaled": t.scaled, "QK^T_masked": t.masked, "S": t.probs, "H": t.heads,
            "Concat": t.concat, "Y": t.y}


def cache_view(cfg: mha.AttentionConfig, x: np.ndarray, added) -> tuple[mha.AttentionConfig, np.ndarray]:
    """The KV-cache stage's view: X followed by the tokens added to the cache (those that fit d_model, as the stage
    keeps them), with n counting them all, so that its files hold the cache the page shows."""
    rows = [np.asarray(r, float) for r in added if len(r) == cfg.d_model]
    if not rows:
        return cfg, x
    return replace(cfg, n_tokens=len(x) + len(rows)), np.vstack([x, *rows])


def stem(cfg: mha.AttentionConfig) -> str:
    return f"mha-trace-{cfg.n_tokens}x{cfg.d_model}x{cfg.d_k}x{cfg.d_v}x{cfg.n_heads}-seed{cfg.seed}"


def files(x: np.ndarray, w: mha.Weights, cfg: mha.AttentionConfig) -> dict[str, bytes]:
    """The three downloads of this view, the trace computed once: {"npz": …, "json": …, "csv": …}."""
    a = arrays(x, w)
    return {"npz": _npz(a), "json": _json(a, cfg), "csv": _csv_zip(a)}


def view_key(x: np.ndarray, w: mha.Weights, cfg: mha.AttentionConfig) -> tuple:
    """What a view's files depend on: the sizes and seed, X and the weights (the trained model's two layers share
    sizes and X)."""
    return cfg, digest(x, w.w_q, w.w_k, w.w_v, w.w_o)


def _npz(a: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **a)
    return buffer.getvalue()


def _json(a: dict[str, np.ndarray], cfg: mha.AttentionConfig) -> bytes:
    """{"config": …, "note": …, "matrices": {name: {"shape": …, "values": nested lists}}}, the text json.dumps gives
    the whole, written a matrix (a head) at a time: the whole as lists of Python floats holds several times the
    file. JSON has no −∞: masked cells are written as null, as the note in the file says."""
    head = {"config": {k: getattr(cfg, k) for k in ("n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed", "init")},
            "note": NOTE}
    out = io.BytesIO()
    out.write(json.dumps(head)[:-1].encode() + b', "matrices": {')
    for i, (name, m) in enumerate(a.items()):
        out.write(f'{", " if i else ""}{json.dumps(name)}: {{"shape": {json.dumps(list(m.shape))}, "values": '.encode())
        _json_values(m, out)
        out.write(b"}")
    out.write(b"}}")
    return out.getvalue()


def _json_values(m: np.ndarray, out: io.BytesIO) -> None:
    """m as JSON's nested lists, ±∞ as null: a matrix in one piece, a stack of them one by one."""
    if m.ndim <= 2:
        text = json.dumps(np.where(np.isfinite(m), m, np.nan).tolist(), allow_nan=True)
        out.write(text.replace("NaN", "null").encode())
        return
    out.write(b"[")
    for k, part in enumerate(m):
        out.write(b", " if k else b"")
        _json_values(part, out)
    out.write(b"]")


# What the rows and the columns of each matrix count: the row-label column's header, then the labels' prefix.
AXES = {"token": "t", "feature": "f", "query": "q", "key": "k", "d_k": "dk", "d_v": "dv", "concat": "c"}
LABELS = {"X": ("token", "feature"), "W_Q": ("feature", "d_k"), "W_K": ("feature", "d_k"), "W_V": ("feature", "d_v"),
          "W_O": ("concat", "feature"), "Q": ("token", "d_k"), "K": ("token", "d_k"), "V": ("token", "d_v"),
          "QK^T": ("query", "key"), "QK^T_scaled": ("query", "key"), "QK^T_masked": ("query", "key"),
          "S": ("query", "key"), "H": ("token", "d_v"), "Concat": ("token", "concat"), "Y": ("token", "feature")}


FIXED_TIME = (2024, 1, 1, 0, 0, 0)  # every entry dated alike: the same view gives the same bytes, whatever the clock


def _csv_zip(a: dict[str, np.ndarray]) -> bytes:
    """One .csv per matrix; a per-head array gives one file per head (Q_head1.csv, …).

    Each file has a header row (the rows' axis, then column labels: f1… for features, k1… for keys, …) and
    a row-label column (t1… for tokens, q1… for queries, …). Numbers are written in their shortest form
    that reads back exactly (0.43, not 0.42999999999999999); −∞ is written -inf."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, m in a.items():
            rows, cols = LABELS[name]
            for label, part in _matrices(name.replace("^", ""), m):
                archive.writestr(zipfile.ZipInfo(f"{label}.csv", FIXED_TIME), csv_text(part, rows, cols),
                                 zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def csv_text(m: np.ndarray, rows: str, cols: str) -> str:
    """A matrix as CSV with a header row and a row-label column, each number as repr(float)."""
    header = ",".join([rows, *(f"{AXES[cols]}{j}" for j in range(1, m.shape[1] + 1))])
    lines = [",".join([f"{AXES[rows]}{i}", *map(repr, row)]) for i, row in enumerate(m.tolist(), start=1)]
    return "\n".join([header, *lines]) + "\n"


def _matrices(name: str, a: np.ndarray):
    if a.ndim == 2:
        yield name, a
    else:
        for h, m in enumerate(a, start=1):
            yield f"{name}_head{h}", m
