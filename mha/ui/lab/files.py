"""The variant lab's files and the KV-cache stage's with a variant: each computed as its page computes it."""

import numpy as np

import mha

from ..exports import LABELS, Part


def variant_part(x: np.ndarray, w: mha.Weights, variant: str, cfg: mha.AttentionConfig, d_latent: int, tile: int,
                 head: int) -> Part:
    """The variant lab, as its page computes it on the walk's X and weights: an attention variant's whole trace
    (Q and K after RoPE, the bias added to the scores; K and V per kv head), MLA's latent and both of its orders,
    or the online softmax's running m, ℓ and accumulator after each tile of the chosen head (0-based). Its files
    record the variant and what it was run with."""
    meta = {"variant": variant}
    if variant == "mla":
        wm = mha.mla_from(w, d_latent)
        tr = mha.mla_forward(x, wm)
        a = {"X": x, "W_Q": wm.w_q, "W_DKV": wm.w_dkv, "W_UK": wm.w_uk, "W_UV": wm.w_uv, "W_O": wm.w_o,
             "c": tr.latent, "Q": tr.q, "K": tr.k, "V": tr.v, "S": tr.probs, "H": tr.heads, "Y": tr.y,
             "Q_absorbed": tr.q_absorbed, "S_absorbed": tr.probs_absorbed, "Y_absorbed": tr.y_absorbed}
        labels = {"W_DKV": ("feature", "latent"), "W_UK": ("latent", "d_k"), "W_UV": ("latent", "d_v"),
                  "c": ("token", "latent"), "Q_absorbed": ("token", "latent"), "S_absorbed": ("query", "key"),
                  "Y_absorbed": ("token", "feature")}
        return Part(a, labels, {**meta, "d_latent": d_latent})
    if variant == "online":
        t = mha.forward(x, w)
        o = mha.online_attention(t.q[head], t.k[head], t.v[head], tile)
        a = {"Q": t.q[head], "K": t.k[head], "V": t.v[head], "m": np.stack([p.m for p in o.tiles]),
             "l": np.stack([p.l for p in o.tiles])}
        a.update({f"acc_tile{i}": p.acc for i, p in enumerate(o.tiles, start=1)}, out=o.out)
        labels = {k: ("tile", "token") for k in ("m", "l")}
        labels.update({k: ("token", "d_v") for k in a if k.startswith("acc") or k == "out"})
        return Part(a, labels, {**meta, "tile": tile, "head": head + 1})
    shared = mha.share_kv(w, cfg.kv_heads)
    t = mha.forward(x, shared, cfg)
    # Q_rot and K_rot where RoPE turned them (int8: K_rot is what attention read back), the bias where a window or
    # ALiBi added one: elsewhere copies of Q, K and the causal mask (audit 2026-12-04 #14, the GQA files)
    turned = {"Q_rot": t.q_rot} if cfg.rotary_dims else {}
    turned |= {"K_rot": t.k_rot} if cfg.rotary_dims or cfg.kv_bits else {}
    a = {"X": t.x, "W_Q": shared.w_q, "W_K": shared.w_k, "W_V": shared.w_v, "W_O": shared.w_o, "Q": t.q, "K": t.k,
         "V": t.v, **turned, "QK^T": t.scores, "QK^T_scaled": t.scaled,
         **({"bias": t.bias} if cfg.window or cfg.alibi else {}),
         "QK^T_masked": t.masked, "S": t.probs, "H": t.heads, "Concat": t.concat, "Y": t.y}
    labels = {"Q_rot": LABELS["Q"], "K_rot": LABELS["K"], "bias": ("query", "key")}
    for name, kept in t.kept.items():  # what the cache keeps K_rot and V as, when not floats (they are read back)
        m, part = name.split("_", 1)
        a[f"{m.upper()}_{part}"] = kept
        labels[f"{m.upper()}_{part}"] = LABELS[m.upper()] if kept.ndim == 3 else ("head", "token")
    return Part(a, labels, {**meta, **mha.variant_fields(cfg)})


def cache_variant_part(x: np.ndarray, w: mha.Weights, variant: str, cfg: mha.AttentionConfig, d_latent: int) -> Part:
    """The KV-cache stage with a variant: the lab's arrays for it on the rows decoded (variant_part) and what its
    cache holds after the last token: K_cache and V_cache of the kv heads, the positions held (MLA's cache is the
    latent c, already there)."""
    part = variant_part(x, w, variant, cfg, d_latent, 1, 0)
    if variant == "mla":
        return part
    cache, _ = mha.decode(x, mha.share_kv(w, cfg.kv_heads), cfg)
    arrays = {**part.arrays, "K_cache": cache.k, "V_cache": cache.v, "positions": cache.positions}
    labels = {**part.labels, "K_cache": LABELS["K"], "V_cache": LABELS["V"], "positions": ("row", "token")}
    return Part(arrays, labels, part.meta)
