"""The coda in a real browser: a typed text becomes X and names the scores' rows and columns; a hostile text
is shown as its characters and runs nothing; appending the next token grows n by one on every stage."""

from urllib.parse import quote

import pytest

from mha.ui.strings import EN

from .conftest import listen, rerun_after, settle, shoot

pytestmark = pytest.mark.e2e

SCORES_AXES = """() => { const l = document.querySelector('.st-key-scores .mha-chart').mha.layout;
  return [l.yaxis.ticktext, l.xaxis2.ticktext]; }"""


def open_stage(page, url, stage, **params):
    query = "&".join(f"{k}={quote(str(v))}" for k, v in dict(stage=stage, **params).items())
    page.goto(f"{url}/?{query}")
    settle(page)


def to_stage(page, stage: str) -> None:
    rerun_after(page, page.locator(".st-key-stage label").filter(has_text=EN[f"stage_{stage}"]).click)


def test_a_typed_text_names_the_rows_and_columns_of_the_scores(page, app_url):
    open_stage(page, app_url, "tokens")
    box = page.locator(".st-key-text input")
    box.fill("the cat sat on the mat")
    rerun_after(page, lambda: box.press("Enter"))
    assert "text=the+cat+sat+on+the+mat" in page.url
    chips = page.locator('[data-testid="stMain"]').inner_text()
    assert "6 tokens, 5 distinct" in chips
    shoot(page, "tokens-typed")
    to_stage(page, "scores")
    tokens = ["the", "cat", "sat", "on", "the", "mat"]
    assert page.evaluate(SCORES_AXES) == [tokens, tokens]
    drawn = page.evaluate("() => [...document.querySelectorAll('.st-key-scores .yaxis[data-axis=y] .tick')]"
                          ".map(t => t.textContent)")
    assert drawn == tokens


def test_a_hostile_text_is_shown_as_characters_and_runs_nothing(page, app_url):
    alerts = []
    listen(page, "dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    open_stage(page, app_url, "tokens", text="<img src=x onerror=alert(1)> <b>bold</b>")
    main = page.locator('[data-testid="stMain"]')
    assert main.locator("img").count() == 0 and main.locator("b", has_text="bold").count() == 0
    assert "<" in main.inner_text() and "onerror" in main.inner_text()
    ticks = page.evaluate("() => [...document.querySelectorAll('.st-key-tokens_x .yaxis[data-axis=y] .tick')]"
                          ".map(t => t.textContent)")
    assert ticks[:3] == ["<", "img", "src"]
    page.wait_for_timeout(500)
    assert alerts == []


def test_appending_the_next_token_grows_n_on_every_stage(page, app_url):
    open_stage(page, app_url, "next_token", text="a b c a b")
    chosen = page.get_by_text("Greedy choice:").inner_text().split("“")[1].split("”")[0]
    rerun_after(page, page.locator(".st-key-append_token button").click)
    assert f"text=a+b+c+a+b+{chosen}" in page.url
    assert page.get_by_text("after token 6").count() == 1
    to_stage(page, "scores")
    rows, cols = page.evaluate(SCORES_AXES)
    assert rows == cols == ["a", "b", "c", "a", "b", chosen]
    to_stage(page, "kv_cache")
    k_rows = page.evaluate("() => document.querySelector('.st-key-kv_animation .mha-chart').mha.data"
                           ".filter(t => t.type === 'heatmap').map(t => t.z.length)")
    assert max(k_rows) == 6  # the cache holds the six tokens' keys and values
    shoot(page, "kv-after-append")


def test_adding_on_the_cache_appends_the_next_word_and_the_whole_page_follows(page, app_url):
    """The add button sits in the cache stage's fragment, but a word added changes the text, n and X: the whole page
    runs again, so the sidebar's n, the cache and the link all hold the new word."""
    open_stage(page, app_url, "kv_cache", text="a b c a b")
    hint = page.get_by_text("The model's next token is").inner_text()
    chosen = hint.split("The model's next token is “")[1].split("”")[0]
    rerun_after(page, page.locator(".st-key-add_token button").click)
    page.wait_for_function("() => document.querySelector('.st-key-n_tokens input').value === '6'", timeout=30_000)
    settle(page)
    assert f"text=a+b+c+a+b+{chosen}" in page.url and "kv=" not in page.url
    rows = page.evaluate("() => document.querySelector('.st-key-kv_animation .mha-chart').mha.layout.yaxis.ticktext")
    assert rows == ["a", "b", "c", "a", "b", chosen]  # the cache's new row, under its word
    shoot(page, "kv-add-word")
