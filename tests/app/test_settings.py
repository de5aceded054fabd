"""Link parsing and X encoding (pure functions), and the distinct-primes helper."""

import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha
from mha.ui import primes, x_codec
from mha.ui import settings as S
from mha.ui.strings import Text

from .helpers import rerun, run


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
    decoded, notices = x_codec.decode_x(x_codec.encode_x(x, base), base)
    np.testing.assert_array_equal(decoded, x)
    assert notices == []


@given(st.integers(0, S.KV_MAX_ADDED).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, 4), st.floats(-1e6, 1e6)),
                         max_size=15 if n else 0))))
def test_added_tokens_round_trip_through_a_link(case):
    count, edits = case
    seeded = lambda n: np.round(np.random.default_rng(1).standard_normal((n, 5)), 2)
    rows = seeded(count)
    for r, c, v in edits:
        rows[r, c] = v
    text = x_codec.encode_kv(rows, seeded(count))
    decoded, notices = x_codec.decode_kv(text, seeded)
    np.testing.assert_array_equal(decoded, rows)
    assert notices == [] and text.split("_")[0] == str(count)


def test_bad_x_items_are_skipped_and_counted():
    base = np.zeros((3, 5))
    x, notices = x_codec.decode_x("1.1~2_9.9~1_2.2~nan_2.3~1e400_3.5~-4_junk", base)
    assert x[0, 0] == 2 and x[2, 4] == -4 and np.count_nonzero(x) == 2
    assert notices[0].key == "notice_x_items" and notices[0].fields["count"] == 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_whose_every_x_cell_is_refused_speaks_of_no_rest(lang):
    """The learner audit of 2026-12-07: `x=1~2~zz` (one cell, refused) said "1 cell … could not be used; the rest
    were": there was no rest. Every cell refused: said so, X unchanged; some kept: the rest are."""
    base, t = np.zeros((3, 5)), Text(lang)
    for text in ("1~2~zz", "junk_9.9~1__"):
        x, notices = x_codec.decode_x(text, base)
        assert not x.any() and [n.key for n in notices] == ["notice_x_items_none"], text
        said = t.notice(notices[0])
        assert ("rest" not in said) if lang == "en" else ("其余" not in said), said
    _, notices = x_codec.decode_x("junk_1.1~2", base)
    assert [n.key for n in notices] == ["notice_x_items"] and notices[0].fields["count"] == 1


def test_the_post_sizes_are_distinct_primes_and_others_are_mended():
    assert primes.distinct_primes(S.PRESETS["post"])
    assert not primes.distinct_primes(S.PRESETS["gpt2"])
    mended = primes.nearest_distinct_primes(S.PRESETS["gpt2"])
    assert primes.primes_but_n(mended) and not primes.distinct_primes(mended)  # n = 8 stays: the tokens are the user's
    assert mended == {"n_tokens": 8, "d_model": 769, "d_k": 67, "d_v": 61, "n_heads": 13}


@lru_cache
def _primes(upto: int) -> tuple[int, ...]:
    return tuple(p for p in range(2, upto + 1) if all(p % q for q in range(2, p)))


@lru_cache
def _window(n: int) -> tuple[int, int]:
    """Independent of the app: the prime just below n (2 if none) and the prime just above."""
    below = max(_primes(n - 1), default=2)
    above = min(p for p in _primes(2 * n + 2) if p > n)
    return below, above


def _cost(n: int, p: int) -> tuple[int, int]:
    lo, hi = _window(n)
    return max(0, lo - p, p - hi), abs(p - n)


def _changed(sizes: dict, mended: dict) -> int:
    return sum(mended[k] != sizes[k] for k in OTHERS)


SIZE_TUPLES = st.fixed_dictionaries({k: st.one_of(st.integers(1, 16), st.integers(1, S.LIMITS[k]))
                                     for k in S.SIZES})
OTHERS = [k for k in S.SIZES if k != "n_tokens"]


def _mended_well(sizes: dict, mended: dict) -> bool:
    """Independent of the app: n as it was, the others primes, no two of the five equal."""
    values = list(mended.values())
    return (mended["n_tokens"] == sizes["n_tokens"] and len(set(values)) == len(values)
            and all(mended[k] in _primes(S.LIMITS[k]) for k in OTHERS))


def test_tiny_with_d_k_8_keeps_every_size_small():
    sizes = dict(S.PRESETS["tiny"], d_k=8)
    mended = primes.nearest_distinct_primes(sizes)
    assert _mended_well(sizes, mended) and primes.distinct_primes(mended)  # n = 2 is a prime: the others avoid it
    assert mended == {"n_tokens": 2, "d_model": 3, "d_k": 7, "d_v": 5, "n_heads": 11} or max(mended.values()) <= 11


def test_the_sidebar_button_mends_tiny_with_d_k_8_in_place():
    at = run(**dict(S.PRESETS["tiny"], d_k=8, integers=0))
    at.button(key="make_primes").click()
    rerun(at)
    sizes = {k: at.number_input(key=k).value for k in S.SIZES}
    assert sizes == primes.nearest_distinct_primes(dict(S.PRESETS["tiny"], d_k=8)) and sizes["n_tokens"] == 2
    assert "make_primes" not in {b.key for b in at.button}  # they are distinct primes now


@pytest.mark.parametrize("link", [
    dict(d_k=8, d_v=8, n_heads=4),  # the issue's: n went from 3 to 2
    dict(n_tokens=4, d_k=8), dict(n_tokens=7, d_model=7, d_k=7), dict(n_tokens=1, d_model=1, d_k=1, d_v=1, n_heads=1),
    dict(n_tokens=64, d_model=768, d_k=64, d_v=64, n_heads=12), dict(n_tokens=13, n_heads=13, d_k=12),
    dict(n_tokens=2, d_model=2, d_k=2, d_v=2, n_heads=2),
])
def test_make_primes_keeps_n_and_x(link):
    """The button changes only the sizes: n, and so X's rows, stay; the others become distinct primes that differ
    from n; the sidebar then says so (no button)."""
    at = run(stage="input", **link)
    x = at.session_state["x_base"].copy()
    at.button(key="make_primes").click()
    rerun(at)
    sizes = {k: at.number_input(key=k).value for k in S.SIZES}
    assert _mended_well(dict(S.DEFAULTS, **link) | {"n_tokens": len(x)}, sizes), sizes
    assert at.session_state["x_base"].shape == (len(x), sizes["d_model"])
    assert "make_primes" not in {b.key for b in at.button}
    assert "n_tokens=" not in str(dict(at.query_params)) or at.query_params["n_tokens"] == str(len(x))


def test_make_primes_keeps_a_texts_n():
    at = run(stage="tokens", text="one two three one", d_k=8)  # n = 4 from the text (3 words), no prime
    at.button(key="make_primes").click()
    rerun(at)
    assert at.number_input(key="n_tokens").value == 4 and primes.primes_but_n(at.session_state)
    assert any("n = 4" in c.value for c in at.sidebar.caption)


def test_no_tick_above_a_shared_length():
    """n = 4 and four distinct words: after make-primes the sizes are as good as they get, but the vocabulary shares
    n's length, so the sidebar says that and no ✓ claims every shape says where it came from."""
    at = run(stage="tokens", text="one two three four", d_k=8)
    at.button(key="make_primes").click()
    rerun(at)
    captions = [c.value for c in at.sidebar.caption]
    assert any("share a length" in c for c in captions) and not any(c.startswith("✓") for c in captions), captions


@settings(max_examples=300, deadline=None)
@given(SIZE_TUPLES)
def test_primes_are_distinct_near_and_within_each_sizes_window(sizes):
    mended = primes.nearest_distinct_primes(sizes)
    assert _mended_well(sizes, mended) and all(2 <= mended[k] <= S.LIMITS[k] for k in OTHERS)
    if primes.distinct_primes(sizes):
        assert mended == sizes
    for key in OTHERS:  # no free prime would have been nearer (first: inside the window, then: closer)
        others = {mended[k] for k in S.SIZES if k != key}
        free = [p for p in _primes(S.LIMITS[key]) if p not in others]
        assert _cost(sizes[key], mended[key]) == min(_cost(sizes[key], p) for p in free), key
    windows = {k: [p for p in _primes(S.LIMITS[k]) if _window(sizes[k])[0] <= p <= _window(sizes[k])[1]
                   and p != sizes["n_tokens"]] for k in OTHERS}
    # fewest sizes changed comes first; among choices that change no more, one inside every window wins if any does
    if any(len(set(c)) == len(c) and _changed(sizes, dict(zip(OTHERS, c))) <= _changed(sizes, mended)
           for c in itertools.product(*windows.values())):
        assert all(mended[k] in windows[k] for k in OTHERS), (sizes, mended)


PERMUTATIONS = np.array(list(itertools.permutations(_primes(43), len(OTHERS))))


@settings(max_examples=40, deadline=None)
@given(st.fixed_dictionaries({k: st.integers(1, 20) for k in S.SIZES}))
def test_small_sizes_move_least_in_total(sizes):
    """Brute force over every assignment of distinct primes up to 43 to the sizes but n (none equal to n): nothing
    changes fewer sizes, and of those nothing moves them less."""
    def total(mended):
        costs = [(int(mended[k] != sizes[k]), *_cost(sizes[k], mended[k])) for k in OTHERS]
        return tuple(map(sum, zip(*costs)))

    allowed = np.all([PERMUTATIONS[:, i] <= S.LIMITS[k] for i, k in enumerate(OTHERS)], axis=0)
    allowed &= np.all(PERMUTATIONS != sizes["n_tokens"], axis=1)
    excess = np.zeros(len(PERMUTATIONS), int)
    moved = np.zeros(len(PERMUTATIONS), int)
    changed = np.zeros(len(PERMUTATIONS), int)
    for i, k in enumerate(OTHERS):
        lo, hi = _window(sizes[k])
        col = PERMUTATIONS[:, i]
        excess += np.maximum(0, np.maximum(lo - col, col - hi))
        moved += np.abs(col - sizes[k])
        changed += col != sizes[k]
    best = np.min((changed * 10**6 + excess * 1000 + moved)[allowed])  # each < 1000: compares them in order
    mended = primes.nearest_distinct_primes(sizes)
    best = (int(best) // 10**6, int(best) // 1000 % 1000, int(best) % 1000)
    assert mended["n_tokens"] == sizes["n_tokens"] and total(mended) == best


@pytest.mark.parametrize("emoji", ["👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "👍🏽", "1\ufe0f\u20e3", "🇫🇷",
                                   "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"])
def test_a_text_from_a_link_keeps_a_joined_emoji_whole(emoji):
    """cap_text spaced out every character Python will not print, the zero-width joiner and tags among them, and
    split 👨‍👩‍👧 into three tokens before the tokenizer saw it."""
    text, notice = S.cap_text(f"hi {emoji} there")
    assert text == f"hi {emoji} there" and notice is None
    assert mha.tokenize(text) == ["hi", emoji, "there"]


@pytest.mark.parametrize("mark", ["\u200d", "\u200b", "\u202e", "\U000e0067", "\x00"])
def test_an_invisible_character_between_words_reads_as_a_space(mark):
    """Between two words, a joiner (or any invisible character) makes no token and glues nothing: the text box
    shows the space the tokenizer reads."""
    text, _ = S.cap_text(f"cat{mark}sat")
    assert text == "cat sat" and mha.tokenize(text) == ["cat", "sat"]


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_a_knock_link_says_each_head_it_cannot_use_up_to_three(count):
    """`knock=` names the trained model's heads: each name that is none is said, with its value, up to three
    (planted 2026-12-07: only two said), and the heads it names are kept."""
    wrong = ["9.9", "x", "0.1", "3.3"][:count]
    values, notices = S.parse_params({"knock": ",".join(["2.1", *wrong]), "model": "trained", "stage": "heads"})
    said = [n.fields["value"] for n in notices if n.key == "notice_knock"]
    assert said == wrong[:3] and values["knock"] == ["2.1"]
