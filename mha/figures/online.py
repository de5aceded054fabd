"""The online softmax (FlashAttention's idea) as Plotly frames: the keys arrive a tile at a time.

One frame per tile, then one for the division. Each tile's frame shows that tile's scores only (its columns of the
n×n scores; the others are empty: they are never held), and for every query row the running max m, the factor
exp(m_old − m_new) that rescales what was held, the running sum ℓ and the accumulator acc after the tile. The last
frame writes out = acc/ℓ. The layout never moves: frames change data and sentences only.
"""

from dataclasses import dataclass

import numpy as np

from .base import (
    CELL_PAD,
    DESK,
    HIGHLIGHT,
    MASKED_BG,
    MAX_TEXT_SIDE,
    Look,
    Mat,
    Spec,
    abs_limit,
    cell_box,
    click_layer,
    figure,
    fits,
    heatmap,
    least_row,
    number,
    number_formats,
    number_line,
    outline,
    outline_rule,
    patch,
    play_controls,
)
from .cache import MAIN_W, MODEBAR_W, NOTE_LINE
from .text import FONT, text_px, widest, wrap

ROWS = 16  # tokens drawn (and keys): the first ROWS; a row's state never depends on a later key
COLS = 20  # columns of acc and out drawn: the first COLS
PANELS = ("s", "r", "m", "l", "acc", "out")
EMPTY_BG = "#ffffff"  # a cell not held: the scores outside the tile, a state not reached yet


@dataclass(frozen=True)
class OnlineSteps:
    """One head's online softmax: the tiles' states (mha.online_attention) and the words the figure writes.

    names: s, r, m, l, acc, out → short HTML names (hover); titles: the same keys → panel titles, but s: one title
    per drawn tile (naming its keys), and s_none, the scores' title once no tile is held.
    words: play, pause, slider, slider_step ({k} {count} {step} {caption}), steps (one short label per frame),
    captions (one sentence per frame), token, key, col (what rows and columns count), window ({rows} {cols}).
    """

    starts: tuple[int, ...]
    stops: tuple[int, ...]
    scores: tuple[np.ndarray, ...]  # (n, stop − start) each, −inf where masked
    m: tuple[np.ndarray, ...]  # (n,) after each tile
    l: tuple[np.ndarray, ...]  # noqa: E741 (ℓ)
    acc: tuple[np.ndarray, ...]  # (n, d_v) after each tile
    out: np.ndarray  # (n, d_v)
    names: dict
    titles: dict
    words: dict

    @property
    def n(self) -> int:
        return self.out.shape[0]

    def rescale(self, k: int) -> np.ndarray:
        """exp(m_old − m_new) of tile k for every row: NaN where the row held nothing before it (nothing to rescale)."""
        new = self.m[k]
        old = self.m[k - 1] if k else np.full(self.n, -np.inf)
        held = np.isfinite(old)
        return np.where(held, np.exp(np.where(held, old, 0.0) - np.where(held, new, 0.0)), np.nan)


def frames_count(s: OnlineSteps) -> int:
    """The frames `online_animation(s)` draws: the tiles that reach the drawn keys, and the division."""
    return drawn_tiles(s) + 1


def drawn_tiles(s: OnlineSteps) -> int:
    return sum(1 for a in s.starts if a < min(s.n, ROWS))


@dataclass(frozen=True)
class _Plan:
    width: int
    height: int
    cell: int  # px a column is wide
    row: float  # px a row is high: the cell's width, or lower on a projector's first screen
    boxes: dict  # key -> (x, y, cols) px of the panel's top left, columns drawn
    labelled: tuple  # the panels that write token numbers left of their rows: the first of each row of panels
    rows: int
    caption_top: float
    caption_x: float
    caption_w: float
    slider: tuple[float, float, float]
    sizes: dict


BESIDE = 15  # the caption goes beside the tile's panels where that leaves it this many of its em across, or more


def _plan(s: OnlineSteps, look: Look) -> _Plan:
    """Play and the slider at the top; the frame's sentence under them; the tile's scores, r, m and ℓ in a row of
    panels; acc and out under them (beside each other where that draws larger cells). Square cells as large as the
    width and the height budget allow. On a projector (look.screen_h) whose budget would shrink the cells, the
    sentence goes beside the tile's panels and the rows get lower than the columns are wide."""
    z = dict(title=look.title, tick=look.tick, caption=look.caption, button=max(look.caption - 2, 12),
             slider=max(look.tick + 1, look.step_label))
    rows, cols = min(s.n, ROWS), min(s.out.shape[1], COLS)
    widths = dict(s=rows, r=1, m=1, l=1, acc=cols, out=cols)
    title_w = {k: text_px(s.titles[k], z["title"]) + 6 for k in PANELS if k != "s"}
    title_w["s"] = widest([*s.titles["s"], s.titles["s_none"]], z["title"]) + 6
    title_h = z["title"] * NOTE_LINE + 6
    tick_h = z["tick"] * 1.5 + 4
    gap = max(14, z["tick"] * 1.4)
    label_w = text_px(str(rows), z["tick"]) + 8
    width = min(look.max_w, MAIN_W)
    pad = 4
    buttons_w = sum(text_px(s.words[k], z["button"]) + 30 for k in ("play", "pause"))
    button_h = z["button"] + 16
    slider_h = 46 + z["slider"] * NOTE_LINE
    overhang = widest(s.words["steps"], z["slider"]) / 2 + 6
    if look.narrow:
        slider = (pad + button_h + 6, 8.0, width - 8 - overhang)
        caption_top = slider[0] + slider_h + 4
    else:
        slider = (pad, buttons_w + 24, width - buttons_w - 24 - max(MODEBAR_W, overhang))
        caption_top = pad + max(button_h, slider_h) + 4

    def caption_h(w: float) -> float:
        return max(len(wrap(c, z["caption"], w)) for c in s.words["captions"]) * z["caption"] * NOTE_LINE

    caption_w = width - 2 * pad
    top = caption_top + caption_h(caption_w) + 10

    def slot(k: str, c: int) -> float:
        return max(widths[k] * c, title_w[k] if k in ("s", "acc", "out") else 0)

    def row_w(g, c):
        return label_w + sum(slot(k, c) for k in g) + gap * (len(g) - 1) + pad

    def place(groups, c: int, row: float, y: float, beside: float = 0) -> tuple[dict, float]:
        """The panels' boxes, each row of panels under the one before (the first at least `beside` px high), and
        the bottom of the last."""
        boxes = {}
        for i, g in enumerate(groups):
            first = y
            y += title_h
            x = label_w
            for k in g:
                boxes[k] = (x + (slot(k, c) - widths[k] * c) / 2, y, widths[k])
                x += slot(k, c) + gap
            y += rows * row + tick_h
            y = max(y, first + beside) if i == 0 else y
            y += gap
        return boxes, y - gap

    budget = float("inf") if look.narrow else look.max_h + 200
    target = look.min_text_cell + 18

    def fit(groups, height: float = budget) -> int:
        return next((c for c in range(target, 5, -1)
                     if all(row_w(g, c) <= width for g in groups) and place(groups, c, c, top)[1] <= height), 6)

    # acc beside out where that draws larger cells (a projector's width), else each on a row of its own
    cell, groups = max((fit(g), -len(g), g) for g in ([["s", "r", "m", "l"], ["acc", "out"]],
                                                      [["s", "r", "m", "l"], ["acc"], ["out"]]))[::2]
    boxes, bottom = place(groups, cell, cell, top)
    row, caption_x, wide = float(cell), pad, fit(groups, float("inf"))
    if look.screen_h and (cell < wide or bottom + 4 > look.fig_h):
        # a projector's: within its first screen (look.fig_h), else its screen, columns as wide as the width allows;
        # the sentence right of the tile's panels where it has BESIDE of its em across there; rows as high as fit,
        # never under the numbers' line and CELL_PAD (base.number_format's least row). Else square cells as above.
        x = row_w(groups[0], wide) + gap
        beside = width - x - pad >= BESIDE * z["caption"]
        start, cap = (caption_top, caption_h(width - x - pad)) if beside else (top, 0)
        least = least_row(look)
        held = next(((r, *placed) for height in (look.fig_h, look.screen_h) for r in range(wide, least - 1, -1)
                     if (placed := place(groups, wide, r, start, cap))[1] + 4 <= height), None)
        if held:
            row, boxes, bottom = held
            cell = wide
            if beside:
                caption_x, caption_w = x, width - x - pad
    return _Plan(width, int(np.ceil(bottom + 4)), cell, row, boxes, tuple(g[0] for g in groups), rows, caption_top,
                 caption_x, caption_w, slider, z)


AXES = {k: (f"x{i + 1 if i else ''}", f"y{i + 1 if i else ''}") for i, k in enumerate(PANELS)}


def online_animation(s: OnlineSteps, *, text: bool, look: Look = DESK) -> Spec:
    """Frames: each tile in turn (its scores, and m, exp(m_old − m_new), ℓ, acc after it), then out = acc/ℓ; rests
    on the last. Traces: 0 the tile's scores, 1 its masked cells (grey), 2 exp(m_old − m_new), 3 m, 4 ℓ, 5 acc,
    6 out, 7 the tile's outline, 8 the click layer on out (a click on out[i, j] is outlined there)."""
    p = _plan(s, look)
    rows, cols = p.rows, p.boxes["out"][2]
    tiles = drawn_tiles(s)
    finite = np.concatenate([a[:rows][np.isfinite(a[:rows])] for a in s.scores])
    lim = dict(s=abs_limit(finite), acc=abs_limit(np.stack(s.acc[:tiles])[:, :rows, :cols]),
               out=abs_limit(s.out[:rows, :cols]))
    lim["m"] = lim["s"]
    lim["l"] = max(float(np.max(np.stack(s.l[:tiles])[:, :rows])), 1.0)
    kinds = dict(s="signed", r="probs", m="signed", l="magnitude", acc="signed", out="signed")
    w = s.words
    col_word = dict(s=w["key"], r="", m="", l="", acc=w["col"], out=w["col"])

    def full(k: int) -> dict:
        """Every panel's values at frame k (NaN: empty), windowed to what is drawn."""
        if k >= tiles:  # the division: the last tile's state and out
            state = full(tiles - 1)
            state["s"] = np.full((rows, rows), np.nan)
            state["r"] = np.full((rows, 1), np.nan)
            state["out"] = s.out[:rows, :cols]
            return state
        a, b = s.starts[k], min(s.stops[k], rows)
        z = np.full((rows, rows), np.nan)
        z[:, a:b] = s.scores[k][:rows, : b - a]
        seen = np.isfinite(s.m[k][:rows])
        return dict(s=z, r=s.rescale(k)[:rows, None], m=np.where(seen, s.m[k][:rows], np.nan)[:, None],
                    l=np.where(seen, s.l[k][:rows], np.nan)[:, None],
                    acc=np.where(seen[:, None], s.acc[k][:rows, :cols], np.nan),
                    out=np.full((rows, cols), np.nan))

    states = [full(k) for k in range(tiles + 1)]
    styles = {key: _style(np.concatenate([st[key].ravel() for st in states]), p.cell, p.row, look)
              if text and max(states[0][key].shape) <= MAX_TEXT_SIDE else None for key in PANELS}

    def hm(key: str, z: np.ndarray) -> dict:
        mat = Mat(z, s.names[key], kinds[key], w["token"], col_word[key])
        tr = heatmap(mat, *AXES[key], False, z=z, zlim=lim.get(key), cell=p.cell, look=look)
        if styles[key]:
            decimals, size = styles[key]
            tr.update(text=[["" if not np.isfinite(v) else number(float(v), decimals) for v in row] for row in z],
                      texttemplate="%{text}", textfont=dict(size=size))
        return tr

    def frame(k: int) -> list[dict]:
        st = states[k]
        masked = np.full((rows, rows), np.nan)
        if k < tiles:
            a, b = s.starts[k], min(s.stops[k], rows)
            block = masked[:, a:b]
            block[np.isneginf(s.scores[k][:rows, : b - a])] = 1.0
        grey = dict(type="heatmap", z=[[None if np.isnan(v) else 1.0 for v in row] for row in masked],
                    xaxis=AXES["s"][0], yaxis=AXES["s"][1], colorscale=[[0, MASKED_BG], [1, MASKED_BG]], zmin=0,
                    zmax=1, showscale=False, x0=1, y0=1, xgap=1, ygap=1, hoverinfo="skip")
        traces = [hm("s", st["s"]), grey] + [hm(key, st[key]) for key in PANELS[1:]]
        if k < tiles:
            box = outline(*AXES["s"], s.starts[k] + 1, min(s.stops[k], rows), 1, rows, color=HIGHLIGHT, width=3)
        else:
            box = outline(*AXES["s"], 1, 1, 1, 1, show=False)
        return traces + [box]

    frames_data = [frame(k) for k in range(tiles + 1)]
    notes = [_annotations(k, s, p) for k in range(tiles + 1)]
    frames = [dict(data=[patch(tr) for tr in data], name=str(k), layout=dict(annotations=notes[k]))
              for k, data in enumerate(frames_data)]
    out_mat = Mat(s.out[:rows, :cols], s.names["out"], "signed", w["token"], w["col"])
    clicks = click_layer(out_mat, *AXES["out"], size=max(6.0, min(p.cell, p.row) - 2))
    layout = dict(width=p.width, height=p.height, autosize=False, margin=dict(l=0, r=0, t=0, b=0, pad=0),
                  annotations=notes[-1], plot_bgcolor=EMPTY_BG, paper_bgcolor="rgba(0,0,0,0)",
                  font=dict(family=FONT, color="#1f2937"), dragmode=False, **_axes(p),
                  **play_controls(w, p.sizes, p.slider, p.width, p.height, w["captions"], active=tiles,
                                  duration=1400))
    outline_rule(layout, (rows, cols), cell_box(*AXES["out"], "j", "i"))
    return figure(frames_data[-1] + [clicks], layout, frames)


def _style(values: np.ndarray, cell: int, row: float, look: Look) -> tuple[int, int] | None:
    """(decimals, font size) at which every value any frame writes in a panel fits its cell, `cell` px wide and
    `row` high (the KV cache's rule, cache.number_style, over all frames at once; a row lower than the look's
    min_text_cell keeps CELL_PAD clear, as base.number_format's), or None: no numbers."""
    finite = values[np.isfinite(values)]
    if cell < look.min_text_cell:
        return None
    for size, decimals in number_formats(look):
        low = number_line(size) + (CELL_PAD if row < look.min_text_cell else 0)
        if size >= 8 and low <= row and fits((number(float(v), decimals) for v in finite), size, cell, pad=2):
            return decimals, size
    return None


def _annotations(k: int, s: OnlineSteps, p: _Plan) -> list[dict]:
    """Panel titles (the scores' names the tile's keys), and the frame's sentence."""
    z, W, H = p.sizes, p.width, p.height
    out = []
    tiles = drawn_tiles(s)
    for key, (x, y, cols) in p.boxes.items():
        title = s.titles[key]
        if key == "s":
            title = title[k] if k < tiles else s.titles["s_none"]
        out.append(_text(title, (x + cols * p.cell / 2) / W, 1 - (y - 2) / H, z["title"], "center", "bottom"))
    caption = "<br>".join(wrap(s.words["captions"][k], z["caption"], p.caption_w))
    out.append(_text(caption, p.caption_x / W, 1 - p.caption_top / H, z["caption"], "left", "top"))
    return out


def _text(text: str, x: float, y: float, size: int, xanchor: str, yanchor: str) -> dict:
    return dict(text=text, x=x, y=y, xref="paper", yref="paper", xanchor=xanchor, yanchor=yanchor,
                align=xanchor if xanchor != "center" else "center", showarrow=False,
                font=dict(size=size, color="#1f2937"))


def _axes(p: _Plan) -> dict:
    """Domains from the px boxes; row 1 at the top; the first panel of each row of panels numbers the rows (tokens),
    the wide panels their columns."""
    W, H, out = p.width, p.height, {}
    tick = p.sizes["tick"]  # px apart a label needs: a column's two digits; a row lower than wide, a line's height
    across, down = (1 if c >= need else 2 if c * 2 >= need else 4
                    for c, need in ((p.cell, 2.2 * tick), (p.row, (1.6 if p.row < p.cell else 2.2) * tick)))
    rows = list(range(1, p.rows + 1))
    for key, (x, y, cols) in p.boxes.items():
        xa, ya = AXES[key]
        common = dict(showgrid=False, zeroline=False, ticks="", fixedrange=True, tickmode="array",
                      tickfont=dict(size=p.sizes["tick"]))
        columns = list(range(1, cols + 1))
        out[xa.replace("x", "xaxis")] = common | dict(
            domain=[x / W, (x + cols * p.cell) / W], anchor=ya, range=[0.5, cols + 0.5],
            tickvals=columns[::across] if cols > 1 else [], showticklabels=cols > 1)
        out[ya.replace("y", "yaxis")] = common | dict(
            domain=[1 - (y + p.rows * p.row) / H, 1 - y / H], anchor=xa, range=[p.rows + 0.5, 0.5],
            tickvals=rows[::down], showticklabels=key in p.labelled)
    return out

