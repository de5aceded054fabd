"""The KV-cache stage with a variant, in Chromium, on three screens: a sliding window (en) and a GQA cache (zh) after
two tokens are added. Every frame of the animation, stepped as the slider steps it, keeps one layout and stays
readable; the rows drawn are the tokens the cache holds, named by their positions; the page says which kv head the
shown head reads and that the window's bound holds; in presenter mode Play is on the first screen."""

import pytest

from .conftest import rerun_after, shoot
from .geometry import frame_geometries, moved, problems
from .test_frames_e2e import SCREENS, drawn_for_this_window

pytestmark = pytest.mark.e2e

KEY = "kv_animation"
CASES = {  # variant -> (link, the names of the K cache's rows after two additions (None: numbered 1..t), what the
    #                   page says)
    "window": (dict(variant="window", window=2, n_heads=4, lang="en"), ["4", "5"],
               ["2 ≤ 2", "X₁…X₃ left"]),
    "gqa": (dict(variant="gqa", kv_heads=2, n_heads=4, head=3, lang="zh"), None,
            ["第 3 个头读第 2 个 kv 头，第 3–4 个头共用它（第 2 组）", "0——完全相同"]),
}
ROWS = """(root) => { const l = root.mha.layout, y = l[Object.keys(l).filter(k => k.startsWith('yaxis')).sort()[1]];
                      return y.ticktext || null; }"""  # the names of the K cache's rows (the second panel's)


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("variant", CASES)
def test_a_variants_cache_steps_frame_by_frame_on_every_screen(page, app_url, variant, screen):
    viewport, extra = SCREENS[screen]
    link, rows, said = CASES[variant]
    page.set_viewport_size(viewport)
    query = "&".join(f"{k}={v}" for k, v in dict(stage="kv_cache", **link, **extra).items())
    page.goto(f"{app_url}/?{query}")
    drawn_for_this_window(page, KEY)
    for _ in range(2):
        rerun_after(page, page.locator(".st-key-add_token button").click)
    drawn_for_this_window(page, KEY)
    assert page.locator('[data-testid="stException"]').count() == 0, query
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert all(s in text for s in said), (said, text[-1500:])
    chart = page.locator(f".st-key-{KEY} .mha-chart")
    assert page.evaluate(ROWS, chart.element_handle()) == rows
    if screen == "present":  # Play on the first screen, as on the stage without a variant
        play = page.locator(f".st-key-{KEY} .mha-chart .mha-menu .mha-button").first.bounding_box()
        assert play["y"] + play["height"] <= viewport["height"], play
    chart.scroll_into_view_if_needed()
    shoot(page, f"lab-kv-{variant}-{screen}-first")
    frames = frame_geometries(page, KEY)
    assert len(frames) == 6
    found = moved(frames) + [f"frame {k}: {p}" for k, g in enumerate(frames, 1) for p in problems(g)]
    shoot(page, f"lab-kv-{variant}-{screen}-last")
    assert not found, "\n".join(found[:20])
    width = page.evaluate("(root) => root.getBoundingClientRect().right", chart.element_handle())
    assert width <= viewport["width"], width
