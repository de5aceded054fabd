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
