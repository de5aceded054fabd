"""Every frame of every animation, on three screens and in both languages, keeps one layout and stays readable.

Each frame is stepped as the slider would step it and measured in Chromium (tests/e2e/geometry.py): plot
areas and colour bars stay where the first frame put them; no colour bar, label, tick label or control
lies over a plot area (tick labels over their own panel's edge are fine); no label covers another; no
cell number is wider than its cell.
"""

import pytest

from .conftest import settle, shoot
from .geometry import frame_geometries, moved, problems

pytestmark = pytest.mark.e2e

SCREENS = {
    "desk": (dict(width=1400, height=1000), {}),
    "present": (dict(width=1280, height=720), {"present": "1"}),
    "phone": (dict(width=390, height=844), {}),
}
SIZES = {"post": {}, "resized": dict(n_tokens=5, d_k=13, d_v=17, n_heads=3)}
ANIMATIONS = {"scores": "scores", "kv_cache": "kv_animation"}


def drawn_for_this_window(page, key: str) -> None:
    """Wait until the chart is the one drawn for this window, then for the page to settle.

    A phone's first run draws the desk figure; the page's screen probe then reports the narrow window and a
    rerun replaces it. Until then the chart is wider than the window (a figure that never fits fails here).
    """
    page.wait_for_function(
        """(key) => { const charts = document.querySelectorAll(`.st-key-${key} .mha-chart`);
                      return charts.length === 1 && charts[0].mha
                             && charts[0].mha.layout.width <= window.innerWidth; }""",
        arg=key, timeout=90_000)
    settle(page)


@pytest.mark.parametrize("lang, size", [("en", "post"), ("zh", "resized")])  # each language, each size
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("stage", ANIMATIONS)
def test_every_frame_keeps_its_layout_and_stays_readable(page, app_url, stage, screen, lang, size):
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    query = "&".join(f"{k}={v}" for k, v in dict(stage=stage, lang=lang, **SIZES[size], **extra).items())
    page.goto(f"{app_url}/?{query}")
    drawn_for_this_window(page, ANIMATIONS[stage])
    assert page.locator('[data-testid="stException"]').count() == 0, query
    frames = frame_geometries(page, ANIMATIONS[stage])
    assert len(frames) >= 4
    found = moved(frames) + [f"frame {k}: {p}" for k, g in enumerate(frames, 1) for p in problems(g)]
    shoot(page, f"frames-{stage}-{screen}-{lang}-{size}-last")
    assert not found, "\n".join(found[:20])
