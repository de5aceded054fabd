"""A product A·B = C laid out so a row of A and a column of B meet at their cell; matrices side by side.

Static figures are laid out in pixels for the screen they are drawn for (a Look): every title, tick label,
axis title, colour bar and block label gets its own room, so nothing is drawn over a matrix or over
another label, and a figure never exceeds the Look's width or height.
"""

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from .base import (
    CELL_PAD,
    DESK,
    HIGHLIGHT,
    MASKED_BG,
    MAX_SIDE,
    ROW_LABEL_EM,
    Look,
    Mat,
    Spec,
    abs_limit,
    axis_spec,
    cell_box,
    click_layer,
    figure,
    fit_numbers,
    heatmap,
    number,
    number_cell,
    number_formats,
    number_line,
    outline_rule,
    tick_step,
)
from .text import FONT, text_px, widest, wrap

PAD = 4  # px between a panel and its labels
PANEL_GAP = 24  # px between small multiples (beyond their tick labels)
MIN_INNER = 3  # px: the inner dimension of a product is squeezed down to this to give C readable numbers
STACK_BELOW = 6  # px: on a phone, a product whose C cells would be smaller is drawn stacked (A, B, C)
MIN_GRID_CELL = 3  # px: small multiples draw less of each matrix rather than smaller cells


def drawn(full: int, block: int = 0, limit: int = MAX_SIDE) -> int:
    """How many of `full` rows or columns are drawn: all up to `limit`; with blocks, whole blocks only."""
    if full <= limit:
        return full
    return limit // block * block if 0 < block <= limit else limit


def product_window(a: np.ndarray, b: np.ndarray, blocks: int = 0) -> tuple[int, int, int]:
    """(rows of C, inner dimension, columns of C) drawn for A·B = C."""
    return drawn(a.shape[0]), drawn(a.shape[1], blocks), drawn(b.shape[1])


# ---------------------------------------------------------------- px helpers

TICK_GAP = 8  # px between a plot's edge and its tick labels (Plotly's default tick length, drawn or not)
NOTE_PAD = 8  # px an annotation's box is wider than its text


def _note_h(lines: int, size: float) -> float:
    """Height of an annotation of `lines` lines (its box, as Chromium measures it)."""
    return (1.3 * lines + 0.45) * size + 2 if lines else 0.0


def _xband(look: Look) -> float:
    """Room for column numbers under (or over) a panel."""
    return TICK_GAP + 1.45 * look.tick + 2


def _ytick_w(n: int, look: Look) -> float:
    """Room for row numbers 1..n left of a panel."""
    return text_px(str(n), look.tick) + TICK_GAP + 3


def _overhang(px: float, look: Look) -> float:
    """How far row number 1 sticks out above its panel when rows are `px` px (labels are centred on rows)."""
    return max(0.0, (1.45 * look.tick - px) / 2)


def _axis_title_w(look: Look) -> float:
    """Room for a rotated axis title left of the row numbers."""
    return _note_h(1, look.tick + 1)


def _ticks(n: int, px: float, look: Look, across: bool) -> int:
    """Every how many columns (`across`) or rows (ROW_LABEL_EM apart) a number is written."""
    need = text_px(str(n), look.tick) + 8 if across else look.tick * ROW_LABEL_EM
    return tick_step(n, px, need)


def _lines(text: str, size: float, width: float) -> list[str]:
    """`text` wrapped so that its annotation box is at most `width` px wide (where a break can fall)."""
    return wrap(text, size, max(width - NOTE_PAD, 4 * size))


def _wide(lines: list[str], size: float) -> float:
    return widest(lines, size) + NOTE_PAD


def _clamp(centre: float, lines: list[str], size: float, lo: float, hi: float) -> float:
    """A centred label's x moved so that its box stays within lo..hi px (as far as it can)."""
    half = _wide(lines, size) / 2
    return max(min(centre, hi - half), lo + half) if hi - lo >= 2 * half else (lo + hi) / 2


def _title(m: Mat, rows: int, cols: int, note: str, words) -> str:
    """"<b>name</b> · full shape", then which part is drawn when trimmed, then `note`."""
    trim = words.trimmed(tuple(m.values.shape), (rows, cols))
    extra = " · ".join(p for p in (trim, note) if p)
    return f"<b>{m.name}</b> · {m.shape_text}" + (f" · {extra}" if extra else "")


@dataclass
class Canvas:
    """Collects a figure's pieces in px (origin top left) and writes them in Plotly's paper coordinates."""

    width: float
    height: float

    def __post_init__(self):
        self.layout, self.notes, self.shapes = {}, [], []

    def axes(self, suffix: str, x0, y0, cols, rows, cw, ch, look: Look, *, anchor: str = "", side="bottom"):
        """Axes x{suffix}, y{suffix} for a panel of rows × cols cells of cw × ch px, top left at (x0, y0)."""
        xa = axis_spec(cols, (x0 / self.width, (x0 + cols * cw) / self.width), anchor or f"y{suffix}", side=side,
                       look=look, step=_ticks(cols, cw, look, True))
        ya = axis_spec(rows, (1 - (y0 + rows * ch) / self.height, 1 - y0 / self.height), f"x{suffix}",
                       reverse=True, look=look, step=_ticks(rows, ch, look, False))
        self.layout[f"xaxis{suffix}"], self.layout[f"yaxis{suffix}"] = xa, ya

    def note(self, text: str, x: float, y: float, size: float, *, xanchor="center", yanchor="bottom", angle=0):
        if not text:  # an axis a matrix leaves unlabelled
            return
        self.notes.append(dict(text=text, x=x / self.width, y=1 - y / self.height, xref="paper", yref="paper",
                               xanchor=xanchor, yanchor=yanchor, showarrow=False, textangle=angle,
                               font=dict(size=size)))

    def lines(self, lines: list[str], x: float, y: float, size: float, **kw):
        self.note("<br>".join(lines), x, y, size, **kw)

    def spec(self, traces: list[dict]) -> Spec:
        return figure(traces, dict(
            width=int(math.ceil(self.width)), height=int(math.ceil(self.height)), margin=dict(l=0, r=0, t=0, b=0),
            annotations=self.notes, shapes=self.shapes, plot_bgcolor=MASKED_BG, paper_bgcolor="rgba(0,0,0,0)",
            font=dict(family=FONT, color="#1f2937"), dragmode=False, showlegend=False, **self.layout,
        ))


def _panel(m: Mat, xaxis: str, yaxis: str, z: np.ndarray, cw: float, ch: float, look: Look, text: bool,
           **kw) -> dict:
    """One panel's heatmap: fitted numbers; no white gaps between cells too small to spare a pixel."""
    trace = heatmap(m, xaxis, yaxis, False, z=z, look=look, numbers=_numbers(text, m, z, cw, ch, look), **kw)
    trace["xgap"], trace["ygap"] = int(cw >= 6), int(ch >= 6)
    return trace


def _numbers(text: bool, m: Mat, z: np.ndarray, cw: float, ch: float, look: Look):
    """Fitted cell numbers for a panel, or None (not asked for, or the cells too small for them)."""
    if not text:
        return None
    if m.mask is not None:
        z = np.where(m.mask[: z.shape[0], : z.shape[1]], np.nan, z)
    return fit_numbers(z, cw, ch, look)


def _block_lines(shapes: list, xa: str, ya: str, along_x: bool, block: int, count: int, span: int, width=2, dash="dot"):
    """Lines between blocks of `block` columns (along_x) or rows of a panel of `span` rows (or columns)."""
    line = dict(color=HIGHLIGHT, width=width, dash=dash)
    for edge in range(block, count, block):
        e = edge + 0.5
        ends = dict(x0=e, x1=e, y0=0.5, y1=span + 0.5) if along_x else dict(x0=0.5, x1=span + 0.5, y0=e, y1=e)
        shapes.append(dict(type="line", xref=xa, yref=ya, line=line, **ends))


def _block_names(names: Sequence[str], block: int, count: int, px: float, need: float) -> list[tuple[str, float]]:
    """(name, centre in cells) of each drawn block; every other one (or fewer) when `need` px (a name's width
    side by side, its height one under another) is more than a block's `block` × `px`."""
    placed = [(name, (i * block + min((i + 1) * block, count)) / 2) for i, name in enumerate(names)]
    step = 1
    while step < len(placed) and step * block * px < need + 2:
        step += 1
    return placed[::step]


# ---------------------------------------------------------------- A·B = C


@dataclass(frozen=True)
class Cross:
    """Pixel geometry of A·B = C: A bottom left, B top right, C bottom right.

    C's cells are square (`cell`); A's columns and B's rows (the inner dimension) are `inner` px, which
    may be less than `cell` so that C gets cells big enough for its numbers while rows and columns
    still meet: row i of A runs into row i of C, column j of B runs down into column j of C. A figure that must be
    lower than that keeps its columns and makes its rows lower (`rows`: A's and C's rows, `inner_rows`: B's, in px;
    0 for as wide as the columns), as long as its numbers still fit them.
    """

    n: int
    k: int
    m: int
    cell: float
    inner: float
    left: float  # px left of A: its rows' axis title and row numbers
    gap_x: float  # px between A and C: B's row numbers
    right: float  # px right of B and C: colour bar, block names
    rows: float = 0.0
    inner_rows: float = 0.0

    @property
    def row_h(self) -> float:  # a row of A and C
        return self.rows or self.cell

    @property
    def inner_h(self) -> float:  # a row of B
        return self.inner_rows or self.inner

    @property
    def a_w(self) -> float:
        return self.k * self.inner

    @property
    def c_x(self) -> float:
        return self.left + self.a_w + self.gap_x

    @property
    def width(self) -> float:
        return self.c_x + self.m * self.cell + self.right


def _c_title_gap(look: Look) -> float:
    """px between C and its title: the colour bar's lowest label hangs half its height below C."""
    return 0.75 * look.tick + PAD


def _cross_cells(n, k, m, avail_w, avail_h, target, needs) -> tuple[float, float]:
    """(cell, inner): square cells if C's numbers fit in them; else C's cells as big as the best number
    format needs, with the inner dimension squeezed (not under MIN_INNER); else square cells, no numbers."""
    uniform = min(target, avail_w / (k + m), avail_h / (k + n))
    for need in needs:
        if uniform >= need:
            return uniform, uniform
        inner = min(need, (avail_w - m * need) / k, (avail_h - n * need) / k)
        if inner >= MIN_INNER:
            return need, inner
    return uniform, uniform


def _c_needs(text: bool, c: Mat, z: np.ndarray, look: Look) -> list[float]:
    """Cell sizes at which C's numbers fit, one per number format, best format first ([]: no numbers)."""
    if not text:
        return []
    if c.mask is not None:
        z = np.where(c.mask[: z.shape[0], : z.shape[1]], np.nan, z)
    return [math.ceil(number_cell(z, size, decimals, look)) for size, decimals in number_formats(look)]


@dataclass
class _Plan:
    """Where the pieces of a cross go, in px: panel corners, wrapped titles, the figure's size."""

    geo: Cross
    b_y: float  # top of B
    c_y: float  # top of A and C
    height: float
    f_lines: list[str]  # the formula
    f_corner: bool  # in the empty corner above A (else on the top line)
    titles: list[list[str]]  # A, B, C
    cb_len: float  # the colour bar's length
    c_span: tuple[float, float, float]  # C's title: leftmost and rightmost px of its box, its top


def _plan(geo: Cross, titles: list[str], formula: str, look: Look) -> _Plan:
    n, k, cell, row, inner = geo.n, geo.k, geo.cell, geo.row_h, geo.inner_h
    a_x, c_x, b_h = geo.left, geo.c_x, k * inner
    width, axis_h = geo.width, _note_h(1, look.tick + 1)
    corner = c_x - _ytick_w(k, look) - PAD  # right edge of the corner above A (B's row numbers follow)
    f_lines = _lines(formula, look.caption, corner - PAD)
    f_corner = _note_h(len(f_lines), look.caption) <= b_h - 2 * PAD and _wide(f_lines, look.caption) <= corner - PAD
    if not f_corner:
        f_lines = _lines(formula, look.caption, width - 2 * PAD)
    b_lines = _lines(titles[1], look.title, width - 2 * PAD)
    a_lines = _lines(titles[0], look.title, c_x - PAD)
    c_lo, c_top = a_x + geo.a_w + TICK_GAP, n * row + _c_title_gap(look)  # clear of A's column numbers
    cb_len = max(n * row, 3 * 1.45 * look.tick + 12)
    c_hi = width if cb_len <= n * row else c_x + geo.m * cell  # left of a colour bar longer than C
    c_lines = _lines(titles[2], look.title, c_hi - c_lo)
    if _wide(c_lines, look.title) > c_hi - c_lo:  # too narrow beside the bar: under it, the whole width
        c_hi, c_top = width, cb_len + _c_title_gap(look)
        c_lines = _lines(titles[2], look.title, c_hi - c_lo)
    b_y = PAD + (0 if f_corner else _note_h(len(f_lines), look.caption) + PAD) + _note_h(len(b_lines), look.title) + PAD
    b_y += _overhang(inner, look)
    band = max(_xband(look) + axis_h, _note_h(len(a_lines), look.title) + _overhang(row, look)) + 2 * PAD
    c_y = b_y + b_h + band
    below = max(_xband(look) + axis_h, c_top - n * row + _note_h(len(c_lines), look.title), cb_len - n * row) + PAD
    return _Plan(geo, b_y, c_y, c_y + n * row + below, f_lines, f_corner, [a_lines, b_lines, c_lines], cb_len,
                 (c_lo, c_hi, c_y + c_top))


# ---------------------------------------------------------------- A·B = C with a long inner dimension


@dataclass(frozen=True)
class _Long:
    """A long inner dimension (Concat · W_O: 3×22 · 22×5): A across the whole width on top, B under it and C beside B,
    all in cells of one size `w` × `h` px (wider than tall, like a table's) and one number format, so that every
    number of all three is written. Rows and columns no longer meet; a clicked cell is outlined with its row of A and
    column of B, as on a phone's stacked product. Where B's rows are too many for the figure's height (a projector's
    first screen), B's blocks of rows (one per head) stand side by side, each under its name (`split` of them, of
    `block` rows)."""

    n: int
    k: int
    m: int
    look: Look
    left: float  # px left of each panel: the rows' axis title and row numbers
    names_w: float  # px right of B for its block names
    right: float  # px right of C: the colour bar
    formula: tuple[str, ...]  # the formula's lines
    titles: tuple[tuple[str, ...], ...]  # A's, B's and C's title lines
    beside: bool = False  # the formula right of C (else on top)
    words: bool = True  # each panel's column words under its column numbers
    split: int = 1  # B's panels side by side: its blocks of rows, or B whole
    block: int = 0  # rows in each of B's panels when split
    w: float = 0.0
    h: float = 0.0
    size: int = 0  # the numbers' font size
    decimals: int = 0

    def _title_h(self, *which: int) -> float:
        return _note_h(max(len(self.titles[i]) for i in which), self.look.title) + PAD

    @property
    def band(self) -> float:
        """px under a panel: its column numbers and column words."""
        return _xband(self.look) + (_note_h(1, self.look.tick + 1) if self.words else 0) + PAD

    @property
    def a_y(self) -> float:
        return PAD + (0 if self.beside else _note_h(len(self.formula), self.look.caption) + PAD) + self._title_h(0)

    @property
    def names_h(self) -> float:
        """px over B's panels for their names, when split (else they are right of B)."""
        return _note_h(1, self.look.tick + 1) if self.split > 1 else 0.0

    @property
    def b_y(self) -> float:
        return self.a_y + self.n * self.h + self.band + self._title_h(1, 2) + self.names_h

    @property
    def b_rows(self) -> int:
        """Rows of each of B's panels."""
        return self.block if self.split > 1 else self.k

    def b_x(self, i: int) -> float:
        """px left of B's panel i."""
        beside = self.names_w if self.split == 1 else 0.0  # B whole: its blocks' names right of it
        return self.left + i * (self.left + self.m * self.w + PAD + beside + PANEL_GAP)

    @property
    def c_x(self) -> float:
        return self.b_x(self.split)

    @property
    def formula_x(self) -> float:
        """Where the formula starts when it is beside C."""
        return self.c_x + self.m * self.w + self.right + PANEL_GAP

    @property
    def width(self) -> float:
        beside = self.formula_x + _wide(list(self.formula), self.look.caption) if self.beside else 0
        return max(self.left + self.k * self.w, self.c_x + self.m * self.w + self.right, beside) + PAD

    @property
    def height(self) -> float:
        return self.b_y + max(self.b_rows, self.n) * self.h + self.band


def _long_plan(zs, titles: list[str], names: list[str], formula: str, cb_w: float, look: Look,
               block: int = 0) -> _Long | None:
    """The long layout for A, B, C (their drawn values `zs`) in the first number format whose numbers all fit the
    look's width and figure height; cells as wide as that allows (up to look.cell) and as tall as the panels' height
    allows (up to square). The formula goes beside C where it fits, and the column words are left out if rows tall
    enough for the numbers need their room (hover names them); then B's blocks of `block` rows side by side, each a
    panel. None when no format fits."""
    (n, k), (_, m) = zs[0].shape, zs[1].shape
    tick1 = look.tick + 1
    left = _axis_title_w(look) + PAD + _ytick_w(max(n, k), look)
    names_w = max((_wide([s], tick1) for s in names), default=0.0)
    one = lambda t: (t,)  # noqa: E731 (a title on one line, until the widths are known)
    values = np.concatenate([np.ravel(z) for z in zs])
    splits = (1, -(-k // block)) if 0 < block < k else (1,)
    for size, decimals in number_formats(look):
        need = max(widest((number(v, decimals) for v in values), size) + CELL_PAD, look.min_text_cell)
        for (beside, words), split in itertools.product(((False, True), (True, True), (True, False)), splits):
            base = _Long(n, k, m, look, left, names_w, cb_w, tuple(_lines(formula, look.caption, look.max_w - 2 * PAD)),
                         tuple(map(one, titles)), beside, words, split, block)
            rows = n + max(base.b_rows, n)
            w = math.floor(min((look.max_w - left - PAD) / k, (look.max_w - base.width) / ((split + 1) * m),
                               look.cell))
            if w < need:
                continue
            spans = (k * w + left, base.c_x - left - PANEL_GAP / 2, m * w + left + cb_w)  # each title's room
            wrapped = tuple(tuple(_lines(t, look.title, span)) for t, span in zip(titles, spans))
            base = replace(base, w=w, titles=wrapped)
            if base.width > look.max_w + 1:
                continue
            tall = math.floor((look.fig_h - base.height) / rows)  # base has rows of 0 px
            low = math.ceil(number_line(size))  # a row a number fits in (fit_numbers' rule)
            if low <= tall:  # rows as tall as the look's panel height gives, within the figure's, up to square
                h = min(w, tall, max(low, math.floor((look.max_h - base.height) / rows)))
                return replace(base, h=h, size=size, decimals=decimals)
    return None


def _draw_long(plan: _Long, a: Mat, b: Mat, c: Mat, zs, names: list[str], *, hidden, blocks: int) -> Spec:
    """The long layout (_Long). Traces: 0 A, 1 B (its first block when split), 2 C, 3 C's click layer (axes x3, y3),
    then the quiz's "?", then B's further blocks (axes x5, y5 on), each with its box in the outline rule."""
    n, k, m, w, h, look = plan.n, plan.k, plan.m, plan.w, plan.h, plan.look
    cv = Canvas(plan.width, plan.height)
    tick1 = look.tick + 1
    if plan.beside:
        cv.lines(list(plan.formula), plan.formula_x, plan.b_y, look.caption, xanchor="left", yanchor="top")
    else:
        cv.lines(list(plan.formula), PAD, PAD, look.caption, xanchor="left", yanchor="top")
    b_hi = plan.c_x - plan.left - PANEL_GAP / 2
    # C, the product, beside B: its rows as tall as B's panel leaves them, up to square (a projector's Y in 20 px rows
    # under Concat's 22 columns read as one more operand: audit 2026-12-07 #11)
    c_h = max(h, min(w, math.floor(plan.b_rows * h / n)))
    places = [(a, "", plan.left, plan.a_y, n, k, 0, plan.width, h),
              (b, "2", plan.left, plan.b_y, plan.b_rows, m, 0, b_hi, h),
              (c, "3", plan.c_x, plan.b_y, n, m, plan.c_x - plan.left, plan.width, c_h)]
    traces = []
    for (mat, suffix, x, y, rows, cols, lo, hi, row_h), z, lines in zip(places, zs, plan.titles):
        z = z[:rows]
        cv.axes(suffix, x, y, cols, rows, w, row_h, look)
        traces.append(_long_trace(mat, suffix, z, plan))
        title_x = (x + plan.b_x(plan.split - 1) + cols * w) / 2 if mat is b else x + cols * w / 2
        title_y = y - PAD - (plan.names_h if mat is b else 0)
        cv.lines(list(lines), _clamp(title_x, list(lines), look.title, lo, hi), title_y, look.title)
        cv.note(mat.row_label, x - plan.left + _axis_title_w(look) / 2, y + rows * row_h / 2, tick1, yanchor="middle",
                angle=-90)
        if plan.words:
            cv.note(mat.col_label, _clamp(x + cols * w / 2, [mat.col_label], tick1, lo, hi),
                    y + rows * row_h + _xband(look), tick1, yanchor="top")
    _c_finish(traces, c, zs[2], cv, (plan.c_x + m * w + PAD, plan.b_y), n, w, c_h, look, hidden)
    width = 4 if look.cell_text > 12 else 3
    b_boxes = [cell_box("x2", "y2", "j", [1, plan.b_rows], width)]
    for i in range(1, plan.split):  # B's further blocks of rows, each numbered as in B
        first, suffix, x = i * plan.block, str(4 + i), plan.b_x(i)
        rows = min(plan.block, k - first)
        cv.axes(suffix, x, plan.b_y, m, rows, w, h, look)
        ya = cv.layout[f"yaxis{suffix}"]
        ya["range"], ya["tickvals"] = [first + rows + 0.5, first + 0.5], [v + first for v in ya["tickvals"]]
        traces.append(_long_trace(b, suffix, zs[1][first:first + rows], plan, first) | dict(y0=first + 1))
        b_boxes.append(cell_box(f"x{suffix}", f"y{suffix}", "j", [first + 1, first + rows], width))
        if plan.words:
            cv.note(b.col_label, x + m * w / 2, plan.b_y + rows * h + _xband(look), tick1, yanchor="top")
    if blocks:
        _block_lines(cv.shapes, "x", "y", True, blocks, k, n)
        if plan.split == 1:
            _block_lines(cv.shapes, "x2", "y2", False, blocks, k, m)
            for block_name, mid in _block_names(names, blocks, k, h, _note_h(1, tick1)):
                cv.note(block_name, plan.left + m * w + PAD, plan.b_y + mid * h, tick1, xanchor="left",
                        yanchor="middle")
        else:
            for i, block_name in enumerate(names[:plan.split]):
                cv.note(block_name, plan.b_x(i) + m * w / 2, plan.b_y - PAD, tick1)
    spec = cv.spec(traces)
    outline_rule(spec.to_dict()["layout"], (n, m), cell_box("x", "y", [1, k], "i", width), *b_boxes,
                 cell_box("x3", "y3", "j", "i", width))
    return spec


def _long_trace(mat: Mat, suffix: str, z: np.ndarray, plan: _Long, first: int = 0) -> dict:
    """One panel of the long layout, `z` the rows of `mat` from row `first` (0-based): its numbers in the plan's one
    format, a masked cell a gap."""
    rows, cols = z.shape
    shown_z = z if mat.mask is None else np.where(mat.mask[first:first + rows, :cols], np.nan, z)
    strings = [[number(v, plan.decimals) for v in row] for row in np.asarray(shown_z, float)]
    trace = heatmap(mat, f"x{suffix}", f"y{suffix}", False, z=z, look=plan.look, numbers=(strings, plan.size))
    return trace | dict(xgap=1, ygap=1)


def _c_finish(traces: list, c: Mat, zc, cv: Canvas, bar_at: tuple[float, float], n: int, w: float, h: float,
              look: Look, hidden) -> None:
    """What both long-product layouts add to C (trace 2, axes x3, y3): its colour bar at `bar_at` (px), the click
    layer, and the quiz's "?" over a hidden cell."""
    traces[2] |= dict(showscale=True, colorbar=_colour_bar(c, zc, cv, *bar_at, max(n * h, 3 * 1.45 * look.tick + 12),
                                                           look))
    traces.append(click_layer(c, "x3", "y3", size=max(6.0, min(w, h) - 2)))
    if hidden is not None:
        traces.append(_question(hidden, "x3", "y3", look))


def _side_plan(zs, titles: list[str], names: list[str], formula: str, cb_w: float, look: Look):
    """A phone's layout for a long inner dimension: Aᵀ and B side by side, row k of one beside row k of the other,
    and C under B, column j of B running down into column j of C, in cells of one size and one number format, so
    that every number is written. The largest numbers first (look.side_text, then number_formats); for each, B's
    block names and C's colour bar right of B and C, then the bar alone, then the bar left of C, under Aᵀ (the
    right-hand strip they take costs a phone its 11 px numbers at the post's sizes). (w, h, size, decimals, title
    lines, px left of Aᵀ, names drawn, bar left of C) or None when no format fits."""
    (n, k), (_, m) = zs[0].shape, zs[1].shape
    tick1 = look.tick + 1
    left = _axis_title_w(look) + PAD + _ytick_w(k, look)
    values = np.concatenate([np.ravel(z) for z in zs])
    formats = (((look.side_text, 2),) if look.side_text else ()) + number_formats(look)
    for size, decimals in formats:
        need = max(widest((number(v, decimals) for v in values), size) + CELL_PAD, look.min_text_cell)
        low = math.ceil(number_line(size))
        for named, bar_left in ((names, False), ([], False), ([], True)):
            names_w = max((_wide([s], tick1) for s in named), default=0.0)
            right = PAD if bar_left else max(names_w + PAD, cb_w)
            w = math.floor((look.max_w - left - PAD - right - PAD) / (n + m))  # Aᵀ, B: PAD apart
            if bar_left and left + n * w - _ytick_w(n, look) - _axis_title_w(look) - PAD < cb_w:
                continue  # no room for the bar under Aᵀ
            spans = (left + n * w + PAD, m * w + max(names_w, 0 if bar_left else cb_w), m * w + right + left)
            lines = [_lines(t, look.title, span) for t, span in zip(titles, spans)]
            fixed = (PAD + _note_h(len(_lines(formula, look.caption, look.max_w - 2 * PAD)), look.caption) + PAD
                     + 2 * (_xband(look) + _note_h(1, tick1) + PAD) + _note_h(max(map(len, lines[:2])), look.title)
                     + _note_h(len(lines[2]), look.title) + 2 * PAD)
            if need <= w and fixed + (k + n) * low <= look.fig_h:  # rows a little roomier than the numbers need
                rows = k + n
                h = min(w, math.floor((look.fig_h - fixed) / rows),
                        max(low + 4, math.floor((look.max_h - fixed) / rows)))
                return w, h, size, decimals, lines, left, named, bar_left
    return None


def _draw_side(at: Mat, b: Mat, c: Mat, zs, formula: str, plan, *, look: Look, hidden, blocks: int) -> Spec:
    """The phone's layout (_side_plan), `at` A's drawn part transposed. Traces: 0 Aᵀ (axes x4, y4: its rows count A's
    columns, not tokens), 1 B, 2 C (x3, y3), 3 C's click layer, then the quiz's "?". A clicked cell (i, j) outlines
    column i of Aᵀ, column j of B and the cell."""
    w, h, size, decimals, lines, left, names, bar_left = plan
    za, zb, zc = zs
    n, k, m = za.shape[0], za.shape[1], zb.shape[1]
    tick1 = look.tick + 1
    f_lines = _lines(formula, look.caption, look.max_w - 2 * PAD)
    top = PAD + _note_h(len(f_lines), look.caption) + PAD + _note_h(max(map(len, lines[:2])), look.title) + PAD
    b_x = left + n * w + PAD
    c_y = top + k * h + _xband(look) + _note_h(1, tick1) + PAD + _note_h(len(lines[2]), look.title) + PAD
    names_w = max((_wide([s], tick1) for s in names), default=0.0)
    cb_w = 10 + PAD + widest(_colour_ticks(c, zc, 99, look)[1], look.tick) + 2 * PAD
    width = b_x + m * w + (PAD if bar_left else max(names_w + PAD, cb_w)) + PAD
    cv = Canvas(width, c_y + n * h + _xband(look) + _note_h(1, tick1) + PAD)
    cv.lines(f_lines, PAD, PAD, look.caption, xanchor="left", yanchor="top")
    places = [(at, "4", left, top, k, n, 0, b_x - PAD), (b, "2", b_x, top, k, m, b_x - PAD, width),
              (c, "3", b_x, c_y, n, m, 0, width)]
    traces = []
    for (mat, suffix, x, y, rows, cols, lo, hi), z, title in zip(places, (at.values, zb, zc), lines):
        cv.axes(suffix, x, y, cols, rows, w, h, look)
        shown_z = z if mat.mask is None else np.where(mat.mask[:rows, :cols], np.nan, z)
        strings = [[number(v, decimals) for v in row] for row in np.asarray(shown_z, float)]
        traces.append(heatmap(mat, f"x{suffix}", f"y{suffix}", False, z=z, look=look, numbers=(strings, size))
                      | dict(xgap=1, ygap=1))
        cv.lines(title, _clamp(x + cols * w / 2, title, look.title, lo, hi), y - PAD, look.title)
        cv.note(mat.col_label, _clamp(x + cols * w / 2, [mat.col_label], tick1, lo, hi), y + rows * h + _xband(look),
                tick1, yanchor="top")
    cv.layout["yaxis2"]["showticklabels"] = False  # B's rows are Aᵀ's, numbered left of Aᵀ
    cv.note(at.row_label, _axis_title_w(look) / 2, top + k * h / 2, tick1, yanchor="middle", angle=-90)
    cv.note(c.row_label, b_x - _ytick_w(n, look) - _axis_title_w(look) / 2, c_y + n * h / 2, tick1, yanchor="middle",
            angle=-90)
    bar_x = b_x - _ytick_w(n, look) - _axis_title_w(look) - cb_w + PAD if bar_left else b_x + m * w + PAD
    _c_finish(traces, c, zc, cv, (bar_x, c_y), n, w, h, look, hidden)
    if blocks:
        _block_lines(cv.shapes, "x4", "y4", False, blocks, k, n)
        _block_lines(cv.shapes, "x2", "y2", False, blocks, k, m)
        for block_name, mid in _block_names(names, blocks, k, h, _note_h(1, tick1)):
            cv.note(block_name, b_x + m * w + PAD, top + mid * h, tick1, xanchor="left", yanchor="middle")
    spec = cv.spec(traces)
    outline_rule(spec.to_dict()["layout"], (n, m), cell_box("x4", "y4", "i", [1, k], 3),
                 cell_box("x2", "y2", "j", [1, k], 3), cell_box("x3", "y3", "j", "i", 3))
    return spec


def product_figure(a: Mat, b: Mat, c: Mat, *, text: bool, formula: str, words, look: Look = DESK,
                   hidden: tuple[int, int] | None = None, blocks: int = 0, block_names: Sequence[str] = ()) -> Spec:
    """A·B = C. Traces: 0 A, 1 B, 2 C, 3 the click layer over C; a clicked cell of C is outlined with its row of A
    and column of B (outline_rule: the page draws the outlines).

    `hidden` (0-based) blanks one cell of C and writes "?" there, for a quiz.
    `blocks` > 0 splits the inner dimension into blocks of that size (one per head): lines between
    the column blocks of A and the row blocks of B, B's blocks named with `block_names`. A trimmed matrix
    says on its title which part is drawn (`words`, a base.Words), B's title which blocks are not.
    Laid out for `look`: as wide and tall as it allows. Where the inner dimension is the longest and the cross leaves
    numbers unwritten that another layout writes: the long one (_Long: A on top, B and C under it), A, B and C in one
    row where that writes larger numbers (_row: a projector's first screen), or on a phone Aᵀ beside B (_side_plan).
    Otherwise, on a phone, stacked when the cross would be too small.
    """
    n, k, m = product_window(a.values, b.values, blocks)
    if hidden is not None:
        blank = np.array(c.values, dtype=float)
        blank[hidden] = np.nan
        c = Mat(blank, c.name, c.kind, c.row_label, c.col_label, c.mask)
    za, zb, zc = a.values[:n, :k], b.values[:k, :m], c.values[:n, :m]
    n_blocks = -(-k // blocks) if blocks else 0
    names = list(block_names[:n_blocks])
    hidden_note = words.hidden(n_blocks + 1, len(block_names)) if blocks else ""
    titles = [_title(a, n, k, "", words), _title(b, k, m, hidden_note, words), _title(c, n, m, "", words)]

    left = _axis_title_w(look) + PAD + _ytick_w(n, look)
    gap_x = _ytick_w(k, look) + PAD
    cb_w = 10 + PAD + widest(_colour_ticks(c, zc, 99, look)[1], look.tick) + 2 * PAD
    right = max(cb_w, max((_wide([s], look.tick + 1) for s in names), default=0) + 2 * PAD)
    needs = _c_needs(text, c, zc, look)
    budget_h = look.max_h
    for _ in range(12):  # titles wrap to the widths the cells give; shrink the cells if the figure is too tall
        cell, inner = _cross_cells(n, k, m, look.max_w - left - gap_x - right, budget_h, look.cell, needs)
        plan = _plan(Cross(n, k, m, cell, inner, left, gap_x, right), titles, formula, look)
        if math.ceil(plan.height) <= look.fig_h or budget_h <= 40:
            break
        if lower := _lower_rows(plan, ((a, za), (b, zb), (c, zc)), text, titles, formula, look):
            plan = lower  # the same columns and numbers, in lower rows
            break
        budget_h = max(40.0, budget_h - (math.ceil(plan.height) - look.fig_h) - 1)
    panels = ((a, za), (b, zb), (c, zc))
    if text and plan.geo.inner < plan.geo.cell and (wide := _unsqueezed(plan, panels, titles, formula, look)):
        plan = wide
    row, inner_h = plan.geo.row_h, plan.geo.inner_h
    if text and not look.narrow and k > max(n, m) and not all(_numbers(text, *panel, look) for panel in (
            (a, za, inner, row), (b, zb, cell, inner_h), (c, zc, cell, row))):  # a long k leaves some unwritten
        long = _long_plan((za, zb, zc), titles, names, formula, cb_w, look, blocks)
        row = None if blocks else _row(a, b, c, (n, k, m), titles, cb_w, look)
        if row and (long is None or row[1] > long.size):  # a projector's first screen: A, B and C in a row
            return _stacked(row[0], a, b, c, look=look, hidden=hidden, blocks=0, names=[], window=(n, k, m))
        if long:
            return _draw_long(long, a, b, c, (za, zb, zc), names, hidden=hidden, blocks=blocks)
    if text and look.narrow and k > max(n, m) and not all(_numbers(text, *panel, look) for panel in (
            (a, za, inner, cell), (b, zb, cell, inner), (c, zc, cell, cell))):  # a phone: Aᵀ beside B, if that writes
        at = Mat(za.T, f"{a.name}<sup>T</sup>", a.kind, a.col_label, a.row_label, None if a.mask is None else
                 a.mask[:n, :k].T)
        side_titles = [f"<b>{at.name}</b> · {a.values.shape[1]}×{a.values.shape[0]}"
                       + (f" · {trim}" if (trim := words.trimmed(a.values.T.shape, (k, n))) else ""), *titles[1:]]
        side = _side_plan((za, zb, zc), side_titles, names, formula, cb_w, look)  # every number; the blocks'
        if side:  # names and the colour bar right of them only if they leave room for them
            return _draw_side(at, b, c, (za, zb, zc), formula, side, look=look, hidden=hidden, blocks=blocks)
    if look.narrow:  # a phone: stacked when the cross is too small, or squeezes A and B to strips for C's
        stack = _Grid([(a, n, k), (b, k, m), (c, n, m)], titles, look, per_row=1, text=text, axis_titles=True,
                      formula=formula,  # numbers while stacking gives C its numbers too
                      right=max((_wide([s], look.tick + 1) for s in names), default=-PAD) + PAD)  # B's block names
        if cell < STACK_BELOW or inner < cell / 2 and _numbers(text, c, zc, stack.cell, stack.cell, look):
            return _stacked(stack, a, b, c, look=look, hidden=hidden, blocks=blocks, names=names, window=(n, k, m))
    return _draw_cross(plan, a, b, c, (za, zb, zc), formula, text=text, look=look, hidden=hidden, blocks=blocks,
                       names=names)


def _least_row(m: Mat, z: np.ndarray, w: float, h: float, look: Look) -> float | None:
    """The lowest row (px) in which the numbers a panel writes in cells w × h still fit in the same format (their
    line and CELL_PAD: number_format); None for a panel that writes none."""
    written = _numbers(True, m, z, w, h, look)
    return number_line(written[1]) + CELL_PAD if written else None


def _lower_rows(plan: _Plan, panels, text: bool, titles: list[str], formula: str, look: Look) -> _Plan | None:
    """The cross of `plan` in rows lower than its columns are wide, just low enough for the figure to fit look.fig_h,
    with every number it writes still in the same format: the least row of a panel is its numbers' line and CELL_PAD
    (number_format). None if no such rows fit it."""
    if not text:
        return None
    geo = plan.geo
    (a, za), (b, zb), (c, zc) = panels

    lows = [_least_row(m, z, w, h, look) for m, z, w, h in ((a, za, geo.inner, geo.cell), (c, zc, geo.cell, geo.cell),
                                                            (b, zb, geo.cell, geo.inner))]
    if None in lows:  # a panel without numbers: its cells shrink as they would, not to strips
        return None
    rows_low, inner_low = max(lows[:2]), lows[2]
    for cut in range(1, math.ceil(max(geo.cell - rows_low, geo.inner - inner_low)) + 1):
        lower = replace(geo, rows=max(rows_low, geo.cell - cut), inner_rows=max(inner_low, geo.inner - cut))
        low = _plan(lower, titles, formula, look)
        if math.ceil(low.height) <= look.fig_h:
            return low
    return None


def _written(geo: Cross, panels, look: Look) -> int:
    """How many of the cross's panels (A, B, C) write their numbers."""
    (a, za), (b, zb), (c, zc) = panels
    return sum(_numbers(True, *panel, look) is not None for panel in (
        (a, za, geo.inner, geo.row_h), (b, zb, geo.cell, geo.inner_h), (c, zc, geo.cell, geo.row_h)))


def _unsqueezed(plan: _Plan, panels, titles: list[str], formula: str, look: Look) -> _Plan | None:
    """A cross whose C got its numbers by squeezing A's columns and B's rows to strips (held to a projector's first
    screen, where the height is short and the width is not): the same cross with every column as wide as the width
    gives, its rows lowered to fit look.fig_h, if that writes the numbers of more panels (audit 2026-12-07 #7: Eᵀ
    and LN_f(Y) as colour strips beside the logits)."""
    geo = plan.geo
    cell = min(look.cell, (look.max_w - geo.left - geo.gap_x - geo.right) / (geo.k + geo.m))
    wide = _plan(replace(geo, cell=cell, inner=cell, rows=0.0, inner_rows=0.0), titles, formula, look)
    if math.ceil(wide.height) > look.fig_h:
        wide = _lower_rows(wide, panels, True, titles, formula, look)
    return wide if wide and _written(wide.geo, panels, look) > _written(geo, panels, look) else None


def _draw_cross(plan: _Plan, a: Mat, b: Mat, c: Mat, zs, formula: str, *, text, look, hidden, blocks,
                names) -> Spec:
    geo = plan.geo
    n, k, m, cell, inner = geo.n, geo.k, geo.m, geo.cell, geo.inner
    row, inner_h = geo.row_h, geo.inner_h
    za, zb, zc = zs
    a_x, c_x, b_y, c_y = geo.left, geo.c_x, plan.b_y, plan.c_y
    a_w, c_w, c_h = geo.a_w, m * cell, n * row
    cv = Canvas(geo.width, plan.height)
    cv.axes("", a_x, c_y, k, n, inner, row, look)
    cv.axes("2", c_x, b_y, m, k, cell, inner_h, look, anchor="y", side="top")  # B's and C's columns: one axis,
    traces = [  # numbered between B and C
        _panel(a, "x", "y", za, inner, row, look, text),
        _panel(b, "x2", "y2", zb, cell, inner_h, look, text),
        _panel(c, "x2", "y", zc, cell, row, look, text,
               colorbar=_colour_bar(c, zc, cv, c_x + c_w + PAD, c_y, plan.cb_len, look)),
        click_layer(c, "x2", "y", size=max(6.0, min(cell, row) - 2)),
    ]
    if hidden is not None:
        traces.append(_question(hidden, "x2", "y", look))
    a_lines, b_lines, c_lines = plan.titles
    title, tick1 = look.title, look.tick + 1
    if plan.f_corner:
        corner = c_x - _ytick_w(k, look) - PAD
        centre = _clamp(a_x + a_w / 2, plan.f_lines, look.caption, PAD, corner)
        cv.lines(plan.f_lines, centre, b_y + k * inner_h / 2, look.caption, yanchor="middle")
    else:
        cv.lines(plan.f_lines, PAD, PAD, look.caption, xanchor="left", yanchor="top")
    cv.lines(b_lines, _clamp(c_x + c_w / 2, b_lines, title, 0, geo.width), b_y - PAD - _overhang(inner_h, look), title)
    cv.lines(a_lines, _clamp(a_x + a_w / 2, a_lines, title, 0, c_x - PAD), c_y - PAD - _overhang(row, look), title)
    c_lo, c_hi, c_top = plan.c_span
    cv.lines(c_lines, _clamp(c_x + c_w / 2, c_lines, title, c_lo, c_hi), c_top, title, yanchor="top")
    cv.note(a.row_label, _axis_title_w(look) / 2, c_y + c_h / 2, tick1, yanchor="middle", angle=-90)
    cv.note(a.col_label, a_x + a_w / 2, c_y + c_h + _xband(look), tick1, yanchor="top")
    cv.note(c.col_label, _clamp(c_x + c_w / 2, [c.col_label], tick1, c_x - PAD, geo.width), c_y - _xband(look),
            tick1)
    if blocks:
        _block_lines(cv.shapes, "x", "y", True, blocks, k, n)
        _block_lines(cv.shapes, "x2", "y2", False, blocks, k, m)
        for block_name, mid in _block_names(names, blocks, k, inner_h, _note_h(1, tick1)):
            cv.note(block_name, c_x + c_w + 2 * PAD, b_y + mid * inner_h, tick1, xanchor="left", yanchor="middle")
    return _outlined(cv.spec(traces), ("x", "y"), ("x2", "y2"), ("x2", "y"), (n, k, m), 4 if look.cell_text > 12 else 3)


def _outlined(spec: Spec, a, b, c, window: tuple[int, int, int], width: int) -> Spec:
    """The product, saying how a clicked cell (i, j) of C is outlined: row i of A, column j of B and the cell, on
    these panels' axes (x, y)."""
    n, k, m = window
    outline_rule(spec.to_dict()["layout"], (n, m), cell_box(*a, [1, k], "i", width), cell_box(*b, "j", [1, k], width),
                 cell_box(*c, "j", "i", width))
    return spec


def _colour_ticks(m: Mat, z: np.ndarray, room: float, look: Look) -> tuple[list[float], list[str]]:
    """Three labelled values on a colour bar (two when it is short): its ends and its middle."""
    if m.kind == "probs":
        vals = [0.0, 0.5, 1.0]
    else:
        lim = abs_limit(np.asarray(z, float))
        top = float(f"{lim:.2g}")
        top = top if top <= lim else lim
        vals = [0.0, top / 2, top] if m.kind == "magnitude" else [-top, 0.0, top]
    if room < 3 * 1.45 * look.tick + 12:
        vals = [vals[0], vals[-1]]
    return vals, [number(v, 2) for v in vals]


def _colour_bar(c: Mat, z: np.ndarray, cv: Canvas, x: float, y: float, length: float, look: Look) -> dict:
    """C's colour bar right of C, from C's top down, at least three labels long; labels that never touch."""
    vals, labels = _colour_ticks(c, z, length, look)
    return dict(thickness=10 if not look.narrow else 8, len=length / cv.height, lenmode="fraction",
                y=1 - y / cv.height, yanchor="top", x=x / cv.width, xanchor="left", xpad=0, ypad=0,
                tickvals=vals, ticktext=labels, tickfont=dict(size=look.tick), outlinewidth=0)


def _question(cell: tuple[int, int], xaxis: str, yaxis: str, look: Look) -> dict:
    return dict(type="scatter", x=[cell[1] + 1], y=[cell[0] + 1], mode="text", text=["?"],
                textfont=dict(size=look.caption, color=HIGHLIGHT), xaxis=xaxis, yaxis=yaxis, hoverinfo="skip",
                showlegend=False)


def _row(a: Mat, b: Mat, c: Mat, window: tuple[int, int, int], titles: list[str], cb_w: float, look: Look):
    """A, B and C side by side, top-aligned, in cells of one width and rows lower than wide where the look's height
    asks (_Grid), so that row i of A runs across to row i of C, and C's colour bar (`cb_w` px) right of C: a
    projector's first screen, where the long layout's A over B is too tall for its largest numbers (the lab's RoPE,
    Q_rot · K_rotᵀ, 3×7 · 7×3). No line for the formula: the signs between the panels say it (_stacked). (The grid,
    its numbers' smallest size), or None when it does not fit or a panel writes no numbers."""
    n, k, m = window
    grid = _Grid([(a, n, k), (b, k, m), (c, n, m)], titles, look, per_row=3, text=True, axis_titles=True,
                 right=cb_w)
    written = [_numbers(True, mat, mat.values[:r, :cols], grid.cell, grid.row, look) for mat, r, cols in grid.panels]
    return None if None in written or not grid.fits() else (grid, min(size for _, size in written))


def _stacked(grid: "_Grid", a: Mat, b: Mat, c: Mat, *, look: Look, hidden, blocks: int, names: list[str],
             window: tuple[int, int, int]) -> Spec:
    """A above B above C (`grid`), each as wide as a phone allows, when the cross would be too small for them; or A,
    B and C in one row (`_row`), written A · B = C, the signs between the panels at the height of A's and C's rows,
    and C's colour bar right of C.

    Rows and columns no longer meet; the selected row of A, column of B and cell of C are outlined, and the
    breakdown under the figure names them. Same traces as the cross, then C's click layer on axes x3, y3.
    """
    n, k, m = window
    cv, traces, corners = grid.draw()
    traces.append(click_layer(c, "x3", "y3", size=max(6.0, min(grid.cell, grid.row) - 2)))
    if grid.per_row == 3:
        (cx, cy), zc = corners[2], c.values[:n, :m]
        traces[2] |= dict(showscale=True, colorbar=_colour_bar(c, zc, cv, cx + m * grid.cell + PAD, cy,
                                                               max(n * grid.row, 3 * 1.45 * look.tick + 12), look))
        for (x, y), (x_next, _), cols, r, sign in ((*corners[:2], k, k, "·"), (*corners[1:], m, n, "=")):
            gap = x + cols * grid.cell, x_next - grid._left(r)  # the panel's right edge, the next one's slot
            cv.note(f"<b>{sign}</b>", sum(gap) / 2, y + n * grid.row / 2, look.caption, yanchor="middle")
    if hidden is not None:
        traces.append(_question(hidden, "x3", "y3", look))
    if blocks:
        _block_lines(cv.shapes, "x", "y", True, blocks, k, n)
        _block_lines(cv.shapes, "x2", "y2", False, blocks, k, m)
        (bx, by), tick1 = corners[1], look.tick + 1
        for block_name, mid in _block_names(names, blocks, k, grid.cell, _note_h(1, tick1)):
            cv.note(block_name, bx + m * grid.cell + PAD, by + mid * grid.cell, tick1, xanchor="left",
                    yanchor="middle")
    return _outlined(cv.spec(traces), ("x", "y"), ("x2", "y2"), ("x3", "y3"), window, 3)


# ---------------------------------------------------------------- small multiples


class _Grid:
    """Panels in rows of `per_row` (or as many as fit), one cell size, titles above, numbers left and below.

    `panels` are (Mat, rows drawn, cols drawn); `below` px are kept under each panel's column numbers, `right` px
    right of each row (for names written beside a panel). Cells are `cell` px wide and `row` px tall: square, or, off
    a phone, lower than wide where that keeps every panel's numbers within the look's height and square cells would
    have to shrink past them.
    """

    def __init__(self, panels, titles, look: Look, *, per_row: int | tuple[int, ...] | None, text: bool,
                 axis_titles: bool, below: float = 0.0, formula: str = "", right: float = 0.0):
        self.panels, self.titles, self.look, self.text = panels, titles, look, text
        self.below, self.formula, self.right = below, formula, right
        self.al = _axis_title_w(look) + PAD if axis_titles else 0.0
        self.per_row, self.cell, self.row = self._fit(per_row)

    def _left(self, rows: int) -> float:
        return self.al + _ytick_w(rows, self.look)

    def _rows(self, per_row: int | tuple[int, ...]) -> list[list[int]]:
        """The panels' indices row by row: `per_row` a row, or row lengths in turn (the last repeated)."""
        idx, rows, s = list(range(len(self.panels))), [], 0
        lengths = per_row if isinstance(per_row, tuple) else (per_row,)
        while s < len(idx):
            step = lengths[min(len(rows), len(lengths) - 1)]
            rows.append(idx[s:s + step])
            s += step
        return rows

    def _cell_for(self, per_row: int | tuple[int, ...]) -> tuple[float, float]:
        """(cell, row) px for this many a row: as big as the look allows; too tall, lower rows if that keeps every
        number (`_lower`), else smaller square cells."""
        look, rows = self.look, self._rows(per_row)
        fixed = [sum(self._left(self.panels[i][1]) for i in row) + (len(row) - 1) * PANEL_GAP + 2 * PAD
                 + self.right for row in rows]
        across = min((look.max_w - f) / sum(self.panels[i][2] for i in row) for f, row in zip(fixed, rows))
        tall = sum(max(self.panels[i][1] for i in row) for row in rows)
        cell = min(look.cell, across, look.cell if look.narrow else look.max_h / tall)
        wide = min(look.cell, across)  # square cells held by the height too small for numbers: wider, lower rows
        if self.text and not look.narrow and wide > cell and not self._numbers_fit(cell) \
                and (low := self._lower(per_row, wide)):  # (a projector's E[ids], 14 rows: audit 12-04 item 3)
            return wide, low
        too_big = None
        for _ in range(12):  # titles wrap to the panel widths; shrink if the figure ends up too tall
            over = math.ceil(self.measure(per_row, cell)[1]) - look.fig_h
            if look.narrow or over <= 0 or cell <= 2:
                break
            if low := self._lower(per_row, cell):
                return cell, low
            too_big, cell = cell, cell - over / tall - 0.25
        if too_big is not None and cell > 2:  # the steps overshoot: the largest cell between that still fits
            for _ in range(6):
                mid = (cell + too_big) / 2
                cell, too_big = (mid, too_big) if math.ceil(self.measure(per_row, mid)[1]) <= look.fig_h \
                    else (cell, mid)
        return max(cell, 2.0), max(cell, 2.0)

    def _lower(self, per_row: int | tuple[int, ...], cell: float) -> float | None:
        """The tallest row under `cell` px at which the grid fits the look's height with every panel's numbers
        written as in square cells of `cell` px; None if a panel writes none there or no such row fits."""
        if not self.text:
            return None
        lows = [_least_row(m, m.values[:r, :c], cell, cell, self.look) for m, r, c in self.panels]
        if None in lows:
            return None
        for row in range(math.floor(cell) - 1, math.ceil(max(lows)) - 1, -1):
            if math.ceil(self.measure(per_row, cell, row)[1]) <= self.look.fig_h:
                return float(row)
        return None

    def _numbers_fit(self, cell: float, row: float | None = None) -> bool:
        return all(_numbers(True, m, m.values[:r, :c], cell, row or cell, self.look) for m, r, c in self.panels)

    def _fit(self, per_row: int | None) -> tuple[int, float]:
        """How many panels a row, and the cell size: numbers when asked for and they fit somewhere, then the
        biggest cells, then fewer rows. A phone takes one or two a row: two if that costs no numbers, or if
        there are more than three panels."""
        if per_row:
            return (per_row, *self._cell_for(per_row))
        count = len(self.panels)
        options = [(p, *self._cell_for(p)) for p in range(1, (min(count, 2) if self.look.narrow else count) + 1)]
        if self.look.narrow:  # many panels: two a row even without numbers, or the page gets very long
            two = [(p, c, r) for p, c, r in options if p == 2 and (c >= 3 if count > 3 else c >= 8 and (
                not self.text or self._numbers_fit(c)))]
            return two[0] if two else options[0]
        return max(options, key=lambda pcr: (self.fits(*pcr), self.text and self._numbers_fit(pcr[1], pcr[2]),
                                             round(pcr[1], 1), pcr[0]))

    def fits(self, per_row: int | None = None, cell: float | None = None, row: float | None = None) -> bool:
        """Within the look's width (and, off a phone, its height), with cells of at least MIN_GRID_CELL px."""
        per_row, cell = per_row or self.per_row, cell or self.cell
        width, height, _ = self.measure(per_row, cell, row or (self.row if cell == self.cell else cell))
        return cell >= MIN_GRID_CELL and width <= self.look.max_w + 1 and (
            self.look.narrow or math.ceil(height) <= self.look.fig_h)

    def measure(self, per_row: int, cell: float, row_h: float | None = None):
        """(width, height, [(panel, x, y, title lines, title's left and right limits)]) in px for this many a
        row, this cell width and this row height (`cell`, unless given)."""
        look, row_h = self.look, row_h or cell
        under = _xband(look) + self.below + (_note_h(1, look.tick + 1) if self.al else 0)
        y = PAD + (_note_h(len(self._formula_lines()), look.caption) + PAD if self.formula else 0)
        width, places = 0.0, []
        for row in self._rows(per_row):
            x, row_places, most = 0.0, [], 1
            for i in row:
                _, r, c = self.panels[i]
                left, body = self._left(r), c * cell
                margin = PAD if i == row[-1] else PANEL_GAP / 2  # how far a title may reach past its panel
                lines = _lines(self.titles[i], look.title, left + body + margin)
                span = max(left + body, _wide(lines, look.title) - margin)  # a narrow panel (64×1) widens its slot
                most = max(most, len(lines))
                row_places.append((i, x + (span - left - body) / 2 + left, lines, x, x + span + margin))
                x += span + PANEL_GAP
            width = max(width, x - PANEL_GAP + 2 * PAD + self.right)
            y_panel = y + _note_h(most, look.title) + PAD + _overhang(row_h, look)
            places += [(i, px, y_panel, lines, lo, hi) for i, px, lines, lo, hi in row_places]
            y = y_panel + max(self.panels[i][1] for i in row) * row_h + under + PANEL_GAP
        return width, y - PANEL_GAP + PAD, places

    def _formula_lines(self) -> list[str]:
        return _lines(self.formula, self.look.caption, self.look.max_w - 2 * PAD) if self.formula else []

    def draw(self) -> tuple[Canvas, list[dict], list[tuple[float, float]]]:
        """Traces (one heatmap per panel, axes x, x2, …), axes and titles; top left corner (px) of each panel."""
        look, cell, row_h = self.look, self.cell, self.row
        width, height, places = self.measure(self.per_row, cell, row_h)
        cv = Canvas(width, height)
        if self.formula:
            cv.lines(self._formula_lines(), PAD, PAD, look.caption, xanchor="left", yanchor="top")
        traces, corners, tick1 = [], [], look.tick + 1
        for i, px, py, lines, lo, hi in places:
            m, r, c = self.panels[i]
            suffix = "" if i == 0 else str(i + 1)
            z = m.values[:r, :c]
            cv.axes(suffix, px, py, c, r, cell, row_h, look)
            traces.append(_panel(m, f"x{suffix}", f"y{suffix}", z, cell, row_h, look, self.text))
            corners.append((px, py))
            left = self._left(r)
            centre = _clamp(px + c * cell / 2, lines, look.title, lo, hi)
            cv.lines(lines, centre, py - PAD - _overhang(row_h, look), look.title)
            if self.al:
                cv.note(m.row_label, px - left + _axis_title_w(look) / 2, py + r * row_h / 2, tick1,
                        yanchor="middle", angle=-90)
                cv.note(m.col_label, px + c * cell / 2, py + r * row_h + _xband(look) + self.below, tick1,
                        yanchor="top")
        return cv, traces, corners


def colour_only(grid: "_Grid") -> float:
    """Patterns (every panel S, on one scale from 0 to 1) asked for their numbers, with cells too small for any:
    the px a colour bar takes right of the grid; else 0."""
    if not grid.text or any(m.kind != "probs" for m, _, _ in grid.panels) or any(
            _numbers(True, m, m.values[:r, :c], grid.cell, grid.row, grid.look) for m, r, c in grid.panels):
        return 0.0
    m, r, c = grid.panels[0]
    return 10 + PAD + widest(_colour_ticks(m, m.values[:r, :c], 99, grid.look)[1], grid.look.tick) + 2 * PAD


def grid_figure(mats: Sequence[Mat], *, text: bool, words, look: Look = DESK, block_cols: int = 0,
                block_names: Sequence[str] = (), axis_titles: bool = False,
                per_row: int | tuple[int, ...] | None = None) -> Spec:
    """Matrices as small multiples, one cell size, as many a row as the screen allows (one or two on a phone).

    Each matrix is drawn up to look.side rows and columns, fewer (24, 12) when that many would not fit with
    cells of MIN_GRID_CELL px. `per_row`: how many panels a row, or each row's count in turn (the last repeated);
    None: as many as fit. Each title names its matrix, its full shape and (if trimmed) which part is
    drawn (`words`, a base.Words). `block_cols` marks column blocks, named under the blocks (below the column
    numbers); the title says which blocks are not drawn. `axis_titles` writes each panel's row and column
    words (Mat.row_label, col_label) beside its axes.
    """
    tick1 = look.tick + 1
    below = _note_h(1, tick1) if block_cols and block_names else 0.0
    for limit in sorted({look.side, 24, 12}, reverse=True):  # less of each matrix rather than unreadable cells
        panels, titles, names = [], [], []
        for m in mats:
            r, c = drawn(m.values.shape[0], limit=limit), drawn(m.values.shape[1], block_cols, limit)
            count = -(-c // block_cols) if block_cols else 0
            note = words.hidden(count + 1, len(block_names)) if block_cols and block_names else ""
            panels.append((m, r, c))
            titles.append(_title(m, r, c, note, words))
            names.append(list(block_names[:count]))
        grid = _Grid(panels, titles, look, per_row=per_row, text=text, axis_titles=axis_titles, below=below)
        if grid.fits() or limit <= 12:
            break
    scale = colour_only(grid)
    if scale:  # its colours' key, right of the first row (audit 2026-12-07 #5: 17×17 patterns, no number, no key)
        grid = _Grid(panels, titles, look, per_row=per_row, text=text, axis_titles=axis_titles, below=below,
                     right=scale)
    cv, traces, corners = grid.draw()
    if scale:  # (narrower for the key, its cells are no larger: still none of them holds a number)
        (m, r, c), (px, py) = panels[0], corners[0]
        traces[0] |= dict(showscale=True, colorbar=_colour_bar(m, m.values[:r, :c], cv, cv.width - scale + PAD, py,
                                                               r * grid.row, look))
    for idx, ((_, r, c), (px, py)) in enumerate(zip(panels, corners)):
        suffix = "" if idx == 0 else str(idx + 1)
        if block_cols:
            _block_lines(cv.shapes, f"x{suffix}", f"y{suffix}", True, block_cols, c, r, width=3, dash=None)
        name_w = max((_wide([name], tick1) for name in names[idx]), default=0.0)
        for block_name, mid in _block_names(names[idx], block_cols, c, grid.cell, name_w):
            cv.note(block_name, px + mid * grid.cell, py + r * grid.row + _xband(look), tick1, yanchor="top")
    return cv.spec(traces)
