"""Pieces every stage uses: the stage header, a clickable product A·B = C, and the dot-product breakdown."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import room_for_names, token_ticks

from . import exports
from .chart import clickable_chart, mark, picked
from .shared import MB, Shared, digest
from .strings import Text

TRACES_BUDGET = 24 * MB  # traces of views up to SHARED_TRACE numbers, computed once for every session
SHARED_TRACE = 50_000  # numbers in a trace's arrays (~400 KB); larger views compute their own
TRACES = Shared(TRACES_BUDGET)
MAX_TERMS = 8  # dot products longer than this are written out in part
TERMS_PER_LINE = 4


@dataclass(frozen=True)
class Name:
    """One matrix name in the three places it is written: chart (HTML), formula (LaTeX), prose."""

    html: str
    tex: str
    plain: str


DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def subscript(i: int) -> str:
    return str(i).translate(DIGITS)


def name(letter: str, sub: str = "", sup: str = "") -> Name:
    html = letter + (f"<sub>{sub}</sub>" if sub else "") + (f"<sup>{sup}</sup>" if sup else "")
    tex = letter + (f"_{{{sub}}}" if sub else "") + (f"^{{{sup}}}" if sup else "")
    plain = letter + (sub.translate(DIGITS) if sub.isdigit() else (f"_{sub}" if sub else "")) + sup
    return Name(html, tex, plain)


@dataclass(frozen=True)
class Operand:
    values: np.ndarray
    name: Name
    rows: str  # what a row index counts, for hover text and axis titles ("token", "feature")
    cols: str
    kind: str = "signed"
    mask: np.ndarray | None = None  # True where the causal mask removed a cell (drawn as a grey gap)

    def mat(self) -> F.Mat:
        return F.Mat(self.values, self.name.html, self.kind, self.rows, self.cols, self.mask)


@dataclass(frozen=True)
class TrainedRun:
    """The trained model on the text: the whole run, and which layer's attention the walk shows (0-based)."""

    weights: mha.ModelWeights
    vocab: list[str]
    trace: mha.ModelTrace
    layer: int

    @property
    def block(self) -> mha.BlockTrace:
        return self.trace.layers[self.layer]


@dataclass(frozen=True)
class View:
    """What a stage needs: words, sizes, weights, X, the chosen head and display options."""

    t: Text
    cfg: mha.AttentionConfig
    w: mha.Weights
    x: np.ndarray
    head: int  # 0-based
    text: bool  # numbers in cells
    look: F.Look = F.DESK  # type sizes and pixel budget of this screen (desk, projector, phone)
    tokens: tuple[str, ...] = ()  # the text's tokens when X is made from a text (one per row of X)
    trained: "TrainedRun | None" = None  # with the trained model: its run on the text, and the layer shown

    @cached_property
    def trace(self) -> mha.Trace:
        """The trace of X, shared with every session showing the same X and weights while it is small. Read-only."""
        if exports.trace_size(self.cfg) > SHARED_TRACE:
            return mha.forward(self.x, self.w)
        w = self.w
        key = ("trace", digest(self.x, w.w_q, w.w_k, w.w_v, w.w_o))
        return TRACES.get(key, lambda: _read_only(mha.forward(self.x, w)))

    @cached_property
    def words(self) -> F.Words:
        """What a figure writes itself (which part of a trimmed matrix is drawn), in this page's language."""
        t = self.t
        keys = ("trim_rows", "trim_cols", "trim_both", "blocks_hidden", "block_hidden")
        return F.Words(*(t.template(k) for k in keys))

    @cached_property
    def named(self) -> F.Look:
        """The look for a figure whose rows `token_ticks` will name by token (see `room_for_names`)."""
        return room_for_names(self.tokens, self.look)

    def masked(self, head: int) -> np.ndarray:
        """Where the causal mask removed a score of this head (−∞ in the masked scores): S is exactly 0 there."""
        return np.isneginf(self.trace.masked[head])

    def head_name(self, letter: str) -> Name:
        """Q₁, K₂, … for the chosen head."""
        return name(letter, str(self.head + 1))

    def weight_name(self, letter: str) -> Name:
        """W_Q1, W_K2, … for the chosen head."""
        return name("W", f"{letter}{self.head + 1}")


def _read_only(trace: mha.Trace) -> mha.Trace:
    """A trace that sessions share: any write to its arrays raises instead of changing another session's page."""
    for a in vars(trace).values():
        a.flags.writeable = False
    return trace


def header(t: Text, stage: str, **fields) -> None:
    """The stage's title and opening paragraph, one element (each element of a full rerun costs ~1 ms in the
    browser, bench/ui_latency.py)."""
    st.markdown(f"### {t(f'{stage}_title', **fields)}\n\n{t(f'{stage}_text')}")


def head_control(t: Text) -> None:
    """Which head the page shows, on the stages that show one head (Q and K, scores, V and H, the KV cache), next
    to what it changes; none with a single head. Its value stays while other stages are shown (persist_state)."""
    n = st.session_state["n_heads"]
    if n > 1:
        st.segmented_control(t("head"), list(range(1, n + 1)), key="head", required=True, persist_state="session")


def equation(look: F.Look, *groups: str | tuple[str, ...]) -> None:
    """A display formula: its groups side by side; on a phone every part on a line of its own (each fits 360 px).

    A group is one part or a tuple of parts that read as one (a product and its shapes).
    """
    st.latex(display(look, *groups))


def display(look: F.Look, *groups: str | tuple[str, ...]) -> str:
    """The LaTeX of `equation`, to be written with words of its own (`said_then_shown`)."""
    groups_ = [(g,) if isinstance(g, str) else g for g in groups]
    if look.narrow and sum(len(g) for g in groups_) > 1:
        return r"\begin{gathered} " + r" \\ ".join(p for g in groups_ for p in g) + r" \end{gathered}"
    return r"\qquad ".join(r"\ ".join(g) for g in groups_)


def said_then_shown(words: str, tex: str) -> None:
    """A sentence and the display formula it introduces, as one element (what st.latex sends is the same Markdown
    between $$ lines): a clicked cell's sums are two elements fewer to send and draw."""
    st.markdown(said(words, tex))


def said(words: str, tex: str) -> str:
    return f"{words}\n\n$$\n{tex}\n$$"


def aside(text: str) -> str:
    """A side note in Markdown, set as st.caption sets its text (small, in the caption's grey), for a note that
    belongs in the element before it."""
    return f":small[:gray[{text}]]"


def input_error(t: Text, e: mha.InputError) -> None:
    """The core's refusal of these numbers, said in the page in the user's language. A fragment says it itself:
    Streamlit handles an exception raised in a fragment before the page's own `except` could see it."""
    st.error(t("error_overflow") if "overflow" in str(e) else t.md("error_input", message=str(e)))


def operand_key(o: Operand) -> tuple:
    return o.name, o.rows, o.cols, o.kind, digest(o.values, *(() if o.mask is None else (o.mask,)))


def window_note(t: Text, *shapes: tuple[tuple[int, int], tuple[int, int]]) -> str:
    """The first (full shape, drawn shape) pair that is trimmed, said once under the figure."""
    for (rows, cols), (shown_rows, shown_cols) in shapes:
        if (rows, cols) != (shown_rows, shown_cols):
            return t("window_note", rows=shown_rows, cols=shown_cols, full_rows=rows, full_cols=cols)
    return ""


def product_view(key: str, v: View, a: Operand, b: Operand, c: Operand, formula: str, *, cols: Sequence[str] = (),
                 **blocks) -> None:
    """A·B = C as one figure, C clickable; below it the clicked cell's dot product, term by term, or a quiz.
    A fragment (key product_<key>): every step of the quiz reruns this product only, not the page with its sidebar,
    and a click only the clicked cell's mark, sums and the quiz's button (`chart.picked`).

    Rows that count tokens (A's row word is "token") are named by the text's tokens when X came from a text;
    `cols` names the columns of B and C (the vocabulary, for the logits)."""
    st.fragment(_product, key=f"product_{key}")(key, v, a, b, c, formula, cols, blocks)


def _product(key: str, v: View, a: Operand, b: Operand, c: Operand, formula: str, cols: Sequence[str],
             blocks: dict) -> None:
    rows, cols_drawn = (min(n, F.MAX_SIDE) for n in c.values.shape)
    fits = lambda cell: cell[0] < rows and cell[1] < cols_drawn  # noqa: E731 (C as drawn)
    quiz = st.session_state.get(f"quiz_{key}")
    quiz = quiz if quiz and fits(quiz) else None
    named = a.rows == v.t("token")  # A's and C's rows: axis y (and y3, C's, when a phone stacks the product)

    def build():
        fig = F.product_figure(a.mat(), b.mat(), c.mat(), text=v.text, formula=formula, words=v.words,
                               look=v.named if named else v.look, hidden=quiz, **blocks)
        if named:
            fig = token_ticks(fig, v.tokens, ("yaxis", "yaxis3"), v.look)
        return token_ticks(fig, cols, ("xaxis2", "xaxis3"), v.look)

    parts = ("product", *map(operand_key, (a, b, c)), v.t.lang, v.text, formula, v.look, quiz,
             blocks.get("blocks", 0), tuple(blocks.get("block_names", ())), v.tokens if named else (), tuple(cols))
    clickable_chart(parts, build, key)
    n, k, m = F.product_window(a.values, b.values, blocks.get("blocks", 0))
    note = window_note(v.t, (a.values.shape, (n, k)), (b.values.shape, (k, m)), (c.values.shape, (n, m)))
    if note:
        st.caption(note)
    if quiz:
        mark(key, quiz)
        _quiz(key, v.t, a, b, c, quiz, v.look.narrow)
        return

    def show(cell):
        row = st.container(horizontal=True)  # the hint or the sums, and the quiz's button at the right: one block
        if cell is None:
            row.caption(v.t("click_hint", name=c.name.plain))
        else:
            i, j = cell
            row.markdown(breakdown(v.t, c.name, a.name, b.name, a.values[i], b.values[:, j], c.values[i, j], i, j,
                                   v.look.narrow))
        row.button(v.t("quiz_start"), key=f"quiz_start_{key}", on_click=_first_quiz, args=(key, c.values.shape))

    picked(key, fits, show)


QUIZ_TOLERANCE = 0.01  # an answer counts as right within 1% of the value (or 0.01 absolute near 0)


def quiz_right(answer: float, value: float) -> bool:
    return abs(answer - value) <= QUIZ_TOLERANCE * max(1.0, abs(value))


def _start_quiz(key: str, shape: tuple[int, int]) -> None:
    """Hide a random cell of C (within what is drawn) and empty the answer box.

    The box is emptied by setting its value to None: Streamlit 1.67 then tells the browser to clear it.
    Popping the key is not enough, as the browser keeps showing (and sending) the old answer."""
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


def _stop_quiz(key: str) -> None:
    st.session_state[f"quiz_{key}"] = None


def _quiz(key: str, t: Text, a: Operand, b: Operand, c: Operand, cell: tuple[int, int], narrow: bool) -> None:
    """Ask for the hidden cell; once checked, say right or wrong and show the dot product."""
    i, j = cell
    value = float(c.values[i, j])
    st.markdown(t("quiz_ask", name=c.name.plain, i=i + 1, j=j + 1, a=a.name.plain, b=b.name.plain))
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
    elif quiz_right(answer, value):
        st.success(t("quiz_right", answer=fmt(answer), value=fmt(value)))
    else:
        st.error(t("quiz_wrong", answer=fmt(answer), value=fmt(value)))
    if answer is not None:
        st.markdown(breakdown(t, c.name, a.name, b.name, a.values[i], b.values[:, j], value, i, j, narrow))


def fmt(x: float) -> str:
    return f"{x:.4g}".replace("e+", "e").replace("-", "−")


def tex_num(x: float, digits: int = 4, paren: bool = True) -> str:
    """x for LaTeX: `digits` significant digits, powers of ten written out, negatives in brackets."""
    text = f"{x:.{digits}g}"
    if "e" in text:
        mant, exp = text.split("e")
        text = rf"{mant}\times 10^{{{int(exp)}}}"
    return f"({text})" if x < 0 and paren else text


def markdown_table(header_: list[str], rows: list[tuple]) -> str:
    """A small table as Markdown: lighter on the page than st.table for a few rows of text."""
    line = lambda cells: "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
    return "\n".join([line(header_), line(["---"] * len(header_)), *map(line, rows)])


def tex_int(n: int) -> str:
    """12,345 for LaTeX: braces keep KaTeX from spacing the comma like punctuation."""
    return f"{n:,}".replace(",", "{,}")


def dot_terms(a_row: np.ndarray, b_col: np.ndarray) -> list[tuple[float, float, float]]:
    """The products a_k·b_k that a cell of A·B adds up, in order."""
    return [(float(p), float(q), float(p * q)) for p, q in zip(a_row, b_col)]


def breakdown(t: Text, c: Name, a: Name, b: Name, a_row, b_col, value: float, i: int, j: int,
              narrow: bool = False) -> str:
    """C[i,j] = Σ_k A[i,k]·B[k,j] with the numbers, and the check that the terms add up to the cell, as one
    Markdown element's text. `narrow` (a phone): one term a line, so that every line fits the screen."""
    terms = dot_terms(a_row, b_col)
    total = float(np.sum([p for _, _, p in terms]))
    shown_terms = terms if len(terms) <= MAX_TERMS else terms[: MAX_TERMS - 2]
    parts = [rf"{tex_num(p, 3)}\cdot{tex_num(q, 3)}" for p, q, _ in shown_terms]
    if len(terms) > len(shown_terms):
        parts.append(r"\cdots")
    per_line = 1 if narrow else TERMS_PER_LINE
    lines = [" + ".join(parts[k : k + per_line]) for k in range(0, len(parts), per_line)]
    body = r" \\ &\quad + ".join(lines)
    result = tex_num(total, paren=False)
    notes = [t("breakdown_more", more=len(terms) - len(shown_terms))] if len(terms) > len(shown_terms) else []
    notes.append(t("breakdown_check", total=fmt(total), value=fmt(value)))
    formula = said(t("breakdown_title", name=c.plain, a=a.plain, b=b.plain, i=i + 1, j=j + 1),
                   rf"\begin{{aligned}} {c.tex}[{i + 1},{j + 1}] &= {body} \\ &= {result} \end{{aligned}}")
    return "\n\n".join([formula, *map(aside, notes)])
