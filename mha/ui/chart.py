"""Matrix charts in the page: the element a figure travels in, the script that draws it, and what a click sends.

A figure that `svg_draws` (the matrices and the next token's bars: every axis with a range the figure gives) is drawn
by matrix_chart.js, beside this module, as an SVG in the page, from the Plotly figure dict the builders make; it
reads only the part of Plotly's format written down in mha/figures/schema.py. The curves (GELU, the costs, the loss:
automatic and log axes) are drawn by Plotly (`st.plotly_chart`). Drawing the matrices without Plotly.js keeps a chart
stage from loading Plotly's bundle and from redrawing through Plotly on every rerun.

The element (`spec_html`)
    An st.html in a container keyed by the chart's key (class st-key-<key>), holding one empty
    `<div class="mha-spec">` whose data attributes, each in single quotes, are all the script reads of it:
      data-key        the chart's key
      data-revision   a digest of the figure's JSON
      data-filename   the PNG's file name (without .png)
      data-spec       the figure's JSON (`Drawn.attribute`)
      data-clickable  "1" on a chart that takes clicks; absent otherwise
    The script draws the chart as a `<div class="mha-chart" data-drawn="<revision>">` beside that div, in the same
    element: a run that sends another figure makes React write the element anew (the old chart goes with it), and
    the script's MutationObserver draws the new one before the browser paints; an element a run leaves as it was
    keeps its chart. The chart's root holds `.mha` (the figure, the traces drawn now, the frame shown, show(k)) for
    browser tests.

The script (`LIB`, `CSS`)
    matrix_chart.js is loaded once a page inside the script of the screen component (screen.py), whose element is
    the same on every run: Streamlit sends it once, then its hash. That component calls `watch()` once and
    `saveTitle(title)` on every run, and puts CSS (which hides the marks) in the page's style sheet. The script keeps
    what lives longer than one chart in one global, `window.mha`:
      boxes     annotation key (size, font, text) → its measured box: each measured once a page
      title     the PNG button's title in the page's language
      marks     chart key → {cell, send}: the cell its mark names, and the mark's way to send a click
      charts    chart key → the chart's root
      paint     paint(key): draw chart `key` with its mark's cell outlined, unless it shows that already
      observer  the MutationObserver that draws the chart elements

Clicks (`clickable_chart`, `picked`)
    A figure that takes clicks says in its layout how a cell is outlined (layout.meta.outline, written by
    mha.figures.base.outline_rule): the cells that may be chosen and, for cell (i, j), the boxes to draw, each as a
    layout shape or into a lines trace. A click on a cell of the figure's click layer (its scatter named "click") sends
    that cell's customdata, [i, j] 0-based, and on an animation the frame it shows, [i, j, frame], and nothing else, to
    the chart's mark: a small component element (`_mark`, key mark_<key>) inside the fragment `picked`, so a click
    reruns that fragment only. An animation the reader leaves on a frame (the slider, Pause, the end of Play) sends that
    frame alone, [frame], once it has stayed 400 ms and is not the frame the mark names; the page may move what it says
    beside the chart to it (`picked`'s follow: the scores' step buttons). On the server the click chooses the cell, or
    lets it go when it was the chosen one (sel_<key>, and the frame in frame_<key>); the fragment sends the mark again
    with data {key, cell, frame} (frame: the one clicked on or left on, else the one the animation rests on; null on a
    still chart) and writes the cell's sums as that frame shows it. The browser then outlines the mark's cell on the
    chart it holds, by the figure's rule, over whatever frame it shows, and moves an animation to the mark's frame when
    the mark names a new one. No figure is built or sent for a click. A chart drawn anew (another language, a full
    rerun) is drawn with the cell its mark names, at its figure's resting frame, then moved to the frame the run's mark
    names; a cell outside the rule's cells (the sizes shrank) is not outlined.
"""

import hashlib
import json
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import streamlit as st
from plotly.utils import PlotlyJSONEncoder

from mha.figures.base import Spec

from .shared import MB, Shared

FIGURES_BUDGET = 32 * MB  # the figures of the views a class has open, built once (README, Memory)
# Plotly's toolbar keeps one button, the PNG export: the axes are the figure's own (no zoom, pan or autoscale)
CHART_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoom2d", "pan2d", "zoomIn2d",
                                                                 "zoomOut2d", "autoScale2d", "resetScale2d"]}

LIB = Path(__file__).with_name("matrix_chart.js").read_text()
CSS = '\n[class*="st-key-mark_"] { display: none; }'  # a chart's mark draws nothing and takes no gap

# The settings Streamlit gives a Plotly chart that takes clicks, written into every clickable figure: the SVG reads
# none of them, and the figure stays the one Plotly would draw (bench/floor_page.py draws it so, to compare), drawn
# once, not again when Streamlit hands Plotly its copy with the settings made. The axes are fixed: "pan" moves nothing.
CLICKABLE = dict(clickmode="event+select", dragmode="pan")

_MARK_JS = """
export default function ({ data, setTriggerValue }) {
  const mha = (window.mha ??= {});
  (mha.marks ??= new Map()).set(data.key, { cell: data.cell, frame: data.frame,
                                            send: cell => setTriggerValue("cell", cell) });
  if (mha.paint) mha.paint(data.key);
}
"""
_mark = st.components.v2.component("mha_mark", js=_MARK_JS, isolate_styles=False)


@dataclass(frozen=True)
class Drawn:
    """A figure as it goes to the page: its dict for Plotly, or its JSON and digest for the SVG (and no dict: a
    figure's dict of Python numbers is several times its JSON, and the shared figures are kept)."""

    spec: Spec | None
    json: str = ""
    revision: str = ""

    @cached_property
    def attribute(self) -> str:
        """The JSON as the value of a matrix chart's data-spec (spec_html), written once per figure: a shared figure
        is drawn by every run that shows it.

        The page's sanitizer (DOMPurify, in Streamlit's st.html) drops an attribute whose value holds "-->", "]>" or
        a closing style or title tag, and a text of the user's may: "<" and ">" go as JSON's escapes \\u003c and
        \\u003e, which only strings hold in JSON, and JSON.parse reads back."""
        return _attribute(self.json.replace("<", "\\u003c").replace(">", "\\u003e"))


def drawn(fig) -> Drawn:
    spec = fig if isinstance(fig, Spec) else Spec(fig.to_dict())
    if not svg_draws(spec.to_dict()):
        return Drawn(spec)
    text = to_json(spec.to_dict())
    return Drawn(None, text, hashlib.blake2b(text.encode(), digest_size=8).hexdigest())


def svg_draws(spec: dict) -> bool:
    """Whether matrix_chart.js draws this figure: heatmaps, scatter marks and bars on axes whose range the figure
    gives (Plotly's automatic ranges and log axes, the curves', are Plotly's to draw)."""
    axes = [a for name, a in spec["layout"].items() if name.startswith(("xaxis", "yaxis"))]
    return bool(axes) and all(t.get("type") in ("heatmap", "scatter", "bar") for t in spec["data"]) \
        and all("range" in a and a.get("type", "linear") == "linear" for a in axes)


def to_json(spec: dict) -> str:
    """A figure dict as strict JSON in one pass (numpy arrays as lists). A NaN or ±∞ (a builder's slip: a gap is
    None) goes through Plotly's encoder instead, which writes null for it at three times the cost."""
    try:
        return json.dumps(spec, allow_nan=False, separators=(",", ":"), default=_listed)
    except ValueError:
        return loose_json(spec)


def loose_json(spec: dict) -> str:
    return json.dumps(spec, cls=PlotlyJSONEncoder, separators=(",", ":"))


def _listed(value):
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def figure_bytes(value: Drawn) -> int:
    """What a shared figure holds: a matrix chart's JSON twice (its attribute is the same text, escaped, made on the
    first draw); a Plotly figure's dict (a curve's: small)."""
    if value.json:
        return 2 * sys.getsizeof(value.json)
    return _dict_bytes(value.spec.to_dict())


def _dict_bytes(value) -> int:
    """The size of a figure's dict and everything in it (numpy arrays by their bytes)."""
    if isinstance(value, np.ndarray):
        return value.nbytes + sys.getsizeof(value)
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list | tuple) else ()
    return sys.getsizeof(value) + sum(map(_dict_bytes, inner))


FIGURES = Shared(FIGURES_BUDGET, size=figure_bytes)


def shared_figure(parts: tuple, build) -> Drawn:
    """build(), a Drawn, or the same figure built earlier in this process by any session: `parts` must name everything
    the figure draws (arrays by `digest`, the language, the look …). Nobody changes a figure after."""
    return FIGURES.get(parts, build)


def chart_config(key: str) -> dict:
    """Plotly toolbar: PNG export named after the chart and the sizes, e.g. mha-qk_q-3x5x7x11x2-seed0. None on a
    Chinese page: Plotly's tooltip says "Download plot as a png" in English whatever the page's language."""
    ss = st.session_state
    sizes = "x".join(str(ss.get(k, "")) for k in ("n_tokens", "d_model", "d_k", "d_v", "n_heads"))
    image = {"toImageButtonOptions": {"filename": f"mha-{key}-{sizes}-seed{ss.get('seed', 0)}", "scale": 2}}
    return CHART_CONFIG | image | ({"displayModeBar": False} if ss.get("lang") == "zh" else {})


def draw(d: Drawn, key: str, width: str, clickable: bool) -> None:
    """The figure in the page: the SVG where it draws it, else Plotly. Only the SVG takes clicks (every clickable
    figure is a matrix)."""
    if not d.json:
        if clickable:
            raise TypeError(f"chart {key!r} takes clicks but its figure is not one the SVG draws (svg_draws)")
        st.plotly_chart(d.spec, key=key, width=width, config=chart_config(key), theme=None)
        return
    st.container(key=key).html(spec_html(d, key, clickable), width=width)


def spec_html(d: Drawn, key: str, clickable: bool) -> str:
    """A matrix chart's element: an empty div whose data attributes carry the figure and what the script needs
    besides (the module's docstring)."""
    fields = {"key": key, "revision": d.revision, "filename": chart_config(key)["toImageButtonOptions"]["filename"]}
    return ('<div class="mha-spec" ' + " ".join(f"data-{k}='{_attribute(v)}'" for k, v in fields.items())
            + f" data-spec='{d.attribute}'" + (" data-clickable='1'" if clickable else "") + "></div>")


def _attribute(value: str) -> str:
    """`value` for an attribute in single quotes: JSON's many double quotes go as they are, not as &quot; each."""
    return value.replace("&", "&amp;").replace("'", "&#39;")


def chart(fig, key: str, width: str = "content") -> None:
    draw(drawn(fig), key, width, clickable=False)


def clickable(fig: Spec) -> Spec:
    """The figure with the click settings Streamlit gives a chart that takes clicks (CLICKABLE, hovermode)."""
    spec = fig.to_dict()
    layout = spec["layout"] | CLICKABLE
    layout["hovermode"] = layout.get("hovermode") or "closest"
    return Spec(spec | {"layout": layout})


def clickable_chart(parts: tuple, build, key: str) -> Drawn:
    """The figure build() (one that declares its outline: layout.meta.outline), drawn to take clicks, built once per
    figure for every session, and returned as drawn. Its clicks go to the mark that `picked` or `mark` puts in the
    page."""
    d = shared_figure(parts, lambda: drawn(clickable(build())))
    draw(d, key, "content", clickable=True)
    return d


def selected(key: str) -> tuple[int, int] | None:
    """The cell of chart `key` the reader chose (0-based), if any."""
    return st.session_state.get(f"sel_{key}")


def clicked_frame(key: str) -> int | None:
    """The frame of animated chart `key` the reader last clicked a cell on (0-based), if any."""
    return st.session_state.get(f"frame_{key}")


def forget_frame(key: str) -> None:
    """Chart `key` is drawn anew at another resting frame (a new step chosen): the frame clicked on no longer holds."""
    st.session_state.pop(f"frame_{key}", None)


def _remember_cell(key: str, follow=None) -> None:
    """What chart `key` sent. A click on a cell: that cell is chosen, or let go when it was the chosen one. On an
    animation the click names the frame too ([i, j, frame]): the frame is kept, and the same cell on another frame is
    chosen again, not let go. An animation the reader left on a frame (the slider, Pause, the end of Play) sends that
    frame alone ([frame]): it is kept, with the chosen cell. Then `follow(frame)`, if given, for what else the frame
    moves (the scores' step)."""
    if f"mark_{key}" not in st.session_state:  # a late message from a chart the page no longer shows
        return
    sent = st.session_state[f"mark_{key}"].cell
    sent = [int(v) for v in sent] if sent else []
    if len(sent) == 1:
        frame = sent[0] if sent[0] >= 0 else None
    else:
        cell = tuple(sent[:2]) or None
        frame = sent[2] if len(sent) == 3 and sent[2] >= 0 else None
        same = cell == selected(key) and frame == clicked_frame(key)
        st.session_state[f"sel_{key}"] = None if same else cell
    st.session_state[f"frame_{key}"] = frame
    if follow is not None and frame is not None:
        follow(frame)


def mark(key: str, cell: tuple[int, int] | None, frame: int | None = None, follow=None) -> None:
    """The mark of chart `key`: tells the page which cell to outline (None: none) and, on an animation, which frame to
    show (None: the one shown), and takes the chart's clicks and the frames it is left on (`_remember_cell`)."""
    _mark(key=f"mark_{key}", data={"key": key, "cell": None if cell is None else list(cell), "frame": frame},
          height=0, on_cell_change=lambda: _remember_cell(key, follow))


def picked(key: str, fits, show, frames: tuple[int, int] | None = None, follow=None) -> None:
    """What a click on the chart `key` changes, in a fragment of its own that a click reruns alone (its key:
    `picked_fragment(key)`): the mark with the chosen cell, and show(cell), the cell's sums or the hint (cell None).
    A chosen cell that `fits(cell)` rejects (the sizes shrank) counts as none. An animation gives `frames`, (the frame
    it rests on, how many it has): the chart stays on the frame clicked on or left on (the resting one before either),
    show(cell, frame) explains the cell as that frame shows it, and follow(frame) is called when the reader moves the
    frame (`_remember_cell`)."""
    st.fragment(_picked, key=picked_fragment(key))(key, fits, show, frames, follow)


def picked_fragment(key: str) -> str:
    """The key of chart `key`'s `picked` fragment, for st.rerun(scope=...)."""
    return f"picked_{key}"


def _picked(key: str, fits, show, frames: tuple[int, int] | None, follow) -> None:
    cell = selected(key)
    cell = cell if cell is not None and fits(cell) else None
    if frames is None:
        mark(key, cell)
        show(cell)
        return
    rest, count = frames
    frame = clicked_frame(key)
    frame = frame if frame is not None and frame < count else rest
    mark(key, cell, frame, follow)
    show(cell, frame)
