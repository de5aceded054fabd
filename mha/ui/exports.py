"""The current view's arrays as .npz, .json, or a .zip of one .csv per matrix: the attention's whole trace, or what
a stage of the coda shows instead (its Part), with what the numbers come from (the model, the layer) in each file."""

import io
import json
import zipfile
from dataclasses import dataclass, field, replace

import numpy as np

import mha

from .shared import digest, weights_digest

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
            "Concat": t.concat, "Y": t.y, **{name: b for name, b in zip(BIASES, (w.b_q, w.b_k, w.b_v, w.b_o))
                                             if b is not None}}


BIASES = ("b_Q", "b_K", "b_V", "b_O")  # a checkpoint's attention adds them after W_Q, W_K, W_V, W_O


def cache_view(cfg: mha.AttentionConfig, x: np.ndarray, added) -> tuple[mha.AttentionConfig, np.ndarray]:
    """The KV-cache stage's view: X followed by the tokens added to the cache (those that fit d_model, as the stage
    keeps them), with n counting them all, so that its files hold the cache the page shows."""
    rows = [np.asarray(r, float) for r in added if len(r) == cfg.d_model]
    if not rows:
        return cfg, x
    return replace(cfg, n_tokens=len(x) + len(rows)), np.vstack([x, *rows])


@dataclass(frozen=True)
class Source:
    """What a view's numbers come from, written into its files (and their names): the stage, the weights (seeded,
    or the trained model and the layer the walk shows; a retrained one's seed) and the text's tokens."""

    stage: str = "input"
    model: str = "seeded"
    layer: int | None = None  # 1-based, with the trained model or a checkpoint
    train_seed: int | None = None  # the seed the trained model was retrained with, None for the shipped one
    tokens: tuple[str, ...] = ()
    checkpoint: str = ""  # a checkpoint's name, when the view shows it (model "checkpoint"): its sizes, not cfg's
    edited: int = 0  # cells of X edited by hand: the files hold them, which the seed or the text alone would not give

    def meta(self, cfg: mha.AttentionConfig) -> dict:
        out = {"stage": self.stage, "model": self.model}
        if self.checkpoint:
            out.update(checkpoint=self.checkpoint, layer=self.layer)
        elif self.model == "trained":
            out.update(layer=self.layer, trained="shipped" if self.train_seed is None else f"seed {self.train_seed}")
        else:
            out.update(seed=cfg.seed, init=cfg.init)
        if self.tokens:
            out["tokens"] = list(self.tokens)
        if self.edited:
            out["x_edited_cells"] = self.edited
        return out


WALK = Source()  # the default: the attention's walk on seeded weights


@dataclass(frozen=True)
class Part:
    """What a stage of the coda shows, in place of the attention's 15 arrays: its arrays, and what the rows and
    columns of each count (AXES keys; a 1-D array is one row, its rows' key ignored)."""

    arrays: dict[str, np.ndarray]
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)  # what else its files record (the block's order)
    suffix: str = ""  # what else its files' names say ("-knock2.1-2.2")

    def size(self) -> int:
        return sum(a.size for a in self.arrays.values())


def export_size(cfg: mha.AttentionConfig, part: Part | None = None) -> int:
    """How many numbers this view's files hold: the stage's part, else the attention's trace and weights."""
    return part.size() if part else size(cfg)


def stem(cfg: mha.AttentionConfig, source: Source = WALK) -> str:
    """The files' name: the stage, the model (and layer) or the seed, the sizes, and whether X holds edits."""
    sizes = f"{cfg.n_tokens}x{cfg.d_model}x{cfg.d_k}x{cfg.d_v}x{cfg.n_heads}"
    edited = "-xedited" if source.edited else ""
    if source.checkpoint:
        return f"mha-{source.stage}-{source.checkpoint}-layer{source.layer}{edited}"
    if source.model == "trained":
        retrained = "" if source.train_seed is None else f"-retrained{source.train_seed}"
        return f"mha-{source.stage}-trained{retrained}-layer{source.layer}-{sizes}{edited}"
    return f"mha-{source.stage}-{sizes}-seed{cfg.seed}{edited}"


def files(x: np.ndarray, w: mha.Weights, cfg: mha.AttentionConfig, part: Part | None = None,
          source: Source = WALK) -> dict[str, bytes]:
    """The three downloads of this view, computed once: {"npz": …, "json": …, "csv": …}. A stage's `part` is what
    they hold; without one, the attention's whole trace on X."""
    a = part.arrays if part else arrays(x, w)
    labels = {**LABELS, **(part.labels if part else {})}
    meta = {**source.meta(cfg), **(part.meta if part else {})}
    return {"npz": _npz(a, meta), "json": _json(a, cfg, meta), "csv": _csv_zip(a, labels, meta)}


def view_key(x: np.ndarray, w: mha.Weights, cfg: mha.AttentionConfig, part: Part | None = None,
             source: Source = WALK) -> tuple:
    """What a view's files depend on: the sizes and seed, X and the weights (the trained model's two layers share
    sizes and X), a stage's arrays, and where they come from (written into the files)."""
    shown = digest(*part.arrays.values(), np.array([*part.arrays, *map(str, part.meta.items())])) if part else b""
    return cfg, weights_digest(w, x), shown, source


META = "meta"  # the .npz entry holding the files' metadata (a JSON text), and the .zip's meta.json


def _npz(a: dict[str, np.ndarray], meta: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **a, **{META: np.array(json.dumps(meta, ensure_ascii=False))})
    return buffer.getvalue()


def _json(a: dict[str, np.ndarray], cfg: mha.AttentionConfig, meta: dict) -> bytes:
    """{"config": …, "source": …, "note": …, "matrices": {name: {"shape": …, "values": nested lists}}}, the text
    json.dumps gives the whole, written a matrix (a head) at a time: the whole as lists of Python floats holds several
    times the file. JSON has no −∞: masked cells are written as null, as the note in the file says."""
    config = meta.get("config") or {k: getattr(cfg, k) for k in ("n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed",
                                                                  "init")}  # a checkpoint's view: its own sizes
    head = {"config": config, "source": {k: v for k, v in meta.items() if k != "config"}, "note": NOTE}
    out = io.BytesIO()
    out.write(json.dumps(head)[:-1].encode() + b', "matrices": {')
    for i, (name, m) in enumerate(a.items()):
        out.write(f'{", " if i else ""}{json.dumps(name)}: {{"shape": {json.dumps(list(m.shape))}, "values": '.encode())
        _json_values(m, out)
        out.write(b"}")
    out.write(b"}}")
    return out.getvalue()


def _json_values(m: np.ndarray, out: io.BytesIO) -> None:
    """m as JSON's nested lists, ±∞ as null: a matrix in one piece, a stack of them one by one; token ids as
    integers."""
    if m.dtype.kind in "iu":
        out.write(json.dumps(m.tolist()).encode())
        return
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
AXES = {"token": "t", "feature": "f", "query": "q", "key": "k", "d_k": "dk", "d_v": "dv", "concat": "c",
        "vocab": "v", "hidden": "u", "row": "r", "column": "c", "latent": "l", "tile": "b", "layer": "L", "head": "h"}
LABELS = {"X": ("token", "feature"), "W_Q": ("feature", "d_k"), "W_K": ("feature", "d_k"), "W_V": ("feature", "d_v"),
          "W_O": ("concat", "feature"), "Q": ("token", "d_k"), "K": ("token", "d_k"), "V": ("token", "d_v"),
          "QK^T": ("query", "key"), "QK^T_scaled": ("query", "key"), "QK^T_masked": ("query", "key"),
          "S": ("query", "key"), "H": ("token", "d_v"), "Concat": ("token", "concat"), "Y": ("token", "feature"),
          "b_Q": ("head", "d_k"), "b_K": ("head", "d_k"), "b_V": ("head", "d_v"), "b_O": ("row", "feature")}


FIXED_TIME = (2024, 1, 1, 0, 0, 0)  # every entry dated alike: the same view gives the same bytes, whatever the clock
CSV_LEVEL = 1  # zlib's fastest: the largest view's CSVs deflate in 0.2 s, not 1.3 at its default 6, for 6% more bytes


def _csv_zip(a: dict[str, np.ndarray], labels: dict[str, tuple[str, str]], meta: dict) -> bytes:
    """One .csv per matrix; a per-head array gives one file per head (Q_head1.csv, …), a 1-D one a single row; and
    meta.json, what the numbers come from.

    Each file has a header row (the rows' axis, then column labels: f1… for features, k1… for keys, …) and
    a row-label column (t1… for tokens, q1… for queries, …). Numbers are written in their shortest form
    that reads back exactly (0.43, not 0.42999999999999999); −∞ is written -inf."""
    buffer = io.BytesIO()
    deflate = dict(compress_type=zipfile.ZIP_DEFLATED, compresslevel=CSV_LEVEL)  # a ZipInfo's entry is stored else
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, m in a.items():
            rows, cols = labels[name]
            rows = "row" if m.ndim == 1 else rows
            for label, part in _matrices(name.replace("^", ""), np.atleast_2d(m)):
                archive.writestr(zipfile.ZipInfo(f"{label}.csv", FIXED_TIME), csv_text(part, rows, cols),
                                 **deflate)
        archive.writestr(zipfile.ZipInfo(f"{META}.json", FIXED_TIME), json.dumps(meta, ensure_ascii=False), **deflate)
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
