"""The variant lab and the KV cache's variants in presenter mode and on a phone, in Chromium, in both languages.

- At 1280×720 with present=1 every variant opens on a figure, as every stage does (test_presenter_e2e): its first
  figure's top at or above 600 px, and where the first figure is an animation (the online softmax, the KV cache's
  step) its Play button wholly on the first screen. The words that open a variant wait under its first figure there.
- At 390×844 nothing of a variant is wider than the screen (a wide table or formula scrolls inside its own box), and
  its figures are readable (the checks of test_screens_e2e).
"""

from urllib.parse import urlencode

import pytest

from mha.ui import settings as S

from .conftest import rerun_after, settle
from .test_presenter_e2e import PRESENTER, first_screen
from .test_screens_e2e import page_problems

pytestmark = pytest.mark.e2e

PHONE = dict(width=390, height=844)
# (stage, link parameters, animated): every variant of the lab at the walk's sizes, GQA also with 4 heads in two
# groups (its map is then two rows of four panels), and the KV cache's variants with a knob beside the picker.
CASES = [("variants", dict(variant=v), v == "online") for v in S.VARIANTS]
CASES += [("variants", dict(variant="gqa", n_heads=4, kv_heads=2), False)]
CASES += [("variants", dict(variant=v, part="click"), False) for v in ("mqa", "int8", "gqa")]  # products under 5-6 rows
CASES += [("kv_cache", dict(variant=v), True) for v in ("window", "sinks", "gqa", "rope", "mla")]
# On a projector only (their phone layouts are the parts' own, drawn above): the click parts whose words go under
# their product (RoPE's drawn A · B = C in a row there), RoPE's check, whose two score matrices come before its
# words, and the online softmax's click part, its product picker beside the tile size
PRESENTED = [("variants", dict(variant=v, part="click"), False) for v in ("window", "sinks", "mla", "rope")]
PRESENTED += [("variants", dict(variant="rope", part="check"), False)]
PRESENTED += [("variants", dict(variant="online", part="click"), True)]
PICKERS = {"variants": ("variant", S.VARIANTS), "kv_cache": ("kv_variant", S.KV_VARIANTS)}


def visit(page, app_url: str, cases: list, lang: str, screen: str, extra: dict):
    """Yield each case once it is drawn: a case that differs from the one before only in its variant is reached by
    a click on the picker, as a learner switches (a page load costs twice a rerun); any other from its link."""
    before = None
    for stage, params, animated in cases:
        key, choices = PICKERS[stage]
        same_page = before and before[0] == stage and set(before[1]) == set(params) == {"variant"}
        if same_page:
            rerun_after(page, page.locator(f".st-key-{key} button").nth(choices.index(params["variant"])).click,
                        120_000)
            default = params["variant"] == S.DEFAULTS[key]  # the link leaves a default out
            assert (f"variant={params['variant']}" in page.url) != default, (params, page.url)
        else:
            page.goto(f"{app_url}/?{urlencode(dict(stage=stage, **params, lang=lang, **extra))}")
            page.wait_for_selector(f'[data-screen="{screen}"]', state="attached", timeout=120_000)
            settle(page, 120_000)
        before = (stage, params)
        name = _name(stage, params)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        yield name, animated


# Whatever drawn in the page reaches past the screen's right edge, unless a box inside the page (a figure's svg, a
# scrolled table or formula, a widget's hidden input) clips or scrolls it within the screen; the page's own main box
# scrolls sideways too, but that is the page being too wide. The main box's scroll width, and [tag, test id or class,
# right edge, first words] of each such element.
PAST_THE_EDGE = """(width) => {
  const main = document.querySelector('[data-testid="stMain"]'), out = [];
  for (const e of main.querySelectorAll('*')) {
    const b = e.getBoundingClientRect();
    if (b.width === 0 || b.right <= width + 1 || e.closest('.katex-mathml')) continue;  // KaTeX's unseen MathML
    let held = false;
    for (let p = e.parentElement; p && p !== main && !held; p = p.parentElement)
      held = /(auto|scroll|hidden|clip)/.test(getComputedStyle(p).overflowX)
             && p.getBoundingClientRect().right <= width + 1;
    if (!held) out.push([e.tagName, e.getAttribute('data-testid') || String(e.className).slice(0, 40),
                         Math.round(b.right), (e.textContent || '').slice(0, 40)]);
  }
  return {page: Math.max(main.scrollWidth, document.documentElement.scrollWidth), past: out.slice(0, 5)};
}"""


def _name(stage: str, params: dict) -> str:
    return "-".join([stage, *(f"{k}{v}" if k != "variant" else v for k, v in params.items())])


def test_presenter_mode_opens_every_variant_on_its_first_figure(page, app_url):
    """The lab's variants in English, the KV cache's in Chinese (each variant's own file and the AppTests check the
    words in both)."""
    page.set_viewport_size(PRESENTER)
    found = []
    lab = len(S.VARIANTS)
    for cases, lang in ((CASES[:lab], "en"), (CASES[lab:] + PRESENTED, "zh")):
        for name, animated in visit(page, app_url, cases, lang, "wide", {"present": 1}):
            found += first_screen(page, name, lang, animated)
    assert not found, "; ".join(found)


@pytest.mark.parametrize("lang", ["en"])  # the longer words (each variant's own file: zh on a phone)
def test_no_variant_is_wider_than_a_phone(page, app_url, lang):
    page.set_viewport_size(PHONE)
    found = []
    for name, _ in visit(page, app_url, CASES, lang, "phone", {}):
        wide = page.evaluate(PAST_THE_EDGE, PHONE["width"])
        if wide["page"] > PHONE["width"] or wide["past"]:
            found.append(f"{name}: the page is {wide['page']} px wide; past the edge: {wide['past']}")
        found += [f"{name}: {p}" for p in page_problems(page, "phone", PHONE)]
    assert not found, "; ".join(found)
