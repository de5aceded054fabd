"""Shared drawing pieces: the screens (Look), a matrix (Mat), windowing, numbers in cells, one heatmap trace, axes,
boxes, the click layer, and Streamlit's theme written into every figure."""

import html
import re
from dataclasses import dataclass, replace

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from .text import widest

# Colour scales written out: Plotly.js knows neither the "_r" suffix nor these sequential names.
SIGNED = get_colorscale("RdBu_r")  # blue < 0 < red
PROBS = get_colorscale("Oranges")  # 0 .. 1
MAGNITUDE = get_colorscale("Purples")  # 0 .. max, for sizes (norms)
HIGHLIGHT = "#111827"
MASKED_BG = "#d1d5db"  # what a −∞ (gap) cell shows
MAX_TEXT_SIDE = 16  # the scores and KV figures write no numbers in a matrix larger than this (products: by room)
MAX_SIDE = 48  # a longer axis is windowed to its first MAX_SIDE entries, with a note


@dataclass(frozen=True)
class Look:
    """How large a figure is drawn: type sizes in px and the pixel box its panels must fit in.

    One per screen: DESK (a laptop or desktop window), PRESENT (a projector, `present=1`: larger type,
    the main figure fits a 1280×720 screen), PHONE (about 360 px wide: panels stacked, fewer numbers).
    """

    cell_text: int = 11  # numbers in cells (cells under 38 px get cell_text - 2)
    tick: int = 10  # tick labels
    title: int = 13  # panel titles
    caption: int = 14  # a frame's sentence, a formula on a figure
    max_w: int = 860  # px the panels may take across
    max_h: int = 640  # px the panels may take down
    min_text_cell: int = 26  # px: smaller cells get no numbers
    narrow: bool = False  # stack panels vertically instead of side by side
    cell: int = 44  # px: the cell size a small matrix is drawn at
    fig_h: int = 860  # px: a static figure (panels, titles, labels) is never taller than this
    side: int = MAX_SIDE  # small multiples draw at most this many rows and columns of each matrix
    least: int = 0  # px: the smallest type a mark may shrink to (an animation's Σ=1); smaller, it is drawn otherwise
    step_label: int = 8  # px: the smallest type a slider's step names may take (a phone's 11, a projector's 16)
    operands: bool = True  # the scores board draws Q and Kᵀ beside S (a phone's and a projector's: S alone)
    side_text: int = 0  # px: a phone's Aᵀ beside B (Concatᵀ beside W_O) writes its numbers this large where it can
    cache_rows: int = 16  # tokens the KV cache's step draws (the last ones): fewer where larger cells must fit
    rows_titled: bool = True  # the KV step's titles say when only its last rows are drawn (a projector: the caption
    #                           under the figure says it, and a line less keeps the figure on the screen)
    screen_h: int = 0  # px an animation must stay within, its numbers kept (a projector's 720 less the header); 0: none
    keyed_below: bool = False  # the KV step's key to its boxes (dotted, solid) is said under it, in the page (a
    #                            projector's: a line less over its panels)

    def column(self, share: float) -> "Look":
        """This look for a figure in a page column taking `share` of the width (a phone stacks columns)."""
        return self if self.narrow else replace(self, max_w=int(self.max_w * share) - 12)


DESK = Look()
# A projector: type readable from the back of a room; the content is 1120 px wide at 1280×720, and a
# figure of at most 640 px fits under Streamlit's 60 px header.
PRESENT = Look(cell_text=16, tick=14, title=18, caption=20, max_w=1100, max_h=430, min_text_cell=40, cell=64,
               fig_h=640, least=15, step_label=16, operands=False,  # S whole under its controls (issue 46 item 3)
               cache_rows=4, rows_titled=False, screen_h=660,  # the KV step: the last 4 tokens whole, in numbers
               keyed_below=True)
# A phone: the content is PHONE_COLUMN px wide at 390 px (its panels keep 8 of them clear: max_w); a figure fits one
# 844 px screen under the header.
PHONE_COLUMN = 358
PHONE = Look(cell_text=10, tick=9, title=12, caption=12, max_w=350, max_h=520, min_text_cell=30, narrow=True,
             cell=40, fig_h=760, side=24, step_label=11, operands=False, side_text=11, cache_rows=8)


@dataclass(frozen=True)
class Mat:
    """A matrix to draw: its values, the post's name, what its rows and columns count."""

    values: np.ndarray
    name: str  # e.g. "Q₁"
    kind: str = "signed"  # "signed" (centred at 0), "probs" (0..1) or "magnitude" (0..max)
    # what a row and a column index count, in the reader's language (hover text, axis titles): t("token"), …;
    # left empty, the index is given by the name's [i, j] alone
    row_label: str = ""
    col_label: str = ""
    mask: np.ndarray | None = None  # True where a cell is masked out (drawn as a grey gap, no number)

    @property
    def shape_text(self) -> str:
        return "×".join(str(s) for s in self.values.shape)


@dataclass(frozen=True)
class Words:
    """The few words a static figure writes itself, in the reader's language (the view passes them).

    Fields: {rows}, {cols} (counts drawn), {first}, {last} (1-based block numbers).
    """

    first_rows: str  # a trimmed matrix: only its first {rows} rows are drawn
    first_cols: str  # only its first {cols} columns
    first_both: str  # only its first {rows} rows and {cols} columns
    blocks_hidden: str  # blocks (heads) {first}..{last} fall outside the drawn part
    block_hidden: str  # block {first} falls outside the drawn part
    two_hidden: str = ""  # blocks {first} and {last}, side by side ("heads 3 to 4" reads oddly); "": blocks_hidden

    def trimmed(self, full: tuple[int, int], drawn: tuple[int, int]) -> str:
        """"" when all of a matrix is drawn, else which part of it is."""
        rows, cols = drawn
        if drawn == full:
            return ""
        if cols == full[1]:
            return self.first_rows.format(rows=rows)
        return self.first_cols.format(cols=cols) if rows == full[0] else self.first_both.format(rows=rows, cols=cols)

    def hidden(self, first: int, last: int) -> str:
        """Blocks first..last (1-based) not drawn; "" when none."""
        if first > last:
            return ""
        if first == last:
            return self.block_hidden.format(first=first)
        return (self.two_hidden if last == first + 1 and self.two_hidden else self.blocks_hidden).format(
            first=first, last=last)


def shown(m: np.ndarray, limit: int = MAX_SIDE) -> np.ndarray:
    return m[:limit, :limit]


def number(v: float, decimals: int) -> str:
    """v with at most `decimals` decimals, trailing zeros dropped, a true minus sign; "" for a gap. Only an exact 0
    is written "0": a value that rounds to zero keeps its sign and every decimal ("−0.00"), so it does not read as
    none."""
    if not np.isfinite(v):
        return ""
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if s in ("-0", "0", ""):
        return "0" if v == 0 else f"{v:.{decimals}f}".replace("-", "−")
    return s.replace("-", "−")


def general(v: float, digits: int) -> str:
    """v to `digits` significant digits (Python's g) with a true minus sign, as the charts write every number; a
    masked score's −∞ as the symbol, the same in every language."""
    if np.isinf(v):
        return "−∞" if v < 0 else "∞"
    return f"{v:.{digits}g}".replace("-", "−")


CELL_PAD = 6  # px a cell number keeps clear of its cell's edges, both sides together


def fits(texts, size: float, width: float, pad: float = CELL_PAD) -> bool:
    """Whether every one of `texts` at `size` fits a cell `width` px wide, `pad` px clear of its edges."""
    return widest(texts, size) + pad <= width


def number_formats(look: "Look") -> tuple[tuple[int, int], ...]:
    """(font size, decimals) for cell numbers, best first: three decimals, two, two in a smaller font. A projector
    tries its least first (15 px, 1.36 times a desk's 11) before the smaller one, which a matrix 22 numbers wide takes
    at the post's sizes (Concat, W_O: 14 px, 1.27 times)."""
    smaller = max(9, look.cell_text - 2)
    least = (max(smaller, look.least), 2)
    return ((look.cell_text, 3), (look.cell_text, 2), least) + (((smaller, 2),) if least[0] > smaller else ())


def number_line(size: float) -> float:
    """Px of height a number of `size` px takes: its line and 2 px."""
    return size * 1.2 + 2


def least_row(look: "Look") -> int:
    """The lowest row a grid lowered for a projector's first screen writes the look's numbers in: their line and
    CELL_PAD (number_format's rule for a row lower than min_text_cell)."""
    return int(np.ceil(number_line(look.cell_text) + CELL_PAD))


def number_cell(z: np.ndarray, size: int, decimals: int, look: "Look") -> float:
    """The smallest square cell (px) that holds every number of z in this format."""
    numbers = (number(v, decimals) for v in np.asarray(z, float).ravel())
    return max(widest(numbers, size) + CELL_PAD, number_line(size), look.min_text_cell)


def number_format(values, cell_w: float, cell_h: float, look: "Look") -> tuple[int, int] | None:
    """(font size, decimals) of the first of number_formats in which every one of `values` (arrays; NaN and ±∞ are
    gaps, written as nothing) fits cells of cell_w × cell_h px; None when none does. A cell narrower than the look's
    min_text_cell writes none; a row lower than that still does while the text keeps CELL_PAD clear of its edges (a
    product's squeezed inner dimension: W's rows on a projector, 34 px for 14 px numbers)."""
    if cell_w < look.min_text_cell:
        return None
    flat = np.concatenate([np.ravel(np.asarray(v, float)) for v in values])
    for size, decimals in number_formats(look):
        low = number_line(size) + (CELL_PAD if cell_h < look.min_text_cell else 0)
        if fits((number(v, decimals) for v in flat), size, cell_w) and low <= cell_h:
            return size, decimals
    return None


def fit_numbers(z: np.ndarray, cell_w: float, cell_h: float, look: "Look") -> tuple[list[list[str]], int] | None:
    """Cell numbers that fit cells of cell_w × cell_h px, and their font size; None when none fit.

    The first of number_formats that fits (number_format). Gaps stay empty.
    """
    chosen = number_format([z], cell_w, cell_h, look)
    if chosen is None:
        return None
    size, decimals = chosen
    return [[number(v, decimals) for v in row] for row in np.asarray(z, float)], size


def as_gaps(z: np.ndarray) -> list:
    """−∞/NaN become None: Plotly leaves those cells empty (a gap). None, not NaN: JSON has no NaN, and a figure
    holding one is encoded by Plotly three times (dumped, read back to swap NaN for null, dumped again)."""
    z = np.asarray(z, float)
    cells = z.astype(object)
    cells[~np.isfinite(z)] = None
    return cells.tolist()


def abs_limit(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    top = float(np.max(np.abs(finite))) if finite.size else 1.0
    return top if top > 0 else 1.0


def heatmap(m: Mat, xaxis: str, yaxis: str, text: bool, *, z=None, zlim=None, scale=True, colorbar=None,
            cell: int = 44, look: Look = DESK, numbers: tuple[list[list[str]], int] | None = None):
    """One heatmap trace for `m` (windowed), cell text when small, hover naming row and column.

    Cells under 38 px get two significant digits in a smaller font, so "-0.0454" never spills over.
    `numbers` (strings and font size from fit_numbers) replaces that rule: exactly these strings are written.
    Masked cells of `m` (m.mask) are gaps: the plot's background shows through, and no number.
    """
    z = shown(m.values) if z is None else z
    if m.mask is not None:
        z = np.where(m.mask[: z.shape[0], : z.shape[1]], np.nan, np.asarray(z, float))
    lim = zlim if zlim is not None else abs_limit(np.asarray(z, float))
    ranges = {"probs": (PROBS, 0.0, 1.0), "magnitude": (MAGNITUDE, 0.0, lim)}
    scale_, low, high = ranges.get(m.kind, (SIGNED, -lim, lim))
    fitted = dict(text=numbers[0], texttemplate="%{text}", textfont=dict(size=numbers[1])) if numbers else {}
    return dict(
        type="heatmap",
        z=as_gaps(np.asarray(z, float)),
        xaxis=xaxis,
        yaxis=yaxis,
        colorscale=scale_,
        zmin=low,
        zmax=high,
        showscale=scale and colorbar is not None,
        colorbar=colorbar,
        texttemplate=("%{z:.3~g}" if cell >= 38 else "%{z:.2~g}") if text else "",  # "" (not None) clears it in a frame
        textfont=dict(size=look.cell_text if cell >= 38 else look.cell_text - 2),
        hoverongaps=False,
        hovertemplate=f"{m.name}[%{{y}}, %{{x}}] = %{{z:.6g}}{_counted(m)}<extra></extra>",
        x0=1,
        y0=1,
        xgap=1,
        ygap=1,
        name=m.name,
    ) | fitted


def _counted(m: Mat) -> str:
    """The hover's second line: "token 2 · feature 3", the indices said by what they count (those labelled)."""
    said = [f"{label} %{{{axis}}}" for label, axis in ((m.row_label, "y"), (m.col_label, "x")) if label]
    return "<br>" + " · ".join(said) if said else ""


def click_layer(m: Mat, xaxis: str, yaxis: str, size: float = 14) -> dict:
    """Near-transparent square markers on every cell centre of `m`, the trace a click on the chart is read from
    (named "click"; its customdata is the cell, 0-based). It lies over the heatmap, so it also carries the cell's
    hover text.
    """
    values = shown(m.values)
    rows, cols = values.shape
    ii, jj = np.mgrid[1 : rows + 1, 1 : cols + 1]
    return dict(
        type="scatter",
        x=jj.ravel().tolist(),
        y=ii.ravel().tolist(),
        customdata=np.stack([ii.ravel() - 1, jj.ravel() - 1], axis=1).tolist(),
        text=[general(v, 6) for v in values.ravel()],
        mode="markers",
        marker=dict(symbol="square", size=size, opacity=0.003, color="#000", line=dict(width=0)),
        xaxis=xaxis,
        yaxis=yaxis,
        hovertemplate=f"{m.name}[%{{y}}, %{{x}}] = %{{text}}{_counted(m)}<extra></extra>",
        showlegend=False,
        name="click",
    )


ROW_LABEL_EM = 1.4  # em between two rows' labels: the line box of the page's font (Noto Sans: 1.36 em), so no two
#                    labels' boxes overlap (a projector's 20 px rows named 1, 3 at 1.5 em: audit 2026-12-07 #11)


def tick_step(n: int, px: float, need: float) -> int:
    """Every how many rows (or columns) of `px` px each a tick label fits, labels `need` px apart."""
    return next((s for s in (1, 2, 5, 10, 20, 50) if s * px >= need), 100) if px > 0 else 100


def axis_spec(n: int, domain, anchor: str, reverse: bool = False, side: str | None = None, title=None,
              look: Look = DESK, step: int | None = None) -> dict:
    step = step or (1 if n <= 16 else (2 if n <= 32 else 8))
    ax = dict(
        domain=list(domain),
        anchor=anchor,
        range=[n + 0.5, 0.5] if reverse else [0.5, n + 0.5],
        tickmode="array",
        tickvals=list(range(1, n + 1, step)),
        showgrid=False,
        zeroline=False,
        ticks="",
        tickfont=dict(size=look.tick),
        fixedrange=True,
        constrain="domain",
    )
    if side:
        ax["side"] = side
    if title:
        ax["title"] = dict(text=title, font=dict(size=look.tick + 1), standoff=2)
    return ax


def box(axis_x: str, axis_y: str, x0, x1, y0, y1, color=HIGHLIGHT, width=3, dash=None) -> dict:
    """A rectangle around cells x0..x1, y0..y1 (1-based, inclusive) of one panel."""
    return dict(type="rect", xref=axis_x, yref=axis_y, x0=x0 - 0.5, x1=x1 + 0.5, y0=y0 - 0.5, y1=y1 + 0.5,
                line=dict(color=color, width=width, dash=dash), fillcolor="rgba(0,0,0,0)")


def outline(axis_x: str, axis_y: str, x0, x1, y0, y1, color=HIGHLIGHT, width=3, dash=None, show=True) -> dict:
    """A rectangle around cells x0..x1, y0..y1 as a trace: Plotly frames redraw traces, not layout shapes."""
    xs, ys = [x0 - 0.5, x1 + 0.5, x1 + 0.5, x0 - 0.5, x0 - 0.5], [y0 - 0.5, y0 - 0.5, y1 + 0.5, y1 + 0.5, y0 - 0.5]
    return dict(type="scatter", x=xs if show else [None], y=ys if show else [None], xaxis=axis_x, yaxis=axis_y,
                mode="lines", line=dict(color=color, width=width, dash=dash), hoverinfo="skip", showlegend=False)


def outline_rule(layout: dict, cells: tuple[int, int], *boxes: dict) -> None:
    """How the page outlines the cell (i, j), 0-based, that a reader clicks, in layout.meta.outline: matrix_chart.js
    draws it (mha/ui/chart.py). `cells` are the rows and columns a click may choose. Each box, from `cell_box` or
    `trace_box`, outlines cells x (columns) by y (rows) of one panel, each [first, last] (1-based, as `box` takes
    them) or "i" (the clicked cell's row) or "j" (its column)."""
    layout.setdefault("meta", {})["outline"] = dict(cells=list(cells), boxes=list(boxes))


def hover_by_frame(layout: dict, trace: int, parts: list[tuple[str, list[str]]], pending: str,
                   upto: list[int]) -> None:
    """Hover text that grows frame by frame, sent once (layout.meta.hover) instead of every point's text in every
    frame: point n of trace `trace` says, one a line, each part (its label, then its n-th cell, unless that is empty)
    whose count in `upto` is above n; a point that says no part says `pending`. A frame names its own counts with
    `hover_upto` (the figure's are the frame it rests on). matrix_chart.js writes it (`grown`)."""
    layout.setdefault("meta", {})["hover"] = dict(trace=trace, pending=pending, upto=list(upto),
                                                  parts=[dict(label=label, cells=cells) for label, cells in parts])


def hover_upto(upto: list[int]) -> dict:
    """A frame's layout patch: how many points, in order, say each part of the figure's `hover_by_frame`."""
    return dict(meta=dict(hover=dict(upto=[int(u) for u in upto])))


def cell_box(axis_x: str, axis_y: str, x, y, width=3) -> dict:
    """An outline drawn as a layout shape, `box` without its corners: put first among the figure's shapes."""
    shape = {k: v for k, v in box(axis_x, axis_y, 0, 0, 0, 0, width=width).items() if k not in ("x0", "x1", "y0", "y1")}
    return dict(x=x, y=y, shape=shape)


def play_controls(words: dict, sizes: dict, slider: tuple[float, float, float], width: float, height: float,
                  captions: list[str], *, active: int = 0, duration: int = 1200) -> dict:
    """An animation's layout controls: Play/Pause at the top left, and the slider (its top, left and length in px),
    one step name per frame (words["steps"]), resting on frame `active`; what each step says to a screen reader
    is words["slider_step"] filled with its number, name and caption."""
    play = dict(frame=dict(duration=duration, redraw=True), fromcurrent=True, transition=dict(duration=0))
    pause = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    step = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    buttons = [dict(label=words["play"], method="animate", args=[None, play]),
               dict(label=words["pause"], method="animate", args=[[None], pause])]
    top, left, length = slider
    meta = {}
    slider_words(meta, words["slider"], words["slider_step"], list(zip(words["steps"], captions)))
    return dict(
        meta=meta["meta"],
        updatemenus=[dict(type="buttons", direction="left", x=0, y=1 - 4 / height, xanchor="left", yanchor="top",
                          pad=dict(t=0, r=0, b=0, l=0), showactive=False, buttons=buttons,
                          font=dict(size=sizes["button"]))],
        sliders=[dict(active=active, x=left / width, y=1 - top / height, len=length / width, xanchor="left",
                      yanchor="top", pad=dict(t=0, b=0, l=0, r=0), currentvalue=dict(visible=False),
                      font=dict(size=sizes["slider"]),
                      steps=[dict(label=label, method="animate", args=[[str(i)], step])
                             for i, label in enumerate(words["steps"])])],
    )


def slider_words(layout: dict, label: str, template: str, steps: list[tuple[str, str]]) -> None:
    """What the page's frame slider says to a screen reader, in layout.meta.slider: its name and, for each step, the
    words that name it (its value text, announced as the slider moves): `template` ({k} {count} {step} {caption})
    filled with each (step, caption), which may be the figures' rich text. A caption that opens with its step's name
    ("QKᵀ: cell (i, j) …" under the step QKᵀ) says it once (zh review 2026-12-04: "QKᵀ：QKᵀ：…")."""
    said = []
    for k, (step, caption) in enumerate(steps):
        step, caption = plain(step), plain(caption)
        named = re.match(r"([^:：]*)[:：]\s*(.*)", caption, re.S)
        if named and named.group(1).replace(" ", "") == step.replace(" ", ""):
            caption = named.group(2)
        said.append(template.format(k=k + 1, count=len(steps), step=step, caption=caption))
    layout.setdefault("meta", {})["slider"] = dict(label=label, steps=said)


SUB = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
SUP = str.maketrans("0123456789+-=()Tinrot", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵀⁱⁿʳᵒᵗ")


def plain(text: str) -> str:
    """Rich text (<b>, <sub>, <br> …) as the words a screen reader says: tags dropped, a line break a space, and a
    sub- or superscript as its Unicode letters where each has one (X₆, Kᵀ), else after _ or ^ (W_Q, √d_k), so that
    X<sub>6</sub>·W<sub>Q</sub> is not read "X6·WQ"."""
    text = re.sub(r"<br\s*/?>", " ", text)
    for tag, table, mark in (("sub", SUB, "_"), ("sup", SUP, "^")):
        def script(m, table=table, mark=mark):
            inner = re.sub(r"<[^>]*>", "", m.group(1))
            done = inner.translate(table)
            return done if all(a != b for a, b in zip(inner, done)) else f"{mark}{inner}"
        text = re.sub(rf"<{tag}>(.*?)</{tag}>", script, text)
    return html.unescape(re.sub(r"<[^>]*>", "", text))


def trace_box(trace: int, x, y, line: dict | None = None) -> dict:
    """An outline drawn into a lines trace (an `outline` the figure holds, shown or not): its path becomes the box,
    and its line `line` if given. A figure whose frames draw outlines in that trace shows this one at rest."""
    return dict(x=x, y=y, trace=trace) | ({"line": line} if line else {})


FRAME_KEYS = ("type", "z", "opacity", "texttemplate", "x", "y", "text")  # what a frame changes; the rest stays


def patch(trace: dict) -> dict:
    """A trace as a frame carries it: only what changes between frames (Plotly merges it into the trace)."""
    return {k: trace[k] for k in FRAME_KEYS if k in trace}


class Spec(go.Figure):
    """A figure held as the plain dict Plotly.js reads, handed over as it is.

    go.Figure would validate every property of every trace and frame, most of a rerun's work for an animation.
    The builders here write only properties Plotly knows (tests/figures/test_figures.py has Plotly validate every
    builder's figure), so the dict is passed through; `to_dict` is what Streamlit and plotly.io call to serialise a
    figure.
    """

    def __init__(self, spec: dict):
        super().__init__()
        self._spec = spec

    def to_dict(self) -> dict:
        return self._spec


# The template Streamlit puts under a chart's layout when the chart takes its (light) theme, read from the page
# (`gd.layout.template.layout`; its parts for titles of the whole figure, colour axes, ternary plots, range selectors
# and minor grids apply to nothing drawn here, but for the one title). The figures carry it in their own layout: Plotly
# counts a template as changed whenever it is a new object, and Streamlit hands Plotly a JSON copy of each figure
# just after drawing it, so a themed figure would be drawn twice.
SANS = '"Source Sans", sans-serif, "Source Sans", sans-serif'
GREY, LINE_GREY, WHITE = "#808495", "#e6eaf1", "#FFFFFF"
THEME = dict(
    font=dict(color=GREY, family=SANS, size=12, weight=400), paper_bgcolor=WHITE, plot_bgcolor=WHITE,
    legend=dict(title=dict(font=dict(size=12, color=GREY), side="top"), valign="top", bordercolor="rgba(0,0,0,0)",
                borderwidth=0, font=dict(size=12, color="#262730")),
    margin=dict(pad=8, r=0, l=0),
    hoverlabel=dict(bgcolor=WHITE, bordercolor="rgba(47, 45, 43, 0.2)", font=dict(color=GREY, family=SANS, size=12)))
TITLE = dict(font=dict(family=SANS, size=16, color="#2F2D2B"), pad=dict(l=4), xanchor="left", x=0)
AXIS_THEME = dict(  # as a template's xaxis and yaxis, each for every x or y axis
    xaxis=dict(zerolinecolor=LINE_GREY, gridcolor=LINE_GREY, showgrid=False, zeroline=False, tickcolor=LINE_GREY,
               automargin=True,
               tickfont=dict(color=GREY, size=12), title=dict(font=dict(color=GREY, size=14), standoff=20)),
    yaxis=dict(zerolinecolor=LINE_GREY, gridcolor=LINE_GREY, ticklabelposition="outside", tickcolor=LINE_GREY,
               automargin=True,
               tickfont=dict(color=GREY, size=12), title=dict(font=dict(color=GREY, size=14), standoff=24)))


def _over(ours: dict, base: dict) -> dict:
    """`base` with `ours` on top, dicts merged all the way down: what Plotly makes of a template under a layout."""
    out = dict(base)
    for key, value in ours.items():
        out[key] = _over(value, out[key]) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def themed(layout: dict) -> dict:
    """The layout with Streamlit's theme under it (THEME), and its title in bold as Streamlit writes it."""
    out = _over(layout, THEME)
    if "title" in layout:
        out["title"] = _over(layout["title"], TITLE) | dict(text=f"<b>{layout['title']['text']}</b>")
    for key, axis in layout.items():
        if key[:5] in AXIS_THEME:
            out[key] = _axis(axis, AXIS_THEME[key[:5]])
    return out


def _axis(axis: dict, theme: dict) -> dict:
    """An axis over the theme's. A colour given in the layout, not in a template, also switches its part on. Tick
    marks are off unless asked for, so the tick colour goes only where the axis has them; the grid and the zero line
    are on unless switched off, but on a bar chart's own axis, which says showgrid=False itself."""
    out = _over(axis, theme)
    if not axis.get("ticks") and "tickcolor" not in axis:
        del out["tickcolor"]
    return out


def axis_type(size: int, **titles: str) -> dict:
    """Both axes' ticks at `size` and the titles given at size + 2: the theme under every layout sets them at 12 and
    14 px whatever the layout's own font says, which on a projector is smaller than the page's captions."""
    return {axis: dict(tickfont=dict(size=size)) | ({"title": dict(text=titles[axis], font=dict(size=size + 2))}
                                                    if axis in titles else {})
            for axis in ("xaxis", "yaxis")}


LOG_DIGITS = ((1, 2, 5), range(1, 10))  # a log axis's labels within two decades: 1, 2 and 5 of each, or every digit


def log_ticks(values) -> dict:
    """Where a log axis is labelled. Plotly labels a log axis between its powers of ten (2, 5, or every digit) at
    three quarters of the tick size, 9 px on a projector; labels it is given are drawn at full size. So: the powers
    of ten alone where the values span two or more; else 1, 2 and 5 of each decade, or every digit under one."""
    values = np.asarray(values, float)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return {}
    lo, hi = values.min(), values.max()
    if hi >= 100 * lo:
        return dict(dtick=1)
    decades = range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
    for digits in LOG_DIGITS:
        ticks = [float(f"{d}e{k}") for k in decades for d in digits if lo <= d * 10.0 ** k <= hi]
        if len(ticks) >= 3:
            break
    return dict(tickvals=ticks)


def log_span(values) -> dict:
    """log_ticks for an axis whose every value lies between two labels: its range from the last label at or below
    the lowest value to the first at or above the highest (a retrained model's loss of 8 sat above the axis's top
    label, 1, with nothing to read it against; audit 2026-12-07 #9)."""
    values = np.asarray(values, float)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return {}
    lo, hi = values.min(), values.max()
    decades = range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 2)
    for digits in ((1,) if hi >= 100 * lo else (), *LOG_DIGITS):  # as log_ticks: at least three labels
        grid = [float(f"{d}e{k}") for k in decades for d in digits]
        bottom, top = max((v for v in grid if v <= lo), default=0), min((v for v in grid if v >= hi), default=0)
        ticks = [v for v in grid if bottom <= v <= top]
        if len(ticks) >= 3:
            break
    pad = 0.03 * (np.log10(top) - np.log10(bottom))  # a marker on the end label stays whole
    return dict(tickvals=ticks, range=[float(np.log10(bottom) - pad), float(np.log10(top) + pad)])


def figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> Spec:
    """Data, layout and frames (plain dicts) as one figure, Streamlit's theme written into the layout (THEME).

    With a `datarevision` Plotly.react tells new data by that number instead of by the arrays' identity. Streamlit
    hands Plotly a JSON copy of a figure just after drawing it, and without one every copied array counts as new data:
    the whole figure would be drawn a second time. A figure never gets new data under the same revision: a new figure is
    a new chart element (Streamlit's element id hashes the spec), drawn afresh, and an animation's frames are drawn
    by Plotly.animate."""
    return Spec(dict(data=data, layout=themed(layout) | {"datarevision": 1}, frames=frames or []))
