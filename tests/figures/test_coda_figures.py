"""The coda's charts: the next token's probabilities as bars, likeliest on top, the chosen one in red, every
label readable on its screen; GELU's curve with the row's values on it."""

import html
import json
import re

import numpy as np
import pytest

from mha import figures as F
from mha.block import gelu
from mha.figures.cache import cost_figure
from mha.figures.coda import LABEL_SHARE
from mha.figures.text import text_px

LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}


@pytest.mark.parametrize("look", LOOKS)
def test_the_bars_are_the_probabilities_likeliest_on_top(look):
    probs = np.array([0.1, 0.6, 0.05, 0.25])
    spec = F.probs_figure(probs, ["a", "b", "<i>c</i>", "d"], 3, "p", look=LOOKS[look]).to_dict()
    bars, names = spec["data"][0], spec["layout"]["yaxis"]["ticktext"]
    assert names == ["&lt;i&gt;c&lt;/i&gt; (2)", "a (0)", "d (3)", "b (1)"]  # the last on top
    assert bars["y"] == spec["layout"]["yaxis"]["tickvals"] == [0, 1, 2, 3]
    assert [name for _, name in bars["customdata"]] == names  # the hover label names the bar
    assert bars["x"] == [0.05, 0.1, 0.25, 0.6]
    assert [c == "#dc2626" for c in bars["marker"]["color"]] == [False, False, True, False]
    assert bars["text"] == ["0.050", "0.100", "0.250", "0.600"]


@pytest.mark.parametrize("look", LOOKS)
def test_the_probability_labels_are_as_large_as_the_screen_s_type(look):
    """Inside a bar Plotly shrinks a label to the bar's length: on a projector 0.075 came out at 6 px."""
    lk = LOOKS[look]
    probs = np.linspace(1, 20, 20)[::-1] / 210
    spec = F.probs_figure(probs, [f"t{i}" for i in range(20)], 0, "p", look=lk).to_dict()
    bars, layout = spec["data"][0], spec["layout"]
    size = layout["font"]["size"]
    assert size >= lk.tick + 2 and bars["textfont"]["size"] == size
    assert bars["textposition"] == "outside" and bars["cliponaxis"] is False
    assert layout["margin"]["r"] >= text_px("0.000", size)  # the longest label beside a full bar stays inside
    plot_h = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    assert plot_h / 20 >= 1.5 * size  # a bar is tall enough for its label



LONG = "a" * 1000  # a 1,000-character token: its name made the left margin 7,000 px, the plot's width negative


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("token", [LONG, "<\u200d" * 300 + "<", "👨\u200d👩\u200d👧" * 100])
def test_a_long_token_is_shortened_left_of_the_bars_and_whole_on_hover(look, token):
    lk = LOOKS[look]
    spec = F.probs_figure(np.array([0.7, 0.3]), [token, "b"], 0, "p", look=lk).to_dict()
    layout, bars = spec["layout"], spec["data"][0]
    margin, size = layout["margin"], layout["font"]["size"]
    plot_w = layout["width"] - margin["l"] - margin["r"]
    assert 0 < layout["width"] <= lk.max_w and margin["l"] > 0 and margin["r"] > 0 and plot_w > 0
    assert margin["l"] <= LABEL_SHARE * layout["width"]  # the bars keep the rest
    names, whole = layout["yaxis"]["ticktext"], [name for _, name in bars["customdata"]]
    assert whole == ["b (1)", f"{html.escape(token, quote=False)} (0)"]  # the hover label: the whole token
    assert layout["meta"]["ticktitles"]["yaxis"] == whole  # the tick's title too
    assert names[0] == "b (1)" and names[1].endswith("… (0)") and len(names[1]) < len(whole[1]) / 4
    assert margin["l"] >= max(text_px(n, size) for n in names)  # the names still fit the margin
    assert not re.sub(r"</?(b|extra)>", "", json.dumps(spec)).count("<")  # the user's text stays escaped


def test_a_token_that_fits_keeps_its_name_and_the_figure_its_layout():
    spec = F.probs_figure(np.array([0.7, 0.3]), ["sat", "mat"], 0, "p").to_dict()
    assert spec["layout"]["yaxis"]["ticktext"] == ["mat (1)", "sat (0)"] and "meta" not in spec["layout"]


def test_gelu_markers_sit_on_the_curve():
    hidden = np.array([-2.0, -0.5, 0.0, 1.5])
    spec = F.gelu_figure(hidden, gelu(hidden), "GELU", "row").to_dict()
    curve, points = spec["data"]
    np.testing.assert_allclose(np.interp(points["x"], curve["x"], curve["y"]), points["y"], atol=2e-3)
    np.testing.assert_allclose(points["y"], gelu(hidden), atol=1e-15)
    for h, a in zip(points["x"], points["y"], strict=True):  # the hover says which number is which (planted: swapped)
        said = points["hovertemplate"].replace("%{x:.4g}", f"{h:.4g}").replace("%{y:.4g}", f"{a:.4g}")
        assert said.startswith(f"h = {h:.4g}<br>GELU(h) = {a:.4g}"), said


@pytest.mark.parametrize("look", LOOKS)
def test_the_loss_curve_marks_the_chosen_snapshot(look):
    steps, losses = [0, 150, 300, 450], [9.9, 2.7, 0.4, 0.01]
    spec = F.loss_figure(steps, losses, 2, x_title="step", y_title="loss", look=LOOKS[look]).to_dict()
    curve, mark = spec["data"]
    assert curve["x"] == steps and curve["y"] == losses
    assert mark["x"] == [300] and mark["y"] == [0.4]
    assert spec["layout"]["yaxis"]["type"] == "log"  # from ~10 down to ~0.001: both ends readable
    assert spec["layout"]["width"] <= LOOKS[look].max_w


@pytest.mark.parametrize("losses", [[8.2, 2.1, 0.5, 0.061], [9.9, 2.7, 0.4, 0.01], [2.3, 2.1, 1.95, 1.9],
                                    [0.31, 0.3, 0.29, 0.05], [8.2, 2.1, 0.5]])
def test_every_loss_lies_between_two_labels_of_its_axis(losses):
    """Audit 2026-12-07 #9: a retrained model's first loss, about 8, sat above the axis's top label (1), with
    nothing above it to read it against. The axis ends on a label at or above the highest loss and one at or below
    the lowest, with at least three labels."""
    yaxis = F.loss_figure([0, 150, 300, 450], losses, 1, x_title="step", y_title="loss").to_dict()["layout"]["yaxis"]
    labels, (low, high) = yaxis["tickvals"], (10 ** v for v in yaxis["range"])
    assert len(labels) >= 3 and all(low <= v <= high for v in labels)
    assert min(labels) <= min(losses) and max(labels) >= max(losses)
    assert low <= min(labels) and max(labels) <= high  # both end labels drawn
    if max(losses) < 100 * min(losses):  # under two decades: 1, 2 and 5 of each (planted p04: powers of ten from 10×)
        assert {int(f"{v:.0e}"[0]) for v in labels} >= {1, 2, 5}, labels


def _coda_figures(lk) -> dict:
    hidden = np.array([-2.0, -0.5, 0.0, 1.5])
    return dict(gelu=F.gelu_figure(hidden, gelu(hidden), "GELU(h)", "row 3", look=lk).to_dict(),
                probs=F.probs_figure(np.array([0.1, 0.6, 0.3]), ["a", "b", "c"], 1, "p", look=lk).to_dict(),
                loss=F.loss_figure([0, 150, 300], [9.9, 2.7, 0.01], 2, x_title="step", y_title="loss",
                                   look=lk).to_dict(),
                cost=cost_figure(np.arange(1, 4097), {"a": (np.arange(1, 4097) ** 2, "solid"),
                                                      "b": (np.arange(1, 4097), "dash")},
                                 x_title="T", y_title="FLOPs", look=lk).to_dict())


@pytest.mark.parametrize("look", LOOKS)
def test_the_coda_charts_ticks_legends_and_axis_titles_are_the_screen_s_type(look):
    """Streamlit's theme (written into every layout) sets ticks, legends and axis titles at 12 px whatever the
    layout's own font says: on a projector GELU's ticks and legend came out smaller than the page's captions."""
    lk = LOOKS[look]
    for name, spec in _coda_figures(lk).items():
        layout = spec["layout"]
        size = layout["font"]["size"]
        assert size >= lk.tick + 2, name
        for axis in ("xaxis", "yaxis"):
            assert layout[axis]["tickfont"]["size"] == size, (name, axis)
            if layout[axis].get("title", {}).get("text"):
                assert layout[axis]["title"]["font"]["size"] >= size, (name, axis)
        if layout.get("showlegend", True) and len(spec["data"]) > 1:
            assert layout["legend"]["font"]["size"] == size, name


def test_on_a_projector_the_gelu_chart_grows_with_its_type():
    desk, present = (_coda_figures(lk)["gelu"]["layout"] for lk in (F.DESK, F.PRESENT))
    plot_h = {name: lay["height"] - lay["margin"]["t"] - lay["margin"]["b"] for name, lay in
              (("desk", desk), ("present", present))}
    assert plot_h["present"] / present["font"]["size"] >= plot_h["desk"] / desk["font"]["size"]
    assert present["width"] / present["font"]["size"] >= desk["width"] / desk["font"]["size"]
    assert present["width"] <= F.PRESENT.max_w and present["height"] <= F.PRESENT.max_h
    assert present["margin"]["t"] >= 2 * present["font"]["size"]  # the legend's row above the plot


@pytest.mark.parametrize("look", LOOKS)
def test_every_log_axis_is_labelled_where_plotly_draws_labels_at_full_size(look):
    """Between powers of ten Plotly labels 2 and 5 (or every digit) at three quarters of the tick size, 9 px on a
    projector, unless it is told where the labels go: the powers of ten over two decades or more, else 1-2-5."""
    lk = LOOKS[look]
    figs = _coda_figures(lk)
    assert figs["cost"]["layout"]["xaxis"]["dtick"] == 1  # T from 1 to 4096
    assert figs["loss"]["layout"]["yaxis"]["tickvals"] == [0.01, 0.1, 1, 10]  # the loss from 9.9 to 0.01
    timing = cost_figure(np.arange(1, 129), {"a": (np.linspace(0.02, 0.6, 128), "solid")}, x_title="t",
                         y_title="ms", look=lk).to_dict()["layout"]  # what "measure" draws: ms over 1.5 decades
    # its values between two labels (audit 2026-12-07 #12: spikes ran off the top), 1-2-5 from 0.02 up to 1
    assert timing["xaxis"]["dtick"] == 1 and timing["yaxis"]["tickvals"] == [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    short = cost_figure(np.arange(3, 8), {"a": (np.arange(3, 8), "solid")}, x_title="t", y_title="ms",
                        look=lk).to_dict()["layout"]
    assert short["xaxis"]["tickvals"] == [3, 4, 5, 6, 7]  # under a decade: every digit
    assert short["yaxis"]["tickvals"] == [2, 5, 10]  # a timing's values, 3 to 7, between two labels
    for fig in (*figs.values(), {"layout": timing}, {"layout": short}):
        for axis in ("xaxis", "yaxis"):
            layout = fig["layout"][axis]
            assert layout.get("type") != "log" or layout.get("dtick") == 1 or layout.get("tickvals"), axis
