"""The block stage in both orders: post-LN (the original GPT, the post's figure, where the seeded walk opens) and
pre-LN (GPT-2, and the trained model). Every number is computed again from mha's core; the words come from the
page."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import mha
from mha.block import EPS
from mha.ui.strings import Text

from .helpers import APP, block_parts, charts, keyed_charts, page_text, rerun, run, warnings, z
from .test_coda import TEXT, model
from .test_output_numbers import cell_numbers


def _trace(at, name: str) -> dict:
    """The heatmap named `name` among the page's charts (or among a list of chart specs)."""
    specs = at if isinstance(at, list) else charts(at)
    return next(tr for spec in specs for tr in spec["data"] if tr.get("name") == name and "z" in tr)


def _dot(at) -> str:
    (dot,) = [g.proto.spec for g in at.get("graphviz_chart")]
    return dot


def _chain(dot: str) -> list[str]:
    """The diagram's solid path, node by node: the order the block computes in."""
    return re.search(r"(x(?: -> \w+)+);", dot)[1].split(" -> ")


def _control(at, key: str):
    found = [g for g in at.get("button_group") if g.proto.id.endswith(key)]
    return found[0] if found else None


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("text", [None, TEXT])
def test_the_seeded_block_opens_on_post_ln_and_shows_mha_block_post(lang, text):
    at = run(stage="block", lang=lang, **({"text": text} if text else {}))
    cfg = model(text)[5] if text else mha.AttentionConfig()
    x = model(text)[4] if text else mha.init_input(cfg)
    bw = mha.init_block(cfg, 0)
    post = mha.block(x, bw, ln="post")
    attn_y = mha.forward(x, mha.init_weights(cfg)).y  # the walk's Y: post-LN's attention reads X itself
    assert at.session_state["block_ln"] == "post" and "ln" not in at.query_params
    shown = {part: charts(p) for part, p in block_parts(at)}  # one AppTest: read each part while on screen
    checks = {"attn": [("X", x), ("Attn", attn_y), ("X + Attn", x + attn_y), ("R₁ = LN₁(X + Attn)", post.r1)],
              "ln1": [("X + Attn", x + attn_y), ("R₁ = LN₁(X + Attn)", post.r1)],
              "ffn": [("H", post.hidden), ("b<sub>fc</sub>", bw.b_fc[None])],
              "out": [("R₁", post.r1), ("R₁ + FFN", post.r1 + post.ffn), ("γ₂", bw.ln2_g[None]),
                      ("β₂", bw.ln2_b[None]), ("Y = LN₂(R₁ + FFN)", post.y), ("A", post.act),
                      ("W<sub>proj</sub>", bw.w_proj), ("b<sub>proj</sub>", bw.b_proj[None])]}
    for part, pairs in checks.items():
        for name, want in pairs:
            np.testing.assert_allclose(z(_trace(shown[part], name)), want, atol=1e-9, err_msg=f"{part} {name}")
    np.testing.assert_allclose(post.y, mha.layer_norm(post.r1 + post.ffn, bw.ln2_g, bw.ln2_b), atol=1e-12)
    if text:  # the attention's matrices name their rows by the tokens, as token_ticks does (inner panels where
        layout = shown["attn"][0]["layout"]  # the words fit)
        named = [layout[a].get("ticktext") for a in ("yaxis", "yaxis2", "yaxis3", "yaxis4")]
        assert named[0] == mha.tokenize(text) and all(n in (None, mha.tokenize(text)) for n in named)


@pytest.mark.parametrize("ln, input_name", [("post", "X + Attn"), ("pre", "X")])
def test_ln1_shows_the_normalised_rows_with_mean_0_and_variance_1(ln, input_name):
    """x̂ = (z − μ)/√(σ² + ε) of LN₁'s input z, each row's mean and variance beside it, before γ and β."""
    at = run(stage="block", ln=ln, part="ln1")
    cfg = mha.AttentionConfig()
    x, bw = mha.init_input(cfg), mha.init_block(cfg)
    z_in = x if ln == "pre" else x + mha.forward(x, bw.attn).y
    mu = z_in.sum(axis=1, keepdims=True) / z_in.shape[1]
    var = ((z_in - mu) ** 2).sum(axis=1, keepdims=True) / z_in.shape[1]
    hat = (z_in - mu) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(z(_trace(at, input_name)), z_in, atol=1e-9)
    np.testing.assert_allclose(z(_trace(at, "x̂")), hat, atol=1e-9)
    np.testing.assert_allclose(z(_trace(at, "μ(x̂)")), 0, atol=1e-12)
    np.testing.assert_allclose(z(_trace(at, "σ²(x̂)")), var / (var + 1e-5), atol=1e-9)
    assert np.all(np.abs(z(_trace(at, "σ²(x̂)")) - 1) < 1e-3)  # 1 at the precision a cell shows
    out = "LN₁(X)" if ln == "pre" else "R₁ = LN₁(X + Attn)"
    np.testing.assert_allclose(z(_trace(at, out)), hat * bw.ln1_g + bw.ln1_b, atol=1e-9)


ORDERED = {"post": (["x", "attn", "add1", "ln1", "ffn", "add2", "ln2", "y"],
                    dict(attn=["attn", "add1"], ln1=["ln1"], ffn=["ffn"], gelu=["ffn"], out=["ln2", "ffn", "add2"])),
           "pre": (["x", "ln1", "attn", "add1", "ln2", "ffn", "add2", "y"],
                   dict(ln1=["ln1"], attn=["attn", "add1"], ffn=["ln2", "ffn"], gelu=["ffn"], out=["ffn", "add2"]))}
FORMULAS = {"post": (r"R_1 = \mathrm{LN}_1(X + \mathrm{Attn})", r"Y = \mathrm{LN}_2(R_1 + \mathrm{FFN})"),
            "pre": (r"R_1 = X + \mathrm{Attn}", r"Y = R_1 + \mathrm{FFN}")}
WORDS = {"en": dict(post="original GPT", pre="GPT-2", why="Why pre-LN trains more easily"),
         "zh": dict(post="最初的 GPT", pre="GPT-2", why="前置为什么更容易训练")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("ln", ["post", "pre"])
def test_the_diagram_parts_and_formulas_follow_the_order(lang, ln):
    t = Text(lang)
    chain, marked = ORDERED[ln]
    other = "pre" if ln == "post" else "post"
    words = page_text(run(stage="block", lang=lang, ln=ln))
    assert t(f"block_order_{ln}") in words and WORDS[lang][ln] in words and WORDS[lang]["why"] in words
    assert t(f"block_order_{other}") not in words
    outlined, texts, order = {}, [], None
    for part, at in block_parts(run(stage="block", lang=lang, ln=ln)):
        dot = _dot(at)
        assert _chain(dot) == chain
        outlined[part] = sorted(re.findall(r"(\w+) \[label=\"[^\"]+\"[^\]]*penwidth=3", dot))
        order = [o.content for o in _control(at, "block_part").proto.options]
        texts.append(page_text(at))
    assert outlined == {p: sorted(nodes) for p, nodes in marked.items()}
    assert [label.split(" · ")[0] for label in order] == ["1", "2", "3", "4", "5"]
    assert order[0].endswith(t("block_part_attn" if ln == "post" else "block_part_ln1"))  # the order's first part
    shown = " ".join(texts)
    assert all(f in shown for f in FORMULAS[ln]) and not any(f in shown for f in FORMULAS[other]), ln


def test_ln_travels_in_the_link_and_a_link_brings_it_back():
    at = run(stage="block", lang="zh")
    assert at.session_state["block_part"] == "attn" and "part" not in at.query_params  # post's first part
    at.session_state["block_ln"] = "pre"  # the control, as a click sets it
    rerun(at)
    link = dict(at.query_params)
    assert link["ln"] == "pre" and link["part"] == "attn"  # pre-LN's first part is LN₁: attention is named
    fresh = run(**link)
    assert fresh.session_state["block_ln"] == "pre" and dict(fresh.query_params) == link
    assert page_text(fresh) == page_text(at) and _dot(fresh) == _dot(at)
    at.session_state["block_ln"] = "post"  # the default: the link leaves it out
    assert "ln" not in rerun(at).query_params
    at.session_state["block_ln"] = "pre"
    at.session_state["stage"] = "scores"  # another stage's link has no ln, and the session keeps it for the block
    assert "ln" not in rerun(at).query_params
    at.session_state["stage"] = "block"
    assert rerun(at).query_params["ln"] == "pre"


@pytest.mark.parametrize("lang, words", [("en", "is not one of the known values"), ("zh", "已改用默认值")])
def test_an_unknown_ln_in_a_link_opens_post_ln_with_a_notice(lang, words):
    at = run(stage="block", ln="gpt2", lang=lang)
    assert any("ln=gpt2" in w and words in w for w in warnings(at))
    assert at.session_state["block_ln"] == "post" and _chain(_dot(at)) == ORDERED["post"][0]
    assert "ln" not in at.query_params


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("ln", [None, "post"])
def test_the_trained_model_is_pre_ln_and_says_it_cannot_switch(lang, ln):
    at = run(stage="block", model="trained", lang=lang, **({"ln": ln} if ln else {}))
    t = Text(lang)
    assert t("block_trained_pre") in page_text(at) and t("block_order_pre") in page_text(at)
    assert _control(at, "block_ln") is None  # no order to choose
    assert _chain(_dot(at)) == ORDERED["pre"][0] and "ln" not in at.query_params
    assert at.session_state["block_part"] == "ln1"
    trained = mha.load_trained()
    ids = [trained.vocab.index(c) for c in at.query_params["text"].split()]
    layer = mha.model_forward(ids, trained.weights).layers[0]
    np.testing.assert_allclose(z(_trace(at, "LN₁(X)")), layer.ln1, atol=1e-9)
    assert layer.ln == "pre"
    at.session_state["block_part"] = "attn"
    rerun(at)  # Attn is the walk's Y: with the trained model the walk's X is already LN₁ of the stream
    np.testing.assert_allclose(z(_trace(at, "Attn")), layer.attn.y, atol=1e-9)
    np.testing.assert_allclose(at.session_state["x_base"], layer.ln1, atol=1e-12)
    assert t("block_attn_is_y_trained", qk=3, output=7) in page_text(at)



SCREEN_W = {"desk": 860, "present": 1100, "phone": 358}  # px a figure may take: the content's width


def _on(screen: str, ln: str):
    """The seeded block in this order on a desk, a projector (present=1) or a phone (what the page's screen probe
    reports there, from the first run)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["stage"], at.query_params["ln"] = "block", ln
    if screen == "present":
        at.query_params["present"] = "1"
    at.session_state["screen_phone"] = screen == "phone"
    return rerun(at)


@pytest.mark.parametrize("ln", ["post", "pre"])
@pytest.mark.parametrize("screen", ["desk", "present", "phone"])
def test_every_matrix_of_the_block_writes_its_numbers_on_every_screen(screen, ln):
    """LN₁ (a learner checks that each row of x̂ has mean 0 and variance 1), the attention and the block's output
    write every cell's number, read back equal to the matrix computed again (a phone may write Hᵀ, Aᵀ), in figures
    that fit the screen's width; on a projector and a phone they once wrote none."""
    cfg = mha.AttentionConfig()
    tr = mha.block(mha.init_input(cfg), mha.init_block(cfg, 0), ln=ln)
    x = tr.x if ln == "pre" else tr.ln1_in
    hat = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + EPS)
    want = {"x̂": hat, "σ²(x̂)": hat.var(axis=1, keepdims=True), "H": tr.hidden, "A": tr.act, "Hᵀ": tr.hidden.T,
            "A<sup>T</sup>": tr.act.T,
            "FFN": tr.ffn, "R₁": tr.r1, "R₁ = X + Attn": tr.r1, "R₁ = LN₁(X + Attn)": tr.r1, "Attn": tr.attn.y,
            "Y = R₁ + FFN": tr.y, "Y = LN₂(R₁ + FFN)": tr.y}
    at, seen = _on(screen, ln), set()
    # every part's figures but the FFN's product R₁·W_fc, 5 × 13 beside 3 × 13, colour only on a phone
    for part in ("ln1", "attn", "ffn", "gelu", "out"):
        at.session_state["block_part"] = part
        for key, spec in keyed_charts(rerun(at)):
            if key in ("block_fc", "block_gelu"):  # the curve has no cells
                continue
            assert spec["layout"]["width"] <= SCREEN_W[screen], (part, key)
            for trace in (tr_ for tr_ in spec["data"] if "z" in tr_):
                shown = cell_numbers(trace)
                assert shown.shape == np.shape(trace["z"]) and np.isfinite(shown).all(), (part, trace["name"])
                if trace["name"] in want:
                    seen.add(trace["name"])
                    np.testing.assert_allclose(shown, want[trace["name"]], atol=0.0051, rtol=0, err_msg=trace["name"])
    assert {"x̂", "σ²(x̂)", "FFN", "Attn"} <= seen  # a phone writes H and A transposed: d_ff columns would not fit
    assert ({"Hᵀ", "A<sup>T</sup>"} if screen == "phone" else {"H", "A"}) <= seen


@pytest.mark.parametrize("ln", ["post", "pre"])
def test_part_five_writes_its_numbers_at_larger_sizes_two_a_row_where_four_would_not(ln):
    """At d_model 8 four 8-column panels a row left 24 px cells, colour only (seen 2026-12-07); two a row write
    every panel's numbers, read back equal to the block's."""
    at = run(stage="block", part="out", ln=ln, n_tokens=6, d_model=8, d_k=6, d_v=10, n_heads=4, d_ff=17)
    cfg = mha.AttentionConfig(n_tokens=6, d_model=8, d_k=6, d_v=10, n_heads=4, d_ff=17)
    tr = mha.block(mha.init_input(cfg), mha.init_block(cfg, 0), ln=ln)
    spec = dict(keyed_charts(at))["block_stream"]
    panels = {t["name"]: t for t in spec["data"] if "z" in t}
    assert all(t.get("texttemplate") == "%{text}" for t in panels.values()), list(panels)
    np.testing.assert_allclose(cell_numbers(panels["FFN"]), tr.ffn, atol=0.0051, rtol=0)
