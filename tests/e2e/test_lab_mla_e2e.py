"""The variant lab's MLA in Chromium, at 1400×1000, at 1280×720 with present=1 and at 390×844, in both languages,
one part of the lab at a time.

- What changes: c and the chosen head's rebuilt K and V, one plain figure, with nothing broken or off the screen
  (test_screens_e2e's page_problems: labels, ticks, cell numbers, formulas, the projector's type); on the projector
  the figure starts on the first screen.
- Click: the three products (c = X·W_DKV, [K | V] = c·[W_UK | W_UV], Q̃·cᵀ), each chosen in turn, drawn whole.
- Check: the checks' and the price's tables, and the lab's cost table, fit the screen.
- A width typed in the box changes the latent drawn, stays when the part changes and marks its row of the price
  table; a click on a score writes its dot product, row of Q̃ times column of cᵀ, in the page's language.
Screenshots: test-artifacts/screenshots/lab-mla-*.png (each part, then each product).
"""

import pytest

from mha.ui import settings as S

from .conftest import rerun_after, shoot, shoot_element
from .test_screens_e2e import SCREENS, click_says, open_on, page_problems

pytestmark = pytest.mark.e2e

PRODUCTS = (("c", "mla_c"), ("kv", "mla_kv"), ("s", "mla_s"))  # the click part's control's ids, the charts' keys
FIRST_SCREEN = 600  # px: on the projector the first figure's top sits no lower

# Every Markdown table in the page: its right edge, and its bold row's first cell.
TABLES = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMarkdownContainer"] table')]
  .map(t => ({right: t.getBoundingClientRect().right, head: t.querySelector('th').textContent,
              bold: [...t.querySelectorAll('td strong')].map(s => s.textContent)}))"""
TOP = "(key) => document.querySelector(`.st-key-${key} .mha-chart`).getBoundingClientRect().top"
LATENT = "() => document.querySelector('.st-key-mla_c .mha-chart').mha.data[2].z[0].length"


def _open(page, app_url, screen: str, lang: str, part: str) -> None:
    open_on(page, app_url, screen, stage="variants", variant="mla", lang=lang, part=part)


def _choose(page, key: str, index: int) -> None:
    """Press the index-th button of a segmented control (the lab's part, the product) and wait for the rerun."""
    rerun_after(page, page.locator(f".st-key-{key} button").nth(index).click)


# each screen in one language, both languages across the screens: CI's 15 minutes (the words are checked in both
# languages by the AppTests)
# No desk: the projector's 1280 px with its larger type bounds the desk's 1400 px (and a page load costs Chromium
# about a CPU-second: CI's time).
@pytest.mark.parametrize("screen, lang", [("present", "en"), ("phone", "zh")])
def test_the_mla_lab_is_drawn_readable_on_every_screen(page, app_url, screen, lang):
    viewport = SCREENS[screen][0]
    _open(page, app_url, screen, lang, "change")
    if screen == "present":
        top = page.evaluate(TOP, "lab_mla_rebuilt")
        assert top <= FIRST_SCREEN, f"the first figure starts at {top:.0f} px"
    figure = page.locator(".st-key-lab_mla_rebuilt .mha-chart svg")
    assert figure.count() == 1
    shoot(page, f"lab-mla-{screen}-{lang}-change")
    figure.scroll_into_view_if_needed()
    shoot_element(page.locator(".st-key-lab_mla_rebuilt"), f"lab-mla-{screen}-{lang}-rebuilt")
    found = page_problems(page, screen, viewport)
    _choose(page, "lab_part", S.LAB_PARTS.index("click"))
    for index, (_, key) in enumerate(PRODUCTS):
        if index:
            _choose(page, "lab_product_mla", index)
        chart = page.locator(f".st-key-{key} .mha-chart svg")
        assert chart.count() == 1, key
        chart.scroll_into_view_if_needed()
        shoot_element(page.locator(f".st-key-{key}"), f"lab-mla-{screen}-{lang}-{key}")
        found += page_problems(page, screen, viewport)
    shoot(page, f"lab-mla-{screen}-{lang}-click")
    _choose(page, "lab_part", S.LAB_PARTS.index("check"))
    shoot(page, f"lab-mla-{screen}-{lang}-check")
    found += page_problems(page, screen, viewport)
    tables = page.evaluate(TABLES)
    assert len(tables) == 3  # the checks, the price of each width, then the lab's cost table
    found += [f"table {t['head']!r} runs off the screen ({t['right']:.0f} px)" for t in tables
              if t["right"] > viewport["width"] + 1]
    assert not found, f"{screen}, {lang}: " + "; ".join(found)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_typed_width_redraws_the_latent_and_a_clicked_score_writes_its_dot_product(page, app_url, lang):
    _open(page, app_url, "desk", lang, "click")
    assert page.evaluate(LATENT) == 4
    box = page.locator(".st-key-d_latent input")
    box.fill("2")
    rerun_after(page, lambda: box.press("Enter"))
    assert page.evaluate(LATENT) == 2
    page.wait_for_function("() => location.search.includes('d_latent=2')")  # the link carries the width
    _choose(page, "lab_part", S.LAB_PARTS.index("check"))
    assert page.locator(".st-key-d_latent input").input_value() == "2"  # the width stays from part to part
    assert [t["bold"] for t in page.evaluate(TABLES)][1][0] == "2"
    _choose(page, "lab_part", S.LAB_PARTS.index("click"))
    _choose(page, "lab_product_mla", 2)
    click_says(page, "mla_s", 3, 2, 3, lang)  # row 3, key 2
    shoot(page, f"lab-mla-click-{lang}")
