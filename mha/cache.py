"""KV cache: decode one token at a time, keeping K and V of past tokens and never Q.

Row t of H is S_t · V and S_t = softmax(q_t Kᵀ / √d_k): it needs this token's q and every k, v so
far, but no earlier q. So q is computed, used once and dropped; k and v rows are kept.
"""

from dataclasses import dataclass

import numpy as np

from .attention import Weights, check_input, softmax
from .errors import InputError


@dataclass(frozen=True, eq=False)
class DecodeStep:
    """What one appended token computed. t = tokens in the cache after this step."""

    t: int
    x: np.ndarray  # (d_model,)     the new token X_t
    q: np.ndarray  # (h, d_k)       q_t: used for this row of scores, then discarded
    k: np.ndarray  # (h, d_k)       k_t: appended to the K cache
    v: np.ndarray  # (h, d_v)       v_t: appended to the V cache
    scores: np.ndarray  # (h, t)    q_t Kᵀ against every cached key
    scaled: np.ndarray  # (h, t)    ÷ √d_k
    probs: np.ndarray  # (h, t)     S_t: softmax over the t keys (no mask needed: none is in the future)
    heads: np.ndarray  # (h, d_v)   H_t = S_t V
    concat: np.ndarray  # (h d_v,)
    y: np.ndarray  # (d_model,)     Y_t


class KVCache:
    """K (h, t, d_k) and V (h, t, d_v) of the tokens seen so far; amortised O(1) append."""

    def __init__(self, w: Weights, capacity: int = 16):
        self.w = w
        self._t = 0
        self._k = np.empty((w.n_heads, max(1, capacity), w.d_k))
        self._v = np.empty((w.n_heads, max(1, capacity), w.d_v))
        # [W_Q | W_K | W_V] of every head side by side, (d_model, h (2 d_k + d_v)), contiguous: one
        # vector-matrix product per token instead of 3 h small strided ones (about twice as fast).
        # A copy made here, so w's arrays must not be changed in place while the cache is in use.
        self._w_qkv = np.concatenate([w.w_q, w.w_k, w.w_v], axis=2).transpose(1, 0, 2).reshape(w.d_model, -1)

    def __len__(self) -> int:
        return self._t

    @property
    def k(self) -> np.ndarray:
        """Cached keys (h, t, d_k), a read-only view."""
        return _readonly(self._k[:, : self._t])

    @property
    def v(self) -> np.ndarray:
        """Cached values (h, t, d_v), a read-only view."""
        return _readonly(self._v[:, : self._t])

    @property
    def nbytes(self) -> int:
        """Bytes the t cached K and V rows hold (not the spare capacity)."""
        return self._t * self.w.n_heads * (self.w.d_k + self.w.d_v) * self._k.itemsize

    def append(self, x_row) -> DecodeStep:
        """Feed token X_t (d_model,) and return its step; the cache grows by one row per head."""
        w = self.w
        x = check_input(np.reshape(_numbers(x_row), (1, -1)), w.d_model)[0]
        with np.errstate(over="ignore", invalid="ignore"):
            qkv = (x @ self._w_qkv).reshape(w.n_heads, -1)  # (d_model,) @ (d_model, h (2d_k+d_v)) -> (h, ·)
            q, k, v = np.split(qkv, [w.d_k, 2 * w.d_k], axis=1)  # (h, d_k), (h, d_k), (h, d_v)
            self._grow()
            self._k[:, self._t], self._v[:, self._t] = k, v
            self._t += 1
            keys, values = self._k[:, : self._t], self._v[:, : self._t]
            scores = (keys @ q[:, :, None])[..., 0]  # (h, t, d_k) @ (h, d_k, 1) -> (h, t)
            scaled = scores / np.sqrt(w.d_k)
            probs = softmax(scaled)
            heads = (probs[:, None, :] @ values)[:, 0]  # (h, 1, t) @ (h, t, d_v) -> (h, d_v)
            concat = heads.reshape(-1)
            y = concat @ w.w_o  # (h d_v,) @ (h d_v, d_model) -> (d_model,)
        if not np.all(np.isfinite(y)) or not np.all(np.isfinite(scores)):
            self._t -= 1
            raise InputError("This token's values overflow float64: scale it down (|x| below 1e100).")
        return DecodeStep(self._t, x, q, k, v, scores, scaled, probs, heads, concat, y)

    def _grow(self) -> None:
        cap = self._k.shape[1]
        if self._t < cap:
            return
        self._k = np.concatenate([self._k, np.empty_like(self._k)], axis=1)  # doubling: O(1) amortised
        self._v = np.concatenate([self._v, np.empty_like(self._v)], axis=1)


def _numbers(x_row):
    try:
        return np.asarray(x_row, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"The token row must hold numbers only ({e}).") from None


def _readonly(a: np.ndarray) -> np.ndarray:
    a = a.view()
    a.flags.writeable = False
    return a
