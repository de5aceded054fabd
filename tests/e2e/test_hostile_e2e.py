"""A link anyone can write, opened in a real browser: what it sends is shown as text, and makes nothing else."""

from urllib.parse import urlencode, urlparse

import pytest

from .conftest import listen, rerun_after, settle

pytestmark = pytest.mark.e2e
LOAD = 90_000

# One refused value per notice-bearing parameter, each a different kind of markup.
PAYLOADS = {"stage": "![](//127.0.0.1:9999/a)", "seed": "[Log in](//127.0.0.1:9)", "d_k": "**bold**",
            "n_heads": ":red[red]", "phase": ":material/home:", "part": "$x^2$", "preset": "<img src=x onerror=a>",
            "model": "http://127.0.0.1:9/a", "positions": "www.example.com", "choice": "a@b.co", "d_v": "`code`",
            "layer": "~~gone~~", "x": "&amp;", "example": "<b>x</b>", "kv": "<svg onload=a>"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hostile_link_makes_no_element_request_or_link(page, app_url, lang):
    requests = []
    listen(page, "request", lambda r: requests.append(r.url))
    page.goto(f"{app_url}/?{urlencode(PAYLOADS | {'lang': lang})}")
    settle(page, LOAD)
    box = page.locator('[data-testid="stAlert"]').first
    text = box.inner_text().replace("\u2060", "")
    for key, value in PAYLOADS.items():
        assert f"{value[:20]}" in text, (key, text)  # each value shown as it came (long ones shortened)
    # Inside the box, only the page's own list: no image, link, emphasis, code, math, icon or tag of the payload's
    tags = box.evaluate("b => [...b.querySelectorAll('[data-testid=\"stMarkdownContainer\"] *')].map(e => e.tagName)")
    assert set(tags) <= {"P", "UL", "LI"}, tags
    hosts = {urlparse(u).netloc for u in requests if not u.startswith(("data:", "blob:"))}
    assert hosts <= {urlparse(app_url).netloc}, hosts  # no beacon to another host or port
    hrefs = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    assert not [h for h in hrefs if "127.0.0.1:9" in h or "example.com" in h or "mailto:" in h], hrefs
    assert page.evaluate("() => document.querySelectorAll('main img[src=\"x\"], main svg[onload]').length") == 0


def test_a_link_over_the_servers_parameter_limit_is_said_on_the_page(page, app_url):
    page.goto(f"{app_url}/?stage=qk&" + "&".join(f"p{i}=1" for i in range(1001)))
    settle(page, LOAD)
    said = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "This link is longer than the server reads" in said and "1,002 parameters" in said, said
    assert "stage=input" in page.url  # the default view, as Streamlit gave it


def test_a_paste_far_past_the_limit_is_cut_and_said(browser, app_url):
    """A real paste of 5,000 × ﷽ (90,000 characters under NFKC) into the text box: the text is cut to the demo's
    limits and the page says so. (With max_chars, Streamlit's box dropped such a paste whole and said nothing.)"""
    context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  permissions=["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        page.goto(f"{app_url}/?stage=tokens&lang=zh")
        settle(page, LOAD)
        box = page.locator(".st-key-text input")
        box.click()
        page.evaluate("(t) => navigator.clipboard.writeText(t)", "\ufdfa" * 5000)
        page.keyboard.press("Control+V")
        rerun_after(page, lambda: box.press("Enter"), LOAD)
        said = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
        assert "文本只保留了前 64 个词元" in said, said
        assert "text=" in page.url and len(box.input_value()) <= 1000
    finally:
        context.close()
