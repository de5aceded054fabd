"""What a chart on the page looks like, measured in the browser: plot areas, colour bars, labels. A matrix chart
(mha/ui/matrix_chart.js, an SVG) is read from its own elements, a Plotly chart (curves, bars) from Plotly's.

`chart_geometry` reads one chart's boxes (CSS pixels); `frame_geometries` steps an animated chart through
every frame and reads them after each; `problems` lists what a reader would see as broken: a plot area
that moved between frames, a colour bar or a label over a plot area, labels on top of each other, tick
labels of one panel over another panel, cell numbers wider than their cell, text a trace writes at a point
(marks, a frame's sentence) spilling out of its panel, a control (Play/Pause, the frame slider) over a label
or another control.
"""

from dataclasses import dataclass

TOLERANCE = 1.0  # px: boxes may differ by rounding
OVERLAP = 2.0  # px: two boxes that share less than this along either side do not overlap

READ = """(root) => {
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const host = e => { const s = e.closest('[data-sub]'); return s ? s.getAttribute('data-sub') : ''; };
  const svg = root.querySelector('svg'), o = svg.getBoundingClientRect();
  const plots = {}, cells = {};
  for (const r of svg.querySelectorAll('.mha-plot')) {
    const [l, t, rr, b] = r.dataset.area.split(',').map(Number);
    const [x0, x1, y0, y1] = r.dataset.range.split(',').map(Number);
    const name = r.dataset.sub;
    plots[name] = [o.left + l, o.top + t, o.left + rr, o.top + b];
    cells[name] = [(rr - l) / Math.abs(x1 - x0), (b - t) / Math.abs(y1 - y0)];
  }
  const visible = e => e.getBoundingClientRect().width > 0 && (e.textContent || '').replace(/\u200b/g, '').trim() !== ''
                       && getComputedStyle(e).visibility !== 'hidden' && getComputedStyle(e).opacity !== '0';
  const text = e => e.textContent.replace(/\u200b/g, '');
  return {
    plots: plots,
    cells: cells,
    colorbars: [...svg.querySelectorAll('.colorbar')].map(box),
    annotations: [...svg.querySelectorAll('.annotation')].filter(visible).map(a => [text(a), box(a)]),
    ticks: [...svg.querySelectorAll('.xaxis .tick, .yaxis .tick')].filter(visible).map(t => [host(t), text(t), box(t)]),
    cell_text: [...svg.querySelectorAll('.cell-label')].filter(visible).map(t => [host(t), text(t), box(t)]),
    point_text: [...svg.querySelectorAll('.point-text')].filter(visible).map(t => [host(t), text(t), box(t)]),
    bar_text: [...svg.querySelectorAll('.bar-text')].filter(visible).map(t => [text(t), box(t)]),
    controls: [...root.querySelectorAll('.slider-container, .updatemenu-container')].map(box),
    frame: (root.mha.layout.sliders || []).length ? root.mha.frame : null,
  };
}"""

READ_PLOTLY = """(gd) => {
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const host = e => { const s = e.closest('.subplot'); return s ? s.getAttribute('class').split(' ')[1] : ''; };
  const fl = gd._fullLayout;
  const plots = {};
  for (const g of gd.querySelectorAll('.draglayer > g')) {
    const r = g.querySelector('.nsewdrag');
    if (r) plots[g.getAttribute('class')] = box(r);
  }
  const cells = {};
  for (const name of Object.keys(plots)) {
    const [xa, ya] = name.replace('y', ' y').split(' ');
    const xr = fl[xa.replace('x', 'xaxis')].range, yr = fl[ya.replace('y', 'yaxis')].range;
    const p = plots[name];
    cells[name] = [(p[2] - p[0]) / Math.abs(xr[1] - xr[0]), (p[3] - p[1]) / Math.abs(yr[1] - yr[0])];
  }
  const visible = e => e.getBoundingClientRect().width > 0 && (e.textContent || '').trim() !== ''
                       && getComputedStyle(e).visibility !== 'hidden' && getComputedStyle(e).opacity !== '0';
  return {
    plots: plots,
    cells: cells,
    colorbars: [...gd.querySelectorAll('.colorbar')].map(box),
    annotations: [...gd.querySelectorAll('.annotation')].filter(visible).map(a => [a.textContent, box(a)]),
    ticks: [...gd.querySelectorAll('.xtick text, .ytick text')].filter(visible)
             .map(t => [host(t), t.textContent, box(t)]),
    cell_text: [...gd.querySelectorAll('.heatmap-label')].filter(visible).map(t => [host(t), t.textContent, box(t)]),
    point_text: [...gd.querySelectorAll('.textpoint text')].filter(visible).map(t => [host(t), t.textContent, box(t)]),
    controls: [...gd.querySelectorAll('.slider-container, .updatemenu-container')].map(box),
    frame: fl.sliders && fl.sliders.length ? fl.sliders[0].active : null,
  };
}"""

STEP = """async ([root, k]) => {
  root.mha.show(k);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


@dataclass
class Geometry:
    plots: dict  # subplot ("xy", "x2y") -> [left, top, right, bottom]
    cells: dict  # subplot -> [cell width, cell height] in px
    colorbars: list
    annotations: list  # [text, box]
    ticks: list  # [subplot, text, box]
    cell_text: list  # [subplot, text, box]
    point_text: list  # [subplot, text, box]: text drawn by a trace (marks, sentences) at a point of a subplot
    controls: list
    frame: int | None
    bar_text: list = ()  # [text, box]: a bar's value beside it (in the margin when the bar is full length)


def _handle(page, key: str):
    return page.locator(f".st-key-{key} .mha-chart").element_handle()


def chart_geometry(page, key: str) -> Geometry:
    """A matrix chart (the SVG) or a Plotly chart (curves, bars) under the element of that key."""
    if page.locator(f".st-key-{key} .mha-chart").count():
        return Geometry(**page.evaluate(READ, _handle(page, key)))
    return Geometry(**page.evaluate(READ_PLOTLY, page.locator(f".st-key-{key} .js-plotly-plot").element_handle()))


def frame_names(page, key: str) -> list[str]:
    return page.evaluate("(root) => root.mha.frames.map(f => f.name)", _handle(page, key))


def frame_geometries(page, key: str) -> list[Geometry]:
    """Step the chart through every frame, as its slider would, and measure after each."""
    root = _handle(page, key)
    out = []
    for k, _ in enumerate(frame_names(page, key)):
        page.evaluate(STEP, [root, k])
        out.append(Geometry(**page.evaluate(READ, root)))
    return out


def overlap(a, b, margin: float = OVERLAP) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > margin and min(a[3], b[3]) - max(a[1], b[1]) > margin


def inside(a, b, margin: float = OVERLAP) -> bool:
    return a[0] >= b[0] - margin and a[1] >= b[1] - margin and a[2] <= b[2] + margin and a[3] <= b[3] + margin


def problems(g: Geometry) -> list[str]:
    """Everything on one drawn frame that a reader would see as broken."""
    out = []
    plots = g.plots.items()
    for i, cb in enumerate(g.colorbars):
        out += [f"colour bar {i} over plot {p}" for p, box in plots if overlap(cb, box)]
        out += [f"colour bar {i} under label {t!r}" for t, box in g.annotations if overlap(cb, box)]
    for text, box in g.annotations:
        out += [f"label {text!r} over plot {p}" for p, pbox in plots if overlap(box, pbox)]
    for i, (a, abox) in enumerate(g.annotations):
        out += [f"labels {a!r} and {b!r} overlap" for b, bbox in g.annotations[i + 1:] if overlap(abox, bbox)]
    for host, text, box in g.ticks:
        out += [f"tick {text!r} of {host} over plot {p}" for p, pbox in plots if p != host and overlap(box, pbox)]
    for host, text, box in g.cell_text:
        width = g.cells.get(host, [0, 0])[0]
        if box[2] - box[0] > width + OVERLAP:
            out.append(f"cell number {text!r} in {host} is {box[2] - box[0]:.0f} px wide, its cell {width:.0f} px")
    for host, text, box in g.point_text:
        area = g.plots.get(host)
        if area and not inside(box, area):
            out.append(f"text {text!r} spills out of its plot {host}")
    for i, c in enumerate(g.controls):
        out += [f"control {i} over plot {p}" for p, box in plots if overlap(c, box)]
        out += [f"control {i} over label {t!r}" for t, box in g.annotations if overlap(c, box)]
        out += [f"controls {i} and {j} overlap" for j, d in enumerate(g.controls[i + 1:], i + 1) if overlap(c, d)]
    return out


def moved(frames: list[Geometry]) -> list[str]:
    """Plot areas or colour bars that are not where the first frame put them."""
    first, out = frames[0], []
    for k, g in enumerate(frames[1:], start=2):
        for name, box in first.plots.items():
            other = g.plots.get(name)
            if other is None or max(abs(a - b) for a, b in zip(box, other)) > TOLERANCE:
                out.append(f"frame {k}: plot {name} {other} != {box}")
        if len(g.colorbars) != len(first.colorbars) or any(
                max(abs(a - b) for a, b in zip(x, y)) > TOLERANCE for x, y in zip(g.colorbars, first.colorbars)):
            out.append(f"frame {k}: colour bars {g.colorbars} != {first.colorbars}")
    return out
