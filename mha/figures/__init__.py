"""Plotly builders: arrays and labels in, a figure out (plain dicts in a go.Figure). No Streamlit here.

base: screens, matrices, numbers in cells, shared traces and the theme; text: the one measure of text;
ticks: axes named by tokens; products: A·B = C and small multiples; scores: the QKᵀ → softmax animation;
cache: a KV-cache decode step and its cost; coda: GELU, the next token's probabilities, the loss; thumbs: every head
of every layer, small.

Matrices are drawn the way the post writes them: row 1 at the top, columns left to right, square
cells, one colour scale per quantity (diverging and centred at 0 for signed values, 0..1 for S).
A product A·B = C is laid out with B above C and A left of C, so the row of A and the column of B
that make a cell of C meet at that cell.
"""

from .base import DESK, MAX_SIDE, PHONE, PRESENT, Look, Mat, Words
from .coda import gelu_figure, loss_figure, probs_figure, series_figure
from .products import grid_figure, product_figure, product_window
from .scores import ScoreSteps, inner_window, scores_animation

__all__ = ["DESK", "MAX_SIDE", "PHONE", "PRESENT", "Look", "Mat", "ScoreSteps", "Words", "gelu_figure", "grid_figure",
           "inner_window", "loss_figure", "probs_figure", "series_figure", "product_figure", "product_window",
           "scores_animation"]
