"""The variant lab's GQA and MQA in Chromium, on the three screens: every figure readable (the checks of
test_screens_e2e), each group's K and V titled with the heads that read them (the lab's "what changes" part), the
live checks' table in view (its "check" part), a clicked score written out (its "click" part), and the offer of 4
heads taken. One screenshot a screen and part."""

import re

import pytest

from mha.ui.strings import Text

from .conftest import rerun_after
from .geometry import chart_geometry
from .test_screens_e2e import NUMBERS, SCREENS, open_on, page_problems, shoot_page

pytestmark = pytest.mark.e2e


def titles(page, key: str) -> list[str]:
    """The chart's panel titles as drawn, their wrapped lines joined, spaces dropped."""
    return [re.sub(r"\s+", "", text) for text, _ in chart_geometry(page, key).annotations]


def table_cells(page, index: int) -> list[list[str]]:
    rows = page.locator('[data-testid="stMain"] table').nth(index).locator("tbody tr")
    return [[c.strip() for c in rows.nth(i).inner_text().split("\t")] for i in range(rows.count())]


def part(page, t: Text, name: str) -> None:
    """The lab's part `name` chosen with its button, as a learner does (a rerun: half a page load)."""
    rerun_after(page, page.locator(".st-key-lab_part button").filter(has_text=t(f"lab_part_{name}")).click)


# No desk: the projector's 1280 px with its larger type bounds the desk's 1400 px (and a page load costs Chromium
# about a CPU-second: CI's time). Each screen in both languages, one for GQA and the other for MQA.
@pytest.mark.parametrize("screen, lang", [("present", "zh"), ("phone", "en")])
def test_four_heads_in_two_groups_are_readable_and_say_who_shares(page, app_url, screen, lang):
    t = Text(lang)
    open_on(page, app_url, screen, stage="variants", variant="gqa", n_heads=4, kv_heads=2, lang=lang)
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    sep = t("list_sep")
    drawn = titles(page, "lab_groups_map")
    # a projector draws the chosen head's group, its numbers written (every group's 32 columns a row wrote none)
    for group, heads in ((1, f"1{sep}2"), (2, f"3{sep}4"))[: 1 if screen == "present" else 2]:
        for letter in "KV":
            want = re.sub(r"\s+", "", f"{letter}{group}·{t('lab_groups_read_by', heads=heads)}")
            assert any(title.startswith(want) for title in drawn), (want, drawn)
    shoot_page(page, SCREENS[screen][0], f"lab-groups-{screen}-{lang}-change")
    part(page, t, "check")
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    cache = table_cells(page, 0)
    assert [row[1] for row in cache] == ["72", "36"] and [row[-1] for row in cache] == ["✓", "✓"]
    page.locator('[data-testid="stMain"] table').first.scroll_into_view_if_needed()
    assert page.locator('[data-testid="stMain"] table').first.is_visible()
    assert [(r[0], r[1], r[-1]) for r in table_cells(page, 1)] == [("1", "1", "✓"), ("2", "1", "✓"), ("3", "2", "✓"),
                                                                   ("4", "2", "✓")]
    shoot_page(page, SCREENS[screen][0], f"lab-groups-{screen}-{lang}-check")


@pytest.mark.parametrize("screen, lang", [("present", "en"), ("phone", "zh")])
def test_mqa_keeps_18_floats_a_token_where_the_walk_keeps_36(page, app_url, screen, lang):
    t = Text(lang)
    open_on(page, app_url, screen, stage="variants", variant="mqa", lang=lang, part="check")
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    assert [(row[1], row[-1]) for row in table_cells(page, 0)] == [("36", "✓"), ("18", "✓")]
    page.locator('[data-testid="stMain"] table').first.scroll_into_view_if_needed()
    assert page.locator('[data-testid="stMain"] table').first.is_visible()
    assert [(r[0], r[1], r[-1]) for r in table_cells(page, 1)] == [("1", "1", "✓"), ("2", "1", "✓")]
    shoot_page(page, SCREENS[screen][0], f"lab-mqa-{screen}-{lang}-check")
    part(page, t, "change")
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    drawn = titles(page, "lab_groups_map")
    for letter in "KV":  # one K and one V for both heads, each drawn once
        want = re.sub(r"\s+", "", f"{letter}1·{t('lab_groups_read_by', heads='1' + t('list_sep') + '2')}")
        assert sum(title.startswith(want) for title in drawn) == 1, (want, drawn)
        assert not any(title.startswith(f"{letter}2") for title in drawn), drawn
    shoot_page(page, SCREENS[screen][0], f"lab-mqa-{screen}-{lang}-change")


@pytest.mark.parametrize("screen", ["desk", "present"])
def test_a_clicked_score_is_written_out_and_two_heads_become_four(page, app_url, screen):
    open_on(page, app_url, screen, stage="variants", variant="gqa", part="click")
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    t = Text("en")
    point = page.locator(".st-key-lab_groups_qk .mha-chart .point").nth(5)  # row 2, column 3 of Q₁K₁ᵀ
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    rerun_after(page, lambda: page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    check = page.get_by_text(re.compile(r"^The (terms|products of the factors as written) .*add up to"))
    assert check.is_visible()
    total, value = (float(part.split()[-1].rstrip(".").replace("−", "-")) for part in check.inner_text().split(";"))
    assert abs(total - value) <= 1e-3 * max(1.0, abs(value))
    shoot_page(page, SCREENS[screen][0], f"lab-groups-{screen}-en-click")
    rerun_after(page, page.locator(".st-key-lab_part button").filter(has_text=t("lab_part_change")).click)
    assert page.get_by_text(t("lab_groups_four_gqa", h=2).split(" (")[0]).count() >= 1
    shoot_page(page, SCREENS[screen][0], f"lab-groups-{screen}-en-offer")
    rerun_after(page, page.locator(".st-key-lab_groups_four button").click, 120_000)
    page.wait_for_function("() => location.search.includes('n_heads=4')")
    assert len(titles(page, "lab_groups_map")) == (4 if screen == "present" else 8)  # K, V, two Q's a group (one there)
    assert page.locator(".st-key-n_heads input").input_value() == "4"


READABLE = {"present": 15, "desk": 11}  # px: the least the lab's other parts write their numbers in (S, H) there


@pytest.mark.parametrize("screen, lang", [("present", "en"), ("present", "zh"), ("desk", "en")])
def test_the_posts_two_heads_write_the_maps_numbers(page, app_url, screen, lang):
    """At the post's 2 heads the map's K, V and Q (3×7, 3×11) once drew colour only on a projector: three a row, 25
    columns (audit 2026-12-06 #8). There the chosen head's group is drawn, K beside V, every number written as large as
    the lab's other parts write theirs, under the head control, on the first screen."""
    open_on(page, app_url, screen, stage="variants", variant="gqa", lang=lang)
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    sizes = page.evaluate(NUMBERS, "lab_groups_map")
    panels = len(titles(page, "lab_groups_map"))
    assert len(sizes) == (3 * 7 + 3 * 11 + 3 * 7) * panels // 3 and min(sizes) >= READABLE[screen], (sizes, panels)
    shoot_page(page, SCREENS[screen][0], f"lab-groups-{screen}-{lang}-two-heads")
