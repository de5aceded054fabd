"""The output stage's matrices on screen: Concat and W_O write every number on a desk and a projector, a clicked
cell of Y writes all 22 terms of its dot product and products that add up to the sum it writes, and Quiz me on Y
can be answered from the numbers the page writes."""

import re
from decimal import Decimal

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import mha
from mha.ui.product import b_panels

from .helpers import APP, keyed_charts, page_text, rerun, run

CFG = mha.AttentionConfig()
W = mha.init_weights(CFG)
TRACE = mha.forward(mha.init_input(CFG), W)


def chart(at, key: str) -> dict:
    return dict(keyed_charts(at))[key]


def cell_numbers(trace: dict) -> np.ndarray:
    """A heatmap's written numbers, read back (NaN where a cell writes none)."""
    return np.array([[float(s.replace("−", "-")) if s else np.nan for s in row] for row in trace.get("text") or []])


def b_numbers(spec: dict) -> np.ndarray:
    """B as a product writes it: one panel, or (a projector's W_O) its blocks of rows side by side, one panel each."""
    return np.vstack([cell_numbers(t) for t in b_panels(spec["data"], spec["layout"]["meta"]["outline"]["boxes"])])


@pytest.mark.parametrize("present", [0, 1])
def test_concat_and_w_o_are_written_on_the_output_and_heads_stages(present):
    """Every number of Concat and W_O, on a projector's first screen too, where W_O's two heads' blocks stand side by
    side."""
    at = run(stage="output", present=present)
    spec = chart(at, "output_y")
    assert len(b_panels(spec["data"], spec["layout"]["meta"]["outline"]["boxes"])) == (2 if present else 1)
    for shown, values in ((cell_numbers(spec["data"][0]), TRACE.concat), (b_numbers(spec), W.w_o)):
        assert shown.shape == values.shape
        np.testing.assert_allclose(shown, values, atol=0.005 + 1e-12, rtol=0)
    heads = chart(run(stage="heads", present=present), "heads_concat")
    np.testing.assert_allclose(cell_numbers(heads["data"][0]), TRACE.concat, atol=0.005 + 1e-12, rtol=0)


def aligned(text: str) -> str:
    return re.search(r"\\begin\{aligned\}(.*?)\\end\{aligned\}", text, re.S).group(1)


def tex_number(s: str) -> float:
    s = s.strip("()")
    mant, _, exp = s.partition(r"\times 10^")
    return float(mant) * (10.0 ** int(exp.strip("{}")) if exp else 1.0)


NUM = r"\(?-?[\d.]+(?:\\times 10\^\{-?\d+\})?\)?"


def written_sums(text: str) -> tuple[list[tuple[float, float]], list[str], str]:
    """The breakdown's factor pairs, its products as written and the sum it writes."""
    body = aligned(text)
    pairs_part, _, rest = body.partition(r"\approx")
    products_part, _, total = rest.rpartition("&=")
    pairs = [(tex_number(a), tex_number(b)) for a, b in re.findall(rf"({NUM})\\cdot({NUM})", pairs_part)]
    products = [p.strip("()") for p in re.findall(r"\(?-?\d+(?:\.\d+)?\)?", products_part)]
    return pairs, products, total.strip()


@pytest.mark.parametrize("cell", [(2, 1), (0, 3)])
def test_a_clicked_cell_of_y_writes_all_22_terms_that_add_up(cell):
    """Two heads, row ≠ column: every pair is row i of Concat and column j of W_O (4 significant digits), each product
    written is that of its factors as written, the products as written add up exactly to the sum written, and that
    sum is Y[i, j] to the factors' precision."""
    i, j = cell
    at = run(stage="output")
    at.session_state["sel_output_y"] = cell
    text = page_text(rerun(at))
    assert rf"$Y[{i + 1}, {j + 1}]$ is row {i + 1} of $\mathrm{{Concat}}$ times column {j + 1} of $W_{{O}}$" in text
    pairs, products, total = written_sums(text)
    assert len(pairs) == 22 and len(products) == 22
    np.testing.assert_allclose([a for a, _ in pairs], TRACE.concat[i], rtol=5e-3, atol=0)
    np.testing.assert_allclose([b for _, b in pairs], W.w_o[:, j], rtol=5e-3, atol=0)
    assert sum(map(Decimal, products)) == Decimal(total)
    decimals = max(len(p.partition(".")[2]) for p in products)
    step = Decimal(1).scaleb(-decimals)
    for (a, b), written in zip(pairs, products):  # the product of the factors as written, to the decimals written
        assert Decimal(written) == (Decimal(str(a)) * Decimal(str(b))).quantize(step), (a, b, written)
    rounding = float(np.sum(np.abs(TRACE.concat[i] * W.w_o[:, j]))) * 1e-3  # 4 significant digits a factor
    assert abs(float(total) - TRACE.y[i, j]) <= rounding + 23 * 0.5 * 10.0 ** -decimals
    assert f"add up to {total.replace('-', '−')}; the cell" in text


def concat_numbers(spec: dict) -> np.ndarray:
    """Concat as the output product writes it (a phone writes Concatᵀ)."""
    shown = cell_numbers(spec["data"][0])
    return shown.T if spec["data"][0]["name"].endswith("<sup>T</sup>") else shown


@pytest.mark.parametrize("screen", ["desk", "present", "phone"])
def test_quiz_on_y_is_answered_right_from_the_numbers_on_screen(screen):
    """Every cell of Y hidden in turn and worked out from the numbers the page writes in Concat's row and W_O's
    column (rounded, so up to 3% off Y at two decimals): the quiz calls it right."""
    if screen == "phone":  # what the page's screen probe reports on a phone, from the first run
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params["stage"] = "output"
        at.session_state["screen_phone"] = True
        rerun(at)
    else:
        at = run(stage="output", present=int(screen == "present"))
    assert dict(keyed_charts(at))["output_y"]["layout"]["width"] <= (358 if screen == "phone" else 1100)
    at.button(key="quiz_start_output_y").click()
    rerun(at)
    for i in range(3):
        for j in range(5):
            at.session_state["quiz_output_y"] = (i, j)
            rerun(at)
            spec = chart(at, "output_y")
            assert spec["data"][2]["z"][i][j] is None  # the cell asked for is the one hidden
            concat, w_o = concat_numbers(spec), b_numbers(spec)
            assert concat.shape == (3, 22) and w_o.shape == (22, 5)
            assert np.isfinite(concat[i]).all() and np.isfinite(w_o[:, j]).all()  # every number needed is written
            at.number_input(key="quiz_answer_output_y").set_value(round(float(concat[i] @ w_o[:, j]), 4))
            at.button(key="quiz_check_output_y").click()
            rerun(at)
            assert at.success and not at.error, (i, j, [e.value for e in at.error])


def test_each_heads_part_of_y_is_named_with_its_block_of_w_o_raised():
    """Y = Σ H_i W_O^(i): each part's name raises the block index of W_O as the stage's formula does (planted
    2026-12-07: lowered, W_O₍₁₎, read as another subscript), and the parts add up to Y."""
    at = run(stage="output", n_heads=3)
    parts = [tr for tr in dict(keyed_charts(at))["output_parts"]["data"] if "z" in tr]
    assert [tr["name"] for tr in parts[:3]] == [f"H<sub>{i}</sub>W<sub>O</sub><sup>({i})</sup>" for i in (1, 2, 3)]
    cfg = mha.AttentionConfig(n_heads=3)
    y = mha.forward(mha.init_input(cfg), mha.init_weights(cfg)).y
    np.testing.assert_allclose(sum(np.array(tr["z"], float) for tr in parts[:3]), y, atol=1e-9)
