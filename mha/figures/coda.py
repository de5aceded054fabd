"""The coda's small charts: GELU with one row's hidden values on it, the next token's probabilities, and the
trained model's training curves (its loss; its accuracy with and without heads, beside its induction score)."""

import html

import numpy as np

from mha.block import gelu

from .base import DESK, Look, Spec, axis_type, figure, log_span
from .text import FONT, fit_text, text_px, widest
from .ticks import tick_titles

LABEL_SHARE = 0.4  # of the probability chart's width, the most its names (left of the bars) take


def gelu_figure(hidden: np.ndarray, act: np.ndarray, curve: str, points: str, look: Look = DESK) -> Spec:
    """GELU over [−4, 4] as a line; `hidden` (one row of H) as markers at (h, GELU(h)) = `act`."""
    xs = np.linspace(-4, 4, 161)
    data = [dict(type="scatter", x=xs.tolist(), y=gelu(xs).tolist(), mode="lines", name=curve,
                 line=dict(color="#6366f1", width=2)),
            dict(type="scatter", x=np.asarray(hidden, float).tolist(), y=np.asarray(act, float).tolist(),
                 mode="markers", name=points, marker=dict(size=9, color="#dc2626"),
                 hovertemplate="h = %{x:.4g}<br>GELU(h) = %{y:.4g}<extra></extra>")]
    size = look.tick + 2
    grow = size / (DESK.tick + 2)  # the desk's 560×300 px, grown with the type (a projector's is larger)
    axes = axis_type(size)
    layout = dict(height=min(round(300 * grow), look.max_h), width=min(round(560 * grow), look.max_w),
                  margin=dict(l=round(3.5 * size), r=16, t=round(2.5 * size) + 8, b=3 * size),
                  font=dict(family=FONT, size=size),
                  legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom", font=dict(size=size)),
                  xaxis=axes["xaxis"] | dict(zeroline=True, fixedrange=True),
                  yaxis=axes["yaxis"] | dict(zeroline=True, fixedrange=True))
    return figure(data, layout)


def probs_figure(probs: np.ndarray, labels: list[str], chosen: int, title: str, most: int = 20,
                 look: Look = DESK) -> Spec:
    """The `most` likeliest tokens as horizontal bars, likeliest on top; `chosen` drawn in red.

    Everything is placed here (bar k at y = k, the names as tick labels, the left margin as wide as the longest
    name), so the page can draw it without Plotly. A name takes at most LABEL_SHARE of the width: a longer token is
    shortened there, and written whole in the bar's hover label and the tick's title. Labels are user text:
    HTML-escaped, since the chart reads some HTML in its text."""
    probs = np.asarray(probs, float)
    order = [int(i) for i in np.argsort(-probs, kind="stable")[:most]][::-1]
    size, width = look.tick + 2, min(560, look.max_w)
    room = LABEL_SHARE * width - 14
    whole = [f"{html.escape(labels[i], quote=False)} ({i})" for i in order]
    names = [f"{html.escape(fit_text(labels[i], size, room - text_px(f' ({i})', size)), quote=False)} ({i})"
             for i in order]
    colours = ["#dc2626" if i == chosen else "#6366f1" for i in order]
    rows = list(range(len(order)))
    data = [dict(type="bar", orientation="h", x=[float(probs[i]) for i in order], y=rows, width=0.8,
                 marker=dict(color=colours), text=[f"{probs[i]:.3f}" for i in order], textposition="outside",
                 textfont=dict(size=size), cliponaxis=False,  # beside the bar, at full size (inside, Plotly shrinks it)
                 customdata=[[i, name] for i, name in zip(order, whole)],
                 hovertemplate="%{customdata[1]}: %{x:.4f}<extra></extra>")]
    row = max(24, round(2 * size))  # px a bar
    axes = axis_type(size)
    ticks = [0, 0.2, 0.4, 0.6, 0.8, 1]
    left = round(widest(names, size)) + 14
    height = max(160, 2 * look.title + 3 * size + row * len(order))
    layout = dict(height=height, width=width,
                  margin=dict(l=left, r=int(text_px("0.000", size)) + 12, t=2 * look.title, b=2 * size),
                  font=dict(family=FONT, size=size),
                  title=dict(text=title, font=dict(size=look.title), xref="container", yref="container", x=0.05,
                             xanchor="left", y=1 - look.title / height, yanchor="middle"),  # amid the top margin
                  xaxis=axes["xaxis"] | dict(range=[0, 1], fixedrange=True, tickmode="array", tickvals=ticks,
                                             ticktext=[f"{v:g}" for v in ticks], showgrid=True, zeroline=False,
                                             automargin=False),
                  yaxis=axes["yaxis"] | dict(range=[-0.5, len(order) - 0.5], fixedrange=True, showgrid=False,
                                             tickmode="array", tickvals=rows, ticktext=names, zeroline=False,
                                             automargin=False))
    if names != whole:
        tick_titles(layout, "yaxis", whole)
    return figure(data, layout)


def loss_figure(steps, losses, chosen: int, *, x_title: str, y_title: str, look: Look = DESK) -> Spec:
    """The loss at each training snapshot, log scale (the plateau and the drop both show); the snapshot
    `chosen` (an index) marked in red."""
    steps, losses = [int(s) for s in steps], [float(v) for v in losses]
    size = look.tick + 2
    axes = axis_type(size, xaxis=x_title, yaxis=y_title)
    data = [dict(type="scatter", x=steps, y=losses, mode="lines+markers", line=dict(color="#6366f1", width=2),
                 marker=dict(size=6), hovertemplate="%{x}: %{y:.4g}<extra></extra>"),
            dict(type="scatter", x=[steps[chosen]], y=[losses[chosen]], mode="markers",
                 marker=dict(size=14, color="#dc2626", line=dict(color="white", width=2)), hoverinfo="skip")]
    layout = dict(height=max(240, 18 * size), width=min(640, look.max_w), showlegend=False,
                  margin=dict(l=int(4.5 * size), r=16, t=12, b=int(3.5 * size)), font=dict(family=FONT, size=size),
                  xaxis=axes["xaxis"] | dict(fixedrange=True),
                  yaxis=axes["yaxis"] | dict(type="log", fixedrange=True, exponentformat="power") | log_span(losses))
    return figure(data, layout)


SERIES_COLOURS = ("#6366f1", "#dc2626", "#059669")  # indigo, red, green: told apart by their dashes too
SERIES_DASHES = ("solid", "dash", "dot")


def series_figure(steps, series, chosen: int, *, x_title: str, y_title: str, look: Look = DESK) -> Spec:
    """Values between 0 and 1 at each training snapshot, one line per (name, values) in `series` (three at most),
    each with its own colour and dash and named in a legend above; the snapshot `chosen` (an index) marked on
    every line."""
    steps = [int(s) for s in steps]
    size = look.tick + 2
    axes = axis_type(size, xaxis=x_title, yaxis=y_title)
    data = []
    for (name, values), colour, dash in zip(series, SERIES_COLOURS, SERIES_DASHES):
        values = [float(v) for v in values]
        label = html.escape(name, quote=False)
        data.append(dict(type="scatter", x=steps, y=values, mode="lines+markers", name=label,
                         line=dict(color=colour, width=2, dash=dash), marker=dict(size=6),
                         hovertemplate=f"{label}<br>%{{x}}: %{{y:.3f}}<extra></extra>"))
        data.append(dict(type="scatter", x=[steps[chosen]], y=[values[chosen]], mode="markers", showlegend=False,
                         marker=dict(size=12, color=colour, line=dict(color="white", width=2)), hoverinfo="skip"))
    rows = 1 if look.max_w >= 560 else len(data) // 2  # the legend's lines: one, or one per series on a phone
    top = int(1.6 * size * rows) + 12
    layout = dict(height=max(260, 18 * size) + top, width=min(640, look.max_w), font=dict(family=FONT, size=size),
                  margin=dict(l=int(4.5 * size), r=16, t=top, b=int(3.5 * size)),
                  legend=dict(orientation="h", x=0, y=1.02, yanchor="bottom", font=dict(size=size)),
                  xaxis=axes["xaxis"] | dict(fixedrange=True),
                  yaxis=axes["yaxis"] | dict(range=[-0.02, 1.02], fixedrange=True))
    return figure(data, layout)
