"""Every head of every layer at once: a small picture of each head's attention, a row per layer and a column per head,
as bertviz's model view shows a model. No numbers and no titles in the panels: the layer and head numbers around the
grid name them, the hover names a cell, and the page draws one layer in full beside it. The words "layer" and
"head" are written level, over their numbers: a Chinese word turned on its side would be read sideways."""

import math
from collections.abc import Sequence

import numpy as np

from .base import HIGHLIGHT, Look, Mat, heatmap
from .products import PAD, Canvas
from .text import text_px

GAP = 12  # px between two thumbnails (the boxed layer's line runs in the middle)
LEAST = 24  # px: the height a screen has is no reason for a smaller thumbnail; many layers make a taller figure
MOST_CELLS = 4  # a thumbnail is at most this many times a look's cell size across


def thumbs_figure(maps: np.ndarray, masked: np.ndarray, names: Sequence[Sequence[str]], *, layer_word: str,
                  head_word: str, row_label: str, col_label: str, look: Look, chosen: int | None = None):
    """maps: (layers, heads, n, n) attention (each row a query's weights); masked: where the causal mask took a cell
    (drawn as a gap); names[l][h]: head (l, h)'s name for its hover. `chosen` (0-based): the layer drawn in full
    elsewhere on the page, whose number is written in bold and whose row is boxed."""
    layers, heads, n = maps.shape[0], maps.shape[1], maps.shape[2]
    tick, words = look.tick, look.tick + 1
    left = max(text_px(layer_word, words), text_px(str(layers), tick)) + PAD + GAP / 2  # "layer" over its numbers
    top = _line_h(tick) + _line_h(words) + PAD  # "head" over the head numbers, its glyphs' whole height inside
    across = (look.max_w - left - 2 * PAD - (heads - 0.5) * GAP) / heads
    down = (look.fig_h - top - 2 * PAD - (layers - 0.5) * GAP) / layers
    side = min(across, MOST_CELLS * look.cell, across if look.narrow else max(down, LEAST))
    side = max(1.0, math.floor(side / n)) * n if side >= 2 * n else side  # whole pixels a cell where cells are big
    width = math.ceil(left + heads * side + (heads - 0.5) * GAP + 2 * PAD)  # the box's side half a gap past the last
    height = math.ceil(top + layers * side + (layers - 0.5) * GAP + 2 * PAD)  # whole px: the cells stay square
    cv, traces = Canvas(width, height), []
    x0, y0 = PAD + left, PAD + top
    for lay in range(layers):
        y = y0 + lay * (side + GAP)
        number = str(lay + 1) if lay != chosen else f"<b>{lay + 1}</b>"
        cv.note(number, x0 - GAP / 2 - PAD, y + side / 2, tick, xanchor="right", yanchor="middle")
        for head in range(heads):
            x = x0 + head * (side + GAP)
            k = lay * heads + head
            suffix = "" if k == 0 else str(k + 1)
            cv.axes(suffix, x, y, n, n, side / n, side / n, look)
            for axis in (f"xaxis{suffix}", f"yaxis{suffix}"):
                cv.layout[axis] |= dict(tickvals=[], showticklabels=False)
            mat = Mat(maps[lay, head], names[lay][head], "probs", row_label, col_label, masked[lay, head])
            trace = heatmap(mat, f"x{suffix}", f"y{suffix}", False, z=maps[lay, head], look=look)
            traces.append(trace | dict(xgap=0, ygap=0, zsmooth="fast"))
    for head in range(heads):
        cv.note(str(head + 1), x0 + head * (side + GAP) + side / 2, y0 - PAD, tick)
    cv.note(head_word, x0 + (heads * side + (heads - 1) * GAP) / 2, y0 - PAD - _line_h(tick), words)
    cv.note(layer_word, x0 - GAP / 2 - PAD, y0 - PAD, words, xanchor="right")  # level, also in Chinese
    if chosen is not None:
        y = y0 + chosen * (side + GAP)
        right, bottom = x0 + heads * side + (heads - 0.5) * GAP, y + side + GAP / 2
        cv.shapes.append(dict(type="rect", xref="paper", yref="paper", x0=(x0 - GAP / 2) / width, x1=right / width,
                              y0=1 - bottom / height, y1=1 - (y - GAP / 2) / height,
                              line=dict(color=HIGHLIGHT, width=2), fillcolor="rgba(0,0,0,0)"))
    fig = cv.spec(traces)
    fig.to_dict()["layout"]["margin"]["pad"] = 0  # the grey behind a thumbnail (its masked cells) stops at its edge
    return fig


def _line_h(size: float) -> float:
    """A line of type at `size` px, down (or across, turned on its side)."""
    return 1.3 * size + 2
