"""Multi-head latent attention (MLA, DeepSeek-V2): cache one short latent row per token instead of K and V.

c = X W_DKV (n, d_latent) is all that is kept. Each head rebuilds its K = c W_UK and V = c W_UV from it. The
"absorbed" order never builds K or V at all: q·k = q·(c W_UK) = (q W_UKᵀ)·c, so W_UK folds into the query, and
S (c W_UV) = (S c) W_UV, so W_UV moves past the softmax. Both orders give the same Y; the second is how a decoder
reads its cache. (DeepSeek also keeps a small separate key for RoPE; it is left out here.)
"""

from dataclasses import dataclass

import numpy as np

from .attention import STREAM_WEIGHTS, Weights, causal_mask, check_input, draw_matrix, init_weights, softmax
from .cache import as_numbers
from .config import AttentionConfig
from .errors import ConfigError, InputError
from .variants import groups

_MLA = 4  # the random stream of the latent projections, beside attention's streams


@dataclass(frozen=True, eq=False)
class MLAWeights:
    w_q: np.ndarray  # (h, d_model, d_k)      as in the post
    w_dkv: np.ndarray  # (d_model, d_latent)  down: X to the latent c that is cached
    w_uk: np.ndarray  # (h, d_latent, d_k)    up: c to each head's K
    w_uv: np.ndarray  # (h, d_latent, d_v)    up: c to each head's V
    w_o: np.ndarray  # (h d_v, d_model)       as in the post

    def __post_init__(self):
        for name in ("w_q", "w_dkv", "w_uk", "w_uv", "w_o"):
            a = np.array(getattr(self, name), dtype=np.float64)
            if not np.all(np.isfinite(a)):
                raise InputError(f"{name} holds NaN or infinite values; every weight must be finite.")
            a.flags.writeable = False
            object.__setattr__(self, name, a)
        h, d_model, d_k = self.w_q.shape
        d_latent = self.w_dkv.shape[1]
        d_v = self.w_uv.shape[2]
        want = {"w_dkv": (d_model, d_latent), "w_uk": (h, d_latent, d_k), "w_uv": (h, d_latent, d_v),
                "w_o": (h * d_v, d_model)}
        for name, shape in want.items():
            if getattr(self, name).shape != shape:
                raise InputError(f"{name} must be {shape}; got {getattr(self, name).shape}.")

    n_heads = property(lambda self: self.w_q.shape[0])
    d_model = property(lambda self: self.w_q.shape[1])
    d_k = property(lambda self: self.w_q.shape[2])
    d_v = property(lambda self: self.w_uv.shape[2])
    d_latent = property(lambda self: self.w_dkv.shape[1])


def init_mla(cfg: AttentionConfig, d_latent: int) -> MLAWeights:
    """MLA weights fixed by cfg.seed: W_Q and W_O are init_weights(cfg)'s, so only how K and V are made differs."""
    if isinstance(d_latent, bool) or not isinstance(d_latent, (int, np.integer)) or d_latent < 1:
        raise ConfigError(f"d_latent must be a whole number >= 1; got {d_latent!r}.")
    w = init_weights(AttentionConfig(d_model=cfg.d_model, d_k=cfg.d_k, d_v=cfg.d_v, n_heads=cfg.n_heads,
                                     seed=cfg.seed, init=cfg.init))
    rng = np.random.default_rng([cfg.seed, STREAM_WEIGHTS, _MLA, d_latent])
    w_dkv = draw_matrix(cfg, rng, cfg.d_model, d_latent)
    up = [draw_matrix(cfg, rng, d_latent, cfg.d_k + cfg.d_v) for _ in range(cfg.n_heads)]
    return MLAWeights(w.w_q, w_dkv, np.stack([u[:, :cfg.d_k] for u in up]),
                      np.stack([u[:, cfg.d_k:] for u in up]), w.w_o)


def mla_from(w: Weights, d_latent: int) -> MLAWeights:
    """MLA weights that keep w's queries and output and come as near as d_latent numbers per token allow to w's K
    and V: every head's [W_K | W_V] side by side, (d_model, h (d_k + d_v)), cut to its best rank-d_latent product
    W_DKV [W_UK | W_UV] by the SVD. From d_latent = rank on (at most d_model), K and V come back exactly: X's own
    d_model numbers per token were always enough to rebuild them."""
    if isinstance(d_latent, bool) or not isinstance(d_latent, (int, np.integer)) or d_latent < 1:
        raise ConfigError(f"d_latent must be a whole number >= 1; got {d_latent!r}.")
    w = w.unbiased("MLA")
    h, d_k, d_v = w.n_heads, w.d_k, w.d_v
    kv = np.concatenate([w.w_k, w.w_v], axis=2)[groups(h, w.n_kv_heads)]  # (h, d_model, d_k + d_v)
    wide = kv.transpose(1, 0, 2).reshape(w.d_model, -1)  # (d_model, h (d_k + d_v))
    u, sigma, vt = np.linalg.svd(wide, full_matrices=False)
    r = min(d_latent, len(sigma))
    w_dkv = np.zeros((w.d_model, d_latent))
    w_dkv[:, :r] = u[:, :r] * sigma[:r]
    up = np.zeros((d_latent, wide.shape[1]))
    up[:r] = vt[:r]
    up = up.reshape(d_latent, h, d_k + d_v).transpose(1, 0, 2)  # (h, d_latent, d_k + d_v)
    return MLAWeights(w.w_q, w_dkv, up[..., :d_k], up[..., d_k:], w.w_o)


@dataclass(frozen=True, eq=False)
class MLATrace:
    x: np.ndarray  # (n, d_model)
    latent: np.ndarray  # (n, d_latent)   c = X W_DKV: the cache
    q: np.ndarray  # (h, n, d_k)          Q_i = X W_Qi
    k: np.ndarray  # (h, n, d_k)          K_i = c W_UKi, rebuilt
    v: np.ndarray  # (h, n, d_v)          V_i = c W_UVi, rebuilt
    probs: np.ndarray  # (h, n, n)        S_i = softmax(Q_i K_iᵀ / √d_k + mask)
    heads: np.ndarray  # (h, n, d_v)      H_i = S_i V_i
    y: np.ndarray  # (n, d_model)         the naive order: Concat(H) W_O
    q_absorbed: np.ndarray  # (h, n, d_latent)  Q_i W_UKiᵀ: the query, in the latent's space
    probs_absorbed: np.ndarray  # (h, n, n)     softmax(Q_i W_UKiᵀ cᵀ / √d_k + mask)
    y_absorbed: np.ndarray  # (n, d_model)      Concat((S_i c) W_UVi) W_O, K and V never built


def mla_forward(x, w: MLAWeights) -> MLATrace:
    """Causal MLA, both orders. x: (n, d_model) -> MLATrace; y and y_absorbed agree to rounding."""
    x = check_input(x, w.d_model)
    n = len(x)
    with np.errstate(over="ignore", invalid="ignore"):
        c = x @ w.w_dkv  # (n, d_latent): what the cache keeps
        q = x @ w.w_q  # (h, n, d_k)
        k, v = c @ w.w_uk, c @ w.w_uv  # (h, n, d_k), (h, n, d_v): rebuilt per head
        probs = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(w.d_k) + causal_mask(n))
        heads = probs @ v
        y = heads.transpose(1, 0, 2).reshape(n, -1) @ w.w_o
        q_abs = q @ w.w_uk.transpose(0, 2, 1)  # (h, n, d_k) @ (h, d_k, d_latent): W_UK folded into the query
        probs_abs = softmax(q_abs @ c.T / np.sqrt(w.d_k) + causal_mask(n))  # scores against c itself
        heads_abs = (probs_abs @ c) @ w.w_uv  # (h, n, d_latent) @ (h, d_latent, d_v): W_UV after the softmax
        y_abs = heads_abs.transpose(1, 0, 2).reshape(n, -1) @ w.w_o
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(y_abs))):
        raise InputError("MLA's values overflow float64: scale X down, e.g. keep |X| below 1e100.")
    return MLATrace(x, c, q, k, v, probs, heads, y, q_abs, probs_abs, y_abs)


@dataclass(frozen=True, eq=False)
class MLAStep:
    """One decoded token, read from the latent cache in the absorbed order."""

    t: int
    latent: np.ndarray  # (d_latent,)    c_t, appended to the cache
    q_absorbed: np.ndarray  # (h, d_latent)
    probs: np.ndarray  # (h, t)
    y: np.ndarray  # (d_model,)


class MLACache:
    """The latent rows c (t, d_latent) of the tokens so far: d_latent floats per token per layer, for all heads."""

    def __init__(self, w: MLAWeights, capacity: int = 16):
        self.w = w
        self._t = 0
        self._c = np.empty((max(1, capacity), w.d_latent))

    def __len__(self) -> int:
        return self._t

    @property
    def latent(self) -> np.ndarray:
        """The cached rows c (t, d_latent), a read-only view."""
        c = self._c[: self._t]
        c.flags.writeable = False
        return c

    @property
    def positions(self) -> np.ndarray:
        """(t,) the positions of the tokens held, from 0: every token so far (as KVCache's, without a window)."""
        return np.arange(self._t)

    @property
    def nbytes(self) -> int:
        """Bytes the t cached latent rows hold (not the spare capacity)."""
        return self._t * self.w.d_latent * self._c.itemsize

    def append(self, x_row) -> MLAStep:
        w = self.w
        x = check_input(np.reshape(as_numbers(x_row), (1, -1)), w.d_model)[0]
        if self._t == len(self._c):  # doubling: O(1) amortised, as KVCache
            self._c = np.concatenate([self._c, np.empty_like(self._c)])
        with np.errstate(over="ignore", invalid="ignore"):
            self._c[self._t] = x @ w.w_dkv
            c = self._c[: self._t + 1]
            # One product at a time: a three-operand np.einsum runs one nested loop over every index, ~1000× slower
            # at GPT-2-small widths (bench/core.py, section 5).
            q_abs = np.einsum("hk,hlk->hl", x @ w.w_q, w.w_uk)  # x W_Qi W_UKiᵀ: (h, d_latent)
            probs = softmax(q_abs @ c.T / np.sqrt(w.d_k))  # (h, t): every cached token is in the past
            heads = np.einsum("hl,hlv->hv", probs @ c, w.w_uv)  # (S c) W_UV
            y = heads.reshape(-1) @ w.w_o
        if not np.all(np.isfinite(y)):
            raise InputError("This token's values overflow float64: scale it down (|x| below 1e100).")
        self._t += 1
        return MLAStep(self._t, c[-1].copy(), q_abs, probs, y)
