"""The dependency stage's W and its count fit the page on every screen, in both languages: on one line where there is
room (the post's), on two where there is not (the trained model's, a third head, wide sizes), one part a line on a
phone."""

import pytest

from .conftest import rerun_after, settle
from .test_screens_e2e import FORMULAS, SCREENS

pytestmark = pytest.mark.e2e

# The post's own W: test_screens_e2e's walks check it on every screen in both languages (page_problems reads every
# display formula's width). Here, the views whose W needs two lines or more.
VIEWS = {"trained": dict(model="trained", layer=2), "three-heads": dict(n_heads=3, d_k=13),
         "wide": dict(n_tokens=8, d_model=256, d_k=128, d_v=128, n_heads=16)}


# The language each view is opened in, by screen: on the projector and the phone each view once, the two screens
# in opposite languages, so each view is seen in both languages on a narrow screen; on the desk, English, then
# Chinese by the language control in the sidebar (a rerun, not a page load).
LANGS = {"desk": ("en", "zh"), "present": ("en", "zh", "en"), "phone": ("zh", "en", "zh")}


@pytest.mark.parametrize("screen", SCREENS)
def test_w_fits_the_page(page, app_url, screen):
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    for i, (name, params) in enumerate(VIEWS.items()):
        for lang in LANGS[screen] if screen == "desk" else (LANGS[screen][i],):
            if lang == "zh" and screen == "desk":
                rerun_after(page, page.locator(".st-key-lang button").filter(has_text="中文").click, 120_000)
                assert "lang=zh" in page.url and "stage=dependency" in page.url, page.url
            else:
                query = "&".join(f"{k}={v}" for k, v in dict(stage="dependency", lang=lang, **params, **extra).items())
                page.goto(f"{app_url}/?{query}")
                settle(page, 120_000)
            w = page.locator('[data-testid="stMain"] .katex-display').filter(has_text="W=(")
            assert w.count() == 1, (name, page.url)
            found = [(text, wide, room) for text, wide, room in page.evaluate(FORMULAS) if wide > room + 3]
            assert not found, (name, screen, lang, found)
