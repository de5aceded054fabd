"""Memory has a budget: the shared caches hold what fits theirs, in bytes, and a closed session's files go."""

import numpy as np
import pytest

import mha
from mha.ui import session, views
from mha.ui.shared import MB, Shared, footprint

from .helpers import rerun, run


def megabytes(n: float) -> np.ndarray:
    return np.zeros(int(n * MB) // 8)


def test_the_held_bytes_stay_within_the_budget_under_a_run_of_large_values():
    cache = Shared(10 * MB)
    for key in range(20):
        cache.get(key, lambda: megabytes(3))
        assert cache.held <= 10 * MB
    assert [k in cache for k in (16, 17, 18, 19)] == [False, True, True, True]


def test_the_value_used_least_recently_goes_first():
    cache = Shared(10 * MB)
    for key in "abc":
        cache.get(key, lambda: megabytes(3))
    cache.get("a", lambda: pytest.fail("a is kept"))  # a is used again: b is now the oldest
    cache.get("d", lambda: megabytes(3))
    assert ("a" in cache, "b" in cache, "c" in cache, "d" in cache) == (True, False, True, True)


def test_a_value_larger_than_the_budget_is_handed_back_and_not_kept():
    cache = Shared(10 * MB)
    cache.get("small", lambda: megabytes(2))
    big = cache.get("big", lambda: megabytes(11))
    assert big.nbytes == 11 * MB and "big" not in cache and "small" in cache and cache.held == 2 * MB


def test_a_buffer_several_values_hold_counts_once_and_goes_with_the_last():
    w = megabytes(4)
    cache = Shared(10 * MB)
    cache.get("w", lambda: w)
    cache.get("view", lambda: w[:10])  # a view of w's data: no new bytes
    cache.get("block", lambda: {"attn": w, "ffn": megabytes(4)})
    assert cache.held == 8 * MB
    cache.pop("w")
    cache.pop("view")
    assert cache.held == 8 * MB  # the block still holds w
    cache.pop("block")
    assert cache.held == 0


def test_room_lets_the_oldest_go_before_a_large_value_is_built_and_says_which():
    gone = []
    cache = Shared(10 * MB, dropped=lambda key, value: gone.append(key))
    for key in "abc":
        cache.get(key, lambda: megabytes(3))
    cache.room(6 * MB)
    assert gone == ["a", "b"] and cache.held == 3 * MB


def test_footprint_counts_arrays_bytes_and_text_in_what_values_hold():
    a = megabytes(1)
    value = (a, a[::2], {"json": b"x" * 1000, "text": "y" * 1000}, [mha.Weights(*(np.ones((1, 2, 3)),) * 3,
                                                                               np.ones((3, 2)))])
    assert sorted(footprint(value).values()) == sorted([MB, 1033, 1049, 48, 48, 48, 48])


def test_the_walks_weights_are_one_copy_for_the_walk_the_block_and_the_coda():
    session.MODELS.clear()
    cfg = mha.AttentionConfig(d_model=16, d_k=8, d_v=8, n_heads=4, d_ff=32, seed=3)
    w = session.weights(cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init)
    block = session.block_weights(cfg)
    assert block.attn is w and session.block_weights(cfg) is block
    assert session.MODELS.held == sum(footprint(block).values())  # the block adds its FFN, not the weights again


def test_a_walk_of_the_caps_keeps_the_weights_within_their_budget(monkeypatch):
    """Three seeds at the caps, each with its block: each set is ~128 MB, the budget one set and some."""
    session.MODELS.clear()
    held = []
    for seed in range(3):
        cfg = mha.AttentionConfig(64, 1024, 128, 128, 16, seed, d_ff=4096)
        session.block_weights(cfg)
        held.append(session.MODELS.held)
    assert max(held) <= session.MODELS_BUDGET and held[-1] >= 128 * MB
    session.MODELS.clear()


def test_a_shared_matrix_chart_keeps_its_json_not_its_dict():
    views.FIGURES.clear()
    at = run(stage="qk")
    kept = [v for v in views.FIGURES._items.values() if isinstance(v[0], views.Drawn)]
    assert kept and all(d.spec is None and d.json for d, _ in kept)
    assert views.FIGURES.held == sum(views.figure_bytes(v) for v, _ in views.FIGURES._items.values())
    assert rerun(at).get("html")
