"""Each stage's code view comes from mha's source and contains the lines that compute that stage."""

import ast

import pytest

from mha.ui.code import snippet

from .helpers import rerun, run

EXPECTED = {
    "input": ["def check_input"],
    "qk": ["q = x @ w.w_q", "k = x @ w.w_k"],
    "scores": ["scores = q @ k.transpose(0, 2, 1)", "scaled = scores / np.sqrt(w.d_k)",
               "masked = scaled + causal_mask(n)", "probs = softmax(masked)", "def causal_mask", "def softmax"],
    "values": ["v = x @ w.w_v", "heads = probs @ v"],
    "heads": ["concat = "],
    "output": ["y = concat @ w.w_o"],
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


LAB = {
    "gqa": ["g = groups(w.n_heads, w.n_kv_heads)", "def share_kv", "def groups"],
    "mqa": ["def share_kv"],
    "window": ["def visible", "added = bias(n, cfg)"],
    "sinks": ["(j < sinks)"],
    "alibi": ["def alibi_slopes", "hidden - alibi_slopes(cfg.n_heads)"],
    "rope": ["q_rot = rope(q, np.arange(n)", "def angles", "def rope"],
    "mla": ["def mla_from", "q_abs = q @ w.w_uk.transpose(0, 2, 1)"],
    "online": ["def online_attention", "acc = acc * rescale[:, None]"],
}


@pytest.mark.parametrize("variant, needles", LAB.items())
def test_the_lab_shows_the_code_of_its_variant(variant, needles):
    code = snippet("variants", variant)
    for needle in needles:
        assert needle in code, (variant, needle)
    compile(code, variant, "exec")


# What keeps forward exact and its failures named, and what makes it lean: forward wraps these around the walk.
MACHINERY = ("checked_finite", "BLOCK", "pad", "errstate", "ascontiguousarray", "out=", "+=", "-=", "*=", "/=", "_lean")


@pytest.mark.parametrize("stage", ["qk", "scores", "values"])
def test_the_walk_is_shown_plain(stage):
    """The post's steps as a learner reads them: no overflow guard, no padding, no in-place tricks."""
    code = snippet(stage)
    assert [word for word in MACHINERY if word in code] == []


def test_the_softmax_shown_is_two_lines():
    (softmax,) = [node for node in ast.parse(snippet("scores")).body if getattr(node, "name", "") == "softmax"]
    body = softmax.body[1:] if isinstance(softmax.body[0].value, ast.Constant) else softmax.body  # past the docstring
    assert len(body) == 2, ast.unparse(softmax)


def test_the_page_shows_the_code_once_opened():
    at = run(stage="scores")
    assert not at.code  # not built while closed
    at.session_state["code_view"] = True
    rerun(at)
    assert any("def softmax" in c.value for c in at.code)
