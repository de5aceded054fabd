"""One KV-cache decode step as Plotly frames, and the cost of decoding with and without the cache."""

from dataclasses import dataclass

import numpy as np

from .base import (
    FONT,
    MARGIN,
    MASKED_BG,
    MAX_SIDE,
    SIGNED,
    Mat,
    Spec,
    abs_limit,
    axis_spec,
    figure,
    heatmap,
    label,
    outline,
    patch,
    wants_text,
)

FADED = 0.12  # opacity of Q rows once they are no longer needed
MAX_COLS = 16  # columns drawn of Q, K, V, H and Y: four panels share one row of the figure


@dataclass(frozen=True)
class CacheStep:
    """Token t arriving at a cache of t-1 tokens, for one head; Y is the whole layer's output."""

    q: np.ndarray  # (t, d_k): rows 1..t-1 as a full recompute would have them, row t is q_t
    k: np.ndarray  # (t, d_k) the K cache after the step
    v: np.ndarray  # (t, d_v) the V cache after the step
    scaled: np.ndarray  # (t,) q_t·Kᵀ/√d_k
    probs: np.ndarray  # (t,) S_t
    head: np.ndarray  # (d_v,) H_t
    y: np.ndarray  # (t, d_model): rows 1..t-1 before the step, row t from the cache
    names: dict  # q, k, v, s, h, y -> display names (HTML)
    words: dict  # arrive, append, scores, softmax, drop_q, output, play, pause, unchanged


@dataclass(frozen=True)
class _Panel:
    key: str
    rows: int
    cols: int
    x0: float  # in cells, from the left
    y0: float  # in cells, from the top


def _panels(s: CacheStep) -> list[_Panel]:
    """Top: Q, K cache, V cache (t rows each). Below: Y (t rows), then S_t and H_t (one row each)."""
    t = min(s.k.shape[0], MAX_SIDE)
    q, k, v, y = (min(a.shape[1], MAX_COLS) for a in (s.q, s.k, s.v, s.y))
    below = t + 3.6
    return [
        _Panel("q", t, q, 0, 0), _Panel("k", t, k, q + 2, 0), _Panel("v", t, v, q + k + 4, 0),
        _Panel("y", t, y, 0, below), _Panel("s", 1, t, y + 2, below), _Panel("h", 1, v, y + t + 4, below),
    ]


def _last_rows(a: np.ndarray) -> np.ndarray:
    """The last MAX_SIDE rows (the new token is the last row) and the first MAX_COLS columns."""
    return a[-MAX_SIDE:, :MAX_COLS]


def cache_animation(s: CacheStep, *, text: bool) -> Spec:
    """Frames: X_t arrives; q_t, k_t, v_t computed and k_t, v_t appended; the score row against the cache;
    softmax; earlier Q rows dropped; H_t and Y_t appear while Y_1..t-1 stay as they were."""
    t_full = s.k.shape[0]
    first = max(t_full - MAX_SIDE, 0)  # token index of the first drawn row
    panels = {p.key: p for p in _panels(s)}
    total_w = max(p.x0 + p.cols for p in panels.values())
    total_h = panels["y"].y0 + panels["y"].rows
    cell = int(max(6, min(40, 820 / total_w, 640 / total_h)))
    axes, ax_of = _axes(panels, total_w, total_h, first)
    q, k, v, y = (_last_rows(a) for a in (s.q, s.k, s.v, s.y))
    t = k.shape[0]

    def last_row_only(a):
        out = np.full(a.shape, np.nan)
        out[-1] = a[-1]
        return out

    def without_last(a):
        out = a.copy()
        out[-1] = np.nan
        return out

    n = s.names
    mats = dict(q=Mat(s.q, n["q"]), k=Mat(s.k, n["k"]), v=Mat(s.v, n["v"]), y=Mat(s.y, n["y"]),
                s=Mat(s.probs[None], n["s"], "probs"), h=Mat(s.head[None], n["h"]))
    tx = {key: wants_text(text, _last_rows(m.values), cell) for key, m in mats.items()}
    lims = dict(q=abs_limit(s.q), k=abs_limit(s.k), v=abs_limit(s.v), y=abs_limit(s.y), h=abs_limit(s.head),
                a=abs_limit(s.scaled))
    scaled_row = s.scaled[None, -MAX_SIDE:]
    probs_row = s.probs[None, -MAX_SIDE:]

    def frame(step: int) -> list:
        """Traces in a fixed order: Q old, q_t, K, V, Y, score row (signed), S_t, H_t."""
        def trace(key, z, kind_key=None, opacity=1.0, zlim=None):
            m = mats[kind_key or key]
            text_on = tx[key] and opacity == 1.0  # a faded row loses its numbers too
            hm = heatmap(m, *ax_of[key], text_on, z=z, zlim=zlim if zlim is not None else lims.get(key), cell=cell)
            hm.update(opacity=opacity, y0=first + 1)
            return hm

        q_old = FADED if step >= 4 else 1.0
        traces = [
            trace("q", without_last(q), opacity=q_old),
            trace("q", last_row_only(q) if step >= 1 else np.full(q.shape, np.nan), opacity=FADED if step >= 5 else 1),
            trace("k", k if step >= 1 else without_last(k)),
            trace("v", v if step >= 1 else without_last(v)),
            trace("y", y if step >= 5 else without_last(y)),
            trace("s", scaled_row if step == 2 else np.full_like(scaled_row, np.nan), zlim=lims["a"]),
            trace("s", probs_row if step >= 3 else np.full_like(probs_row, np.nan)),
            trace("h", s.head[None, :MAX_COLS] if step >= 5 else np.full((1, v.shape[1]), np.nan)),
        ]
        for tr in traces[5:7]:
            tr.update(y0=1)
        traces[7].update(y0=1)
        traces[5].update(colorscale=SIGNED, zmin=-lims["a"], zmax=lims["a"])
        return traces + _outlines(step, panels, ax_of, t, first)

    captions = [s.words[key] for key in ("arrive", "append", "scores", "softmax", "drop_q", "output")]
    notes = [_notes(step, ax_of, s) for step in range(6)]
    frames = [dict(data=[patch(tr) for tr in frame(i)], name=str(i), layout=dict(annotations=notes[i] + [_caption(c)]))
              for i, c in enumerate(captions)]
    width = int(cell * total_w + MARGIN["l"] + MARGIN["r"] + 40)
    height = int(cell * total_h + MARGIN["t"] + 120)
    layout = dict(width=max(width, 560), height=max(height, 320), margin=dict(MARGIN, t=100, b=70),
                  annotations=notes[0] + [_caption(captions[0])], plot_bgcolor=MASKED_BG,
                  font=dict(family=FONT, color="#1f2937"), dragmode=False, **axes, **_controls(len(captions), s.words))
    return figure(frame(0), layout, frames)


def _axes(panels: dict, total_w: float, total_h: float, first: int) -> tuple[dict, dict]:
    layout, ax_of = {}, {}
    for i, (key, p) in enumerate(panels.items()):
        suffix = "" if i == 0 else str(i + 1)
        x_dom = (p.x0 / total_w, (p.x0 + p.cols) / total_w)
        y_dom = (1 - (p.y0 + p.rows) / total_h, 1 - p.y0 / total_h)
        xa, ya = axis_spec(p.cols, x_dom, f"y{suffix}"), axis_spec(p.rows, y_dom, f"x{suffix}", reverse=True)
        if key not in ("s", "h"):
            ya["range"] = [first + p.rows + 0.5, first + 0.5]
            ya["tickvals"] = [first + r for r in ya["tickvals"]]
        layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"] = xa, ya
        ax_of[key] = (f"x{suffix}", f"y{suffix}")
    return layout, ax_of


def _outlines(step: int, panels: dict, ax_of: dict, t: int, first: int) -> list[dict]:
    """Boxes (in token positions): the new row of K and V once appended, Y_1..t-1 unchanged, Y_t once it appears."""
    last = first + t  # position of the new token
    y_cols = panels["y"].cols
    return [
        outline(*ax_of["k"], 1, panels["k"].cols, last, last, show=step >= 1),
        outline(*ax_of["v"], 1, panels["v"].cols, last, last, show=step >= 1),
        outline(*ax_of["y"], 1, y_cols, first + 1, last - 1, dash="dot", width=2, show=step >= 5 and t > 1),
        outline(*ax_of["y"], 1, y_cols, last, last, show=step >= 5),
    ]


def _note(axes: tuple[str, str], text: str, above: bool, color: str = "#1f2937", size: int = 13) -> dict:
    """Text centred above one panel, or below it under the tick labels."""
    return dict(text=text, xref=f"{axes[0]} domain", yref=f"{axes[1]} domain", x=0.5, y=1.0 if above else 0.0,
                yanchor="bottom" if above else "top", yshift=0 if above else -18, showarrow=False,
                font=dict(size=size, color=color))


def _notes(step: int, ax_of: dict, s: CacheStep) -> list[dict]:
    """Panel titles with shapes, and the words for Q and Y once they apply."""
    w, n, t = s.words, s.names, s.k.shape[0]
    shapes = dict(q=s.q.shape[1], k=s.k.shape[1], v=s.v.shape[1], y=s.y.shape[1])
    notes = [_note(ax_of[key], f"<b>{n[key]}</b> · {t}×{cols}", True) for key, cols in shapes.items()]
    notes.append(_note(ax_of["s"], f"<b>{n['s']}</b> · 1×{t}", True))
    notes.append(_note(ax_of["h"], f"<b>{n['h']}</b> · 1×{s.v.shape[1]}", True))
    grey, orange = "#6b7280", "#9a3412"
    notes.append(_note(ax_of["q"], w["drop_q"] if step >= 4 else "", False, orange, 11))
    notes.append(_note(ax_of["y"], w["unchanged"] if step >= 5 else "", False, grey, 11))
    return notes


def _caption(text: str) -> dict:
    """The frame's sentence, above the panels and right of the Play/Pause buttons."""
    return label(text, 0.0, 1.0, xanchor="left", size=14) | dict(yanchor="bottom", yshift=34, xshift=170)


def _controls(frames: int, words: dict) -> dict:
    play = dict(frame=dict(duration=1100, redraw=True), fromcurrent=True, transition=dict(duration=0))
    pause = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    step = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    buttons = [dict(label=words["play"], method="animate", args=[None, play]),
               dict(label=words["pause"], method="animate", args=[[None], pause])]
    return dict(
        updatemenus=[dict(type="buttons", direction="left", x=0, y=1.0, xanchor="left", yanchor="bottom",
                          pad=dict(b=28), showactive=False, buttons=buttons)],
        sliders=[dict(active=0, x=0.0, y=-0.02, len=1.0, yanchor="top", pad=dict(t=40),
                      currentvalue=dict(visible=False),
                      steps=[dict(label=str(i + 1), method="animate", args=[[str(i)], step]) for i in range(frames)])],
    )


def cost_figure(lengths: np.ndarray, series: dict, *, x_title: str, y_title: str) -> Spec:
    """Cumulative cost against sequence length, log-log; `series` maps a legend name to (values, dash)."""
    data = [dict(type="scatter", x=np.asarray(lengths).tolist(), y=np.asarray(values).tolist(), name=name,
                 mode="lines", line=dict(dash=dash, width=2.5)) for name, (values, dash) in series.items()]
    layout = dict(height=380, margin=dict(l=60, r=20, t=20, b=50), font=dict(family=FONT, color="#1f2937"),
                  xaxis=dict(type="log", title=dict(text=x_title)),
                  yaxis=dict(type="log", title=dict(text=y_title), exponentformat="SI"),
                  legend=dict(orientation="h", y=-0.25), hovermode="x unified")
    return figure(data, layout)
