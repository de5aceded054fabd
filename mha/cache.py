"""KV cache: decode one token at a time, keeping K and V of past tokens and never Q.

Row t of H is S_t · V and S_t = softmax(q_t Kᵀ / √d_k): it needs this token's q and every k, v so
far, but no earlier q. So q is computed, used once and dropped; k and v rows are kept.

With a variant (AttentionConfig's n_kv_heads, window, sinks, alibi, rotary_dims) the cache keeps K and V of the
n_kv_heads kv heads only, keys after RoPE at their own positions, and with a window only the tokens a later query
can still see: the sinks and the last `window`, so the oldest other token leaves as each new one arrives. Each row is
kept as the config's storage says (variants.storage), and attention reads back what it kept.
"""

from dataclasses import dataclass

import numpy as np

from .attention import Weights, check_input, plus, softmax, variant_asked
from .config import AttentionConfig
from .errors import InputError
from .variants import alibi_slopes, kept, rope, storage


@dataclass(frozen=True, eq=False)
class DecodeStep:
    """What one appended token computed. t = tokens in the cache after this step (all so far, without a window)."""

    t: int
    x: np.ndarray  # (d_model,)     the new token X_t
    q: np.ndarray  # (h, d_k)       q_t: used for this row of scores, then discarded
    k: np.ndarray  # (h_kv, d_k)    k_t: appended to the K cache (after RoPE: k_rot)
    v: np.ndarray  # (h_kv, d_v)    v_t: appended to the V cache
    scores: np.ndarray  # (h, t)    q_rot Kᵀ against every cached key
    scaled: np.ndarray  # (h, t)    ÷ √d_k, plus ALiBi's bias
    probs: np.ndarray  # (h, t)     S_t: softmax over the t keys (no mask needed: none is in the future)
    heads: np.ndarray  # (h, d_v)   H_t = S_t V
    concat: np.ndarray  # (h d_v,)
    y: np.ndarray  # (d_model,)     Y_t
    pos: int = 0  # the new token's position, from 0 (it differs from t - 1 once a window drops tokens)
    held: np.ndarray | None = None  # (t,) the positions of the cached keys this token read, in order
    q_rot: np.ndarray | None = None  # (h, d_k) q after RoPE (q itself without)
    k_rot: np.ndarray | None = None  # (h_kv, d_k) k after RoPE, what the cache keeps
    bias: np.ndarray | None = None  # (h, t) ALiBi's −m_h (pos − held), 0 without it


class KVCache:
    """K (h_kv, t, d_k) and V (h_kv, t, d_v) of the tokens held; amortised O(1) append."""

    def __init__(self, w: Weights, cfg: AttentionConfig | None = None, capacity: int = 16):
        self.w = w
        self.cfg = variant_asked(w, cfg) or AttentionConfig(d_k=w.d_k, n_heads=w.n_heads)
        self._t = 0  # tokens held
        self._seen = 0  # tokens appended: the next one's position
        self._most = self.cfg.sinks + self.cfg.window + 1 if self.cfg.window else None  # all a window ever holds
        capacity = max(1, min(capacity, self._most or capacity))
        self._store = storage(self.cfg)
        # the arrays each row of K (0) and of V (1) is kept as: (h_kv, capacity, d) for a number a column, (h_kv,
        # capacity) for one a row (floats: the rows themselves)
        self._kept = [[np.empty((w.n_kv_heads, capacity) + ((d,) if p.per_number else ()),
                                dtype=p.dtype or np.float64) for p in self._store.parts] for d in (w.d_k, w.d_v)]
        self._pos = np.empty(capacity, dtype=np.int64)
        self._slopes = alibi_slopes(w.n_heads) if self.cfg.alibi else np.zeros(w.n_heads)
        # [W_Q | W_K | W_V] of every head side by side, (d_model, h (2 d_k + d_v)) (with shared K and V: every
        # W_Q, then W_K | W_V of each kv head), contiguous: one vector-matrix product per token instead of 3 h
        # small strided ones (about twice as fast). A copy made here, so w's arrays must not be changed in place
        # while the cache is in use.
        if w.n_kv_heads == w.n_heads:
            self._w_qkv = (np.concatenate([w.w_q, w.w_k, w.w_v], axis=2).transpose(1, 0, 2)
                           .reshape(w.d_model, w.n_heads * (2 * w.d_k + w.d_v)))
        else:
            self._w_qkv = np.concatenate([w.w_q.transpose(1, 0, 2).reshape(w.d_model, w.n_heads * w.d_k),
                                          np.concatenate([w.w_k, w.w_v], axis=2).transpose(1, 0, 2)
                                          .reshape(w.d_model, w.n_kv_heads * (w.d_k + w.d_v))], axis=1)
        self._b_qkv = None  # the biases in the same order, (h (2 d_k + d_v),), when the weights have any
        if w.biased:
            zero = lambda b, shape: np.zeros(shape) if b is None else b  # noqa: E731
            b_q, b_k, b_v = (zero(b, s) for b, s in ((w.b_q, (w.n_heads, w.d_k)), (w.b_k, (w.n_kv_heads, w.d_k)),
                                                     (w.b_v, (w.n_kv_heads, w.d_v))))
            self._b_qkv = (np.concatenate([b_q, b_k, b_v], axis=1).ravel() if w.n_kv_heads == w.n_heads else
                           np.concatenate([b_q.ravel(), np.concatenate([b_k, b_v], axis=1).ravel()]))

    def __len__(self) -> int:
        return self._t

    @property
    def k(self) -> np.ndarray:
        """Cached keys (h, t, d_k) as attention reads them (read back from what the storage keeps), read-only."""
        return _readonly(self._rows(0, slice(0, self._t)))

    @property
    def v(self) -> np.ndarray:
        """Cached values (h, t, d_v) as attention reads them, read-only."""
        return _readonly(self._rows(1, slice(0, self._t)))

    @property
    def kept(self) -> dict[str, np.ndarray]:
        """What the cache holds when its storage keeps rows as other than floats, named as a trace's `kept`
        (variants.KEPT_NAMES; (h_kv, t, d) for a number a column, (h_kv, t) for one a row), read-only views; {} for a
        float cache."""
        return kept(self._store, *([_readonly(a[:, : self._t]) for a in parts] for parts in self._kept))

    @property
    def capacity(self) -> int:
        """Rows of K and V (per kv head) the cache has room for before it must grow: the tokens held and the spare.
        With a window it never passes sinks + window + 1, however long the text."""
        return self._pos.shape[0]

    @property
    def positions(self) -> np.ndarray:
        """(t,) the positions of the tokens held, from 0, a read-only view."""
        return _readonly(self._pos[: self._t])

    @property
    def nbytes(self) -> int:
        """Bytes the t cached K and V rows hold (not the spare capacity)."""
        return sum(a[:, : self._t].nbytes for parts in self._kept for a in parts)

    def append(self, x_row) -> DecodeStep:
        """Feed token X_t (d_model,) and return its step; the cache grows by one row per kv head (with a window,
        once it holds sinks + window tokens, the oldest other token leaves instead)."""
        w, cfg, pos = self.w, self.cfg, self._seen
        x = check_input(as_numbers(x_row).ravel()[None], w.d_model)[0]
        with np.errstate(over="ignore", invalid="ignore"):
            qkv = plus(x @ self._w_qkv, self._b_qkv)  # (d_model,) @ (d_model, h d_k + h_kv (d_k+d_v))
            if w.n_kv_heads == w.n_heads:
                q, k, v = np.split(qkv.reshape(w.n_heads, 2 * w.d_k + w.d_v), [w.d_k, 2 * w.d_k], axis=1)
            else:
                q = qkv[: w.n_heads * w.d_k].reshape(w.n_heads, w.d_k)
                k, v = np.split(qkv[w.n_heads * w.d_k:].reshape(w.n_kv_heads, w.d_k + w.d_v), [w.d_k], axis=1)
            q_rot, k_rot = (rope(a[:, None], [pos], cfg.rotary_dims, cfg.rope_base)[:, 0] for a in (q, k))
            self._grow()
            rows = []  # this token's row of K_rot and of V of each kv head, as attention reads them back
            for parts, row in zip(self._kept, (k_rot, v)):
                new = self._store.keep(row)
                for a, part in zip(parts, new):
                    a[:, self._t] = part
                rows.append(self._store.read(*new))
            k_rot, v = rows
            self._pos[self._t] = pos
            slots = self._slots(pos)
            keys, values = self._rows(0, slots), self._rows(1, slots)
            held = self._pos[slots].copy()
            t = len(held)
            # query heads in their groups, (h_kv, h / h_kv, ·), each group against its own K and V: no copy of the
            # cache per query head (group of 1 without sharing: the same products as ever)
            group = w.n_heads // w.n_kv_heads
            grouped = q_rot.reshape(w.n_kv_heads, group, w.d_k)
            if group == 1:
                scores = (keys @ q_rot[:, :, None])[..., 0]  # (h, t, d_k) @ (h, d_k, 1) -> (h, t)
            else:
                scores = (grouped @ keys.transpose(0, 2, 1)).reshape(w.n_heads, t)  # (h_kv, g, d_k) @ (h_kv, d_k, t)
            added = -self._slopes[:, None] * (pos - held)[None, :]  # ALiBi (0 without it)
            scaled = scores / np.sqrt(w.d_k) + added
            probs = softmax(scaled)
            if group == 1:
                heads = (probs[:, None, :] @ values)[:, 0]  # (h, 1, t) @ (h, t, d_v) -> (h, d_v)
            else:
                heads = (probs.reshape(w.n_kv_heads, group, t) @ values).reshape(w.n_heads, w.d_v)
            concat = heads.ravel()
            y = plus(concat @ w.w_o, w.b_o)  # (h d_v,) @ (h d_v, d_model) -> (d_model,)
        if not np.all(np.isfinite(y)) or not np.all(np.isfinite(scores)):
            raise InputError("This token's values overflow float64: scale it down (|x| below 1e100).")
        if t == self._t:  # a token left the window: close its gap, the others keep their order
            for a in (a for parts in self._kept for a in parts):
                a[:, :t] = a[:, slots]
            self._pos[:t] = held
        self._t, self._seen = t, pos + 1
        return DecodeStep(self._t, x, q, k_rot, v, scores, scaled, probs, heads, concat, y,
                          pos, _readonly(held), q_rot, k_rot, added)

    def _rows(self, which: int, slots) -> np.ndarray:
        """The cached rows at `slots` of K (0) or V (1), as attention reads them back from what the storage keeps."""
        return self._store.read(*(a[:, slots] for a in self._kept[which]))

    def _slots(self, pos: int) -> slice | np.ndarray:
        """The slots of the cached tokens (the new one's included) that the token at `pos` reads: every one, or with
        a window the sinks' and the window's (all but the oldest other one, once the window is full)."""
        if not self.cfg.window:
            return slice(self._t + 1)
        held = self._pos[: self._t + 1]
        return np.flatnonzero((held > pos - self.cfg.window) | (held < self.cfg.sinks))

    def _grow(self) -> None:
        cap = self.capacity
        if self._t < cap:
            return
        more = cap if self._most is None else min(cap, self._most - cap)  # doubling (O(1) amortised), to the window's
        self._kept = [[np.concatenate([a, np.empty_like(a[:, :more])], axis=1) for a in parts] for parts in self._kept]
        self._pos = np.concatenate([self._pos, np.empty_like(self._pos[:more])])


def as_numbers(x_row):
    try:
        return np.asarray(x_row, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"The token row must hold numbers only ({e}).") from None


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.view()
    a.setflags(write=False)
    return a
