"""A 1,000-character word in a real browser, on a desk and on a phone: the page keeps its width, the next token's
bars stay inside their chart, every label naming the word is shortened and holds it whole on hover, and nothing
errs in the console."""

import pytest

from .conftest import listen, settle, shoot

pytestmark = pytest.mark.e2e

WORD = "abcdefghij" * 100  # one token of 1,000 characters: it gave the bars a negative width, the page 8,212 px
SCREENS = {"desk": {"width": 1400, "height": 1000}, "phone": {"width": 390, "height": 844}}

WIDTHS = """() => { const main = document.querySelector('[data-testid="stMain"]');
  return {page: [document.documentElement.scrollWidth, window.innerWidth], main: [main.scrollWidth, main.clientWidth],
          right: main.getBoundingClientRect().right}; }"""
# Each bar's box and its chart's: [x, width] of the bar, the SVG's width, the plot area's left and right edges.
BARS = """() => [...document.querySelectorAll('.st-key-next_probs svg rect.bar')].map(r => {
  const svg = r.ownerSVGElement, area = svg.querySelector('.mha-plot').dataset.area.split(',').map(Number);
  return [+r.getAttribute('x'), +r.getAttribute('width'), +svg.getAttribute('width'), area[0], area[2]]; })"""
# Every tick label drawn shortened: its text, its title, and whether it lies inside its SVG.
SHORTENED = """() => [...document.querySelectorAll('.mha-chart svg .tick')].filter(t => t.textContent.includes('…'))
  .map(t => { const b = t.getBBox(), w = +t.ownerSVGElement.getAttribute('width');
              const title = t.parentNode.querySelector(':scope > title');
              return [t.textContent, title && title.textContent, b.x >= 0 && b.x + b.width <= w]; })"""
CHARTS_RIGHT = """() => Math.max(...[...document.querySelectorAll('.mha-chart')]
  .map(c => c.getBoundingClientRect().right))"""


def open_long(page, app_url, stage: str, screen: str) -> list[str]:
    """The stage with the word (and " b", which the 1,000-character cap cuts) at this screen; the console's errors."""
    errors = []
    listen(page, "console", lambda m: errors.append(m.text) if m.type == "error" else None)
    listen(page, "pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size(SCREENS[screen])
    page.goto(f"{app_url}/?stage={stage}&text={WORD}%20b")
    settle(page)
    return errors


def assert_within_the_page(page) -> None:
    widths = page.evaluate(WIDTHS)
    assert widths["page"][0] <= widths["page"][1] and widths["main"][0] <= widths["main"][1], widths
    assert page.evaluate(CHARTS_RIGHT) <= widths["right"]


@pytest.mark.parametrize("screen", SCREENS)
def test_a_1000_character_word_stays_within_the_next_token_charts(page, app_url, screen):
    errors = open_long(page, app_url, "next_token", screen)
    assert_within_the_page(page)
    bars = page.evaluate(BARS)
    assert bars and all(0 <= left <= x and w > 0 and x + w <= min(right, svg_w) for x, w, svg_w, left, right in bars)
    shortened = page.evaluate(SHORTENED)
    assert any(title == f"{WORD} (0)" for _, title, _ in shortened)  # the bars' name
    for text, title, inside in shortened:
        assert title in (WORD, f"{WORD} (0)") and WORD.startswith(text.split("…")[0]) and inside, (text, title)
    chart = page.locator(".st-key-next_probs .mha-chart")
    chart.scroll_into_view_if_needed()
    shoot(page, f"long-token-next-{screen}")
    chart.locator("rect.bar").first.hover()
    tip = chart.locator(".mha-tip")
    assert tip.is_visible() and WORD in tip.inner_text()  # the bar's hover label: the whole word, wrapped
    box = tip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= SCREENS[screen]["width"]
    assert_within_the_page(page)
    shoot(page, f"long-token-next-hover-{screen}")
    assert errors == []


@pytest.mark.parametrize("screen", SCREENS)
def test_a_1000_character_word_stays_within_the_tokens_page(page, app_url, screen):
    errors = open_long(page, app_url, "tokens", screen)
    assert_within_the_page(page)
    chip = page.locator('[data-testid="stMain"] span[title]')
    assert chip.count() == 1 and chip.get_attribute("title") == WORD
    text = chip.inner_text()
    assert "…" in text and WORD.startswith(text.split("…")[0])
    box, main = chip.bounding_box(), page.evaluate(WIDTHS)
    assert box["x"] + box["width"] <= main["right"]
    for shown, title, inside in page.evaluate(SHORTENED):  # E's and X's rows
        assert title == WORD and inside, shown
    chip.scroll_into_view_if_needed()
    shoot(page, f"long-token-tokens-{screen}")
    assert errors == []
