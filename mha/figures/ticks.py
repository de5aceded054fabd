"""Axes named by a text's tokens: a figure's tick labels set to the tokens of the rows and columns they count,
and the room those labels take.

A figure is laid out with row numbers (1..n); `token_ticks` names them by token afterwards, and widens the figure
where a token is wider than its number: the left margin, and a gap before every inner panel with named rows
(`_open_gaps` moves whatever lies right of it). `room_for_names` is the look a figure is built for so that it
still fits the screen once named.
"""

import html
from dataclasses import replace

from .base import DESK, Look
from .text import short, text_px, widest


def label_text(token: str, most: int = 8) -> str:
    """A token as a chart label: shortened, and HTML-escaped (Plotly reads some HTML in its text)."""
    return html.escape(short(token, most), quote=False)


def tick_titles(layout: dict, axis: str, titles: list[str]) -> None:
    """Give each tick of `axis` a title (HTML-escaped, as a label is written): the whole text of a label drawn
    shortened, which the page's chart shows when the pointer is on the label (matrix_chart.js; Plotly has no such
    thing). Kept in layout.meta, the figure's own data to Plotly."""
    layout.setdefault("meta", {}).setdefault("ticktitles", {})[axis] = titles


def room_for_names(tokens, look: Look) -> Look:
    """`look` made as much narrower as the widest token is wider than the row numbers, so that a figure
    already as wide as the look still fits once `token_ticks` names its rows. A phone keeps the numbers."""
    if not tokens or look.narrow:
        return look
    wider = widest(map(short, tokens), look.tick) - text_px(str(len(tokens)), look.tick)
    return replace(look, max_w=int(look.max_w - max(0.0, wider) - 2))


def _columns_fit(spec: dict, tokens, paper: float, tick: int) -> bool:
    """Whether the tokens named on this x axis fit side by side, each within its column."""
    vals, (lo, hi) = spec["tickvals"], spec.get("domain", (0, 1))
    span = abs(spec["range"][1] - spec["range"][0]) if "range" in spec else len(vals)
    step = (vals[1] - vals[0]) if len(vals) > 1 else 1
    size = spec.get("tickfont", {}).get("size", tick)
    need = widest((short(tokens[i - 1]) for i in vals if 0 < i <= len(tokens)), size)
    return need + 4 <= (hi - lo) * paper / span * step


def token_ticks(fig, tokens, axes: tuple[str, ...], look: Look = DESK):
    """Name the ticks of these axes (which count tokens) by the tokens' text (shortened, escaped).

    Row labels wider than the row numbers the figure made room for widen it: on the left, and before every panel
    with words that has a panel to its left (the panels right of it move over, with their titles, colour bars and
    controls). Where the inner panels' room would pass the screen's width, only the leftmost panels' rows take
    words; where even that would (a phone), the rows keep their numbers. Columns keep theirs where the tokens would
    not fit side by side. A token's label drawn shortened has its whole text as the tick's title (tick_titles)."""
    if not tokens:
        return fig
    layout = fig.to_dict()["layout"]
    labels = lambda spec: [label_text(tokens[i - 1]) if 0 < i <= len(tokens) else str(i) for i in spec["tickvals"]]
    whole = lambda spec: [html.escape(tokens[i - 1], quote=False) if 0 < i <= len(tokens) else str(i)
                          for i in spec["tickvals"]]
    rows = [ax for ax in axes if ax.startswith("y") and "tickvals" in layout.get(ax, {})]
    wider = 0.0
    for ax in rows:
        size = layout[ax].get("tickfont", {}).get("size", look.tick)
        need = widest((short(tokens[i - 1]) for i in layout[ax]["tickvals"] if 0 < i <= len(tokens)), size)
        wider = max(wider, need - text_px(str(len(tokens)), size))
    width = layout.get("width")
    margin = layout.get("margin", {})
    paper = (width or 0) - margin.get("l", 0) - margin.get("r", 0)
    inner = _inner_edges(layout, rows, paper) if wider > 0 and paper > 0 else {}
    roomy = {ax: title for ax in list(inner) if (title := _room_before(layout, ax, wider + 2, paper)) is not None}
    inner = {ax: edge for ax, edge in inner.items() if ax not in roomy}  # a gap wide enough already stays as it is
    room = lambda grow: wider <= 0 or (width is not None and width + grow <= max(width, look.max_w + 8))
    fits = room((wider + 2) * (1 + len(set(inner.values()))))
    if not fits and inner and room(wider + 2):  # words on the leftmost panels; the inner ones keep their numbers
        rows, inner, fits = [ax for ax in rows if ax not in inner], {}, True
    for ax in axes:
        spec = layout.get(ax)
        if not spec or "tickvals" not in spec:
            continue
        if (fits and ax in rows) if ax.startswith("y") else _columns_fit(spec, tokens, paper, look.tick):
            spec["ticktext"] = labels(spec)
            if spec["ticktext"] != whole(spec):
                tick_titles(layout, ax, whole(spec))
    if fits and wider > 0:
        for title in roomy.values():  # the rows' title moves left of the longer labels, within the gap
            if title:
                title["x"] -= (wider + 2) / paper
        if inner:
            edges = sorted(set(inner.values()))
            _open_gaps(fig, layout, [(edge, wider + 2) for edge in edges], paper)
            paper += (wider + 2) * len(edges)
        margin = layout.setdefault("margin", {})
        layout["width"] = int(layout["width"] + wider + 2)
        margin["l"] = int(margin.get("l", 0) + wider + 2)
        left = min((layout[ax]["domain"][0] for ax in layout if ax.startswith("xaxis") and "domain" in layout[ax]),
                   default=0.0)
        for note in layout.get("annotations", ()):  # a rows' title (turned upright) left of the panels stays
            if note.get("textangle") == -90 and note.get("xref") == "paper" and note["x"] < left:  # left of
                note["x"] -= (wider + 2) / paper  # the longer labels
    return fig


def _inner_edges(layout: dict, rows: list[str], paper: float) -> dict[str, float]:
    """For each of these y axes whose panel has another panel to its left: where (a paper fraction) to open room for
    its words, halfway between that panel's left edge and the nearest right edge before it, or right of the rows'
    title standing in that gap: the title stays where it is, left of the words that grow toward it, rather than
    move over with the panel onto them."""
    rights = [layout[a]["domain"][1] for a in layout if a.startswith("xaxis") and "domain" in layout[a]
              and layout[a].get("visible", True)]
    edges = {}
    for ax in rows:
        x = layout.get(layout[ax].get("anchor", "x").replace("x", "xaxis", 1), {})
        left = x.get("domain", [0, 1])[0]
        before = [r for r in rights if r <= left + 1e-9]
        if before:
            titles = [n["x"] + n.get("font", {}).get("size", 11) / paper for n in layout.get("annotations", ())
                      if n.get("textangle") == -90 and n.get("xref") == "paper" and max(before) < n["x"] < left]
            edges[ax] = max([(max(before) + left) / 2, *titles])
    return edges


def _room_before(layout: dict, ax: str, grow: float, paper: float):
    """Whether the gap left of this y axis's panel already holds labels `grow` px wider, with its rows' title moved
    left by as much. None where it does not; where it does, that title (one of layout.annotations), or False for a
    panel without one. What lies in the gap: the panels to its left, and text anchored at its left edge."""
    left = layout.get(layout[ax].get("anchor", "x").replace("x", "xaxis", 1), {}).get("domain", [0, 1])[0]
    rights = [layout[a]["domain"][1] for a in layout if a.startswith("xaxis") and "domain" in layout[a]
              and layout[a].get("visible", True) and layout[a]["domain"][1] <= left + 1e-9]
    notes = layout.get("annotations", ())
    rights += [n["x"] + text_px(n.get("text", ""), n.get("font", {}).get("size", 11)) / paper for n in notes
               if n.get("xref") == "paper" and n.get("xanchor") == "left" and n["x"] < left]
    before = max(rights, default=0.0)
    titles = [n for n in notes if n.get("textangle") == -90 and n.get("xref") == "paper" and before < n["x"] < left]
    edge = min((n["x"] * paper - n.get("font", {}).get("size", 11) for n in titles), default=left * paper - 8)
    return (titles[0] if titles else False) if edge - grow >= before * paper + 4 else None


def _open_gaps(fig, layout: dict, gaps: list[tuple[float, float]], paper: float) -> None:
    """Widen the figure by each gap's px at its edge (a paper fraction): whatever lies right of an edge moves right."""
    total = paper + sum(px for _, px in gaps)
    move = lambda f: (f * paper + sum(px for edge, px in gaps if f >= edge)) / total
    for name, spec in layout.items():
        if name.startswith("xaxis") and "domain" in spec:
            spec["domain"] = [move(spec["domain"][0]), move(spec["domain"][1])]
    frames = [frame.get("layout", {}) for frame in fig.to_dict().get("frames") or ()]
    for note in (*layout.get("annotations", ()), *(n for f in frames for n in f.get("annotations", ()))):
        if note.get("xref", "paper") == "paper":  # the layout's and each frame's (its captions)
            note["x"] = move(note["x"])
    for shape in layout.get("shapes", ()):
        if shape.get("xref", "paper") == "paper":
            shape["x0"], shape["x1"] = move(shape["x0"]), move(shape["x1"])
    for control in (*layout.get("updatemenus", ()), *layout.get("sliders", ())):
        if "len" in control:
            end = move(control.get("x", 0) + control["len"])
            control["x"] = move(control.get("x", 0))
            control["len"] = end - control["x"]
        elif "x" in control:
            control["x"] = move(control["x"])
    for trace in fig.to_dict()["data"]:
        for bar in (trace.get("colorbar"), (trace.get("marker") or {}).get("colorbar")):
            if bar and "x" in bar:
                bar["x"] = move(bar["x"])
    layout["width"] = int(round(layout["width"] + total - paper))
