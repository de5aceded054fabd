"""Axes named by tokens (figures.ticks) name each row and column by its own token, and make room for the names:
every label stands at the tick of the token it names, in every figure that names tokens and on every screen; the
labels fit left of their panel, clear of the panel before it; the titles move with their panels; and a figure never
grows past its screen."""

import html

import numpy as np
import pytest

import mha
from mha import figures as F
from mha.figures.scores import WORDS as SCORE_WORDS
from mha.figures.text import text_px, widest
from mha.figures.ticks import label_text, room_for_names, token_ticks

from .test_figures import cache_figure

LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}
TRIM = F.Words("{rows} rows", "{cols} cols", "{rows}, {cols}", "{first}–{last} hidden", "{first} hidden")
# Distinct tokens, distinct even where a label is shortened (its first glyphs differ), one a tag to escape.
TOKENS = [f"{i:02d}-antidisestablishment" if i % 5 == 0 else "<b>" if i == 3 else f"w{i}" for i in range(1, 65)]


def _trace(n: int, heads: int = 3):
    cfg = mha.AttentionConfig(n_tokens=n, d_model=8, d_k=5, d_v=6, n_heads=heads)
    w = mha.init_weights(cfg)
    return w, mha.forward(mha.init_input(cfg), w)


def _product(n: int, look: F.Look, tokens: list[str]) -> tuple[dict, tuple[str, ...]]:
    """X·W_Q = Q with X's and Q's rows named, as the product views name them (product._product)."""
    w, tr = _trace(n)
    fig = F.product_figure(F.Mat(tr.x, "X"), F.Mat(w.w_q[0], "W"), F.Mat(tr.q[0], "Q"), text=True,
                           formula="Q = XW", words=TRIM, look=room_for_names(tokens, look))
    return token_ticks(fig, tokens, ("yaxis", "yaxis3"), look).to_dict(), ("yaxis", "yaxis3")


def _heads(n: int, look: F.Look, tokens: list[str]) -> tuple[dict, tuple[str, ...]]:
    """Every head's S side by side, rows and keys named (the heads stage's s_maps)."""
    _, tr = _trace(n)
    mats = [F.Mat(p, f"S{i + 1}", "probs", "token", "key", np.isneginf(m)) for i, (p, m) in
            enumerate(zip(tr.probs, tr.masked))]
    axes = tuple(f"{a}axis{i + 1 if i else ''}" for i in range(len(mats)) for a in "xy")
    fig = F.grid_figure(mats, text=True, words=TRIM, look=room_for_names(tokens, look))
    return token_ticks(fig, tokens, axes, look).to_dict(), axes


def _scores(n: int, look: F.Look, tokens: list[str]) -> tuple[dict, tuple[str, ...]]:
    _, tr = _trace(n)
    words = {key: key for key in SCORE_WORDS} | dict(fill="{i}{j}", fill_rows="{a}{b}", softmax_rows="{a}{b}",
                                                      shown="{rows}{cols}")
    steps = F.ScoreSteps(tr.scaled[0], tr.masked[0], tr.probs[0], dict(q="Q", kt="Kᵀ", scores="QKᵀ", probs="S"),
                         words, tr.q[0], tr.k[0], tr.scores[0])
    fig = F.scores_animation(steps, text=True, look=look)
    return token_ticks(fig, tokens, ("yaxis", "xaxis2"), look).to_dict(), ("yaxis", "xaxis2")


def _cache(n: int, look: F.Look, tokens: list[str]) -> tuple[dict, tuple[str, ...]]:
    """A decode step at token n: the figure draws the last rows only (its ticks start past 1)."""
    w, tr = _trace(n)
    fig = cache_figure(tr, w, room_for_names(tokens, look))
    axes = ("yaxis", "yaxis4", "xaxis4")
    return token_ticks(fig, tokens, axes, look).to_dict(), axes


FIGURES = {"product": _product, "heads": _heads, "scores": _scores, "cache": _cache}


@pytest.mark.parametrize("n", [3, 40])
@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("figure", FIGURES)
def test_every_label_names_the_token_of_its_own_row_or_column(figure, look, n):
    tokens = TOKENS[:n]
    spec, axes = FIGURES[figure](n, LOOKS[look], tokens)
    layout = spec["layout"]
    named = [ax for ax in axes if "ticktext" in layout.get(ax, {})]
    if not LOOKS[look].narrow:  # a phone may keep the numbers; elsewhere the rows are named
        assert any(ax.startswith("y") for ax in named), (figure, look, n)
    for ax in named:
        vals, texts = layout[ax]["tickvals"], layout[ax]["ticktext"]
        assert len(texts) == len(vals)
        assert texts == [label_text(tokens[v - 1]) for v in vals], (ax, list(zip(vals, texts)))
        titles = layout.get("meta", {}).get("ticktitles", {}).get(ax)
        if any(text.endswith("…") for text in texts):  # a shortened label carries its whole token as its title
            assert titles == [html.escape(tokens[v - 1], quote=False) for v in vals], ax
        else:
            assert titles is None, ax


def test_a_label_is_shortened_escaped_and_never_another_tokens():
    assert label_text("w1") == "w1"
    assert label_text("<b>") == "&lt;b&gt;"
    assert label_text("05-antidisestablishment") == "05-anti…"


def _px(layout: dict, fraction: float) -> float:
    margin = layout.get("margin", {})
    paper = layout["width"] - margin.get("l", 0) - margin.get("r", 0)
    return margin.get("l", 0) + fraction * paper


def _title_offsets(layout: dict, count: int) -> list[float]:
    """How far (px) each panel's title stands from its panel's centre."""
    out = []
    for i in range(count):
        lo, hi = (_px(layout, f) for f in layout[f"xaxis{i + 1 if i else ''}"]["domain"])
        title = next(a for a in layout["annotations"] if a["text"].startswith(f"<b>S{i + 1}</b>"))
        out.append(_px(layout, title["x"]) - (lo + hi) / 2)
    return out


@pytest.mark.parametrize("look", ["desk", "present"])
def test_row_names_fit_between_their_panel_and_the_one_before_and_titles_move_with_their_panels(look):
    n = 12
    tokens = [f"{t}-{i}" for i, t in enumerate(["antidisestablishment", "supercalifragilistic"] * 6)]
    _, tr = _trace(n)
    mats = [F.Mat(p, f"S{i + 1}", "probs", "token", "key") for i, p in enumerate(tr.probs)]
    fig = F.grid_figure(mats, text=True, words=TRIM, look=room_for_names(tokens, LOOKS[look]))
    width, offsets = fig.to_dict()["layout"]["width"], _title_offsets(fig.to_dict()["layout"], len(mats))
    axes = tuple(f"{a}axis{i + 1 if i else ''}" for i in range(len(mats)) for a in "xy")
    layout = token_ticks(fig, tokens, axes, LOOKS[look]).to_dict()["layout"]
    assert width < layout["width"] <= max(width, LOOKS[look].max_w + 8)
    panels = [(layout[f"xaxis{i + 1 if i else ''}"]["domain"], layout[f"yaxis{i + 1 if i else ''}"]["domain"])
              for i in range(len(mats))]
    for i, ((x0, _), (y0, y1)) in enumerate(panels):
        y = f"yaxis{i + 1 if i else ''}"
        labels = layout[y].get("ticktext", [str(v) for v in layout[y]["tickvals"]])
        need = widest(labels, layout[y]["tickfont"]["size"])
        before = [xs[1] for xs, ys in panels if xs[1] <= x0 and ys[0] < y1 and y0 < ys[1]]  # left of it, same row
        room = _px(layout, x0) - (_px(layout, max(before)) if before else 0.0)
        assert need <= room, (y, need, room)  # the labels stand clear of the panel before, and inside the figure
    assert np.allclose(_title_offsets(layout, len(mats)), offsets, atol=0.5)  # each title moved with its panel
    named = [i for i in range(len(mats)) if "ticktext" in layout[f"yaxis{i + 1 if i else ''}"]]
    # on a desk every panel's rows take words (a gap opens before the inner ones); a projector's larger type
    # leaves the inner panels their numbers, where the gaps would pass the screen's width
    assert named == ([0, 1, 2] if look == "desk" else [0]), named


def test_a_rows_title_in_the_gap_before_its_panel_stays_clear_of_the_words_that_grow_toward_it():
    """A product drawn long (A over B and C, as the block's A·W_proj at 7 tokens): C's rows' title stood in the gap
    between B and C, right of where the gap opened, and moved over with C onto its longest words (review
    2026-12-07: "token" over "against")."""
    tokens = "queries compare themselves against earlier keys only".split()
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(7, 13)), rng.normal(size=(13, 5))
    fig = F.product_figure(F.Mat(a, "A", row_label="token", col_label="unit"),
                           F.Mat(b, "W", row_label="unit", col_label="feature"),
                           F.Mat(a @ b, "AW", row_label="token", col_label="feature"), text=True, formula="A · W",
                           words=TRIM, look=room_for_names(tokens, F.DESK))
    layout = token_ticks(fig, tokens, ("yaxis", "yaxis3"), F.DESK).to_dict()["layout"]
    assert layout["yaxis3"]["ticktext"][3] == "against"  # C's rows take words
    left = _px(layout, layout["xaxis3"]["domain"][0])
    words = widest(layout["yaxis3"]["ticktext"], layout["yaxis3"]["tickfont"]["size"])
    title = next(n for n in layout["annotations"] if n.get("textangle") == -90 and n["text"] == "token"
                 and _px(layout, layout["xaxis2"]["domain"][1]) < _px(layout, n["x"]) < left)
    assert _px(layout, title["x"]) + title["font"]["size"] / 2 < left - words, (title["x"], left, words)


def test_a_figure_named_on_a_phone_stays_within_the_phone():
    tokens = ["antidisestablishmentarianism"] * 6
    assert room_for_names(tokens, F.PHONE) is F.PHONE
    spec, _ = _heads(6, F.PHONE, tokens)
    assert spec["layout"]["width"] <= F.PHONE.max_w + 8


def test_room_for_names_narrows_the_look_by_what_the_widest_name_needs_more_than_a_number():
    tokens = ["a", "antidisestablishment"]
    look = room_for_names(tokens, F.DESK)
    wider = text_px("antidis…", F.DESK.tick) - text_px("2", F.DESK.tick)
    assert look.max_w == int(F.DESK.max_w - wider - 2)
    assert room_for_names(["a", "b"], F.DESK).max_w == F.DESK.max_w - 2  # never wider than the look


@pytest.mark.parametrize("glyph, tail", [("!", "\u20e3" * 200), ("\U0001f3f4", "\U000e0067" * 300 + "\U000e007f"),
                                         ("e", "\u0301" * 50), ("👍", "🏽"), ("a", "\u200d\ufe0f")])
def test_what_draws_nothing_of_its_own_takes_no_width(glyph, tail):
    """A keycap, a flag's tags, accents, a skin tone after its emoji, joiners and variation selectors: a label's
    width is its glyphs', so a token with a long tail does not push its figure's margin past the figure (N5)."""
    assert text_px(glyph + tail, 14) == text_px(glyph, 14)
    assert text_px("🏽", 14) > 0  # a skin tone alone is drawn
