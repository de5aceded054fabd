"""Hostile links and editor cells never crash the page; every refused value gets a visible message."""

import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mha.ui import settings as S
from mha.ui import x_codec

from .helpers import page_text, rerun, run, warnings

HOSTILE = ["1e309", "-3", "0", "99999999999999999999", "9" * 5000, "NaN", "nan", "inf", "１２",
           "<script>alert(1)</script>", "", " ", "3.5", "0x10", "٣"]


SIZE_KEYS = ["n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed", "head"]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_size_parameters(value):
    """One link with the value in every size parameter at once: each size ends in its range, and each value refused
    is said on the page, on a line of the notices' box naming its parameter."""
    at = run(stage="scores", **dict.fromkeys(SIZE_KEYS, value))
    for size in S.SIZES:
        assert 1 <= at.session_state[size] <= S.LIMITS[size]
    lines = [line for w in at.warning for line in w.value.splitlines()]
    for key in SIZE_KEYS:  # every value but a whole number in range (full-width and Arabic-Indic digits too) is said
        usable = value in ("１２", "٣") or (key == "seed" and value == "0")
        said = any(f"{key.replace('_', chr(92) + '_')}=" in line for line in lines)
        assert said != usable, (key, value, lines)


@pytest.mark.parametrize("params", [
    {"stage": "attention"}, {"lang": "klingon"}, {"preset": "gpt5"}, {"x": "not-an-x"}, {"x": "1.1~1e400_2.2~2"},
    {"x": "~" * 5000}, {"kv": "1e9"}, {"kv": "3_<script>"},
    {"stage": "kv_cache", "n_tokens": "64", "d_model": "1024", "n_heads": "16", "d_k": "128"},
])
def test_hostile_other_parameters(params):
    at = run(**params)
    assert at.session_state["stage"] in S.STAGES
    if params.keys() - {"stage", "n_tokens", "d_model", "n_heads", "d_k"} or params.get("stage") == "attention":
        assert at.warning, params


@pytest.mark.parametrize("cell", [None, float("nan"), float("inf"), -float("inf")])
def test_bad_editor_cells_keep_the_last_good_value_and_say_so(cell):
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {1: {"c2": cell}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    assert at.session_state["x_base"][1, 2] == 2.0  # the seeded value stays
    assert "Cell (2,3) is" in page_text(at)


@pytest.mark.parametrize("value", [1e308, -1e308, 1e200])
def test_overflowing_cells_are_refused_with_a_message_on_every_stage(value):
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {0: {"c0": value}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    for stage in S.STAGES[S.STAGES.index("qk"):]:  # every stage that computes from X
        if stage == "next_token":  # with no text of one's own it runs on its example text, not on this X
            continue
        at.session_state["stage"] = stage
        rerun(at)
        assert "overflows float64" in page_text(at) or "too large" in page_text(at), stage
    assert at.session_state["x_base"][0, 0] == value  # the user's edit is kept, to be fixed


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([*S.SIZES, "seed", "head", "lang", "stage", "preset", "integers", "x", "junk"]),
                       st.text(max_size=60)))
def test_any_link_gives_valid_settings_or_notices(params):
    values, notices = S.parse_params(params)
    for key, value in values.items():
        if key in S.SIZES:
            assert 1 <= value <= S.LIMITS[key]
    assert values.get("stage", "matmul") in S.STAGES and values.get("lang", "en") in S.LANGS
    assert all(n.key.startswith("notice_") for n in notices)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_x_text_decodes_to_a_finite_x_or_a_notice(text):
    base = np.zeros((3, 5))
    x, notices = x_codec.decode_x(text, base)
    assert x.shape == (3, 5) and np.all(np.isfinite(x))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), st.from_regex(r"\A[0-9]{1,3}(_[0-9]{1,2}\.[0-9]{1,2}~[-+0-9.eE]{1,8}){0,6}\Z")))
def test_any_kv_text_decodes_to_at_most_the_cap_of_finite_tokens_or_a_notice(text):
    rows, notices = x_codec.decode_kv(text, lambda count: np.ones((count, 5)))
    assert rows.ndim == 2 and rows.shape[1] == 5 and len(rows) <= S.KV_MAX_ADDED
    assert np.all(np.isfinite(rows))
    # full-width and superscript digits count too, and spaces around them as str.strip takes them: int() alone
    # refuses "0\x1f", which strip takes as "0" (hypothesis drew it, 2026-12-07)
    head = unicodedata.normalize("NFKC", text.split("_")[0]).strip()
    assert notices or len(rows) == int(head)  # a usable count is kept as it is


def test_link_notices_can_be_dismissed():
    at = run(n_tokens="1e309", stage="qk")
    assert any("n_tokens=1e309" in w for w in warnings(at))
    at.button(key="dismiss_notices").click()
    rerun(at)
    assert not any("n_tokens" in w for w in warnings(at))


# Payloads that Streamlit's Markdown would turn into something: an image fetched from another host (a beacon), a
# link, emphasis, a colour directive, an icon, KaTeX, raw HTML, autolinked addresses, code, strikethrough, an entity.
MARKUP = ["![](//127.0.0.1:9999/a)", "[Log in](//127.0.0.1:9)", "**bold**", ":red[red]", ":material/home:",
          "$x^2$", "<img src=x onerror=alert(1)>", "http://127.0.0.1:9/a", "www.example.com", "a@b.co", "`code`",
          "~~gone~~", "&amp;", "\\"]
# Every link parameter whose notice writes the value it refused (x and kv write the item they could not use).
NOTICED = ["n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed", "head", "d_ff", "layer", "lang", "stage", "preset",
           "positions", "choice", "model", "temperature", "phase", "example", "part", "x", "kv"]
PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
# GFM links an address it finds in a text, escapes or not: www. or http(s):// and a domain, or an e-mail address.
GFM_ADDRESS = re.compile(r"(?i)(?:https?://|www\.)[-.\w]|[-.\w+]@[-\w]+\.[-\w]")
JOINER = "\u2060"


def literal(value: str) -> str:
    """A pattern for `value` written so that CommonMark shows it as it is: every ASCII punctuation mark after a
    backslash (CommonMark's escape), or, for <, > and &, as its entity."""
    return "".join(re.escape(ENTITIES.get(ch) or ("\\" + ch if ch in PUNCTUATION else ch)) for ch in value)


def _written_literally(at, payload: str, notices: int) -> None:
    """Each of `notices` notices (a line of the box each) writes `payload` as it is, none renders it, and no
    address in any of them becomes a link."""
    lines = [line for w in at.warning for line in w.value.replace(JOINER, "").splitlines()]  # the joiner: invisible
    shown = S.shorten(payload)
    assert sum(bool(re.search(literal(shown), line)) for line in lines) == notices, (payload, lines)
    if PUNCTUATION & set(shown) and len(shown) > 1:  # never as it came
        assert not any(shown in re.sub(literal(shown), "", line) for line in lines), (payload, lines)
    assert not any(GFM_ADDRESS.search(text) for text in warnings(at)), (payload, warnings(at))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refused_link_value_is_written_literally_in_its_notice(lang):
    """One link holds every payload in every parameter at once (kv's after a count): each parameter's notice, a line
    of one box, writes it literally. One page a payload, where a page a parameter took 21 times as long."""
    keys = [k for k in NOTICED if k != "lang"]
    for payload in MARKUP:
        at = run(lang=lang, **{key: f"1_{payload}" if key == "kv" else payload for key in keys})
        _written_literally(at, payload, len(keys))


def test_a_refused_language_is_written_literally_in_its_notice():
    for payload in MARKUP:
        _written_literally(run(lang=payload), payload, 1)


def test_a_refused_cell_is_written_literally_in_its_notice():
    for lang in ("en", "zh"):
        at = run(stage="input", lang=lang)
        at.session_state["x_editor"] = {"edited_rows": {0: {"c0": "[Log in](//127.0.0.1:9)"}}, "added_rows": [],
                                        "deleted_rows": []}
        rerun(at)
        body = " ".join(w.value for w in at.warning)
        assert re.search(literal("“[Log in](//127.0.0.1:9)”"), body) and "[Log in](" not in body, body
