"""Names are written the one way the page writes them: no raw W_Q1, W_O or LN₂W_fc in prose, and Concat lists
exactly the heads there are."""

import re

import pytest

from mha.ui.view import concat_args

from .helpers import charts, rerun, run

MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)
RAW = re.compile(r"[A-Za-z₀-₉]+_[A-Za-z0-9]+")  # W_Q1, W_O, LN₂W_fc, LN_f: a name as code writes it


def prose(at) -> str:
    """The page's Markdown (sentences and captions) with its math left out: what is read as words."""
    return MATH.sub(" ", "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption]))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stage, params, key, quiz", [
    ("qk", {}, "qk_q", True), ("output", {}, "output_y", True), ("block", {"part": "ffn"}, "block_fc", True),
    ("next_token", {}, "next_logits", False), ("matmul", {}, "mm", True),
])
def test_the_sums_hint_and_quiz_write_names_as_math(lang, stage, params, key, quiz):
    at = run(stage=stage, lang=lang, **params)
    assert not RAW.findall(prose(at)), prose(at)  # the hint: "Click any cell of $W_{Q1}$", not of W_Q1
    at.session_state[f"sel_{key}"] = (0, 0)
    rerun(at)
    assert not RAW.findall(prose(at)), prose(at)  # the sums' sentence
    if quiz:
        at.button(key=f"quiz_start_{key}").click()
        rerun(at)
        assert not RAW.findall(prose(at)), prose(at)  # the question


@pytest.mark.parametrize("h, tex, html", [
    (1, "H_{1}", "H<sub>1</sub>"),
    (2, "H_{1}, H_{2}", "H<sub>1</sub>, H<sub>2</sub>"),  # not H₁,…,H₂
    (3, r"H_{1},\dots,H_{3}", "H<sub>1</sub>, …, H<sub>3</sub>"),
])
def test_concat_lists_the_heads_there_are(h, tex, html):
    assert concat_args(h).tex == tex and concat_args(h).html == html
    at = run(stage="heads", n_heads=h)
    latex = " ".join(x.value for x in at.latex) + " ".join(m.value for m in at.markdown)
    assert rf"\operatorname{{Concat}}({tex})" in latex
    assert f"Concat({html})" in str(charts(at))  # the chart's title
    output = run(stage="output", n_heads=h)  # Y = Concat(…)·W_O names the same heads
    assert rf"\operatorname{{Concat}}({tex})\,W_O" in " ".join(x.value for x in [*output.latex, *output.markdown])
