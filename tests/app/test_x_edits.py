"""Edited cells of X are the user's: a new seed or kind of numbers draws the rest anew, keeps them, and says so."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha
from mha.ui import editor, primes, x_codec
from mha.ui import settings as S
from mha.ui.strings import Text

from .helpers import option, page_text, rerun, run, warnings

EDITS = {"edited_rows": {0: {"c4": 3.25}, 2: {"c0": -1.5}}, "added_rows": [], "deleted_rows": []}


def _edited(**params):
    at = run(stage="input", **params)
    at.session_state["x_editor"] = EDITS
    return rerun(at)


@pytest.mark.parametrize("change, cfg", [("seed", mha.AttentionConfig(seed=4)),
                                         ("integers", mha.AttentionConfig(init="integers"))])
def test_a_new_seed_or_kind_of_numbers_keeps_the_edited_cells_and_says_how_many(change, cfg):
    at = _edited()
    if change == "seed":
        at.number_input(key="seed").set_value(4)
    else:
        option(at, "integers").set_value(True)
    rerun(at)
    expected = mha.init_input(cfg)
    expected[0, 4], expected[2, 0] = 3.25, -1.5
    np.testing.assert_array_equal(at.session_state["x_base"], expected)
    assert "your edits to X were kept (2 cells)" in page_text(at)
    assert at.query_params["x"] == "1.5~3.25_3.1~-1.5"  # the link carries them over the new seed
    rerun(at)  # the editor starts afresh on the new X: the edits are not applied twice or lost
    np.testing.assert_array_equal(at.session_state["x_base"], expected)
    assert "were kept" not in page_text(at)  # said once, where it happened


def test_the_note_offers_a_reset_to_the_new_seed():
    at = _edited()
    at.session_state["stage"] = "qk"
    rerun(at)
    at.number_input(key="seed").set_value(4)
    rerun(at)
    at.button(key="reset_x_kept").click()
    rerun(at)
    np.testing.assert_array_equal(at.session_state["x_base"], mha.init_input(mha.AttentionConfig(seed=4)))
    assert "x" not in at.query_params


def test_a_new_seed_without_edits_says_nothing():
    at = run(stage="qk")
    at.number_input(key="seed").set_value(4)
    rerun(at)
    np.testing.assert_array_equal(at.session_state["x_base"], mha.init_input(mha.AttentionConfig(seed=4)))
    assert "were kept" not in page_text(at)


def test_edits_from_a_link_are_kept_on_another_stage_in_chinese():
    at = run(stage="scores", lang="zh", x="2.2~9.5")
    at.number_input(key="seed").set_value(1)
    rerun(at)
    assert at.session_state["x_base"][1, 1] == 9.5
    assert "你在 X 里改过的 1 格仍是你填的数" in page_text(at)


@pytest.mark.parametrize("typed, stored", [("1e200", 1e200), ("-2.5E-3", -0.0025), ("１．５", 1.5), ("−2", -2.0),
                                           (" 7 ", 7.0), ("0.30000000000000004", 0.30000000000000004)])
def test_what_is_typed_in_the_grid_is_the_number_stored(typed, stored):
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {1: {"c3": typed}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    assert at.session_state["x_base"][1, 3] == stored
    assert not at.warning


def test_a_typed_1e200_overflows_with_the_reason_on_the_next_stage():
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {0: {"c4": "1e200"}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    at.session_state["stage"] = "qk"
    rerun(at)
    assert at.session_state["x_base"][0, 4] == 1e200 and "overflows float64" in page_text(at)


@pytest.mark.parametrize("typed, word", [("abc", "“abc”"), ("1,5", "“1,5”"), ("", "—"), ("inf", "“inf”"),
                                         ("1e400", "∞"), ("1_000", "“1_000”"), ("0x10", "“0x10”")])
def test_text_that_is_not_a_finite_number_is_refused_by_name(typed, word):
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {1: {"c3": typed}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    assert at.session_state["x_base"][1, 3] == mha.init_input(mha.AttentionConfig())[1, 3]
    assert f"Cell (2,4) is {word}: only finite numbers work" in page_text(at)


def test_untouched_cells_keep_every_bit_whatever_the_grid_shows():
    """A long number is shown to 4 significant digits (audit #5), a short one as it is; only a changed cell is read
    back, so the others keep their values to the last bit."""
    at = run(stage="input", x="1.1~0.30000000000000004_2.2~1e-300")
    shown = at.dataframe[0].value
    assert shown.iloc[0, 0] == "0.3" and shown.iloc[1, 1] == "1e-300"
    at.session_state["x_editor"] = {"edited_rows": {2: {"c0": "4"}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    x = at.session_state["x_base"]
    assert (x[0, 0], x[1, 1], x[2, 0]) == (0.30000000000000004, 1e-300, 4.0)


@pytest.mark.parametrize("n, d", [(3, 5), (64, 1024)])
def test_emptying_every_cell_at_once_gives_one_notice_and_keeps_every_value(n, d):
    at = run(stage="input", n_tokens=n, d_model=d)
    before = at.session_state["x_base"].copy()
    at.session_state["x_editor"] = {"edited_rows": {r: {f"c{c}": None for c in range(d)} for r in range(n)},
                                    "added_rows": [], "deleted_rows": []}
    rerun(at)
    assert len(at.warning) == 1 and f"{n * d:,} cells are empty or not finite numbers" in page_text(at)
    np.testing.assert_array_equal(at.session_state["x_base"], before)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(alphabet="0123456789+-.eExabn ", max_size=12), st.floats(allow_nan=False).map(repr)))
def test_the_grid_and_the_link_take_the_same_numbers(typed):
    """What the grid keeps, a link carries and reads back; what the grid refuses, a link refuses too."""
    grid = editor.read_cell(typed)
    kept = grid is not None and math.isfinite(grid)
    base = np.zeros((1, 1))
    x, notices = x_codec.decode_x(f"1.1~{typed}", base)
    assert kept == (not notices)
    if kept:
        assert x[0, 0] == grid and x_codec.decode_x(x_codec.encode_x(x, base), base)[0][0, 0] == grid


@pytest.mark.parametrize("lang, words", [("en", "the box was empty or held no number, so it keeps 3"),
                                         ("zh", "输入框是空的或不是数字，所以仍用 3")])
def test_an_emptied_or_lettered_size_keeps_its_value_and_every_edit_and_says_so(lang, words):
    at = run(stage="input", lang=lang)
    at.session_state["x_editor"] = {"edited_rows": {2: {"c1": "7.5"}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    at.number_input(key="n_tokens").set_value(None)  # what the browser commits for an empty box or letters
    rerun(at)
    assert at.session_state["n_tokens"] == 3 and at.session_state["x_base"][2, 1] == 7.5
    assert any(words in w for w in warnings(at))
    rerun(at)
    assert not at.warning  # said once


@pytest.mark.parametrize("lang, words", [("en", "takes 1 to 64; 100 is outside that, so it keeps 3"),
                                         ("zh", "的取值范围是 1 到 64；100 超出了这个范围，所以仍用 3")])
def test_a_size_out_of_range_keeps_its_value_in_the_pages_language(lang, words):
    at = run(stage="qk", lang=lang)
    at.number_input(key="n_tokens").set_value(100)
    rerun(at)
    assert at.session_state["n_tokens"] == 3 and any(words in w for w in warnings(at))


def test_edits_beyond_a_smaller_x_are_set_aside_and_come_back_when_it_grows():
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {2: {"c1": "7.5"}, 0: {"c4": "-2.25"}}, "added_rows": [],
                                    "deleted_rows": []}
    rerun(at)
    at.number_input(key="n_tokens").set_value(2)
    rerun(at)
    assert at.session_state["x_base"].shape == (2, 5) and at.session_state["x_base"][0, 4] == -2.25
    assert "your edits beyond it are set aside (1 cell);" in page_text(at)
    at.number_input(key="d_model").set_value(3)
    rerun(at)
    assert "your edits beyond it are set aside (1 cell);" in page_text(at)  # X₁'s fifth cell
    at.number_input(key="d_model").set_value(5)
    rerun(at)
    at.number_input(key="n_tokens").set_value(3)
    rerun(at)
    x = at.session_state["x_base"]
    assert x[2, 1] == 7.5 and x[0, 4] == -2.25 and "are back" in page_text(at)
    assert at.query_params["x"].count("~") >= 2  # the link carries them again


def test_every_cell_set_aside_is_held_in_one_array_no_larger_than_x_and_all_come_back():
    """Red team 2026-12-06 R6: 65,536 edited cells set aside (64×1024 down to 1×1) held 13 MB a page as a dict of
    cells. They are held as one array of X's size, NaN where nothing is set aside, and each comes back."""
    n, d = 16, 256
    at = run(stage="input", n_tokens=n, d_model=d)
    at.session_state["x_editor"] = {"edited_rows": {r: {f"c{c}": f"{r}.{c + 1}" for c in range(d)} for r in range(n)},
                                    "added_rows": [], "deleted_rows": []}
    rerun(at)
    edited = at.session_state["x_base"].copy()
    for key, value in (("n_tokens", 1), ("d_model", 1)):
        at.number_input(key=key).set_value(value)
        rerun(at)
    aside = at.session_state["x_aside"]
    assert isinstance(aside, np.ndarray) and aside.nbytes <= n * d * 8 and np.isnan(aside).sum() == 1
    for key, value in (("d_model", d), ("n_tokens", n)):
        at.number_input(key=key).set_value(value)
        rerun(at)
    np.testing.assert_array_equal(at.session_state["x_base"], edited)
    assert at.session_state["x_aside"] is None


def test_edits_too_long_for_a_link_are_said_to_be_left_out():
    at = run(stage="input", n_tokens=8, d_model=128)
    at.session_state["x_editor"] = {"edited_rows": {r: {f"c{c}": "1.2345678901234567" for c in range(128)}
                                                    for r in range(8)}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    assert "x" not in at.query_params
    assert any("leaves out your edits of X" in w for w in warnings(at))
    at.session_state["share_open"] = True
    rerun(at)
    assert "leaves out your edits of X" in " ".join(c.value for c in at.sidebar.caption)


def _no_edits(at) -> None:
    """X is the text's X before edits, and the link carries no cell of it: nothing was typed."""
    np.testing.assert_array_equal(at.session_state["x_base"], x_source_base(at))
    assert "x" not in at.query_params


def x_source_base(at) -> np.ndarray:
    """The text's X at the page's sizes, made here from the core: E[ids] + P over the text's own vocabulary."""
    text = at.session_state["text"]
    tokens = mha.tokenize(text)
    sizes = {k: at.session_state[k] for k in S.SIZES}
    cfg = mha.AttentionConfig(**sizes)
    vocab = mha.vocabulary(tokens)
    mw = mha.init_model(cfg, vocab, 1, "sinusoidal", S.LIMITS["n_tokens"] + 1)
    return mha.embed(np.array([vocab.index(tok) for tok in tokens]), mw)


def test_make_primes_after_a_generated_token_moves_one_size_and_writes_nothing_into_x():
    """The audit's path: a text of 6 tokens, one generated (n = 7 = d_k), then make-primes. Only d_k moves (n is the
    text's, d_model stays the post's 5), and no cell of X becomes an edit the learner never made."""
    at = run(stage="kv_cache", text="to be or not to be")
    at.button(key="add_token").click()
    rerun(at)
    assert at.session_state["n_tokens"] == 7 == at.session_state["d_k"]
    at.button(key="make_primes").click()
    rerun(at)
    sizes = {k: at.session_state[k] for k in S.SIZES}
    assert primes.distinct_primes(sizes) and sizes["n_tokens"] == 7
    assert {k for k in S.SIZES if sizes[k] != S.DEFAULTS[k]} == {"n_tokens", "d_k"}
    _no_edits(at)
    at.session_state["stage"] = "input"
    rerun(at)
    assert "Your edits override" not in page_text(at)
    _no_edits(at)


@pytest.mark.parametrize("key, value", [("d_model", 7), ("d_model", 3), ("d_k", 13), ("n_heads", 3)])
def test_a_size_changed_with_a_text_keeps_x_the_texts(key, value):
    """A text's X at another d_model is another X (the positions' frequencies depend on d_model): the new X is the
    text's at the new size, not the old numbers carried over as edits."""
    at = run(stage="input", text="to be or not to be")
    at.number_input(key=key).set_value(value)
    rerun(at)
    _no_edits(at)


def test_a_size_changed_with_a_text_keeps_the_users_edits():
    at = run(stage="input", text="to be or not to be")
    at.session_state["x_editor"] = EDITS
    rerun(at)
    at.number_input(key="d_model").set_value(7)
    rerun(at)
    expected = x_source_base(at)
    expected[0, 4], expected[2, 0] = 3.25, -1.5
    np.testing.assert_array_equal(at.session_state["x_base"], expected)
    assert at.query_params["x"] == "1.5~3.25_3.1~-1.5"


@pytest.mark.parametrize("typed, value", [("0E 0", 0.0), ("1e 200", 1e200), ("2.5E 3", 2500.0), ("1e  5", None),
                                          ("1 e5", None)])
def test_an_exponent_whose_plus_became_a_space_reads_alike_in_the_grid_and_the_link(typed, value):
    """Hypothesis drew "0E 0": the link read it (a form decoder's space for +) and the grid refused it."""
    assert editor.read_cell(typed) == value
    x, notices = x_codec.decode_x(f"1.1~{typed}", np.ones((1, 1)))
    assert (x[0, 0], bool(notices)) == ((value, False) if value is not None else (1.0, True))


@pytest.mark.parametrize("source", [dict(text="the cat sat on the mat"), dict(model="trained")])
def test_a_text_s_or_the_model_s_x_shows_short_numbers_and_the_reset_says_to_what(source):
    """Audit #5: with a text X showed float noise (-0.31000000000000005), with the trained model 16 digits, under a
    button that reset X "to its seeded values". Cells now show at most 4 significant digits, the values behind them
    are X's to the last bit (an edit elsewhere keeps them), and the button names what X goes back to."""
    at = run(stage="input", **source)
    cells = at.dataframe[0].value.to_numpy().ravel()
    assert all(len(str(c)) <= 8 for c in cells), [c for c in cells if len(str(c)) > 8][:3]
    key = "input_reset_trained" if "model" in source else "input_reset_text"
    assert at.button(key="reset_x").label == Text("en")(key)


@pytest.mark.parametrize("away", ["trained", "checkpoint"])
def test_seeded_the_post_after_another_model_gives_back_the_seeded_walk_as_it_was_left(away, offered):
    """Seeded → another model → Seeded: the walk comes back as the learner left it (its sizes, d_ff, seed, no text,
    X with its edits, in the link too), not at the other model's text or d_ff."""
    at = _edited(seed=4, d_ff=19)
    left = at.session_state["x_base"].copy()
    model = at.sidebar.segmented_control(key="model")
    model.set_value(away)
    rerun(at)
    assert at.session_state["text"] and at.session_state["model"] == away  # the other model reads its own text
    at.sidebar.segmented_control(key="model").set_value("seeded")
    rerun(at)
    ss = at.session_state
    assert (ss["text"], ss["n_tokens"], ss["d_model"], ss["d_ff"], ss["seed"]) == ("", 3, 5, 19, 4)
    np.testing.assert_array_equal(ss["x_base"], left)
    assert at.query_params["x"] == "1.5~3.25_3.1~-1.5" and "text" not in at.query_params
    rerun(at)  # the editor shows the X given back, and applies no edit twice
    np.testing.assert_array_equal(at.session_state["x_base"], left)


def test_a_text_typed_while_away_goes_back_with_the_learner_and_edits_of_another_x_do_not(offered):
    at = _edited(d_ff=19)
    at.sidebar.segmented_control(key="model").set_value("checkpoint")
    rerun(at)
    at.session_state["text"] = "to be or not"
    at.session_state["stage"] = "tokens"
    rerun(at)
    at.sidebar.segmented_control(key="model").set_value("seeded")
    rerun(at)
    ss = at.session_state
    assert (ss["text"], ss["n_tokens"], ss["d_model"], ss["d_ff"]) == ("to be or not", 4, 5, 19)
    assert "x" not in at.query_params


def test_seeded_after_a_link_to_the_trained_model_leaves_its_made_up_sequence():
    """Opened on the trained model with no text (it makes up a sequence of its letters): Seeded gives the post's walk,
    with no text and the post's d_ff."""
    at = run(stage="input", model="trained")
    assert at.session_state["text"]
    at.sidebar.segmented_control(key="model").set_value("seeded")
    rerun(at)
    ss = at.session_state
    assert (ss["text"], ss["n_tokens"], ss["d_model"], ss["d_ff"]) == ("", 3, 5, 13)
    assert not set(at.query_params) - {"lang", "stage", "preset"}


def test_the_seeded_x_given_back_is_its_own_even_at_the_other_models_shape():
    """The editor holds the numbers it was given (editor.py): given back an X of the shape it showed last (a seeded
    walk at the trained model's 10 × 13), it must start afresh on it, not keep the trained model's numbers."""
    at = _edited(n_tokens=10, d_model=13)
    left = at.session_state["x_base"].copy()
    at.sidebar.segmented_control(key="model").set_value("trained")
    rerun(at)
    assert at.session_state["x_base"].shape == left.shape and not np.array_equal(at.session_state["x_base"], left)
    at.sidebar.segmented_control(key="model").set_value("seeded")
    rerun(at)
    np.testing.assert_array_equal(at.session_state["x_base"], left)


def test_the_cells_set_aside_and_given_back_are_said_with_the_shape_x_has_now():
    """Each notice names X's new shape as the page draws it, n rows by d_model columns."""
    t = Text("en")
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {2: {"c1": "7.5"}, 0: {"c4": "-2.25"}}, "added_rows": [],
                                    "deleted_rows": []}
    rerun(at)
    for key, value, said in (("n_tokens", 2, ("input_aside", "2×5")), ("d_model", 3, ("input_aside", "2×3")),
                             ("d_model", 5, ("input_back", "2×5")), ("n_tokens", 3, ("input_back", "3×5"))):
        at.number_input(key=key).set_value(value)
        rerun(at)
        assert at.session_state["x_base"].shape == tuple(int(s) for s in said[1].split("×"))
        assert t(said[0], shape=said[1], count=1) in page_text(at), (key, value)
