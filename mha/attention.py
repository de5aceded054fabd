"""The post's walk from X to Y, every intermediate kept: Q, K, V, QKᵀ, ÷√d_k, mask, S, H, Concat, Y.

Shapes use the post's names: n = n_tokens, h = n_heads.
"""

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .config import AttentionConfig
from .errors import ConfigError, InputError
from .variants import FLOATS, KEPT_NAMES, bias, groups, kept, rope, storage
from .weights import Weights, plus

STREAM_WEIGHTS, STREAM_INPUT, STREAM_BLOCK, STREAM_TOKENS = 0, 1, 2, 3  # independent random streams per seed
BLOCK = 64  # forward computes tokens in blocks of this many rows (see forward)


def init_weights(cfg: AttentionConfig, layer: int = 0) -> Weights:
    """Weights fixed by cfg.seed (and the layer, for a stack of blocks). Head i's W_Q, W_K, W_V do not
    change when n_heads grows.

    gaussian: N(0, 1/fan_in), so q·k/√d_k is O(1) and softmax rows are neither one-hot nor flat.
    integers: whole numbers in -1..1, so products can be checked on paper.
    GQA/MQA (cfg.n_kv_heads < n_heads): kv head g keeps the W_K and W_V of the first query head of its group, so
    query head i's W_Q and every W_O are the same as without sharing.
    """
    deeper = [layer] if layer else []  # layer 0 keeps the streams of the single-layer walk
    heads = [
        draw_matrix(cfg, np.random.default_rng([cfg.seed, STREAM_WEIGHTS, i, *deeper]), cfg.d_model,
                    2 * cfg.d_k + cfg.d_v)
        for i in range(cfg.n_heads)
    ]
    w_qkv = np.stack(heads)  # (h, d_model, 2 d_k + d_v)
    w_o = draw_matrix(cfg, np.random.default_rng([cfg.seed, STREAM_WEIGHTS, cfg.n_heads, cfg.d_v, *deeper]),
                cfg.n_heads * cfg.d_v, cfg.d_model)
    d_k = cfg.d_k
    w = Weights(w_qkv[..., :d_k], w_qkv[..., d_k:2 * d_k], w_qkv[..., 2 * d_k:], w_o)
    return share_kv(w, cfg.kv_heads)


def share_kv(w: Weights, n_kv_heads: int) -> Weights:
    """w with its heads in n_kv_heads groups sharing one K and V (GQA; 1 group: MQA): group g keeps the W_K and
    W_V of its first query head, every W_Q and W_O stay. How init_weights makes GQA weights, and how a page turns
    any weights (the trained model's too) into GQA ones."""
    if n_kv_heads == w.n_kv_heads:
        return w
    if w.n_kv_heads != w.n_heads or n_kv_heads < 1 or w.n_heads % n_kv_heads:  # (past h: h % n_kv_heads = h)
        raise ConfigError(f"n_kv_heads must divide n_heads = {w.n_heads}, from weights with a K and V per head; "
                          f"got {n_kv_heads} (the weights have {w.n_kv_heads}).")
    first = np.arange(0, w.n_heads, w.n_heads // n_kv_heads)  # the first query head of every group
    pick = lambda b: None if b is None else b[first]  # noqa: E731 (a shared kv head keeps its first head's bias)
    return Weights(w.w_q, w.w_k[first], w.w_v[first], w.w_o, w.b_q, pick(w.b_k), pick(w.b_v), w.b_o)


def draw_matrix(cfg: AttentionConfig, rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    if cfg.init == "integers":
        return rng.integers(-1, 2, size=(rows, cols))  # whole numbers: Weights and MLAWeights store them as floats
    return rng.standard_normal((rows, cols)) / np.sqrt(rows)


def init_input(cfg: AttentionConfig) -> np.ndarray:
    """X (n_tokens, d_model), fixed by cfg.seed; row i is the same whatever n_tokens is.

    gaussian: N(0, 1) rounded to 2 decimals (easy to read and edit); integers: -2..2.
    """
    return np.stack([_token_row(cfg, i) for i in range(cfg.n_tokens)])  # n_tokens ≥ 1 (AttentionConfig)


def _token_row(cfg: AttentionConfig, i: int) -> np.ndarray:
    rng = np.random.default_rng([cfg.seed, STREAM_INPUT, i])
    if cfg.init == "integers":
        return np.asarray(rng.integers(-2, 3, size=cfg.d_model), dtype=np.float64)  # floats: an edit of 0.5 stays
    return np.round(rng.standard_normal(cfg.d_model), 2)


def next_token(cfg: AttentionConfig, position: int) -> np.ndarray:
    """The seeded embedding of token `position` (0-based): what init_input would put in that row."""
    return _token_row(cfg, position)


def causal_mask(n: int) -> np.ndarray:
    """(n, n) additive mask: 0 on and below the diagonal, -inf above (token i may not see j > i)."""
    return np.triu(np.full((n, n), -np.inf), k=1)


def softmax(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax along `axis`, numerically stable: exp(a - max) never overflows, and exp(-inf) is exactly 0."""
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _softmax_lean(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """softmax's numbers, bit for bit, from one new array of a's size instead of three: forward's (h, n, n)
    scores are its largest arrays."""
    e = a - a.max(axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis, keepdims=True)
    return e


@dataclass(frozen=True, eq=False)
class Trace:
    """Every intermediate of one forward pass, named as in the post."""

    x: np.ndarray  # (n, d_model)          X
    q: np.ndarray  # (h, n, d_k)           Q_i = X W_Qi
    k: np.ndarray  # (h_kv, n, d_k)        K_i = X W_Ki (h_kv = h but for GQA and MQA)
    v: np.ndarray  # (h_kv, n, d_v)        V_i = X W_Vi
    scores: np.ndarray  # (h, n, n)        Q Kᵀ
    scaled: np.ndarray  # (h, n, n)        Q Kᵀ / √d_k
    masked: np.ndarray  # (h, n, n)        scaled + causal mask (-inf above the diagonal)
    probs: np.ndarray  # (h, n, n)         S = softmax(masked) per row (0 above the diagonal)
    heads: np.ndarray  # (h, n, d_v)       H_i = S_i V_i
    concat: np.ndarray  # (n, h d_v)       Concat(H_1..H_h)
    y: np.ndarray  # (n, d_model)          Y = Concat W_O
    # What today's variants add (variant_walk); without them Q_rot = Q, K_rot = K and bias is the causal mask.
    q_rot: np.ndarray | None = None  # (h, n, d_k)     Q after RoPE
    k_rot: np.ndarray | None = None  # (h_kv, n, d_k)  K after RoPE
    bias: np.ndarray | None = None  # (h, n, n)        added to the scaled scores: the mask, and ALiBi's bias
    # The arrays the cache's storage (variants.storage) keeps K_rot and V as, by name (variants.KEPT_NAMES), when it
    # keeps them as other than floats; k_rot and v are then what attention read back from them. Each name is also an
    # attribute of every trace, None where this trace's storage has no such array.
    kept: dict = field(default_factory=dict)

    def __post_init__(self):
        n = len(self.x)
        for name, plain in (("q_rot", self.q), ("k_rot", self.k),
                            ("bias", np.broadcast_to(causal_mask(n), (len(self.q), n, n)))):
            if getattr(self, name) is None:
                object.__setattr__(self, name, plain)

    def __getattr__(self, name: str):  # only for names not found otherwise: a storage's arrays
        if name in KEPT_NAMES:
            return self.kept.get(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def check_input(x, d_model: int) -> np.ndarray:
    """x as a float64 (n, d_model) array of finite numbers, or InputError saying what is wrong."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"X must hold numbers only; could not read it as numbers ({e}).") from None
    if a.ndim != 2 or a.shape[1] != d_model:
        raise InputError(f"X must be a matrix n_tokens × d_model = n × {d_model}; got shape {a.shape}.")
    if a.shape[0] == 0:
        raise InputError("X is empty: it needs at least one token row.")
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        r, c = bad[0]
        raise InputError(
            f"X[{r + 1}, {c + 1}] is {a[r, c]}; every entry must be a finite number "
            f"({len(bad)} such cell(s))."
        )
    return a


def walk(x: np.ndarray, w: Weights, softmax=softmax) -> Trace:
    """The post's walk from X to Y, one line per step. x (n, d_model) -> Trace; h = n_heads.

    forward runs it with softmax=_softmax_lean: the same numbers from less memory. Weights with biases (a GPT-2's)
    take variant_walk, whose lines add them."""
    n = len(x)  # tokens
    q = x @ w.w_q  # Q_i = X W_Qi: (n, d_model) @ (h, d_model, d_k) -> (h, n, d_k)
    k = x @ w.w_k  # K_i = X W_Ki: (h, n, d_k)
    v = x @ w.w_v  # V_i = X W_Vi: (h, n, d_v)
    scores = q @ k.transpose(0, 2, 1)  # Q Kᵀ: (h, n, d_k) @ (h, d_k, n) -> (h, n, n)
    scaled = scores / np.sqrt(w.d_k)  # ÷ √d_k: (h, n, n), a score's spread near 1 whatever d_k is
    masked = scaled + causal_mask(n)  # + mask: (h, n, n), -inf above the diagonal: token i may not see j > i
    probs = softmax(masked)  # S, softmax of each row: (h, n, n), rows sum to 1, exactly 0 above the diagonal
    heads = probs @ v  # H_i = S_i V_i: (h, n, n) @ (h, n, d_v) -> (h, n, d_v)
    concat = heads.transpose(1, 0, 2).reshape(n, w.n_heads * w.d_v)  # Concat(H_1..H_h): (n, h d_v), side by side
    y = concat @ w.w_o  # Y = Concat W_O: (n, h d_v) @ (h d_v, d_model) -> (n, d_model)
    return Trace(x, q, k, v, scores, scaled, masked, probs, heads, concat, y)


def variant_walk(x: np.ndarray, w: Weights, cfg: AttentionConfig, softmax=softmax) -> Trace:
    """The walk with today's changes in `cfg` (see mha.variants): the lines that differ from `walk` say how."""
    n = len(x)
    q = plus(x @ w.w_q, w.b_q)  # Q_i = X W_Qi (+ b_Qi): (h, n, d_k)
    k = plus(x @ w.w_k, w.b_k)  # K_g = X W_Kg: (h_kv, n, d_k), one K for each group of query heads (GQA; MQA: 1)
    v = plus(x @ w.w_v, w.b_v)  # V_g = X W_Vg: (h_kv, n, d_v)
    q_rot = rope(q, np.arange(n), cfg.rotary_dims, cfg.rope_base)  # RoPE: pairs of dims turn by position
    k_rot = rope(k, np.arange(n), cfg.rotary_dims, cfg.rope_base)  # (without RoPE: Q and K as they are)
    store = storage(cfg)  # how the cache keeps each row of K_rot and of V; attention reads them back (floats: as is)
    k_parts, v_parts = store.keep(k_rot), store.keep(v)
    k_rot, v = store.read(*k_parts), store.read(*v_parts)
    g = groups(w.n_heads, w.n_kv_heads)  # query head i reads kv head g[i]
    scores = q_rot @ k_rot[g].transpose(0, 2, 1)  # Q_rot K_rotᵀ: (h, n, n)
    scaled = scores / np.sqrt(w.d_k)  # ÷ √d_k
    added = bias(n, cfg)  # (h, n, n): −inf where a key is hidden (future, outside the window), ALiBi's −m_h (i−j)
    masked = scaled + added
    probs = softmax(masked)  # S, each row over the keys it may see
    heads = probs @ v[g]  # H_i = S_i V_g[i]: (h, n, d_v)
    concat = heads.transpose(1, 0, 2).reshape(n, w.n_heads * w.d_v)  # Concat(H_1..H_h): (n, h d_v)
    y = plus(concat @ w.w_o, w.b_o)  # Y = Concat W_O (+ b_O): (n, d_model)
    return Trace(x, q, k, v, scores, scaled, masked, probs, heads, concat, y, q_rot, k_rot, added,
                 kept(store, k_parts, v_parts))


def forward(x, w: Weights, cfg: AttentionConfig | None = None) -> Trace:
    """Multi-head causal self-attention, keeping every intermediate. x: (n, d_model) -> Trace.

    cfg's variant fields (config.VARIANT_FIELDS: n_kv_heads, window, sinks, alibi, RoPE's, the cache's storage)
    choose variant_walk; its sizes are w's. Without any (or cfg None) it is the post's walk, bit for bit.

    The walk itself is `walk`; around it, forward keeps two promises the walk need not spell out:
    - Exactness. Tokens go through in blocks of BLOCK rows, the last block padded with zero rows that the mask
      hides from every real token. The matrix products then have the same shapes for n and n + 1 tokens, so BLAS
      adds up each real row in the same order and appending a token leaves Y_1..n bit for bit unchanged (the
      post's claim, exactly, while n + 1 stays within the same number of blocks).
    - A reason for every failure: a step whose numbers overflow float64 raises InputError naming that step,
      instead of handing on inf or NaN.
    """
    x = check_input(x, w.d_model)
    cfg = variant_asked(w, cfg)
    n = x.shape[0]
    padded = np.zeros((-(-n // BLOCK) * BLOCK, w.d_model))
    padded[:n] = x
    with np.errstate(over="ignore", invalid="ignore"):
        if cfg is None:
            t = walk(padded, w, softmax=_softmax_lean)
        else:
            t = variant_walk(padded, w, cfg, softmax=_softmax_lean)
    for name, a in (("Q", t.q), ("K", t.k), ("V", t.v), ("QKᵀ", t.scores), ("H", t.heads), ("Y", t.y)):
        checked_finite(name, a)
    return _first(t, x, cfg is not None)


def knock_out(t: Trace, w: Weights, heads) -> Trace:
    """t with the outputs of query heads `heads` (counted from 0) zeroed before W_O: their H_i and their block of
    Concat are 0, and Y = Concat W_O again. S_i stays: where a knocked head looks is unchanged, only what it writes
    is gone. With no heads, t itself."""
    heads = sorted(set(heads))
    if not heads:
        return t
    out = t.heads.copy()
    out[heads] = 0.0
    concat = out.transpose(1, 0, 2).reshape(len(t.x), w.n_heads * w.d_v)  # (n, h d_v), the knocked heads' blocks 0
    return replace(t, heads=out, concat=concat, y=plus(concat @ w.w_o, w.b_o))


def variant_asked(w: Weights, cfg: AttentionConfig | None) -> AttentionConfig | None:
    """cfg when it asks for a variant w can run, None for the post's attention; ConfigError when cfg and w disagree.
    Weights with shared K and V (GQA), or with biases (GPT-2's), need the variant walk even without a cfg."""
    if cfg is None:
        if w.n_kv_heads == w.n_heads and not w.biased:
            return None
        cfg = AttentionConfig(d_k=w.d_k, n_heads=w.n_heads, n_kv_heads=w.n_kv_heads)
    if (cfg.n_heads, cfg.kv_heads) != (w.n_heads, w.n_kv_heads):
        raise ConfigError(f"cfg has n_heads = {cfg.n_heads} and n_kv_heads = {cfg.kv_heads}, but the weights have "
                          f"{w.n_heads} and {w.n_kv_heads}: make the weights with init_weights(cfg).")
    if cfg.rotary_dims > w.d_k:
        raise ConfigError(f"rotary_dims = {cfg.rotary_dims} exceeds the weights' d_k = {w.d_k}.")
    plain = not (cfg.window or cfg.alibi or cfg.rotary_dims or w.biased) and storage(cfg) is FLOATS
    if cfg.kv_heads == cfg.n_heads and plain:
        return None
    return cfg


def checked_finite(name: str, a: np.ndarray) -> np.ndarray:
    """a, or InputError naming the step whose numbers overflow float64. NaN or ±inf anywhere shows in a's min or
    max, which need no bool array of a's size (for the (h, n, n) scores, one more at forward's peak memory)."""
    if a.size and not (math.isfinite(a.min()) and math.isfinite(a.max())):
        raise InputError(
            f"{name} overflows float64 (values beyond ±1.8e308): scale X down, e.g. keep |X| below 1e100."
        )
    return a


def _first(t: Trace, x: np.ndarray, variant: bool) -> Trace:
    """The walk's trace cut to the real tokens, the rows of x (own contiguous copies, so no padding stays held)."""
    n = len(x)
    if len(t.x) == n:
        return replace(t, x=x)
    rows = [a[:, :n].copy() for a in (t.q, t.k, t.v)]
    square = [np.ascontiguousarray(a[..., :n, :n]) for a in (t.scores, t.scaled, t.masked, t.probs)]
    cut = Trace(x, *rows, *square, t.heads[:, :n].copy(), t.concat[:n].copy(), t.y[:n].copy())
    if variant:  # RoPE's Q_rot, K_rot (or Q, K themselves) and the bias the variant used
        bias_n = t.bias[:, :n, :n]
        cut = replace(cut, q_rot=cut.q if t.q_rot is t.q else t.q_rot[:, :n].copy(),
                      k_rot=cut.k if t.k_rot is t.k else t.k_rot[:, :n].copy(),
                      bias=bias_n if bias_n.strides[0] == 0 else np.ascontiguousarray(bias_n))
    if t.kept:  # the storage's arrays of the real rows
        cut = replace(cut, kept={name: a[:, :n].copy() for name, a in t.kept.items()})
    return cut
