"""The variant lab's window, sinks and ALiBi in Chromium, at 1400×1000, at 1280×720 with present=1 and at 390×844,
in both languages, each part of the lab: no error; every matrix chart within the screen's width; on a projector the
first figure of what changes on the first screen; the mask's band and the bias's numbers as the SVG draws them; the
live check's table; a clicked ALiBi score written out with its bias. Screenshots go to
test-artifacts/screenshots/lab-bias-*."""

import pytest

from mha.ui.settings import LAB_PARTS
from mha.ui.strings import TABLES

from .conftest import rerun_after, settle, shoot
from .test_explorer_e2e import _click_point
from .test_matrix_chart_e2e import CELLS

pytestmark = pytest.mark.e2e

SCREENS = {"desk": (dict(width=1400, height=1000), ""), "present": (dict(width=1280, height=720), "&present=1"),
           "phone": (dict(width=390, height=844), "")}
FIRST_SCREEN = 600  # px: on a projector the first figure's top sits no lower

# Each matrix chart's key and its box in the page, and the first one's top.
BOXES = """() => [...document.querySelectorAll('[data-testid="stMain"] .mha-chart')].map(c => {
  const b = c.querySelector('svg').getBoundingClientRect();
  const key = [...c.closest('[class*="st-key-"]').classList].find(k => k.startsWith('st-key-')).slice(7);
  return {key, top: b.top, left: b.left, right: b.right};
})"""


def _open(page, app_url, variant: str, screen: str, lang: str, extra: str = "", part: str = "change") -> None:
    viewport, query = SCREENS[screen]
    page.set_viewport_size(viewport)
    page.goto(f"{app_url}/?stage=variants&variant={variant}&part={part}&lang={lang}{query}{extra}")
    settle(page, 120_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def _labels(page, key: str, trace: int) -> list[str]:
    drawn = page.evaluate(CELLS, page.locator(f".st-key-{key} .mha-chart").element_handle())
    return [c["label"] for c in drawn["cells"] if c["trace"] == trace and c["label"]]


# each screen in one language, both languages across the screens: CI's 15 minutes (the words are checked in both
# languages by the AppTests)
# No desk: the projector's 1280 px with its larger type bounds the desk's 1400 px (and a page load costs Chromium
# about a CPU-second: CI's time).
@pytest.mark.parametrize("variant, screen, lang", [
    ("window", "present", "zh"), ("window", "phone", "en"), ("sinks", "present", "en"), ("sinks", "phone", "zh"),
    ("alibi", "present", "en"), ("alibi", "phone", "zh")])
def test_the_variant_is_drawn_whole_on_every_screen(page, app_url, variant, screen, lang):
    width, t = SCREENS[screen][0]["width"], TABLES[lang]
    first = {"window": "lab_window_mask", "sinks": "lab_sinks_mask", "alibi": "lab_alibi_bias"}[variant]
    expected = dict(change=[first], click=["lab_alibi_scores" if variant == "alibi" else f"lab_{variant}_h"], check=[])
    for part, keys in expected.items():  # the first part from the link, the others by the part control, as a learner
        if part == "change":
            _open(page, app_url, variant, screen, lang, part=part)
        else:
            rerun_after(page, page.locator(".st-key-lab_part button").nth(LAB_PARTS.index(part)).click)
            assert f"part={part}" in page.url and page.locator('[data-testid="stException"]').count() == 0, page.url
        boxes = page.evaluate(BOXES)
        assert [b["key"] for b in boxes] == keys, part
        for b in boxes:
            assert b["left"] >= 0 and b["right"] <= width + 1, (part, b, width)
        if screen == "present" and part == "change":
            assert boxes[0]["top"] <= FIRST_SCREEN, boxes[0]
        main = page.locator('[data-testid="stMain"]').inner_text()
        # 2 heads: slopes 1/16 and 1/256, the farthest of 3 keys loses 2/16 and 2/256; the mask's cells that read 0
        # are those a query sees (W = 2 hides key 1 from query 3; the sink keeps it)
        if variant == "alibi" and part == "change":
            assert "−0.125" in _labels(page, "lab_alibi_bias", 0)
            assert "−0.008" in _labels(page, "lab_alibi_bias", 1)
        elif variant == "alibi" and part == "check":
            assert "0.0625" in main and "0.0039" in main  # the slopes table
        elif part == "change":
            assert _labels(page, first, 0) == ["0"] * (5 if variant == "window" else 6)
        elif part == "check":
            assert t["lab_window_col_held"] in main
        shoot(page, f"lab-bias-{variant}-{part}-{screen}-{lang}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_clicked_alibi_score_is_written_out_with_its_bias(page, app_url, lang):
    _open(page, app_url, "alibi", "desk", lang, part="click")
    page.locator(".st-key-lab_alibi_scores").scroll_into_view_if_needed()
    rerun_after(page, _click_point(page, ".st-key-lab_alibi_scores", 6))  # row 3, column 1: two keys back
    main = page.locator('[data-testid="stMain"]').inner_text()
    t = TABLES[lang]
    assert t["lab_alibi_cell_same"].split("{")[0] in main
    assert "0.0625" in main  # head 1's slope, in the written sum
    shoot(page, f"lab-bias-alibi-clicked-{lang}")


def test_more_tokens_make_the_window_hide_keys(page, app_url):
    _open(page, app_url, "window", "desk", "en", "&window=3")
    assert page.locator(".st-key-lab_window_more button").count() == 1
    rerun_after(page, lambda: page.locator(".st-key-lab_window_more button").click())
    settle(page, 120_000)
    assert page.locator(".st-key-lab_window_more button").count() == 0
    labels = _labels(page, "lab_window_mask", 0)  # n = 6, W = 3: 6 + 5 + 4 visible
    assert labels == ["0"] * 15
    shoot(page, "lab-bias-window-more-en")
