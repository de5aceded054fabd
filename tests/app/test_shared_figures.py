"""Figures are built once per process and shared by every session showing the same thing (chart.FIGURES): each
session must still see its own view, its own clicked cell and its own language."""

import json
import re

import pytest

from mha import figures as F
from mha.figures.base import Spec
from mha.ui import chart, view
from mha.ui import settings as S

from .helpers import _elements, chart_elements, charts, marks, rerun, run, spec_attributes


def test_a_product_is_built_once_for_every_session_showing_it(monkeypatch):
    built = []
    real = F.product_figure
    monkeypatch.setattr(F, "product_figure", lambda *a, **k: built.append(a) or real(*a, **k))
    chart.FIGURES.clear()
    first, second = run(stage="values", seed=7), run(stage="values", seed=7)
    assert len(built) == 2 and charts(first) == charts(second)  # values: X·W_V and S·V, each once


def test_a_cell_clicked_in_one_session_is_outlined_there_only():
    """The cell is the session's (its mark names it); the figure, the same for every session, outlines none."""
    chart.FIGURES.clear()
    plain, clicked = run(stage="qk", seed=8), run(stage="qk", seed=8)
    clicked.session_state["sel_qk_q"] = (1, 2)
    rerun(clicked)
    assert marks(clicked)["qk_q"] == (1, 2)
    assert marks(rerun(plain))["qk_q"] is None and marks(run(stage="qk", seed=8))["qk_q"] is None
    assert charts(clicked) == charts(plain)


def test_each_language_gets_its_own_words_on_a_shared_figure():
    """A trimmed product writes which part it draws, in the page's language."""
    chart.FIGURES.clear()
    sizes = dict(stage="qk", seed=9, n_tokens=F.MAX_SIDE + 8)
    en, zh = ("".join(a.get("text", "") for a in charts(run(lang=lang, **sizes))[0]["layout"]["annotations"])
              .replace("<br>", "") for lang in ("en", "zh"))
    assert "first 48 rows" in en and "只画出前 48 行" in zh and "rows" not in zh


NO_CHART = {"input", "tokens"}  # stages that open with no chart
STRICT_VIEWS = [dict(stage=s) for s in S.STAGES] + [dict(stage=s, model="trained") for s in ("scores", "heads",
                                                                                              "next_token")]


@pytest.mark.parametrize("params", STRICT_VIEWS, ids=lambda p: "-".join(p.values()))
def test_every_chart_is_strict_json(params, monkeypatch):
    """No NaN or ±∞ in a figure: a gap is None. Plotly's encoder, for a figure with NaN, dumps it three times (dump,
    read back to swap NaN for null, dump again): about 3× the CPU of every chart of every rerun. That holds for the
    figures Plotly draws and for the matrix charts' JSON, which falls back on Plotly's encoder for such a figure."""
    import plotly.io

    loose = []
    real, real_loose = plotly.io.to_json, chart.loose_json

    def note(figure):
        try:
            json.dumps(figure, allow_nan=False, default=chart._listed)
        except ValueError:
            loose.append(figure.get("layout", {}).get("title") or [t.get("name") for t in figure.get("data", [])])

    def to_json(figure, *a, **k):
        note(figure)
        return real(figure, *a, **k)

    def loose_json(figure):
        note(figure)
        return real_loose(figure)

    monkeypatch.setattr(plotly.io, "to_json", to_json)
    monkeypatch.setattr(chart, "loose_json", loose_json)
    chart.FIGURES.clear()
    at = run(**params)
    assert charts(at) or params["stage"] in NO_CHART
    assert not loose


def test_a_second_session_on_the_same_view_computes_no_trace(monkeypatch):
    """Its trace, figures and files come from the first session's run; another X is computed anew."""
    import mha
    from mha.ui import prepared

    calls = []
    real = mha.forward
    monkeypatch.setattr(mha, "forward", lambda x, w: calls.append(x.shape) or real(x, w))
    for store in (view.TRACES, chart.FIGURES, prepared.FILES):
        store.clear()
    run(stage="values", seed=11)
    first = len(calls)
    assert first >= 1
    run(stage="values", seed=11)
    assert len(calls) == first
    run(stage="values", seed=11, n_tokens=4)
    assert len(calls) > first and calls[-1][0] == 4


def test_the_charts_script_comes_once_a_page_and_the_charts_carry_none():
    """matrix_chart.js rides on the screen component (the same element every run: sent once, then by hash); a chart's
    element is markup that carries the figure and no script."""
    at = run(stage="qk")
    scripts = [(node.proto.component_name, node.proto.js_content) for node in _elements(at._tree)
               if node.type == "bidi_component"]
    assert [name for name, js in scripts if chart.LIB in js] == ["mha_screen"]
    bodies = chart_elements(at)
    assert len(bodies) >= 2 and not any("<script" in body or "mhaChart" in body for body in bodies)


# DOMPurify's rule in Streamlit 1.67's st.html (purify.es.js, SAFE_FOR_XML): an attribute whose value matches it is
# dropped from the page.
SANITIZED_AWAY = re.compile(r"((--!?|])>)|</(style|script|title|xmp|textarea|noscript|iframe|noembed|noframes)", re.I)


def test_a_chart_whose_texts_hold_what_the_sanitizer_drops_still_carries_its_figure():
    """A figure's texts (a text of the user's among them) may hold "-->", "]>" or a closing tag: its element's
    attributes must not, and say the same figure."""
    words = "a --> b ]> c </style> </title> <b>d</b> & é 中"
    fig = Spec({"data": [{"type": "heatmap", "z": [[1.0]], "text": [[words]], "hovertemplate": words}],
                "layout": {"title": {"text": words}, "xaxis": {"range": [-0.5, 0.5]}, "yaxis": {"range": [-0.5, 0.5]}}})
    d = chart.drawn(fig)
    assert SANITIZED_AWAY.search(d.json)
    data = spec_attributes(chart.spec_html(d, "qk_q", True))
    assert not any(SANITIZED_AWAY.search(v) for v in data.values())
    assert json.loads(data["spec"]) == json.loads(d.json) and data["revision"] == d.revision
