"""QKᵀ → ÷√d_k → mask → softmax as Plotly frames, on one board that no frame changes.

Every element has a place fixed in pixels before any frame is drawn (margins do not auto-expand):
Kᵀ top right, Q bottom left, the scores/S panel bottom right where a row of Q meets a column of Kᵀ,
a Σ column right of it, then the two colour bars (signed scores; S in 0..1), and below: the panel
title, Play/Pause with the frame's sentence beside them, and the slider naming each phase. Frames
change trace data only: which cells are filled, the −∞ marks, the Σ=1 marks, outlines and the sentence.
"""

from dataclasses import dataclass, replace

import numpy as np

from .base import (
    CELL_PAD,
    DESK,
    HIGHLIGHT,
    MAX_SIDE,
    MAX_TEXT_SIDE,
    PROBS,
    SIGNED,
    Look,
    Mat,
    Spec,
    abs_limit,
    axis_spec,
    figure,
    fits,
    general,
    heatmap,
    hover_by_frame,
    hover_upto,
    number,
    number_cell,
    number_format,
    number_formats,
    outline,
    outline_rule,
    patch,
    shown,
    slider_words,
    trace_box,
)
from .text import FONT, text_px, widest, wrap

PHASES = ("qkt", "scaled", "masked", "s")  # QKᵀ, ÷√d_k, masked, S: ids used in links
GIVEN_PHASES = PHASES[1:]  # a given matrix (the post's mask example) starts already scaled
MASK_GREY = "#c4c8cf"  # a masked (−∞) cell
BG = "#ffffff"  # an empty cell (not computed yet) and the gaps between cells
MARK_LINE = 1.5  # em: the height a mark written in a row of cells needs (a line measured 1.4 em in Chromium)
FIGURE_EXTRA = 160  # px the titles, Play/Pause and the slider may add to the look's panel budget (max_h)


@dataclass(frozen=True)
class ScoreSteps:
    """The arrays of the QKᵀ → ÷√d_k → mask → softmax walk for one head, and its words.

    For a given matrix (the post's mask example) q, k and scores are None: the walk starts at `scaled`.
    """

    scaled: np.ndarray  # (n, n) QKᵀ/√d_k, or the given matrix
    masked: np.ndarray  # −inf above the diagonal
    probs: np.ndarray  # S
    names: dict  # q, kt, scores, probs -> display names (HTML); scores names the signed panel
    words: dict  # see WORDS
    q: np.ndarray | None = None  # (n, d_k)
    k: np.ndarray | None = None  # (n, d_k): drawn transposed, as Kᵀ
    scores: np.ndarray | None = None  # (n, n) QKᵀ

    @property
    def phases(self) -> tuple[str, ...]:
        return PHASES if self.q is not None else GIVEN_PHASES


# What `words` holds: play, pause; step_<phase> (short slider labels) and cap_<phase> (the sentence at
# rest); fill {i} {j}, fill_rows and softmax_rows (.format(a=first, b=last): one row is said as one) (frame
# sentences); shown {rows} {cols} (a windowed matrix's title); slider (the slider's name for a screen reader) and
# slider_step {k} {count} {step} {caption} (each step's words for it); token, feature, key (what a row or column
# counts, in hover text); pending (a cell's hover text on a frame before it is computed).
WORDS = ("play", "pause", *(f"step_{p}" for p in PHASES), *(f"cap_{p}" for p in PHASES), "fill", "fill_rows",
         "softmax_rows", "shown", "slider", "slider_step", "token", "feature", "key", "pending")


def inner_window(n: int, d_k: int) -> int:
    """How many of the d_k columns of Q (rows of Kᵀ) to draw: all of a small d_k; otherwise enough to see
    the pattern, never so many that Q and Kᵀ dwarf the n×n scores this figure is about."""
    return d_k if d_k <= max(MAX_TEXT_SIDE, n) and d_k <= MAX_SIDE else min(max(12, n), MAX_SIDE)


def strings(z: np.ndarray, decimals: int | None) -> list[list[str]]:
    if decimals is None:
        return []
    return [[number(v, decimals) for v in row] for row in np.asarray(z, float)]


def _written(z: np.ndarray, chosen: tuple[int, int] | None) -> tuple[list[list[str]], int] | None:
    """z's cell numbers in the format `chosen` (font size, decimals), for heatmap's `numbers`; None for none."""
    return None if chosen is None else (strings(z, chosen[1]), chosen[0])


def fit_decimals(values: list[np.ndarray], cell: int, size: int) -> int | None:
    """The most decimals (2, else 1) at which every number of `values` fits its cell; None if none does."""
    for decimals in (2, 1):
        if fits((number(v, decimals) for a in values for v in np.ravel(a)), size, cell):
            return decimals
    return None


# ---------------------------------------------------------------------------------------------- the board
# ---------------------------------------------------------------------------------------------- the board

@dataclass(frozen=True)
class Board:
    """Pixel geometry of the figure, from its top-left corner. Panels: Q (n × k), Kᵀ (k × n), the scores/S
    panel (n × n); k = 0 leaves Q and Kᵀ out (a phone, or a given matrix).

    Play/Pause and the frame's sentence go where there is room: in the empty corner above Q ("top"), else
    under the panel title, the sentence beside the buttons ("beside") or on a row of its own ("below").
    The slider runs along the bottom.
    """

    n: int
    k: int
    cell: int
    look: Look
    cb_w: tuple[float, float]  # the two colour bars with their labels and titles
    buttons_w: float
    q_title_lines: int = 1
    s_title_lines: int = 1
    caption_lines: int = 1
    place: str = "beside"  # where Play/Pause and the sentence go: "top", "beside" or "below"
    reach: int = 0  # px the paper spans at least: a projector's sentence on one line past the colour bars

    # across
    @property
    def left(self) -> float:  # row numbers of Q (or of the S panel) sit left of this
        return text_px("9" * len(str(self.n)), self.look.tick) + 10

    @property
    def gap_x(self) -> float:  # between Q and the S panel: room for Kᵀ's row numbers
        return max(text_px("9" * len(str(self.k)), self.look.tick) + 12, 14) if self.k else 0

    @property
    def s_x(self) -> float:
        return self.left + self.k * self.cell + self.gap_x

    @property
    def sigma_x(self) -> float:
        return self.s_x + self.n * self.cell + 6

    @property
    def sigma_size(self) -> int:
        """A line of text is about 1.4 em tall: Σ=1 fits its row. Where that is under the screen's smallest type
        (look.least), it is written once, at full size, in the middle of the rows done (scores_animation)."""
        fit = int(self.cell / MARK_LINE)
        return max(8, min(self.look.tick + 1, fit)) if fit >= self.look.least else self.look.tick + 1

    @property
    def sigma_w(self) -> float:
        return text_px("Σ=1", self.sigma_size) + 8

    @property
    def cb_x(self) -> tuple[float, float]:
        first = self.sigma_x + self.sigma_w + 10
        return first, first + self.cb_w[0] + 10

    @property
    def panels_w(self) -> int:  # the panels and their colour bars
        return int(np.ceil(self.cb_x[1] + self.cb_w[1] + 4))

    @property
    def width(self) -> int:
        return max(self.panels_w, self.reach)

    @property
    def corner_w(self) -> float:  # the empty corner above Q, left of Kᵀ's row numbers
        return self.s_x - self.gap_x - 4

    @property
    def caption_x(self) -> float:
        return self.left + self.buttons_w + 12 if self.place == "beside" else self.left

    @property
    def caption_w(self) -> float:
        return (self.corner_w if self.place == "top" else self.width - 4) - self.caption_x

    # down
    def lines_h(self, lines: int, size: int) -> float:
        """Height of a text of `lines` lines (measured: a line is 1.3 em; sub- and superscripts make it taller)."""
        return lines * size * 1.35 + 6

    def titles_h(self, lines: int) -> float:
        """A bold title with sub- and superscripts (Q₁, K₁ᵀ): about 2 em a line at 13 px, 1.8 em at 18 px."""
        return lines * (self.look.title * 1.6 + 5) + 4

    @property
    def title_h(self) -> float:
        return self.titles_h(1)

    @property
    def kt_y(self) -> float:
        return self.title_h if self.k else 4

    @property
    def gap_y(self) -> float:  # above the S panel: its column numbers and the colour bars' titles (Q's title
        return self.look.tick + 14  # sits in the empty corner above Q, clear of Kᵀ and its row numbers)

    @property
    def s_y(self) -> float:
        return self.kt_y + self.k * self.cell + self.gap_y

    @property
    def corner_h(self) -> float:  # from the top down to Q's title
        return self.s_y - self.titles_h(self.q_title_lines) - 4

    @property
    def s_title_y(self) -> float:  # under Q's column numbers
        return self.s_y + self.n * self.cell + (self.look.tick + 8 if self.k else 4)

    @property
    def buttons_y(self) -> float:
        return 4 if self.place == "top" else self.s_title_y + self.titles_h(self.s_title_lines)

    @property
    def buttons_h(self) -> float:
        return self.look.tick + 26  # a button is about its font size (tick + 1) + 22 px tall

    @property
    def caption_y(self) -> float:
        return self.buttons_y + (0 if self.place == "beside" else self.buttons_h + 4)

    @property
    def caption_h(self) -> float:
        return max(self.lines_h(self.caption_lines, self.look.caption), self.buttons_h if self.place == "beside" else 0)

    @property
    def slider_y(self) -> float:
        if self.place == "top":
            return self.s_title_y + self.titles_h(self.s_title_lines) + 2
        return self.caption_y + self.caption_h + 2

    @property
    def slider_w(self) -> float:
        return self.panels_w - 4 - self.left

    @property
    def height(self) -> int:
        return int(np.ceil(self.slider_y + 2 * self.look.tick + 34))

    # paper fractions (no margins: the paper is the figure)
    def fx(self, px: float) -> float:
        return round(px / self.width, 5)

    def fy(self, px: float) -> float:
        return round(1 - px / self.height, 5)

    def span_x(self, x0: float, w: float) -> list[float]:
        return [self.fx(x0), self.fx(x0 + w)]

    def span_y(self, y0: float, h: float) -> list[float]:
        return [self.fy(y0 + h), self.fy(y0)]


def colourbar_labels(lim: float) -> tuple[list[float], list[str]]:
    """Ticks of the signed colour bar: −L, 0, L with L = the limit cut to two significant digits."""
    top = float(f"{lim:.2g}")
    top = top if top <= lim else float(f"{lim * 0.95:.2g}")
    return [-top, 0.0, top], [number(-top, 2), "0", number(top, 2)]


PROB_TICKS = ([0.0, 0.5, 1.0], ["0", "0.5", "1"])


def board(n: int, k: int, look: Look, cb_titles: tuple[str, str], signed_ticks: list[str], words: dict,
          captions: list[str], titles: tuple[str, str], least: float = 0) -> Board:
    """The largest square cell (up to the look's target) at which the panels fit the look's budget (max_w,
    max_h) and the whole figure its height plus FIGURE_EXTRA; the controls placed where they fit. A cell of `least`
    px (the one that writes Q's and Kᵀ's numbers) where a smaller one came out and the figure still fits the look's
    width and its tallest figure (fig_h): a projector's budget is tight, and Q without numbers reads "0" for 0.045."""
    def cb_width(title: str, ticks: list[str]) -> float:
        bar = max(8, look.tick) + 6 + widest(ticks, look.tick)
        return max(bar, text_px(title, look.tick + 1)) + 6

    cb_w = (cb_width(cb_titles[0], signed_ticks), cb_width(cb_titles[1], PROB_TICKS[1]))
    buttons_w = sum(text_px(words[w], look.tick + 1) + 26 for w in ("play", "pause"))
    probe = Board(n, k, 0, look, cb_w, buttons_w)
    target = 56 if look.narrow else look.cell_text * 4
    across = (look.max_w - probe.width) / (n + k)
    down = (look.max_h - (probe.s_y - probe.kt_y)) / (n + k)
    b = Board(n, k, int(max(3, min(target, across, down))), look, cb_w, buttons_w)
    while b.cell > 3 and _placed(b, titles, captions).height > look.max_h + FIGURE_EXTRA:
        b = Board(n, k, b.cell - 1, look, cb_w, buttons_w)
    if b.cell < least:
        wider = _placed(Board(n, k, int(np.ceil(least)), look, cb_w, buttons_w), titles, captions)
        if wider.width <= look.max_w and wider.height <= look.fig_h:
            return wider
    return _placed(b, titles, captions)


def _placed(b: Board, titles: tuple[str, str], captions: list[str]) -> Board:
    """`b` with the controls where they fit and the titles' and sentences' line counts at its width."""
    def lines(texts: list[str], size: int, width: float) -> int:
        return max(len(wrap(text, size, width)) for text in texts)

    n, k, look, cb_w, buttons_w = b.n, b.k, b.look, b.cb_w, b.buttons_w
    q_lines = lines([titles[0]], look.title, b.corner_w - 2) if k else 0
    s_lines = lines([titles[1]], look.title, b.width - 8)
    for place in ("top", "beside", "below"):
        b = Board(n, k, b.cell, look, cb_w, buttons_w, q_lines, s_lines, 1, place)
        c_lines = lines(captions, look.caption, b.caption_w)
        b = Board(n, k, b.cell, look, cb_w, buttons_w, q_lines, s_lines, c_lines, place)
        if place == "top" and k and b.caption_w > 40 and b.buttons_w <= b.corner_w - b.left \
                and b.caption_y + b.caption_h <= b.corner_h:
            return b
        if place == "beside" and c_lines <= 2:
            return b
    if look.screen_h and c_lines > 1:  # a projector's sentence on one line, past the colour bars, where the main
        # column has room for it (audit 2026-12-07 #11: in a 360 px column, "每 / 行加起来等于 1")
        wide = replace(b, reach=int(np.ceil(b.caption_x + widest(captions, look.caption) + 12)), caption_lines=1)
        if wide.width <= look.max_w and lines(captions, look.caption, wide.caption_w) == 1:
            return wide
    return b


# ---------------------------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class Frame:
    """What one frame shows on the scores/S panel, and what it outlines."""

    phase: str
    caption: str
    signed: np.ndarray  # (n, n), NaN where no signed value is drawn
    probs: np.ndarray  # (n, n), NaN where no probability is drawn (masked cells stay grey)
    masked: bool  # the mask is down: grey cells above the diagonal
    softmaxed: int  # rows 1..softmaxed hold S: their masked cells read "0", the rest "−∞"
    q_rows: tuple[int, int] | None = None  # 0-based inclusive ranges to outline
    kt_col: int | None = None
    s_rows: tuple[int, int] | None = None
    s_col: int | None = None


def _chunks(n: int, most: int = 10) -> list[range]:
    """Rows 0..n-1 in at most `most` consecutive groups (one frame each)."""
    step = -(-n // most)
    return [range(s, min(s + step, n)) for s in range(0, n, step)]


def _rows_caption(words: dict, key: str, rows: range) -> str:
    a, b = rows[0] + 1, rows[-1] + 1
    return words[f"{key}_rows"].format(a=a, b=b)  # the words say one row as one row


def score_frames(s: ScoreSteps, n: int, by_cell: bool, most: int = 10) -> list[Frame]:
    """Fill QKᵀ (cell by cell, or in at most `most` groups of rows), ÷√d_k, the mask, softmax by rows."""
    words = s.words
    nan = np.full((n, n), np.nan)
    upper = np.triu(np.ones((n, n), bool), k=1)
    scaled, masked, probs = (shown(a)[:n, :n] for a in (s.scaled, s.masked, s.probs))
    probs = np.where(upper, np.nan, probs)  # exact zeros, drawn as the grey of the mask and labelled 0
    frames = []
    if s.scores is not None:
        scores = shown(s.scores)[:n, :n]
        if by_cell:
            for f in range(n * n):
                i, j = divmod(f, n)
                z = nan.copy()
                z.flat[: f + 1] = scores.flat[: f + 1]
                frames.append(Frame("qkt", words["fill"].format(i=i + 1, j=j + 1), z, nan, False, 0,
                                    (i, i), j, (i, i), j))
        else:
            for rows in _chunks(n, most):
                z = nan.copy()
                z[: rows[-1] + 1] = scores[: rows[-1] + 1]
                frames.append(Frame("qkt", _rows_caption(words, "fill", rows), z, nan, False, 0,
                                    (rows[0], rows[-1]), None, (rows[0], rows[-1])))
    frames.append(Frame("scaled", words["cap_scaled"], scaled, nan, False, 0))
    frames.append(Frame("masked", words["cap_masked"], masked, nan, True, 0))
    for rows in _chunks(n, most):
        done = rows[-1] + 1
        z_s, z_p = masked.copy(), nan.copy()
        z_s[:done], z_p[:done] = np.nan, probs[:done]
        frames.append(Frame("s", _rows_caption(words, "softmax", rows), z_s, z_p, True, done,
                            s_rows=(rows[0], rows[-1])))
    return frames


def rest_index(frames: list[Frame], phase: str) -> int:
    """The frame a phase rests on: its last (the phase complete)."""
    return max(i for i, f in enumerate(frames) if f.phase == phase)


# ---------------------------------------------------------------------------------------------- traces

def _text_trace(xaxis: str, yaxis: str, x: list, y: list, text: list, size: int, color="#374151",
                position="middle center") -> dict:
    return dict(type="scatter", x=x, y=y, text=text, mode="text", textposition=position,
                textfont=dict(size=size, color=color, family=FONT), xaxis=xaxis, yaxis=yaxis, hoverinfo="skip",
                showlegend=False, cliponaxis=False)


def _shape_title(name: str, full: tuple[int, int], drawn: tuple[int, int], words: dict) -> str:
    """"<b>Q₁</b> · 3×7", and what is drawn when that is less than the whole matrix."""
    text = f"<b>{name}</b> · {full[0]}×{full[1]}"
    if tuple(drawn) != tuple(full):
        text += " · " + words["shown"].format(rows=drawn[0], cols=drawn[1])
    return text


def _title(b: Board, text: str, centre: float, lo: float, hi: float, y: float, yanchor: str = "bottom") -> dict:
    """A title centred on `centre` px, kept within lo..hi px (moved, and broken into lines if it must)."""
    size = b.look.title
    lines = wrap(text, size, hi - lo)
    width = widest(lines, size)
    x = min(max(centre, lo + width / 2), hi - width / 2)
    return dict(text="<br>".join(lines), x=b.fx(x), y=b.fy(y), xref="paper", yref="paper", xanchor="center",
                yanchor=yanchor, showarrow=False, font=dict(size=size))


def _by_cell(s: ScoreSteps, look: Look, n: int) -> bool:
    """QKᵀ filled one cell a frame (q_i · k_j said for each): a few tokens of a model's scores, beside Q and Kᵀ."""
    return s.q is not None and look.operands and n <= 4


def _plan(s: ScoreSteps, look: Look) -> tuple:
    """What the figure's frames and layout follow from: n drawn (and in all), Q's columns drawn, whether Q and Kᵀ are
    drawn, the board, the two titles, the signed colour bar's ticks and its limit."""
    words, names = s.words, s.names
    operands = s.q is not None and look.operands
    n_full = s.scaled.shape[0]
    n = min(n_full, MAX_SIDE)
    k = inner_window(n_full, s.q.shape[1]) if operands else 0
    lim = abs_limit(shown(s.scores if s.scores is not None else s.scaled))
    ticks = colourbar_labels(lim)
    captions = [f.caption for f in score_frames(s, n, by_cell=_by_cell(s, look, n))]
    captions += [words[f"cap_{p}"] for p in s.phases] + [words[f"{key}_rows"].format(a=n, b=n)
                                                         for key in ("fill", "softmax")]
    s_title = _shape_title(f"{names['scores']} → {names['probs']}", (n_full, n_full), (n, n), words)
    q_title = _shape_title(names["q"], (n_full, s.q.shape[1]), (n, k), words) if k else ""
    least = 0.0
    if k and max(n, k) <= MAX_TEXT_SIDE:  # the cell Q's and Kᵀ's numbers need, in the smallest format there is
        size, decimals = number_formats(look)[-1]
        least = number_cell(np.concatenate([shown(s.q)[:n, :k].ravel(), shown(s.k)[:n, :k].ravel()]), size,
                            decimals, look)
    b = board(n, k, look, (names["scores"], names["probs"]), ticks[1], words, captions, (q_title, s_title), least)
    return n, n_full, k, operands, b, (q_title, s_title), ticks, lim


def animation_frames(s: ScoreSteps, look: Look = DESK) -> list[Frame]:
    """The frames `scores_animation(s, look=look)` draws, in its slider's order: what its frame k shows."""
    n, _, _, operands, b, *_ = _plan(s, look)
    return _frames_for_slider(s, n, operands, b)[0]


def cell_decimals(s: ScoreSteps, *, text: bool, look: Look = DESK) -> tuple[int | None, int | None]:
    """The decimals `scores_animation(s, text=text, look=look)` writes in the scores' cells and in S's (None: no
    numbers in them), so that words about a cell can quote it as drawn (`number`)."""
    n, _, k, _, b, *_ = _plan(s, look)
    return _decimals(s, text, look, n, k, b.cell)


def _decimals(s: ScoreSteps, text: bool, look: Look, n: int, k: int, c: int) -> tuple[int | None, int | None]:
    cell_font = look.cell_text if c >= 38 else look.cell_text - 2
    if not (text and max(n, k) <= MAX_TEXT_SIDE and c >= look.min_text_cell):
        return None, None
    signed = [shown(a) for a in (s.scores, s.scaled) if a is not None]
    return fit_decimals(signed, c, cell_font), fit_decimals([shown(s.probs)], c, cell_font)


def scores_animation(s: ScoreSteps, *, text: bool, look: Look = DESK, phase: str = "s") -> Spec:
    """The walk as frames on one fixed board, resting on `phase` (its last frame).

    Traces (operands drawn): 0 Q, 1 Kᵀ, 2 mask (grey), 3 signed scores, 4 S, 5 "−∞"/"0" marks, 6 Σ=1, 7 the
    frame's sentence, 8-10 outlines (Q rows, S cells, a Kᵀ column), 11-12 colour bars, 13 click layer.
    Without operands (a phone, or a given matrix) Q, Kᵀ and their outlines are left out. Frames carry the
    traces from the mask to the outlines. A clicked cell (i, j) is outlined at rest in the outline traces: row i of
    Q, the cell, column j of Kᵀ (outline_rule: the page draws them).
    """
    words, names = s.words, s.names
    phase = phase if phase in s.phases else s.phases[-1]
    n, n_full, k, operands, b, (q_title, s_title), (ticks, tick_text), lim = _plan(s, look)
    c = b.cell
    frames, label_size = _frames_for_slider(s, n, operands, b)
    rest = rest_index(frames, phase)

    cell_font = look.cell_text if c >= 38 else look.cell_text - 2
    dec_signed, dec_probs = _decimals(s, text, look, n, k, c)
    mark_size = cell_font if c >= text_px("−∞", cell_font) + CELL_PAD and c >= cell_font * MARK_LINE else 0
    upper = np.triu(np.ones((n, n), bool), k=1)
    grey = np.where(upper, 1.0, np.nan)
    blank = np.full((n, n), np.nan)
    sigma_rows = c >= b.sigma_size * MARK_LINE

    def cell_text(trace: dict, z: np.ndarray, decimals: int | None) -> dict:
        trace.update(texttemplate="%{text}" if decimals is not None else "", text=strings(z, decimals),
                     textfont=dict(size=cell_font))
        return trace

    def dynamic(f: Frame, marks: Frame) -> list[dict]:
        """The traces a frame changes; `marks` gives the outlines (the frame's own, or none at rest)."""
        ii, jj = np.nonzero(upper) if f.masked and mark_size else (np.zeros(0, int), np.zeros(0, int))
        if sigma_rows:
            sigma = ["Σ=1" if i < f.softmaxed else "" for i in range(n)]
        else:  # rows too thin for a mark each: one mark, in the middle of the rows done
            sigma = ["Σ=1" if f.softmaxed and i == (f.softmaxed - 1) // 2 else "" for i in range(n)]
        traces = [
            heatmap(Mat(grey, "mask"), "x2", "y", False, z=grey if f.masked else blank, zlim=1.0, cell=c, look=look)
            | dict(colorscale=[[0, MASK_GREY], [1, MASK_GREY]], hoverinfo="skip", hovertemplate=None),
            cell_text(heatmap(Mat(s.scaled, names["scores"], row_label=words["token"], col_label=words["key"]), "x2",
                              "y", False, z=f.signed, zlim=lim, cell=c, look=look), f.signed, dec_signed),
            cell_text(heatmap(Mat(s.probs, names["probs"], "probs", words["token"], words["key"]), "x2", "y", False,
                              z=f.probs, cell=c, look=look), f.probs, dec_probs),
            _text_trace("x2", "y", (jj + 1).tolist(), (ii + 1).tolist(),
                        ["0" if i < f.softmaxed else "−∞" for i in ii], mark_size or 1),
            _text_trace("x3", "y", [0] * n, list(range(1, n + 1)), sigma, b.sigma_size, color="#9a3412",
                        position="middle right"),
            _text_trace("x4", "y4", [0], [0.5], ["<br>".join(wrap(f.caption, look.caption, b.caption_w))],
                        look.caption, color="#1f2937", position="middle right"),
        ]
        s_cols = (marks.s_col, marks.s_col) if marks.s_col is not None else (0, n - 1)
        s_rows = marks.s_rows or (0, 0)
        s_box = outline("x2", "y", s_cols[0] + 1, s_cols[1] + 1, s_rows[0] + 1, s_rows[1] + 1,
                        width=3 if marks.s_col is not None else 2, dash=None if marks.s_col is not None else "dot",
                        show=marks.s_rows is not None)
        if not operands:
            return [*traces, s_box]
        q_rows, col = marks.q_rows or (0, 0), marks.kt_col or 0
        return [*traces, outline("x", "y", 1, k, q_rows[0] + 1, q_rows[1] + 1, show=marks.q_rows is not None), s_box,
                outline("x2", "y2", col + 1, col + 1, 1, k, show=marks.kt_col is not None)]

    still = frames[rest]
    at_rest = dynamic(still, Frame("", "", still.signed, still.probs, False, 0))
    at_rest[5]["text"] = ["<br>".join(wrap(words[f"cap_{phase}"], look.caption, b.caption_w))]

    static = []
    if operands:
        q_drawn, kt_drawn = shown(s.q)[:n, :k], shown(s.k)[:n, :k].T
        # Q and Kᵀ as the products write them (Q on the qk stage): no fewer decimals than two, or no numbers
        q_format = number_format([q_drawn, kt_drawn], c, c, look) if dec_signed is not None else None
        static = [
            heatmap(Mat(q_drawn, names["q"], row_label=words["token"], col_label=words["feature"]), "x", "y", False,
                    cell=c, look=look, numbers=_written(q_drawn, q_format)),
            heatmap(Mat(kt_drawn, names["kt"], row_label=words["feature"], col_label=words["token"]), "x2", "y2",
                    False, cell=c, look=look, numbers=_written(kt_drawn, q_format)),
        ]
    bar = dict(thickness=max(8, look.tick), lenmode="pixels", len=n * c, y=b.fy(b.s_y + n * c), yanchor="bottom",
               xanchor="left", xpad=3, ypad=0, outlinewidth=0, ticks="", tickfont=dict(size=look.tick),
               tickmode="array")
    bars = [
        _colour_bar(SIGNED, -lim, lim, bar | dict(x=b.fx(b.cb_x[0]), tickvals=ticks, ticktext=tick_text,
                                                  title=dict(text=names["scores"], side="top",
                                                             font=dict(size=look.tick + 1)))),
        _colour_bar(PROBS, 0.0, 1.0, bar | dict(x=b.fx(b.cb_x[1]), tickvals=PROB_TICKS[0], ticktext=PROB_TICKS[1],
                                                title=dict(text=names["probs"], side="top",
                                                           font=dict(size=look.tick + 1)))),
    ]
    data = [*static, *at_rest, *bars, _click_layer(n, c)]
    first, click = len(static), len(data) - 1
    frame_specs = [dict(name=str(idx), traces=list(range(first, first + len(at_rest))),
                        data=[patch(tr) for tr in dynamic(f, f)], layout=hover_upto(_hover_upto(s, n, f)))
                   for idx, f in enumerate(frames)]
    layout = _layout(b, s, n_full, (q_title, s_title), frames, rest, label_size)
    hover_by_frame(layout, click, _hover_parts(s, n, names), words["pending"], _hover_upto(s, n, still))
    out = first + len(at_rest) - (3 if operands else 1)  # the outline traces: [Q's rows,] S's cells[, Kᵀ's column]
    solid = dict(color=HIGHLIGHT, width=3, dash=None)  # a clicked cell's (S's rows are dotted while softmaxed)
    if operands:
        boxes = [trace_box(out, [1, k], "i"), trace_box(out + 1, "j", "i", solid), trace_box(out + 2, "j", [1, k])]
    else:
        boxes = [trace_box(out, "j", "i", solid)]
    outline_rule(layout, (n, n), *boxes)
    return figure(data, layout, frame_specs)


def _colour_bar(scale: list, low: float, high: float, bar: dict) -> dict:
    """A colour bar on a trace with no points: it stays where it is in every frame, whatever the cells hold
    (a heatmap whose cells are all empty draws no colour bar)."""
    return dict(type="scatter", x=[None, None], y=[None, None], xaxis="x3", yaxis="y", mode="markers",
                marker=dict(color=[low, high], colorscale=scale, cmin=low, cmax=high, showscale=True, colorbar=bar),
                hoverinfo="skip", showlegend=False)


def _click_layer(n: int, c: int) -> dict:
    """Near-transparent squares over every cell of the scores/S panel, the trace a click is read from (named
    "click", as base.click_layer). Its hover text is the layout's (`_hover_parts`): what the cell has gone through
    by the frame shown."""
    ii, jj = np.mgrid[0:n, 0:n]
    return dict(
        type="scatter", x=(jj.ravel() + 1).tolist(), y=(ii.ravel() + 1).tolist(),
        customdata=np.stack([ii.ravel(), jj.ravel()], axis=1).tolist(), mode="markers",
        marker=dict(symbol="square", size=max(4, c - 2), opacity=0.003, color="#000", line=dict(width=0)),
        xaxis="x2", yaxis="y", hovertemplate="[%{y}, %{x}]<br>%{text}<extra></extra>", showlegend=False,
        name="click",
    )


def _hover_parts(s: ScoreSteps, n: int, names: dict) -> list[tuple[str, list[str]]]:
    """What a cell's hover can say, part by part, each cell's in row order (the click layer's): the score QKᵀ, the
    scaled score, −∞ above the diagonal, S (a given matrix has no QKᵀ: its scaled score is named as the scores)."""
    ii, jj = np.mgrid[0:n, 0:n]
    cells = lambda a: [general(v, 4) for v in np.asarray(a, float)[:n, :n].ravel()]  # noqa: E731
    scaled = "÷√d<sub>k</sub> = " if s.scores is not None else f"{names['scores']} = "
    parts = [(f"{names['scores']} = ", cells(s.scores))] if s.scores is not None else []
    return parts + [(scaled, cells(s.scaled)), ("→ ", ["−∞" if j > i else "" for i, j in zip(ii.ravel(), jj.ravel())]),
                    (f"{names['probs']} = ", cells(s.probs))]


def _hover_upto(s: ScoreSteps, n: int, f: Frame) -> list[int]:
    """How many cells, in row order, say each of `_hover_parts` on frame `f`: only what it has computed. QKᵀ fills
    cells in row order (a cell not yet filled says "pending"); the scaled score from ÷√d_k on; −∞ once the mask is
    down; S on the rows softmax has reached."""
    every = n * n
    filled = int(np.sum(~np.isnan(f.signed))) if f.phase == "qkt" else every
    after = [0 if f.phase == "qkt" else every, every if f.masked else 0, f.softmaxed * n]
    return ([filled] if s.scores is not None else []) + after


def slider_labels(s: ScoreSteps, frames: list[Frame]) -> list[str]:
    """Each phase named under the frame it rests on; the other steps unlabelled."""
    labels = [""] * len(frames)
    for p in s.phases:
        labels[rest_index(frames, p)] = s.words[f"step_{p}"]
    return labels


def _frames_for_slider(s: ScoreSteps, n: int, operands: bool, b: Board) -> tuple[list[Frame], int]:
    """The finest frames whose slider still shows every phase's name (and the label size that does it).

    Plotly draws only every k-th step label once labels are wider than the steps are apart (its `labelStride`:
    k = ⌈(widest label + 8 px) / step spacing⌉), so a phase name could silently vanish.
    """
    options = [(True, 10)] if _by_cell(s, b.look, n) else []
    options += [(False, most) for most in (10, 5, 3, 2, 1)]
    for by_cell, most in options:
        frames = score_frames(s, n, by_cell, most)
        spacing = (b.slider_w - 20) / (len(frames) - 1)
        labels = slider_labels(s, frames)
        for size in range(max(b.look.tick, b.look.step_label), b.look.step_label - 1, -1)[:3]:
            if widest(labels, size) + 12 <= spacing:
                return frames, size
    return frames, b.look.step_label


def _layout(b: Board, s: ScoreSteps, n_full: int, titles_: tuple[str, str], frames: list[Frame], rest: int,
            label_size: int) -> dict:
    look, c, n, k, words, names = b.look, b.cell, b.n, b.k, s.words, s.names
    s_dom_x, s_dom_y = b.span_x(b.s_x, n * c), b.span_y(b.s_y, n * c)
    hidden = dict(range=[0, 1], visible=False, fixedrange=True)
    axes = dict(
        xaxis2=axis_spec(n, s_dom_x, "y", side="top", look=look),
        yaxis=axis_spec(n, s_dom_y, "x" if k else "x2", reverse=True, look=look),
        xaxis3=dict(domain=b.span_x(b.sigma_x, b.sigma_w), anchor="y", **hidden),
        xaxis4=dict(domain=b.span_x(b.caption_x, b.caption_w), anchor="y4", **hidden),
        yaxis4=dict(domain=b.span_y(b.caption_y, b.caption_h), anchor="x4", **hidden),
    )
    s_centre = b.s_x + n * c / 2
    q_title, s_title = titles_
    titles = [_title(b, s_title, s_centre, 4, b.width - 4, b.s_title_y, yanchor="top")]
    if k:
        d_k = s.q.shape[1]
        axes.update(xaxis=axis_spec(k, b.span_x(b.left, k * c), "y", look=look),
                    yaxis2=axis_spec(k, b.span_y(b.kt_y, k * c), "x2", reverse=True, look=look))
        titles += [
            _title(b, q_title, b.left + k * c / 2, 2, b.corner_w, b.s_y - 4),
            _title(b, _shape_title(names["kt"], (d_k, n_full), (k, n), words), s_centre, b.s_x - b.gap_x,
                   b.width - 4, b.kt_y - 4),
        ]
    play = dict(frame=dict(duration=900, redraw=True), fromcurrent=False, mode="immediate",
                transition=dict(duration=0))
    pause = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    step = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    labels = slider_labels(s, frames)
    meta = {}
    slider_words(meta, words["slider"], words["slider_step"],
                 [(words[f"step_{f.phase}"], words[f"cap_{f.phase}"] if i == rest else f.caption)
                  for i, f in enumerate(frames)])
    return dict(
        meta=meta["meta"],
        width=b.width, height=b.height, margin=dict(l=0, r=0, t=0, b=0, pad=0, autoexpand=False),
        annotations=titles, plot_bgcolor=BG, paper_bgcolor=BG, font=dict(family=FONT, color="#1f2937"),
        dragmode=False, hovermode="closest",
        updatemenus=[dict(type="buttons", direction="left", x=b.fx(b.left), y=b.fy(b.buttons_y + 2),
                          xanchor="left", yanchor="top", pad=dict(t=0, r=0, l=0, b=0), showactive=False,
                          font=dict(size=look.tick + 1), buttons=[
                              dict(label=words["play"], method="animate", args=[None, play]),
                              dict(label=words["pause"], method="animate", args=[[None], pause])])],
        sliders=[dict(active=rest, x=b.fx(b.left), len=round(b.slider_w / b.width, 5),
                      y=b.fy(b.slider_y), xanchor="left", yanchor="top", pad=dict(t=0, b=0, l=0, r=0), ticklen=4,
                      font=dict(size=label_size), currentvalue=dict(visible=False),
                      steps=[dict(label=label, method="animate", args=[[str(i)], step])
                             for i, label in enumerate(labels)])],
        **axes,
    )
