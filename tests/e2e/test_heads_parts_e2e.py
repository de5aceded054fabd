"""The heads stage's parts with the trained model in Chromium (issue 35), at 1400×1000, at 1280×720 with present=1
and at 390×844, each screen in one language and both languages across them:

- Knock heads out: a pill pressed knocks that head out; the held-out table gains its row and the sequence its
  changed guesses, and the link carries knock=.
- What each head writes: the head's matrix with letters for columns; the parts' sum ✓.
- Circuits: the OV product of an induction head; a click on a cell writes its dot product.
- Training: the knock-out gap beside the induction score, the snapshot marked on every line.
Every part is checked for what test_screens_e2e's page_problems finds (labels, ticks, formulas off the screen).
Screenshots: test-artifacts/screenshots/heads-*.png.
"""

import pytest

from mha.ui import settings as S

from .conftest import rerun_after, shoot
from .test_presenter_e2e import first_screen
from .test_screens_e2e import SCREENS, click_says, open_on, page_problems

pytestmark = pytest.mark.e2e

TEXT = "E F D C B E F D C B"
TABLE_ROWS = """() => [...document.querySelectorAll('[data-testid="stMain"] table')].map(
  t => [...t.querySelectorAll('tbody tr')].map(r => [...r.querySelectorAll('td')].map(c => c.textContent.trim())))"""
LINES = """() => document.querySelector('.st-key-timeline_knock .js-plotly-plot').data
  .filter(d => d.showlegend !== false)"""


@pytest.mark.parametrize("screen, lang", [("desk", "en"), ("present", "zh"), ("phone", "en")])
def test_the_heads_parts_are_drawn_readable_and_work(page, app_url, screen, lang):
    viewport = SCREENS[screen][0]
    open_on(page, app_url, screen, stage="heads", model="trained", text=TEXT, lang=lang, part="knock")
    tables = page.evaluate(TABLE_ROWS)
    assert len(tables[0]) == 1  # nothing knocked yet: the whole model alone
    rerun_after(page, page.locator(".st-key-knock button").nth(S.KNOCK_NAMES.index("2.1")).click)
    rerun_after(page, page.locator(".st-key-knock button").nth(S.KNOCK_NAMES.index("2.2")).click)
    tables = page.evaluate(TABLE_ROWS)
    assert len(tables[0]) == 3 and float(tables[0][1][1].rstrip("%")) < 30  # without both: near guessing
    assert "knock=2.1%2C2.2" in page.url or "knock=2.1,2.2" in page.url
    assert any(c != r for c, r in zip(tables[1][3][1:], tables[1][2][1:]))  # guesses change
    shoot(page, f"heads-{screen}-{lang}-knock")
    found = page_problems(page, screen, viewport)

    for part, key in (("writes", "writes_figure"), ("circuits", "circuit_product")):
        rerun_after(page, page.locator(".st-key-heads_part button").nth(S.HEADS_PARTS.index(part)).click)
        chart = page.locator(f".st-key-{key} .mha-chart svg")
        assert chart.count() == 1, key
        if screen == "present":  # the part's figure whole on the first screen, under its controls
            found += first_screen(page, f"heads-{part}", lang, False)
        chart.scroll_into_view_if_needed()
        shoot(page, f"heads-{screen}-{lang}-{part}")
        found += page_problems(page, screen, viewport)
    # a click on a cell of the OV circuit writes its dot product
    click_says(page, "circuit_product", 3, 3, 8, lang)  # row C, letter C
    shoot(page, f"heads-{screen}-{lang}-circuit-clicked")

    rerun_after(page, page.locator(".st-key-heads_part button").nth(S.HEADS_PARTS.index("timeline")).click)
    lines = page.evaluate(LINES)
    assert len(lines) == 3
    whole, knocked = lines[0]["y"], lines[1]["y"]
    assert whole[-1] - knocked[-1] > 0.7 and abs(whole[0] - knocked[0]) < 0.05
    shoot(page, f"heads-{screen}-{lang}-timeline")
    found += page_problems(page, screen, viewport)
    if screen == "phone":  # audit #13: Plotly's toolbar cut into the timeline's title on a phone: not drawn there
        shown = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMain\"] .modebar-container')]"
                              ".map(e => getComputedStyle(e).display)")
        assert shown and set(shown) == {"none"}, shown
    assert not found, found
