"""Which renderer draws each string, seen on the page: every string is tagged with its key, the app is
driven through every stage in AppTest, and each tag is found in the element that shows it. The
markup rules of test_strings.py are only as good as its PLOTLY / PLAIN / LATEX lists; this keeps
those lists true."""

import json

import pytest
from google.protobuf.json_format import MessageToDict

from mha.ui import settings as S
from mha.ui.strings import EN, Text

from .helpers import rerun, run
from .test_strings import LATEX, PLAIN, PLOTLY, renderer

TAG = "@@{}@@"


@pytest.fixture
def tagged(monkeypatch):
    """Every string the app asks for starts with @@key@@ (templates too: the tag survives .format)."""
    call, template = Text.__call__, Text.template
    monkeypatch.setattr(Text, "__call__", lambda self, key, /, **f: TAG.format(key) + call(self, key, **f))
    monkeypatch.setattr(Text, "template", lambda self, key: TAG.format(key) + template(self, key))


def _keys_in(value) -> set[str]:
    text = json.dumps(value, ensure_ascii=False)
    return {key for key in EN if TAG.format(key) in text}


def seen(at) -> dict[str, set[str]]:
    """key -> the renderers it was found in on this page."""
    found: dict[str, set[str]] = {}
    for node in at._tree:
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        fields = MessageToDict(proto)
        if node.type == "plotly_chart":
            parts = {"plotly": fields}
        elif node.type == "latex":
            parts = {"latex": fields}
        elif node.type == "selectbox":  # options are plain text, the label is Markdown
            parts = {"plain": [fields.pop("options", []), fields.pop("rawValue", "")], "markdown": fields}
        else:
            parts = {"markdown": fields}
        for kind, value in parts.items():
            for key in _keys_in(value):
                found.setdefault(key, set()).add(kind)
    return found


def _walk():
    """Every stage, then the states that show more words: scores for 6 tokens, a clicked score, a quiz,
    a nudge of token 1,
    an added token, the cost tab and a timing, a link with bad parameters, sizes drawn in part."""
    for stage in S.STAGES:
        yield run(stage=stage)
    yield run(stage="scores", n_tokens=6)  # rows of scores fill in groups from 5 tokens on
    at = run(stage="scores")
    at.session_state["sel_scores"] = (2, 1)
    yield rerun(at)
    at.session_state["sel_scores"] = (0, 2)
    yield rerun(at)
    at = run(stage="matmul")
    at.button(key="quiz_start_mm").click()
    rerun(at)
    at.number_input(key="quiz_answer_mm").set_value(1e6)
    at.button(key="quiz_check_mm").click()
    yield rerun(at)
    at = run(stage="dependency")
    at.number_input(key="nudge_j").set_value(1)
    yield rerun(at)
    at = run(stage="kv_cache")
    at.button(key="add_token").click()
    yield rerun(at)
    at.session_state["kv_part"] = "cost"
    yield rerun(at)
    at.number_input(key="kv_measure_T").set_value(2)
    at.button(key="kv_measure").click()
    yield rerun(at)
    yield run(stage="input", n_tokens="lots", d_k=999, preset="huge")
    big = dict(n_tokens=20, d_model=1024, d_k=64, d_v=64, n_heads=16)  # drawn in part, costly, too big to export
    for stage in ("scores", "dependency"):
        yield run(stage=stage, **big)
    at = run(stage="qk", **big)
    at.session_state["sel_qk_q"] = (0, 0)
    yield rerun(at)
    at = run(stage="kv_cache", **big)
    yield at
    at.session_state["kv_part"] = "cost"
    yield rerun(at)


def test_each_string_is_drawn_by_the_renderer_its_markup_is_checked_for(tagged):
    found: dict[str, set[str]] = {}
    for at in _walk():
        for key, kinds in seen(at).items():
            found.setdefault(key, set()).update(kinds)
    wrong = {key: kinds for key, kinds in found.items() if kinds != {renderer(key)}}
    assert wrong == {}, "declare these keys' renderers in test_strings.py (a key has one renderer)"
    lists = {"plotly": PLOTLY, "plain": PLAIN, "latex": LATEX}
    for kind, keys in lists.items():
        assert keys <= set(found), f"{kind} keys never seen on a page: {sorted(keys - set(found))}"
    assert len(found) >= 0.9 * len(EN), sorted(set(EN) - set(found))
