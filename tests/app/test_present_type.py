"""On a projector the type is read from the back of a room (issue 46, audit #2): every number a chart writes in its
cells is at least 1.3 times the desk's largest (the scores and the output had fallen to 14 px against the desk's 11
when their numbers were written in full), and an animation's step names under its slider are at least 16 px (12 px
on the scores, 15 px on the KV cache)."""

import json

import pytest

from mha.figures import PRESENT
from mha.figures.text import text_px
from mha.ui.lab.online import CONTROL_ROWS
from mha.ui.strings import Text
from mha.ui.view import first_screen

from .helpers import _elements, chart_data, keyed_charts, run

STAGES = ("qk", "scores", "values", "output", "heads", "kv_cache", "block", "next_token")


def cell_type(spec: dict) -> set[int]:
    """The sizes of the numbers a figure writes in cells, in px: its heatmaps' text, in every frame (a frame's
    sentence and a row's Σ=1 are words, not cell numbers)."""
    traces = [*spec["data"], *(t for f in spec.get("frames", ()) for t in f.get("data", ()))]
    return {t["textfont"]["size"] for t in traces if t.get("type", "heatmap") == "heatmap"
            and t.get("textfont", {}).get("size") and any(map(any, t.get("text") or [[]]))}


def sliders(spec: dict) -> list[int]:
    return [s["font"]["size"] for s in spec.get("layout", {}).get("sliders", ())]




def smaller_than_readable(**params) -> dict[str, tuple[int, set[int]]]:
    """The charts of the view that write their numbers on a projector in a type under 1.3 times the desk's: {key:
    (the desk's size, the projector's sizes)}. The KV step, the last that kept 14 px (its Q, K and V 25 numbers wide
    in 42 px cells), takes 1,116 px of the main column's 1,120 and writes 15 (2026-12-07)."""
    desk = {key: max(cell_type(spec), default=0) for key, spec in keyed_charts(run(**params))}
    shown = {key: cell_type(spec) for key, spec in keyed_charts(run(**params, present=1))}
    assert any(shown.values())
    return {key: (desk[key], sizes) for key, sizes in shown.items()
            if sizes and min(sizes) < 1.3 * desk[key]}


# The figure a projector draws in colour alone where a desk writes numbers: E beside E[ids], the tokens stage's first
# figure, 14 rows of the example under its chips in the ~400 px the first screen leaves (rows of 22 px do not fit).
COLOUR_ONLY = {"tokens_e"}


@pytest.mark.parametrize("stage", ("tokens", *STAGES))
def test_a_projector_writes_the_numbers_a_desk_writes(stage):
    """Audit 2026-12-04, item 3 of issue 46: a figure whose square cells the projector's height held under the size
    that writes numbers went colour-only (X = E[ids] + P: 14×5 of the example, 30 px cells). Its cells are as wide as
    the screen allows and its rows lower, so the numbers stay."""
    desk = {key: cell_type(spec) for key, spec in keyed_charts(run(stage=stage))}
    shown = {key: cell_type(spec) for key, spec in keyed_charts(run(stage=stage, present=1))}
    lost = {key for key, sizes in desk.items() if sizes and not shown.get(key)}
    assert lost <= COLOUR_ONLY, lost


@pytest.mark.parametrize("stage", STAGES)
def test_a_projector_writes_numbers_at_least_13_tenths_of_the_desks(stage):
    small = smaller_than_readable(stage=stage)
    assert not small, small


# The lab's click parts: each product is held to the first screen under the lab's controls (lab.CLICK_ROWS), where
# RoPE's and GQA's Q·Kᵀ (3×7 · 7×3, the long layout) fitted only in 14 px numbers and MLA's c = X·W_DKV in 15 px.
@pytest.mark.parametrize("variant", ["rope", "gqa", "mqa", "mla", "int8", "window", "sinks"])
def test_a_projector_writes_the_labs_products_at_least_13_tenths_of_the_desks(variant):
    small = smaller_than_readable(stage="variants", variant=variant, part="click")
    assert not small, small


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("part", ["change", "click"])
def test_the_online_softmax_keeps_every_panel_s_numbers_on_a_projector_s_first_screen(part, lang):
    """Issue 46 item 3: the lab's online softmax whole under its rows of controls on a 1280×720 projector (its rows
    lower than wide, its sentence beside the tile's panels), and every panel that writes numbers on a desk writes
    them there, at least 1.3 times as large."""
    def panels(spec: dict) -> dict[int, set[int]]:
        traces = [*enumerate(spec["data"]), *(p for f in spec["frames"] for p in enumerate(f["data"]))]
        out = {}
        for i, t in traces:
            if t.get("textfont", {}).get("size") and any(map(any, t.get("text") or [[]])):
                out.setdefault(i, set()).add(t["textfont"]["size"])
        return out

    params = dict(stage="variants", variant="online", part=part, lang=lang)
    desk = panels(dict(keyed_charts(run(**params)))["lab_online"])
    spec = dict(keyed_charts(run(**params, present=1)))["lab_online"]
    shown = panels(spec)
    assert desk and set(shown) == set(desk), (desk, shown)
    assert all(min(shown[i]) >= 1.3 * max(desk[i]) for i in desk), (desk, shown)
    held = first_screen(PRESENT, CONTROL_ROWS).fig_h
    assert spec["layout"]["height"] <= held, (spec["layout"]["height"], held)
    width = spec["layout"]["width"]  # each frame's sentence (its last note), beside the tile's panels, inside it
    for frame in spec["frames"]:
        sentence = frame["layout"]["annotations"][-1]
        room = width * (1 - sentence["x"])
        assert all(text_px(line, sentence["font"]["size"]) <= room for line in sentence["text"].split("<br>")), (
            sentence["text"], room)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_projectors_scores_say_each_frames_sentence_on_one_line_under_the_panels_slider(lang):
    """Audit 2026-12-07 #11: the projector's scores sat in a 360 px column of a 1280 px screen and wrapped each frame's
    sentence in it ("每 / 行加起来等于 1"). The sentence runs past the colour bars on one line; the slider keeps to
    the panels."""
    spec = dict(keyed_charts(run(stage="scores", present=1, lang=lang)))["scores"]
    said = {i for i, tr in enumerate(spec["data"]) if tr.get("xaxis") == "x4"}
    texts = [t for i in said for t in spec["data"][i]["text"]]
    for frame in spec["frames"]:
        texts += [t for i, tr in zip(frame.get("traces", range(len(frame["data"]))), frame["data"]) if i in said
                  for t in tr.get("text", [])]
    assert len(texts) > len(spec["frames"]) and not [t for t in texts if "<br>" in t], texts
    layout, width = spec["layout"], spec["layout"]["width"]
    slider, s_right = layout["sliders"][0], layout["xaxis2"]["domain"][1] * width  # S's panel
    beyond = (slider["x"] + slider["len"]) * width - s_right  # the Σ marks' and the two colour bars' room: ~170 px
    assert width <= PRESENT.max_w and beyond <= 200, (width, slider, s_right)


def test_a_projectors_output_draws_y_in_square_cells_and_names_every_row():
    """Audit 2026-12-07 #11: on a projector Y, the stage's result, was drawn in Concat's 46×20 px cells, and the rows
    of both were named 1, 3 (the tick rule kept labels 1.5 em apart). Y's rows are as tall as its columns are wide
    (beside W_O's eleven rows, there is room), and every row of Concat, W_O and Y is named."""
    spec = dict(keyed_charts(run(stage="output", present=1)))["output_y"]
    layout = spec["layout"]

    def cell(axis: str) -> tuple[float, float]:  # px wide, px high
        xa, ya = layout[f"xaxis{axis}"], layout[f"yaxis{axis}"]
        span = lambda a: abs(a["range"][1] - a["range"][0])  # noqa: E731
        return ((xa["domain"][1] - xa["domain"][0]) * layout["width"] / span(xa),
                (ya["domain"][1] - ya["domain"][0]) * layout["height"] / span(ya))

    wide, high = cell("3")
    assert abs(wide - high) <= 1 and cell("")[1] < high, (cell(""), wide, high)  # Concat's rows lower, Y's square
    assert layout["yaxis"]["tickvals"] == [1, 2, 3] and layout["yaxis3"]["tickvals"] == [1, 2, 3]
    assert layout["yaxis2"]["tickvals"] == list(range(1, 12))  # W_O's first head's eleven rows


@pytest.mark.parametrize("stage, key", [("scores", "scores"), ("kv_cache", "kv_animation")])
def test_a_projector_names_each_animation_step_in_16_px_or_more(stage, key):
    spec = dict(keyed_charts(run(stage=stage, present=1)))[key]
    assert sliders(spec) and min(sliders(spec)) >= 16, sliders(spec)


def _in_order(node) -> list:
    """The main column's elements in page order (charts as one element each)."""
    out = []
    for child in getattr(node, "children", {}).values():
        kind = getattr(child, "type", None)
        out += [child] if kind in ("plotly_chart", "html", "markdown", "latex", "caption") else \
            _in_order(child)
    return out


@pytest.mark.parametrize("stage", ["matmul", "tokens", "qk", "scores", "values", "heads", "output", "next_token",
                                   "block"])
def test_a_projector_draws_no_formula_above_the_first_figure(stage):
    """The audience looks at the figure first: its formula and the stage's words come under it (they came between
    the title and the figure, and pushed the figure off the 720 px screen)."""
    elements = _in_order(run(stage=stage, present=1).main)
    first = next(i for i, e in enumerate(elements) if e.type == "plotly_chart" or chart_data(e) is not None)
    above = [e.value for e in elements[:first] if e.type == "latex" or "$$" in str(getattr(e, "value", ""))]
    assert not above, above
    assert any(e.type == "latex" or "$$" in str(getattr(e, "value", "")) for e in elements[first:])  # still there


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_projectors_cost_part_counts_under_its_curves_and_over_its_table(lang):
    """Audit 2026-12-07 #5: on a projector the cost part kept its formulas (P, O, the step cached and recomputed)
    for the foot of the page, under the timing tool, and the check under the table then said "by the count above"
    ("按上面的计数") of a count below it. The curves open the part; the formulas follow, then the table they count."""
    t = Text(lang)
    elements = _in_order(run(stage="kv_cache", part="cost", variant="window", present=1, lang=lang).main)
    said = [str(getattr(e, "value", "")) for e in elements]
    curves = next(i for i, e in enumerate(elements) if chart_data(e) is not None or e.type == "plotly_chart")
    p_and_o = next(i for i, text in enumerate(said) if "P = 2" in text)
    title, measure = (next(i for i, text in enumerate(said) if t(key) in text)
                      for key in ("kv_cost_title", "kv_measure_title"))
    check = next(i for i, text in enumerate(said) if t("kv_cost_cache", t=3, count="@", nbytes=0).split("@")[0] in text)
    assert curves < title < p_and_o < check < measure, said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plotly_s_toolbar_has_no_english_on_a_chinese_page_and_no_zoom_anywhere(lang):
    """zh review K6: the curves' toolbar said "Zoom in", "Autoscale", "Download plot as a png" on Chinese pages.
    The figures' axes are their own: no zoom; on a Chinese page no toolbar (Plotly's tooltips are English)."""
    configs = [json.loads(n.proto.config) for n in _elements(run(stage="kv_cache", part="cost", lang=lang)._tree)
               if n.type == "plotly_chart"]
    assert configs
    for config in configs:
        assert {"zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d"} <= set(config["modeBarButtonsToRemove"])
        assert config.get("displayModeBar", True) is (lang == "en")
