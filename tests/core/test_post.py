"""The post's own example, claim by claim, at its sizes (3 tokens, 5, 7, 11, 2 heads)."""

import numpy as np
import pytest

import mha


@pytest.fixture(scope="module")
def post():
    cfg = mha.AttentionConfig()
    w = mha.init_weights(cfg)
    return cfg, w, mha.forward(mha.init_input(cfg), w)


def test_defaults_are_the_posts_primes():
    cfg = mha.AttentionConfig()
    assert (cfg.n_tokens, cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed) == (3, 5, 7, 11, 2, 0)


def test_every_shape_in_the_post(post):
    cfg, w, t = post
    assert t.x.shape == (3, 5)  # X
    assert w.w_q.shape == w.w_k.shape == (2, 5, 7)  # W_Q1, W_Q2, W_K1, W_K2: 5×7
    assert w.w_v.shape == (2, 5, 11)  # W_V: 5×11
    assert w.w_o.shape == (22, 5)  # W_O: 22×5
    assert t.q.shape == t.k.shape == (2, 3, 7)  # Q, K: 3×7 per head
    assert t.scores.shape == t.scaled.shape == t.masked.shape == t.probs.shape == (2, 3, 3)  # QKᵀ 3×3
    assert t.v.shape == t.heads.shape == (2, 3, 11)  # V, H: 3×11
    assert t.concat.shape == (3, 22)  # Concat(H1, H2)
    assert t.y.shape == (3, 5)  # Y


def test_the_posts_mask_example():
    a = np.arange(1.0, 10.0).reshape(3, 3)
    inf = np.inf
    np.testing.assert_array_equal(a + mha.causal_mask(3), [[1, -inf, -inf], [4, 5, -inf], [7, 8, 9]])


def test_mask_then_softmax_gives_zero_upper_triangle_and_unit_rows(post):
    _, _, t = post
    upper = np.triu(np.ones((3, 3), bool), k=1)
    assert np.all(t.masked[:, upper] == -np.inf)
    assert np.all(t.probs[:, upper] == 0.0)
    np.testing.assert_allclose(t.probs.sum(-1), 1.0, atol=1e-15)


def test_scaling_is_by_root_d_k(post):
    _, _, t = post
    np.testing.assert_allclose(t.scaled, t.scores / np.sqrt(7), rtol=0, atol=0)


def test_concat_puts_head_blocks_side_by_side(post):
    _, _, t = post
    np.testing.assert_array_equal(t.concat[:, :11], t.heads[0])
    np.testing.assert_array_equal(t.concat[:, 11:], t.heads[1])


def test_default_softmax_rows_show_structure(post):
    """Neither one-hot nor flat: the example has something to look at."""
    _, _, t = post
    rows = [t.probs[h, i, : i + 1] for h in range(2) for i in range(1, 3)]
    assert all(r.max() < 0.99 for r in rows)
    assert any(r.max() - r.min() > 0.2 for r in rows)


def test_kv_cache_story_of_the_post(post):
    """Append X_4: Y_1..3 unchanged (bit for bit), Y_4 new; every 3-row intermediate gains a row."""
    cfg, w, t3 = post
    x4 = np.vstack([t3.x, mha.next_token(cfg, 3)])
    t4 = mha.forward(x4, w)
    np.testing.assert_array_equal(t4.y[:3], t3.y)
    for name in ("q", "k", "v", "heads"):
        np.testing.assert_array_equal(getattr(t4, name)[:, :3], getattr(t3, name))
    np.testing.assert_array_equal(t4.probs[:, :3, :3], t3.probs)
    assert np.abs(t4.y[3] - t3.y).min(axis=0).max() > 1e-3  # Y_4 is a new row, not a copy
    cache = mha.KVCache(w)
    steps = [cache.append(row) for row in x4]
    assert cache.k.shape == (2, 4, 7) and cache.v.shape == (2, 4, 11)
    np.testing.assert_allclose(steps[-1].y, t4.y[3], atol=1e-12, rtol=0)
    assert not hasattr(cache, "q")
