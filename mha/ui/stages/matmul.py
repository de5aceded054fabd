"""Stage `matmul`: the refresher. (a×b)·(b×c) = a×c, one dot product per cell, on a small editable example."""

from contextlib import nullcontext

import numpy as np
import streamlit as st

from mha import figures as F

from .. import exports
from ..editor import matrix_editor
from ..product import product_view
from ..prose import equation, header
from ..view import Operand, View, name

A = np.array([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0]])  # 2×3
B = np.array([[2.0, 0.0, 1.0, -1.0, 3.0], [1.0, -2.0, 0.0, 2.0, 1.0], [0.0, 1.0, 3.0, 1.0, -1.0]])  # 3×5


def render(v: View) -> None:
    t, ss = v.t, st.session_state
    header(t, "matmul", v.look)
    above = st.container() if v.look == F.PRESENT else None  # a projector's: the product over the grids that make it
    left, right = st.columns([3, 5])
    with left:
        st.markdown(t("matmul_a"))
        a = matrix_editor("mm_a", "mm_a_base", ss.get("mm_a_base", A), ["1", "2"], t)
    with right:
        st.markdown(t("matmul_b"))
        b = matrix_editor("mm_b", "mm_b_base", ss.get("mm_b_base", B), ["1", "2", "3"], t)
    equation(v.look, (r"R = A\,B:", r"(2\times 3)\cdot(3\times 5) \to 2\times 5,"),
             r"R_{xy} = \sum_{k=1}^{3} A_{xk}\,B_{ky}")
    row, col = t("rows_of"), t("cols_of")
    with above or nullcontext():
        product_view("mm", v, Operand(a, name("A"), row, col), Operand(b, name("B"), row, col),
                     Operand(a @ b, name("R"), row, col), "R = A · B", first=0)


def download(cfg, x, w) -> exports.Part:
    """The refresher's files: its product as the page holds it (the user's edits of A and B)."""
    ss = st.session_state
    a, b = ss.get("mm_a_base", A), ss.get("mm_b_base", B)
    return exports.Part({"A": a, "B": b, "R": a @ b}, {k: ("row", "column") for k in "ABR"})
