"""Stage `tokens` (the coda): text → tokens → the rows of E they look up → + positions P = X.

With a text, this X is the one every later stage starts from (n = its number of tokens); with none,
an example shows the way and the walk keeps its seeded X.
"""

import codecs
import html
from dataclasses import replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.text import fit_text, text_px
from mha.figures.ticks import token_ticks

from .. import checkpoints, exports, models, session, x_source
from .. import settings as S
from ..chart import chart
from ..heads import real
from ..prose import display, equation, header
from ..view import View, first_screen

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [mha.tokenize, mha.sinusoidal_positions, mha.embed]

CHIPS_CSS = ("display:inline-block;margin:2px 4px 2px 0;padding:2px 8px;border-radius:12px;"
             "background:#eef2ff;border:1px solid #c7d2fe;font-size:0.95rem;max-width:100%;overflow-wrap:anywhere")
CHIP_PX, CHIP_FONT_PX = 240, 15.2  # a chip's token is shortened to this width (a phone's page is 358 px); 0.95rem
# a BPE token that is part of a character: its bytes in hex, in a dashed chip
PARTIAL_CSS = CHIPS_CSS.replace("1px solid", "1px dashed") + "font-family:monospace;font-size:0.85rem"
# such pieces in a row, over the characters their bytes spell together (a piece's bytes may end mid-character)
RUN_CSS = ("display:inline-flex;flex-direction:column;align-items:center;max-width:100%;margin-right:4px;"
           "border-bottom:2px solid #c7d2fe")
SPELT_CSS = "font-size:0.85rem;color:rgba(49,51,63,0.8)"
COUNT_CSS = "margin:0.4rem 0 0;font-size:0.875rem;color:rgba(49,51,63,0.6)"  # Streamlit's caption, light theme
E_ROWS = 4  # rows of controls above E on a projector: the text box (its label left out there), a line of chips, the
# count
# What a chip takes beside its token (its padding, border and right margin, the space before its id) and a line of
# chips, measured in Chromium on a projector (1280×720, present=1: the chips' box is 1120 px wide)
CHIP_EDGES_PX, CHIP_LINE_PX, CHIPS_BOX_PX, CHIP_ID_FONT_PX = 26, 47, 1120, 12.6
HELD_LINES = 3  # E is held shorter for at most this many lines of chips: under more, it would be too small to read


def render(v: View) -> None:
    t, ss = v.t, st.session_state
    header(t, "tokens", v.look)
    # No max_chars: Streamlit 1.67's box drops a paste longer than it whole, and silently. The server cuts every value
    # (settings.cap_text: to RAW_MAX_CHARS before NFKC, then to the demo's limits) and the page says so.
    st.text_input(t("tokens_box"), key="text", on_change=session.on_text_change, persist_state="session",
                  placeholder=x_source.example_text(t.lang), help=t("tokens_box_help", most=S.LIMITS["n_tokens"]),
                  label_visibility="collapsed" if v.look == F.PRESENT else "visible")  # a projector: E's room
    if notice := ss.pop("text_notice", None):
        st.warning(t.notice(notice))
    if models.trained_on():
        trained_notes(t, ss.get("text", ""))
    text, own = ss.get("text", ""), x_source.has_text()
    projector = v.look == F.PRESENT  # there the chips and E come first; the example's offer and the formula under E

    def offer() -> None:
        st.info(t.md("tokens_example", example=text))
        st.button(t("tokens_use_example"), key="use_example", on_click=session.use_text, args=(text,))

    if not own:
        text = x_source.example_text(t.lang)
        if not projector:
            offer()
    cfg = replace(v.cfg, n_tokens=len(x_source.text_tokens(text)))
    positions = ss.get("positions", S.DEFAULTS["positions"])
    tokens, vocab, ids, mw = x_source.coda(cfg, text, positions)
    n, d = len(tokens), cfg.d_model
    if models.checkpoint_on():  # the walk's tokens are the checkpoint's own: its split is the one shown
        bpe_split(t, text, len(mha.tokenize(text)), "tokens_bpe_title_walked")
    elif models.trained_on():  # the model's own vocabulary, not the text's
        chips(tokens, ids, t("tokens_count_trained", n=n, distinct=len(set(tokens)), vocab=len(vocab)))
    else:
        chips(tokens, ids, t("tokens_count", n=n, vocab=len(vocab)))
    if len(models.choices()) > 1 and not models.checkpoint_on():  # a real model's own split, beside the words
        bpe_split(t, text, n)
    # 1. look up rows of E
    e_rows = mw.wte[ids]

    def lookup() -> None:
        equation(v.look, (r"E \in \mathbb{R}^{" + f"{len(vocab)}" + r"\times " + f"{d}" + "},",
                          r"E[\mathrm{ids}]:\ " + rf"{n}\times {d}"))

    if not projector:
        lookup()
    emb = F.Mat(mw.wte, "E", row_label=t("token_id"), col_label=t("feature"))
    looked = F.Mat(e_rows, "E[ids]", row_label=t("token"), col_label=t("feature"))
    lines = min(chip_lines(tokens, ids), HELD_LINES) if projector else 1  # a long text's chips wrap: E starts a line
    # lower for each (first_screen holds a figure on a projector only)
    fig = F.grid_figure([emb, looked], text=v.text, words=v.words,
                        look=first_screen(v.look, E_ROWS, CHIP_LINE_PX * (lines - 1)))
    chart(token_ticks(token_ticks(fig, vocab, ("yaxis",), v.look), tokens, ("yaxis2",), v.look), key="tokens_e")
    if projector:
        lookup()
        if not own:
            offer()
    # 2. positions
    if not models.real_on():  # a real model's positions are the ones it learned
        st.segmented_control(t("positions"), S.POSITIONS, format_func=lambda p: t(f"positions_{p}"),
                             key="positions", required=True, persist_state="session", on_change=session.on_text_change)
    p = mw.wpe[:n] if mw.wpe is not None else None
    if p is None:
        p = mha.sinusoidal_positions(n, d)
        tex = display(v.look, r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right),",
                      r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right),", f"d = {d}")
        note = t("positions_odd", d=d) if d % 2 else t("positions_even", d=d)
        st.markdown(f"$$\n{tex}\n$$\n\n:gray[:small[{note}]]")  # the formula and its note: one element
    elif models.real_on():  # the positions it learned, not the untrained draw of `positions=learned`
        st.caption(t(f"positions_{'checkpoint' if models.checkpoint_on() else 'trained'}_note", most=mw.wpe.shape[0]))
    else:
        st.caption(t("positions_learned_note"))
    # 3. X = E[ids] + P
    x = mha.embed(ids, mw)
    equation(v.look, (r"X = E[\mathrm{ids}] + P:", rf"({n}\times {d}) + ({n}\times {d}) \to {n}\times {d}"))
    mats = [F.Mat(p, "P", row_label=t("token"), col_label=t("feature")),
            F.Mat(x, "X = E[ids] + P", row_label=t("token"), col_label=t("feature"))]
    fig = F.grid_figure(mats, text=v.text, words=v.words, look=v.look)
    chart(token_ticks(fig, tokens, ("yaxis", "yaxis2"), v.look), key="tokens_x")
    if v.run:  # this X is E[ids] + P; the walk's, from the next stage on, is LN₁ of the stream (audit #6)
        st.info(t(f"tokens_x_{v.run.kind}", layer=v.run.layer + 1))
    elif own:
        edited = not np.array_equal(ss.get("x_base", x), x)
        st.info(t("tokens_x_edited") if edited else t("tokens_x_used", n=n))
    else:
        st.caption(t("tokens_x_not_used"))


def trained_notes(t, text: str) -> None:
    """What the trained model reads of the text, what it left out, and a fresh sequence of its task."""
    _, unknown, cut = x_source.trained_tokens(text)
    model = models.shipped()
    most, letters = model.meta["sizes"]["n_ctx"], dict(first=model.vocab[0], last=model.vocab[-1])
    task = t("trained_task_distinct" if model.meta.get("distinct", True) else "trained_task_repeats")
    st.caption(t("trained_tokens_note", most=most, task=task, **letters))
    if unknown:
        st.warning(t.md("trained_unknown", chars=" ".join(unknown[:20]), **letters))
    if cut:
        st.warning(t("trained_cut", most=most))
    st.button(t("trained_random"), key="new_repeat", on_click=session.new_repeat)


def chips(tokens: list[str], ids, count: str) -> None:
    """Each token as a chip with its id, and under them the count in a caption's type: one element. The text is
    escaped, so it shows literally."""
    counted("".join(chip(tok, int(i)) for tok, i in zip(tokens, ids)), count)


def counted(items: str, count: str) -> None:
    """Chips (HTML made here, every text in it escaped), and under them a count in a caption's type: one element."""
    st.html(f'<div>{items}</div><p class="mha-count" style="{COUNT_CSS}">{html.escape(count, quote=False)}</p>')


def chip_lines(tokens: list[str], ids, width: float = CHIPS_BOX_PX) -> int:
    """How many lines the chips take in a box this wide (a projector's), each chip as wide as its shortened token,
    its id and its edges: they flow as words do."""
    lines, used = 1, 0.0
    for tok, i in zip(tokens, ids):
        px = text_px(fit_text(tok, CHIP_FONT_PX, CHIP_PX), CHIP_FONT_PX) + text_px(str(int(i)), CHIP_ID_FONT_PX)
        px += CHIP_EDGES_PX
        if used and used + px > width:
            lines, used = lines + 1, 0.0
        used += px
    return lines


def chip(token: str, i: int, css: str = CHIPS_CSS) -> str:
    """A token and its id as a chip within the page: a token wider than CHIP_PX shortened, whole in the chip's title
    (on hover); the CSS wraps whatever the estimate misses inside the chip rather than past the page."""
    shown = fit_text(token, CHIP_FONT_PX, CHIP_PX)
    title = f' title="{html.escape(token)}"' if shown != token else ""
    return f'<span style="{css}"{title}>{html.escape(shown)} <sub>{i}</sub></span>'


def bpe_split(t, text: str, words: int, title: str = "tokens_bpe_title") -> None:
    """The text in a checkpoint's own byte-level BPE (the picker's), each token a chip: its text, or the hex of its
    bytes where they are part of a character, in a dashed chip; then the counts. `title`: the key of what it says
    above them (beside the word split, or as the walk's own tokens)."""
    name = real.picker(t)
    m = real.opened(t, name) if name else None
    if m is None:
        return
    ids, total = models.tokens_of(m, text)
    pieces = [checkpoints.piece(m.tokenizer.piece(i)) for i in ids]
    st.markdown(t(title, name=f"**{real.said_name(t, name)}**"))
    items, run = [], []  # pieces that are parts of characters, drawn together over the characters they spell
    spell = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for (shown, whole), i in zip([*pieces, ("", True)], [*ids, -1]):
        if not whole:
            run.append(i)
            spell.decode(m.tokenizer.piece(i))
            if spell.getstate()[0]:  # a character is still open: the next piece holds the rest of its bytes
                continue
        if run:
            spelt = b"".join(m.tokenizer.piece(j) for j in run).decode("utf-8", errors="replace")
            chips_ = "".join(chip(checkpoints.piece(m.tokenizer.piece(j))[0], int(j), PARTIAL_CSS) for j in run)
            items.append(f'<span style="{RUN_CSS}"><span>{chips_}</span><span style="{SPELT_CSS}">'
                         f'{html.escape(spelt)}</span></span>')
            run = []
            spell.reset()
        if whole and i >= 0:
            items.append(chip(shown, int(i)))
    partial = sum(not whole for _, whole in pieces)
    cut = t("real_cut", most=len(ids), total=total) if total > len(ids) else ""
    count = t.sentences(t("tokens_bpe_count", n=len(ids), words=words, cut=cut),
                        t("tokens_bpe_partial", partial=partial) if partial else "", t("tokens_bpe_space"))
    counted("".join(items), count)


def coda_shown(cfg: mha.AttentionConfig) -> tuple[list[str], np.ndarray, mha.ModelWeights]:
    """The coda's stages' text as they show it (the user's, or the language's example): its tokens, their ids and
    the model around the walk's block, at the text's length (what their downloads hold)."""
    ss = st.session_state
    text = ss["text"] if x_source.has_text() else x_source.example_text(ss["lang"])
    tokens = x_source.text_tokens(text)
    positions = ss.get("positions", S.DEFAULTS["positions"])
    _, _, ids, mw = x_source.coda(replace(cfg, n_tokens=len(tokens)), text, positions)
    return tokens, ids, mw


def download(cfg, x, w) -> exports.Part:
    """The tokens' files, for the text (or the language's example): the ids, E (a row per word of the vocabulary),
    the rows it looks up, the positions P and X = E[ids] + P."""
    tokens, ids, mw = coda_shown(cfg)
    n, e = len(tokens), mw.wte
    p = mw.wpe[:n] if mw.wpe is not None else mha.sinusoidal_positions(n, cfg.d_model)
    return exports.Part({"ids": ids, "E": e, "E_ids": e[ids], "P": p, "X": mha.embed(ids, mw)},
                        {"ids": ("row", "token"), "E": ("vocab", "feature"), "E_ids": ("token", "feature"),
                         "P": ("token", "feature"), "X": ("token", "feature")})
