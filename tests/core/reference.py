"""A slow reference written straight from the post's formulas, with loops and no numpy matmul.

It shares no code with `mha`: cell (x, y) of A·B is row x of A dotted with column y of B. The variants (GQA, a window
with sinks, ALiBi, interleaved RoPE) and MLA are written here from the issue-34 contract alone.
"""

import math


def matmul(a, b):
    return [[sum(a[r][i] * b[i][c] for i in range(len(b))) for c in range(len(b[0]))] for r in range(len(a))]


def transpose(a):
    return [list(col) for col in zip(*a)]


def attention(x, w_q, w_k, w_v, w_o, knocked=()):
    """x: n lists of d_model floats; w_*: per-head nested lists; returns (S per head, H per head, Y). The heads in
    `knocked` (from 0) write zeros: their H is left out of Concat, in its place a block of 0."""
    n = len(x)
    s_all, h_all = [], []
    for head, (wq, wk, wv) in enumerate(zip(w_q, w_k, w_v)):
        q, k, v = matmul(x, wq), matmul(x, wk), matmul(x, wv)
        d_k = len(wq[0])
        qkt = matmul(q, transpose(k))
        s = []
        for i in range(n):
            row = [qkt[i][j] / math.sqrt(d_k) if j <= i else -math.inf for j in range(n)]
            top = max(row)
            e = [math.exp(a - top) for a in row]
            s.append([a / sum(e) for a in e])
        s_all.append(s)
        h_all.append([[0.0] * len(wv[0]) for _ in range(n)] if head in knocked else matmul(s, v))
    concat = [sum((h[i] for h in h_all), []) for i in range(n)]
    return s_all, h_all, matmul(concat, w_o)


def layer_norm(x, gamma, beta, eps=1e-5):
    """Row by row: subtract the mean, divide by √(biased variance + ε), scale by γ, shift by β."""
    out = []
    for row in x:
        d = len(row)
        mean = sum(row) / d
        var = sum((a - mean) ** 2 for a in row) / d
        out.append([(a - mean) / math.sqrt(var + eps) * g + b for a, g, b in zip(row, gamma, beta)])
    return out


def gelu(a):
    return 0.5 * a * (1 + math.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))


def block(x, bw, knocked=()):
    """GPT-2's pre-LN block written out: x + attn(LN1(x)), then + FFN(LN2(·)). bw: nested lists by name."""
    ln1 = layer_norm(x, bw["ln1_g"], bw["ln1_b"])
    _, _, attn_y = attention(ln1, bw["w_q"], bw["w_k"], bw["w_v"], bw["w_o"], knocked)
    r1 = [[a + b for a, b in zip(p, q)] for p, q in zip(x, attn_y)]
    ln2 = layer_norm(r1, bw["ln2_g"], bw["ln2_b"])
    hidden = [[a + b for a, b in zip(row, bw["b_fc"])] for row in matmul(ln2, bw["w_fc"])]
    act = [[gelu(a) for a in row] for row in hidden]
    ffn = [[a + b for a, b in zip(row, bw["b_proj"])] for row in matmul(act, bw["w_proj"])]
    return [[a + b for a, b in zip(p, q)] for p, q in zip(r1, ffn)]


def block_post(x, bw):
    """The original GPT's post-LN block, cell by cell: add each sublayer's output to its input, then normalise.

    Written out again rather than built from `block`: r1 = LN1(x + attn(x)), y = LN2(r1 + ffn(r1)).
    """
    n, d, d_ff = len(x), len(x[0]), len(bw["b_fc"])

    def norm(rows, gamma, beta, eps=1e-5):
        out = []
        for i in range(n):
            mu = 0.0
            for j in range(d):
                mu += rows[i][j]
            mu /= d
            var = 0.0
            for j in range(d):
                var += (rows[i][j] - mu) * (rows[i][j] - mu)
            var /= d
            out.append([(rows[i][j] - mu) / math.sqrt(var + eps) * gamma[j] + beta[j] for j in range(d)])
        return out

    _, _, attn_y = attention(x, bw["w_q"], bw["w_k"], bw["w_v"], bw["w_o"])  # attention reads x itself
    r1 = norm([[x[i][j] + attn_y[i][j] for j in range(d)] for i in range(n)], bw["ln1_g"], bw["ln1_b"])
    summed = []
    for i in range(n):
        act = []
        for u in range(d_ff):
            h = bw["b_fc"][u]
            for j in range(d):
                h += r1[i][j] * bw["w_fc"][j][u]
            act.append(gelu(h))
        row = []
        for j in range(d):
            f = bw["b_proj"][j]
            for u in range(d_ff):
                f += act[u] * bw["w_proj"][u][j]
            row.append(r1[i][j] + f)
        summed.append(row)
    return norm(summed, bw["ln2_g"], bw["ln2_b"])


def sinusoid(t, j, d_model):
    """The paper's position code, one cell: column 2i is sin(t/10000^(2i/d)), column 2i+1 its cos."""
    i = j // 2
    angle = t / 10000 ** (2 * i / d_model)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


def model_logits(ids, wte, wpe, blocks, lnf_g, lnf_b, knocked=()):
    """Embeddings + positions, the blocks, the final LN, then dot products with every row of E (tied). knocked:
    (layer, head) pairs from 0 whose outputs are zeroed."""
    d = len(wte[0])
    x = [[wte[t][j] + (wpe[i][j] if wpe is not None else sinusoid(i, j, d)) for j in range(d)]
         for i, t in enumerate(ids)]
    for layer, bw in enumerate(blocks):
        x = block(x, bw, {h for la, h in knocked if la == layer})
    return matmul(layer_norm(x, lnf_g, lnf_b), transpose(wte))


def alibi_slopes(h):
    """The ALiBi paper's get_slopes: for a power of two, the geometric run starting at 2^(−8/h) with that ratio;
    otherwise the closest power of two p below h, then every other slope of 2p's run, the first h − p of them."""

    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(h).is_integer():
        return power_of_two(h)
    p = 2 ** math.floor(math.log2(h))
    return power_of_two(p) + alibi_slopes(2 * p)[0::2][: h - p]


def rope(vec, pos, rotary_dims, base):
    """Interleaved RoPE on one vector: pair (2i, 2i+1), i < rotary_dims/2, turns by pos·base^(−2i/rotary_dims);
    the dims from rotary_dims on pass through."""
    out = list(vec)
    for i in range(rotary_dims // 2):
        angle = pos * base ** (-2 * i / rotary_dims)
        a, b = vec[2 * i], vec[2 * i + 1]
        out[2 * i] = a * math.cos(angle) - b * math.sin(angle)
        out[2 * i + 1] = a * math.sin(angle) + b * math.cos(angle)
    return out


def visible(i, j, window, sinks):
    """Whether query i reads key j: causal, and with a window W only i − W < j, or a sink j < sinks."""
    return j <= i and (window == 0 or i - window < j or j < sinks)


def _softmax_row(row):
    top = max(row)
    e = [math.exp(a - top) for a in row]
    return [a / sum(e) for a in e]


def int8_row(row):
    """(codes, scale) of one row, by the rule: scale = max|row| / 127, each code the nearest whole number to
    value / scale (halves to even, as numpy rounds), kept within ±127; a zero row has scale 0 and codes 0."""
    scale = max(abs(a) for a in row) / 127
    if scale == 0:
        return [0] * len(row), 0.0
    return [max(-127, min(127, round(a / scale))) for a in row], scale


def kept_int8(rows):
    """Rows as an int8 cache keeps them and attention reads them back: each code times its row's scale."""
    out = []
    for row in rows:
        codes, scale = int8_row(row)
        out.append([c * scale for c in codes])
    return out


def variant_trace(x, w_q, w_k, w_v, w_o, *, n_kv_heads, window, sinks, alibi, rotary_dims, rope_base, kv_bits=0):
    """Every intermediate of one attention layer with a variant, by loops: w_q (h lists), w_k and w_v (n_kv lists,
    n_kv_heads 0 meaning h); query head a reads KV head a // (h // n_kv). Returns a dict of nested lists:
    q, q_rot (h, n, d_k); k, k_rot (n_kv, n, d_k); v (n_kv, n, d_v); scores = q_rot·k_rot, bias (h, n, n);
    probs (h, n, n); heads (h, n, d_v); y (n, d_model)."""
    n, h = len(x), len(w_q)
    n_kv = n_kv_heads or h
    group = h // n_kv
    d_k = len(w_q[0][0])
    q = [matmul(x, wq) for wq in w_q]
    k = [matmul(x, wk) for wk in w_k]
    v = [matmul(x, wv) for wv in w_v]
    q_rot = [[rope(q[a][i], i, rotary_dims, rope_base) for i in range(n)] for a in range(h)]
    k_rot = [[rope(k[g][j], j, rotary_dims, rope_base) for j in range(n)] for g in range(n_kv)]
    if kv_bits:  # int8: attention reads each row of K_rot and V back from its codes and scale
        k_rot, v = [kept_int8(rows) for rows in k_rot], [kept_int8(rows) for rows in v]
    slopes = alibi_slopes(h) if alibi else [0.0] * h
    scores, bias, probs, heads = [], [], [], []
    for a in range(h):
        g = a // group
        s = [[sum(q_rot[a][i][c] * k_rot[g][j][c] for c in range(d_k)) for j in range(n)] for i in range(n)]
        b = [[-slopes[a] * (i - j) if visible(i, j, window, sinks) else -math.inf for j in range(n)]
             for i in range(n)]
        p = [_softmax_row([s[i][j] / math.sqrt(d_k) + b[i][j] for j in range(n)]) for i in range(n)]
        scores.append(s)
        bias.append(b)
        probs.append(p)
        heads.append(matmul(p, v[g]))
    concat = [sum((hd[i] for hd in heads), []) for i in range(n)]
    return dict(q=q, k=k, v=v, q_rot=q_rot, k_rot=k_rot, scores=scores, bias=bias, probs=probs, heads=heads,
                y=matmul(concat, w_o))


def variant_attention(x, w_q, w_k, w_v, w_o, *, n_kv_heads, window, sinks, alibi, rotary_dims, rope_base, kv_bits=0):
    """(S per query head, H per query head, Y) of one layer with a variant; see variant_trace."""
    t = variant_trace(x, w_q, w_k, w_v, w_o, n_kv_heads=n_kv_heads, window=window, sinks=sinks, alibi=alibi,
                      rotary_dims=rotary_dims, rope_base=rope_base, kv_bits=kv_bits)
    return t["probs"], t["heads"], t["y"]


def mla_attention(x, w_q, w_dkv, w_uk, w_uv, w_o):
    """Multi-head latent attention in the naive order: the latent c = X·W_DKV, then per head K = c·W_UK,
    V = c·W_UV, a causal softmax of QKᵀ/√d_k and H = S·V. Returns (c, S per head, H per head, Y)."""
    n = len(x)
    c = matmul(x, w_dkv)
    s_all, h_all = [], []
    for wq, wuk, wuv in zip(w_q, w_uk, w_uv):
        q, k, v = matmul(x, wq), matmul(c, wuk), matmul(c, wuv)
        d_k = len(wq[0])
        s = [_softmax_row([sum(q[i][e] * k[j][e] for e in range(d_k)) / math.sqrt(d_k) if j <= i else -math.inf
                           for j in range(n)]) for i in range(n)]
        s_all.append(s)
        h_all.append(matmul(s, v))
    concat = [sum((hd[i] for hd in h_all), []) for i in range(n)]
    return c, s_all, h_all, matmul(concat, w_o)
