"""figures.text.text_px, the one text-width estimate every layout relies on to keep labels apart and inside
their figure, is never narrower than what Chromium draws in the figures' font (FONT, with its CJK face first)."""

import plotly.graph_objects as go
import pytest

from mha.figures.text import FONT, text_px
from mha.ui.strings import EN, ZH

pytestmark = pytest.mark.e2e

SAMPLES = [
    "<b>H<sub>1</sub>W<sub>O</sub><sup>(1)</sup></b> · 64×256 · 只画",
    "<b>Q<sub>1</sub></b> · 64×7 · first 48 rows drawn",
    "<b>W<sub>O</sub></b> · 88×256 · heads 5 to 8 not drawn",
    "Y = Concat · W<sub>O</sub>",
    "q<sub>1</sub> · k<sub>3</sub> = −0.127",
    "÷ √7 → softmax … ∞",
    "WWWW MMMM QQQQ",
    EN["head_word"].format(h=12), ZH["head_word"].format(h=12),
    ZH["trim_both"].format(rows=48, cols=48),
    "出前 48 行、前 48 列",
]


@pytest.mark.parametrize("size", [10, 13, 18])
def test_the_width_estimate_is_never_short(page, tmp_path, size):
    fig = go.Figure(layout=dict(
        width=1400, height=40 * len(SAMPLES), margin=dict(l=0, r=0, t=0, b=0), font=dict(family=FONT),
        xaxis=dict(visible=False), yaxis=dict(visible=False),
        annotations=[dict(text=s, x=0, y=1 - i / len(SAMPLES), xref="paper", yref="paper", xanchor="left",
                          yanchor="top", showarrow=False, font=dict(size=size)) for i, s in enumerate(SAMPLES)]))
    path = tmp_path / "widths.html"
    fig.write_html(path, include_plotlyjs=True)
    page.goto(path.as_uri())
    page.wait_for_selector(".annotation-text")
    drawn = page.evaluate("[...document.querySelectorAll('.annotation-text')].map(e => e.getBBox().width)")
    short = [(s, round(w, 1), round(text_px(s, size), 1)) for s, w in zip(SAMPLES, drawn) if w > text_px(s, size)]
    assert not short, short
