"""Presenter mode and the animations, as the page shows them in Chromium.

- At 1280×720 with present=1, every stage opens on a figure (in Chinese: test_screens_e2e's projector walk): the
  first figure's top at or above 600 px, and the animations' Play button wholly on the first screen.
- A click on a cell during the scores animation keeps the frame the learner was on: the chart stays there, the clicked
  cell is outlined (with Q's row and Kᵀ's column), and the sums below say the value the outlined cell shows.
- The animation slider has a name and value text in the page's language, and says each step it moves to.
"""

import re
from urllib.parse import quote

import pytest

from mha.ui import x_source
from mha.ui.settings import BLOCK_PARTS_IN, KV_PARTS, KV_VARIANTS
from mha.ui.strings import EN, ZH
from mha.ui.walk import STAGES

from .conftest import rerun_after, settle, shoot
from .test_frames_e2e import ANIMATIONS, frame_problems
from .test_matrix_chart_e2e import OUTLINE_BOXES, _cells_box

pytestmark = pytest.mark.e2e

PRESENTER = dict(width=1280, height=720)
FIRST_SCREEN = 600  # px: the first figure's top may sit no lower (its top 120 px are then on a 720 px screen)
# The views whose first figure is whole on the first screen (issue 46 item 3: the formulas and the prose under it,
# the head picker without its label, the block's part before its diagram; a product or a block part under one row
# of controls no taller than the rest of the screen, view.first_screen; the lab's map and RoPE's Q beside Q_rot;
# the scores' S drawn alone, Look.operands; the refresher's product over the grids that make it; the online softmax's
# rows lower than wide, its sentence beside the tile's panels, its knob's label and product picker in one row; a
# product whose long layout would be too tall there drawn A · B = C in a row, as RoPE's scores are; the KV step's
# rows lower than wide under one row of its head, part and add button (sinks' lower still, its knobs' names over
# their boxes); the output's long product with W_O's heads' blocks of rows side by side). Every stage is:
# bench/README.md, "Presenter mode's first screen".
WHOLE = ("matmul", "tokens", "input", "qk", "scores", "values", "heads", "output", "dependency", "variants",
         "block", "block-ln1", "block-ffn", "block-gelu", "block-out", "variants-mqa", "variants-window",
         "variants-sinks", "variants-alibi", "variants-rope", "variants-mqa-partclick", "variants-int8-partclick",
         "variants-gqa-partclick", "variants-gqa", "variants-gqa-n_heads4-kv_heads2", "next_token",
         "variants-window-partclick", "variants-sinks-partclick", "variants-mla", "variants-int8",
         "variants-mla-partclick", "heads-writes", "heads-circuits",
         "variants-rope-partcheck", "variants-rope-partclick", "tokens-long", "kv_cache", "kv_cache-cost",
         "variants-online", "variants-online-partclick", "kv_cache-window", "kv_cache-gqa", "kv_cache-rope",
         "kv_cache-sinks", "kv_cache-mla", "kv_cache-added", "kv_cache-mla-added")
TABLES = {"en": EN, "zh": ZH}
LONG_TEXT = "the cat sat on the mat and the dog ran off to find another mat " * 3  # 42 tokens: three lines of chips

# The first figure in the page's order: a matrix chart or a Plotly chart (the block's diagram is where the part sits,
# not the part); on a stage without one, the grid X is edited in. Play: the first button of an animation's controls.
FIRST = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const figures = [...main.querySelectorAll('.mha-chart, [data-testid="stPlotlyChart"]')];
  const first = figures[0] || main.querySelector('[data-testid="stDataFrame"]');
  const play = main.querySelector('.mha-chart .mha-menu .mha-button');
  const box = e => { const b = e.getBoundingClientRect(); return [b.top, b.bottom]; };
  return {first: first ? box(first) : null, play: play ? box(play) : null};
}"""


TITLES = "() => [...document.querySelectorAll('.st-key-kv_animation svg text')].map(e => e.textContent)"
TO_TOP = "() => { for (const e of document.querySelectorAll('*')) if (e.scrollTop) e.scrollTop = 0; }"


def first_screen(page, name: str, lang: str, animated: bool) -> list[str]:
    """What keeps a presenter's page from opening on a figure: none drawn, its top below FIRST_SCREEN, and on an
    animated one, Play off the 720 px screen. Read with the page scrolled to its top, as a link opens it (the
    layout does not depend on how the stage was reached). Screenshot presenter-first-<name>-<lang>."""
    assert page.locator('[data-testid="stException"]').count() == 0, name
    page.evaluate(TO_TOP)
    at = page.evaluate(FIRST)
    shoot(page, f"presenter-first-{name}-{lang}")
    found = []
    if at["first"] is None:
        found.append(f"{name}: no figure")
    elif at["first"][0] > FIRST_SCREEN:
        found.append(f"{name}: the first figure starts at {at['first'][0]:.0f} px")
    elif name in WHOLE and not 0 <= at["first"][0] < at["first"][1] <= PRESENTER["height"]:
        found.append(f"{name}: the first figure is not whole on the screen ({at['first']})")
    if animated and (at["play"] is None or at["play"][0] < 0 or at["play"][1] > PRESENTER["height"]):
        found.append(f"{name}: Play at {at['play']}")
    return found


@pytest.mark.parametrize("lang", ["en"])  # Chinese: test_screens_e2e's walk of the projector at the post's sizes
def test_presenter_mode_opens_every_stage_on_its_first_figure(page, app_url, lang):
    """The first stage opened from a link, the others reached with "Next" (a page load costs twice a rerun). On the
    way, every frame of the two animations keeps its layout and stays readable (test_frames_e2e's check)."""
    page.set_viewport_size(PRESENTER)
    page.goto(f"{app_url}/?stage={STAGES[0]}&lang={lang}&present=1")
    settle(page, 120_000)
    found = []
    for i, stage in enumerate(STAGES):
        if i:  # from the block's last part (its part control went through them below), Next goes on
            rerun_after(page, page.locator(".st-key-next_stage button").click, 120_000)
            assert f"stage={stage}" in page.url, (stage, page.url)
        found += first_screen(page, stage, lang, stage in ("scores", "kv_cache"))
        if stage in ANIMATIONS:
            found += frame_problems(page, stage)
        if stage == "kv_cache":  # its cost part: the curves first, sized to what is left under the controls
            parts = KV_PARTS
            for part in (*parts[1:], parts[0]):
                rerun_after(page, page.locator(".st-key-kv_part button").nth(parts.index(part)).click)
                if part != parts[0]:
                    found += first_screen(page, f"kv_cache-{part}", lang, False)
            for head in (2, 1):  # its head control, in the stage's fragment there: the step is drawn for the head
                rerun_after(page, page.locator(".st-key-head button").nth(head - 1).click)
                titles = page.evaluate(TITLES)
                assert f"Q{head} · 3×7" in titles and f"K cache (K{head}) · 3×7" in titles, (head, titles)
            rerun_after(page, page.locator(".st-key-add_token button").click)  # a presenter's next step: X₄ arrives
            assert "kv=1" in page.url, page.url
            found += first_screen(page, "kv_cache-added", lang, True)  # four rows of tokens
            rerun_after(page, page.locator(".st-key-kv_variant button").nth(KV_VARIANTS.index("mla")).click)
            assert "variant=mla" in page.url and "kv=1" in page.url, page.url
            found += first_screen(page, "kv_cache-mla-added", lang, True)  # and a knob's row, and MLA's sentences
        if stage == "block":  # its other parts, as its part control reaches them
            parts = BLOCK_PARTS_IN["post"]
            for part in parts[1:]:
                rerun_after(page, page.locator(".st-key-block_part button").nth(parts.index(part)).click)
                assert f"part={part}" in page.url, (part, page.url)
                found += first_screen(page, f"block-{part}", lang, False)
    page.goto(f"{app_url}/?stage=tokens&lang={lang}&present=1&text={quote(LONG_TEXT)}")  # chips on three lines:
    settle(page, 120_000)  # E starts two lines lower, and is still whole
    found += first_screen(page, "tokens-long", lang, False)
    assert not found, f"{lang}: " + "; ".join(found)


# The scores chart as shown: the frame, the outlines and every number drawn in the S panel (x2y) with its centre.
SHOWN = """(root) => {
  const svg = root.querySelector(':scope > svg'), o = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text.cell-label, text.point-text')].filter(
    e => e.closest('[data-sub="x2y"]')).map(e => { const b = e.getBoundingClientRect();
      return [e.textContent, (b.left + b.right) / 2 - o.left, (b.top + b.bottom) / 2 - o.top]; });
  return {frame: root.mha.frame, count: root.mha.frames.length, texts};
}"""


def _step_to(page, frame: int) -> None:
    """The slider moved to `frame` from the keyboard, as a learner steps it: Home, then → frame times."""
    slider = page.locator(".st-key-scores .mha-slider")
    slider.focus()
    page.keyboard.press("Home")
    for _ in range(frame):
        page.keyboard.press("ArrowRight")


def _click_cell(page, i: int, j: int, n: int) -> None:
    point = page.locator(".st-key-scores .mha-chart .point").nth(i * n + j)  # the click layer's points: row by row
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    rerun_after(page, lambda: page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_click_during_the_scores_animation_keeps_the_frame_and_explains_its_cell(page, app_url, lang):
    """Two heads, head 2; stepped to a frame of each kind (QKᵀ filling, ÷√d_k, masked, softmax row by row, S), a
    click on S[3, 2] and on S[1, 3] leaves the chart on that frame with the cell outlined, and the sums say the
    number the outlined cell shows there, as it is written there, or that it is not filled yet. First, the slider
    named and saying every step (slider_says_every_step)."""
    page.set_viewport_size(dict(width=1400, height=1000))
    page.goto(f"{app_url}/?stage=scores&n_heads=2&head=2&lang={lang}")
    settle(page)
    slider_says_every_step(page, "scores", lang)
    root = lambda: page.locator(".st-key-scores .mha-chart").element_handle()  # noqa: E731
    count = page.evaluate(SHOWN, root())["count"]
    n = 3
    words = TABLES[lang]
    # every kind of frame in English; in Chinese, where only the sums' words differ, a frame before the cell is
    # filled, one of the softmax row by row and the last
    for frame in (5, 8, 9, 10, 11, 12, count - 1) if lang == "en" else (5, 10, count - 1):
        for i, j in ((2, 1), (0, 2)):
            _step_to(page, frame)
            assert page.evaluate(SHOWN, root())["frame"] == frame
            _click_cell(page, i, j, n)
            shown = page.evaluate(SHOWN, root())
            assert shown["frame"] == frame, f"frame {frame}: the click moved the chart to frame {shown['frame']}"
            read = page.evaluate(OUTLINE_BOXES, root())
            cell = _cells_box(read["panels"]["x2y"], (j + 1, j + 1), (i + 1, i + 1))
            assert any(max(abs(p - q) for p, q in zip(box, cell)) <= 0.5 for box in read["boxes"]), (frame, read)
            in_cell = [text for text, x, y in shown["texts"] if cell[0] < x < cell[1] and cell[2] < y < cell[3]
                       and text]
            head = re.compile(re.escape(words["frame_cell"].split("{count}")[0].format(k=frame + 1)))
            sums = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=head).first.inner_text()
            if not in_cell:  # a QKᵀ frame before the cell is filled
                empty = words["frame_cell_empty"].split("{j}]")[1].split(".")[0].split("。")[0]
                assert f"[{i + 1}, {j + 1}]{empty}" in sums, (frame, i, j, sums[:200])
                continue
            (drawn,) = in_cell
            said = re.search(r"\[" + f"{i + 1}, {j + 1}" + r"\][^\d−∞]*(−?∞|−?\d+(?:\.\d+)?)", sums)
            assert said and said[1] == drawn, (frame, i, j, drawn, sums[:300])  # the number as the cell shows it
    shoot(page, f"scores-click-keeps-frame-{lang}")


SLIDER = """(key) => { const s = document.querySelector(`.st-key-${key} .mha-slider`);
  return {label: s.getAttribute('aria-label'), value: s.getAttribute('aria-valuetext'),
          now: s.getAttribute('aria-valuenow'), max: s.getAttribute('aria-valuemax'),
          live: s.querySelector('[aria-live]') && s.querySelector('[aria-live]').textContent}; }"""
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("lang", ["en", "zh"])  # the scores' slider: test_a_click_during_the_scores_animation_…
def test_the_kv_animation_slider_is_named_and_says_every_step(page, app_url, lang):
    page.set_viewport_size(dict(width=1400, height=1000))
    page.goto(f"{app_url}/?stage=kv_cache&lang={lang}")
    settle(page)
    slider_says_every_step(page, "kv_animation", lang)


def slider_says_every_step(page, key: str, lang: str) -> None:
    """The slider's name is the page's words for it; each step has its own value text in the page's language, which
    starts "Frame k of N" (in that language), and a live region says it when the step changes from the keyboard."""
    words = TABLES[lang]
    first = page.evaluate(SLIDER, key)
    assert first["label"] == words["anim_slider"]
    steps = int(first["max"]) + 1
    page.locator(f".st-key-{key} .mha-slider").focus()
    page.keyboard.press("Home")
    said = []
    for k in range(steps):
        if k:
            page.keyboard.press("ArrowRight")
        now = page.evaluate(SLIDER, key)
        assert now["now"] == str(k)
        start = words["anim_step_text"].split("{step}")[0].format(k=k + 1, count=steps)
        assert now["value"].startswith(start), (k, now["value"])
        assert bool(CJK.search(now["value"])) == (lang == "zh"), now["value"]
        if k:
            assert now["live"] == now["value"]
        said.append(now["value"])
    assert len(set(said)) == steps, said


# Drawn type sizes in px: the body's prose; each small note named by its first words (Markdown's :small[…], the tokens'
# count, st.caption); the block diagram's labels (their font size in the graph's units times the graph's scale).
SIZES = """(notes) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const px = e => parseFloat(getComputedStyle(e).fontSize);
  const prose = main.querySelector('[data-testid="stMarkdownContainer"] p');
  const leaves = [...main.querySelectorAll('p, span')].filter(e => !e.closest('svg, .katex'));
  const found = {};
  for (const start of notes) {
    const hit = leaves.filter(e => e.textContent.trim().startsWith(start)).pop();
    found[start] = hit ? px(hit) : null;
  }
  const labels = [...main.querySelectorAll('[data-testid="stGraphVizChart"] svg text')].map(
    t => px(t) * t.getScreenCTM().a);
  return {prose: px(prose), notes: found, labels};
}"""
# The small notes each stage shows at the post's sizes with the language's example text, by their strings' keys.
NOTES = {"kv_cache": ["kv_hint"], "tokens": ["tokens_count", "positions_odd"],
         "next_token": ["next_tied", "next_untrained"], "block": []}


def _note_start(key: str, lang: str) -> str:
    tokens = x_source.text_tokens(x_source.example_text(lang))
    return TABLES[lang][key].format(n=len(tokens), vocab=len(set(tokens)), d=5)[:12].strip()


def note_sizes(page, stage: str, screen: str, lang: str) -> list[str]:
    """On a projector the small notes take the captions' 17.6 px (they kept the desk's 14 px under 22.4 px prose) and
    the block diagram's labels the prose's size (22.6 px); on a phone the diagram, drawn top to bottom, labels at 16 px
    (5 px when it shrank left to right to the phone's width); the desk's stay Streamlit's. For a stage of NOTES at
    the post's sizes with the example text (test_screens_e2e's walks at the post's sizes call it on each screen)."""
    starts = [_note_start(key, lang) for key in NOTES[stage]]
    sizes = page.evaluate(SIZES, starts)
    want = 17.6 if screen == "present" else 14
    found = [f"{stage} «{note}»: {size} px, not {want}" for note, size in sizes["notes"].items()
             if size is None or abs(size - want) > 0.1]
    if stage == "block":
        want = {"present": 22.6, "phone": 16.0, "desk": 12.8}[screen]
        if not sizes["labels"] or any(abs(px - want) > 0.3 for px in sizes["labels"]):
            found.append(f"diagram labels {sizes['labels']} px, not {want}")
    return found
