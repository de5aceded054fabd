"""Every static figure, on three screens, in both languages, small and large, can be read.

Each stage with static figures (all but the scores and KV-cache animations) is shown at 1400×1000, at
1280×720 in presenter mode and at 390×844, each in English and Chinese, one at the post's sizes and the other
at a large size (WALKS), and every chart on the page is measured in Chromium (tests/e2e/geometry.py) and checked: no
colour bar, label or tick label over a plot area or another label, no label cut off at the figure's edge,
no tick labels on top of each other, no cell number wider than its cell, no figure squeezed by the page
(Streamlit narrows a figure wider than its column, and its square cells stop being square); in presenter
mode every figure fits under Streamlit's header on a 720 px screen, and no tick, legend or axis title is under the
projector's type size; no display formula wider than the page. The KV-cache stage's cost part is static too, and
checked the same way, with its timing measured (at the post's sizes: one language a screen). On a desk, every
stage's ← sits at the column's left and → at its right, level; on the projector at the post's sizes, every stage opens
on its first figure, and at the post's sizes each screen's small notes and block diagram labels have its type size
(both: test_presenter_e2e).
"""

from urllib.parse import urlencode

import pytest

from mha.figures import PRESENT
from mha.ui.settings import BLOCK_PARTS_IN, KV_PARTS, STAGES

from .conftest import SHOOTING, rerun_after, settle, shoot
from .geometry import chart_geometry, overlap, problems
from .test_frames_e2e import ANIMATIONS, frame_problems
from .test_presenter_e2e import NOTES, first_screen, note_sizes

pytestmark = pytest.mark.e2e

SCREENS = {
    "desk": (dict(width=1400, height=1000), {}),
    "present": (dict(width=1280, height=720), {"present": "1"}),
    "phone": (dict(width=390, height=844), {}),
}
SIZES = {"post": {}, "large": dict(n_tokens=64, d_model=256, n_heads=8)}


def click_says(page, key: str, row: int, col: int, cols: int, lang: str) -> None:
    """Click cell (row, col), 1-based, of the clickable product `key` (its click layer holds `cols` points a row) and
    check that the page writes its dot product: row `row` of A times column `col` of B, in the page's language."""
    point = page.locator(f".st-key-{key} .mha-chart .point").nth((row - 1) * cols + col - 1)
    point.scroll_into_view_if_needed()
    rerun_after(page, point.click)
    said = page.locator('[data-testid="stMain"]').inner_text()
    words = {"en": (f"is row {row} of", f"times column {col} of"), "zh": (f"第 {row} 行", f"第 {col} 列")}[lang]
    assert all(w in said for w in words), said


def open_on(page, app_url: str, screen: str, **params) -> None:
    """The page for a link's `params` on a screen of SCREENS (its size, and present=1 on the projector), settled,
    with no exception shown."""
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    page.goto(f"{app_url}/?{urlencode(dict(**params, **extra))}")
    page.wait_for_selector(f'[data-screen="{"phone" if screen == "phone" else "wide"}"]', state="attached",
                           timeout=120_000)
    settle(page, 120_000)
    assert page.locator('[data-testid="stException"]').count() == 0, page.url
STATIC = [s for s in STAGES if s not in ("scores", "kv_cache")]

CHARTS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot, .mha-chart')].map(c => {
  const key = [...c.closest('[class*="st-key-"]').classList].find(k => k.startsWith('st-key-')).slice(7);
  const box = c.getBoundingClientRect();
  const matrices = c.classList.contains('mha-chart') && c.mha.data.some(t => t.type === 'heatmap');
  return {key: key, height: box.height, right: box.right, box: [box.left, box.top, box.right, box.bottom],
          matrices: matrices, unsqueezed: matrices && Math.abs(c.querySelector('svg').getBoundingClientRect().width
                                                               - c.mha.layout.width) <= 1.5};
})"""
# A display formula wider than its room scrolls sideways inside it (overflow-x: auto): its box is the room's width,
# its scrollWidth what it would need.
FORMULAS = """() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')].map(d => {
  const room = d.closest('[data-testid="stMarkdownContainer"]');
  return [d.textContent.slice(0, 40), d.scrollWidth, room.getBoundingClientRect().width];
})"""
TYPE = """(key) => [...document.querySelector(`.st-key-${key}`).querySelectorAll(
  '.xtick text, .ytick text, .legendtext, .g-xtitle text, .g-ytitle text, .mha-chart .tick, .mha-chart .axis-title')]
  .map(t => [t.textContent, parseFloat(getComputedStyle(t).fontSize)])"""
HEADER = "() => document.querySelector('[data-testid=\"stHeader\"]').getBoundingClientRect().height"
# A slider's value, written over its thumb: its text's box (the glyphs' line) and the thumb's (the value's parent).
THUMBS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stSliderThumbValue"]')].map(v => {
  const words = document.createRange(), thumb = v.parentElement.getBoundingClientRect();
  words.selectNodeContents(v);
  const b = words.getBoundingClientRect();
  return [v.textContent, [b.left, b.top, b.right, b.bottom], [thumb.left, thumb.top, thumb.right, thumb.bottom]];
})"""
PAGE_HEIGHT = "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight"


def label_problems(g) -> list[str]:
    """What geometry.problems leaves out: labels on tick labels, tick labels on each other."""
    out = [f"label {a!r} on tick {t!r} of {h}" for a, abox in g.annotations for h, t, tbox in g.ticks
           if overlap(abox, tbox)]
    for i, (h1, t1, b1) in enumerate(g.ticks):
        out += [f"ticks {t1!r} of {h1} and {t2!r} of {h2} overlap" for h2, t2, b2 in g.ticks[i + 1:] if overlap(b1, b2)]
    return out


def inside(box, frame, slack: float = 1.0) -> bool:
    return box[0] >= frame[0] - slack and box[1] >= frame[1] - slack and box[2] <= frame[2] + slack \
        and box[3] <= frame[3] + slack


def page_problems(page, screen: str, viewport: dict) -> list[str]:
    found = []
    header = page.evaluate(HEADER)
    for chart in page.evaluate(CHARTS):
        key = chart["key"]
        g = chart_geometry(page, key)
        found += [f"{key}: {p}" for p in problems(g) + label_problems(g)]
        found += [f"{key}: label {t!r} cut off at the figure's edge" for t, b in (*g.annotations, *g.bar_text)
                  if not inside(b, chart["box"])]
        # not a curve or bars; a long product's cells are wider than tall by design, and a figure held to its screen's
        # height lowers its rows (products._lower_rows): drawn as wide as laid out, no row taller than its widest
        # column is wide
        if chart["matrices"] and not any(abs(w - h) <= 1.5 for w, h in g.cells.values()) and not (
                chart["unsqueezed"] and max(h for _, h in g.cells.values()) < max(w for w, _ in g.cells.values())):
            found.append(f"{key}: no panel has square cells {g.cells} (laid out loosely, or squeezed into its column)")
        if chart["right"] > viewport["width"]:
            found.append(f"{key}: runs off the screen ({chart['right']:.0f} px > {viewport['width']})")
        if screen == "present" and chart["height"] > viewport["height"] - header:
            found.append(f"{key}: {chart['height']:.0f} px tall, the screen shows {viewport['height'] - header:.0f}")
        if screen == "present":  # from the back of a room: ticks, legends and axis titles at the projector's type
            found += [f"{key}: {text!r} at {px:.0f} px" for text, px in page.evaluate(TYPE, key) if px < PRESENT.tick]
    for text, wide, room in page.evaluate(FORMULAS):
        if wide > room + 3:  # a display formula is 2 px wider than its room when it fits
            found.append(f"formula {text!r} is {wide:.0f} px wide in {room:.0f} px")
    # a slider's value stays clear of its thumb (the lab's RoPE on a projector, audit 2026-12-06: the thumb hid it)
    found += [f"slider value {text!r} under its thumb" for text, words, thumb in page.evaluate(THUMBS)
              if overlap(words, thumb, 0)]
    return found


READABLE = {"desk": 11, "present": 14, "phone": 11}  # px: the least a screen writes Concat's and W_O's numbers in
NUMBERS = """(key) => [...document.querySelectorAll(`.st-key-${key} .mha-chart .cell-label`)]
  .filter(e => e.getBoundingClientRect().width > 0 && e.textContent.trim())
  .map(e => parseFloat(getComputedStyle(e).fontSize))"""


def number_sizes(page, key: str, least: float) -> list[str]:
    """The chart's cell numbers: written, none under `least` px."""
    sizes = page.evaluate(NUMBERS, key)
    return [f"{key}: no numbers"] if not sizes else [f"{key}: numbers at {min(sizes)} px"] if min(sizes) < least else []


def nav_problems(page, stage: str) -> list[str]:
    """The way back and the way on: one row under the stage (a horizontal container), alone or together, ← at the
    column's left edge, → at its right edge, level with each other; none back on the first stage, none on on the
    last. On a desk, where the column has its 5rem padding."""
    column = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
    left, right = column["x"] + 80, column["x"] + column["width"] - 80
    want = [k for k, there in (("prev_stage", stage != STAGES[0]), ("next_stage", stage != STAGES[-1])) if there]
    shown = [k for k in ("prev_stage", "next_stage") if page.locator(f".st-key-{k}").count()]
    if shown != want:
        return [f"{stage}: buttons {shown}, not {want}"]
    boxes = {k: page.locator(f".st-key-{k} button").bounding_box() for k in shown}
    found = []
    if "prev_stage" in boxes and abs(boxes["prev_stage"]["x"] - left) > 2:
        found.append(f"{stage}: ← at {boxes['prev_stage']['x']:.0f} px, the column starts at {left:.0f}")
    if "next_stage" in boxes and abs(boxes["next_stage"]["x"] + boxes["next_stage"]["width"] - right) > 2:
        found.append(f"{stage}: → ends at {boxes['next_stage']['x'] + boxes['next_stage']['width']:.0f} px, "
                     f"the column at {right:.0f}")
    if len({round(b["y"]) for b in boxes.values()}) != 1:
        found.append(f"{stage}: ← and → not level: {boxes}")
    return found


def walk(page, screen: str, stages: list[str]):
    """Yield each of `stages` in turn once it is drawn for this screen, from the first (opened from a link) on
    with "Next", as a reader goes. A phone is known only after the page reports it; after that, a step's run
    is over when its end arrives (rerun_after)."""
    for i, stage in enumerate(stages):
        try:
            while i and f"stage={stage}" not in page.url:  # Next, through the parts the walk steps through
                rerun_after(page, page.locator(".st-key-next_stage button").click, 120_000)
            page.wait_for_selector(f'[data-screen="{"phone" if screen == "phone" else "wide"}"]', state="attached",
                                   timeout=120_000)
            if not i:
                settle(page, 120_000)
        except Exception as e:  # noqa: BLE001 - Playwright's TimeoutError, said with the page's link
            raise AssertionError(f"{page.url}: not drawn for {screen} in time") from e
        assert page.locator('[data-testid="stException"]').count() == 0, page.url
        yield stage


def shoot_page(page, viewport: dict, name: str) -> None:
    """The whole page, however long, when screenshots are on: the viewport is made as tall as the content for the
    shot (Streamlit scrolls its own box, so a full-page shot would show one screen)."""
    if not SHOOTING:
        return
    height = min(max(page.evaluate(PAGE_HEIGHT), viewport["height"]), 6000)
    page.set_viewport_size(dict(viewport, height=height))
    page.wait_for_timeout(200)
    shoot(page, name, full_page=False)
    page.set_viewport_size(viewport)


# Every screen in both languages and at both sizes, each language at the other size from one screen to the
# next (a walk of every stage takes a minute or two; all 12 combinations put CI over its 15 minutes).
WALKS = [("desk", "en", "post"), ("desk", "zh", "large"), ("present", "en", "large"), ("present", "zh", "post"),
         ("phone", "en", "post"), ("phone", "zh", "large")]


@pytest.mark.parametrize("screen, lang, size", WALKS)
def test_static_figures_are_readable_on_every_screen(page, app_url, screen, lang, size):
    """Each stage without an exception, its figures readable (the animated ones: test_frames_e2e).

    The page is opened from a link once, then walked with "Next", as a reader does."""
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    found = []
    query = "&".join(f"{k}={v}" for k, v in dict(stage=STAGES[0], lang=lang, **SIZES[size], **extra).items())
    page.goto(f"{app_url}/?{query}")
    for stage in walk(page, screen, STAGES):
        if screen == "desk":
            found += nav_problems(page, stage)
        if screen == "present" and size == "post":  # a presenter's page opens on its first figure
            found += first_screen(page, stage, lang, stage in ("scores", "kv_cache"))  # (test_presenter_e2e: English)
        if stage in ANIMATIONS and size == "post":  # each frame of the animations (test_frames_e2e: the others)
            found += [f"{lang} {size}: {p}" for p in frame_problems(page, stage)]
        if stage in NOTES and size == "post":  # small notes and the diagram's labels at the screen's type sizes
            found += [f"{screen} {lang}: {p}" for p in note_sizes(page, stage, screen, lang)]
        if stage in STATIC:
            found += [f"{stage} {lang} {size}: {p}" for p in page_problems(page, screen, viewport)]
        if stage == "output" and size == "post":  # audit 2026-12-06 #9: 9 px on a phone
            found += [f"output {lang}: {p}" for p in number_sizes(page, "output_y", READABLE[screen])]
            shoot_page(page, viewport, f"{stage}-{screen}-{lang}-{size}")
        if stage == "kv_cache":  # its cost part is static: formulas, a table, a log-log chart
            rerun_after(page, page.locator(".st-key-kv_part button").nth(KV_PARTS.index("cost")).click)
            if size == "post":  # and the timing chart, on each screen in one language (measuring costs CPU)
                rerun_after(page, page.locator(".st-key-kv_measure button").click, 120_000)
                assert page.locator(".st-key-kv_timing .main-svg").count(), "no timing chart after measuring"
            found += [f"kv_cache/cost {lang} {size}: {p}" for p in page_problems(page, screen, viewport)]
            shoot_page(page, viewport, f"kv_cache-cost-{screen}-{lang}-{size}")
    assert not found, f"{len(found)} problems:\n" + "\n".join(found[:40])


TEXTS = {"en": "queries compare themselves against earlier keys only", "zh": "我爱注意力机制"}  # long words mid-text,
# where the rows' title stands
# the stages whose rows are named by the text's tokens
NAMED = ["tokens", "qk", "values", "heads", "output", "dependency", "kv_cache", "block", "next_token"]


@pytest.mark.parametrize("screen, lang", [("desk", "en"), ("present", "zh")])  # not the phone: CI time
def test_rows_named_by_tokens_are_readable(page, app_url, screen, lang):
    """With a text, rows that count tokens carry the tokens' words instead of numbers: each figure makes room
    for the longest word (on a phone the rows keep their numbers), and no word lands on a title or a plot."""
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    found = []
    query = "&".join(f"{k}={v}" for k, v in dict(stage=NAMED[0], lang=lang, text=TEXTS[lang], **extra).items())
    page.goto(f"{app_url}/?{query}")
    for stage in walk(page, screen, STAGES[STAGES.index(NAMED[0]):]):
        if stage in NAMED:
            found += [f"{stage} {lang} text: {p}" for p in page_problems(page, screen, viewport)]
            shoot_page(page, viewport, f"{stage}-{screen}-{lang}-text")
        if stage == "block":  # its other parts, each drawn in place of the first
            parts = BLOCK_PARTS_IN["post"]  # the seeded walk's order, the post's figure
            for part in parts[1:]:
                rerun_after(page, page.locator(".st-key-block_part button").nth(parts.index(part)).click)
                found += [f"block/{part} {lang} text: {p}" for p in page_problems(page, screen, viewport)]
                shoot_page(page, viewport, f"block-{part}-{screen}-{lang}-text")
    assert not found, f"{len(found)} problems:\n" + "\n".join(found[:40])


# Characters at the left edge of a line of a paragraph that are closing marks, which Chinese never begins a line with.
LINE_STARTS = """() => {
  const found = [];
  for (const p of document.querySelectorAll('[data-testid="stMain"] [data-testid="stMarkdownContainer"] p')) {
    const left = p.getBoundingClientRect().left, walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest('.katex')) continue;
      for (let i = 0; i < n.length; i++) {
        if (!'。，、；：！？）'.includes(n.data[i])) continue;
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        const box = r.getClientRects()[0];
        if (box && Math.abs(box.left - left) < 2) found.push(n.data.slice(i, i + 12));
      }
    }
  }
  return found;
}"""


def test_no_chinese_line_begins_with_a_closing_mark_after_a_formula(page, app_url):
    """Audit 2026-12-07 #13: on a phone, the pre-LN block's last part began a line with "。GPT-2 还在最后…": Chromium
    ended the line after the formula's last box, whatever followed it (a word joiner did not hold them)."""
    page.set_viewport_size(SCREENS["phone"][0])
    page.goto(f"{app_url}/?stage=block&ln=pre&part=out&lang=zh")
    settle(page)
    assert page.evaluate(LINE_STARTS) == []
