"""The trained model in a real browser: the heads table in both languages, the training timeline scrubbed with
the keyboard, and the next letter continuing the repeat."""

import pytest

from mha.ui.strings import EN, ZH

from .conftest import rerun_after, settle, shoot

pytestmark = pytest.mark.e2e

MARK = "() => document.querySelector('.st-key-timeline_loss .js-plotly-plot').data[1].x[0]"


def test_the_heads_table_names_an_induction_head_in_layer_2(page, app_url):
    """In English from the link, then in Chinese by the language control."""
    page.goto(f"{app_url}/?stage=heads&model=trained&layer=2&text=H+B+F+D+A+H+B+F+D+A&lang=en")
    settle(page)
    for lang, table in (("en", EN), ("zh", ZH)):
        if lang == "zh":
            rerun_after(page, page.locator(".st-key-lang button").filter(has_text="中文").click)
            assert "lang=zh" in page.url and "model=trained" in page.url, page.url
        main = page.locator('[data-testid="stMain"]')
        assert table["roles_title"] in main.inner_text()
        rows = page.locator('[data-testid="stMain"] table').first.locator("tbody tr")
        cells = [[c.strip() for c in rows.nth(i).inner_text().split("\t")] for i in range(rows.count())]
        assert len(cells) == 4
        assert any(r[0] == "2" and r[4] == table["role_induction"] and float(r[3]) >= 0.5 for r in cells), cells
        shoot(page, f"heads-trained-{lang}")


def test_the_timeline_scrubs_to_the_start_of_training(page, app_url):
    page.goto(f"{app_url}/?stage=heads&model=trained&layer=2&text=H+B+F+D+A+H+B+F+D+A&part=timeline")
    settle(page)
    assert page.evaluate(MARK) == 6000
    thumb = page.locator('.st-key-snapshot input[type="range"]')  # Streamlit 1.67: a react-aria range input
    thumb.focus()
    rerun_after(page, lambda: page.keyboard.press("Home"))
    assert page.evaluate(MARK) == 0
    rows = page.locator('[data-testid="stMain"] table').first.locator("tbody tr")  # the snapshot's heads
    roles = [rows.nth(i).inner_text().split("\t")[-1].strip() for i in range(rows.count())]
    assert EN["role_induction"] not in roles  # no head does induction before training
    shoot(page, "timeline-step-0")


def test_the_next_letter_continues_the_repeat(page, app_url):
    page.goto(f"{app_url}/?stage=next_token&model=trained&text=B+C+G+A+E+B+C")
    settle(page)
    assert "“G”" in page.get_by_text("Greedy choice:").inner_text()
    rerun_after(page, page.locator(".st-key-append_token button").click)
    assert "text=B+C+G+A+E+B+C+G" in page.url
    assert "“A”" in page.get_by_text("Greedy choice:").inner_text()
