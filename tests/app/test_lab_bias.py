"""The variant lab's window, sinks and ALiBi, as the page shows them, against a reference written here from the
issue-34 contract (query i sees keys i − W < j ≤ i and keys j < s; ALiBi adds −m_h (i − j) with the paper's
slopes), not from the core: the masks, scores, S and H drawn, the live check's table of what the cache holds after
each token, the clicked score's breakdown, and the knobs read from a link (bad values included), in both languages.
Each is looked for in the lab's part that shows it (what changes, click a product, check)."""

import re

import numpy as np
import pytest

import mha
from mha.ui import settings as S
from mha.ui.prose import tex_num
from mha.ui.strings import EN, ZH

from .helpers import keyed_charts, page_text, rerun, run, warnings, z
from .test_figure_schema import assert_drawn_whole

TABLES = {"en": EN, "zh": ZH}
POST = mha.AttentionConfig()  # the post's sizes: n 3, d_model 5, d_k 7, d_v 11, 2 heads


def hidden_by_rule(n: int, window: int, sinks: int = 0) -> np.ndarray:
    """(n, n) True where query i may not read key j (0-based): a later key, or one W or more back but no sink."""
    out = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(n):
            out[i, j] = j > i or (j <= i - window and j >= sinks)
    return out


def paper_slopes(h: int) -> list[float]:
    """The ALiBi paper's slopes, worked by hand for the head counts the tests use."""
    return {1: [2 ** -8], 2: [2 ** -4, 2 ** -8], 3: [2 ** -4, 2 ** -8, 2 ** -2],
            4: [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8]}[h]


def reference(x: np.ndarray, w: mha.Weights, hidden: np.ndarray, bias: np.ndarray | None = None):
    """Scaled scores (with the bias), S and H of every head, a row and a key at a time."""
    h, n, d_k = w.n_heads, len(x), w.d_k
    scaled, probs, heads = np.zeros((h, n, n)), np.zeros((h, n, n)), np.zeros((h, n, w.d_v))
    for head in range(h):
        q, k, v = x @ w.w_q[head], x @ w.w_k[head], x @ w.w_v[head]
        for i in range(n):
            e = np.zeros(n)
            for j in range(n):
                scaled[head, i, j] = q[i] @ k[j] / np.sqrt(d_k) + (0.0 if bias is None else bias[head, i, j])
                e[j] = 0.0 if hidden[i, j] else np.exp(scaled[head, i, j])
            probs[head, i] = e / e.sum()
            heads[head, i] = sum(probs[head, i, j] * v[j] for j in range(n))
    return scaled, probs, heads


def table(at) -> list[list[str]]:
    """The live check's table: one list of cells per row, the header left out."""
    text = next(m.value for m in at.markdown if "| --- |" in m.value)
    lines = text[text.index("| --- |"):].split("\n")[1:]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]


def to_part(at, part: str, product: str = ""):
    """The same page rerun on another part of the lab (and, for "click", on one of the variant's products)."""
    at.session_state["lab_part"] = part
    if product:
        at.session_state[f"lab_product_{at.session_state['variant']}"] = product
    return rerun(at)


def screens(at):
    """The page on each part in turn, and on each product of the click part: (what is shown, the page)."""
    products = dict(alibi=["scores", "h"]).get(at.session_state["variant"], ["h"])
    for shown in ["change", *(f"click/{p}" for p in products), "check"]:
        yield shown, to_part(at, *shown.split("/"))


def chart(at, key: str) -> dict:
    return dict(keyed_charts(at))[key]


def heat(spec: dict, start: str) -> np.ndarray:
    """The heatmap whose name starts with `start`."""
    return z(next(tr for tr in spec["data"] if tr["type"] == "heatmap" and tr["name"].startswith(start)))


def held_by_rule(token: int, window: int, sinks: int) -> list[int]:
    """The positions (1-based) a cache keeps after token `token` (0-based): the sinks and the last W."""
    return [p + 1 for p in range(token + 1) if p > token - window or p < sinks]


CASES = [("window", 2, 0, 6), ("window", 1, 0, 4), ("window", 3, 0, 8), ("sinks", 2, 1, 6), ("sinks", 3, 2, 9),
         ("sinks", 1, 1, 4)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("variant", "window", "sinks", "n"), CASES)
def test_the_window_page_draws_the_band_and_decodes_as_the_rule_says(lang, variant, window, sinks, n):
    knobs = dict(window=window) | (dict(sinks=sinks) if variant == "sinks" else {})
    at = run(stage="variants", variant=variant, lang=lang, n_tokens=n, part="change", **knobs)
    cfg = mha.AttentionConfig(n_tokens=n)
    x, w = mha.init_input(cfg), mha.init_weights(cfg)
    hidden = hidden_by_rule(n, window, sinks)
    scaled, probs, heads = reference(x, w, hidden)
    mask = chart(at, f"lab_{variant}_mask")
    drawn_m, drawn_a, drawn_s = (z(tr) for tr in mask["data"] if tr["type"] == "heatmap")
    np.testing.assert_array_equal(np.isnan(drawn_m), hidden)  # the mask's grey gaps: the band (and the sinks)
    np.testing.assert_array_equal(np.isnan(drawn_a), hidden)
    np.testing.assert_allclose(drawn_a[~hidden], scaled[0][~hidden], rtol=1e-12)
    np.testing.assert_allclose(np.nan_to_num(drawn_s), probs[0], atol=1e-12)
    assert not at.error
    to_part(at, "click")
    np.testing.assert_allclose(heat(chart(at, f"lab_{variant}_h"), "H"), heads[0], atol=1e-12)
    to_part(at, "check")
    rows = table(at)
    assert len(rows) == n
    for token, (_, held, length, _, ok) in enumerate(rows):
        assert [int(p) for p in re.split("[,、] *", held)] == held_by_rule(token, window, sinks)  # zh: 、
        assert int(length) <= sinks + window and ok == "✓"
    assert not at.error
    assert "✓ " + TABLES[lang]["lab_window_check_ok"].split("{")[0] in page_text(at)


def test_the_head_picker_shows_the_second_heads_scores():
    at = run(stage="variants", variant="window", window=2, n_tokens=6, head=2, part="change")
    cfg = mha.AttentionConfig(n_tokens=6)
    hidden = hidden_by_rule(6, 2)
    scaled, probs, heads = reference(mha.init_input(cfg), mha.init_weights(cfg), hidden)
    drawn_a = [z(tr) for tr in chart(at, "lab_window_mask")["data"]][1]
    np.testing.assert_allclose(drawn_a[~hidden], scaled[1][~hidden], rtol=1e-12)
    np.testing.assert_allclose(heat(chart(to_part(at, "click"), "lab_window_h"), "H"), heads[1], atol=1e-12)


@pytest.mark.parametrize("variant", ["window", "sinks", "alibi"])
def test_each_part_draws_the_knobs_it_reads_and_the_head_control_where_it_shows_one_head(variant):
    knobs = dict(window=["window"], sinks=["window", "sinks"], alibi=[])[variant]
    one_head = dict(window={"change", "click"}, sinks={"change", "click"}, alibi={"click"})[variant]
    at = run(stage="variants", variant=variant, n_heads=4, n_tokens=6)
    for part in S.LAB_PARTS:
        to_part(at, part)
        main = at.main
        assert [n.key for n in main.number_input if n.key in S.KNOB_RANGE] == knobs, part
        assert ("head" in [b.key for b in main.button_group]) == (part in one_head), part


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_posts_three_tokens_hide_nothing_under_sinks_and_the_page_offers_more(lang):
    at = run(stage="variants", variant="sinks", lang=lang, part="change")  # n = 3, W = 2, s = 1: the defaults
    t = TABLES[lang]
    assert t["lab_window_none_sinks"].format(n=3, w=2, s=1, need=4) in [i.value for i in at.info]
    assert not np.isnan(z(chart(at, "lab_sinks_mask")["data"][0])[np.tril(np.ones((3, 3), bool))]).any()
    at.button(key="lab_window_more").click()
    rerun(at)
    n = at.session_state["n_tokens"]
    assert n == 6  # two past what is kept (5), moved past d_model = 5
    assert t["lab_window_hidden"].format(hidden=hidden_by_rule(6, 2, 1)[np.tril_indices(6)].sum(), kept=21, n=6) \
        in page_text(at)
    assert [len(held_by_rule(k, 2, 1)) for k in range(6)] == [int(r[2]) for r in table(to_part(at, "check"))]


def test_the_window_sends_the_learner_to_the_kv_cache_stage_with_its_variant():
    at = run(stage="variants", variant="window", window=3, lang="zh", part="check")
    at.button(key="lab_window_to_kv").click()
    rerun(at)
    assert at.session_state["stage"] == "kv_cache" and at.session_state["kv_variant"] == "window"


def test_a_window_as_wide_as_the_longest_x_says_no_x_can_hide_a_key():
    at = run(stage="variants", variant="sinks", window=S.LIMITS["n_tokens"], sinks=1, part="change")
    assert EN["lab_window_too_wide"].format(most=S.LIMITS["n_tokens"]) in page_text(at)
    assert "lab_window_more" not in [b.key for b in at.button]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_window_and_sinks_from_a_link_are_checked_and_clamped(lang):
    at = run(stage="variants", variant="sinks", lang=lang, n_tokens=6, window="0", sinks="-2", part="check")
    said = " ".join(warnings(at))
    assert "window" in said and "sinks" in said  # each named, in the page's language
    assert (at.session_state["window"], at.session_state["sinks"]) == (1, 0)
    assert [int(r[2]) for r in table(at)] == [1] * 6  # W = 1, no sinks: the cache holds one token
    at = run(stage="variants", variant="window", lang=lang, window="abc")
    assert any("abc" in w for w in warnings(at))
    assert at.session_state["window"] == S.DEFAULTS["window"]
    at = run(stage="variants", variant="window", lang=lang, window="1e309", n_tokens=4)
    assert at.session_state["window"] in (S.DEFAULTS["window"], S.LIMITS["n_tokens"]) and not at.exception


def test_the_link_carries_the_window_and_sinks_and_rebuilds_the_page():
    at = run(stage="variants", variant="sinks", window=3, sinks=2, n_tokens=8, lang="zh", part="check")
    link = dict(at.query_params)
    assert (link["variant"], link["window"], link["sinks"], link["part"]) == ("sinks", "3", "2", "check")
    fresh = run(**link)
    assert table(fresh) == table(at)
    at.session_state["window"] = 4
    rerun(at)
    assert at.query_params["window"] == "4"


# ---------------------------------------------------------------- ALiBi


def alibi_bias(n: int, slopes: list[float]) -> np.ndarray:
    return np.array([[[-m * (i - j) for j in range(n)] for i in range(n)] for m in slopes])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("heads", "n"), [(2, 3), (3, 4), (4, 6)])
def test_alibi_draws_each_heads_bias_with_the_papers_slopes_and_the_scores_with_it(lang, heads, n):
    at = run(stage="variants", variant="alibi", lang=lang, n_heads=heads, n_tokens=n, part="change")
    cfg = mha.AttentionConfig(n_tokens=n, n_heads=heads)
    hidden = hidden_by_rule(n, n)
    bias = alibi_bias(n, paper_slopes(heads))
    drawn = [z(tr) for tr in chart(at, "lab_alibi_bias")["data"] if tr["type"] == "heatmap"]
    assert len(drawn) == heads
    for head in range(heads):
        assert np.array_equal(np.isnan(drawn[head]), hidden)
        np.testing.assert_allclose(drawn[head][~hidden], bias[head][~hidden], rtol=1e-12, atol=1e-15)
    scaled, probs, out = reference(mha.init_input(cfg), mha.init_weights(cfg), hidden, bias)
    to_part(at, "click", "scores")
    a, s = (z(tr) for tr in chart(at, "lab_alibi_scores")["data"] if tr["type"] == "heatmap")
    np.testing.assert_allclose(a[~hidden], scaled[0][~hidden], rtol=1e-12)
    named = [tr["name"] for tr in chart(at, "lab_alibi_scores")["data"] if tr["type"] == "heatmap"][0]
    assert named.endswith("+ B<sub>1</sub>"), named  # head 1's bias, lowered (planted 2026-12-07: raised, B¹)
    np.testing.assert_allclose(np.nan_to_num(s), probs[0], atol=1e-12)
    to_part(at, "click", "h")
    np.testing.assert_allclose(heat(chart(at, "lab_alibi_h"), "H"), out[0], atol=1e-12)
    text = page_text(to_part(at, "check"))
    for m in paper_slopes(heads):
        assert f"2^{{-{-np.log2(m):.4g}}} = {m:.4g}" in text  # the slopes table
    check = TABLES[lang]["lab_alibi_check_ok"].format(cells=heads * n * (n + 1) // 2, diff="|").split("|")[0]
    assert "✓ " + check in page_text(at) and not at.error


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_clicked_alibi_score_is_written_as_the_dot_product_minus_the_slope_times_the_distance(lang):
    at = run(stage="variants", variant="alibi", lang=lang, head=2, part="click")
    cfg = POST
    x, w = mha.init_input(cfg), mha.init_weights(cfg)
    at.session_state["sel_lab_alibi_scores"] = (2, 0)
    rerun(at)
    q, k = x[2] @ w.w_q[1], x[0] @ w.w_k[1]
    dot, m = float(q @ k), 2 ** -8
    expected = dot / np.sqrt(7) - m * 2
    said = next(e.value for e in at.markdown if "m_{2}(3-1)" in e.value)
    assert rf"= \frac{{{tex_num(dot)}}}{{\sqrt{{7}}}} - {tex_num(m)}\cdot 2" in said
    assert rf"- {tex_num(2 * m)} = {tex_num(expected)}" in said
    assert "✓" in said
    assert TABLES[lang]["lab_alibi_cell"].format(i=3, j=1, h=2).split("$")[0] in said
    at.session_state["sel_lab_alibi_scores"] = (0, 2)  # a later key: hidden, whatever its bias
    rerun(at)
    assert TABLES[lang]["lab_alibi_future"].format(i=1, j=3) in page_text(at)


def test_alibi_on_a_text_runs_on_the_embeddings_without_their_positions():
    text = "to be or not to be"
    at = run(stage="variants", variant="alibi", text=text, part="click")
    tokens = mha.tokenize(text)
    cfg = mha.AttentionConfig(n_tokens=len(tokens))
    vocab = mha.vocabulary(tokens)
    ids = np.array([vocab.index(tok) for tok in tokens])
    w = mha.init_weights(cfg)
    mw = mha.init_model(cfg, vocab, 1, "sinusoidal", S.LIMITS["n_tokens"] + 1, (mha.init_block(cfg, 0, attn=w),))
    n = len(tokens)
    hidden = hidden_by_rule(n, n)
    scaled, _, _ = reference(mw.wte[ids], w, hidden, alibi_bias(n, paper_slopes(2)))
    a = z(chart(at, "lab_alibi_scores")["data"][0])
    np.testing.assert_allclose(a[~hidden], scaled[0][~hidden], rtol=1e-10)
    assert EN["lab_alibi_x_text"] in page_text(to_part(at, "change"))


# ---------------------------------------------------------------- every figure drawable


VIEWS = {"post": {}, "present-zh": dict(present=1, lang="zh"), "text": dict(text=f"the cat sat on the {'a' * 40} mat"),
         "long": dict(n_tokens=40, window=5, sinks=2, n_heads=4)}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("variant", ["window", "sinks", "alibi"])
def test_every_figure_of_window_sinks_and_alibi_is_one_the_page_draws_whole(variant, view):
    expected = {"change": [f"lab_{variant}_bias" if variant == "alibi" else f"lab_{variant}_mask"],
                "click/scores": ["lab_alibi_scores"], "click/h": [f"lab_{variant}_h"], "check": []}
    at = run(stage="variants", variant=variant, **VIEWS[view])
    for phone in (False, True):
        at.session_state["screen_phone"] = phone
        for shown, page in screens(at):
            assert assert_drawn_whole(page) == len(expected[shown])
            assert [key for key, _ in keyed_charts(page)] == expected[shown], shown


def test_a_clicked_alibi_score_and_a_quiz_leave_figures_the_page_draws_whole():
    at = run(stage="variants", variant="alibi", part="click")
    at.session_state["sel_lab_alibi_scores"] = (1, 0)
    assert assert_drawn_whole(rerun(at)) == 1
    rule = chart(at, "lab_alibi_scores")["layout"]["meta"]["outline"]
    assert rule["cells"] == [3, 3] and len(rule["boxes"]) == 2  # a click outlines the score and its S
    to_part(at, "click", "h").button(key="quiz_start_lab_alibi_h").click()
    assert assert_drawn_whole(rerun(at)) and "lab_alibi_h" in dict(keyed_charts(at))  # the product's rerun
