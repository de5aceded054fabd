"""Every frame of every animation, on three screens and in both languages, keeps one layout and stays readable
(three of the combinations are stepped by test_screens_e2e's walks as they pass).

Each frame is stepped as the slider would step it and measured in Chromium (tests/e2e/geometry.py): plot
areas and colour bars stay where the first frame put them; no colour bar, label, tick label or control
lies over a plot area (tick labels over their own panel's edge are fine); no label covers another; no
cell number is wider than its cell. The slider's step names stand on one baseline, and the KV cache's row names
clear of the outlines on their rows.
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


# Where each step name of the chart's slider sits: the foot of an empty box put at its end stands on its baseline.
BASELINES = """(key) => [...document.querySelectorAll(`.st-key-${key} .mha-step`)].map(s => {
  const probe = document.createElement('span');
  probe.style.cssText = 'display: inline-block; width: 0; height: 0';
  s.append(probe);
  const base = probe.getBoundingClientRect().bottom;
  probe.remove();
  return [s.textContent, base];
})"""


def baseline_problems(page, key: str) -> list[str]:
    """The slider's step names off one baseline (audit 2026-12-06: "softmax" 2-3 px over the Chinese names by it)."""
    bases = page.evaluate(BASELINES, key)
    low = min(base for _, base in bases)
    return [f"step name {text!r} {base - low:.1f} px under the highest" for text, base in bases if base - low > 0.5]


# How far each row name of the KV cache's figure stands left of the outlines (dotted and solid) drawn on its row: from
# its box to the outer edge of the line, half of which lies outside the cells.
ROW_NAMES_CLEAR = """(key) => {
  const svg = document.querySelector(`.st-key-${key} .mha-chart svg`);
  const lines = [...svg.querySelectorAll('rect, path')].filter(e => {
    const colour = e.getAttribute('stroke');
    return colour && colour !== 'none' && +e.getAttribute('stroke-width') > 0 && e.getBoundingClientRect().width > 0;
  }).map(e => {
    const b = e.getBoundingClientRect(), half = +e.getAttribute('stroke-width') / 2;
    return [b.left - half, b.top - half, b.right + half, b.bottom + half];
  });
  const out = [];
  for (const t of svg.querySelectorAll('.yaxis .tick')) {
    const b = t.getBoundingClientRect(), mid = (b.top + b.bottom) / 2;
    if (b.width) lines.filter(l => l[1] <= mid && mid <= l[3] && l[2] > b.right)
                      .forEach(l => out.push([t.textContent, l[0] - b.right]));
  }
  return out;
}"""
ROW_NAMES_AWAY = 4  # px: the least a row name keeps clear of an outline on its row


def row_name_problems(page, key: str) -> list[str]:
    """Row names too near an outline (audits 2026-12-04 #16 and 2026-12-06: they touched the rows' outlines), measured
    on the frame shown, where every outline is drawn (the last)."""
    gaps = page.evaluate(ROW_NAMES_CLEAR, key)
    assert gaps, key  # the outlines and the names were found
    return [f"row name {text!r} {gap:.1f} px from an outline" for text, gap in gaps if gap < ROW_NAMES_AWAY]


def frame_problems(page, stage: str) -> list[str]:
    """Every frame of the stage's animation, stepped as its slider would step it: what moved, what is unreadable; and
    its slider's step names on one line."""
    drawn_for_this_window(page, ANIMATIONS[stage])
    frames = frame_geometries(page, ANIMATIONS[stage])
    assert len(frames) >= 4, stage
    near = row_name_problems(page, ANIMATIONS[stage]) if stage == "kv_cache" else []
    return [f"{stage}: {p}" for p in moved(frames) + baseline_problems(page, ANIMATIONS[stage]) + near] + [
        f"{stage} frame {k}: {p}" for k, g in enumerate(frames, 1) for p in problems(g)]


# At the post's sizes on the desk and the phone in English and on the projector in Chinese, test_screens_e2e's walks
# step every frame when they pass the two stages, and on the projector in English test_presenter_e2e's walk: here the
# other sizes, on each screen.
CASES = [(screen, "zh", "resized") for screen in SCREENS]


@pytest.mark.parametrize("screen, lang, size", CASES)
@pytest.mark.parametrize("stage", ANIMATIONS)
def test_every_frame_keeps_its_layout_and_stays_readable(page, app_url, stage, screen, lang, size):
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    query = "&".join(f"{k}={v}" for k, v in dict(stage=stage, lang=lang, **SIZES[size], **extra).items())
    page.goto(f"{app_url}/?{query}")
    found = frame_problems(page, stage)
    assert page.locator('[data-testid="stException"]').count() == 0, query
    shoot(page, f"frames-{stage}-{screen}-{lang}-{size}-last")
    assert not found, "\n".join(found[:20])
