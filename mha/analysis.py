"""What the post argues about the layer: who depends on whom, and what the KV cache saves."""

from dataclasses import dataclass

import numpy as np

from .attention import Weights, forward
from .config import AttentionConfig
from .errors import ConfigError
from .variants import storage


def dependency(x, w: Weights) -> np.ndarray:
    """(n, n): D[i, j] = ‖∂Y_i/∂X_j‖_F, the Frobenius norm of that d_model × d_model Jacobian block.

    Exact (closed form, no finite differences). Zero above the diagonal: Y_i = f_i(X_1..X_i).
    With A = QKᵀ/√d_k and S = softmax(A) per row, for a nudge u of X_j (a row vector):
      dA_im = [i=j] u·W_Q k_m/√d_k + [m=j] u·W_K q_i/√d_k,  dS_im = S_im (dA_im − Σ_l S_il dA_il),
      dH_i  = Σ_m dS_im V_m + S_ij u W_V,                    dY_i = Σ_heads dH_i W_O(head rows).
    Cost O(h · n² · d_model²) time, O(n · d_model²) memory.
    """
    tr = forward(x, w)
    n, d_model = tr.x.shape
    d_v, root = w.d_v, np.sqrt(w.d_k)
    w_o = w.w_o.reshape(w.n_heads, d_v, d_model)  # head i's block of W_O rows
    p = w.w_v @ w_o  # (h, d_model, d_v) @ (h, d_v, d_model) -> (h, d_model, d_model)
    out = np.zeros((n, n))
    for i in range(n):
        jac = np.zeros((i + 1, d_model, d_model))  # ∂Y_i/∂X_j for j = 0..i
        for h in range(w.n_heads):
            s = tr.probs[h, i, : i + 1]  # (i+1,)
            k, v, hi = tr.k[h, : i + 1], tr.v[h, : i + 1], tr.heads[h, i]
            b = w.w_k[h] @ tr.q[h, i] / root  # (d_model,)   how X_j moves A_ij through k_j
            r = (v - hi) @ w_o[h]  # (i+1, d_model)                     (V_j − H_i) W_O
            jac += s[:, None, None] * (b[None, :, None] * r[:, None, :] + p[h])
            a = w.w_q[h] @ k.T / root  # (d_model, i+1): how X_i moves A_im through q_i
            diag = (a * s) @ v - np.outer(a @ s, hi)  # (d_model, d_v)
            jac[i] += diag @ w_o[h]
        out[i, : i + 1] = np.sqrt(np.sum(jac**2, axis=(1, 2)))
    return out


@dataclass(frozen=True)
class Cost:
    """FLOPs (a multiply-add counts 2, matrix products only) and bytes (values touched, itemsize each). Every field
    is an int, or an int64 array shaped like t when t is an array of steps."""

    t: int  # tokens in the sequence after this step
    step_flops_cached: int  # produce Y_t from X_t and the cache of the tokens before it
    step_flops_recompute: int  # produce Y_t by running forward on all t tokens
    step_bytes_cached: int
    step_bytes_recompute: int
    gen_flops_cached: int  # generate tokens 1..t, one cached step each
    gen_flops_recompute: int  # generate tokens 1..t, a full forward each time
    cache_bytes: int  # what the cache holds after step t: K and V of `held` tokens (MLA: their latent rows)
    held: int  # L, the tokens the cache holds after step t and the keys step t reads: t, or min(t, sinks + window)


def cost(cfg: AttentionConfig, t: int | np.ndarray | None = None, itemsize: int = 8, d_latent: int = 0) -> Cost:
    """Cost of step t (default cfg.n_tokens; an int, or an array of steps) and of generating t tokens, with and
    without the cache, for the attention cfg describes; with d_latent > 0, MLA's (mha.MLACache, absorbed order).

    mha.KVCache (h query heads, n_kv = cfg.kv_heads heads of K and V), per token:
      P = 2·d_model·(h·d_k + n_kv·(d_k + d_v))   one product x·[W_Q | W_K | W_V]
      O = 2·h·d_v·d_model                        Concat·W_O
      cached step t:  P + 2·h·L·(d_k + d_v) + O  every query head scores each of the L keys held and weighs its value
      recompute t:    t·P + 2·h·t²·(d_k + d_v) + t·O  (all t rows, the whole t×t scores: forward masks what is hidden)
    L = t, or min(t, sinks + window) with a window. ALiBi's bias and RoPE's turn are element-wise, not matrix
    products: not counted, as the softmax is not.
    mha.MLACache (d_c = d_latent; cfg's n_kv_heads, window and sinks must be off): x·W_Q and x·W_DKV, W_UK folded
    into the query and W_UV applied after the softmax, P = 2·d_model·(h·d_k + d_c) + 2·h·d_c·(d_k + d_v); scores
    against the latent rows and S·c, 4·h·L·d_c with L = t (the recompute 4·h·t²·d_c).
    Bytes: every weight once, plus
      cached:    X_t, the L rows the cache holds (n_kv·(d_k + d_v), or d_c, a token, in the bytes its storage keeps
                 them in: variants.Storage.nbytes), one score row per head, Y_t
      recompute: X, Q, K, V (MLA: c, Q, Q·W_UKᵀ and S·c), the h·t² scores, H and Y of all t tokens.
    Generation sums the steps 1..t in closed form: Σt = t(t+1)/2, Σt² = t(t+1)(2t+1)/6 and, with a window,
    Σ min(τ, s + W) = m(m+1)/2 + (t − m)·(s + W) where m = min(t, s + W).
    """
    if isinstance(d_latent, (bool, np.bool_)) or not isinstance(d_latent, (int, np.integer)) or d_latent < 0:
        raise ConfigError(f"d_latent must be a whole number >= 0 (0: no MLA); got {d_latent!r}.")
    if d_latent and (cfg.kv_heads != cfg.n_heads or cfg.window or cfg.sinks):
        raise ConfigError("MLA caches one latent row per token for every head: its cost takes no n_kv_heads, "
                          f"window or sinks; got n_kv_heads={cfg.n_kv_heads}, window={cfg.window}, sinks={cfg.sinks}.")
    steps = np.asarray(cfg.n_tokens if t is None else t)
    t = steps.astype(np.int64) if steps.ndim else int(steps)
    least = np.minimum if steps.ndim else min
    h, d, dk, dv, c = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, int(d_latent)
    o = 2 * h * dv * d
    if c:
        p, a = 2 * d * (h * dk + c) + 2 * h * c * (dk + dv), 4 * h * c
        most, row = 0, c  # MLA keeps every token: no bound on L
        row_bytes = itemsize * row
        weights = d * h * dk + d * c + h * c * (dk + dv) + h * dv * d
        made = t * c + h * t * dk + 2 * h * t * c  # c, Q, Q·W_UKᵀ and S·c of all t rows
    else:
        g = cfg.kv_heads
        p, a = 2 * d * (h * dk + g * (dk + dv)), 2 * h * (dk + dv)
        most, row = (cfg.sinks + cfg.window if cfg.window else 0), g * (dk + dv)
        row_bytes = storage(cfg).nbytes(row, 2 * g, itemsize)  # as the storage keeps the 2 g rows of K and V
        weights = d * (h * dk + g * (dk + dv)) + h * dv * d
        made = t * (h * dk + g * (dk + dv))  # Q, K and V of all t rows
    held = least(t, most) if most else t
    s1, s2 = t * (t + 1) // 2, t * (t + 1) * (2 * t + 1) // 6
    held_sum = held * (held + 1) // 2 + (t - held) * most  # Σ min(τ, L) over τ = 1..t (no window: held = t, s1)
    return Cost(
        t=t,
        step_flops_cached=p + a * held + o,
        step_flops_recompute=t * (p + o) + a * t * t,
        step_bytes_cached=itemsize * (weights + d + h * held + d) + held * row_bytes,
        step_bytes_recompute=itemsize * (weights + t * d + made + h * t * t + h * t * dv + t * d),
        gen_flops_cached=t * (p + o) + a * held_sum,
        gen_flops_recompute=s1 * (p + o) + a * s2,
        cache_bytes=held * row_bytes,
        held=held,
    )


def head_roles(probs: np.ndarray, ids) -> tuple[np.ndarray, np.ndarray]:
    """Two scores per head of one layer's attention S (h, n, n) on the token ids (n,):

    previous-token: the mean of S[i, i-1] over rows i >= 1 (nan when n = 1);
    induction: the mean of S[i, j+1] over the rows i whose token appeared before, j being its latest earlier
    position (j + 1 <= i: the token that followed that occurrence); nan when no token repeats.
    On a sequence that is L tokens twice, the induction rows are the second copy and j + 1 = i - L + 1.
    """
    probs, ids = np.asarray(probs, dtype=float), np.asarray(ids)
    n = probs.shape[-1]
    rows = np.arange(1, n)
    prev = probs[:, rows, rows - 1].mean(-1) if n > 1 else np.full(probs.shape[0], np.nan)
    last, pairs = {}, []
    for i, tok in enumerate(ids.tolist()):
        if tok in last:
            pairs.append((i, last[tok] + 1))
        last[tok] = i
    if not pairs:
        return prev, np.full(probs.shape[0], np.nan)
    i, j = np.array(pairs).T
    return prev, probs[:, i, j].mean(-1)


ROLE_FLOOR = 0.4  # a head is named for a score at least this high (uniform attention over i+1 keys gives 1/(i+1))
ROLE_MARGIN = 0.05  # ... and at least this far above what untrained weights score on the same sequence


def role_bars(untrained: list[tuple[np.ndarray, np.ndarray]], floor: float = ROLE_FLOOR,
              margin: float = ROLE_MARGIN) -> tuple[float, float]:
    """The previous-token and induction scores a head must reach to be named on a sequence, given head_roles of
    every layer of the untrained model on that same sequence: `floor`, or `margin` above the best untrained head's
    score, whichever is higher. Untrained weights already score something (the mask alone puts row 2's whole weight
    on two keys), so a name says the head stands clear of that, not only of a fixed bar."""
    bars = []
    for kind in (0, 1):
        scores = np.concatenate([np.asarray(roles[kind], dtype=float).ravel() for roles in untrained])
        best = np.nanmax(scores) if np.isfinite(scores).any() else -np.inf
        bars.append(float(max(floor, best + margin)))
    return bars[0], bars[1]
