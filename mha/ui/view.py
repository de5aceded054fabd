"""What a stage draws from: the View (words, sizes, weights, X, the head shown, the look), its trace shared between
sessions, and the names and operands of the matrices it shows."""

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

import mha
from mha import figures as F
from mha.figures.ticks import room_for_names

from . import exports
from .shared import MB, Shared, digest, weights_digest
from .strings import Text

TRACES_BUDGET = 24 * MB  # traces of views up to SHARED_TRACE numbers, computed once for every session
SHARED_TRACE = 50_000  # numbers in a trace's arrays (~400 KB); larger views compute their own
TRACES = Shared(TRACES_BUDGET)


@dataclass(frozen=True)
class Name:
    """One matrix name in the three places it is written: chart (HTML), formula (LaTeX), prose."""

    html: str
    tex: str
    plain: str


DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# A projector's first screen (1280×720 with present=1): a figure whose top sits under the stage's title and `rows` of
# controls ends on it when no taller than this (bench/README.md, "Presenter mode's first screen": the title's bottom
# at 152 px, a row of controls 36 px, 8 px to spare).
PRESENT_SCREEN, PRESENT_TITLE, PRESENT_CONTROLS = 712, 152, 36


def first_screen(look: F.Look, rows: int, px: float = 0) -> F.Look:
    """`look` for a view's first figure, under its title, `rows` rows of controls and `px` more of what the view
    writes above it: on a projector no taller than the rest of the first screen (its cells shrink, rows before
    columns); elsewhere as it is."""
    if look.narrow or look.cell_text != F.PRESENT.cell_text:
        return look
    return replace(look, fig_h=min(look.fig_h, PRESENT_SCREEN - PRESENT_TITLE - PRESENT_CONTROLS * rows - px))


def subscript(i: int) -> str:
    return str(i).translate(DIGITS)


def name(letter: str, sub: str = "", sup: str = "") -> Name:
    html = letter + (f"<sub>{sub}</sub>" if sub else "") + (f"<sup>{sup}</sup>" if sup else "")
    word = rf"\mathrm{{{letter}}}" if len(letter) > 1 else letter  # a word upright (Concat, LN), a letter italic
    tex = word + (f"_{{{sub}}}" if sub else "") + (f"^{{{sup}}}" if sup else "")
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
class ModelRun:
    """A model the walk runs a layer of (the trained one, or a checkpoint) on the text: its weights, its whole run,
    and which layer's attention the walk shows (0-based)."""

    weights: mha.ModelWeights
    trace: mha.ModelTrace
    layer: int
    checkpoint: str = ""  # the checkpoint's name, or "" for the trained model

    kind = property(lambda self: "checkpoint" if self.checkpoint else "trained")  # strings' keys end in it

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
    run: "ModelRun | None" = None  # with the trained model or a checkpoint: its run on the text, and the layer shown

    @cached_property
    def trace(self) -> mha.Trace:
        """The trace of X, shared with every session showing the same X and weights while it is small. Read-only."""
        if exports.trace_size(self.cfg) > SHARED_TRACE:
            return mha.forward(self.x, self.w)
        w = self.w
        key = ("trace", weights_digest(w, self.x))
        return TRACES.get(key, lambda: read_only(mha.forward(self.x, w)))

    @cached_property
    def words(self) -> F.Words:
        """What a figure writes itself (which part of a trimmed matrix is drawn), in this page's language."""
        t = self.t
        keys = ("trim_rows", "trim_cols", "trim_both", "blocks_hidden", "block_hidden", "blocks_two_hidden")
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


def product_name(a: Name, b: Name) -> Name:
    """AB as a name: the product before a bias is added (XW_Q₁ before b_Q₁ gives Q₁)."""
    return Name(a.html + b.html, a.tex + b.tex, a.plain + b.plain)


def read_only(trace: mha.Trace) -> mha.Trace:
    """A trace that sessions share: any write to its arrays raises instead of changing another session's page (the
    fields a variant leaves unset are None)."""
    for a in vars(trace).values():
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return trace


def operand_key(o: Operand) -> tuple:
    return o.name, o.rows, o.cols, o.kind, digest(o.values, *(() if o.mask is None else (o.mask,)))


def concat_args(h: int) -> Name:
    """The heads Concat joins, as many as there are: H₁ alone, H₁, H₂, and H₁, …, H_h from three heads on."""
    heads = [name("H", str(i)) for i in (range(1, h + 1) if h <= 2 else (1, h))]
    if h <= 2:
        return Name(", ".join(x.html for x in heads), ", ".join(x.tex for x in heads),
                    ", ".join(x.plain for x in heads))
    first, last = heads
    return Name(f"{first.html}, …, {last.html}", rf"{first.tex},\dots,{last.tex}", f"{first.plain}, …, {last.plain}")
