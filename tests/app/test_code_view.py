"""Each stage's code view comes from mha's source and contains the lines that compute that stage."""

import pytest

from mha.ui.code import snippet

from .helpers import rerun, run

EXPECTED = {
    "input": ["def check_input"],
    "qk": ["q = _finite(", "k = _finite("],
    "scores": ["scores = ", "scaled = scores / np.sqrt(w.d_k)", "def causal_mask", "def softmax"],
    "values": ["v = _finite(", "heads = _finite("],
    "heads": ["concat = "],
    "output": ["y = _finite("],
    "dependency": ["def dependency"],
    "kv_cache": ["def append"],
    "tokens": ["def tokenize", "def sinusoidal_positions", "def embed"],
    "block": ["def layer_norm", "def gelu", "def block"],
    "next_token": ["final = layer_norm(h, mw.lnf_g, mw.lnf_b)", "logits = final @ mw.wte.T"],
}


@pytest.mark.parametrize("stage, needles", EXPECTED.items())
def test_snippets_hold_the_stages_lines(stage, needles):
    code = snippet(stage)
    for needle in needles:
        assert needle in code, (stage, needle)
    compile(code, stage, "exec")  # shown as valid Python, not a mangled excerpt


def test_the_page_shows_the_code_once_opened():
    at = run(stage="scores")
    assert not at.code  # not built while closed
    at.session_state["code_view"] = True
    rerun(at)
    assert any("def softmax" in c.value for c in at.code)
