"""One thing the page says: its English, its Chinese, and what draws it.

What draws a value decides how it may be written (tests/app/test_strings.py checks each value against it, and
tests/app/test_strings_render.py checks, on the page, that the value is drawn where its entry says):
- MD: Streamlit's Markdown (st.markdown, captions, alerts, labels, help, buttons, radio and segmented-control
  options), with math as inline LaTeX, `$\\sqrt{{d_k}}$`, never `d_k` outside dollars;
- CHART: text inside a chart (Plotly, or mha/ui/matrix_chart.js), in Unicode with <sub>, <sup>, <b>, and no dollars;
- PLAIN: shown as it is, with no markup at all (st.selectbox's options);
- TEX: a piece of an st.latex formula.
A value drawn in two places is written for both: MD | CHART.

Every value is a format string: fields in braces are filled by `Text.__call__` (or, for a template a figure fills,
by the figure), so a literal brace, as in LaTeX, is doubled.
"""

from dataclasses import dataclass

MD = frozenset({"markdown"})
CHART = frozenset({"plotly"})
PLAIN = frozenset({"plain"})
TEX = frozenset({"latex"})


@dataclass(frozen=True)
class S:
    """A string of the page in both languages, side by side, and what draws it."""

    en: str
    zh: str
    draws: frozenset[str] = MD
