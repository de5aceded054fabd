"""Bad sizes and bad inputs raise ConfigError / InputError with a message a user can act on."""

import numpy as np
import pytest

import mha


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("n_tokens", 0, ["n_tokens", "0", ">= 1"]),
        ("d_model", -3, ["d_model", "-3", ">= 1"]),
        ("d_k", 2.5, ["d_k", "2.5", "whole number"]),
        ("d_v", "11", ["d_v", "'11'", "whole number"]),
        ("n_heads", True, ["n_heads", "True", "whole number"]),
        ("seed", -1, ["seed", "-1", ">= 0"]),
        ("init", "uniform", ["init", "gaussian", "integers", "'uniform'"]),
    ],
)
def test_config_errors_name_field_value_and_rule(field, value, words):
    with pytest.raises(mha.ConfigError) as e:
        mha.AttentionConfig(**{field: value})
    assert isinstance(e.value, ValueError)
    for word in words:
        assert word in str(e.value)


def test_config_accepts_numpy_integers_as_plain_ints():
    cfg = mha.AttentionConfig(n_tokens=np.int64(4))
    assert cfg.n_tokens == 4 and type(cfg.n_tokens) is int


@pytest.fixture(scope="module")
def w():
    return mha.init_weights(mha.AttentionConfig())


@pytest.mark.parametrize(
    "x, words",
    [
        (np.zeros((3, 4)), ["n × 5", "(3, 4)"]),
        (np.zeros(5), ["n × 5", "(5,)"]),
        (np.zeros((0, 5)), ["empty", "at least one"]),
        ([["a", "b", "c", "d", "e"]], ["numbers only"]),
        ([[1, 2, None, 4, 5]], ["X[1, 3]", "nan", "finite"]),
        ([[1, 2, 3, 4, 5], [1, 2, 3, np.inf, 5]], ["X[2, 4]", "inf", "finite"]),
        (np.full((3, 5), 1e200), ["overflows", "scale X down"]),
    ],
)
def test_input_errors_say_what_is_wrong(w, x, words):
    with pytest.raises(mha.InputError) as e:
        mha.forward(x, w)
    for word in words:
        assert word in str(e.value), str(e.value)


def test_cache_refuses_a_bad_row_and_stays_usable(w):
    cache = mha.KVCache(w)
    with pytest.raises(mha.InputError, match="numbers only"):
        cache.append(["x"] * 5)
    with pytest.raises(mha.InputError, match="n × 5"):
        cache.append(np.zeros(4))
    with pytest.raises(mha.InputError, match="overflow"):
        cache.append(np.full(5, 1e200))
    assert len(cache) == 0
    cache.append(np.ones(5))
    assert len(cache) == 1 and cache.k.shape == (2, 1, 7)


def test_cached_arrays_are_read_only(w):
    cache = mha.KVCache(w)
    cache.append(np.ones(5))
    with pytest.raises(ValueError):
        cache.k[0, 0, 0] = 1.0


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(w_k=np.zeros((2, 5, 6))), ["w_k", "(2, 5, 7)", "(2, 5, 6)"]),
        (dict(w_v=np.zeros((2, 4, 11))), ["w_v", "(2, 5, d_v)", "(2, 4, 11)"]),
        (dict(w_o=np.zeros((21, 5))), ["w_o", "(22, 5)", "(21, 5)"]),
        (dict(w_q=np.full((2, 5, 7), np.nan)), ["w_q", "NaN", "finite"]),
    ],
)
def test_weights_check_their_shapes(w, change, words):
    parts = dict(w_q=w.w_q, w_k=w.w_k, w_v=w.w_v, w_o=w.w_o) | change
    with pytest.raises(mha.InputError) as e:
        mha.Weights(**parts)
    for word in words:
        assert word in str(e.value), str(e.value)


def test_weights_are_read_only_copies(w):
    source = np.ones((1, 2, 2))
    weights = mha.Weights(source, source, source, np.ones((2, 2)))
    source[0, 0, 0] = 5.0
    assert weights.w_q[0, 0, 0] == 1.0
    with pytest.raises(ValueError):
        w.w_o[0, 0] = 1.0
