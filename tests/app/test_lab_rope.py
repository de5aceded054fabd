"""The variant lab's RoPE, in both languages: what the page draws and writes equals RoPE computed here, pair by pair
with the loop reference (tests/core/reference.py), on the walk's own seeded X and weights; the knob keeps a link's
odd or too large value valid and says so; a clicked score is the dot product of two rotated rows."""

import json

import numpy as np
import pytest

import mha
from mha.figures import schema
from mha.ui.prose import fmt, tex_num
from mha.ui.strings import Text
from tests.core.reference import rope

from .helpers import chart_data, keyed_charts, page_text, rerun, run, z
from .test_strings_render import _english, _shown_in_chart

CFG = mha.AttentionConfig()  # the post's sizes: d_k = 7, so 6 dims turn and 1 passes by default
W = mha.init_weights(CFG)
X = mha.init_input(CFG)
BASE = 10000.0
LANGS = ("en", "zh")


def turned(a: np.ndarray, dims: int) -> np.ndarray:
    """Each row of a turned by its position (from 0), with the loop reference."""
    return np.array([rope(list(row), p, dims, BASE) for p, row in enumerate(a)])


def expected(head: int, dims: int, x: np.ndarray = X) -> dict[str, np.ndarray]:
    q, k = x @ W.w_q[head], x @ W.w_k[head]
    q_rot, k_rot = turned(q, dims), turned(k, dims)
    return dict(q=q, q_rot=q_rot, k=k, k_rot=k_rot, scores=q_rot @ k_rot.T)


def panels(at, key: str) -> list[np.ndarray]:
    """The heatmaps of chart `key`, in the order drawn (the click layer and outlines left out)."""
    spec = dict(keyed_charts(at))[key]
    return [z(tr) for tr in spec["data"] if tr["type"] == "heatmap"]


def drawn_turned(at) -> list[np.ndarray]:
    """Q, Q_rot, K, K_rot as the change part draws them: Q beside Q_rot in one chart, K beside K_rot in the next."""
    return panels(at, "lab_rope_q") + panels(at, "lab_rope_k")


def table(at, header: str) -> dict[str, tuple[str, str]]:
    """The checks' table: what is compared -> (largest difference, ✓ or ✗)."""
    for m in at.markdown:
        lines = [line for line in m.value.split("\n") if line.startswith("|")]
        if lines and header in lines[0]:
            cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]
            return {what: (value, mark) for what, value, mark in cells}
    raise AssertionError(f"no table headed {header!r}")


def number(text: str, t: Text) -> float:
    return 0.0 if text == t("kv_exact") else float(text.replace("−", "-"))


def lab(lang: str = "en", cleared: int = 0, **params):
    """The RoPE lab opened from a link; `part` (in params) picks the part, what changes by default."""
    return run(cleared, stage="variants", variant="rope", lang=lang, **params)


def to_part(at, part: str):
    """The same page on another part of the lab, as its control sets it."""
    at.session_state["lab_part"] = part
    return rerun(at)


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_draws_q_and_k_turned_the_angles_and_the_scores(lang):
    at, t = lab(lang), Text(lang)
    e = expected(0, 6)
    q, q_rot, k, k_rot = drawn_turned(at)
    for drawn, want in ((q, e["q"]), (q_rot, e["q_rot"]), (k, e["k"]), (k_rot, e["k_rot"])):
        np.testing.assert_allclose(drawn, want, atol=1e-12, rtol=0)
    assert not np.allclose(q_rot[1:, :6], q[1:, :6])  # the first six dims turned from position 1 on
    for key in ("lab_rope_q", "lab_rope_k"):
        lines = [s for s in dict(keyed_charts(at))[key]["layout"]["shapes"] if s["line"]["width"] == 3]
        assert len(lines) == 2 * 3  # each panel's 7 columns cut into pairs: (1, 2), (3, 4), (5, 6), 7
    np.testing.assert_array_equal(q_rot[0], q[0])  # position 0 does not turn
    (angles,) = panels(at, "lab_rope_angles")
    np.testing.assert_allclose(angles, [[p * BASE ** (-2 * i / 6) for i in range(3)] for p in range(3)], rtol=1e-14)
    text = page_text(at)
    assert t("lab_rope_odd", d_k=7, most=6, pairs=3) in text  # why 7 cannot all turn
    assert t("lab_rope_pass", rest=1, d_k=7) in text and t("lab_rope_layout") in text
    assert at.select_slider(key="rotary_dims").value == 6
    assert at.select_slider(key="rotary_dims").options == ["0", "2", "4", "6"]
    assert "lab_rope" not in dict(keyed_charts(at))  # the product is the click part's
    to_part(at, "click")
    a, b, c = panels(at, "lab_rope")  # Q_rot · K_rotᵀ = the scores, clickable
    np.testing.assert_allclose(a, e["q_rot"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(b, e["k_rot"].T, atol=1e-12, rtol=0)
    np.testing.assert_allclose(c, e["scores"], atol=1e-12, rtol=0)
    assert at.select_slider(key="rotary_dims").value == 6  # the knob is in every part


@pytest.mark.parametrize("lang", LANGS)
def test_the_checks_show_toeplitz_scores_for_one_token_and_pass(lang):
    at, t = lab(lang, part="check"), Text(lang)
    same = np.repeat(X[:1], 3, axis=0)
    e = expected(0, 6, same)
    with_rope, without = panels(at, "lab_rope_same")
    np.testing.assert_allclose(with_rope, e["scores"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(without, e["q"] @ e["k"].T, atol=1e-12, rtol=0)
    diagonals = [np.diagonal(e["scores"], d) for d in range(-2, 3)]
    assert max(np.ptp(d) for d in diagonals) < 1e-12  # what the page shows is Toeplitz …
    assert np.ptp(e["scores"]) > 0.1  # … and not one number, which it is without RoPE
    rows = table(at, t("lab_rope_check"))
    assert list(rows) == [t("lab_rope_check_toeplitz"), t("lab_rope_check_constant"),
                          t("lab_rope_check_shift", shift=5), t("lab_rope_check_pass", rest=1, d_k=7),
                          t("lab_rope_check_cache")]
    for value, mark in rows.values():
        assert mark == "✓" and number(value, t) <= 1e-12
    assert rows[t("lab_rope_check_pass", rest=1, d_k=7)][0] == t("kv_exact")  # a dim that passes is not touched


@pytest.mark.parametrize("lang", LANGS)
def test_a_clicked_score_is_the_dot_product_of_two_rotated_rows(lang):
    at = lab(lang, part="click")
    at.session_state["sel_lab_rope"] = (2, 1)
    rerun(at)
    e = expected(0, 6)
    text = page_text(at)
    assert r"Q_{1}^{\mathrm{rot}}(K_{1}^{\mathrm{rot}})^{\mathrm T}[3,2]" in text
    pairs = [rf"{tex_num(a)}\cdot{tex_num(b)}" for a, b in zip(e["q_rot"][2], e["k_rot"][1])]
    body = text[text.index(r"(K_{1}^{\mathrm{rot}})^{\mathrm T}[3,2]"):]
    assert all(p in body for p in pairs), (pairs, body[:600])
    assert fmt(e["scores"][2, 1]) in body  # the note under the terms names the cell's value


def test_quiz_me_asks_for_a_rotated_score_and_takes_the_right_answer():
    at = lab(part="click")
    at.button(key="quiz_start_lab_rope").click()
    rerun(at)
    i, j = at.session_state["quiz_lab_rope"]
    assert np.isnan(panels(at, "lab_rope")[2][i, j])  # the cell asked for is hidden
    at.number_input(key="quiz_answer_lab_rope").set_value(round(float(expected(0, 6)["scores"][i, j]), 4))
    at.button(key="quiz_check_lab_rope").click()
    rerun(at)
    assert at.success and not at.error


@pytest.mark.parametrize("lang", LANGS)
def test_the_head_shown_is_the_one_turned(lang):
    at = lab(lang, head=2)
    e = expected(1, 6)
    q, q_rot, k, k_rot = drawn_turned(at)
    np.testing.assert_allclose(q_rot, e["q_rot"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(k_rot, e["k_rot"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(panels(to_part(at, "click"), "lab_rope")[2], e["scores"], atol=1e-12, rtol=0)
    assert at.button_group(key="head").value == 2  # the head control is on the click part too …
    np.testing.assert_allclose(panels(to_part(at, "check"), "lab_rope_same")[0],
                               expected(1, 6, np.repeat(X[:1], 3, 0))["scores"], atol=1e-12, rtol=0)
    assert at.button_group(key="head").value == 2  # … and on the check


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("asked, used, why", [(7, 6, "odd"), (9, 6, "over"), (5, 4, "odd"), (64, 6, "over")])
def test_a_link_s_rotary_dims_is_kept_valid_and_the_page_says_so(lang, asked, used, why):
    at, t = lab(lang, rotary_dims=asked), Text(lang)
    assert t(f"lab_rope_kept_{why}", asked=asked, used=used, d_k=7) in [c.value for c in at.caption]
    assert at.select_slider(key="rotary_dims").value == used
    e = expected(0, used)
    _, q_rot, _, k_rot = drawn_turned(at)
    np.testing.assert_allclose(q_rot, e["q_rot"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(k_rot, e["k_rot"], atol=1e-12, rtol=0)
    assert at.query_params.get("rotary_dims", ["6"]) in (str(used), [str(used)])  # the link carries what is used
    rerun(at)
    assert not at.info  # said once


def test_fewer_rotating_dims_leave_the_rest_as_they_were():
    at, t = lab(), Text("en")
    at.select_slider(key="rotary_dims").set_value(2)
    rerun(at)
    e = expected(0, 2)
    q, q_rot, k, k_rot = drawn_turned(at)
    np.testing.assert_allclose(q_rot, e["q_rot"], atol=1e-12, rtol=0)
    np.testing.assert_array_equal(q_rot[:, 2:], q[:, 2:])
    np.testing.assert_array_equal(k_rot[:, 2:], k[:, 2:])
    assert panels(at, "lab_rope_angles")[0].shape == (3, 1)
    assert t("lab_rope_check_pass", rest=5, d_k=7) in table(to_part(at, "check"), t("lab_rope_check"))
    at.select_slider(key="rotary_dims").set_value(0)  # on the check part: the change part shows it
    to_part(at, "change")
    assert t("lab_rope_none") in page_text(at) and "lab_rope_angles" not in dict(keyed_charts(at))
    q, q_rot, _, _ = drawn_turned(at)
    np.testing.assert_array_equal(q_rot, q)


def test_an_even_d_k_turns_every_dim_and_d_k_one_turns_none():
    at, t = lab(d_k=4, rotary_dims=4, part="check"), Text("en")
    assert at.select_slider(key="rotary_dims").options == ["0", "2", "4"] and not at.info
    rows = table(at, t("lab_rope_check"))
    assert rows[t("lab_rope_check_none_pass", d_k=4)] == ("—", "✓")
    assert t("lab_rope_all", d_k=4) in page_text(to_part(at, "change"))
    for part in ("change", "click", "check"):
        at = lab(d_k=1, part=part)
        assert t("lab_rope_dk_one", d_k=1) in [i.value for i in at.info], part
    at = lab(d_k=32)  # 16 pairs: no lines between them, the caption names the pairs instead
    assert t("lab_rope_qk_caption_wide", h=1, r=6, d_k=32) in page_text(at)
    assert not any(dict(keyed_charts(at))[key]["layout"].get("shapes") for key in ("lab_rope_q", "lab_rope_k"))


@pytest.mark.parametrize("params", [dict(), dict(present=1, lang="zh"), dict(text="the cat sat on the mat"),
                                    dict(model="trained"), dict(n_tokens=64, d_model=130, d_k=64, n_heads=8),
                                    dict(phone=True)], ids=["desk", "present-zh", "text", "trained", "large", "phone"])
def test_every_figure_keeps_to_what_the_page_draws(params):
    at = lab(cleared=10**9, **params)
    assert at.session_state["screen_phone"] == params.get("phone", False)
    drawn = {}
    for part, keys in (("change", {"lab_rope_q", "lab_rope_k", "lab_rope_angles"}), ("click", {"lab_rope"}),
                       ("check", {"lab_rope_same"})):
        figures = dict(keyed_charts(to_part(at, part)))
        assert set(figures) == keys, part
        drawn |= figures
    for key, spec in drawn.items():
        assert not schema.problems(spec), (key, schema.problems(spec))


def test_the_chinese_page_shows_no_english_the_code_wrote():
    """Words the code writes into charts (titles, hover labels) and Markdown are the tables' too; "rot" (Q_rot, the
    trace's q_rot) is notation (test_strings_render's NOTATION), as "fc" and "proj" are on the block stage."""
    at = lab("zh")
    at.session_state["sel_lab_rope"] = (2, 1)
    found = set()
    for part in ("change", "click", "check"):
        mine = False
        for node in to_part(at, part)._tree:  # this module's part: from its knob to its last element
            mine = mine or getattr(node, "key", None) == "rotary_dims"
            if node.type == "expander":  # the stage's numpy follows the lab
                break
            if not mine or getattr(node, "proto", None) is None:
                continue
            if (data := chart_data(node)) is not None:
                texts = _shown_in_chart(json.loads(data["spec"]))
            else:
                texts = [node.proto.body] if node.type == "markdown" else []
            found |= {word for text in texts for word in _english(text)}
            if node.type == "number_input":  # the check's words lead the costs' first element; their box follows
                break
    assert not found, found


@pytest.mark.parametrize("present", [False, True], ids=["desk", "present"])
def test_q_and_k_before_and_after_the_turn_write_their_numbers(present):
    """Audit 2026-12-04 #9: four panels a row drew colour only, and pairs 1 and 2 turn by 0.046 and 0.002 rad a
    position, too little to see in colour. Each of Q, Q_rot, K, K_rot writes its numbers (the loop reference's, to
    the digits written), so that row 2 of pair 1 can be read changing: −0.069 becomes −0.102."""
    at = lab(**(dict(present=1) if present else {}))
    e = expected(0, 6)
    traces = [t for key in ("lab_rope_q", "lab_rope_k") for t in dict(keyed_charts(at))[key]["data"]
              if t["type"] == "heatmap"]
    assert len(traces) == 4
    for trace, want in zip(traces, (e["q"], e["q_rot"], e["k"], e["k_rot"])):
        assert trace.get("texttemplate") == "%{text}", trace["name"]
        numbers = np.array([[float(s.replace("−", "-")) for s in row] for row in trace["text"]])
        np.testing.assert_allclose(numbers, want, atol=0.0051 if present else 0.00051)
    q, q_rot = (np.array([[float(s.replace("−", "-")) for s in row] for row in t["text"]]) for t in traces[:2])
    assert (q[1, 2:4] != q_rot[1, 2:4]).all()  # pair 1 of row 2 changes in the digits written


def test_a_phone_writes_q_k_and_their_turns_in_numbers():
    """The learner audit of 2026-12-07: a phone drew Q beside Q_rot (and K beside K_rot) in cells of 19 px, colour
    only, so the turn the part exists to show could not be read. One a row, every cell of the four writes its
    number: the rotated values are the reference's."""
    at = lab(phone=True)
    assert at.session_state["screen_phone"]
    figures, e = dict(keyed_charts(at)), expected(0, 6)
    for key in ("q", "k"):
        heat = [t for t in figures[f"lab_rope_{key}"]["data"] if t.get("type") == "heatmap"]
        assert len(heat) == 2 and all(t.get("texttemplate") == "%{text}" and all(map(all, t["text"])) for t in heat)
        np.testing.assert_allclose(z(heat[1]), e[f"{key}_rot"], atol=1e-12, rtol=0)
