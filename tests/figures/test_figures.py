"""Every builder's figure passes Plotly's own validation (the app skips it for speed) and draws what it says."""

import html

import numpy as np
import plotly.graph_objects as go
import pytest

import mha
from mha import figures as F
from mha.figures.cache import CacheStep, cache_animation, cost_figure
from mha.figures.scores import WORDS as SCORE_WORDS
from mha.figures.text import fit_text, short, text_px

CFG = mha.AttentionConfig(n_tokens=5)
W = mha.init_weights(CFG)
TR = mha.forward(mha.init_input(CFG), W)
NAMES = dict(q="Q", kt="Kᵀ", scores="QKᵀ", probs="S")
WORDS = {key: key for key in SCORE_WORDS} | dict(fill="{i}{j}", fill_row="{a}", fill_rows="{a}{b}",
                                                  softmax_row="{a}", softmax_rows="{a}{b}", shown="{rows}{cols}")
TRIM = F.Words("{rows} rows", "{cols} cols", "{rows}, {cols}", "{first}–{last} hidden", "{first} hidden")


def _scores():
    h = 0
    return F.scores_animation(F.ScoreSteps(TR.scaled[h], TR.masked[h], TR.probs[h], NAMES, WORDS, q=TR.q[h],
                                           k=TR.k[h], scores=TR.scores[h]), text=True)


def cache_figure(tr: mha.Trace, w: mha.Weights, look: F.Look = F.DESK):
    """The KV-cache animation of head 1 at the decode step of tr's last token, with one-letter words."""
    cache = mha.KVCache(w)
    step = [cache.append(r) for r in tr.x][-1]
    before = mha.forward(tr.x[:-1], w)
    words = dict(arrive="a", append="a", scores="s", softmax="s", drop_q="d", output="o", play="p", pause="p",
                 legend="l", scores_note="s", drop_q_note="n", done_q_note="d", steps=list("123456"),
                 last_rows="{n}/{total}", first_cols="{n}/{total}", rows_drawn="{a}-{b}", last_cols="{n}/{total}",
                 token="t", col="c", slider="s", slider_step="{k}")
    return cache_animation(CacheStep(tr.q[0], cache.k[0], cache.v[0], before.probs[0], before.heads[0], before.y,
                                     step.scaled[0], step.probs[0], step.heads[0], step.y,
                                     dict(q="Q", k="K", v="V", y="Y", s="S", h="H"), words), text=True, look=look)


def _cache():
    return cache_figure(TR, W)


BUILDERS = {
    "product": lambda: F.product_figure(F.Mat(TR.x, "X"), F.Mat(W.w_q[0], "W"), F.Mat(TR.q[0], "Q"), text=True,
                                        formula="Q = XW", words=TRIM),
    "product_blocks": lambda: F.product_figure(F.Mat(TR.concat, "C"), F.Mat(W.w_o, "W"), F.Mat(TR.y, "Y"),
                                               text=True, formula="Y", words=TRIM, blocks=11, block_names=["h1", "h2"]),
    "grid": lambda: F.grid_figure([F.Mat(TR.probs[0], "S", "probs"), F.Mat(TR.probs[1], "S", "magnitude")], text=True,
                                  words=TRIM),
    "scores": _scores,
    "cache": _cache,
    "cost": lambda: cost_figure(np.arange(1, 10), {"a": (np.arange(1, 10), "solid")}, x_title="t", y_title="f"),
    "probs_long": lambda: F.probs_figure(np.array([0.6, 0.4]), ["a" * 1000, "b"], 0, "p"),  # its ticks' titles
}


@pytest.mark.parametrize("name", BUILDERS)
def test_plotly_accepts_every_property(name):
    spec = BUILDERS[name]().to_dict()
    go.Figure(spec)  # raises ValueError on any property Plotly does not know


def test_product_rows_run_top_down_and_cells_are_square():
    """C's cells are square; A's columns are as wide as B's rows are tall (the inner dimension)."""
    spec = BUILDERS["product"]().to_dict()
    lay = spec["layout"]
    assert lay["yaxis"]["range"][0] > lay["yaxis"]["range"][1]  # row 1 at the top
    w = lay["width"] - lay["margin"]["l"] - lay["margin"]["r"]
    h = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    span = lambda axis, n, px: px * (lay[axis]["domain"][1] - lay[axis]["domain"][0]) / n
    assert abs(span("xaxis2", 7, w) - span("yaxis", 5, h)) < 0.5  # C: 5×7 (rows of X, columns of W)
    assert abs(span("xaxis", 5, w) - span("yaxis2", 5, h)) < 0.5  # A's 5 columns, B's 5 rows


def test_large_matrices_have_no_cell_numbers():
    big = np.random.default_rng(0).standard_normal((30, 30))
    spec = F.grid_figure([F.Mat(big, "B")], text=True, words=TRIM).to_dict()
    assert not spec["data"][0]["texttemplate"]


SCOTLAND = "🏴" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000e007f"


def test_a_shortened_label_keeps_every_emoji_it_shows_whole():
    """A label is cut between glyphs: an emoji keeps its skin tone or its flag's tags, and no joiner dangles."""
    family = "👨🏽\u200d👩🏽\u200d👧🏽\u200d👦🏽"
    assert short(family) == family  # 4 glyphs, 11 characters
    assert short("👍🏽" * 10, 3) == "👍🏽👍🏽…" and short("😀\u200d" * 10, 3) == "😀\u200d😀…"
    assert short("the") == "the" and short("attention") == "attenti…"
    flags = fit_text(SCOTLAND * 50, 12, 200)
    assert flags.endswith("…") and flags[:-1] == SCOTLAND * (len(flags[:-1]) // len(SCOTLAND))


@pytest.mark.parametrize("text", ["a" * 1000, "注" * 500, "<" * 400, "W" * 300])
@pytest.mark.parametrize("px", [30, 120, 400])
def test_a_fitted_label_fits_its_room(text, px):
    fitted = fit_text(text, 12, px)
    assert fitted.endswith("…") and text.startswith(fitted[:-1])
    assert text_px(html.escape(fitted, quote=False), 12) <= px  # as the label is written: escaped
    assert fit_text("mat", 12, px) == "mat"


@pytest.mark.parametrize("title", ["<b>μ₁</b> · 3×1", "<b>σ²(x̂)</b> · 3×1", "<b>R₁ = LN₁(X + Attn)</b> · 3×5",
                                   "<b>Q₁K₁ᵀ/√7 + M</b> · 3×3"])
def test_a_wrapped_title_leaves_no_dot_dangling(title):
    """Audit #12: narrow panels wrapped their titles as "μ₁ ·" over "3×1", or "σ²(x̂)" over "· 3×1"."""
    from mha.figures.text import text_px, wrap

    for width in (40, 60, 80, 120, 200):
        lines = wrap(title, 13, width)
        assert all(not line.endswith("·") and not line.startswith("·") for line in lines), lines
        assert text_px(" ".join(lines), 13) <= text_px(title, 13)  # nothing added; the break stands for the "·"


@pytest.mark.parametrize("title", ["第 3 个到第 4 个头未画出", "Concat · 3×44 · 第 3 个和第 4 个头未画出", "第 12 行",
                                   "共 3 组 4 个头 5 行 6 列 7 块 8 步", "…，共 12", "第 −3 个头", "约 50% 的头"])
def test_a_wrapped_chinese_title_keeps_a_number_with_its_neighbours(title):
    """The learner audit of 2026-12-07: the phone's Concat title broke its line between "第 3" and "个". At every
    width that holds a number with the character after it, no line ends on a number that the next line's Chinese
    character counts or follows; no line is wider than asked (a chain of such units breaks where it must), and every
    character is kept (a break stands for a "·")."""
    import re

    from mha.figures.text import text_px, wrap

    for width in range(50, 260, 10):
        lines = wrap(title, 12, width)
        assert re.sub("[ ·]", "", "".join(lines)) == re.sub("[ ·]", "", title), lines
        assert all(text_px(line, 12) <= width for line in lines), (width, lines)
        for a, b in zip(lines, lines[1:]):
            counted = re.search(r"(^|[\u4e00-\u9fff]) ?[−-]?[\d.,]+%?$", a)  # "第 3", "共 12", "50%"
            assert not (counted and re.match(r"[\u4e00-\u9fff]", b)), (width, lines)


def test_two_hidden_heads_are_named_as_two():
    """The learner audit of 2026-12-07: "heads 3 to 4 not drawn"; two are "heads 3 and 4", three or more a range."""
    from mha.ui.strings import Text

    for lang in ("en", "zh"):
        t = Text(lang)
        words = F.Words(*(t.template(k) for k in ("trim_rows", "trim_cols", "trim_both", "blocks_hidden",
                                                    "block_hidden", "blocks_two_hidden")))
        assert words.hidden(3, 4) == t("blocks_two_hidden", first=3, last=4)
        assert words.hidden(3, 5) == t("blocks_hidden", first=3, last=5) and words.hidden(2, 2) == t("block_hidden",
                                                                                                        first=2)
    assert F.Words("{rows}", "{cols}", "{rows}{cols}", "{first}–{last}", "{first}").hidden(3, 4) == "3–4"
