"""Every link the app writes, the app reads back: any edit of X, typed into the grid, written into the page's link and
read back from it (as a reload, a pasted link or a link decoded by hand brings it), gives the same X."""

import unicodedata
from urllib.parse import parse_qs, quote, unquote, urlencode

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mha.ui import editor, x_codec

from .helpers import rerun, run, warnings

FINITE = st.floats(allow_nan=False, allow_infinity=False)
HUGE_OR_TINY = st.sampled_from([1e200, -1e200, 1.7976931348623157e308, -5e-324, 2.2250738585072014e-308, 1e-200,
                                123456789012345680.0, -0.0, 1e16, 1e-5])


@st.composite
def typed(draw) -> str:
    """A number as someone types it into the grid: its shortest text, or a plain, exponent, signed, full-width or
    typographic-minus form of it."""
    v = draw(st.one_of(FINITE, HUGE_OR_TINY))
    text = repr(v)
    form = draw(st.sampled_from(["repr", "E", "plus", "fullwidth", "minus", "spaced"]))
    if form == "E":
        text = text.replace("e", "E")
    elif form == "plus" and not text.startswith("-"):
        text = "+" + text
    elif form == "fullwidth":
        text = "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in text)
    elif form == "minus":
        text = text.replace("-", "−")
    elif form == "spaced":
        text = f"  {text} "
    return text


@st.composite
def edits(draw, most_rows: int = 6, most_cols: int = 7):
    """A grid of random size and cells typed into it: ((n, d), {(row, col): text})."""
    n, d = draw(st.integers(1, most_rows)), draw(st.integers(1, most_cols))
    cells = draw(st.dictionaries(st.tuples(st.integers(0, n - 1), st.integers(0, d - 1)), typed(), max_size=n * d))
    return (n, d), cells


def _browser_query(params: dict[str, str]) -> str:
    """The query string as the page's address bar holds it (Streamlit's frontend writes it with URLSearchParams:
    space as +, + as %2B)."""
    return urlencode(params)


def _read(query: str) -> dict[str, str]:
    """The query string as Streamlit reads it on a reload (parse_qs)."""
    return {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}


@settings(max_examples=200, deadline=None)
@given(edits(), st.integers(0, 2**31 - 1))
@example(((1, 1), {(0, 0): "-0.0"}), 7)  # seed 7's base cell is 0.0: −0.0 equals it as a number, not as typed
def test_any_typed_edit_survives_the_link(case, seed):
    (n, d), cells = case
    base = np.round(np.random.default_rng(seed).standard_normal((n, d)), 2)
    x = base.copy()
    for (r, c), text in cells.items():
        v = editor.read_cell(text)  # the grid's reader
        assert v is not None and np.isfinite(v), text
        assert v == float(unicodedata.normalize("NFKC", text).replace("−", "-"))  # what was typed, exactly
        x[r, c] = v
    written = x_codec.encode_x(x, base)
    for query in (_browser_query({"x": written}),  # a reload
                  unquote(_browser_query({"x": written})),  # an address copied as the bar shows it, decoded
                  "x=" + quote(written, safe="")):  # a link written by hand with every mark escaped
        back, notices = x_codec.decode_x(_read(query)["x"], base)
        assert notices == [], (query, notices)
        np.testing.assert_array_equal(back, x)
        assert np.array_equal(np.signbit(back), np.signbit(x))  # −0.0 stays −0.0


def test_an_exponent_is_written_without_a_plus_and_an_old_plus_still_reads():
    base = np.zeros((1, 2))
    x = np.array([[1e200, -2.5e-300]])
    assert x_codec.encode_x(x, base) == "1.1~1e200_1.2~-2.5e-300"
    for old in ("1.1~1e+200", "1.1~1e 200"):  # as written before; its + read as a space by a form decoder
        back, notices = x_codec.decode_x(old, base)
        assert back[0, 0] == 1e200 and notices == []


def test_a_refused_cell_says_why():
    base = np.zeros((2, 2))
    cases = {"1.1~1e400": "float64", "3.1~5": "no such cell", "1.1~abc": "not a plain decimal", "oops": "row.col~value"}
    for item, why in cases.items():
        at = run(stage="input", x=item, n_tokens=2, d_model=2)
        assert any(why in w for w in warnings(at)), (item, warnings(at))
        x, notices = x_codec.decode_x(item, base)
        assert notices[0].fields["why"].startswith("why_") and np.array_equal(x, base)


@settings(max_examples=6, deadline=None)
@given(edits(most_rows=4, most_cols=6))
def test_the_page_reads_back_the_link_it_wrote_after_any_edit(case):
    """The app itself: cells typed into the grid on the input stage, the link the page then writes, opened as a
    reload opens it: the same X, and no notice."""
    (n, d), cells = case
    at = run(stage="input", n_tokens=n, d_model=d)
    rows: dict[int, dict[str, str]] = {}
    for (r, c), text in cells.items():
        rows.setdefault(r, {})[f"c{c}"] = text
    at.session_state["x_editor"] = {"edited_rows": rows, "added_rows": [], "deleted_rows": []}
    rerun(at)
    x = at.session_state["x_base"].copy()
    params = _read(_browser_query({k: v[-1] if isinstance(v, list) else v for k, v in at.query_params.items()}))
    again = run(**params)
    np.testing.assert_array_equal(again.session_state["x_base"], x)
    assert not again.session_state["notices"], again.session_state["notices"]
