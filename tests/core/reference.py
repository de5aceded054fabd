"""A slow reference written straight from the post's formulas, with loops and no numpy matmul.

It shares no code with `mha`: cell (x, y) of A·B is row x of A dotted with column y of B.
"""

import math


def matmul(a, b):
    return [[sum(a[r][i] * b[i][c] for i in range(len(b))) for c in range(len(b[0]))] for r in range(len(a))]


def transpose(a):
    return [list(col) for col in zip(*a)]


def attention(x, w_q, w_k, w_v, w_o):
    """x: n lists of d_model floats; w_*: per-head nested lists; returns (S per head, H per head, Y)."""
    n = len(x)
    s_all, h_all = [], []
    for wq, wk, wv in zip(w_q, w_k, w_v):
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
        h_all.append(matmul(s, v))
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


def block(x, bw):
    """GPT-2's pre-LN block written out: x + attn(LN1(x)), then + FFN(LN2(·)). bw: nested lists by name."""
    ln1 = layer_norm(x, bw["ln1_g"], bw["ln1_b"])
    _, _, attn_y = attention(ln1, bw["w_q"], bw["w_k"], bw["w_v"], bw["w_o"])
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


def model_logits(ids, wte, wpe, blocks, lnf_g, lnf_b):
    """Embeddings + positions, the blocks, the final LN, then dot products with every row of E (tied)."""
    d = len(wte[0])
    x = [[wte[t][j] + (wpe[i][j] if wpe is not None else sinusoid(i, j, d)) for j in range(d)]
         for i, t in enumerate(ids)]
    for bw in blocks:
        x = block(x, bw)
    return matmul(layer_norm(x, lnf_g, lnf_b), transpose(wte))
