"""The matrix charts (mha/ui/matrix_chart.js) draw what their figures say: read back from the SVG in Chromium, every
cell sits at its row and column (row 1 at the top), has its value's colour on the figure's scale, and shows the
figure's number; the hover label and the frames say the same as the figure."""

import html
import re

import pytest
from plotly.colors import sample_colorscale, unlabel_rgb

from mha.ui.strings import TABLES

from .conftest import rerun_after, settle
from .test_explorer_e2e import sums_sentence

pytestmark = pytest.mark.e2e

# Every drawn cell of every heatmap: its trace, its centre in the figure's data coordinates (as Plotly reads a range:
# its first value at the left, and at the bottom), its fill, its label.
CELLS = """(root) => {
  const svg = root.querySelector('svg'), o = svg.getBoundingClientRect(), areas = {};
  for (const r of svg.querySelectorAll('.mha-plot')) {
    const [l, t, rr, b] = r.dataset.area.split(',').map(Number);
    const [x0, x1, y0, y1] = r.dataset.range.split(',').map(Number);
    areas[r.dataset.sub] = {l, t, rr, b, x0, x1, y0, y1};
  }
  const out = [];
  for (const g of svg.querySelectorAll('g.trace.heatmap')) {
    const a = areas[g.dataset.sub], labels = [...g.querySelectorAll('text.cell-label')];
    for (const rect of g.querySelectorAll('rect')) {
      const b = rect.getBoundingClientRect(), cx = (b.left + b.right) / 2 - o.left, cy = (b.top + b.bottom) / 2 - o.top;
      const label = labels.find(t => {
        const q = t.getBoundingClientRect();
        return Math.abs((q.left + q.right) / 2 - o.left - cx) < 1 && Math.abs((q.top + q.bottom) / 2 - o.top - cy) < 3;
      });
      out.push({trace: +g.dataset.trace, x: a.x0 + (cx - a.l) / (a.rr - a.l) * (a.x1 - a.x0),
                y: a.y0 + (a.b - cy) / (a.b - a.t) * (a.y1 - a.y0), fill: rect.getAttribute('fill'),
                label: label ? label.textContent : null});
    }
  }
  return {cells: out, fig: root.mha.fig, areas,
          notes: [...svg.querySelectorAll('.annotation')].map(t => t.textContent.replace(/\u200b/g, ''))};
}"""


def _rgb(colour: str) -> tuple[float, ...]:
    return tuple(float(v) for v in unlabel_rgb(colour))


def _number(v: float, spec: str) -> str:
    """d3's f / ~g formats as the figures use them, with a true minus sign."""
    m = re.fullmatch(r"\.(\d+)(~?)([fg])", spec)
    digits, trim, kind = int(m[1]), m[2], m[3]
    s = f"{abs(v):.{digits}f}" if kind == "f" else f"{abs(v):.{digits}g}"
    if trim and "." in s and "e" not in s:
        s = s.rstrip("0").rstrip(".")
    return ("\u2212" if v < 0 and any(c in s for c in "123456789") else "") + s


def _expected_label(trace: dict, i: int, j: int) -> str | None:
    template = trace.get("texttemplate") or ""
    if not template:
        return None
    if template == "%{text}":
        return (trace.get("text") or [[]])[i][j] or None
    m = re.fullmatch(r"%\{z:([^}]*)\}", template)
    return _number(trace["z"][i][j], m[1]) if m else None


def plot_areas(layout: dict) -> dict[str, list[float]]:
    """Each subplot's plot area in px, worked out here from the layout (margins, size, domains) as Plotly would."""
    m = {"l": 80, "r": 80, "t": 100, "b": 80} | layout.get("margin", {})
    w, h = layout["width"] - m["l"] - m["r"], layout["height"] - m["t"] - m["b"]
    out = {}
    for name, x in layout.items():
        if re.fullmatch(r"xaxis\d*", name) and "anchor" in x:
            y = layout[x["anchor"].replace("y", "yaxis", 1)]
            sub = name.replace("axis", "") + x["anchor"]
            out[sub] = [m["l"] + x["domain"][0] * w, m["t"] + (1 - y["domain"][1]) * h,
                        m["l"] + x["domain"][1] * w, m["t"] + (1 - y["domain"][0]) * h]
    return out


def visible_text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup.replace("<br>", "")))


def check_cells(page, key: str, data: list[dict] | None = None) -> int:
    """Every drawn cell of the chart against `data`, the traces it should show (by default the figure's as the server
    sent it), in plot areas placed where the layout says."""
    read = page.evaluate(CELLS, page.locator(f".st-key-{key} .mha-chart").element_handle())
    cells, data = read["cells"], data or read["fig"]["data"]
    want = plot_areas(read["fig"]["layout"])
    for sub, area in read["areas"].items():
        if sub in want:
            assert max(abs(a - b) for a, b in zip((area["l"], area["t"], area["rr"], area["b"]), want[sub])) < 0.5, sub
    drawn = {}
    for c in cells:
        drawn.setdefault(c["trace"], []).append(c)
    checked = 0
    for k, trace in enumerate(data):
        if trace.get("type") != "heatmap":
            continue
        z, x0, y0 = trace["z"], trace.get("x0", 0), trace.get("y0", 0)
        want = {(i, j) for i, row in enumerate(z) for j, v in enumerate(row) if v is not None}
        got = {}
        for c in drawn.get(k, []):
            i, j = round(c["y"] - y0), round(c["x"] - x0)
            assert abs(c["y"] - y0 - i) < 0.05 and abs(c["x"] - x0 - j) < 0.05, (key, k, c)  # centred on its cell
            got[i, j] = c
        assert set(got) == want, (key, k, sorted(set(got) ^ want)[:5])
        lo, hi = trace["zmin"], trace["zmax"]
        for (i, j), c in got.items():
            t = min(1.0, max(0.0, (z[i][j] - lo) / ((hi - lo) or 1)))
            expected = _rgb(sample_colorscale(trace["colorscale"], [t])[0])
            assert max(abs(a - b) for a, b in zip(_rgb(c["fill"]), expected)) <= 1.5, (key, k, i, j, c["fill"])
            assert c["label"] == _expected_label(trace, i, j), (key, k, i, j, c["label"])
            checked += 1
    return checked


def open_view(page, url: str, query: str) -> None:
    page.goto(f"{url}/?{query}")
    settle(page)


@pytest.mark.parametrize("query, keys", [  # the animations: test_an_animation_draws_…
    ("stage=qk&n_tokens=4&d_k=13", ["qk_q", "qk_k"]),
    ("stage=block&text=the+cat+sat&part=ln1", ["block_ln1"]),
])
def test_every_cell_is_drawn_where_its_figure_puts_it_in_its_colour_with_its_number(page, app_url, query, keys):
    open_view(page, app_url, query)
    for key in keys:
        assert check_cells(page, key) >= 9, key


# Each small run of a text (a <sub> or <sup>, drawn at 70%) with the full-size run before it: their words and the
# vertical centres of their drawn boxes, in px from the top.
SCRIPTS = """(root) => [...root.querySelectorAll('svg text')].flatMap(t => {
  const runs = [...t.querySelectorAll('tspan')].filter(s => s.textContent.trim());
  const mid = s => { const b = s.getBoundingClientRect(); return (b.top + b.bottom) / 2; };
  return runs.flatMap((s, k) => {
    if (s.getAttribute('font-size') !== '70%') return [];
    const base = runs.slice(0, k).reverse().find(r => r.getAttribute('font-size') !== '70%');
    return base ? [[base.textContent, s.textContent, mid(base), mid(s), s.getBoundingClientRect().height]] : [];
  });
})"""


def check_scripts(page, key: str) -> None:
    """Where each glyph sits: on the scores chart a subscript is a head's or a token's number (Q₁, q₃, S₁) and the one
    superscript is the transpose's T (K₁ᵀ), so every digit sits below the middle of the letter before it and every T
    above it, by a fifth of its own height at least: Kᵀ must not read as K_T, nor q₃ as q³."""
    root = page.locator(f".st-key-{key} .mha-chart").element_handle()
    found = page.evaluate(SCRIPTS, root)
    assert {small for _, small, *_ in found} >= {"1", "T"}, found
    for base, small, base_mid, small_mid, height in found:
        below = small_mid - base_mid
        assert (below < -0.2 * height) if small == "T" else (below > 0.2 * height), (base, small, below, height)


ANIMATED = [("stage=scores", "scores"), ("stage=kv_cache&n_tokens=4&lang=zh", "kv_animation")]


@pytest.mark.parametrize("query, key", ANIMATED)
def test_an_animation_draws_every_cell_of_every_frame_and_its_captions_where_it_measured_them(page, app_url, query,
                                                                                              key):
    """One page each: the chart at rest draws every cell where its figure puts it (on the scores, with K₁ᵀ's
    subscript and superscript in place); stepped through, each frame's own cells; and drawn again, each caption
    where its first drawing put it, measuring nothing."""
    open_view(page, app_url, query)
    assert check_cells(page, key) >= 9, key
    if key == "scores":  # K₁ᵀ is K<sub>1</sub><sup>T</sup>: both, in one title
        check_scripts(page, "scores")
    else:  # the step's titles, two rows of three: Y's, with no subscript, stood 3 px under S₁'s (audit 2026-12-07)
        baselines = page.evaluate(TITLE_BASELINES, page.locator(f".st-key-{key} .mha-chart").element_handle())
        assert len(baselines) == 6 and len(set(baselines.values())) == 2, baselines
    every_frame_draws_its_own_cells(page, key)
    captions_drawn_again_sit_where_they_were_measured(page, key)


def every_frame_draws_its_own_cells(page, key: str) -> None:
    """Stepped through its frames, the chart draws each frame's values (the mask falling, S filling row by row, the
    cache's new row): each frame's traces laid over the figure's, here in Python, as Plotly.animate lays them."""
    root = page.locator(f".st-key-{key} .mha-chart").element_handle()
    fig = page.evaluate("(r) => r.mha.fig", root)
    data, notes = [dict(t) for t in fig["data"]], fig["layout"].get("annotations", [])
    assert len(fig["frames"]) >= 5
    for k, frame in enumerate(fig["frames"]):
        page.evaluate("([r, k]) => r.mha.show(k)", [root, k])
        assert page.evaluate("(r) => r.mha.frame", root) == k
        for i, trace in zip(frame.get("traces", range(len(frame["data"]))), frame["data"]):
            data[i] = data[i] | trace
        notes = frame.get("layout", {}).get("annotations", notes)  # a frame's captions replace the last ones
        assert check_cells(page, key, data) >= 9
        drawn = page.evaluate(CELLS, root)["notes"]
        assert drawn == [visible_text(n["text"]) for n in notes if n.get("visible", True)], k


# Each panel title's baseline (a "name · rows×columns" annotation's y), by its text.
TITLE_BASELINES = """(root) => Object.fromEntries([...root.querySelectorAll('svg text.annotation')]
  .filter(t => /·.*×/.test(t.textContent)).map(t => [t.textContent, Math.round(t.getAttribute('y') * 10) / 10]))"""


# Each annotation's drawn box (its text, top and height in px), and how many boxes the page has measured since
# `counting` (getBBox calls).
NOTE_BOXES = """(root) => [...root.querySelectorAll('svg text.annotation')].map(t => {
  const b = t.getBoundingClientRect(); return [t.textContent, Math.round(b.top * 10) / 10, Math.round(b.height)]; })"""
COUNTING = """() => { if (window.__boxes === undefined) { const get = SVGGraphicsElement.prototype.getBBox;
  SVGGraphicsElement.prototype.getBBox = function () { window.__boxes++; return get.call(this); }; }
  window.__boxes = 0; }"""


def captions_drawn_again_sit_where_they_were_measured(page, key: str) -> None:
    """The captions' boxes are measured once a page: a frame drawn again puts every caption where its first drawing
    did, and measures nothing."""
    root = page.locator(f".st-key-{key} .mha-chart").element_handle()
    page.evaluate("() => document.fonts.ready")
    frames = page.evaluate("(r) => r.mha.fig.frames.length", root)
    page.evaluate(COUNTING)
    page.evaluate("() => window.mha.boxes.clear()")
    first = []
    for k in range(frames):
        page.evaluate("([r, k]) => r.mha.show(k)", [root, k])
        first.append(page.evaluate(NOTE_BOXES, root))
    assert page.evaluate("() => window.__boxes") > 0  # measured
    page.evaluate(COUNTING)
    for k in range(frames):
        page.evaluate("([r, k]) => r.mha.show(k)", [root, k])
        assert page.evaluate(NOTE_BOXES, root) == first[k], k
    assert page.evaluate("() => window.__boxes") == 0
    assert any(first), "no captions drawn"


def _point_at(page, key: str, index: int) -> tuple[float, float]:
    """The centre of point `index` of the chart's click layer, scrolled into view, the pointer moved onto it."""
    point = page.locator(f".st-key-{key} .mha-chart .point").nth(index)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    return x, y


def test_the_hover_label_names_the_cell_under_the_pointer_and_a_second_click_lets_the_cell_go(page, app_url):
    open_view(page, app_url, "stage=qk")
    _point_at(page, "qk_q", 9)  # row 2, column 3 of Q₁
    tip = page.locator(".st-key-qk_q .mha-tip")
    tip.wait_for(state="visible")
    assert tip.inner_text().startswith("Q1[2, 3] = ")  # the click layer's label: Q₁[row, column] and its sum
    for shown in (1, 0):
        x, y = _point_at(page, "qk_q", 9)
        rerun_after(page, lambda x=x, y=y: page.mouse.click(x, y))
        assert page.get_by_text(sums_sentence(2, 3)).count() == shown


# What the chart draws as outlines, and where its panels are: each outline's box (left, right, top, bottom in the
# SVG's px: the products' are rectangles among the shapes above the traces, the scores' the paths of lines traces),
# and each panel's plot area (left, top, right, bottom) and axis ranges (x0, x1, y0, y1) by subplot.
OUTLINE_BOXES = """(root) => {
  const svg = root.querySelector(':scope > svg'), box = e => { const b = e.getBBox();
    return [b.x, b.x + b.width, b.y, b.y + b.height]; };
  const panels = {};
  for (const r of svg.querySelectorAll('.mha-plot')) panels[r.dataset.sub] = [r.dataset.area.split(',').map(Number),
                                                                                r.dataset.range.split(',').map(Number)];
  return {boxes: [...svg.querySelectorAll('.shapes-above rect, .mha-traces path')].map(box), panels};
}"""


def _cells_box(panel, cols: tuple[int, int], rows: tuple[int, int]) -> tuple[float, ...]:
    """(left, right, top, bottom) px of cells cols × rows (1-based, inclusive) of a panel, from its drawn area and its
    axes' ranges (a cell is one unit of each axis wide, centred on its number)."""
    (left, top, right, bottom), (x0, x1, y0, y1) = panel
    px = lambda v: left + (v - x0) / (x1 - x0) * (right - left)
    py = lambda v: bottom - (v - y0) / (y1 - y0) * (bottom - top)
    xs, ys = sorted((px(cols[0] - 0.5), px(cols[1] + 0.5))), sorted((py(rows[0] - 0.5), py(rows[1] + 0.5)))
    return (*xs, *ys)


# A cell with i ≠ j, on two heads or more: a product crossed (A's rows beside C's, B's columns above C's) or long (A on
# top, B under it, C beside B; on a projector B's blocks side by side), with the heads' blocks drawn across its
# outlines, and the scores (Q beside S, Kᵀ above it). Each gives the click layer's point, its cell (0-based) and the
# panels (subplots) its outlines go on: A's row, B's column (in each of B's panels), C's cell.
CLICKED_CELLS = [
    ("stage=qk&n_heads=3&head=2", "qk_q", 9, (1, 2), ("xy", "x2y2", "x2y")),
    ("stage=output&n_heads=2", "output_y", 7, (1, 2), ("xy", "x2y2", "x3y3")),  # long: C beside B
    ("stage=output&n_heads=2&present=1", "output_y", 7, (1, 2), ("xy", "x2y2", "x5y5", "x3y3")),  # B's heads side
    # by side, each its own panel: a column of B is outlined in both
    ("stage=scores&n_heads=3&head=2", "scores", 7, (2, 1), ("xy", "x2y2", "x2y")),
]


@pytest.mark.parametrize("query, key, point, cell, subs", CLICKED_CELLS, ids=[c[1] for c in CLICKED_CELLS])
def test_a_clicked_cell_is_outlined_with_its_row_and_column_where_the_page_draws_them(page, app_url, query, key, point,
                                                                                      cell, subs):
    """Clicked, cell (i, j) of C is outlined on the chart, and with it row i of A across all of A and column j of B
    down all of B (on the scores: Q's row and Kᵀ's column), in each panel B is drawn in: a box exactly on each of
    those cells' runs, around the point clicked, and no other."""
    open_view(page, app_url, query)
    root = page.locator(f".st-key-{key} .mha-chart").element_handle()
    assert page.evaluate(OUTLINE_BOXES, root)["boxes"] == []
    x, y = _point_at(page, key, point)
    rerun_after(page, lambda: page.mouse.click(x, y))
    read = page.evaluate(OUTLINE_BOXES, page.locator(f".st-key-{key} .mha-chart").element_handle())
    panels, (i, j) = read["panels"], cell
    a, *bs, c = (panels[sub] for sub in subs)
    k = round(a[1][1] - 0.5)  # A's columns drawn: its x axis runs from 0.5 to k + 0.5
    b_rows = [(round(min(b[1][2:]) + 0.5), round(max(b[1][2:]) - 0.5)) for b in bs]  # from its y axis's range
    assert b_rows[0][0] == 1 and b_rows[-1][1] == k and all(p[1] + 1 == q[0] for p, q in zip(b_rows, b_rows[1:]))
    want = [_cells_box(a, (1, k), (i + 1, i + 1)), *(_cells_box(b, (j + 1, j + 1), rows) for b, rows in
                                                     zip(bs, b_rows)), _cells_box(c, (j + 1, j + 1), (i + 1, i + 1))]
    assert len(read["boxes"]) == len(want), read["boxes"]
    for expected in want:
        assert any(max(abs(p - q) for p, q in zip(box, expected)) <= 0.5 for box in read["boxes"]), (expected, read)
    svg = page.locator(f".st-key-{key} .mha-chart svg").bounding_box()
    left, right, top, bottom = want[-1]  # the point clicked is the outlined cell's centre
    assert abs(svg["x"] + (left + right) / 2 - x) <= 1 and abs(svg["y"] + (top + bottom) / 2 - y) <= 1


def test_a_chart_drawn_anew_keeps_the_chosen_cell_and_lets_go_of_one_that_no_longer_fits(page, app_url):
    """The language switched, the chart (its words new) is drawn with the chosen cell outlined again; one token
    fewer, the chosen cell (row 3) is not drawn any more, nor outlined."""
    open_view(page, app_url, "stage=scores")
    x, y = _point_at(page, "scores", 7)  # S[3, 2]
    rerun_after(page, lambda: page.mouse.click(x, y))
    outlines = lambda: page.evaluate(OUTLINE_BOXES, page.locator(".st-key-scores .mha-chart").element_handle())
    before = outlines()["boxes"]
    assert len(before) == 3
    revision = page.locator(".st-key-scores .mha-chart").get_attribute("data-drawn")
    rerun_after(page, page.locator(".st-key-lang button").filter(has_text="中文").click)
    assert page.locator(".st-key-scores .mha-chart").get_attribute("data-drawn") != revision  # drawn anew
    assert outlines()["boxes"] == before
    rerun_after(page, lambda: page.locator('.st-key-n_tokens [data-testid="stNumberInputStepDown"]').click())
    assert outlines()["boxes"] == []


BARS = """(root) => {
  const svg = root.querySelector('svg'), o = svg.getBoundingClientRect();
  const box = e => { const q = e.getBoundingClientRect();
                     return [q.left - o.left, (q.top + q.bottom) / 2 - o.top, q.right - o.left]; };
  return {area: svg.querySelector('.mha-plot').dataset.area.split(',').map(Number),
          bars: [...svg.querySelectorAll('rect.bar')].map(e => [...box(e), e.getAttribute('fill')]),
          names: [...svg.querySelectorAll('.yaxis .tick')].map(e => [e.textContent, ...box(e)]),
          data: root.mha.data[0]};
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_next_token_bars_are_as_long_as_their_probabilities_beside_their_names(page, app_url, lang):
    open_view(page, app_url, f"stage=next_token&lang={lang}")
    read = page.evaluate(BARS, page.locator(".st-key-next_probs .mha-chart").element_handle())
    (left, _, right, _), data = read["area"], read["data"]
    bars = sorted(read["bars"], key=lambda b: b[1])  # top to bottom
    names = sorted(read["names"], key=lambda n: n[2])
    want = sorted(zip(data["x"], (name for _, name in data["customdata"])), key=lambda pair: -pair[0])
    assert len(bars) == len(names) == len(want) >= 3
    for (bar_left, bar_y, bar_right, _), (name, _, name_y, name_right), (p, wanted) in zip(bars, names, want):
        assert abs(bar_left - left) < 1 and abs((bar_right - bar_left) - p * (right - left)) < 1, (name, p)
        assert abs(bar_y - name_y) < 2 and name_right < left, (name, bar_y, name_y)  # its name beside it
        assert name == html.unescape(wanted)
    assert bars[0][3] == "#dc2626"  # greedy: the likeliest is the chosen one


# Once a frame, before the browser paints it: whether the page shows a run over (nothing running, nothing stale),
# whether every matrix chart element has beside it the chart of its own figure, and the figures' revisions.
FRAMES = """() => { window.__frames = [];
  const look = () => {
    const app = document.querySelector('[data-testid="stApp"]'), specs = [...document.querySelectorAll('.mha-spec')];
    const over = app.getAttribute('data-test-script-state') === 'notRunning'
                 && !document.querySelector('[data-stale="true"]');
    const drawn = specs.every(s => s.parentNode.querySelector(':scope > .mha-chart')?.dataset.drawn
                                   === s.dataset.revision);
    window.__frames.push([over, drawn, specs.map(s => s.dataset.revision).join()]);
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look); }"""


def new_figure_is_drawn_in_the_frame_that_first_shows_its_element(page, control: str) -> None:
    """A run that changes the figures (one more token; on the next token, a hotter temperature): no frame shows a
    chart's element without its chart, or with the chart of the figure before, neither while the run goes on nor
    once it is over."""
    page.evaluate(FRAMES)
    rerun_after(page, lambda: page.locator(f'.st-key-{control} [data-testid="stNumberInputStepUp"]').click())
    frames = page.evaluate("() => window.__frames")
    assert frames[0][2] != frames[-1][2] and frames[-1][0], "the run sent no new figure, or is not over"
    late = [k for k, (_, drawn, _) in enumerate(frames) if not drawn]
    assert late == [], f"{len(late)} of {len(frames)} frames showed a chart's element before its chart"


@pytest.mark.parametrize("query, control", [("stage=scores", "n_tokens"), ("stage=kv_cache", "n_tokens"),
                                            ("stage=next_token", "temperature")])  # the products: the next test
def test_a_new_figure_is_drawn_in_the_frame_that_first_shows_its_element(page, app_url, query, control):
    open_view(page, app_url, query)
    new_figure_is_drawn_in_the_frame_that_first_shows_its_element(page, control)


def test_the_products_new_figures_and_png_buttons_are_drawn_whole_and_say_the_page_s_language(page, app_url):
    """Every chart's PNG button says what it does, in the page's language, and says it anew when the language
    changes (the buttons already drawn too: a switch of language need not draw the charts again); one more token
    draws the products' new figures in the frame that first shows their elements."""
    open_view(page, app_url, "stage=qk&lang=zh")
    titles = lambda: page.evaluate(  # noqa: E731
        "() => [...document.querySelectorAll('.mha-chart .mha-save')].map(b => [b.title, b.ariaLabel])")
    want = {"zh": TABLES["zh"]["png_save"], "en": TABLES["en"]["png_save"]}
    assert want["zh"] != want["en"]
    assert titles() and all(pair == [want["zh"]] * 2 for pair in titles())
    new_figure_is_drawn_in_the_frame_that_first_shows_its_element(page, "n_tokens")
    rerun_after(page, page.locator(".st-key-lang button").filter(has_text="English").click)
    assert titles() and all(pair == [want["en"]] * 2 for pair in titles())
