"""A stage's words and formulas: its header, the head control, display formulas and the sentences that introduce them,
side notes, the core's refusals, and numbers written for prose and LaTeX."""

import streamlit as st

import mha
from mha import figures as F

from . import settings as S
from . import walk
from .strings import Text

BELOW = "prose_below"  # session key: the paragraph a presenter's page draws under the stage (`below`)


def header(t: Text, stage: str, look: F.Look, title: str = "", **fields) -> None:
    """The stage's title (`title`, else its own) and opening paragraph, as one element: the browser draws every
    element of a full rerun again, so each one a stage saves is time saved on every interaction. On a projector
    (F.PRESENT) the title only: the paragraph waits for `below`, so that the stage's first figure is on the first
    screen."""
    title, text = title or t(f"{stage}_title", **fields), t(f"{stage}_text")
    # where the stage sits in the walk and the post, on every screen without the sidebar: a phone folds it away
    shown = st.session_state.get("stage")  # the stage drawn (its strings' prefix may be shorter: "kv")
    where = f":gray[:small[{walk.where(t, shown, shown == S.DEFAULTS['stage'])}]]" if shown in walk.BY_ID else ""
    if look == F.PRESENT:
        st.markdown(f"### {title}")
        st.session_state[BELOW] = [where, text] if where else [text]
    else:
        st.markdown("\n\n".join(filter(None, (f"### {title}", where, text))))


def below() -> None:
    """The paragraph `header` kept back on a projector, under the stage it opens (app.py calls this after the
    stage); nothing on another screen."""
    if parts := st.session_state.pop(BELOW, None):
        st.markdown("\n\n".join(parts))


def later(look: F.Look, markdown: str) -> bool:
    """On a projector, keep `markdown` (a formula as $$…$$, a hint) for `below`, under the stage's figures, and say
    so (True): what the audience should look at comes first. Elsewhere nothing is kept (False): draw it here."""
    if look != F.PRESENT or BELOW not in st.session_state:
        return False
    st.session_state[BELOW].insert(-1, markdown)  # before the paragraph, after where the stage sits
    return True


def head_control(t: Text, box=st) -> None:
    """Which head the page shows, on the stages that show one head (Q and K, scores, V and H, the KV cache), next
    to what it changes; none with a single head. Its value stays while other stages are shown (persist_state).
    `box`: where it goes (a row of the stage's other controls)."""
    n, present = st.session_state["n_heads"], st.session_state.get("present")
    if n > 1:  # a projector: no label, so that the figure under it fits the screen; each choice says it is a head
        box.segmented_control(t("head"), list(range(1, n + 1)), key="head", required=True, persist_state="session",
                              format_func=(lambda i: t("head_pill", i=i)) if present else str,
                              label_visibility="collapsed" if present else "visible")


def part_control(t: Text, stage: str, values: tuple[str, ...] | None = None, format_func=None,
                 visible: bool = False, box=st) -> str:
    """The part of a stage in parts that the page shows, chosen with one control drawn the same way on every such
    stage (walk.Parts: its session key, which names the control, and its parts, each named by "<key>_<part>"); its
    value stays while other stages are shown. `values` and `format_func`: the block's, whose parts follow its order;
    `box`: where it goes (a row of the stage's other controls)."""
    parts = walk.BY_ID[stage].parts
    return box.segmented_control(t(parts.key), values or parts.values, key=parts.key, required=True,
                                format_func=format_func or (lambda p: t(f"{parts.key}_{p}")), persist_state="session",
                                label_visibility="visible" if visible else "collapsed")


def part_name(t: Text, stage: str, part: str, ln: str = "") -> str:
    """A part as its control names it; the block's, "2 · LN₁", its place in the order `ln` shown and its name
    (post-LN's last part holds LN₂ too)."""
    if stage != "block":
        return t(f"{walk.BY_ID[stage].parts.key}_{part}")
    key = f"block_part_{part}_post" if ln == "post" and part in ("ffn", "out") else f"block_part_{part}"
    return f"{walk.BLOCK_PARTS_IN[ln].index(part) + 1} · {t(key)}"


def equation(look: F.Look, *groups: str | tuple[str, ...]) -> None:
    """A display formula: its groups side by side; on a phone every part on a line of its own (each fits 360 px); on a
    projector under the stage's figures (`later`).

    A group is one part or a tuple of parts that read as one (a product and its shapes).
    """
    tex = display(look, *groups)
    if not later(look, f"$$\n{tex}\n$$"):
        st.latex(tex)


def display(look: F.Look, *groups: str | tuple[str, ...]) -> str:
    """The LaTeX of `equation`, to be written with words of its own (`said_then_shown`)."""
    groups_ = [(g,) if isinstance(g, str) else g for g in groups]
    if look.narrow and sum(len(g) for g in groups_) > 1:
        return r"\begin{gathered} " + r" \\ ".join(p for g in groups_ for p in g) + r" \end{gathered}"
    return r"\qquad ".join(r"\ ".join(g) for g in groups_)


def said_then_shown(words: str, tex: str, box=None) -> None:
    """A sentence and the display formula it introduces, as one element (what st.latex sends is the same Markdown
    between $$ lines): a clicked cell's sums are two elements fewer to send and draw. `box`: where (else here)."""
    (box or st).markdown(said(words, tex))


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


def window_note(t: Text, *shapes: tuple[tuple[int, int], tuple[int, int]]) -> str:
    """The first (full shape, drawn shape) pair that is trimmed, said once under the figure."""
    for (rows, cols), (shown_rows, shown_cols) in shapes:
        if (rows, cols) != (shown_rows, shown_cols):
            return t("window_note", rows=shown_rows, cols=shown_cols, full_rows=rows, full_cols=cols)
    return ""


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
