"""The KV-cache stage with a variant, in Chromium, on three screens: a sliding window (en) and a GQA cache (zh), each
on two of them, after two tokens are added. Every frame of the animation, stepped as the slider steps it, keeps one
layout and stays readable; the rows drawn are the tokens the cache holds, named by their positions; the page says which
KV head the shown head reads and that the window's bound holds; in presenter mode Play is on the first screen.

Sinks, ALiBi, RoPE, MLA and MQA, each on one or two of the screens (the three and both languages among them): every
frame stepped to the end shows the core's numbers (forward, or mla_forward, on all the tokens and on all but the last:
the rotated q and k, the KV head a query head reads, the latent, the bias in the scaled scores), the SVG draws them
cell by cell, the rows are the tokens held; a picture of every frame in test-artifacts/screenshots."""

import numpy as np
import pytest

from mha import figures as F
from mha.figures.cache import drawn_rows
from tests.app.kv_frames import SCORES, STEPPED, expected_panels, frame_z

from .conftest import SHOOTING, rerun_after, shoot
from .geometry import READ, STEP, Geometry, frame_geometries, moved, problems
from .test_frames_e2e import SCREENS, drawn_for_this_window
from .test_matrix_chart_e2e import check_cells

pytestmark = pytest.mark.e2e

KEY = "kv_animation"
LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}
CASES = {  # variant -> (link, the names of the K cache's rows after two additions (None: numbered 1..t), what the
    #                   page says)
    "window": (dict(variant="window", window=2, n_heads=4, lang="en"), ["4", "5"],
               ["2 ≤ 2", "X₁…X₃ left"]),
    "gqa": (dict(variant="gqa", kv_heads=2, n_heads=4, head=3, lang="zh"), None,
            ["第 3 个头读第 2 个 KV 头，第 3–4 个头共用它（第 2 组）", "0——完全相同"]),
}
ROWS = """(root) => { const l = root.mha.layout, y = l[Object.keys(l).filter(k => k.startsWith('yaxis')).sort()[1]];
                      return y.ticktext || null; }"""  # the names of the K cache's rows (the second panel's)


def _two_added(page, app_url: str, screen: str, link: dict, said) -> None:
    """The KV stage through `link`'s variant on a screen, two tokens added, drawn, saying each of `said`."""
    viewport, extra = SCREENS[screen]
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


# Every screen, each variant on two of them: the phone, the narrowest, has both.
ON = [("window", "desk"), ("window", "phone"), ("gqa", "present"), ("gqa", "phone")]


@pytest.mark.parametrize("variant, screen", ON, ids=[f"{v}-{s}" for v, s in ON])
def test_a_variants_cache_steps_frame_by_frame_on_every_screen(page, app_url, variant, screen):
    link, rows, said = CASES[variant]
    _two_added(page, app_url, screen, link, said)
    viewport = SCREENS[screen][0]
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


# In the browser, two of the cases (tests/app/test_lab_kv.py checks every one's frames from the figure the server
# sends): ALiBi on a projector, MLA's latent on the desk. Here the SVG draws those numbers, every frame keeps its layout
# and stays readable, and the rows are named by the tokens held.
BROWSER = [case for case in STEPPED if (case[0], case[1]) in (("alibi", "present"), ("mla", "desk"))]
TICKS = """(root) => { const l = root.mha.layout;  // every panel's rows, and S's columns (the fourth panel's)
  return Object.keys(l).filter(k => /^yaxis\\d*$/.test(k) || k === 'xaxis4')
                       .map(k => [k, l[k].tickvals, l[k].ticktext]); }"""
# Scroll the page's scrolling box so that the chart's px `y` (from its top) sits just under Streamlit's header (which
# stays over the page's top); return the chart's box then, and the header's bottom.
SCROLL_TO = """([root, y]) => {
  let box = root.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight && /auto|scroll/.test(getComputedStyle(box).overflowY)))
    box = box.parentElement;
  const header = document.querySelector('[data-testid="stHeader"]');
  const under = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
  box.scrollTop += root.getBoundingClientRect().top + y - under;
  const b = root.getBoundingClientRect(); return [b.left, b.top, b.width, b.height, under];
}"""


def shoot_chart(page, root, viewport: dict, name: str) -> None:
    """The chart as drawn, in one picture where it fits the window under the header, else in pieces (-1, -2, …, top to
    bottom): Streamlit scrolls its own box, so a picture of an element taller than the window comes out blank."""
    if not SHOOTING:
        return
    height, under = page.evaluate(SCROLL_TO, [root, 0.0])[3:]
    room = viewport["height"] - under
    tops = [0] if height <= room else list(range(0, int(height), int(room) - 40))
    for i, top in enumerate(tops, 1):
        left, y, width, h, _ = page.evaluate(SCROLL_TO, [root, float(top)])
        clip = dict(x=max(0, left), y=max(under, y + top), width=min(width, viewport["width"] - max(0, left)))
        clip["height"] = min(y + h, viewport["height"]) - clip["y"]
        shoot(page, name if len(tops) == 1 else f"{name}-{i}", full_page=False, clip=clip)


def _z(trace: dict) -> np.ndarray:
    return np.array([[np.nan if c is None else c for c in row] for row in trace["z"]], float)


@pytest.mark.parametrize("variant, screen, link, said, scores_say", BROWSER,
                         ids=[f"{c[0]}-{c[1]}-{c[2]['lang']}" for c in BROWSER])
def test_each_variants_cache_shows_the_cores_numbers_on_every_frame(page, app_url, variant, screen, link, said,
                                                                     scores_say):
    _two_added(page, app_url, screen, link, said)
    viewport = SCREENS[screen][0]
    held, want = expected_panels(variant, link, drawn_rows(LOOKS[screen]))  # a projector draws the last 4 tokens
    chart = page.locator(f".st-key-{KEY} .mha-chart")
    root = chart.element_handle()
    names = [str(p + 1) for p in held]  # the rows (and S's columns) are the tokens held, by their numbers
    numbered = names == [str(i) for i in range(1, len(held) + 1)]  # then the figure numbers them itself
    ticks = page.evaluate(TICKS, root)
    assert len(ticks) == 7
    for axis, values, drawn in ticks:
        assert drawn == (None if numbered else [names[int(i) - 1] for i in values]), (axis, values, drawn, names)
    if screen == "present":
        play = page.locator(f".st-key-{KEY} .mha-chart .mha-menu .mha-button").first.bounding_box()
        assert play["y"] + play["height"] <= viewport["height"], play
    chart.scroll_into_view_if_needed()
    count = page.evaluate("(r) => r.mha.frames.length", root)
    assert count == 6
    seen, found = [], []
    for k in range(count):
        page.evaluate(STEP, [root, k])
        assert page.evaluate("(r) => r.mha.frame", root) == k
        data = page.evaluate("(r) => r.mha.data", root)
        shown = [_z(t) for t in data if t.get("type") == "heatmap"]
        expected = frame_z(want, k)
        assert [a.shape for a in shown] == [a.shape for a in expected], (k, [a.shape for a in shown])
        for i, (a, b) in enumerate(zip(shown, expected)):
            assert np.allclose(a, b, atol=1e-9, equal_nan=True), (f"frame {k + 1}, heatmap {i}", a, b)
        assert check_cells(page, KEY, data) >= 9  # the SVG draws those numbers, each in its cell and colour
        geometry = Geometry(**page.evaluate(READ, root))
        seen.append(geometry)
        found += [f"frame {k + 1}: {p}" for p in problems(geometry)]
        if k == SCORES:
            notes = "".join(t for t, _ in geometry.annotations).replace(" ", "")
            assert all(s.replace(" ", "") in notes for s in scores_say), (scores_say, notes)
    found += moved(seen)
    name = f"lab-kv-{variant}-{screen}-{link['lang']}"
    for k in range(count):  # screenshots of every frame (after measuring: taking one scrolls the page)
        page.evaluate(STEP, [root, k])
        shoot_chart(page, root, viewport, f"{name}-frame{k + 1}")
    shoot(page, name)
    assert not found, "\n".join(found[:20])
    width = page.evaluate("(root) => root.getBoundingClientRect().right", root)
    assert width <= viewport["width"], width
