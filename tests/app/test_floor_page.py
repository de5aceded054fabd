"""bench/floor_page.py stays the app's scores view without the app's work: the same elements, in the same order,
with the same widget keys and options, and the same figure. The benchmarks compare the app with it."""

import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from .helpers import charts, run

FLOOR = str(Path(__file__).resolve().parents[2] / "bench" / "floor_page.py")


def elements(node, where: str = "") -> list[tuple]:
    """(container, element type, widget key, options) for every element under node, depth first."""
    out = []
    for child in getattr(node, "children", {}).values():
        options = tuple(getattr(child, "options", ()) or ())
        out.append((where, child.type, getattr(child, "key", None), options))
        out += elements(child, f"{where}/{child.type}")
    return out


def floor(n_tokens: int = 3) -> AppTest:
    at = AppTest.from_file(FLOOR, default_timeout=60)
    at.run()
    if n_tokens != 3:
        at.number_input(key="n_tokens").set_value(n_tokens).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_floor_page_draws_the_apps_elements():
    for n in (3, 4):  # 4 is no prime: the sidebar says n stays as it is
        app, bare = run(stage="scores", n_tokens=n), floor(n)
        assert elements(bare._tree) == elements(app._tree)
        assert len(elements(app._tree)) >= 30  # the whole page, sidebar included: not a trivial match


def test_the_floor_page_draws_the_apps_figure_and_follows_n_tokens():
    for n in (3, 4):
        app, bare = run(stage="scores", n_tokens=n), floor(n)
        (mine,), (theirs,) = charts(app), charts(bare)
        assert json.dumps(theirs, sort_keys=True) == json.dumps(mine, sort_keys=True)
        probs = np.array(mine["data"][-10]["z"], dtype=float)
        assert probs.shape == (n, n)


def test_the_floor_page_puts_another_renderer_in_the_charts_place(monkeypatch):
    """FLOOR_CHART: the app's figure drawn by Plotly, a 2×2 Plotly chart, or nothing; the rest of the page unchanged."""
    app = run(stage="scores", n_tokens=4)
    (mine,) = charts(app)
    # all but the chart (a block keyed "scores" that holds its st.html) and its mark
    rest = [e for e in elements(app._tree) if e[2] != "scores" and e[1] != "html"
            and (e[1] != "bidi_component" or e[2] == "screen")]
    for chart, plotly in (("plotly", 1), ("tiny", 1), ("none", 0)):
        monkeypatch.setenv("FLOOR_CHART", chart)
        at = floor(4)
        assert len(at.get("plotly_chart")) == plotly and len(charts(at)) == plotly
        assert [e for e in elements(at._tree) if e[1] != "plotly_chart"] == rest
    monkeypatch.setenv("FLOOR_CHART", "plotly")
    (theirs,) = charts(floor(4))
    assert json.dumps(theirs, sort_keys=True) == json.dumps(mine, sort_keys=True)
