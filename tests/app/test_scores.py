"""The scores stage in AppTest: the step it rests on (control and link), clicks that keep it, breakdowns read
whole in both languages, the post's own mask example, and bad links refused with a notice."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import mha
from mha.figures.scores import PHASES
from mha.ui import settings as S
from mha.ui.strings import EN, ZH

from .helpers import (
    APP,
    chart_elements,
    charts,
    formulas,
    mark_data,
    marks,
    outline_rule,
    page_text,
    rerun,
    run,
    warnings,
    z,
)

Q1, K1T = "Q<sub>1</sub>", "K<sub>1</sub><sup>T</sup>"


def post_trace(**sizes) -> mha.Trace:
    cfg = mha.AttentionConfig(**sizes)
    return mha.forward(mha.init_input(cfg), mha.init_weights(cfg))


def heat(spec: dict, name: str, xaxis: str = "x2", yaxis: str = "y") -> dict:
    (trace,) = [t for t in spec["data"] if t["type"] == "heatmap" and t["name"] == name and t["xaxis"] == xaxis
                and t["yaxis"] == yaxis]
    return trace


def expected_at_rest(phase: str, tr: mha.Trace) -> tuple[np.ndarray, np.ndarray]:
    """(signed panel, S panel) as the post would draw them at this step, gaps as NaN."""
    n = tr.scores.shape[1]
    upper = np.triu(np.ones((n, n), bool), k=1)
    nan = np.full((n, n), np.nan)
    signed = dict(qkt=tr.scores[0], scaled=tr.scaled[0], masked=np.where(upper, np.nan, tr.scaled[0]), s=nan)[phase]
    probs = np.where(upper, np.nan, tr.probs[0]) if phase == "s" else nan
    return signed, probs


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("phase", PHASES)
def test_a_link_opens_the_stage_resting_on_its_phase(phase, lang):
    at = run(stage="scores", phase=phase, lang=lang)
    assert at.segmented_control(key="phase").value == phase
    spec = charts(at)[0]
    signed, probs = expected_at_rest(phase, post_trace())
    np.testing.assert_allclose(z(heat(spec, f"{Q1}{K1T}")), signed, atol=1e-12, rtol=0)
    np.testing.assert_allclose(z(heat(spec, "S<sub>1</sub>")), probs, atol=1e-12, rtol=0)
    slider = spec["layout"]["sliders"][0]
    assert slider["steps"][slider["active"]]["label"]  # it rests on a frame the slider names
    assert at.query_params.get("phase") == (None if phase == "s" else phase)


def test_at_rest_the_chart_shows_the_finished_s():
    spec = charts(run(stage="scores"))[0]
    s = z(heat(spec, "S<sub>1</sub>"))
    tr = post_trace()
    np.testing.assert_allclose(np.nan_to_num(s), tr.probs[0], atol=1e-12, rtol=0)
    np.testing.assert_allclose(np.nansum(s, axis=1), 1, atol=1e-12)
    assert spec["layout"]["sliders"][0]["active"] == len(spec["frames"]) - 1


def test_a_click_keeps_the_phase_and_outlines_the_true_operands():
    at = run(stage="scores", phase="masked")
    before = charts(at)[0]["layout"]["sliders"][0]["active"]
    at.session_state["sel_scores"] = (1, 2)
    rerun(at)
    spec = charts(at)[0]
    assert at.segmented_control(key="phase").value == "masked" and at.query_params["phase"] == "masked"
    assert spec["layout"]["sliders"][0]["active"] == before
    signed, _ = expected_at_rest("masked", post_trace())
    np.testing.assert_allclose(z(heat(spec, f"{Q1}{K1T}")), signed, atol=1e-12, rtol=0)
    assert marks(at) == {"scores": (1, 2)}  # the page outlines (2, 3) by the figure's rule:
    cells, boxes = outline_rule(spec)
    assert cells == [3, 3] and {axes: box[:2] for axes, box in boxes.items()} == {
        ("x", "y"): ([1, 7], "i"),  # row i of Q₁, all 7 columns
        ("x2", "y2"): ("j", [1, 7]),  # column j of K₁ᵀ, all 7 rows
        ("x2", "y"): ("j", "i")}  # the cell (i, j)
    for *_, trace in boxes.values():  # each in a lines trace of the figure, empty until a cell is chosen
        assert spec["data"][trace]["mode"] == "lines" and spec["data"][trace]["x"] == [None]


def test_a_click_leaves_the_chart_s_element_as_it_was_and_its_mark_carries_the_cell_alone():
    """The chart's element is byte for byte the one before the click (the browser holds it, so Streamlit sends
    its hash); the mark says which chart, which cell and which frame (the one the chart rests on, then the one
    clicked on), nothing of the figure."""
    at = run(stage="scores")
    (before,) = chart_elements(at)
    rest = charts(at)[0]["layout"]["sliders"][0]["active"]
    assert mark_data(at) == [{"key": "scores", "cell": None, "frame": rest}]
    at.session_state["sel_scores"] = (1, 0)
    rerun(at)
    (after,) = chart_elements(at)
    assert after == before
    assert mark_data(at) == [{"key": "scores", "cell": [1, 0], "frame": rest}]
    at.session_state["frame_scores"] = 5
    rerun(at)
    assert chart_elements(at) == [before] and mark_data(at) == [{"key": "scores", "cell": [1, 0], "frame": 5}]


def frame_values(spec: dict) -> list[tuple[list, list, list]]:
    """Each frame of the scores chart as the page writes it: the numbers in the signed panel's cells and in S's ("":
    none), and the marks ("−∞", "0") by cell."""
    names = [t.get("name") for t in spec["data"]]
    signed_at, probs_at = names.index(f"{Q1}{K1T}"), names.index("S<sub>1</sub>")
    marks_at = signed_at + 2  # the "−∞"/"0" marks: a text trace right after S
    out = []
    for fr in spec["frames"]:
        by_trace = dict(zip(fr["traces"], fr["data"]))
        marks = {(y - 1, x - 1): text for x, y, text in zip(by_trace[marks_at]["x"], by_trace[marks_at]["y"],
                                                            by_trace[marks_at]["text"])}
        out.append((by_trace[signed_at]["text"], by_trace[probs_at]["text"], marks))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_cell_clicked_on_a_frame_is_explained_as_that_frame_shows_it(lang):
    """On every frame, the clicked cell (3, 2) and (1, 3) is said with the number the frame's chart writes in it:
    QKᵀ while it fills, ÷√d_k, masked (−∞ above the diagonal), S (0 above it); a cell not filled yet says so. The
    dot product is written out whenever the cell holds a score."""
    at = run(stage="scores", lang=lang)
    spec = charts(at)[0]
    frames = frame_values(spec)
    table = EN if lang == "en" else ZH
    for k, (signed, probs, signs) in enumerate(frames):
        for i, j in ((2, 1), (0, 2)):
            at.session_state["sel_scores"], at.session_state["frame_scores"] = (i, j), k
            rerun(at)
            text = page_text(at)
            drawn = probs[i][j] or signed[i][j] or signs.get((i, j), "")
            if not drawn:
                empty = table["frame_cell_empty"].split("{step}")[0].format(k=k + 1, count=len(frames))
                assert empty in text, (k, i, j, text[:300])
                assert r"(Q_{1}K_{1}^{\mathrm T})[" not in text
                continue
            head = table["frame_cell"].split("{value}")[0].format(k=k + 1, count=len(frames), i=i + 1, j=j + 1,
                                                                 step="@")
            sentence = re.escape(head.split("@")[0]) + r".*?" + re.escape(head.split("@")[1] + drawn) + r"[.。 （(]"
            assert re.search(sentence, text), (k, i, j, drawn, text[:300])
            assert r"(Q_{1}K_{1}^{\mathrm T})[" in text


def test_choosing_a_phase_changes_the_chart_and_the_link():
    at = run(stage="scores")
    at.segmented_control(key="phase").set_value("scaled")
    rerun(at)
    signed, _ = expected_at_rest("scaled", post_trace())
    np.testing.assert_allclose(z(heat(charts(at)[0], f"{Q1}{K1T}")), signed, atol=1e-12, rtol=0)
    assert at.query_params["phase"] == "scaled"
    at.session_state["stage"] = "qk"  # the step is kept while the reader looks elsewhere …
    rerun(at)
    assert "phase" not in at.query_params
    at.session_state["stage"] = "scores"
    rerun(at)
    assert at.segmented_control(key="phase").value == "scaled"  # … and back


QKT, Q_, KT = "(Q_{{{h}}}K_{{{h}}}^{{\\mathrm T}})", "Q_{{{h}}}", "K_{{{h}}}^{{\\mathrm T}}"  # names as LaTeX, not W_Q1
SENTENCE = {"en": f"${QKT}[{{i}}, {{j}}]$ is row {{i}} of ${Q_}$ times column {{j}} of ${KT}$:",
            "zh": f"${QKT}[{{i}}, {{j}}]$ 是 ${Q_}$ 的第 {{i}} 行与 ${KT}$ 的第 {{j}} 列的内积："}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("head", [1, 2])
def test_the_dot_product_is_row_i_of_q_times_column_j_of_kt_for_cells_in_every_row(lang, head):
    at = run(stage="scores", lang=lang, head=head)
    tr = post_trace()
    for i, j in [(0, 2), (1, 0), (1, 2), (2, 1)]:
        at.session_state["sel_scores"] = (i, j)
        rerun(at)
        sentence = SENTENCE[lang].format(h=head, i=i + 1, j=j + 1)
        latex = next(tex for words, tex in formulas(at) if words == sentence)  # the sentence, then its sum
        terms = re.findall(r"\(?(-?[\d.e]+)\)?\\cdot\(?(-?[\d.e]+)\)?", latex)
        assert len(terms) == 7  # d_k terms: Q's row and Kᵀ's column both have 7 entries
        q_row, k_row = tr.q[head - 1, i], tr.k[head - 1, j]  # column j of Kᵀ is row j of K
        for (a, b), qa, kb in zip(terms, q_row, k_row):
            assert float(a) == pytest.approx(qa, rel=6e-3) and float(b) == pytest.approx(kb, rel=6e-3)
        total = re.search(r"&= (-?[\d.]+) \\end", latex)[1]
        assert float(total) == pytest.approx(tr.scores[head - 1, i, j], rel=1e-3)


def _softmax_terms(at) -> tuple[list[float], float]:
    latex = next(tex for _, tex in formulas(at) if r"\frac{e^" in tex)
    denominator = re.search(r"\\frac\{e\^\{[^}]*\}\}\{(.*)\} = ", latex)[1]
    exps = [float(x.strip("()")) for x in re.findall(r"e\^\{([^}]*)\}", denominator)]
    return exps, float(latex.rsplit("= ", 1)[1])


@pytest.mark.parametrize("sizes", [{}, dict(n_tokens=5, d_k=13, d_v=17, n_heads=3)])
def test_softmax_sums_exactly_the_visible_keys(sizes):
    at = run(stage="scores", **sizes)
    tr = post_trace(**sizes)
    n = tr.scores.shape[1]
    for i in range(n):
        for j in {0, i}:
            at.session_state["sel_scores"] = (i, j)
            rerun(at)
            exps, value = _softmax_terms(at)
            np.testing.assert_allclose(exps, tr.scaled[0, i, : i + 1], rtol=6e-4)  # keys 1..i, none after
            assert value == pytest.approx(tr.probs[0, i, j], rel=1e-3)
        if i + 1 < n:
            at.session_state["sel_scores"] = (i, i + 1)
            rerun(at)
            assert f"S[{i + 1}, {i + 2}] = 0" in page_text(at)


@pytest.mark.parametrize("lang, table", [("en", EN), ("zh", ZH)])
def test_the_posts_mask_example_as_the_post_writes_it(lang, table):
    at = run(stage="scores", example="mask", lang=lang)
    assert at.toggle(key="example").value is True
    assert at.segmented_control(key="phase").options == [table["phase_given"], table["phase_masked"],
                                                          table["phase_s"]]
    assert table["mask_example_note"].format() in [x.value for x in at.info]
    assert table["mask_example_click"] in [c.value for c in at.caption]  # no dot product: the scores are given
    latex = " ".join(x.value for x in at.latex)
    assert r"\begin{pmatrix}1 & 2 & 3 \\ 4 & 5 & 6 \\ 7 & 8 & 9\end{pmatrix}" in latex
    assert r"\begin{pmatrix}1 & -\infty & -\infty \\ 4 & 5 & -\infty \\ 7 & 8 & 9\end{pmatrix}" in latex
    spec = charts(at)[0]
    assert "xaxis" not in spec["layout"] and "yaxis2" not in spec["layout"]  # no Q, no Kᵀ: the scores are given
    assert z(heat(spec, "S"))[2].tolist() == pytest.approx([0.0900306, 0.2447285, 0.6652410], abs=1e-6)
    at.session_state["sel_scores"] = (2, 1)
    rerun(at)
    text = page_text(at)
    assert "Q₁" not in text and "K₁ᵀ" not in text
    exps, value = _softmax_terms(at)
    assert exps == [7, 8, 9] and value == pytest.approx(0.2447, abs=1e-4)
    assert at.query_params["example"] == "mask" and at.query_params["preset"] == "mask"


@pytest.mark.parametrize("lang, table", [("en", EN), ("zh", ZH)])
def test_the_mask_example_names_no_head_and_draws_no_head_control(lang, table):
    """The post's matrix belongs to no head: no "for head 1" in the title, no head control; off again, both come
    back."""
    at = run(stage="scores", example="mask", lang=lang)
    assert not [c for c in at.segmented_control if c.key == "head"]
    text = page_text(at)
    assert table["scores_mask_title"] in text and table["scores_title"].format(h=1) not in text
    at.toggle(key="example").set_value(False)
    rerun(at)
    assert [c for c in at.segmented_control if c.key == "head"]
    assert table["scores_title"].format(h=1) in page_text(at)


def test_the_mask_preset_turns_the_example_on_and_the_post_preset_off():
    at = run(stage="scores", preset="mask")
    assert at.toggle(key="example").value is True and at.session_state["n_tokens"] == 3
    at.selectbox(key="preset").set_value("post")
    rerun(at)
    assert at.toggle(key="example").value is False and "example" not in at.query_params
    assert S.PRESETS["mask"]["example"] is True and S.preset_of(dict(S.DEFAULTS, example=True)) == "mask"


def test_a_qkt_link_with_the_given_example_rests_on_the_given_step():
    at = run(stage="scores", example="mask", phase="qkt")
    assert at.segmented_control(key="phase").value == "scaled"


@pytest.mark.parametrize("lang, table", [("en", EN), ("zh", ZH)])
def test_bad_phase_or_example_in_a_link_is_refused_in_the_readers_language(lang, table):
    at = run(stage="scores", phase="softmax", example="yes<script>", lang=lang)
    warned = warnings(at)
    for key, value in (("phase", "softmax"), ("example", "yes<script>")):
        assert table["notice_unknown"].format(key=key, value=value) in " ".join(warned)
    assert at.segmented_control(key="phase").value == "s" and at.toggle(key="example").value is False


def test_phase_and_example_are_parsed_before_any_widget():
    values, notices = S.parse_params({"phase": " masked", "example": "mask"})
    assert values == {"phase": "masked", "example": True} and notices == []
    values, notices = S.parse_params({"phase": "S", "example": "1"})
    assert values == {} and [n.fields["key"] for n in notices] == ["phase", "example"]


def test_on_a_phone_the_mask_formula_is_two_lines_and_q_kt_are_said_to_be_left_out():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["stage"] = "scores"
    at.session_state["screen_phone"] = True  # what the page's screen probe reports on a phone
    rerun(at)
    shown = [x.value.strip("$\n ") for x in at.latex]
    assert any(r"\operatorname{softmax}" in f and "M_{ij}" not in f for f in shown)
    assert any(f.startswith("M_{ij} = ") for f in shown)
    assert EN["phone_operands"] in [c.value for c in at.caption]
    assert "xaxis" not in charts(at)[0]["layout"]


def test_sessions_showing_the_same_view_share_one_built_figure(monkeypatch):
    """A class on one view builds its chart once; another step or language is another chart, a clicked cell none."""
    from mha import figures as F
    from mha.ui import chart

    built = []
    real = F.scores_animation
    monkeypatch.setattr(F, "scores_animation", lambda *a, **k: built.append(k["phase"]) or real(*a, **k))
    chart.FIGURES.clear()
    first, second = run(stage="scores", seed=3), run(stage="scores", seed=3)
    assert charts(first) == charts(second) and len(built) == 1
    second.session_state["sel_scores"] = (2, 1)
    rerun(second)
    assert len(built) == 1
    second.segmented_control(key="phase").set_value("masked")
    rerun(second)
    assert built == ["s", "masked"]
    run(stage="scores", seed=3, lang="zh")
    run(stage="scores", seed=4)
    assert len(built) == 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_q_and_kt_hover_in_the_page_s_language(lang):
    """The hover labels of Q's and Kᵀ's cells name a row and a column in the page's words (token, feature)."""
    at = run(stage="scores", lang=lang)
    table = EN if lang == "en" else ZH
    hovers = [t["hovertemplate"] for t in charts(at)[0]["data"]
              if t["type"] == "heatmap" and t["xaxis"] + t["yaxis"] in ("xy", "x2y2")]
    assert len(hovers) == 2
    assert f"{table['token']} %{{y}} · {table['feature']} %{{x}}" in hovers[0]
    assert f"{table['feature']} %{{y}} · {table['token']} %{{x}}" in hovers[1]


def test_k_transpose_is_written_one_way_on_the_scores_page():
    """Kᵀ in text and HTML, an upright T in every formula (\\mathrm T, as the post writes K^T; audit 2026-12-04 #12:
    Kᵀ, K^⊤ and K^T were three ways): the page's formulas, a clicked cell's sums and the softmax's words together
    never write a transpose as ⊤ or as a bare ^T."""
    at = run(stage="scores")
    at.session_state["sel_scores"] = (2, 1)
    rerun(at)
    tex = " ".join(tex for _, tex in formulas(at)) + " ".join(e.value for e in at.markdown)
    assert r"\top" not in tex and "K_{1}^{\\mathrm T}" in tex
    assert not re.search(r"\^\{?T\}?", tex), re.findall(r".{20}\^\{?T\}?", tex)
    assert "K^T" not in page_text(at) and "Kᵀ" in page_text(at)
