"""The part of Plotly's figure format that the page's matrix charts draw, written down once.

A figure whose axes all have a range it gives (the matrices, the next token's bars: ui/chart.py's `svg_draws`) is drawn
in the page by mha/ui/matrix_chart.js, not by Plotly.js. The builders still write Plotly's format (Plotly draws the
curves, and a matrix figure stays one Plotly would draw the same), but the script understands only the part of it
below: an attribute outside it, or a value it does not read as Plotly would, would be dropped from the page without a
word. `problems(figure)` names each such attribute; tests/app/test_figure_schema.py holds every figure the app draws
to it, and tests/figures/test_schema.py checks that the script reads every attribute listed as read, and no other.

Each attribute is one of two kinds:
- `read`: matrix_chart.js draws it, for the values `ok` accepts;
- `plotly`: written for Plotly alone (the theme every figure shares, base.THEME, and the settings a Plotly chart that
  takes clicks is given), which the script never reads: allowed only with the values under which the page looks and
  behaves as Plotly would (no zero line, no tick marks, no legend …), or any value where it changes nothing drawn.

A node is a dict of attributes (a key `xaxis*` stands for xaxis, xaxis2, …; `*` for any key), a list `[node]` of such
dicts, `Items(node, most)` for at most `most` of them, or a leaf. A value None is Plotly's "not set", and the script's
too.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Leaf:
    """An attribute: `read` by the script or written for `plotly` only; `ok(value, owner)` accepts its value (owner:
    the dict that holds it)."""

    kind: str
    ok: Callable[[object, dict], bool]
    why: str = ""


@dataclass(frozen=True)
class Items:
    """A list of up to `most` dicts, each a `node` (the script reads the first `most` only)."""

    node: dict
    most: int


def _any(value, owner) -> bool:
    return True


def read(ok=_any) -> Leaf:
    return Leaf("read", ok)


def plotly(ok, why: str) -> Leaf:
    return Leaf("plotly", ok, why)


def one_of(*values) -> Callable[[object, dict], bool]:
    return lambda value, owner: any(value == v and type(value) is type(v) for v in values)


def _num(value, owner=None) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _size(value, owner=None) -> bool:
    """A figure's width or height: a number of px above 0 (an SVG of negative width is not drawn at all)."""
    return _num(value) and value > 0


def _margin(value, owner=None) -> bool:
    """A margin: px, at least 0."""
    return _num(value) and value >= 0


def _int(value, owner=None) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _str(value, owner=None) -> bool:
    return isinstance(value, str)


def _bool(value, owner=None) -> bool:
    return isinstance(value, bool)


def _list_of(ok) -> Callable[[object, dict], bool]:
    return lambda value, owner: isinstance(value, list) and all(v is None or ok(v, owner) for v in value)


def _pair(value, owner) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(map(_num, value))


NUMS, STRS, INTS = _list_of(_num), _list_of(_str), _list_of(_int)
GRID = _list_of(NUMS)  # rows of numbers (None: a gap)
TEXTS = _list_of(STRS)

# A colour as an SVG attribute takes it; one in a colour scale is mixed by the script, which reads #rgb, #rrggbb,
# rgb(…) and rgba(…) only.
COLOUR = _str
_MIXED = re.compile(r"#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|rgba?\([\d.\s,%]+\)")
SCALE = _list_of(lambda stop, _: isinstance(stop, list) and len(stop) == 2 and _num(stop[0])
                 and bool(_MIXED.fullmatch(stop[1])))
COLOURS = lambda value, owner: _str(value) or _list_of(_str)(value, owner) or NUMS(value, owner)  # noqa: E731
AXIS_ID = re.compile(r"[xy]\d*")
REF = lambda value, owner: value == "paper" or bool(re.fullmatch(r"[xy]\d*( domain)?", value))  # noqa: E731
XANCHOR, YANCHOR = one_of("left", "center", "right"), one_of("top", "middle", "bottom")
DASH = one_of("solid", "dot", "dash", "longdash", "dashdot")
MODE = lambda value, owner: _str(value) and set(value.split("+")) <= {"lines", "markers", "text"}  # noqa: E731
TEXTPOSITION = lambda value, owner: _str(value) and len(value.split()) == 2 and \
    value.split()[0] in ("top", "middle", "bottom") and value.split()[1] in ("left", "center", "right")  # noqa: E731

# A text template: %{name} or %{name:format}, the names a cell or a point has, and the formats of d3-format the script
# writes (f, e, g, % with a precision, ~ to trim zeros); Plotly's <extra></extra> is left out.
_FIELD = re.compile(r"%\{([^}:]+)(?::([^}]*))?\}")
_FORMAT = re.compile(r"(\.\d+)?~?[efg%]?")
_NAMES = re.compile(r"z|x|y|text|customdata\[\d+\]")


def _template(value, owner) -> bool:
    return _str(value) and all(_NAMES.fullmatch(name) and _FORMAT.fullmatch(spec or "")
                               for name, spec in _FIELD.findall(value))


PLAY_READ = ("frame", "duration", "fromcurrent")  # what the script reads of how a button or step animates


def _play_args(value, owner) -> bool:
    """A Play or Pause button's (and a slider step's) args: which frames (None: all; [None]: none, a pause; [name]) and
    how. The script reads frame.duration and fromcurrent (PLAY_READ); the rest must say what it does anyway: no
    transition, each frame drawn whole, at once."""
    if not (isinstance(value, list) and len(value) == 2 and (value[0] is None or isinstance(value[0], list))
            and isinstance(value[1], dict)):
        return False
    how = value[1]
    return set(how) <= {"frame", "fromcurrent", "mode", "transition"} and set(how.get("frame", {})) <= {
        "duration", "redraw"} and how.get("mode", "immediate") == "immediate" and how.get("transition", {}).get(
        "duration", 0) == 0


def _spans(value, owner) -> bool:
    return value in ("i", "j") or isinstance(value, list) and len(value) == 2 and all(map(_int, value))


FONT = {"size": read(_num), "color": read(COLOUR), "family": read(_str), "weight": read(_num)}
LINE = {"color": read(COLOUR), "width": read(_num), "dash": read(DASH)}
NO_PAD = plotly(lambda value, owner: isinstance(value, dict) and set(value) <= set("tblr"),
                "the page's controls are HTML of their own look, placed at x, y")

AXIS = {
    "domain": read(_pair), "range": read(_pair), "anchor": read(lambda v, o: v == "free" or AXIS_ID.fullmatch(v)),
    "side": read(one_of("top", "bottom", "left", "right")), "visible": read(_bool), "showgrid": read(_bool),
    "gridcolor": read(COLOUR), "tickvals": read(NUMS), "ticktext": read(STRS), "showticklabels": read(_bool),
    "tickfont": FONT, "title": {"text": read(_str), "font": FONT, "standoff": read(_num)},
    "ticklabelstandoff": read(_num),
    "type": plotly(one_of("linear"), "the page draws linear axes only"),
    "tickmode": plotly(one_of("array"), "the page labels tickvals, and no other tick"),
    "ticks": plotly(one_of(""), "the page draws no tick marks"),
    "tickcolor": plotly(_any, "no tick marks to colour (ticks is empty)"),
    "zeroline": plotly(one_of(False), "the page draws no zero line"),
    "zerolinecolor": plotly(_any, "no zero line to colour"),
    "ticklabelposition": plotly(one_of("outside"), "the page writes tick labels outside the plot"),
    "fixedrange": plotly(one_of(True), "nothing zooms or pans in the page"),
    "constrain": plotly(one_of("domain"), "the range and the domain are drawn as given"),
    "automargin": plotly(_any, "the builders make room for every label: no margin has to grow"),
}
ANNOTATION = {
    "text": read(_str), "x": read(_num), "y": read(_num), "xref": read(REF), "yref": read(REF),
    "xanchor": read(XANCHOR), "yanchor": read(YANCHOR), "textangle": read(_num), "font": FONT, "visible": read(_bool),
    "showarrow": plotly(one_of(False), "the page draws no arrows"),
    "align": plotly(lambda v, o: v == o.get("xanchor", "center"), "the page aligns the lines as it anchors the text"),
}
SHAPE = {
    "type": read(one_of("line", "rect")), "layer": read(one_of("above", "below")), "xref": read(REF),
    "yref": read(REF), "x0": read(_num), "x1": read(_num), "y0": read(_num), "y1": read(_num), "line": LINE,
    "opacity": read(_num), "fillcolor": read(COLOUR),
}
COLORBAR = {
    "lenmode": read(one_of("fraction", "pixels")), "len": read(_num), "thickness": read(_num), "x": read(_num),
    "y": read(_num), "xanchor": read(XANCHOR), "yanchor": read(YANCHOR), "tickvals": read(NUMS),
    "ticktext": read(STRS), "tickfont": FONT,
    "title": {"text": read(_str), "font": FONT, "side": plotly(one_of("top"), "the page writes the title on top")},
    "outlinewidth": plotly(one_of(0), "the page draws no outline"),
    "xpad": read(_num),  # the title starts xpad right of x, as in Plotly; the bar, unlike Plotly's, at x
    "ypad": plotly(one_of(0), "the page pads nothing: the bar's end is at y"),
    "ticks": plotly(one_of(""), "the page draws no tick marks"),
    "tickmode": plotly(one_of("array"), "the page labels tickvals, and no other tick"),
}
STEP = {"label": read(_str), "args": read(_play_args),
        "method": plotly(one_of("animate"), "a step shows its frame")}
SLIDER = {
    "active": read(_int), "x": read(_num), "y": read(_num), "xanchor": read(XANCHOR), "yanchor": read(YANCHOR),
    "len": read(_num), "font": {"size": read(_num)}, "steps": [STEP], "pad": NO_PAD,
    "ticklen": plotly(_any, "the page's slider draws its ticks in its own style"),
    "currentvalue": {"visible": plotly(one_of(False), "the page writes no current value")},
}
MENU = {
    "x": read(_num), "y": read(_num), "xanchor": read(XANCHOR), "yanchor": read(YANCHOR), "font": {"size": read(_num)},
    "buttons": [{"label": read(_str), "args": read(_play_args),
                 "method": plotly(one_of("animate"), "a button plays or pauses the frames")}],
    "type": plotly(one_of("buttons"), "the page draws buttons"),
    "direction": plotly(one_of("left"), "the page sets the buttons in a row"),
    "showactive": plotly(one_of(False), "the page marks no button as pressed"),
    "pad": NO_PAD,
}
OUTLINE = {  # base.outline_rule: how a clicked cell is outlined
    "cells": read(lambda v, o: isinstance(v, list) and len(v) == 2 and all(map(_int, v))),
    "boxes": [{"x": read(_spans), "y": read(_spans), "trace": read(_int), "line": LINE,
               "shape": {k: SHAPE[k] for k in ("type", "xref", "yref", "line", "fillcolor")}}],
}
_THEMED = "the theme's, written into every figure for the curves Plotly draws"
LAYOUT = {
    "width": read(_size), "height": read(_size),
    "margin": {"l": read(_margin), "r": read(_margin), "t": read(_margin), "b": read(_margin), "pad": read(_margin),
               "autoexpand": plotly(one_of(False), "the page's margins are as given")},
    "font": FONT, "paper_bgcolor": read(COLOUR), "plot_bgcolor": read(COLOUR),
    "title": {"text": read(_str), "x": read(_num), "y": read(_num), "xanchor": read(XANCHOR),
              "yanchor": read(YANCHOR), "pad": {"l": read(_num), "r": read(_num)}, "font": FONT,
              "xref": plotly(one_of("container"), "the page places the title in the whole figure"),
              "yref": plotly(one_of("container"), "the page places the title in the whole figure")},
    "shapes": [SHAPE], "annotations": [ANNOTATION], "sliders": Items(SLIDER, 1), "updatemenus": [MENU],
    "meta": {"ticktitles": {"*": read(STRS)}, "outline": OUTLINE,
             "slider": {"label": read(_str), "steps": read(STRS)},  # base.slider_words
             "hover": {"trace": read(_int), "pending": read(_str), "upto": read(INTS),  # base.hover_by_frame
                       "parts": [{"label": read(_str), "cells": read(STRS)}]}},
    "xaxis*": AXIS, "yaxis*": AXIS,
    "datarevision": plotly(_any, "Plotly.react's revision of the data"),
    "dragmode": plotly(one_of(False, "pan"), "nothing zooms or pans in the page"),
    "clickmode": plotly(one_of("event+select"), "a click on a cell goes to the server"),
    "hovermode": plotly(one_of("closest"), "the page names the cell under the pointer"),
    "autosize": plotly(one_of(False), "the page draws the figure at its width and height"),
    "showlegend": plotly(one_of(False), "the page draws no legend"),
    "legend": plotly(_any, f"{_THEMED}: no matrix figure shows a legend"),
    "hoverlabel": plotly(_any, f"{_THEMED}: the page's hover label looks the same by its own style"),
}
TRACE = {
    "xaxis": read(lambda v, o: bool(re.fullmatch(r"x\d*", v))),
    "yaxis": read(lambda v, o: bool(re.fullmatch(r"y\d*", v))),
    "visible": read(_bool), "name": read(_str), "hoverinfo": read(one_of("skip")), "hovertemplate": read(_template),
    "customdata": read(lambda v, o: isinstance(v, list)),
    "showlegend": plotly(one_of(False), "the page draws no legend"),
}
TRACES = {
    "heatmap": TRACE | {
        "type": read(one_of("heatmap")), "z": read(GRID), "x0": read(_num), "y0": read(_num), "text": read(TEXTS),
        "zmin": read(_num), "zmax": read(_num), "colorscale": read(SCALE), "xgap": read(_num), "ygap": read(_num),
        "textfont": FONT, "opacity": read(_num), "texttemplate": read(_template), "showscale": read(_bool),
        "colorbar": COLORBAR, "zsmooth": read(one_of("fast")),
        "hoverongaps": plotly(one_of(False), "the page names no empty cell"),
    },
    "scatter": TRACE | {
        "type": read(one_of("scatter")), "x": read(NUMS), "y": read(NUMS), "mode": read(MODE),
        "cliponaxis": read(_bool), "line": LINE, "textfont": FONT, "textposition": read(TEXTPOSITION),
        "text": read(lambda v, o: _str(v) or STRS(v, o)),
        "marker": {"size": read(_num), "color": read(COLOURS), "opacity": read(_num),
                   "symbol": read(one_of("square", "circle")), "line": {"width": read(_num), "color": read(COLOUR)},
                   "showscale": read(_bool), "colorbar": COLORBAR, "colorscale": read(SCALE), "cmin": read(_num),
                   "cmax": read(_num)},
    },
    "bar": TRACE | {
        "type": read(one_of("bar")), "x": read(lambda v, o: NUMS(v, o) or STRS(v, o)),
        "y": read(lambda v, o: NUMS(v, o) or STRS(v, o)), "orientation": read(one_of("h", "v")),
        "width": read(_num), "marker": {"color": read(COLOURS)}, "textfont": FONT,
        "text": read(lambda v, o: _str(v) or STRS(v, o)),
        "textposition": plotly(one_of("outside"), "the page writes a bar's text just past its end"),
        "cliponaxis": plotly(one_of(False), "the page lets a bar's text run into the margin"),
    },
}
FRAME = {"name": read(_str), "traces": read(INTS), "data": read(), "layout": LAYOUT}  # data: patches of its traces


def problems(figure: dict) -> list[str]:
    """Every attribute of `figure` (a dict: data, layout, frames) that matrix_chart.js would not draw as Plotly does:
    one outside the schema, or a value outside what it reads there."""
    found: list[str] = []
    data = figure.get("data", [])
    for i, trace in enumerate(data):
        kind = trace.get("type")
        if kind not in TRACES:
            found.append(f"data[{i}].type: {kind!r} is not drawn")
            continue
        _check(trace, TRACES[kind], f"data[{i}]", found)
    _check(figure.get("layout", {}), LAYOUT, "layout", found)
    for k, frame in enumerate(figure.get("frames") or []):
        where = f"frames[{k}]"
        _check(frame, FRAME, where, found)
        for j, patch in zip(frame.get("traces", range(len(frame.get("data", [])))), frame.get("data", [])):
            base = data[j] if j < len(data) else {}
            kind = patch.get("type", base.get("type"))
            if kind != base.get("type") or kind not in TRACES:
                found.append(f"{where}.data: a {kind!r} patch on trace {j}, a {base.get('type')!r}")
            else:
                _check(patch, TRACES[kind], f"{where}.data[trace {j}]", found)
    for key in set(figure) - {"data", "layout", "frames"}:
        found.append(f"{key}: not drawn")
    return found


def _check(value, node, where: str, found: list[str]) -> None:
    if value is None:
        return
    if isinstance(node, Leaf):
        if not node.ok(value, {}):
            found.append(f"{where}: {value!r} is not drawn as Plotly draws it")
        return
    if isinstance(node, list | Items):
        item, most = (node[0], None) if isinstance(node, list) else (node.node, node.most)
        if not isinstance(value, list):
            found.append(f"{where}: a list is drawn, not {type(value).__name__}")
            return
        if most is not None and len(value) > most:
            found.append(f"{where}: only the first {most} is drawn")
        for k, v in enumerate(value):
            _check(v, item, f"{where}[{k}]", found)
        return
    if not isinstance(value, dict):
        found.append(f"{where}: an object is drawn, not {type(value).__name__}")
        return
    for key, v in value.items():
        child = _child(node, key)
        if child is None:
            found.append(f"{where}.{key}: not drawn")
        elif isinstance(child, Leaf):
            if v is not None and not child.ok(v, value):
                found.append(f"{where}.{key}: {v!r} is not drawn as Plotly draws it")
        else:
            _check(v, child, f"{where}.{key}", found)


def _child(node: dict, key: str):
    if key in node:
        return node[key]
    for pattern, child in node.items():
        if pattern == "*" or pattern.endswith("*") and re.fullmatch(re.escape(pattern[:-1]) + r"\d*", key):
            return child
    return None


def names(kind: str = "read") -> set[str]:
    """Every attribute name on the way to an attribute of this kind ("read" or "plotly"): the names matrix_chart.js
    must use (kind "read")."""
    out: set[str] = set()

    def walk(node) -> bool:
        if isinstance(node, Leaf):
            return node.kind == kind
        if isinstance(node, list | Items):
            return walk(node[0] if isinstance(node, list) else node.node)
        hit = False
        for key, child in node.items():
            if walk(child):
                hit = True
                out.add(key.rstrip("*") if key != "*" else key)
        return hit

    for node in (LAYOUT, FRAME, *TRACES.values()):
        walk(node)
    out.discard("*")
    return out | (set(PLAY_READ) | {"data", "layout", "frames"} if kind == "read" else set())
