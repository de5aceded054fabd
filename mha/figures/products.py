"""A product A·B = C laid out so a row of A and a column of B meet at their cell; matrices side by side."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .base import (
    FONT,
    GAP,
    HIGHLIGHT,
    MARGIN,
    MASKED_BG,
    Mat,
    Spec,
    axis_spec,
    box,
    cell_size,
    click_layer,
    figure,
    heatmap,
    label,
    shown,
    wants_text,
)

GRID_GAP = 40  # px between small multiples


@dataclass(frozen=True)
class ProductLayout:
    """Geometry of the A·B = C layout: A bottom-left, B top-right, C bottom-right."""

    n: int  # rows of A and C (shown)
    k: int  # inner dimension (shown)
    m: int  # columns of B and C (shown)
    cell: int

    @property
    def size(self) -> tuple[int, int]:
        w = self.cell * (self.k + self.m) / (1 - GAP) + MARGIN["l"] + MARGIN["r"] + 70
        h = self.cell * (self.k + self.n) / (1 - GAP) + MARGIN["t"] + MARGIN["b"] + 60
        return int(max(w, 420)), int(max(h, 260))

    @property
    def split_x(self) -> float:
        return self.k / (self.k + self.m) * (1 - GAP)

    @property
    def split_y(self) -> float:
        return self.n / (self.k + self.n) * (1 - GAP)

    def axes(self) -> dict:
        sx, sy = self.split_x, self.split_y
        return dict(
            xaxis=axis_spec(self.k, (0, sx), "y"),
            yaxis=axis_spec(self.n, (0, sy), "x", reverse=True),
            xaxis2=axis_spec(self.m, (sx + GAP, 1), "y", side="top"),
            yaxis2=axis_spec(self.k, (sy + GAP, 1), "x2", reverse=True),
        )


def product_layout(a: np.ndarray, b: np.ndarray) -> ProductLayout:
    n, k = shown(a).shape
    m = shown(b).shape[1]
    return ProductLayout(n, k, m, cell_size(k + n, k + m + 1, max_w=780, max_h=620))


def product_figure(a: Mat, b: Mat, c: Mat, *, text: bool, formula: str,
                   selected: tuple[int, int] | None = None, hidden: tuple[int, int] | None = None, blocks: int = 0,
                   block_names: Sequence[str] = ()) -> Spec:
    """A·B = C. Trace 3 is the click layer over C; `selected` (0-based) outlines row, column, cell.

    `hidden` (0-based) blanks one cell of C and writes "?" there, for a quiz.
    `blocks` > 0 splits the inner dimension into blocks of that size (one per head): lines between
    the column blocks of A and the row blocks of B, labelled with `block_names`.
    """
    geo = product_layout(a.values, b.values)
    if hidden is not None:
        blank = np.array(c.values, dtype=float)
        blank[hidden] = np.nan
        c = Mat(blank, c.name, c.kind, c.row_label, c.col_label)
    traces = [
        heatmap(a, "x", "y", wants_text(text, a.values, geo.cell), cell=geo.cell),
        heatmap(b, "x2", "y2", wants_text(text, b.values, geo.cell), cell=geo.cell),
        heatmap(c, "x2", "y", wants_text(text, c.values, geo.cell), cell=geo.cell,
                colorbar=dict(thickness=10, len=geo.split_y, y=0, yanchor="bottom")),
        click_layer(c, "x2", "y"),
    ]
    if hidden is not None:
        traces.append(dict(type="scatter", x=[hidden[1] + 1], y=[hidden[0] + 1], mode="text", text=["?"],
                           textfont=dict(size=20, color=HIGHLIGHT), xaxis="x2", yaxis="y", hoverinfo="skip",
                           showlegend=False))
    sx, sy = geo.split_x, geo.split_y
    titles = [
        label(f"<b>{a.name}</b> · {a.shape_text}", sx / 2, sy + 0.005),
        label(f"<b>{b.name}</b> · {b.shape_text}", (sx + GAP + 1) / 2, 1.0 + 0.06 * (geo.k > 0)),
        label(f"<b>{c.name}</b> · {c.shape_text}", (sx + GAP + 1) / 2, -0.001, size=13),
        label(formula, sx / 2, (sy + GAP + 1) / 2, size=16),
    ]
    titles[2].update(yanchor="top", y=-0.02)
    shapes = []
    if selected is not None:
        i, j = selected[0] + 1, selected[1] + 1
        shapes = [box("x", "y", 1, geo.k, i, i), box("x2", "y2", j, j, 1, geo.k), box("x2", "y", j, j, i, i)]
    for edge in range(blocks, geo.k, blocks) if blocks else ():
        line = dict(color=HIGHLIGHT, width=2, dash="dot")
        shapes.append(dict(type="line", xref="x", yref="y", x0=edge + 0.5, x1=edge + 0.5, y0=0.5, y1=geo.n + 0.5,
                           line=line))
        shapes.append(dict(type="line", xref="x2", yref="y2", x0=0.5, x1=geo.m + 0.5, y0=edge + 0.5,
                           y1=edge + 0.5, line=line))
    for b_idx, block_name in enumerate(block_names):
        mid = b_idx * blocks + (blocks + 1) / 2
        if blocks and mid <= geo.k:
            titles.append(dict(text=block_name, xref="paper", yref="y2", x=1.0, y=mid, xanchor="left", showarrow=False,
                               font=dict(size=11)))
    w, h = geo.size
    return figure(traces, dict(
        width=w, height=h, margin=dict(MARGIN, b=MARGIN["b"] + 22), annotations=titles, shapes=shapes,
        plot_bgcolor=MASKED_BG, font=dict(family=FONT, color="#1f2937"), dragmode=False, **geo.axes(),
    ))


def grid_figure(mats: Sequence[Mat], *, text: bool, block_cols: int = 0, block_names: Sequence[str] = ()) -> Spec:
    """Matrices side by side (small multiples), same cell size. `block_cols` marks column blocks.

    Panels are at least GRID_GAP px apart, room for the next panel's row numbers.
    """
    shapes_ = [shown(m.values).shape for m in mats]
    max_r = max(s[0] for s in shapes_)
    widths = [s[1] for s in shapes_]
    gaps = GRID_GAP * (len(mats) - 1)
    cell = int(max(4, min(44, (900 - gaps) / sum(widths), 420 / max_r)))
    total_px = cell * sum(widths) + gaps
    traces, layout, annotations, shapes, x = [], {}, [], [], 0.0
    for idx, (m, (r, c)) in enumerate(zip(mats, shapes_)):
        ax = "" if idx == 0 else str(idx + 1)
        x0, x1 = x / total_px, (x + c * cell) / total_px
        x += c * cell + GRID_GAP
        y_top = r / max_r
        traces.append(heatmap(m, f"x{ax}", f"y{ax}", wants_text(text, m.values, cell), cell=cell))
        layout[f"xaxis{ax}"] = axis_spec(c, (x0, x1), f"y{ax}")
        layout[f"yaxis{ax}"] = axis_spec(r, (1 - y_top, 1), f"x{ax}", reverse=True)
        annotations.append(label(f"<b>{m.name}</b> · {m.shape_text}", (x0 + x1) / 2, 1.02))
        for b in range(1, (c // block_cols) if block_cols else 0):
            shapes.append(dict(type="line", xref=f"x{ax}", yref=f"y{ax}", x0=b * block_cols + 0.5,
                               x1=b * block_cols + 0.5, y0=0.5, y1=r + 0.5, line=dict(color=HIGHLIGHT, width=3)))
        for b, block_name in enumerate(block_names[: (c // block_cols) if block_cols else 0]):
            middle = b * block_cols + (block_cols + 1) / 2
            annotations.append(dict(text=block_name, xref=f"x{ax}", yref="paper", x=middle, y=-0.02, yanchor="top",
                                    showarrow=False, font=dict(size=12)))
    width = int(total_px + MARGIN["l"] + MARGIN["r"] + 20)
    height = int(cell * max_r + MARGIN["t"] + MARGIN["b"] + 40)
    return figure(traces, dict(width=max(width, 360), height=max(height, 200), margin=MARGIN, annotations=annotations,
                      shapes=shapes, plot_bgcolor=MASKED_BG, font=dict(family=FONT, color="#1f2937"), dragmode=False,
                      **layout))
