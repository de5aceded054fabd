"""FlashAttention's online softmax (mha.online_attention) against the plain causal softmax, written here with loops:
the result for every tile size, and the running m, ℓ and accumulator after every tile."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha


def causal_attention(q, k, v, seen: int):
    """Row i of softmax(qkᵀ/√d_k + M)·v over the keys j < seen (and j ≤ i), with its max and its sum of exps."""
    n, d_k = q.shape
    out, tops, sums = [], [], []
    for i in range(n):
        keys = [j for j in range(min(seen, i + 1))]
        s = [sum(q[i][c] * k[j][c] for c in range(d_k)) / math.sqrt(d_k) for j in keys]
        top = max(s) if s else -math.inf
        e = [math.exp(a - top) for a in s]
        total = sum(e)
        acc = [sum(e[t] * v[j][c] for t, j in enumerate(keys)) for c in range(v.shape[1])]
        out.append([a / total for a in acc] if total else [math.nan] * v.shape[1])
        tops.append(top)
        sums.append(total)
    return np.array(out), np.array(tops), np.array(sums)


@settings(max_examples=120, deadline=None)
@given(n=st.integers(1, 9), d_k=st.integers(1, 7), d_v=st.integers(1, 6), block=st.integers(1, 11),
       seed=st.integers(0, 2**16), scale=st.sampled_from([0.1, 1.0, 30.0]))
def test_every_tile_size_gives_the_softmax_and_each_tile_the_state_so_far(n, d_k, d_v, block, seed, scale):
    rng = np.random.default_rng(seed)
    q, k = scale * rng.standard_normal((n, d_k)), scale * rng.standard_normal((n, d_k))
    v = rng.standard_normal((n, d_v))
    o = mha.online_attention(q, k, v, block)
    want, _, _ = causal_attention(q, k, v, n)
    np.testing.assert_allclose(o.out, want, rtol=1e-9, atol=1e-12)
    assert [(t.start, t.stop) for t in o.tiles] == [(s, min(s + block, n)) for s in range(0, n, block)]
    for tile in o.tiles:  # after each tile: m the max, ℓ the sum of exps, acc/ℓ the softmax over the keys read
        out, tops, sums = causal_attention(q, k, v, tile.stop)
        np.testing.assert_array_equal(np.isfinite(tile.m), np.isfinite(tops))
        np.testing.assert_allclose(tile.m[np.isfinite(tops)], tops[np.isfinite(tops)], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(tile.l, sums, rtol=1e-9)
        read = sums > 0
        np.testing.assert_allclose(tile.acc[read] / tile.l[read, None], out[read], rtol=1e-9, atol=1e-12)
        assert not tile.acc[~read].any()


def test_the_post_s_head_equals_h_for_every_block_from_1_to_n():
    """On the post's own numbers: head 1's Q, K, V give its H at every tile size."""
    cfg = mha.AttentionConfig()
    tr = mha.forward(mha.init_input(cfg), mha.init_weights(cfg))
    for block in range(1, cfg.n_tokens + 1):
        o = mha.online_attention(tr.q[0], tr.k[0], tr.v[0], block)
        np.testing.assert_allclose(o.out, tr.heads[0], rtol=1e-12, atol=1e-14)
        assert len(o.tiles) == -(-cfg.n_tokens // block)


def test_a_larger_score_in_a_later_tile_rescales_what_came_before():
    """Row 2 sees a small score in tile 1 and a far larger one in tile 2: without the rescale exp(m_old − m_new)
    the first key would keep a weight of about 1 instead of about e⁻¹⁰⁰."""
    q = np.array([[1.0], [1.0]])
    k = np.array([[0.0], [100.0]])
    v = np.array([[1.0], [2.0]])
    o = mha.online_attention(q, k, v, 1)
    np.testing.assert_allclose(o.out[1], [2.0], rtol=0, atol=1e-12)
    assert o.tiles[0].m[1] == 0.0 and o.tiles[1].m[1] == 100.0


@pytest.mark.parametrize("block", [0, -1, 1.5, True, "2"])
def test_a_block_that_is_not_a_whole_number_of_keys_is_refused(block):
    with pytest.raises(mha.ConfigError, match="block"):
        mha.online_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 4)), block)


@pytest.mark.parametrize("q, k, v", [
    (np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 4))),  # v has another n
    (np.ones((2, 3)), np.ones((2, 5)), np.ones((2, 4))),  # k of another width, v as it should be
    (np.ones(3), np.ones(3), np.ones((3, 4))),  # q and k one vector each, alike
    (np.ones((0, 3)), np.ones((0, 3)), np.ones((0, 4))),  # no token
], ids=["v's n", "k's width", "1-D q and k", "no token"])
def test_shapes_that_do_not_belong_together_are_refused(q, k, v):
    """Each alone is refused, in words, before any product is tried."""
    with pytest.raises(mha.InputError, match="^online_attention needs q and k of one shape"):
        mha.online_attention(q, k, v, 1)


def test_the_trace_keeps_its_block_and_each_tiles_masked_scores():
    cfg = mha.AttentionConfig(n_tokens=5)
    t = mha.forward(mha.init_input(cfg), mha.init_weights(cfg))
    o = mha.online_attention(t.q[0], t.k[0], t.v[0], 2)
    assert o.block == 2 and [(tile.start, tile.stop) for tile in o.tiles] == [(0, 2), (2, 4), (4, 5)]
    for tile in o.tiles:  # the tile's columns of QKᵀ/√d_k with the mask: the walk's own, cut to the tile
        np.testing.assert_allclose(tile.scores, t.masked[0][:, tile.start:tile.stop], rtol=1e-12, atol=1e-12)
