"""Drive app.py with Streamlit's AppTest and read what the page shows."""

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from mha.ui.budget import CLEARED

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def run(cleared: int = 0, phone: bool = False, **params) -> AppTest:
    """The app opened from a link with these parameters; `cleared`: the numbers the session has already said yes
    to drawing (budget.asks); `phone`: on a phone, as the page's screen probe reports it from the first run (set
    after a run, the probe's own state would put the desk back on the next)."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = str(value)
    if cleared:
        at.session_state[CLEARED] = cleared
    if phone:
        at.session_state["screen_phone"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def option(at: AppTest, key: str):
    """A toggle of the sidebar's view options (integers, cell_values, present): built only while its panel is open,
    so the panel is opened first."""
    if not at.session_state["options_open"]:
        at.session_state["options_open"] = True
        rerun(at)
    return at.toggle(key=key)


def charts(at: AppTest) -> list[dict]:
    """Every chart's figure dict, in page order: Plotly's (curves, bars) and the matrix charts' (an SVG in the page)."""
    return [spec for _, spec in keyed_charts(at)]


def keyed_charts(at: AppTest) -> list[tuple[str, dict]]:
    """(widget key, figure dict) of every chart on the page, in page order, as the server sends it: a clickable
    chart's chosen cell is not in its figure but in its mark (`marks`), and the page outlines it by the figure's rule
    (`outline_rule`)."""
    out = []
    for node in _elements(at._tree):
        if node.type == "plotly_chart":
            out.append((node.key, json.loads(node.proto.spec)))
        elif (data := chart_data(node)) is not None:
            out.append((data["key"], json.loads(data["spec"])))
    return out


def outline_rule(spec: dict) -> tuple[list[int], dict[tuple[str, str], tuple]]:
    """A clickable figure's rule for outlining a clicked cell (i, j): the cells a click may choose, and each box by the
    axes of its panel: (columns, rows), each [first, last] (1-based) or "i" / "j" (the cell's row / column); a box
    drawn into a trace adds that trace's index."""
    rule = spec["layout"]["meta"]["outline"]
    boxes = {}
    for b in rule["boxes"]:
        if "shape" in b:
            boxes[b["shape"]["xref"], b["shape"]["yref"]] = (b["x"], b["y"])
        else:
            trace = spec["data"][b["trace"]]
            boxes[trace["xaxis"], trace["yaxis"]] = (b["x"], b["y"], b["trace"])
    return rule["cells"], boxes


def chart_elements(at: AppTest) -> list[str]:
    """Each matrix chart's element as Streamlit sends it (its markup), in page order."""
    return [node.proto.body for node in _elements(at._tree) if chart_data(node) is not None]


class _SpecAttributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "div" and ("class", "mha-spec") in attrs:
            self.found.append({k.removeprefix("data-"): v for k, v in attrs if k.startswith("data-")})


def spec_attributes(markup: str) -> dict | None:
    """The data attributes of a matrix chart's one div.mha-spec in `markup`, read back as a browser reads them (its
    markup unescaped), or None if there is none."""
    parser = _SpecAttributes()
    parser.feed(markup)
    if not parser.found:
        return None
    (data,) = parser.found
    return data


def chart_data(node) -> dict | None:
    """A matrix chart element's data (spec_attributes of its markup), or None for any other element."""
    return spec_attributes(node.proto.body) if getattr(node, "type", None) == "html" else None


def html_bodies(at: AppTest) -> list[str]:
    """The markup of every st.html element that is not a matrix chart's."""
    return [h.proto.body for h in at.get("html") if chart_data(h) is None]


def marks(at: AppTest) -> dict[str, tuple[int, int] | None]:
    """The cell each clickable chart's mark names (0-based), by the chart's key: the cell the page outlines."""
    return {data["key"]: None if data["cell"] is None else tuple(data["cell"]) for data in mark_data(at)}


def mark_data(at: AppTest) -> list[dict]:
    """Each mark element's data, whole, in page order."""
    return [json.loads(node.proto.json) for node in _elements(at._tree)
            if node.type == "bidi_component" and node.proto.component_name == "mha_mark"]


def chart_keys(at: AppTest) -> list[str]:
    return [key for key, _ in keyed_charts(at)]


def _elements(node) -> list:
    out = []
    for child in getattr(node, "children", {}).values():
        leaf = getattr(child, "type", None) in ("plotly_chart", "bidi_component", "html")
        out += [child] if leaf else _elements(child)
    return out


def chart_text(at: AppTest) -> str:
    """Every annotation of every chart on the page, as one string; without the KV step's empty subscripts, which give
    a title with no subscript of its own the depth of the titles beside it (nothing a reader sees)."""
    return " ".join(a.get("text", "") for spec in charts(at)
                    for a in spec["layout"].get("annotations", [])).replace("<sub>\u200a</sub>", "")


ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation shows that mark


def shown(markdown: str) -> str:
    """Markdown's text as the reader sees it, where it holds no math: escaped marks as marks, entities as characters."""
    return html.unescape(ESCAPED.sub(r"\1", markdown))


def warnings(at: AppTest) -> list[str]:
    """Each warning box's text as the reader sees it."""
    return [shown(w.value) for w in at.warning]


def captions(at: AppTest) -> list[str]:
    """Each caption's text as the reader sees it."""
    return [shown(c.value) for c in at.caption]


def page_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.latex] + [m.value for m in at.caption]
    parts += [shown(e.value) for e in (*at.info, *at.success, *at.warning, *at.error)]
    parts += [h.value for h in (*at.title, *at.subheader)] + html_bodies(at)
    return " ".join(map(str, parts)) + " " + chart_text(at)


def z(trace: dict) -> np.ndarray:
    """A heatmap's z as floats (None, a gap, becomes NaN)."""
    return np.array([[np.nan if v is None else v for v in row] for row in trace["z"]], dtype=float)


def formulas(at: AppTest) -> list[tuple[str, str]]:
    """Every display formula on the page, with the paragraph its element writes just before it ("" for an st.latex)."""
    found = []
    for element in (*at.markdown, *at.latex):
        parts = element.value.split("$$")
        found += [(parts[k - 1].strip().split("\n\n")[-1] if k == 1 else "", parts[k].strip())
                  for k in range(1, len(parts), 2)]
    return found


BLOCK_PARTS = ("ln1", "attn", "ffn", "gelu", "out")  # the block stage's parts, in order


def block_parts(at: AppTest):
    """The block stage showing each of its parts in turn: the same AppTest, rerun with the next part chosen."""
    for part in BLOCK_PARTS:
        at.session_state["block_part"] = part
        yield part, rerun(at)
