"""Plotly builders: arrays and labels in, go.Figure out. No Streamlit here.

Matrices are drawn the way the post writes them: row 1 at the top, columns left to right, square
cells, one colour scale per quantity (diverging and centred at 0 for signed values, 0..1 for S).
A product A·B = C is laid out with B above C and A left of C, so the row of A and the column of B
that make a cell of C meet at that cell.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

SIGNED = "RdBu_r"  # blue < 0 < red
PROBS = "Oranges"  # 0 .. 1
MAGNITUDE = "Purples"  # 0 .. max, for sizes (norms)
HIGHLIGHT = "#111827"
MASKED_BG = "#d1d5db"  # what a −∞ (gap) cell shows
FONT = "Noto Sans CJK SC, Noto Sans, Arial, sans-serif"
MAX_TEXT_SIDE = 16  # no numbers in cells when a matrix is larger than this on either side
MAX_SIDE = 48  # a longer axis is windowed to its first MAX_SIDE entries, with a note
MIN_TEXT_CELL = 26  # pixels: smaller cells get no numbers (hover still gives them)
GAP = 0.04  # space between panels, as a fraction of the figure
MARGIN = dict(l=36, r=16, t=56, b=24)


@dataclass(frozen=True)
class Mat:
    """A matrix to draw: its values, the post's name, what its rows and columns count."""

    values: np.ndarray
    name: str  # e.g. "Q₁"
    kind: str = "signed"  # "signed" (centred at 0), "probs" (0..1) or "magnitude" (0..max)
    row_label: str = "row"  # hover text: what a row index means ("token", "feature")
    col_label: str = "col"

    @property
    def shape_text(self) -> str:
        return "×".join(str(s) for s in self.values.shape)


@dataclass(frozen=True)
class Window:
    """Which leading part of each axis is drawn (all of it unless longer than MAX_SIDE)."""

    rows: int
    cols: int
    full: tuple[int, int] = field(default=(0, 0))

    @property
    def clipped(self) -> bool:
        return (self.rows, self.cols) != self.full


def window(m: np.ndarray, limit: int = MAX_SIDE) -> Window:
    return Window(min(m.shape[0], limit), min(m.shape[1], limit), tuple(m.shape))


def shown(m: np.ndarray, limit: int = MAX_SIDE) -> np.ndarray:
    return m[:limit, :limit]


def wants_text(text: bool, m: np.ndarray, cell: int) -> bool:
    """Numbers in the cells of `m`: asked for, at most MAX_TEXT_SIDE a side, cells big enough to read."""
    return text and max(m.shape) <= MAX_TEXT_SIDE and cell >= MIN_TEXT_CELL


def cell_size(rows: int, cols: int, target: int = 44, max_w: int = 860, max_h: int = 640) -> int:
    """Pixels per (square) cell so that a grid of rows × cols fits the budget."""
    return int(max(6, min(target, max_w / max(cols, 1), max_h / max(rows, 1))))


def _clean(z: np.ndarray) -> list:
    """−∞/NaN become None: Plotly leaves those cells empty (a gap)."""
    return np.where(np.isfinite(z), z, np.nan).tolist()


def _limit(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    top = float(np.max(np.abs(finite))) if finite.size else 1.0
    return top if top > 0 else 1.0


def heatmap(m: Mat, xaxis: str, yaxis: str, text: bool, *, z=None, zlim=None, scale=True, colorbar=None):
    """One heatmap trace for `m` (windowed), cell text when small, hover naming row and column."""
    z = shown(m.values) if z is None else z
    lim = zlim if zlim is not None else _limit(np.asarray(z, float))
    ranges = {"probs": (PROBS, 0.0, 1.0), "magnitude": (MAGNITUDE, 0.0, lim)}
    scale_, low, high = ranges.get(m.kind, (SIGNED, -lim, lim))
    return go.Heatmap(
        z=_clean(np.asarray(z, float)),
        xaxis=xaxis,
        yaxis=yaxis,
        colorscale=scale_,
        zmin=low,
        zmax=high,
        showscale=scale and colorbar is not None,
        colorbar=colorbar,
        texttemplate="%{z:.3~g}" if text else None,
        textfont=dict(size=11),
        hoverongaps=False,
        hovertemplate=f"{m.name}[%{{y}}, %{{x}}] = %{{z:.6g}}<br>{m.row_label} %{{y}} · {m.col_label} %{{x}}"
        "<extra></extra>",
        x0=1,
        y0=1,
        xgap=1,
        ygap=1,
        name=m.name,
    )


def click_layer(m: Mat, xaxis: str, yaxis: str) -> go.Scatter:
    """Near-transparent square markers on every cell centre of `m`: Streamlit returns these on click.

    A heatmap click returns nothing in Streamlit 1.67, and a trace with hoverinfo "skip" sends no
    clicks, so this layer also carries the cell's hover text (it sits on top of the heatmap).
    """
    values = shown(m.values)
    rows, cols = values.shape
    ii, jj = np.mgrid[1 : rows + 1, 1 : cols + 1]
    return go.Scatter(
        x=jj.ravel().tolist(),
        y=ii.ravel().tolist(),
        customdata=np.stack([ii.ravel() - 1, jj.ravel() - 1], axis=1).tolist(),
        text=[f"{v:.6g}" for v in values.ravel()],
        mode="markers",
        marker=dict(symbol="square", size=14, opacity=0.003, color="#000", line=dict(width=0)),
        xaxis=xaxis,
        yaxis=yaxis,
        hovertemplate=f"{m.name}[%{{y}}, %{{x}}] = %{{text}}<br>{m.row_label} %{{y}} · {m.col_label} %{{x}}"
        "<extra></extra>",
        showlegend=False,
        name="click",
    )


def _axis(n: int, domain, anchor: str, reverse: bool = False, side: str | None = None, title=None) -> dict:
    step = 1 if n <= 16 else (2 if n <= 32 else 8)
    ax = dict(
        domain=list(domain),
        anchor=anchor,
        range=[n + 0.5, 0.5] if reverse else [0.5, n + 0.5],
        tickmode="array",
        tickvals=list(range(1, n + 1, step)),
        showgrid=False,
        zeroline=False,
        ticks="",
        tickfont=dict(size=10),
        fixedrange=True,
        constrain="domain",
    )
    if side:
        ax["side"] = side
    if title:
        ax["title"] = dict(text=title, font=dict(size=11), standoff=2)
    return ax


def _title(text: str, x: float, y: float, xanchor="center", size=13) -> dict:
    return dict(text=text, x=x, y=y, xref="paper", yref="paper", xanchor=xanchor, yanchor="bottom",
                showarrow=False, font=dict(size=size))


def box(axis_x: str, axis_y: str, x0, x1, y0, y1, color=HIGHLIGHT, width=3, dash=None) -> dict:
    """A rectangle around cells x0..x1, y0..y1 (1-based, inclusive) of one panel."""
    return dict(type="rect", xref=axis_x, yref=axis_y, x0=x0 - 0.5, x1=x1 + 0.5, y0=y0 - 0.5, y1=y1 + 0.5,
                line=dict(color=color, width=width, dash=dash), fillcolor="rgba(0,0,0,0)")


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
            xaxis=_axis(self.k, (0, sx), "y"),
            yaxis=_axis(self.n, (0, sy), "x", reverse=True),
            xaxis2=_axis(self.m, (sx + GAP, 1), "y", side="top"),
            yaxis2=_axis(self.k, (sy + GAP, 1), "x2", reverse=True),
        )


def product_layout(a: np.ndarray, b: np.ndarray) -> ProductLayout:
    n, k = shown(a).shape
    m = shown(b).shape[1]
    return ProductLayout(n, k, m, cell_size(k + n, k + m + 1, max_w=780, max_h=620))


def product_figure(a: Mat, b: Mat, c: Mat, *, text: bool, formula: str,
                   selected: tuple[int, int] | None = None, blocks: int = 0,
                   block_names: Sequence[str] = ()) -> go.Figure:
    """A·B = C. Trace 3 is the click layer over C; `selected` (0-based) outlines row, column, cell.

    `blocks` > 0 splits the inner dimension into blocks of that size (one per head): lines between
    the column blocks of A and the row blocks of B, labelled with `block_names`.
    """
    geo = product_layout(a.values, b.values)
    traces = [
        heatmap(a, "x", "y", wants_text(text, a.values, geo.cell)),
        heatmap(b, "x2", "y2", wants_text(text, b.values, geo.cell)),
        heatmap(c, "x2", "y", wants_text(text, c.values, geo.cell),
                colorbar=dict(thickness=10, len=geo.split_y, y=0, yanchor="bottom")),
        click_layer(c, "x2", "y"),
    ]
    fig = go.Figure(traces)
    sx, sy = geo.split_x, geo.split_y
    titles = [
        _title(f"<b>{a.name}</b> · {a.shape_text}", sx / 2, sy + 0.005),
        _title(f"<b>{b.name}</b> · {b.shape_text}", (sx + GAP + 1) / 2, 1.0 + 0.06 * (geo.k > 0)),
        _title(f"<b>{c.name}</b> · {c.shape_text}", (sx + GAP + 1) / 2, -0.001, size=13),
        _title(formula, sx / 2, (sy + GAP + 1) / 2, size=16),
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
    for b_idx, label in enumerate(block_names):
        mid = b_idx * blocks + (blocks + 1) / 2
        if blocks and mid <= geo.k:
            titles.append(dict(text=label, xref="paper", yref="y2", x=1.0, y=mid, xanchor="left", showarrow=False,
                               font=dict(size=11)))
    w, h = geo.size
    fig.update_layout(
        width=w, height=h, margin=dict(MARGIN, b=MARGIN["b"] + 22), annotations=titles, shapes=shapes,
        plot_bgcolor=MASKED_BG, font=dict(family=FONT, color="#1f2937"), dragmode=False, **geo.axes(),
    )
    return fig


def grid_figure(mats: Sequence[Mat], *, text: bool, cols: int | None = None,
                block_cols: int = 0, block_names: Sequence[str] = ()) -> go.Figure:
    """Matrices side by side (small multiples), same cell size. `block_cols` marks column blocks."""
    cols = cols or len(mats)
    shapes_ = [shown(m.values).shape for m in mats]
    max_r = max(s[0] for s in shapes_)
    widths = [s[1] for s in shapes_]
    total_w = sum(widths[:cols]) + 2 * (cols - 1)
    cell = cell_size(max_r, total_w, max_w=900, max_h=420)
    fig = go.Figure()
    layout, annotations, shapes, x = {}, [], [], 0.0
    for idx, (m, (r, c)) in enumerate(zip(mats, shapes_)):
        ax = "" if idx == 0 else str(idx + 1)
        x0, x1 = x / total_w, (x + c) / total_w
        x += c + 2
        y_top = r / max_r
        fig.add_trace(heatmap(m, f"x{ax}", f"y{ax}", wants_text(text, m.values, cell)))
        layout[f"xaxis{ax}"] = _axis(c, (x0, x1), f"y{ax}")
        layout[f"yaxis{ax}"] = _axis(r, (1 - y_top, 1), f"x{ax}", reverse=True)
        annotations.append(_title(f"<b>{m.name}</b> · {m.shape_text}", (x0 + x1) / 2, 1.02))
        for b in range(1, (c // block_cols) if block_cols else 0):
            shapes.append(dict(type="line", xref=f"x{ax}", yref=f"y{ax}", x0=b * block_cols + 0.5,
                               x1=b * block_cols + 0.5, y0=0.5, y1=r + 0.5, line=dict(color=HIGHLIGHT, width=3)))
        for b, label in enumerate(block_names[: (c // block_cols) if block_cols else 0]):
            annotations.append(dict(text=label, xref=f"x{ax}", yref="paper", x=b * block_cols + (block_cols + 1) / 2,
                                    y=-0.02, yanchor="top", showarrow=False, font=dict(size=12)))
    width = int(cell * total_w + MARGIN["l"] + MARGIN["r"] + 20)
    height = int(cell * max_r + MARGIN["t"] + MARGIN["b"] + 40)
    fig.update_layout(width=max(width, 360), height=max(height, 200), margin=MARGIN, annotations=annotations,
                      shapes=shapes, plot_bgcolor=MASKED_BG, font=dict(family=FONT, color="#1f2937"), dragmode=False,
                      **layout)
    return fig


@dataclass(frozen=True)
class ScoreSteps:
    """The arrays of the QKᵀ → ÷√d_k → mask → softmax walk for one head, and its words."""

    q: np.ndarray  # (n, d_k)
    k: np.ndarray  # (n, d_k)
    scores: np.ndarray  # (n, n)
    scaled: np.ndarray
    masked: np.ndarray  # −inf above the diagonal
    probs: np.ndarray  # S
    names: dict  # q, kt, scores, scaled, masked, probs -> display names
    words: dict  # fill, scale, mask, softmax, play, pause -> frame captions


def _chunks(n: int, most: int = 10) -> list[range]:
    """Rows 0..n-1 in at most `most` consecutive groups (one frame each)."""
    step = -(-n // most)
    return [range(s, min(s + step, n)) for s in range(0, n, step)]


def scores_animation(st_: ScoreSteps, *, text: bool) -> go.Figure:
    """Q·Kᵀ filling in, ÷√d_k, the mask falling, softmax row by row — as Plotly frames.

    Traces: 0 Q, 1 Kᵀ, 2 signed scores (one fixed diverging scale), 3 S (0..1), 4 "−∞" labels,
    5 click layer. Frames redraw traces 2-4, the highlight boxes and the row sums (annotations).
    """
    n, d_k = st_.q.shape
    geo = product_layout(st_.q, st_.k.T)
    nn, kk = geo.n, geo.k
    show_text = wants_text(text, st_.q, geo.cell)
    lim = _limit(st_.scores)
    nan = np.full((nn, nn), np.nan)
    upper = np.triu(np.ones((nn, nn), bool), k=1)
    names, words = st_.names, st_.words
    signed = Mat(st_.scores, names["scores"])
    probs_m = Mat(st_.probs, names["probs"], kind="probs")
    cb = dict(thickness=10, len=geo.split_y * 0.48, y=0, yanchor="bottom", x=1.0, xpad=44)
    cb_p = dict(cb, y=geo.split_y * 0.52, title=dict(text="S", side="top"))

    def state(z_signed, z_probs, inf_from: int, sums: int, box_rows=None, box_cols=None, caption=""):
        """One frame; "−∞" is written on the masked cells of rows inf_from.. (none when inf_from = nn)."""
        ii, jj = np.nonzero(upper[inf_from:])
        ii = ii + inf_from
        data = [
            heatmap(signed, "x2", "y", show_text, z=z_signed, zlim=lim, colorbar=cb),
            heatmap(probs_m, "x2", "y", show_text, z=z_probs, colorbar=cb_p),
            go.Scatter(x=(jj + 1).tolist(), y=(ii + 1).tolist(), mode="text",
                       text=["−∞"] * len(ii), textfont=dict(size=13 if show_text else 9, color="#374151"),
                       xaxis="x2", yaxis="y", hoverinfo="skip", showlegend=False),
        ]
        hidden = dict(box("x", "y", 1, 1, 1, 1), visible=False)  # every frame has 3 shapes, or old ones linger
        rows_ = box_rows or [0]
        cols_ = box_cols or [0]
        shapes = [
            box("x", "y", 1, kk, rows_[0] + 1, rows_[-1] + 1) if box_rows else hidden,
            box("x2", "y", 1, nn, rows_[0] + 1, rows_[-1] + 1, width=2, dash="dot") if box_rows else hidden,
            box("x2", "y2", cols_[0] + 1, cols_[-1] + 1, 1, kk) if box_cols else hidden,
        ]
        sums_ = [dict(text="Σ=1", x=1.005, y=i + 1, xref="paper", yref="y", xanchor="left", showarrow=False,
                      font=dict(size=11, color="#9a3412"), visible=i < sums) for i in range(nn)]
        return data, shapes, (caption, sums_)

    sc, sl, mk, pr = (shown(a) for a in (st_.scores, st_.scaled, st_.masked, st_.probs))
    frames = []
    cells = [(i, j) for i in range(nn) for j in range(nn)] if nn <= 4 else None
    if cells:  # small: one frame per cell, q_i and k_j outlined
        for f, (i, j) in enumerate(cells):
            z = nan.copy()
            z.flat[: f + 1] = sc.flat[: f + 1]
            frames.append(state(z, nan, nn, 0, [i], [j], words["fill"].format(i=i + 1, j=j + 1)))
    else:  # larger: a group of rows per frame, those q rows and all of Kᵀ outlined
        for rows in _chunks(nn):
            z = nan.copy()
            z[: rows[-1] + 1] = sc[: rows[-1] + 1]
            frames.append(state(z, nan, nn, 0, list(rows), None,
                                words["fill_rows"].format(a=rows[0] + 1, b=rows[-1] + 1)))
    frames.append(state(sl, nan, nn, 0, caption=words["scale"].format(d_k=d_k)))
    frames.append(state(mk, nan, 0, 0, caption=words["mask"]))
    for rows in _chunks(nn):
        done = rows[-1] + 1
        z_s, z_p = mk.copy(), nan.copy()
        z_s[:done], z_p[:done] = np.nan, pr[:done]
        frames.append(state(z_s, z_p, done, done, list(rows), None,
                            words["softmax"].format(a=rows[0] + 1, b=done)))
    return _animated(frames, geo, st_, show_text, words)


def _animated(frames, geo: ProductLayout, st_: ScoreSteps, show_text: bool, words: dict) -> go.Figure:
    names = st_.names
    sx, sy = geo.split_x, geo.split_y
    first_data, first_shapes, first_caption = frames[0]
    base = [
        heatmap(Mat(st_.q, names["q"]), "x", "y", show_text),
        heatmap(Mat(st_.k.T, names["kt"]), "x2", "y2", show_text),
        *first_data,
        click_layer(Mat(st_.probs, names["probs"], "probs"), "x2", "y"),
    ]
    titles = [
        _title(f"<b>{names['q']}</b> · {geo.n}×{st_.q.shape[1]}", sx / 2, sy + 0.005),
        _title(f"<b>{names['kt']}</b> · {st_.q.shape[1]}×{geo.n}", (sx + GAP + 1) / 2, 1.06),
        _title(f"<b>{names['scores']} → {names['probs']}</b> · {geo.n}×{geo.n}", (sx + GAP + 1) / 2, -0.02)
        | dict(yanchor="top"),
    ]

    def caption(text_and_sums):
        text, sums = text_and_sums
        return [*titles, _title(text, sx / 2, (sy + GAP + 1) / 2, size=14), *sums]

    fig = go.Figure(base, frames=[
        go.Frame(data=data, traces=[2, 3, 4], name=str(i), layout=dict(shapes=shapes, annotations=caption(cap)))
        for i, (data, shapes, cap) in enumerate(frames)
    ])
    play = dict(frame=dict(duration=900, redraw=True), fromcurrent=True, transition=dict(duration=0))
    pause = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    w, h = geo.size
    fig.update_layout(
        width=w + 40, height=h + 70, margin=dict(MARGIN, b=90), annotations=caption(first_caption),
        shapes=first_shapes, plot_bgcolor=MASKED_BG, font=dict(family=FONT, color="#1f2937"), dragmode=False,
        updatemenus=[dict(type="buttons", direction="left", x=0, y=1.0, xanchor="left", yanchor="bottom",
                          pad=dict(t=0, r=6), showactive=False, buttons=[
                              dict(label=words["play"], method="animate", args=[None, play]),
                              dict(label=words["pause"], method="animate", args=[[None], pause])])],
        sliders=[dict(active=0, x=0.0, y=-0.02, len=1.0, yanchor="top", pad=dict(t=30),
                      currentvalue=dict(visible=False), steps=[
                          dict(label=str(i + 1), method="animate",
                               args=[[str(i)], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                                    transition=dict(duration=0))])
                          for i in range(len(frames))])],
        **geo.axes(),
    )
    return fig
