"""Train the coda's GPT on repeated random tokens, in numpy: a forward pass that keeps what the backward
pass needs, the backward pass written out by hand, and Adam.

The task (Olsson et al., 2022): a random run of L symbols, then the same run again. The first
copy cannot be predicted; the second can, by a two-step circuit: a head in layer 1 that copies each
token's predecessor into it (previous-token head), and a head in layer 2 that looks for the earlier
occurrence of the current token and attends to the token after it (induction head).

Shapes: b = batch, n = tokens, d = d_model, h = heads, f = d_ff, V = vocabulary.
"""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .analysis import head_roles
from .attention import Weights, causal_mask, softmax
from .block import EPS, BlockWeights
from .model import ModelWeights

BLOCK_KEYS = ("w_q", "w_k", "w_v", "w_o", "ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_fc", "b_fc", "w_proj", "b_proj")
GELU_C = np.sqrt(2.0 / np.pi)


# ---------------------------------------------------------------- parameters <-> model


def params_of(mw: ModelWeights) -> dict[str, np.ndarray]:
    """Every trainable array by name ("wte", "wpe", "0.w_q", …, "lnf_g"), as writable copies."""
    if mw.wpe is None:
        raise ValueError("training needs learned positions (init_model(..., positions='learned')).")
    p = {"wte": mw.wte.copy(), "wpe": mw.wpe.copy(), "lnf_g": mw.lnf_g.copy(), "lnf_b": mw.lnf_b.copy()}
    for layer, bw in enumerate(mw.blocks):
        for key in BLOCK_KEYS:
            source = bw.attn if key in ("w_q", "w_k", "w_v", "w_o") else bw
            p[f"{layer}.{key}"] = getattr(source, key).copy()
    return p


def model_of(p: dict[str, np.ndarray]) -> ModelWeights:
    layers = sorted({int(k.split(".")[0]) for k in p if "." in k})
    blocks = []
    for layer in layers:
        g = {key: p[f"{layer}.{key}"] for key in BLOCK_KEYS}
        attn = Weights(g["w_q"], g["w_k"], g["w_v"], g["w_o"])
        blocks.append(BlockWeights(attn, *(g[key] for key in BLOCK_KEYS[4:])))
    return ModelWeights(p["wte"], p["wpe"], blocks, p["lnf_g"], p["lnf_b"])


# ---------------------------------------------------------------- pieces, forward and backward


def _ln(x, g, b):
    mean = x.mean(-1, keepdims=True)
    inv = 1.0 / np.sqrt(x.var(-1, keepdims=True) + EPS)  # (…, 1)
    xhat = (x - mean) * inv
    return xhat * g + b, (xhat, inv)


def _ln_back(dy, cache, g):
    """dy (…, d) -> dx, dγ, dβ for y = x̂·γ + β with x̂ = (x − mean)/√(var + ε)."""
    xhat, inv = cache
    dxhat = dy * g
    dx = inv * (dxhat - dxhat.mean(-1, keepdims=True) - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    axes = tuple(range(dy.ndim - 1))
    return dx, (dy * xhat).sum(axes), dy.sum(axes)


def _gelu(x):
    t = np.tanh(GELU_C * (x + 0.044715 * x**3))
    return 0.5 * x * (1 + t), t


def _gelu_back(dy, x, t):
    return dy * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * x * x))


def _attn(x, wq, wk, wv, wo):
    """x (b, n, d) -> y (b, n, d) and what the backward pass needs."""
    b, n, _ = x.shape
    h, _, dk = wq.shape
    xs = x[:, None]  # (b, 1, n, d)
    q, k, v = xs @ wq[None], xs @ wk[None], xs @ wv[None]  # (b, h, n, dk|dv)
    a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dk) + causal_mask(n)  # (b, h, n, n)
    s = softmax(a)
    heads = s @ v  # (b, h, n, dv)
    concat = heads.transpose(0, 2, 1, 3).reshape(b, n, -1)  # (b, n, h dv)
    return concat @ wo, (x, q, k, v, s, concat)


def _attn_back(dy, cache, wq, wk, wv, wo):
    x, q, k, v, s, concat = cache
    b, n, _ = x.shape
    h, _, dk = wq.shape
    dwo = concat.reshape(-1, concat.shape[-1]).T @ dy.reshape(-1, dy.shape[-1])  # (h dv, d)
    dheads = (dy @ wo.T).reshape(b, n, h, -1).transpose(0, 2, 1, 3)  # (b, h, n, dv)
    ds = dheads @ v.transpose(0, 1, 3, 2)  # (b, h, n, n)
    dv = s.transpose(0, 1, 3, 2) @ dheads  # (b, h, n, dv)
    da = s * (ds - (ds * s).sum(-1, keepdims=True)) / np.sqrt(dk)  # softmax backward, then ÷√d_k
    dq, dk_ = da @ k, da.transpose(0, 1, 3, 2) @ q  # (b, h, n, dk)
    dw = [np.einsum("bnd,bhne->hde", x, g) for g in (dq, dk_, dv)]
    dx = sum(np.einsum("bhne,hde->bnd", g, w) for g, w in ((dq, wq), (dk_, wk), (dv, wv)))
    return dx, (*dw, dwo)


def loss_and_grads(p: dict[str, np.ndarray], ids: np.ndarray, weights: np.ndarray | None = None):
    """Mean cross-entropy of predicting ids[:, i+1] from ids[:, :i+1], and its gradient for every parameter.

    ids (b, n); weights (b, n-1) say how much each prediction counts (default: all equally).
    """
    b, n = ids.shape
    layers = sorted({int(k.split(".")[0]) for k in p if "." in k})
    x = p["wte"][ids] + p["wpe"][:n]  # (b, n, d)
    caches = []
    for layer in layers:
        g = {key: p[f"{layer}.{key}"] for key in BLOCK_KEYS}
        ln1, c1 = _ln(x, g["ln1_g"], g["ln1_b"])
        att, ca = _attn(ln1, g["w_q"], g["w_k"], g["w_v"], g["w_o"])
        r1 = x + att
        ln2, c2 = _ln(r1, g["ln2_g"], g["ln2_b"])
        hidden = ln2 @ g["w_fc"] + g["b_fc"]  # (b, n, f)
        act, t = _gelu(hidden)
        x = r1 + act @ g["w_proj"] + g["b_proj"]
        caches.append((c1, ca, c2, ln2, hidden, act, t))
    final, cf = _ln(x, p["lnf_g"], p["lnf_b"])
    logits = final[:, :-1] @ p["wte"].T  # (b, n-1, V): position i predicts token i+1
    probs = softmax(logits)
    target = ids[:, 1:]
    w = np.ones((b, n - 1)) if weights is None else np.asarray(weights, float)
    w = w / w.sum()
    picked = np.take_along_axis(probs, target[..., None], -1)[..., 0]
    loss = float(-(w * np.log(picked)).sum())

    grads = {}
    dlogits = probs.copy()
    np.put_along_axis(dlogits, target[..., None], np.take_along_axis(dlogits, target[..., None], -1) - 1, -1)
    dlogits *= w[..., None]
    dfinal = np.zeros_like(final)
    dfinal[:, :-1] = dlogits @ p["wte"]
    grads["wte"] = dlogits.reshape(-1, dlogits.shape[-1]).T @ final[:, :-1].reshape(-1, final.shape[-1])
    dx, grads["lnf_g"], grads["lnf_b"] = _ln_back(dfinal, cf, p["lnf_g"])
    for layer, (c1, ca, c2, ln2, hidden, act, t) in zip(reversed(layers), reversed(caches)):
        g = {key: p[f"{layer}.{key}"] for key in BLOCK_KEYS}
        out = {}
        out["b_proj"] = dx.sum((0, 1))
        out["w_proj"] = act.reshape(-1, act.shape[-1]).T @ dx.reshape(-1, dx.shape[-1])
        dhidden = _gelu_back(dx @ g["w_proj"].T, hidden, t)
        out["b_fc"] = dhidden.sum((0, 1))
        out["w_fc"] = ln2.reshape(-1, ln2.shape[-1]).T @ dhidden.reshape(-1, dhidden.shape[-1])
        dr1, out["ln2_g"], out["ln2_b"] = _ln_back(dhidden @ g["w_fc"].T, c2, g["ln2_g"])
        dr1 = dr1 + dx  # the residual carries dx straight through
        dln1, (out["w_q"], out["w_k"], out["w_v"], out["w_o"]) = _attn_back(dr1, ca, g["w_q"], g["w_k"], g["w_v"],
                                                                            g["w_o"])
        dx0, out["ln1_g"], out["ln1_b"] = _ln_back(dln1, c1, g["ln1_g"])
        dx = dx0 + dr1
        grads.update({f"{layer}.{key}": v for key, v in out.items()})
    np.add.at(grads["wte"], ids, dx)
    grads["wpe"] = np.zeros_like(p["wpe"])
    grads["wpe"][:n] = dx.sum(0)
    return loss, grads


# ---------------------------------------------------------------- the task and the optimiser


@dataclass(frozen=True)
class Task:
    """Sequences of L symbols from `alphabet` (token ids), then the same L again; lo <= L <= hi.

    distinct: the first copy never repeats a symbol. Otherwise it may (drawn with replacement): then only
    the exact previous token says which earlier position to copy from, which is what a previous-token head
    in layer 1 provides."""

    alphabet: tuple[int, ...]
    lengths: tuple[int, int]
    distinct: bool = True

    def sample(self, rng: np.random.Generator, batch: int, length: int | None = None) -> np.ndarray:
        """(batch, 2L) ids; one L for the whole batch (drawn when not given)."""
        lo, hi = self.lengths
        length = int(rng.integers(lo, hi + 1)) if length is None else length
        if self.distinct:
            first = np.stack([rng.choice(self.alphabet, size=length, replace=False) for _ in range(batch)])
        else:
            first = rng.choice(self.alphabet, size=(batch, length), replace=True)
        return np.concatenate([first, first], axis=1)


class Adam:
    def __init__(self, p: dict[str, np.ndarray], lr: float, betas=(0.9, 0.99), eps: float = 1e-8):
        self.lr, self.betas, self.eps, self.t = lr, betas, eps, 0
        self.m = {k: np.zeros_like(v) for k, v in p.items()}
        self.v = {k: np.zeros_like(v) for k, v in p.items()}

    def step(self, p: dict[str, np.ndarray], grads: dict[str, np.ndarray], lr: float | None = None) -> None:
        b1, b2 = self.betas
        self.t += 1
        lr = self.lr if lr is None else lr
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m_hat, v_hat = self.m[k] / (1 - b1**self.t), self.v[k] / (1 - b2**self.t)
            p[k] -= lr * m_hat / (np.sqrt(v_hat) + self.eps)


# ---------------------------------------------------------------- what the heads do, how well it predicts


def second_copy_weights(n: int) -> np.ndarray:
    """(n-1,) which predictions count: those of the second copy's tokens after its first (positions L..2L-2)."""
    half = n // 2
    w = np.zeros(n - 1)
    w[half: n - 1] = 1.0
    return w


def head_scores(mw: ModelWeights, ids: np.ndarray) -> dict[str, np.ndarray]:
    """(layers, heads) mean head_roles scores on ids (b, 2L) of repeated runs: previous-token = S[i, i−1] over
    every i ≥ 1; induction = S[i, i−L+1] over the second copy (i ≥ L).

    head_roles reads each position i of the first copy as a token of its own (0..L−1, twice), so the second copy's
    row i looks at i−L+1 even where a symbol repeats within the first copy."""
    from .model import model_forward

    positions = np.tile(np.arange(ids.shape[1] // 2), 2)  # (2L,)
    prev, induction = [], []
    for row in ids:
        roles = [head_roles(layer.attn.probs, positions) for layer in model_forward(row, mw).layers]
        prev.append([p for p, _ in roles])  # (layers, heads)
        induction.append([i for _, i in roles])
    return {"previous_token": np.mean(prev, 0), "induction": np.mean(induction, 0)}


def accuracy(mw: ModelWeights, ids: np.ndarray) -> float:
    """Greedy next-token accuracy on the second copy, each token after its first."""
    from .model import model_forward

    n = ids.shape[1]
    half = n // 2
    hits = [np.argmax(model_forward(row, mw).logits[half: n - 1], -1) == row[half + 1:] for row in ids]
    return float(np.mean(hits))


@dataclass
class Snapshot:
    step: int
    loss: float  # mean training loss over the steps since the previous snapshot
    params: dict[str, np.ndarray]


def fit(mw: ModelWeights, task: Task, *, steps: int, batch: int = 32, lr: float = 0.01, seed: int = 0,
        snapshots: int = 20, progress=None) -> tuple[ModelWeights, list[Snapshot]]:
    """Adam on the second copy's cross-entropy; lr warms up over 5% of the steps, then decays to 10% (cosine).

    Returns the trained model and `snapshots` + 1 snapshots evenly spaced over training (step 0 included).
    progress(step, loss), if given, is called at every snapshot.
    """
    p = params_of(mw)
    rng = np.random.default_rng([seed, 7])
    opt = Adam(p, lr)
    marks = set(np.linspace(0, steps, snapshots + 1).astype(int).tolist())
    history, recent = [], []
    warm = max(1, steps // 20)
    for step in range(steps + 1):
        if step in marks:
            loss = float(np.mean(recent)) if recent else float("nan")
            history.append(Snapshot(step, loss, {k: v.copy() for k, v in p.items()}))
            recent = []
            if progress:
                progress(step, loss)
        if step == steps:
            break
        ids = task.sample(rng, batch)
        weights = np.broadcast_to(second_copy_weights(ids.shape[1]), (batch, ids.shape[1] - 1))
        loss, grads = loss_and_grads(p, ids, weights)
        recent.append(loss)
        frac = step / steps
        scale = min(1.0, (step + 1) / warm) * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * frac)))
        opt.step(p, grads, lr * scale)
    return model_of(p), history


# ---------------------------------------------------------------- the shipped model: train, save, load

TRAINED_DIR = Path(__file__).resolve().parent / "trained"
SYMBOLS = "ABCDEFGHIJKLMNOP"  # token id i is SYMBOLS[i]
SHIPPED = dict(d_model=13, d_k=19, d_v=11, n_heads=2, d_ff=17)  # distinct primes, each larger than the post's
LENGTHS = (4, 8)
ALPHABET = 8  # the shipped task's symbols: A..H, which may repeat in the first copy (README: why)
DISTINCT = False
STEPS = 6000


HELD_OUT = 200  # the knock-out measurements' fixed task sequences: how many, and the seed that draws them
HELD_OUT_SEED = 35


def held_out(n: int = HELD_OUT, symbols: int = ALPHABET) -> list[np.ndarray]:
    """n task sequences of the shipped task (L symbols of A..H, L from 4 to 8, then the same L again), each drawn
    with its own length from numpy's default_rng([0, HELD_OUT_SEED]): a stream training never draws from (fit draws
    from default_rng([seed, 7]), the final metrics from [seed, 11], the timeline's probe from [seed, 13])."""
    task = Task(tuple(range(symbols)), LENGTHS, DISTINCT)
    rng = np.random.default_rng([0, HELD_OUT_SEED])
    return [task.sample(rng, 1)[0] for _ in range(n)]


def evaluate(mw: ModelWeights, task: Task, rng: np.random.Generator, n: int = 500) -> dict:
    """Greedy second-copy accuracy and each head's scores over n sequences, each with its own drawn length."""
    lo, hi = task.lengths
    by_length: dict[int, list[np.ndarray]] = {}
    for _ in range(n):
        row = task.sample(rng, 1)
        by_length.setdefault(row.shape[1] // 2, []).append(row[0])
    hits = total = 0.0
    prev = induction = 0.0
    for length, rows in sorted(by_length.items()):
        ids = np.stack(rows)
        predictions = len(rows) * (length - 1)
        hits += accuracy(mw, ids) * predictions
        total += predictions
        s = head_scores(mw, ids)
        prev = prev + s["previous_token"] * len(rows)
        induction = induction + s["induction"] * len(rows)
    return {"accuracy": hits / total, "previous_token": (prev / n).tolist(), "induction": (induction / n).tolist()}


def _eval_loss(p: dict[str, np.ndarray], ids: np.ndarray) -> float:
    weights = np.broadcast_to(second_copy_weights(ids.shape[1]), (len(ids), ids.shape[1] - 1))
    return loss_and_grads(p, ids, weights)[0]


def train_shipped(*, layers: int = 2, steps: int = STEPS, batch: int = 32, lr: float = 0.01, seed: int = 0,
                  snapshots: int = 20, n_eval: int = 500, symbols: int = ALPHABET, distinct: bool = DISTINCT,
                  progress=None) -> tuple[ModelWeights, list, dict]:
    """The shipped configuration trained from scratch: (model, [(step, params, snapshot record)], metrics).
    `distinct`: the task's first copy never repeats a symbol (Task); it is trained and measured so.
    progress(step, loss) is called at every snapshot (see fit)."""
    import time

    from .config import AttentionConfig
    from .model import init_model

    cfg = AttentionConfig(seed=seed, **SHIPPED)
    vocab = list(SYMBOLS[:symbols])
    mw = init_model(cfg, vocab, n_layers=layers, positions="learned", n_ctx=2 * LENGTHS[1])
    task = Task(tuple(range(symbols)), LENGTHS, distinct)
    start = time.process_time()
    trained, history = fit(mw, task, steps=steps, batch=batch, lr=lr, seed=seed, snapshots=snapshots,
                           progress=progress)
    seconds = time.process_time() - start
    # Each snapshot judged on the same fixed sequences: loss on the second copy, and its heads' scores.
    probe = Task(task.alphabet, (6, 6), distinct).sample(np.random.default_rng([seed, 13]), 64)
    records = []
    for snap in history:
        s = head_scores(model_of(snap.params), probe)
        records.append({"step": snap.step, "loss": _eval_loss(snap.params, probe),
                        "train_loss": None if np.isnan(snap.loss) else snap.loss,
                        "previous_token": s["previous_token"].tolist(), "induction": s["induction"].tolist()})
    metrics = evaluate(trained, task, np.random.default_rng([seed, 11]), n_eval)
    metrics.update(final_loss=records[-1]["loss"], final_train_loss=records[-1]["train_loss"],
                   train_cpu_seconds=round(seconds, 2), layers=layers)
    return trained, [(snap.step, snap.params, rec) for snap, rec in zip(history, records)], metrics


def save_trained(out: Path, trained: ModelWeights, snaps: list, meta: dict) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    arrays = {f"final/{k}": v.astype(np.float32) for k, v in params_of(trained).items()}
    for i, (_, params, _) in enumerate(snaps):
        arrays.update({f"snap{i:02d}/{k}": v.astype(np.float32) for k, v in params.items()})
    np.savez_compressed(out / "weights.npz", **arrays)
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


@dataclass(frozen=True, eq=False)
class Trained:
    weights: ModelWeights
    vocab: list[str]
    meta: dict
    snapshots: list[tuple[int, float, ModelWeights, dict]]  # (step, loss, weights, head scores) from step 0


def load_trained(path=None) -> Trained:
    """The model shipped in mha/trained/ (or the directory `path` written by `python -m mha.train --out`)."""
    path = TRAINED_DIR if path is None else Path(path)
    meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    with np.load(path / "weights.npz") as z:
        arrays = {k: z[k].astype(np.float64) for k in z.files}

    def model(prefix: str) -> ModelWeights:
        return model_of({k[len(prefix) + 1:]: v for k, v in arrays.items() if k.startswith(prefix + "/")})

    snaps = []
    for i, rec in enumerate(meta["snapshots"]):
        scores = {"previous_token": np.array(rec["previous_token"]), "induction": np.array(rec["induction"])}
        snaps.append((rec["step"], rec["loss"], model(f"snap{i:02d}"), scores))
    return Trained(model("final"), list(meta["vocab"]), meta, snaps)


def main(argv=None) -> dict:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mha.train", description="Train the shipped induction-head "
                                     "model (and a one-layer one to compare) and write weights.npz + meta.json.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--eval", type=int, default=500, help="fresh sequences for the final metrics")
    parser.add_argument("--out", type=Path, default=TRAINED_DIR)
    parser.add_argument("--first-copy", choices=("distinct", "repeats"), default="distinct" if DISTINCT else "repeats",
                        help="whether the first copy's symbols are distinct or may repeat")
    parser.add_argument("--symbols", type=int, default=ALPHABET, choices=range(2, len(SYMBOLS) + 1), metavar="2..16",
                        help="how many symbols (A, B, …) the task draws from; they are the whole vocabulary")
    args = parser.parse_args(argv)
    distinct = args.first_copy == "distinct"
    settings = dict(steps=args.steps, batch=args.batch, lr=args.lr, seed=args.seed, n_eval=args.eval,
                    distinct=distinct, symbols=args.symbols)
    trained, snaps, metrics = train_shipped(layers=args.layers, **settings)
    print(f"{args.layers} layer(s): accuracy {metrics['accuracy']:.4f}, loss {metrics['final_loss']:.4g}, "
          f"{metrics['train_cpu_seconds']} s", flush=True)
    _, _, one = train_shipped(layers=1, **settings)
    print(f"1 layer: accuracy {one['accuracy']:.4f}, loss {one['final_loss']:.4g}, {one['train_cpu_seconds']} s")
    meta = {
        "task": f"L {'distinct ' if distinct else ''}random symbols{'' if distinct else ' (they may repeat)'}, "
                "then the same L again; predict the second copy after its first token",
        "distinct": distinct,
        "vocab": list(SYMBOLS[:args.symbols]), "alphabet": list(range(args.symbols)), "repeat_lengths": list(LENGTHS),
        "sizes": {**SHIPPED, "n_layers": args.layers, "positions": "learned", "n_ctx": 2 * LENGTHS[1]},
        "steps": args.steps, "batch": args.batch, "lr": args.lr, "seed": args.seed,
        "schedule": "Adam (0.9, 0.99); warm-up over 5% of the steps, cosine down to 10%",
        "eval_sequences": args.eval, "numpy": np.__version__, **metrics,
        "one_layer": one,
        "snapshots": [rec for _, _, rec in snaps],
        "snapshot_loss": "cross-entropy on the second copy of 64 fixed sequences (L = 6)",
    }
    save_trained(args.out, trained, snaps, meta)
    print(f"wrote {args.out / 'weights.npz'} ({(args.out / 'weights.npz').stat().st_size} bytes) and meta.json")
    return meta


if __name__ == "__main__":
    main()
