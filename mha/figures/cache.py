"""One KV-cache decode step as Plotly frames, and the cost of decoding with and without the cache.

The step is drawn the way the post tells it: every matrix with t-1 rows becomes t rows, the first t-1
unchanged. Q, the K cache and the V cache sit in one row of panels, S, H and Y in the next (on a phone
all six are stacked). Each panel has its t rows from the first frame on; the new row t is an empty slot
until the frame that computes it, so frames change data only and the layout never moves.
"""

import functools
import re
from dataclasses import dataclass

import numpy as np

from .base import (
    DESK,
    HIGHLIGHT,
    MASKED_BG,
    MAX_TEXT_SIDE,
    PHONE_COLUMN,
    ROW_LABEL_EM,
    SIGNED,
    Look,
    Mat,
    Spec,
    abs_limit,
    axis_type,
    box,
    figure,
    fits,
    heatmap,
    least_row,
    log_span,
    log_ticks,
    number,
    number_formats,
    outline,
    patch,
    play_controls,
    tick_step,
)
from .text import FONT, text_px, widest, wrap

FADED = 0.12  # opacity of Q rows once they are no longer needed
COLS = 20  # columns drawn of Q, K, V, H and Y: the first COLS (the post's primes up to 19 in full)
STEPS = ("arrive", "append", "scores", "softmax", "drop_q", "output")
ARRIVES = dict(q=1, k=1, v=1, s=2, h=5, y=5)  # the frame at which each panel's row t is computed
GROWING = ("k", "v", "s", "h", "y")  # matrices whose rows 1..t-1 stay as they were
TICK_AWAY = 6  # px between a row's name and its panel: 5 clear of row t's solid outline (audit 2026-12-04 #16:
#               the names touched the outlines; 2026-12-06: at 4 px, 3 px clear of it still read as touching)
SLOT_BG = "#ffffff"  # an empty cell: row t before it is computed
OLD_LINE = "#6b7280"  # dotted box around rows 1..t-1
NOTE_COLOR = "#9a3412"
HEIGHT_EXTRA = 200  # px a desk or projector figure may add to look.max_h for its buttons, slider and caption
MAIN_W = 1100  # px: Streamlit's main column is 1120 px wide at 1280 px with the sidebar folded
PROJECTOR_W = 1116  # px a projector's step takes of those 1,120 where its rows keep their numbers: its 25 columns of
#                     Q, K and V at 43 px write "−1.26" at 15 px, 1.36 times a desk's 11 (at 1,100, 42 px cells took
#                     14 px); a look narrowed for a text's words as row names (ticks.room_for_names) keeps to itself
MODEBAR_W = 130  # px at the top right where Plotly's toolbar appears on hover: the slider stops short of it
SLIDER_EM = 3.4  # em: the height of the page's frame slider (.mha-slider in mha/ui/matrix_chart.js)
NOTE_LINE = 1.45  # em a line of an annotation takes (Plotly's 1.3 and the box around the text)


@dataclass(frozen=True)
class CacheStep:
    """Token t arriving at a cache of t-1 tokens, for one head; Y is the whole layer's output.

    The *_prev arrays are what the first t-1 tokens gave before X_t arrived (a forward pass on them).
    """

    q: np.ndarray  # (t, d_k): rows 1..t-1 as a full recompute would have them, row t is q_t
    k: np.ndarray  # (t, d_k) the K cache after the step
    v: np.ndarray  # (t, d_v) the V cache after the step
    s_prev: np.ndarray  # (t-1, t-1) S of the first t-1 tokens
    h_prev: np.ndarray  # (t-1, d_v) H of the first t-1 tokens
    y_prev: np.ndarray  # (t-1, d_model) Y of the first t-1 tokens
    scaled: np.ndarray  # (t,) q_t·Kᵀ/√d_k
    probs: np.ndarray  # (t,) row t of S
    head: np.ndarray  # (d_v,) row t of H
    y_t: np.ndarray  # (d_model,) row t of Y, from the cache
    names: dict  # q, k, v, s, h, y -> display names (HTML)
    words: dict  # one caption per STEPS key, steps (slider labels), legend, the notes under Q's row (scores_note:
    #              where the scores stand; drop_q_note, done_q_note: the Q rows done with), play, pause,
    #              last_rows, first_cols, last_cols ("{n}", "{total}"), rows_drawn (.format(a=, b=), or
    #              .format(among=numbers) where they do not follow one another: the rows drawn, on a projector or a
    #              window's), token and col (what rows and columns count),
    #              slider (the slider's name for a screen reader), slider_step ("{k}", "{count}", "{step}", "{caption}":
    #              a step's words for it)
    labels: tuple[str, ...] | None = None  # what rows 1..t (and S's columns) are called, when not 1..t: the
    #                                        positions of the tokens a windowed cache holds
    row_words: tuple[str, ...] | None = None  # what rows 1..t are called on the page where not by number: a text's
    #                                           words (escaped, shortened), drawn by the figure (a phone's: its stacked
    #                                           panels each name their rows, where the words leave every number written)

    @property
    def t(self) -> int:
        return self.k.shape[0]

    def whole_rows(self, key: str) -> int:
        """Rows of the whole matrix a panel draws from: the tokens so far, but a window's K and V caches hold the
        tokens it keeps, and draw all of them (audit 2026-12-07 #8: "Y · 2×5" said Y had lost rows)."""
        return int(self.labels[-1]) if self.labels and key not in ("k", "v") else self.t

    def row_names(self, rows: int) -> list[int]:
        """The numbers of the last `rows` rows drawn: their tokens' positions (1-based)."""
        return [int(n) for n in self.labels[-rows:]] if self.labels else list(range(self.t - rows + 1, self.t + 1))

    def after(self, key: str) -> np.ndarray:
        """The whole matrix once the step is done (S with zeros above the diagonal)."""
        t = self.t
        if key == "s":
            s = np.zeros((t, t))
            s[: t - 1, : t - 1] = self.s_prev
            s[t - 1] = self.probs
            return s
        new = dict(h=self.head, y=self.y_t)
        if key in new:
            prev = dict(h=self.h_prev, y=self.y_prev)[key]
            return np.vstack([prev.reshape(t - 1, new[key].size), new[key]])
        return dict(q=self.q, k=self.k, v=self.v)[key]


@dataclass(frozen=True)
class Panel:
    """One drawn matrix: its window and where it sits, in px from the figure's top left."""

    key: str
    rows: int  # drawn rows (tokens first+1..t)
    cols: int  # drawn columns
    col0: int  # index of the first drawn column (0 except for S, whose columns are tokens)
    x: float = 0.0
    y: float = 0.0
    row_ticks: bool = True  # token numbers on its left (only the first panel of a row of panels)

    def box(self, cell: float, row: float) -> tuple[float, float, float, float]:
        return self.x, self.y, self.x + self.cols * cell, self.y + self.rows * row


@dataclass(frozen=True)
class Plan:
    """The figure's layout in px: everything a frame does not change."""

    width: int
    height: int
    cell: int  # px a column is wide
    row: float  # px a row is high: the cell's width, or lower on a projector's first screen (its numbers kept)
    panels: dict  # key -> Panel
    titles: dict  # key -> title HTML
    caption_top: float
    legend_top: float | None  # None: the key to the boxes is said under the figure (look.keyed_below)
    note_top: dict  # key of a panel with a note under it -> px
    slider: tuple[float, float, float]  # top, left, length
    first: int  # 0-based index of the first drawn token
    sizes: dict  # title, tick, caption, note, button, slider font sizes
    values: dict  # key -> the drawn window of its matrix (S: NaN above the diagonal); "scaled": row t's q_t·Kᵀ/√d_k
    styles: dict  # key -> (decimals, font size) its numbers are written in, or None


def number_style(values: np.ndarray, cell: float, look: Look, most: int = 3) -> tuple[int, int] | None:
    """(decimals, font size) with which every value of `values` fits its cell, written as every other figure writes
    its cells (base.number: at most `most` decimals, trailing zeros dropped, a true minus sign), or None: no numbers.

    The first of number_formats that fits. The cache's cells are the smallest of the app (32 px at the post's sizes
    on a desk), so a number here keeps 1 px a side clear of text_px's estimate, which is itself generous, where a
    product's keeps 3.
    """
    finite = values[np.isfinite(values)]
    if cell < look.min_text_cell or max(values.shape) > MAX_TEXT_SIDE:
        return None
    for size, decimals in number_formats(look):
        if decimals <= most and size >= 8 and fits((number(float(v), decimals) for v in finite), size, cell, pad=2):
            return decimals, size
    return None


def _sizes(look: Look) -> dict:
    return dict(title=look.title, tick=look.tick, caption=look.caption, note=max(look.title - 2, look.tick + 1),
                button=max(look.caption - 2, 12), slider=max(look.tick + 1, look.step_label))


def drawn_rows(look: Look) -> int:
    """How many tokens (the last ones) the figure draws on this screen: a phone's six stacked panels would be too
    tall to follow with 16, and a projector's 40 px cells fit its screen four rows high."""
    return look.cache_rows


def _windows(s: CacheStep, look: Look) -> tuple[int, dict]:
    """The first drawn token and each panel's (rows, cols, first column)."""
    t = s.t
    rows = min(t, drawn_rows(look))
    first = t - rows
    cols = dict(q=s.q.shape[1], k=s.k.shape[1], v=s.v.shape[1], h=s.head.size, y=s.y_t.size)
    out = {key: (rows, min(c, COLS), 0) for key, c in cols.items()}
    out["s"] = (rows, rows, first)
    return first, {key: out[key] for key in ("q", "k", "v", "s", "h", "y")}


def _title(s: CacheStep, key: str, win: tuple[int, int, int], look: Look) -> str:
    """Name · shape of the whole matrix; a second line says which part is drawn when not all of it is (the tokens'
    window, its rows and S's columns, only where the look's titles say it); elsewhere (a projector's, with no line
    to spare) the rows drawn follow the shape on its line, small (audit 2026-12-07 #1: "S₁ · 6×6" over 4 rows), as
    they do on every screen where a window's tokens are not the first rows (S₁ · 6×6 (rows 1, 5–6))."""
    shape = (s.whole_rows(key), s.after(key).shape[1]) if key != "s" else (s.whole_rows(key),) * 2
    strut = "" if "<sub>" in s.names[key] else "<sub>\u200a</sub>"  # a subscript's depth: Y's title on the others' line
    head = f"<b>{s.names[key]}</b>{strut} · {shape[0]}×{shape[1]}"
    rows, cols, col0 = win
    w = s.words
    held = s.labels and key not in ("k", "v")  # a window's rows of Q, S, H or Y: those of the tokens it holds
    if held or (rows < shape[0] and not look.rows_titled):
        names = s.row_names(rows)
        run = names == list(range(names[0], names[-1] + 1))
        drawn = w["rows_drawn"].format(a=names[0], b=names[-1]) if run else w["rows_drawn"].format(among=names)
        head += f" <span style='font-size:0.8em'>{drawn}</span>"
    parts = []
    if rows < shape[0] and look.rows_titled and not held:
        parts.append(w["last_rows"].format(n=rows, total=shape[0]))
    # S's columns are its rows' tokens: said with the rows on a projector (col0, the first drawn), and a window's always
    if cols < shape[1] and not (key == "s" and held) and (look.rows_titled or not col0):
        parts.append(w["last_cols" if col0 else "first_cols"].format(n=cols, total=shape[1]))
    return head + (f"<br><span style='font-size:0.85em'>{', '.join(parts)}</span>" if parts else "")


def _title_width(title: str, size: int) -> float:
    head, *window = title.split("<br>")
    name, span, drawn = head.partition(" <span")  # a projector's rows drawn, after the shape, at 0.8 em
    first = text_px(name, size) + (text_px(re.sub(r"<[^>]+>", "", span + drawn), size * 0.8) if span else 0)
    return max([first] + [text_px(line, size * 0.85) for line in window])


NOTES = {"scores": "scores_note", "drop_q": "drop_q_note", "output": "done_q_note"}  # the note under Q's row, by frame


def plan(s: CacheStep, look: Look = DESK, text: bool = True) -> Plan:
    """Where every panel, title, caption, note, button and the slider go, in px; `text`: whether cells write their
    numbers.

    From the top: Play/Pause with the slider beside them (under them on a phone), the frame's caption, the
    legend of the boxes, then the rows of panels, each under its titles and over its column numbers; under the first
    row (Q's), a frame's note.
    """
    z = _sizes(look)
    first, wins = _windows(s, look)
    titles = {key: _title(s, key, win, look) for key, win in wins.items()}
    title_w = {key: _title_width(title, z["title"]) for key, title in titles.items()}
    title_lines = max(t.count("<br>") + 1 for t in titles.values())
    title_h = title_lines * z["title"] * NOTE_LINE + 6
    # a projector's rows of panels sit closer (its type is larger; the gaps need not grow with it): with a token added,
    # the step's four rows of tokens stay on its first screen, a variant's row of knobs above them too
    tick_h = z["tick"] * (1.2 if look.screen_h else 1.5) + 4
    gap = 8 if look.screen_h else max(14, z["tick"] * 1.4)
    # token numbers (or words) left of a row of panels; the panels 4 px clear of the figure's edges, 2 (the new row's
    # outline's half) with a phone's words: "to be or not to be" names V's rows with its 11 columns at 30 px
    edge = 2 if s.row_words else 4
    label_w = widest(s.row_words or s.labels or [str(s.t)], z["tick"]) + TICK_AWAY + edge
    pad = 4
    groups = [[k] for k in wins] if look.narrow else [["q", "k", "v"], ["s", "h", "y"]]
    # a phone's step takes the whole column: at its panels' 350 px, ten tokens' row names left V's cells 29 px, under
    # the 30 that write numbers; a projector's nearly the whole main column
    width = (PHONE_COLUMN if look.narrow else PROJECTOR_W if look.screen_h and look.max_w >= MAIN_W
             else min(look.max_w, MAIN_W))
    note_lines = max(len(wrap(s.words[k], z["note"], width - label_w - pad)) for k in NOTES.values())
    note_h = max(note_lines, 1) * z["note"] * NOTE_LINE + 4
    buttons_w = sum(text_px(s.words[k], z["button"]) + 30 for k in ("play", "pause"))
    button_h = z["button"] + 16
    # a projector's caption starts at the foot of the slider's element (matrix_chart.js's .mha-slider, SLIDER_EM em;
    # its names end 26 px and 1.25 em down, 8 px above it), with the 4 px kept under the buttons; elsewhere lower
    slider_h = SLIDER_EM * z["slider"] - 4 if look.screen_h else 46 + z["slider"] * NOTE_LINE
    overhang = widest(s.words["steps"], z["slider"]) / 2 + 6  # the last name's half
    if look.narrow:  # the slider needs the whole width for six names
        slider = (pad + button_h + 6, 8.0, width - 8 - overhang)
        caption_top = slider[0] + slider_h + 4
    else:
        slider = (pad, buttons_w + 24, width - buttons_w - 24 - max(MODEBAR_W, overhang))
        caption_top = pad + max(button_h, slider_h) + 4
    captions = [s.words[k] for k in STEPS]
    cap_lines = max(len(wrap(c, z["caption"], width - 2 * pad)) for c in captions)
    legend_lines = 0 if look.keyed_below else len(wrap(s.words["legend"], z["note"], width - 2 * pad))
    legend_top = caption_top + cap_lines * z["caption"] * NOTE_LINE + 8
    top = legend_top + (legend_lines * z["note"] * NOTE_LINE + 8 if legend_lines else 0)

    def rows_h(cell: int, row: float | None = None) -> float:
        per_group = [title_h + wins[g[0]][0] * (cell if row is None else row) + tick_h + (note_h if "q" in g else 0)
                     for g in groups]
        return sum(per_group) + gap * (len(groups) - 1)

    def row_w(g: list[str], cell: int) -> float:
        return label_w + sum(max(wins[k][1] * cell, title_w[k]) for k in g) + gap * (len(g) - 1) + edge

    values = {key: _window(s, key, win, first) for key, win in wins.items()} | {"scaled": s.scaled[first:][None]}

    @functools.cache
    def styles(cell: int) -> dict:
        """Every panel to the decimals the tightest one can take: S to 3 beside K's 2 read as a difference (audit
        2026-12-04 #16)."""
        alone = {key: number_style(z, cell, look) for key, z in values.items()}
        most = min((style[0] for style in alone.values() if style), default=3)
        return {key: style and number_style(values[key], cell, look, most) for key, style in alone.items()}

    def legible(cell: int) -> bool:  # every panel writes its numbers
        return all(styles(cell).values())

    height_budget = float("inf") if look.narrow else look.max_h + HEIGHT_EXTRA
    target = look.min_text_cell + 18
    cell = next((c for c in range(target, 5, -1)
                 if all(row_w(g, c) <= width for g in groups) and top + rows_h(c) <= height_budget), 6)
    # Held to the height budget, the cells could lose their numbers: a taller figure keeps them, at the smallest cell
    # that writes them (on a projector, one within its screen, screen_h, where there is one).
    if text and not legible(cell):
        writes = [c for c in range(cell + 1, target + 1) if all(row_w(g, c) <= width for g in groups) and legible(c)]
        cell = next((c for c in writes if top + rows_h(c) <= look.screen_h), writes[0] if writes else cell)
    row = float(cell)
    foot = 0 if look.screen_h else 4  # px under the last column numbers' line: none on a projector (a short screen)
    if look.screen_h and text and legible(cell) and top + rows_h(cell) > look.fig_h:
        # a projector's, taller than what its stage leaves it on the first screen (look.fig_h, view.first_screen):
        # rows lower than the columns are wide, as high as fit, never under the numbers' line and CELL_PAD
        least = least_row(look)
        row = float(next((r for r in range(cell, least - 1, -1) if top + rows_h(cell, r) <= look.fig_h),
                         min(least, cell)))
    panels, note_top = {}, {}
    y = top
    for g in groups:
        y += title_h
        x = label_w
        for i, key in enumerate(g):
            rows, cols, col0 = wins[key]
            slot = max(cols * cell, title_w[key])
            panels[key] = Panel(key, rows, cols, col0, x + (slot - cols * cell) / 2, y, row_ticks=i == 0)
            x += slot + gap
        y += wins[g[0]][0] * row + tick_h
        if "q" in g:
            note_top["q"] = y
            y += note_h
        y += gap
    height = int(np.ceil(y - gap + foot))
    legend_at = None if look.keyed_below else legend_top
    return Plan(width, height, cell, row, panels, titles, caption_top, legend_at, note_top, slider, first, z, values,
                styles(cell) if text else dict.fromkeys(values))


def numbers_first(s: CacheStep, named: Look, plain: Look, text: bool) -> Look:
    """The look to draw the step in: `named` (narrowed to leave room for its rows' token names), unless that costs
    the cells their numbers and `plain` (rows by number) keeps them. On a projector, a text's long words left V's
    cells 36 px, under the 40 that write numbers."""
    if text and not all(plan(s, named, text).styles.values()) and all(plan(s, plain, text).styles.values()):
        return plain
    return named


def cache_animation(s: CacheStep, *, text: bool, look: Look = DESK) -> Spec:
    """Frames: X_t arrives; q_t, k_t, v_t computed and k_t, v_t appended as row t of the caches; row t of
    the scores; its softmax, row t of S; Q's earlier rows dropped; row t of H and Y_t, while rows 1..t-1 of
    K, V, S, H and Y stay as they were."""
    p = plan(s, look, text)
    t, first = s.t, p.first
    ax = {key: (f"x{i + 1 if i else ''}", f"y{i + 1 if i else ''}") for i, key in enumerate(p.panels)}
    values, styles = p.values, p.styles
    lims = {key: abs_limit(s.after(key)) for key in ("q", "k", "v", "h", "y")}
    lims["scaled"] = abs_limit(s.scaled)
    kinds = dict(s="probs")

    def hm(key, z, y0, style_key=None, opacity=1.0, zlim=None, kind=None):
        pan = p.panels[key]
        mat = Mat(values[key], s.names[key], kind or kinds.get(key, "signed"), s.words["token"], s.words["col"])
        tr = heatmap(mat, *ax[key], False, z=z, zlim=lims.get(key) if zlim is None else zlim, cell=p.cell, look=look)
        style = styles[style_key or key]
        if style and opacity == 1.0:
            decimals, size = style
            tr.update(text=[[number(v, decimals) for v in row] for row in np.asarray(z, float)],
                      texttemplate="%{text}", textfont=dict(size=size))
        return tr | dict(x0=pan.col0 + 1, y0=y0, opacity=opacity)

    def frame(step: int) -> list[dict]:
        """Traces in a fixed order, per panel: Q rows 1..t-1 and row t (they fade apart); S with its row t
        from the softmax on, and row t's scaled scores; K, V, H, Y whole, row t once computed. Then the boxes."""
        traces = []
        for key, pan in p.panels.items():
            d = values[key].copy()
            if step < ARRIVES[key] or (key == "s" and step < STEPS.index("softmax")):
                d[-1] = np.nan
            if key == "q":
                if pan.rows > 1:
                    old = FADED if step >= STEPS.index("drop_q") else 1.0
                    traces.append(hm("q", d[:-1], first + 1, opacity=old))
                traces.append(hm("q", d[-1:], t, opacity=FADED if step >= STEPS.index("output") else 1.0))
                continue
            traces.append(hm(key, d, first + 1))
            if key == "s":
                scaled = values["scaled"] if step == STEPS.index("scores") else np.full_like(values["scaled"], np.nan)
                traces.append(hm("s", scaled, t, "scaled", zlim=lims["scaled"], kind="signed")
                              | dict(colorscale=SIGNED, zmin=-lims["scaled"], zmax=lims["scaled"]))
        return traces + _boxes(step, p, ax, t)

    frames_data = [frame(i) for i in range(len(STEPS))]
    notes = [_annotations(i, s, p) for i in range(len(STEPS))]
    frames = [dict(data=[patch(tr) for tr in data], name=str(i), layout=dict(annotations=notes[i]))
              for i, data in enumerate(frames_data)]
    layout = dict(width=p.width, height=p.height, autosize=False, margin=dict(l=0, r=0, t=0, b=0, pad=0),
                  annotations=notes[0], shapes=_fixed_shapes(p, ax, t), plot_bgcolor=MASKED_BG,
                  paper_bgcolor="rgba(0,0,0,0)", font=dict(family=FONT, color="#1f2937"), dragmode=False,
                  **_axes(p, ax, s.labels, s.row_words), **play_controls(s.words, p.sizes, p.slider, p.width, p.height,
                                                              [s.words[k] for k in STEPS]))
    return figure(frames_data[0], layout, frames)


def _window(s: CacheStep, key: str, win: tuple[int, int, int], first: int) -> np.ndarray:
    """The part of `key`'s matrix a panel draws, win = (rows, cols, first column), S with NaN above its diagonal."""
    _, cols, col0 = win
    a = s.after(key)[first:, col0: col0 + cols].astype(float)
    if key == "s":
        a[np.triu(np.ones_like(a, bool), k=1)] = np.nan
    return a


def _fixed_shapes(p: Plan, ax: dict, t: int) -> list[dict]:
    """What no frame changes: row t's cells as white empty slots under the heatmaps (they show until the row
    is computed), and a dotted box around rows 1..t-1 of each growing matrix (they stay as they were)."""
    out = []
    for key, pan in p.panels.items():
        xref, yref = ax[key]
        out += [dict(type="rect", xref=xref, yref=yref, x0=c - 0.46, x1=c + 0.46, y0=t - 0.46, y1=t + 0.46,
                     layer="below", line=dict(width=0), fillcolor=SLOT_BG)
                for c in range(pan.col0 + 1, pan.col0 + pan.cols + 1)]
        if key in GROWING and pan.rows > 1:
            out.append(box(xref, yref, pan.col0 + 1, pan.col0 + pan.cols, p.first + 1, t - 1, color=OLD_LINE,
                           width=2, dash="dot"))
    return out


def _boxes(step: int, p: Plan, ax: dict, t: int) -> list[dict]:
    """Row t of every panel outlined once it is computed."""
    return [outline(*ax[key], pan.col0 + 1, pan.col0 + pan.cols, t, t, color=HIGHLIGHT, width=3,
                    show=step >= ARRIVES[key]) for key, pan in p.panels.items()]


def _annotations(step: int, s: CacheStep, p: Plan) -> list[dict]:
    """Panel titles, the frame's caption, the legend of the boxes, and Q's note once it applies."""
    z, w, W, H = p.sizes, s.words, p.width, p.height
    out = []
    for key, pan in p.panels.items():
        x0, y0, x1, _ = pan.box(p.cell, p.row)
        out.append(_text(p.titles[key], (x0 + x1) / 2 / W, 1 - (y0 - 2) / H, z["title"], "center", "bottom"))
    caption = "<br>".join(wrap(w[STEPS[step]], z["caption"], W - 8))
    out.append(_text(caption, 4 / W, 1 - p.caption_top / H, z["caption"], "left", "top"))
    if p.legend_top is not None:
        legend = "<br>".join(wrap(w["legend"], z["note"], W - 8))
        out.append(_text(legend, 4 / W, 1 - p.legend_top / H, z["note"], "left", "top", OLD_LINE))
    q = p.panels["q"]
    note = "<br>".join(wrap(w[NOTES[STEPS[step]]], z["note"], W - q.x - 4)) if STEPS[step] in NOTES else ""
    out.append(_text(note, q.x / W, 1 - p.note_top["q"] / H, z["note"], "left", "top", NOTE_COLOR))
    return out


def _text(text: str, x: float, y: float, size: int, xanchor: str, yanchor: str, color: str = "#1f2937") -> dict:
    return dict(text=text, x=x, y=y, xref="paper", yref="paper", xanchor=xanchor, yanchor=yanchor, align=xanchor
                if xanchor != "center" else "center", showarrow=False, font=dict(size=size, color=color))


def _axes(p: Plan, ax: dict, labels: tuple[str, ...] | None = None, words: tuple[str, ...] | None = None) -> dict:
    """Domains from the px boxes (margins are 0, so the paper is the figure); row 1 at the top. `labels`: what the
    rows (and S's columns) are called, when not by their numbers; `words`, what the rows are called on the page (the
    figure's own: CacheStep.row_words)."""
    W, H, out = p.width, p.height, {}
    step = 1 if p.cell >= 2.2 * p.sizes["tick"] else 2 if p.cell * 2 >= 2.2 * p.sizes["tick"] else 4  # columns
    down = tick_step(p.first + max(pan.rows for pan in p.panels.values()), p.row, ROW_LABEL_EM * p.sizes["tick"])
    for key, pan in p.panels.items():
        x0, y0, x1, y1 = pan.box(p.cell, p.row)
        xa, ya = ax[key]
        cols = list(range(pan.col0 + 1, pan.col0 + pan.cols + 1))
        rows = list(range(p.first + 1, p.first + pan.rows + 1))
        common = dict(showgrid=False, zeroline=False, ticks="", fixedrange=True, tickmode="array",
                      tickfont=dict(size=p.sizes["tick"]))
        out[xa.replace("x", "xaxis")] = common | dict(
            domain=[x0 / W, x1 / W], anchor=ya, range=[cols[0] - 0.5, cols[-1] + 0.5],
            tickvals=cols[::step] if len(cols) > 1 else cols)
        out[ya.replace("y", "yaxis")] = common | dict(  # the row names clear of the dotted and solid outlines, which
            domain=[1 - y1 / H, 1 - y0 / H], anchor=xa, range=[rows[-1] + 0.5, rows[0] - 0.5],  # stand past the cells
            tickvals=rows[::-down][::-1] if len(rows) > 1 else rows, showticklabels=pan.row_ticks,
            ticklabelstandoff=TICK_AWAY)
        if labels:
            for axis in (ya.replace("y", "yaxis"), *([xa.replace("x", "xaxis")] if key == "s" else [])):
                out[axis]["ticktext"] = [labels[i - 1] for i in out[axis]["tickvals"]]
        if words:
            named = out[ya.replace("y", "yaxis")]
            named["ticktext"] = [words[i - 1] for i in named["tickvals"]]
    return out




def cost_figure(lengths: np.ndarray, series: dict, *, x_title: str, y_title: str, look: Look = DESK) -> Spec:
    """Cumulative cost against sequence length, log-log; `series` maps a legend name to (values, dash). Its type is
    the screen's (`look`), and it grows with it, up to the look's figure height (a projector's first screen)."""
    data = [dict(type="scatter", x=np.asarray(lengths).tolist(), y=np.asarray(values).tolist(), name=name,
                 mode="lines", line=dict(dash=dash, width=2.5)) for name, (values, dash) in series.items()]
    size = look.tick + 2
    axes = axis_type(size, xaxis=x_title, yaxis=y_title)
    ys = np.concatenate([np.ravel(values) for values, _ in series.values()])
    ys = ys[np.isfinite(ys) & (ys > 0)]
    # a timing's values between two labels, its spikes too (audit 2026-12-07 #12: they ran off the top); counts over
    # two decades or more labelled at their powers of ten, as Plotly spaces them (every one of 14 would overlap)
    y_labels = log_ticks(ys) if not ys.size or ys.max() >= 100 * ys.min() else log_span(ys)
    layout = dict(height=min(round(380 * size / (DESK.tick + 2)), look.fig_h),
                  margin=dict(l=5 * size, r=20, t=20, b=4 * size),
                  font=dict(family=FONT, color="#1f2937", size=size),
                  xaxis=axes["xaxis"] | dict(type="log") | log_ticks(lengths),
                  yaxis=axes["yaxis"] | dict(type="log", exponentformat="SI") | y_labels,
                  legend=dict(orientation="h", y=-0.25, font=dict(size=size)), hovermode="x unified")
    return figure(data, layout)
