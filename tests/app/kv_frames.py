"""The KV-cache stage's animation after X₄ and X₅ are added through a variant, frame by frame, worked out from the
core: the cases both tests/app/test_lab_kv.py (every case, from the figure the server sends) and
tests/e2e/test_lab_kv_e2e.py (two of them, as Chromium draws them) check."""

from dataclasses import replace

import numpy as np

import mha

# The variants, each on a screen (the three screens and both languages among them), checked frame by frame against
# the core: variant -> (screen, link, what the page says, what the figure says in its scores' frame)
STEPPED = [
    ("sinks", "desk", dict(variant="sinks", window=2, sinks=1, lang="en"),
     ["It holds X₁, X₄, X₅", "3 ≤ 3", "X₂, X₃ left"], []),
    ("alibi", "present", dict(variant="alibi", n_heads=4, head=3, lang="zh"), ["0——完全相同"], ["0.015625·(i−j)"]),
    ("rope", "phone", dict(variant="rope", rotary_dims=4, lang="en"), ["Both sides run the same variant"], []),
    ("mla", "desk", dict(variant="mla", d_latent=3, head=2, lang="zh"), ["5×3"], []),
    ("mla", "present", dict(variant="mla", d_latent=3, lang="en"), ["latent c of 5 tokens, 5×3"], []),
    ("mqa", "phone", dict(variant="mqa", n_heads=4, head=3, lang="zh"),
     ["第 3 个头读第 1 个 KV 头，第 1–4 个头共用它（第 1 组）"], []),
]
APPEND, SCORES, SOFTMAX, OUTPUT = 1, 2, 3, 5  # the frames that compute row t of q, k, v; the scores; S; H and Y


def expected_panels(variant: str, link: dict, drawn: int | None = None) -> tuple[list[int], dict]:
    """What the cache's figure should show after X₄ and X₅ are added to the post's X, worked out here from the core
    with the variant's config: the positions held (from 0), and every panel's rows after the step, for the head of
    the link; of a screen that draws the last `drawn` tokens, theirs (S's and the scores' columns too). The page
    decodes through a cache; these come from forward (mla_forward) on all five tokens and on the first four."""
    base = mha.AttentionConfig(n_heads=int(link.get("n_heads", 2)))
    x, w = mha.init_input(base), mha.init_weights(base)
    rows = np.vstack([x, mha.next_token(base, 3), mha.next_token(base, 4)])
    n, h = len(rows), int(link.get("head", 1)) - 1
    if variant == "mla":
        w_mla = mha.mla_from(w, int(link["d_latent"]))
        full, before = mha.mla_forward(rows, w_mla), mha.mla_forward(rows[:-1], w_mla)
        held = list(range(n))
        q, k, v = full.q_absorbed[h], full.latent, full.v[h]  # V rebuilt from c, as the naive order has it
        scaled = full.q_absorbed[h][-1] @ full.latent.T / np.sqrt(w.d_k)
    else:
        change = dict(sinks=dict(window=int(link.get("window", 0)), sinks=int(link.get("sinks", 0))),
                      alibi=dict(alibi=True), rope=dict(rotary_dims=int(link.get("rotary_dims", 0))),
                      mqa=dict(n_kv_heads=1))[variant]
        cfg = replace(base, **change)
        window, sinks = cfg.window or n, cfg.sinks
        held = [j for j in range(n) if j < sinks or j > n - 1 - window]
        size = base.n_heads // cfg.kv_heads  # query heads a KV head serves
        g = h // size  # the KV head query head h reads: each group keeps its first head's W_K and W_V
        w = mha.Weights(w.w_q, w.w_k[::size], w.w_v[::size], w.w_o)
        full, before = mha.forward(rows, w, cfg), mha.forward(rows[:-1], w, cfg)
        q, k, v = full.q_rot[h][held], full.k_rot[g][held], full.v[g][held]
        scaled = (full.scores[h, -1] / np.sqrt(w.d_k) + full.bias[h, -1])[held]
    earlier = held[:-1]
    s = np.full((len(held), len(held)), np.nan)
    s[np.tril_indices(len(held))] = 0.0
    s[:-1, :-1] = np.where(np.isnan(s[:-1, :-1]), np.nan, before.probs[h][np.ix_(earlier, earlier)])
    s[-1] = full.probs[h, -1, held]
    heads = np.vstack([before.heads[h][earlier], full.heads[h, -1]])
    y = np.vstack([before.y[earlier], full.y[-1]])
    last = -min(drawn or len(held), len(held))
    return held, dict(q=q[last:], k=k[last:], v=v[last:], s=s[last:, last:], scaled=scaled[None, last:],
                      h=heads[last:], y=y[last:])


def frame_z(want: dict, frame: int) -> list[np.ndarray]:
    """The heatmaps' values on `frame`, in the figure's order (Q's earlier rows, q_t, K, V, S, the scaled scores, H,
    Y): each panel's row t empty until the frame that computes it, the scaled scores shown on their frame only."""
    def until(a, first):
        a = np.array(a, float)
        if frame < first:
            a[-1] = np.nan
        return a

    return [want["q"][:-1], until(want["q"][-1:], APPEND), until(want["k"], APPEND), until(want["v"], APPEND),
            until(want["s"], SOFTMAX), want["scaled"] if frame == SCORES else np.full_like(want["scaled"], np.nan),
            until(want["h"], OUTPUT), until(want["y"], OUTPUT)]
