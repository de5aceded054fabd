"""QKᵀ → ÷√d_k → mask → softmax as Plotly frames."""

from dataclasses import dataclass

import numpy as np

from .base import (
    FONT,
    GAP,
    MARGIN,
    MASKED_BG,
    MAX_SIDE,
    Mat,
    Spec,
    abs_limit,
    click_layer,
    figure,
    heatmap,
    label,
    outline,
    patch,
    shown,
    wants_text,
)
from .products import ProductLayout, product_layout


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


def inner_window(n: int, d_k: int) -> int:
    """How many of the d_k columns of Q (rows of Kᵀ) to draw: enough to see the pattern, never so many
    that Q and Kᵀ dwarf the n×n scores this figure is about."""
    return min(d_k, max(12, n), MAX_SIDE)


def _chunks(n: int, most: int = 10) -> list[range]:
    """Rows 0..n-1 in at most `most` consecutive groups (one frame each)."""
    step = -(-n // most)
    return [range(s, min(s + step, n)) for s in range(0, n, step)]


def scores_animation(st_: ScoreSteps, *, text: bool) -> Spec:
    """Q·Kᵀ filling in, ÷√d_k, the mask falling, softmax row by row — as Plotly frames.

    Traces: 0 Q, 1 Kᵀ, 2 signed scores (one fixed diverging scale), 3 S (0..1), 4 "−∞" labels,
    5-7 highlight boxes, 8 click layer. Frames redraw traces 2-7 and the row sums (annotations).
    """
    n, d_k = st_.q.shape
    inner = inner_window(n, d_k)
    geo = product_layout(st_.q[:, :inner], st_.k[:, :inner].T)
    nn, kk = geo.n, geo.k
    show_text = wants_text(text, st_.q, geo.cell)
    lim = abs_limit(st_.scores)
    nan = np.full((nn, nn), np.nan)
    upper = np.triu(np.ones((nn, nn), bool), k=1)
    names, words = st_.names, st_.words
    signed = Mat(st_.scores, names["scores"])
    probs_m = Mat(st_.probs, names["probs"], kind="probs")
    cb = dict(thickness=10, len=max(geo.split_y, 0.3), y=0, yanchor="bottom", x=1.0, xpad=44)
    cb_p = dict(cb, x=1.0, xpad=96, title=dict(text="S", side="top"))

    def state(z_signed, z_probs, inf_from: int, sums: int, box_rows=None, box_cols=None, caption=""):
        """One frame; "−∞" is written on the masked cells of rows inf_from.. (none when inf_from = nn)."""
        ii, jj = np.nonzero(upper[inf_from:])
        ii = ii + inf_from
        data = [
            heatmap(signed, "x2", "y", show_text, z=z_signed, zlim=lim, colorbar=cb, cell=geo.cell),
            heatmap(probs_m, "x2", "y", show_text, z=z_probs, colorbar=cb_p, cell=geo.cell),
            dict(type="scatter", x=(jj + 1).tolist(), y=(ii + 1).tolist(), mode="text",
                 text=["−∞"] * len(ii), textfont=dict(size=13 if show_text else 9, color="#374151"),
                 xaxis="x2", yaxis="y", hoverinfo="skip", showlegend=False),
        ]
        rows_ = box_rows or [0]
        cols_ = box_cols or [0]
        data += [
            outline("x", "y", 1, kk, rows_[0] + 1, rows_[-1] + 1, show=bool(box_rows)),
            outline("x2", "y", 1, nn, rows_[0] + 1, rows_[-1] + 1, width=2, dash="dot", show=bool(box_rows)),
            outline("x2", "y2", cols_[0] + 1, cols_[-1] + 1, 1, kk, show=bool(box_cols)),
        ]
        sums_ = [dict(text="Σ=1", x=1.005, y=i + 1, xref="paper", yref="y", xanchor="left", showarrow=False,
                      font=dict(size=11, color="#9a3412"), visible=i < sums) for i in range(nn)]
        return data, (caption, sums_)

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


def _animated(frames, geo: ProductLayout, st_: ScoreSteps, show_text: bool, words: dict) -> Spec:
    names = st_.names
    sx, sy = geo.split_x, geo.split_y
    first_data, first_caption = frames[0]
    base = [
        heatmap(Mat(st_.q[:, :geo.k], names["q"]), "x", "y", show_text, cell=geo.cell),
        heatmap(Mat(st_.k[:, :geo.k].T, names["kt"]), "x2", "y2", show_text, cell=geo.cell),
        *first_data,
        click_layer(Mat(st_.probs, names["probs"], "probs"), "x2", "y"),
    ]
    titles = [
        label(f"<b>{names['q']}</b> · {geo.n}×{st_.q.shape[1]}", sx / 2, sy + 0.005),
        label(f"<b>{names['kt']}</b> · {st_.q.shape[1]}×{geo.n}", (sx + GAP + 1) / 2, 1.0) | dict(yshift=4),
        label(f"<b>{names['scores']} → {names['probs']}</b> · {geo.n}×{geo.n}", (sx + GAP + 1) / 2, -0.02)
        | dict(yanchor="top"),
    ]

    def caption(text_and_sums):
        text, sums = text_and_sums
        return [*titles, label(text, sx / 2, (sy + GAP + 1) / 2, size=14), *sums]

    frames_ = [dict(data=[patch(tr) for tr in data], traces=list(range(2, 2 + len(data))), name=str(i),
                    layout=dict(annotations=caption(cap))) for i, (data, cap) in enumerate(frames)]
    play = dict(frame=dict(duration=900, redraw=True), fromcurrent=True, transition=dict(duration=0))
    pause = dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))
    w, h = geo.size
    return figure(base, dict(
        width=w + 40, height=h + 70, margin=dict(MARGIN, b=90), annotations=caption(first_caption),
        plot_bgcolor=MASKED_BG, font=dict(family=FONT, color="#1f2937"), dragmode=False,
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
    ), frames_)
