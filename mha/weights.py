"""The attention's weights: W_Q, W_K, W_V per head, W_O, and the biases a GPT-2 adds after them.

Each array is an own float64 copy that nobody can change (caches and sessions share it), checked for shape and for
NaN or infinity when the weights are made.
"""

from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, InputError

BIASES = ("b_q", "b_k", "b_v", "b_o")


@dataclass(frozen=True, eq=False)
class Weights:
    w_q: np.ndarray  # (h, d_model, d_k)
    w_k: np.ndarray  # (h_kv, d_model, d_k)   h_kv = h, or fewer shared by groups of query heads (GQA, MQA)
    w_v: np.ndarray  # (h_kv, d_model, d_v)
    w_o: np.ndarray  # (h * d_v, d_model)
    # Biases, added after each product (GPT-2's c_attn and c_proj have them): None, as in the post, adds nothing, so
    # every result without them is the same, bit for bit, as before they existed
    b_q: np.ndarray | None = None  # (h, d_k)      Q_i = X W_Qi + b_Qi
    b_k: np.ndarray | None = None  # (h_kv, d_k)
    b_v: np.ndarray | None = None  # (h_kv, d_v)
    b_o: np.ndarray | None = None  # (d_model,)    Y = Concat W_O + b_O

    def __post_init__(self):
        for name in ("w_q", "w_k", "w_v", "w_o", *BIASES):
            if getattr(self, name) is None:
                continue
            a = np.array(getattr(self, name), dtype=np.float64)  # an own, contiguous copy …
            if not np.all(np.isfinite(a)):
                raise InputError(f"{name} holds NaN or infinite values; every weight must be finite.")
            a.flags.writeable = False  # … that nobody can change: caches and sessions share it
            object.__setattr__(self, name, a)
        if self.w_q.ndim != 3 or self.w_v.ndim != 3 or self.w_o.ndim != 2:
            raise InputError(
                "w_q, w_k, w_v must be 3-D (h, d_model, d·) and w_o 2-D (h*d_v, d_model); got "
                f"{self.w_q.shape}, {self.w_k.shape}, {self.w_v.shape}, {self.w_o.shape}."
            )
        h, d_model, d_k = self.w_q.shape
        d_v = self.w_v.shape[2]
        h_kv = self.w_k.shape[0]
        if self.w_k.shape[1:] != (d_model, d_k) or not h_kv or h % h_kv:
            raise InputError(f"w_k must be {(h, d_model, d_k)}, or (h_kv, {d_model}, {d_k}) with h_kv dividing "
                             f"h = {h} for shared K and V (GQA); got {self.w_k.shape}.")
        if self.w_v.shape[:2] != (h_kv, d_model):
            raise InputError(f"w_v must be ({h_kv}, {d_model}, d_v) like w_k; got {self.w_v.shape}.")
        if self.w_o.shape != (h * d_v, d_model):
            raise InputError(f"w_o must be (h*d_v, d_model) = {(h * d_v, d_model)}; got {self.w_o.shape}.")
        shapes = dict(b_q=(h, d_k), b_k=(h_kv, d_k), b_v=(h_kv, d_v), b_o=(d_model,))
        for name, shape in shapes.items():
            if getattr(self, name) is not None and getattr(self, name).shape != shape:
                raise InputError(f"{name} must be {shape}, like the weight it is added after; got "
                                 f"{getattr(self, name).shape}.")

    n_heads = property(lambda self: self.w_q.shape[0])
    d_model = property(lambda self: self.w_q.shape[1])
    d_k = property(lambda self: self.w_q.shape[2])
    d_v = property(lambda self: self.w_v.shape[2])
    n_kv_heads = property(lambda self: self.w_k.shape[0])
    biased = property(lambda self: any(getattr(self, name) is not None for name in BIASES))

    def unbiased(self, what: str) -> "Weights":
        """self, or ConfigError when it has biases, which `what` does not take into account."""
        if self.biased:
            raise ConfigError(f"{what} works on weights without biases; these have "
                              f"{', '.join(n for n in BIASES if getattr(self, n) is not None)} (a GPT-2 checkpoint's).")
        return self


def plus(a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """a + b, b broadcast over a's rows: a head's bias (h, d) over (h, n, d), b_O (d_model,) over (n, d_model). None
    adds nothing (a stays the very same numbers)."""
    if b is None:
        return a
    return a + (b[:, None, :] if b.ndim == 2 and a.ndim == 3 else b)
