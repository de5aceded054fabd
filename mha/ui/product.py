"""A clickable product A·B = C: the figure, the clicked cell's dot product written term by term, and the quiz that
hides a cell and asks for it."""

import json
from collections.abc import Sequence
from decimal import Decimal

import numpy as np
import streamlit as st

from mha import figures as F
from mha.figures.ticks import token_ticks

from . import classroom
from .chart import Drawn, clickable_chart, mark, picked
from .prose import aside, fmt, said, tex_num, window_note
from .strings import Text
from .view import Name, Operand, View, first_screen, operand_key

MAX_TERMS = F.MAX_SIDE  # dot products longer than this (longer than a figure draws) are written out in part
TERMS_PER_LINE = 4  # factor pairs a line
PRODUCTS_PER_LINE = 6  # products a line


def product_view(key: str, v: View, a: Operand, b: Operand, c: Operand, formula: str, *, cols: Sequence[str] = (),
                 first: int | None = None, named: bool | None = None, **blocks) -> None:
    """A·B = C as one figure, C clickable; below it the clicked cell's dot product, term by term, or a quiz.
    A fragment (key product_<key>): every step of the quiz reruns this product only, not the page with its sidebar,
    and a click only the clicked cell's mark, sums and the quiz's button (`chart.picked`).

    Rows that count tokens (A's row word is "token") are named by the text's tokens when X came from a text;
    `cols` names the columns of B and C (the vocabulary, for the logits); `named`, A's and C's rows by v.tokens
    whatever A's row word (the circuits' letters). `first`: the figure is the view's first, under that many rows of
    controls, and on a projector ends on the first screen (view.first_screen) unless it would write numbers in fewer
    of its panels there."""
    st.fragment(_product, key=f"product_{key}")(key, v, a, b, c, formula, cols, first, named, blocks)


def _product(key: str, v: View, a: Operand, b: Operand, c: Operand, formula: str, cols: Sequence[str],
             first: int | None, named: bool | None, blocks: dict) -> None:
    rows, cols_drawn = (min(n, F.MAX_SIDE) for n in c.values.shape)
    fits = lambda cell: cell[0] < rows and cell[1] < cols_drawn  # noqa: E731 (C as drawn)
    quiz = st.session_state.get(f"quiz_{key}")
    quiz = quiz if quiz and fits(quiz) else None
    named = a.rows == v.t("token") if named is None else named  # A's and C's rows: axis y (and y3, C's, when a
    # phone stacks the product)

    free = v.named if named else v.look
    look = free if first is None else first_screen(free, first)

    def build():
        fig = F.product_figure(a.mat(), b.mat(), c.mat(), text=v.text, formula=formula, words=v.words, look=look,
                               hidden=quiz, **blocks)
        held = _panels_written(fig)
        if look is not free and held < 3:  # held to the first screen, unless that leaves out numbers the free one has
            whole = F.product_figure(a.mat(), b.mat(), c.mat(), text=v.text, formula=formula, words=v.words,
                                     look=free, hidden=quiz, **blocks)
            fig = whole if _panels_written(whole) > held else fig
        if named:
            fig = token_ticks(fig, v.tokens, ("yaxis", "yaxis3"), v.look)
        return token_ticks(fig, cols, ("xaxis2", "xaxis3"), v.look)

    parts = ("product", *map(operand_key, (a, b, c)), v.t.lang, v.text, formula, v.look, look.fig_h, quiz,
             blocks.get("blocks", 0), tuple(blocks.get("block_names", ())), v.tokens if named else (), tuple(cols))
    figure = clickable_chart(parts, build, key)
    n, k, m = F.product_window(a.values, b.values, blocks.get("blocks", 0))
    note = window_note(v.t, (a.values.shape, (n, k)), (b.values.shape, (k, m)), (c.values.shape, (n, m)))
    if note:
        st.caption(note)
    if quiz:
        mark(key, quiz)
        _quiz(key, v.t, a, b, c, quiz, v.look.narrow, figure)
        return

    def show(cell):
        row = st.container(horizontal=True)  # the hint or the sums, and the quiz's button at the right: one block
        if cell is None:
            row.caption(v.t("click_hint", name=c.name.tex))
        else:
            i, j = cell
            row.markdown(breakdown(v.t, c.name, a.name, b.name, a.values[i], b.values[:, j], c.values[i, j], i, j,
                                   v.look.narrow))
        row.button(v.t("quiz_start"), key=f"quiz_start_{key}", on_click=_first_quiz, args=(key, c.values.shape))
        if cell is not None and classroom.presenting():
            row.button(v.t("room_ask_cell"), key=f"room_ask_cell_{key}", on_click=_ask_cell, args=(key, cell),
                       help=v.t("room_ask_cell_help"))

    picked(key, fits, show)


def bias_note(t: Text, product: Name, bias: Name, out: Name, count: int) -> None:
    """Under a product that a checkpoint's bias follows: the bias row added to each of its rows gives `out`."""
    st.caption(t("bias_row", c=product.tex, b=bias.tex, out=out.tex, n=count))


QUIZ_TOLERANCE = 0.01  # an answer counts as right within 1% of the value (or 0.01 absolute near 0)


def quiz_right(answer: float, value: float) -> bool:
    return abs(answer - value) <= QUIZ_TOLERANCE * max(1.0, abs(value))


def _start_quiz(key: str, shape: tuple[int, int]) -> None:
    """Hide a random cell of C (within what is drawn) and empty the answer box.

    The box is emptied by setting its value to None, which Streamlit passes on to the browser. Popping the key is
    not enough: the browser keeps showing (and sending) the old answer."""
    rows, cols = (min(n, F.MAX_SIDE) for n in shape)
    rng = np.random.default_rng()
    st.session_state[f"quiz_{key}"] = (int(rng.integers(rows)), int(rng.integers(cols)))
    st.session_state[f"quiz_answer_{key}"] = None
    st.session_state[f"quiz_checked_{key}"] = False


def _first_quiz(key: str, shape: tuple[int, int]) -> None:
    """The quiz's button under the sums: the quiz starts, and the product reruns (its chart hides the cell), not only
    the fragment the button is in (the sums')."""
    _start_quiz(key, shape)
    st.rerun(f"product_{key}")


def _ask_cell(key: str, cell: tuple[int, int]) -> None:
    """The presenter's clicked cell, asked of the room: hidden on the presenter's page too (the projector shows the
    question), and on every following page."""
    st.session_state[f"quiz_{key}"], st.session_state[f"quiz_answer_{key}"] = cell, None
    st.session_state[f"quiz_checked_{key}"] = False
    classroom.ask(key, cell)
    st.rerun(f"product_{key}")


def _stop_quiz(key: str) -> None:
    st.session_state[f"quiz_{key}"] = None


def b_panels(data: list[dict], boxes: list[dict]) -> list[dict]:
    """A product figure's traces of B, top to bottom: those on the axes of the outline rule's boxes that take a column
    j down rows of a panel."""
    axes = [(b["shape"]["xref"], b["shape"]["yref"]) for b in boxes if b["x"] == "j" and isinstance(b["y"], list)]
    return [t for xy in axes for t in data if t.get("type") == "heatmap" and (t.get("xaxis"), t.get("yaxis")) == xy]


def drawn_dot(figure: Drawn, i: int, j: int, inner: int) -> float | None:
    """Row i of A times column j of B as the numbers written in their cells (a product figure's trace 0 and B's panels)
    make it: what a reader working from the screen gets. None when the figure writes none, or not all `inner` of them. A
    figure that draws A transposed (a phone's Concatᵀ) says so in its outline rule: A's box takes column i; B's boxes
    (a column j down rows of B) name the panels B is drawn in, one, or its blocks of rows side by side (a projector's
    W_O), in order."""
    spec = json.loads(figure.json) if figure.json else figure.spec.to_dict()
    data = spec["data"]
    boxes = spec["layout"]["meta"]["outline"]["boxes"]
    a_text, b_text = data[0].get("text"), [row for trace in b_panels(data, boxes) for row in trace.get("text") or []]
    if a_text and boxes[0]["x"] == "i":
        a_text = [list(col) for col in zip(*a_text)]
    if not a_text or not b_text or len(a_text[i]) != inner or len(b_text) != inner:
        return None
    read = lambda s: float(s.replace("−", "-")) if s else 0.0  # noqa: E731 (a gap is a masked cell: 0)
    return sum(read(p) * read(row[j]) for p, row in zip(a_text[i], b_text))


def _quiz(key: str, t: Text, a: Operand, b: Operand, c: Operand, cell: tuple[int, int], narrow: bool,
          figure: Drawn) -> None:
    """Ask for the hidden cell; once checked, say right or wrong and show the dot product. An answer worked out from
    the numbers the figure writes is right too, though they are rounded: then the verdict names what they give."""
    i, j = cell
    value = float(c.values[i, j])
    st.markdown(t("quiz_ask", name=c.name.tex, i=i + 1, j=j + 1, a=a.name.tex, b=b.name.tex))
    answer = st.number_input(t("quiz_answer"), value=None, step=0.01, format="%.4f", key=f"quiz_answer_{key}")
    check, again, stop = st.columns(3)
    if check.button(t("quiz_check"), key=f"quiz_check_{key}", type="primary"):
        st.session_state[f"quiz_checked_{key}"] = True
    again.button(t("quiz_again"), key=f"quiz_again_{key}", on_click=_start_quiz, args=(key, c.values.shape))
    stop.button(t("quiz_stop"), key=f"quiz_stop_{key}", on_click=_stop_quiz, args=(key,))
    if not st.session_state.get(f"quiz_checked_{key}"):
        return
    if answer is None:
        st.warning(t("quiz_empty"))
        return
    shown = drawn_dot(figure, i, j, a.values.shape[1])
    right = quiz_right(answer, value) or (shown is not None and quiz_right(answer, shown))
    if classroom.asked(key, cell) == "open":  # the room's question: the answer goes to the presenter, the verdict
        st.info(t("room_answer_in" if classroom.answer(answer, right) else "room_answer_late"))  # waits for its close
        return
    if quiz_right(answer, value):
        st.success(t("quiz_right", answer=fmt(answer), value=fmt(value)))
    elif right:
        st.success(t("quiz_right", answer=fmt(answer), value=fmt(shown)))
    else:
        st.error(t("quiz_wrong", answer=fmt(answer), value=fmt(value)))
    st.markdown(breakdown(t, c.name, a.name, b.name, a.values[i], b.values[:, j], value, i, j, narrow))


def dot_terms(a_row: np.ndarray, b_col: np.ndarray) -> list[tuple[float, float, float]]:
    """The products a_k·b_k that a cell of A·B adds up, in order."""
    return [(float(p), float(q), float(p * q)) for p, q in zip(a_row, b_col)]


FACTOR_DIGITS = 4  # significant digits of each factor a term writes
SUM_DIGITS = 4  # the largest product is written to this many significant digits, every product to as many decimals


def printed_terms(pairs: Sequence[tuple[float, float]]) -> tuple[list[Decimal], Decimal] | None:
    """Each product as the breakdown writes it, and their sum, exact. A product is that of its two factors as written
    (FACTOR_DIGITS significant digits each), rounded to one number of decimals for all (SUM_DIGITS significant
    digits for the largest): so a learner who multiplies the factors on the screen gets the product on the screen,
    and a sum of numbers of d decimals has d decimals, so the products as written add up to the total as written.
    None when a product is not finite or too large to write out in decimals."""
    if not all(np.isfinite(p) and np.isfinite(q) for p, q in pairs):
        return None
    exact = [Decimal(f"{p:.{FACTOR_DIGITS}g}") * Decimal(f"{q:.{FACTOR_DIGITS}g}") for p, q in pairs]
    top = max((abs(e) for e in exact), default=Decimal(0))
    if top >= Decimal(10) ** 6:
        return None
    decimals = max(SUM_DIGITS - 1 - (top.adjusted() if top > 0 else 0), 0)
    terms = [e.quantize(Decimal(1).scaleb(-decimals)) for e in exact]
    return terms, sum(terms, Decimal(0))


def decimal_text(d: Decimal) -> str:
    """A written product or sum, for LaTeX: its decimals, trailing zeros dropped."""
    text = format(d.normalize() if d != d.to_integral_value() else d.quantize(Decimal(1)), "f")
    return "0" if text == "-0" else text


def _sum_lines(parts: list[str], per_line: int) -> str:
    """Terms joined by +, `per_line` a line, each line after the first continued with a +, for an aligned block."""
    lines = [" + ".join(parts[k : k + per_line]) for k in range(0, len(parts), per_line)]
    return r" \\ &\quad + ".join(lines)


def breakdown(t: Text, c: Name, a: Name, b: Name, a_row, b_col, value: float, i: int, j: int,
              narrow: bool = False) -> str:
    """C[i,j] = Σ_k A[i,k]·B[k,j] with the numbers: every factor pair, then every product of the factors as written
    and their sum, which the written products add up to exactly; the note compares that sum with the cell. One
    Markdown element's text. `narrow` (a phone): fewer terms a line, so that every line fits the screen. A dot
    product longer than MAX_TERMS (longer than a figure draws) is written out in part."""
    terms = dot_terms(a_row, b_col)
    whole = len(terms) <= MAX_TERMS
    shown_terms = terms if whole else terms[: MAX_TERMS - 2]
    pairs = [rf"{tex_num(p, FACTOR_DIGITS)}\cdot{tex_num(q, FACTOR_DIGITS)}" for p, q, _ in shown_terms]
    printed = printed_terms([(p, q) for p, q, _ in terms]) if whole else None
    body = _sum_lines(pairs + ([] if whole else [r"\cdots"]), 1 if narrow else TERMS_PER_LINE)
    if printed:
        products, total = printed
        written = [decimal_text(d) for d in products]
        per_line = PRODUCTS_PER_LINE // 3 if narrow else PRODUCTS_PER_LINE
        body += r" \\ &\approx " + _sum_lines([f"({w})" if w.startswith("-") else w for w in written], per_line)
        result = decimal_text(total)
        total_text = result.replace("-", "−")
    else:
        total = float(np.sum([p for _, _, p in terms]))
        result, total_text = tex_num(total, paren=False), fmt(total)
    notes = [] if whole else [t("breakdown_more", more=len(terms) - len(shown_terms))]
    same = fmt(float(total)) == fmt(value)  # else the factors' rounding moved the sum's last digits: the note says so
    notes.append(t("breakdown_check" if same else "breakdown_check_rounded", total=total_text, value=fmt(value),
                   digits=FACTOR_DIGITS))
    formula = said(t("breakdown_title", name=c.tex, a=a.tex, b=b.tex, i=i + 1, j=j + 1),
                   rf"\begin{{aligned}} {c.tex}[{i + 1},{j + 1}] &= {body} \\ &= {result} \end{{aligned}}")
    return "\n\n".join([formula, *map(aside, notes)])


def _panels_written(fig) -> int:
    """How many of a product's panels (A, B, C) write their numbers."""
    return sum(t.get("texttemplate") == "%{text}" for t in fig.to_dict()["data"][:3])
