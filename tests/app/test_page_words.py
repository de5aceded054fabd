"""The small words of a page. Chinese pages punctuate as Chinese (zh review K1, K3): lists of tokens or positions the
code joins take 、, not an ASCII comma, and sentences the code runs together take no space after a full stop. English
pages say one thing in the singular (audit #12: "1 K and V heads", "at most 1 cells", "more than 1 tokens")."""

import re

import pytest

from .helpers import charts, page_text, rerun, run

ASCII_LIST = re.compile(r"[X\d][₀-₉]*, [X\d]")  # X₁, X₂ or 1, 2
SPACED_STOP = re.compile(r"[。；] +(?=[\u4e00-\u9fff“（])")  # 。 then a space before the next sentence


def _kv_window():
    at = run(stage="kv_cache", variant="window", lang="zh", n_tokens=4)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    return at


def _kv_timed():
    at = run(stage="kv_cache", variant="window", lang="zh")
    at.session_state["kv_part"] = "cost"
    rerun(at)
    at.number_input(key="kv_measure_T").set_value(2)
    at.button(key="kv_measure").click()
    return rerun(at)


VIEWS = {  # each built only for its own case
    "kv window": _kv_window,
    "kv timed": _kv_timed,  # a variant's timing: its result, then which cache was timed
    "lab mqa": lambda: run(stage="variants", variant="mqa", lang="zh"),
    "lab window check": lambda: run(stage="variants", variant="window", part="check", n_tokens=6, lang="zh"),
    "next token": lambda: run(stage="next_token", lang="zh"),
    "block trained": lambda: run(stage="block", model="trained", lang="zh"),
    "input": lambda: run(stage="input", lang="zh"),
    # sentences the lab's code runs on: RoPE's angles after its caption, and with no dims turning; MLA's price table
    # shown in part; the online softmax's click hint and its rows drawn in part
    "lab rope": lambda: run(stage="variants", variant="rope", lang="zh"),
    "lab rope none": lambda: run(stage="variants", variant="rope", rotary_dims=0, lang="zh"),
    "lab mla check": lambda: run(stage="variants", variant="mla", part="check", d_model=24, lang="zh"),
    "lab online click": lambda: run(stage="variants", variant="online", part="click", n_tokens=20, lang="zh"),
    "heads writes": lambda: run(model="trained", stage="heads", part="writes", lang="zh"),  # reading, then count
}


@pytest.mark.parametrize("name", VIEWS)
def test_chinese_pages_list_with_the_chinese_comma_and_run_sentences_on_without_spaces(name):
    at = VIEWS[name]()
    texts = [e.value for kind in ("markdown", "caption", "info", "warning", "latex") for e in at.get(kind)]
    texts += [a.get("text", "") for spec in charts(at) for a in spec["layout"].get("annotations", [])]
    texts += [str(tr.get("text", "")) for spec in charts(at) for f in spec.get("frames", ()) for tr in f["data"]]
    lists = [m for text in texts for m in ASCII_LIST.findall(text)]
    stops = [text[max(0, m.start() - 20):m.end() + 10] for text in texts for m in SPACED_STOP.finditer(text)]
    assert not lists and not stops, (lists[:5], stops[:5])


ONE_PLURAL = re.compile(r"(?<![\d.,])1 (K and V heads|cells|tokens|heads|keys)\b")


@pytest.mark.parametrize("params", [dict(variant="mqa", part="check"), dict(variant="window", window=1),
                                    dict(variant="window", window=1, part="check"), dict(variant="sinks", window=1)])
def test_english_says_one_in_the_singular(params):
    text = page_text(run(stage="variants", **params))
    assert not ONE_PLURAL.findall(text), [text[max(0, m.start() - 30):m.end()] for m in ONE_PLURAL.finditer(text)]


def test_the_cost_table_s_real_models_are_punctuated_as_chinese_on_a_chinese_page():
    """zh review K2: "GPT-2 small: 1,536" and "BLOOM (176B)" in the Chinese cost table."""
    at = run(stage="variants", part="check", lang="zh")
    text = " ".join(m.value for m in at.markdown)
    assert "BLOOM（176B）" in text and "BLOOM (176B)" not in text
    assert not re.search(r"(small|7B|v0\.1|176B）|20B|V2): \d", text), re.findall(r".{12}: \d", text)[:3]


def test_a_chinese_field_ending_in_a_bracket_takes_no_space_after_it():
    """zh review K2: "按 StreamingLLM（基于 Llama-2-7B） 的维度", a space left after the name's closing bracket."""
    text = " ".join(m.value for m in run(stage="variants", variant="sinks", part="check", lang="zh").markdown)
    assert "Llama-2-7B）的维度" in text and not re.search(r"） +[\u4e00-\u9fff]", text)
