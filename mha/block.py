"""The GPT block around the post's attention: layer norm, residual connections and a feed-forward network.

Two orders of the same parts and the same weights, every intermediate kept (n = n_tokens; FFN(z) =
GELU(z·W_fc + b_fc)·W_proj + b_proj):
    pre  (GPT-2, the default):  r1 = x + MHA(LN₁(x))       y = r1 + FFN(LN₂(r1))
    post (the original GPT, the figure the post ends on):  r1 = LN₁(x + MHA(x))   y = LN₂(r1 + FFN(r1))
Pre-LN leaves the residual path from x to y a plain sum; post-LN normalises the stream itself after each sublayer.
LN and the FFN act on each row alone, so in both orders the post's claim carries over: row i of y depends on rows
1..i of x.
"""

from dataclasses import dataclass

import numpy as np

from .attention import STREAM_BLOCK, Trace, Weights, check_input, checked_finite, forward, init_weights, knock_out
from .config import AttentionConfig
from .errors import ConfigError, InputError

EPS = 1e-5  # GPT-2's layer-norm epsilon
# Where the layer norms sit: GPT-2's order (before each sublayer), the original GPT's (after each residual sum)
ORDERS = ("pre", "post")


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = EPS) -> np.ndarray:
    """(n, d) -> (n, d): each row to mean 0 and (biased) variance 1, then scaled by γ and shifted by β."""
    mean = np.mean(x, axis=-1, keepdims=True)  # (n, 1)
    var = np.var(x, axis=-1, keepdims=True)  # (n, 1), divides by d (biased), as GPT-2 does
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def gelu(x: np.ndarray) -> np.ndarray:
    """GPT-2's GELU, the tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


@dataclass(frozen=True, eq=False)
class BlockWeights:
    attn: Weights
    ln1_g: np.ndarray  # (d_model,)  γ of the LN before attention
    ln1_b: np.ndarray  # (d_model,)  β
    ln2_g: np.ndarray  # (d_model,)  γ of the LN before the FFN
    ln2_b: np.ndarray  # (d_model,)
    w_fc: np.ndarray  # (d_model, d_ff)  up-projection
    b_fc: np.ndarray  # (d_ff,)
    w_proj: np.ndarray  # (d_ff, d_model)  down-projection
    b_proj: np.ndarray  # (d_model,)

    def __post_init__(self):
        d = self.attn.d_model
        for name in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_fc", "b_fc", "w_proj", "b_proj"):
            a = np.array(getattr(self, name), dtype=np.float64)  # an own copy that nobody can change
            if not np.all(np.isfinite(a)):
                raise InputError(f"{name} holds NaN or infinite values; every weight must be finite.")
            a.flags.writeable = False
            object.__setattr__(self, name, a)
        d_ff = self.w_fc.shape[-1] if self.w_fc.ndim == 2 else -1
        expected = dict(ln1_g=(d,), ln1_b=(d,), ln2_g=(d,), ln2_b=(d,), w_fc=(d, d_ff), b_fc=(d_ff,),
                        w_proj=(d_ff, d), b_proj=(d,))
        for name, shape in expected.items():
            if getattr(self, name).shape != shape:
                raise InputError(f"{name} must have shape {shape} (d_model={d}, d_ff={d_ff}); "
                                 f"got {getattr(self, name).shape}.")

    d_model = property(lambda self: self.attn.d_model)
    d_ff = property(lambda self: self.w_fc.shape[1])


def init_block(cfg: AttentionConfig, layer: int = 0, attn: Weights | None = None) -> BlockWeights:
    """A block fixed by cfg.seed and the layer. Layer 0's attention is init_weights(cfg): the walk's own.

    gaussian: W_fc ~ N(0, 1/d_model), W_proj ~ N(0, 1/d_ff), biases, γ − 1 and β ~ N(0, 0.1²) rounded to
    2 decimals (so the LN's scale and shift are visible); integers: W in −1..1, γ = 1, β = 0, biases 0.
    `attn`: init_weights(cfg, layer) where the caller holds it already, so that the block shares it, not a copy.
    """
    attn = init_weights(cfg, layer) if attn is None else attn
    rng = np.random.default_rng([cfg.seed, STREAM_BLOCK, layer])
    d, f = cfg.d_model, cfg.d_ff
    if cfg.init == "integers":
        w_fc, w_proj = (rng.integers(-1, 2, size=s).astype(np.float64) for s in ((d, f), (f, d)))
        ones, zeros = np.ones(d), np.zeros(d)
        return BlockWeights(attn, ones, zeros, ones, zeros, w_fc, np.zeros(f), w_proj, zeros)
    small = lambda *shape: np.round(0.1 * rng.standard_normal(shape), 2)
    w_fc = rng.standard_normal((d, f)) / np.sqrt(d)
    w_proj = rng.standard_normal((f, d)) / np.sqrt(f)
    return BlockWeights(attn, 1 + small(d), small(d), 1 + small(d), small(d), w_fc, small(f), w_proj, small(d))


@dataclass(frozen=True, eq=False)
class BlockTrace:
    """Every intermediate of one GPT block, in either order (`ln`).

    pre (GPT-2): ln1 = LN₁(x) is the attention's input, r1 = sum1 = x + attn.y, ln2 = LN₂(r1) is the FFN's input,
    y = sum2 = r1 + ffn.
    post (the original GPT): x is the attention's input, sum1 = x + attn.y, ln1 = r1 = LN₁(sum1) is the FFN's
    input, sum2 = r1 + ffn, ln2 = y = LN₂(sum2).
    In both, r1 is the stream between the two sublayers and sum1, sum2 the two residual sums.
    """

    x: np.ndarray  # (n, d_model)   the block's input
    ln1: np.ndarray  # (n, d_model)   the first layer norm's output: LN₁(x) (pre), LN₁(sum1) (post)
    attn: Trace  # the post's whole walk on attn_in; attn.y is (n, d_model)
    r1: np.ndarray  # (n, d_model)    the stream after attention: sum1 (pre), ln1 (post)
    ln2: np.ndarray  # (n, d_model)   the second layer norm's output: LN₂(r1) (pre), LN₂(sum2) = y (post)
    hidden: np.ndarray  # (n, d_ff)   ffn_in·W_fc + b_fc
    act: np.ndarray  # (n, d_ff)      GELU(hidden)
    ffn: np.ndarray  # (n, d_model)   act·W_proj + b_proj
    y: np.ndarray  # (n, d_model)     the block's output: sum2 (pre), ln2 (post)
    sum1: np.ndarray  # (n, d_model)  x + attn.y, the first residual sum
    sum2: np.ndarray  # (n, d_model)  r1 + ffn, the second residual sum
    ln: str = "pre"  # the order: "pre" or "post"

    @property
    def attn_in(self) -> np.ndarray:
        """What attention reads: LN₁(x) (pre) or x (post)."""
        return self.ln1 if self.ln == "pre" else self.x

    @property
    def ln1_in(self) -> np.ndarray:
        """What the first layer norm reads: x (pre) or x + attn.y (post)."""
        return self.x if self.ln == "pre" else self.sum1

    @property
    def ffn_in(self) -> np.ndarray:
        """What the FFN reads: LN₂(r1) (pre) or r1 = LN₁(x + attn.y) (post)."""
        return self.ln2 if self.ln == "pre" else self.r1

    @property
    def ln2_in(self) -> np.ndarray:
        """What the second layer norm reads: r1 (pre) or r1 + ffn (post)."""
        return self.r1 if self.ln == "pre" else self.sum2


def check_order(ln: str) -> str:
    if ln not in ORDERS:
        raise ConfigError(f"ln must be one of {', '.join(map(repr, ORDERS))} (where the layer norms sit); got {ln!r}.")
    return ln


def block(x, bw: BlockWeights, ln: str = "pre", knocked=()) -> BlockTrace:
    """One GPT block on x (n, d_model), keeping every intermediate: GPT-2's pre-LN order, or with ln="post" the
    original GPT's, r1 = LN₁(x + MHA(x)), y = LN₂(r1 + FFN(r1)), on the same weights.

    ConfigError for another `ln`. InputError where a step overflows float64, and where a row of x or of a residual
    sum (a layer norm's input, here or in the next block) is too large for a layer norm: its variance would
    overflow and LN would quietly turn that row into β.
    """
    check_order(ln)
    x = check_input(x, bw.d_model)
    with np.errstate(over="ignore", invalid="ignore"):
        if ln == "pre":
            ln1 = layer_norm(x, bw.ln1_g, bw.ln1_b)
            attn = knock_out(forward(ln1, bw.attn), bw.attn, knocked)
            r1 = sum1 = checked_finite("x + attention", x + attn.y)
            ln2 = layer_norm(r1, bw.ln2_g, bw.ln2_b)
            hidden, act, ffn = _ffn(ln2, bw)
            y = sum2 = checked_finite("the block's output", r1 + ffn)
        else:
            attn = knock_out(forward(x, bw.attn), bw.attn, knocked)
            sum1 = checked_finite("x + attention", x + attn.y)
            r1 = ln1 = layer_norm(sum1, bw.ln1_g, bw.ln1_b)
            hidden, act, ffn = _ffn(r1, bw)
            sum2 = checked_finite("the block's output", r1 + ffn)
            y = ln2 = layer_norm(sum2, bw.ln2_g, bw.ln2_b)
        if not all(np.all(np.isfinite(np.var(a, axis=-1))) for a in (x, sum1, sum2)):
            raise InputError("a layer norm's variance overflows float64: X is too large for the block.")
    return BlockTrace(x, ln1, attn, r1, ln2, hidden, act, ffn, y, sum1, sum2, ln)


def _ffn(z: np.ndarray, bw: BlockWeights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The FFN on each row of z: hidden = z·W_fc + b_fc, act = GELU(hidden), ffn = act·W_proj + b_proj."""
    hidden = checked_finite("the FFN", z @ bw.w_fc + bw.b_fc)  # (n, d_model) @ (d_model, d_ff) -> (n, d_ff)
    act = gelu(hidden)
    ffn = checked_finite("the FFN", act @ bw.w_proj + bw.b_proj)  # (n, d_ff) @ (d_ff, d_model) -> (n, d_model)
    return hidden, act, ffn


def block_row(x_row: np.ndarray, bw: BlockWeights, attend, ln: str = "pre") -> np.ndarray:
    """One new row through the block, given `attend`: the attention's input row -> its output row (d_model,).

    The KV-cache path: attention needs the cached keys and values, everything else is this row alone. `ln` as in
    block: pre-LN attends to LN₁ of the row, post-LN to the row itself.
    """
    check_order(ln)
    if ln == "post":
        r1 = layer_norm((x_row + attend(x_row))[None], bw.ln1_g, bw.ln1_b)[0]
        ffn = gelu(r1 @ bw.w_fc + bw.b_fc) @ bw.w_proj + bw.b_proj
        return layer_norm((r1 + ffn)[None], bw.ln2_g, bw.ln2_b)[0]
    ln1 = layer_norm(x_row[None], bw.ln1_g, bw.ln1_b)[0]
    r1 = x_row + attend(ln1)
    ln2 = layer_norm(r1[None], bw.ln2_g, bw.ln2_b)[0]
    return r1 + gelu(ln2 @ bw.w_fc + bw.b_fc) @ bw.w_proj + bw.b_proj
