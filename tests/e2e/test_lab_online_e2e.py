"""The online softmax lab in Chromium, on the three screens and in both languages: the animation stepped frame by
frame to its end (a screenshot each), every frame drawn as its figure says and readable, its last frame H; Play runs
it to the end; on the click part, a click on a cell of out writes how it came to be."""

import numpy as np
import pytest

import mha
from mha.ui.strings import TABLES

from .conftest import rerun_after, settle, shoot, shoot_element
from .geometry import READ, Geometry, moved, problems
from .test_frames_e2e import drawn_for_this_window
from .test_matrix_chart_e2e import check_cells
from .test_screens_e2e import page_problems, shoot_page

pytestmark = pytest.mark.e2e

KEY = "lab_online"
SCREENS = {
    "desk": (dict(width=1400, height=1000), ""),
    "present": (dict(width=1280, height=720), "&present=1"),
    "phone": (dict(width=390, height=844), ""),
}
OUT = 6  # the animation's trace of out (mha/figures/online.py)


def h_of_head(head: int) -> np.ndarray:
    """H = softmax(qkᵀ/√d_k + M)·v of the post's head, in plain numpy."""
    cfg = mha.AttentionConfig()
    x, w = mha.init_input(cfg), mha.init_weights(cfg)
    q, k, v = x @ w.w_q[head], x @ w.w_k[head], x @ w.w_v[head]
    s = q @ k.T / np.sqrt(q.shape[1])
    s[np.triu(np.ones(s.shape, bool), k=1)] = -np.inf
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True) @ v


def open_lab(page, app_url, screen: str, lang: str, tile: int, part: str = "change"):
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    page.goto(f"{app_url}/?stage=variants&variant=online&lang={lang}&tile={tile}&part={part}{extra}")
    drawn_for_this_window(page, KEY)
    assert page.locator('[data-testid="stException"]').count() == 0
    return page.locator(f".st-key-{KEY} .mha-chart").element_handle()


def z(trace: dict) -> np.ndarray:
    return np.array([[np.nan if c is None else c for c in row] for row in trace["z"]], float)


# each screen in one language, both languages across the screens: CI's 15 minutes (the words are checked in both
# languages by the AppTests)
@pytest.mark.parametrize("screen, lang", [("desk", "zh"), ("present", "en"), ("phone", "zh")])
def test_the_animation_steps_tile_by_tile_to_h(page, app_url, screen, lang):
    tile = 1  # the post's 3 tokens: three tiles, then the division
    root = open_lab(page, app_url, screen, lang, tile)
    fig = page.evaluate("(r) => r.mha.fig", root)
    frames = fig["frames"]
    assert len(frames) == 4
    assert page.evaluate("(r) => r.mha.frame", root) == 3  # it rests on out
    words = TABLES[lang]
    captions = [words["lab_online_fig_first"].format(count=3, keys=words["lab_online_fig_key"].format(a=1))]
    captions += [words["lab_online_fig_tile"].format(k=k, count=3, keys=words["lab_online_fig_key"].format(a=k))
                 for k in (2, 3)]
    captions.append(words["lab_online_fig_done"].format(h=1))
    data, seen, found = [dict(t) for t in fig["data"]], [], []
    for k, frame in enumerate(frames):
        page.evaluate("([r, k]) => r.mha.show(k)", [root, k])
        assert page.evaluate("(r) => r.mha.frame", root) == k
        for i, trace in enumerate(frame["data"]):
            data[i] = data[i] | trace
        assert check_cells(page, KEY, data) >= 3  # every cell where the frame puts it, its colour, its number
        geometry = Geometry(**page.evaluate(READ, root))
        seen.append(geometry)
        found += [f"frame {k + 1}: {p}" for p in problems(geometry)]
        notes = " ".join(text for text, _ in geometry.annotations).replace(" ", "")
        assert captions[k].replace(" ", "")[:12] in notes, (k, notes)  # the frame's sentence (wrapped in lines)
    shown = z(page.evaluate("(r) => r.mha.data", root)[OUT])
    assert np.allclose(shown, h_of_head(0), atol=1e-12)  # the last frame drawn is H
    found += moved(seen)
    for k in range(len(frames)):  # a screenshot a frame (after measuring: taking one may scroll the page)
        page.evaluate("([r, k]) => r.mha.show(k)", [root, k])
        shoot_element(page.locator(f".st-key-{KEY}"), f"lab-online-{screen}-{lang}-frame{k + 1}")
    shoot(page, f"lab-online-{screen}-{lang}")
    assert not found, "\n".join(found[:20])
    if screen == "desk":  # Play runs the tiles to the end
        page.evaluate("(r) => r.mha.show(0)", root)
        page.locator(f".st-key-{KEY} .mha-button").first.click()  # ▶ Play
        page.wait_for_function("(r) => r.mha.frame === 1", arg=root, timeout=10_000)
        page.wait_for_function("(r) => r.mha.frame === 3", arg=root, timeout=20_000)


@pytest.mark.parametrize("screen, lang", [("desk", "en"), ("phone", "zh")])
def test_a_click_on_out_writes_how_the_cell_came_to_be(page, app_url, screen, lang):
    root = open_lab(page, app_url, screen, lang, 2, "click")
    i, j, cols = 2, 4, 11  # out[3, 5] of the post's 3×11
    point = page.locator(f".st-key-{KEY} .mha-chart .point").nth(i * cols + j)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    left, top, right, bottom = Geometry(**page.evaluate(READ, root)).plots["x6y6"]  # out's panel
    width, height = (right - left) / cols, (bottom - top) / 3
    assert (left + j * width < x < left + (j + 1) * width) and (top + i * height < y < top + (i + 1) * height)
    rerun_after(page, lambda: page.mouse.click(x, y))
    said = TABLES[lang]["lab_online_cell"].format(i=i + 1, j=j + 1).split("：")[0].split(",")[0]
    assert page.get_by_text(said).count() >= 1
    value = f"{h_of_head(0)[i, j]:.4g}"
    assert value.lstrip("-") in page.locator('[data-testid="stMarkdown"]').all_inner_texts().__str__()
    shoot(page, f"lab-online-click-{screen}-{lang}")
    if screen == "desk":  # the check part, as a learner goes on to it: by the part control
        rerun_after(page, page.locator(".st-key-lab_part button").filter(has_text=TABLES[lang]["lab_part_check"]).click)
        assert "part=check" in page.url
        check_part(page, screen, lang)


@pytest.mark.parametrize("screen, lang", [("present", "zh")])  # the desk: after the click part, above
def test_the_check_part_shows_out_against_h_for_every_tile_size(page, app_url, screen, lang):
    viewport, extra = SCREENS[screen]
    page.set_viewport_size(viewport)
    page.goto(f"{app_url}/?stage=variants&variant=online&lang={lang}&part=check{extra}")
    page.wait_for_selector(".st-key-tile", timeout=120_000)
    settle(page, 120_000)
    check_part(page, screen, lang)


def check_part(page, screen: str, lang: str) -> None:
    """The check draws no figure of its own: its tables, B across, every largest |out − H| within rounding, the page
    as readable as every stage's (test_screens_e2e)."""
    viewport = SCREENS[screen][0]
    assert page.locator('[data-testid="stException"]').count() == 0
    words = TABLES[lang]
    rows = page.locator('[data-testid="stMarkdownContainer"] table tr')
    found = {}
    for k in range(rows.count()):
        cells = [c.strip() for c in rows.nth(k).locator("th, td").all_inner_texts()]
        found[cells[0]] = cells[1:]
    assert found[words["lab_online_check_b"]] == ["1", "2", "3"]
    assert all(float(d) < 1e-12 for d in found[words["lab_online_check_delta"]])
    assert page.locator(".mha-chart").count() == 0
    problems_ = page_problems(page, screen, viewport)
    shoot_page(page, viewport, f"lab-online-check-{screen}-{lang}")
    assert not problems_, "\n".join(problems_)
