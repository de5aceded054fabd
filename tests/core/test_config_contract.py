"""AttentionConfig's refusals word for word, each field at its least allowed value and one below, and what it stores
(plain ints and a float rope_base whatever numeric type was given). Written where mutation testing
(bench/mutation.sh) found changes to mha/config.py that no test noticed."""

import re

import numpy as np
import pytest

import mha

MINIMUMS = dict(n_tokens=1, d_model=1, d_k=1, d_v=1, n_heads=1, seed=0, d_ff=1, n_kv_heads=0, window=0, sinks=0,
                rotary_dims=0)


@pytest.mark.parametrize("field", MINIMUMS)
def test_each_whole_field_takes_its_least_value_and_refuses_one_below(field):
    least = MINIMUMS[field]
    cfg = mha.AttentionConfig(**{field: least, **({"window": 1} if field == "sinks" else {})})
    assert getattr(cfg, field) == least and type(getattr(cfg, field)) is int
    with pytest.raises(mha.ConfigError, match=f"^{field} must be a whole number >= {least}; got {least - 1}.$"):
        mha.AttentionConfig(**{field: least - 1})


@pytest.mark.parametrize("value, shown", [(2.0, "2.0 (float)"), ("3", "'3' (str)"), (True, "True (bool)"),
                                          (np.bool_(True), "np.True_ (bool)"), (None, "None (NoneType)")])
def test_a_whole_field_of_another_type_is_refused_naming_the_type(value, shown):
    with pytest.raises(mha.ConfigError, match=f"^d_model must be a whole number >= 1; got {re.escape(shown)}.$"):
        mha.AttentionConfig(d_model=value)


def test_numpy_integers_are_stored_as_python_ints():
    cfg = mha.AttentionConfig(**{field: np.int32(max(least, 2)) for field, least in MINIMUMS.items()
                                 if field not in ("n_kv_heads", "window", "sinks", "rotary_dims")})
    for field in ("n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed", "d_ff"):
        assert type(getattr(cfg, field)) is int and getattr(cfg, field) == 2


def test_an_unknown_init_is_refused_listing_the_known_ones():
    with pytest.raises(mha.ConfigError, match=r"^init must be one of gaussian, integers; got 'uniform'\.$"):
        mha.AttentionConfig(init="uniform")
    assert mha.AttentionConfig(init="integers").init == "integers"


@pytest.mark.parametrize("value", [1, "yes", None])
def test_alibi_takes_a_bool_only(value):
    with pytest.raises(mha.ConfigError, match=f"^alibi must be True or False; got {re.escape(repr(value))}.$"):
        mha.AttentionConfig(alibi=value)


def test_a_numpy_bool_alibi_is_stored_as_a_bool():
    cfg = mha.AttentionConfig(alibi=np.bool_(True))
    assert cfg.alibi is True and mha.AttentionConfig(alibi=np.False_).alibi is False


def test_kv_heads_that_do_not_divide_the_heads_are_refused_in_words():
    with pytest.raises(mha.ConfigError, match=r"^n_kv_heads must divide n_heads = 4 \(each group of query heads "
                                              r"shares one K and V\); got 3\.$"):
        mha.AttentionConfig(n_heads=4, n_kv_heads=3)
    assert mha.AttentionConfig(n_heads=4, n_kv_heads=2).kv_heads == 2
    assert mha.AttentionConfig(n_heads=4).kv_heads == 4


@pytest.mark.parametrize("d_k, rotary", [(7, 3), (7, 8), (6, 8)])
def test_rotary_dims_odd_or_beyond_d_k_are_refused_in_words(d_k, rotary):
    with pytest.raises(mha.ConfigError, match=rf"^rotary_dims must be even \(dims rotate in pairs\) and at most "
                                              rf"d_k = {d_k}; got {rotary}\.$"):
        mha.AttentionConfig(d_k=d_k, rotary_dims=rotary)


def test_rotary_dims_may_be_all_of_an_even_d_k():
    assert mha.AttentionConfig(d_k=8, rotary_dims=8).rotary_dims == 8


@pytest.mark.parametrize("base", [0, 0.0, -1.0, float("nan"), float("inf"), True, np.bool_(True), "100", None])
def test_rope_base_must_be_a_finite_number_above_zero(base):
    with pytest.raises(mha.ConfigError, match=f"^rope_base must be a finite number > 0; got {re.escape(repr(base))}.$"):
        mha.AttentionConfig(rope_base=base)


@pytest.mark.parametrize("base", [100, np.int64(100), np.float32(100.0), 100.0])
def test_rope_base_of_any_numeric_type_is_stored_as_a_float(base):
    cfg = mha.AttentionConfig(rope_base=base)
    assert type(cfg.rope_base) is float and cfg.rope_base == 100.0
