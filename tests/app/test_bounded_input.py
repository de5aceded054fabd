"""Work bounded by its input, before the work: a value from a link or a widget is cut to its limit before anything
that can make it longer (NFKC, case folding, splitting into tokens), so its cost does not grow with what was sent."""

import tracemalloc
import unicodedata

import pytest

import mha
from mha.ui import settings as S
from mha.ui import x_source

from .helpers import rerun, run, warnings

# Each grows under the transformation named: NFKC (﷽ is 18 characters, ㌀ is アパート, ﬃ is ffi), the trained model's
# upper-casing (ß is SS), and a base letter carrying a long tail of combining marks, one grapheme for the tokenizer.
GROWING = {"U+FDFA": "\ufdfa", "U+FDFD": "\ufdfd", "U+3300": "\u3300", "U+FB03": "\ufb03", "ß": "ß",
           "combining tail": "e" + "\u0301" * 50}


def _peak_bytes(f, *args) -> int:
    """The most memory f(*args) allocated at once beyond what was held before (tracemalloc counts Python's
    allocations, the same on every machine)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        f(*args)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", GROWING)
def test_a_growing_text_costs_what_its_cut_costs(name):
    """A million copies cost no more than the cut's worth: before the cut came first, ﷽ × 1,000,000 allocated
    36 MB (18 million UCS-2 characters) and a 23.8 MB message took a server from 586 to 1,524 MB."""
    raw = GROWING[name] * 1_000_000
    peak = _peak_bytes(S.cap_text, raw)
    assert peak < 1_000_000, f"{name}: {peak:,} bytes"
    text, notice = S.cap_text(raw)
    assert len(text) <= S.TEXT_MAX_CHARS and notice is not None and notice.key == "notice_text_capped"


def test_a_cut_text_is_the_texts_beginning_and_a_short_one_is_whole():
    """The cut keeps what a reader expects: the text's own beginning after NFKC, and a text within the limits
    whole, whatever NFKC joins or splits in it."""
    raw = "ﬁne 한국어 " * 40 + "\ufdfa" * 1000
    text, notice = S.cap_text(raw)
    assert notice is not None and unicodedata.normalize("NFKC", raw).startswith(text)
    joined = ("e\u0301" * 20 + " ") * 30  # 1,230 characters: NFKC joins each e and its accent into é, 630
    assert S.cap_text(joined) == (unicodedata.normalize("NFKC", joined), None)


def test_the_trained_models_letters_are_read_from_the_cut_text():
    letters, unknown, cut = x_source.trained_tokens(S.cap_text("ß" * 100_000)[0])
    assert letters == [] and unknown == ["ß"] and not cut  # ß upper-cases to SS, which is no letter of the model's


@pytest.mark.parametrize("raw", ["1" * 10**6, "\ufdfa" * 10**6, " " * 10**6 + "1", "１" * 10**5])
def test_a_number_or_a_whole_number_is_refused_before_it_grows(raw):
    assert _peak_bytes(S.read_number, raw) < 100_000 and S.read_number(raw) is None
    assert _peak_bytes(S.whole, raw) < 100_000 and S.whole(raw) is None


def test_the_text_box_cuts_on_the_server_and_says_so():
    """The server cuts whatever the box sends (a paste, or a socket's message of any length), and the page says the
    text was cut, in its language. The box has no max_chars: Streamlit's drops a longer paste whole, and silently."""
    at = run(stage="tokens", lang="zh")
    box = at.text_input(key="text")
    assert not box.proto.max_chars
    box.input("\ufdfa" * 200_000)
    rerun(at)
    text = at.session_state["text"]
    assert 0 < len(text) <= S.TEXT_MAX_CHARS and len(mha.tokenize(text)) <= S.LIMITS["n_tokens"]
    assert any("截" in w or str(S.TEXT_MAX_CHARS) in w for w in warnings(at)), warnings(at)
