"""The variant lab's RoPE in Chromium: at 1400×1000, at 1280×720 in presenter mode and at 390×844, in English and
Chinese, every figure drawn, readable (tests/e2e/geometry.py, as test_screens_e2e measures every stage), holding the
numbers a loop reference gives, and every check of the table passed, each part of the lab on its own page; then, as
a reader uses it, another head, a clicked score, fewer rotating dims and another part, each drawn anew with the right
numbers. One screenshot a page."""

import re

import numpy as np
import pytest

import mha
from mha.ui.settings import LAB_PARTS
from mha.ui.strings import TABLES
from tests.core.reference import rope

from .conftest import rerun_after, settle
from .test_screens_e2e import SCREENS, page_problems, shoot_page

pytestmark = pytest.mark.e2e

CFG = mha.AttentionConfig()
W, X = mha.init_weights(CFG), mha.init_input(CFG)
CHARTS = dict(change=("lab_rope_q", "lab_rope_k", "lab_rope_angles"), click=("lab_rope",), check=("lab_rope_same",))


def turned(head: int, dims: int, letter: str) -> np.ndarray:
    a = X @ (W.w_q if letter == "q" else W.w_k)[head]
    return np.array([rope(list(row), p, dims, 10000.0) for p, row in enumerate(a)])


def drawn(page, key: str, trace: int) -> np.ndarray:
    """Trace `trace`'s z as the page's chart holds it."""
    z = page.evaluate(f"() => document.querySelector('.st-key-{key} .mha-chart').mha.data[{trace}].z")
    return np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)


def open_lab(page, app_url, screen: str, lang: str, **params) -> None:
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    query = "&".join(f"{k}={v}" for k, v in dict(stage="variants", variant="rope", lang=lang, **extra,
                                                  **params).items())
    page.goto(f"{app_url}/?{query}")
    page.wait_for_selector(f'[data-screen="{"phone" if screen == "phone" else "wide"}"]', state="attached",
                           timeout=120_000)
    settle(page, 120_000)
    assert page.locator('[data-testid="stException"]').count() == 0, page.url


# each screen in one language, both languages across the screens: CI's 15 minutes (the words are checked in both
# languages by the AppTests)
# No desk: the projector's 1280 px with its larger type bounds the desk's 1400 px (and a page load costs Chromium
# about a CPU-second: CI's time).
@pytest.mark.parametrize("screen, lang", [("present", "en"), ("phone", "zh")])
def test_the_rope_lab_is_drawn_right_and_readable_on_every_screen(page, app_url, screen, lang):
    """Each part of the lab: the first from a link, the others by the part control, as a learner goes."""
    found = []
    for i, part in enumerate(CHARTS):
        if i:
            rerun_after(page, page.locator(".st-key-lab_part button").nth(LAB_PARTS.index(part)).click)
            assert f"part={part}" in page.url and page.locator('[data-testid="stException"]').count() == 0, page.url
        else:
            open_lab(page, app_url, screen, lang, part=part)
        for key in CHARTS[part]:
            assert page.locator(f".st-key-{key} .mha-chart svg").count() == 1, (part, key)
        if part == "change":
            np.testing.assert_allclose(drawn(page, "lab_rope_q", 1), turned(0, 6, "q"), atol=1e-12, rtol=0)  # Q₁
            np.testing.assert_allclose(drawn(page, "lab_rope_k", 1), turned(0, 6, "k"), atol=1e-12, rtol=0)  # K₁
        if part == "click":
            np.testing.assert_allclose(drawn(page, "lab_rope", 2), turned(0, 6, "q") @ turned(0, 6, "k").T,
                                       atol=1e-12, rtol=0)
        if part == "check":
            table = page.locator('[data-testid="stMarkdownContainer"] table').first
            assert table.locator("td", has_text="✓").count() == 5 and table.locator("td", has_text="✗").count() == 0
        viewport = SCREENS[screen][0]
        found += [f"{part}: {p}" for p in page_problems(page, screen, viewport)]
        shoot_page(page, viewport, f"lab-rope-{screen}-{lang}-{part}")
    assert not found, "\n".join(found)


def test_another_head_a_clicked_score_and_fewer_dims(page, app_url):
    """The head control, a click, the slider and the part control each rerun the lab's fragment only: what they
    redraw must still be the head, the cell and the dims chosen."""
    en = TABLES["en"]
    open_lab(page, app_url, "desk", "en", part="click")
    rerun_after(page, page.locator(".st-key-head button").nth(1).click)
    scores = turned(1, 6, "q") @ turned(1, 6, "k").T
    np.testing.assert_allclose(drawn(page, "lab_rope", 2), scores, atol=1e-12, rtol=0)
    point = page.locator(".st-key-lab_rope .mha-chart .point").nth(7)  # row 3, key 2
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    rerun_after(page, lambda: page.mouse.click(x, y))
    check = page.get_by_text(re.compile(r"^The (terms|products of the factors as written) .*add up to")).inner_text()
    value = float(check.split(";")[1].split()[-1].rstrip(".").replace("−", "-"))
    assert value == pytest.approx(scores[2, 1], rel=1e-3)
    shoot_page(page, SCREENS["desk"][0], "lab-rope-clicked")
    thumb = page.locator('.st-key-rotary_dims input[type="range"]')
    thumb.focus()
    rerun_after(page, lambda: thumb.press("ArrowLeft"))
    page.wait_for_function("() => location.search.includes('rotary_dims=4')")
    rerun_after(page, page.locator(".st-key-lab_part button").nth(2).click)  # the check
    assert page.get_by_text(en["lab_rope_check_pass"].format(rest=3, d_k=7)).count() == 1
    rerun_after(page, page.locator(".st-key-lab_part button").nth(0).click)  # what changes
    q, q_rot = drawn(page, "lab_rope_q", 0), drawn(page, "lab_rope_q", 1)
    np.testing.assert_allclose(q_rot, turned(1, 4, "q"), atol=1e-12, rtol=0)
    np.testing.assert_array_equal(q_rot[:, 4:], q[:, 4:])
