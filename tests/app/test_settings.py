"""Link parsing and X encoding (pure functions), and the distinct-primes helper."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mha.ui import settings as S


def test_good_parameters_are_taken():
    values, notices = S.parse_params({"n_tokens": "4", "n_heads": "３", "stage": "scores", "lang": "zh"})
    assert values == {"n_tokens": 4, "n_heads": 3, "stage": "scores", "lang": "zh"} and notices == []


@pytest.mark.parametrize("raw, used, notice", [
    ("0", 1, "notice_clamped"), ("-5", 1, "notice_clamped"), ("100000", 64, "notice_clamped"),
    ("1e309", None, "notice_not_whole"), ("nan", None, "notice_not_whole"), ("4.5", None, "notice_not_whole"),
    ("<script>", None, "notice_not_whole"), ("9" * 5000, None, "notice_not_whole"),
])
def test_bad_sizes_fall_back_with_a_notice(raw, used, notice):
    values, notices = S.parse_params({"n_tokens": raw})
    assert values.get("n_tokens") == used
    assert [n.key for n in notices] == [notice]
    assert len(notices[0].fields["value"]) <= 25


def test_unknown_ids_are_refused_and_the_rest_kept():
    values, notices = S.parse_params({"stage": "attention", "lang": "fr", "d_k": "13"})
    assert values == {"d_k": 13}
    assert {n.fields["key"] for n in notices} == {"stage", "lang"}


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4), st.floats(-1e6, 1e6)), max_size=15))
def test_x_round_trips_through_a_link(edits):
    base = np.round(np.random.default_rng(0).standard_normal((3, 5)), 2)
    x = base.copy()
    for r, c, v in edits:
        x[r, c] = v
    decoded, notices = S.decode_x(S.encode_x(x, base), base)
    np.testing.assert_array_equal(decoded, x)
    assert notices == []


def test_bad_x_items_are_skipped_and_counted():
    base = np.zeros((3, 5))
    x, notices = S.decode_x("1.1~2_9.9~1_2.2~nan_2.3~1e400_3.5~-4_junk", base)
    assert x[0, 0] == 2 and x[2, 4] == -4 and np.count_nonzero(x) == 2
    assert notices[0].key == "notice_x_items" and notices[0].fields["count"] == 4


def test_the_post_sizes_are_distinct_primes_and_others_are_mended():
    assert S.distinct_primes(S.PRESETS["post"])
    assert not S.distinct_primes(S.PRESETS["gpt2"])
    mended = S.nearest_distinct_primes(S.PRESETS["gpt2"])
    assert S.distinct_primes(mended)
    assert mended == {"n_tokens": 7, "d_model": 769, "d_k": 67, "d_v": 61, "n_heads": 13}
