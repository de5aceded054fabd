"""bench/floor_page.py stays the app's scores view without the app's work: the same elements, in the same order,
with the same widget keys and options, and the same figure. The benchmarks compare the app with it."""

import json
import re
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
    for n in (3, 4):  # 4 is no prime: the sidebar offers to make the sizes primes
        app, bare = run(stage="scores", n_tokens=n), floor(n)
        assert elements(bare._tree) == elements(app._tree)
        assert len(elements(app._tree)) >= 35


def test_the_floor_page_draws_the_apps_figure_and_follows_n_tokens():
    for n in (3, 4):
        app, bare = run(stage="scores", n_tokens=n), floor(n)
        (mine,), (theirs,) = charts(app), charts(bare)
        assert json.dumps(theirs, sort_keys=True) == json.dumps(mine, sort_keys=True)
        probs = np.array(mine["data"][-10]["z"], dtype=float)
        assert probs.shape == (n, n)


def bidi_components(node) -> list:
    out = []
    for child in getattr(node, "children", {}).values():
        out += [child] if getattr(child, "type", None) == "bidi_component" else bidi_components(child)
    return out


def test_the_floor_page_puts_another_renderer_in_the_charts_place(monkeypatch):
    """FLOOR_CHART: a 2×2 Plotly chart, the SVG of the same numbers, or nothing; the rest of the page unchanged."""
    app = run(stage="scores", n_tokens=4)
    (mine,) = charts(app)
    probs = np.nan_to_num(np.array(mine["data"][-10]["z"], dtype=float))  # the chart leaves S's zeros blank
    rest = [e for e in elements(app._tree) if e[1] != "plotly_chart"]
    for chart, drawn in (("tiny", 1), ("svg", 0), ("none", 0)):
        monkeypatch.setenv("FLOOR_CHART", chart)
        at = floor(4)
        assert len(charts(at)) == drawn
        assert [e for e in elements(at._tree) if e[1] not in ("plotly_chart", "bidi_component")] \
            == [e for e in rest if e[1] != "bidi_component"]
        svgs = [c for c in bidi_components(at._tree) if c.proto.component_name == "floor_svg"]
        assert len(svgs) == (chart == "svg")
    monkeypatch.setenv("FLOOR_CHART", "svg")
    (svg,) = [c for c in bidi_components(floor(4)._tree) if c.proto.component_name == "floor_svg"]
    cells = {tuple(map(int, c.split(","))): float(v)
             for c, v in re.findall(r'<g data-c="([\d,]+)">.*?>([-\d.]+)</text></g>', json.loads(svg.proto.json))}
    assert len(cells) == 4 * 7 + 7 * 4 + 4 * 4 + 4 * 4
    assert {(i, j): cells[3, i, j] for i, j in np.ndindex(4, 4)} == {ij: float(f"{p:.2f}")
                                                                     for ij, p in np.ndenumerate(probs)}
