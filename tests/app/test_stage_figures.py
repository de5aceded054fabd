"""The stages' static figures, as the app builds them, against the trace computed here.

The heads stage: panel i of S is head i's S, masked cells (−∞ in the masked scores) are gaps and only
they; Concat's block names sit under their blocks. The output stage: Y is the product's third panel.
The dependency nudge: for j = 2 and j = n, ΔY is the change that moving token j (and no other) makes,
rows before j exactly 0 and row j not, and the page names token j.
"""


import re

import numpy as np
import pytest

import mha
from mha.ui.strings import EN, ZH
from mha.ui.view import subscript

from .helpers import keyed_charts, rerun, run, z

RESIZED = dict(n_tokens=5, d_model=6, d_k=13, d_v=17, n_heads=3)


def chart(at, key: str) -> dict:
    return next(spec for k, spec in keyed_charts(at) if k == key)


def config(**params) -> mha.AttentionConfig:
    return mha.AttentionConfig(**{k: params.get(k, v) for k, v in
                                  dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2).items()})


def trace(cfg: mha.AttentionConfig):
    x, w = mha.init_input(cfg), mha.init_weights(cfg)
    return x, w, mha.forward(x, w)


def panel_titles(spec: dict) -> list[str]:
    return [a["text"] for a in spec["layout"]["annotations"] if a["text"].startswith("<b>")]


@pytest.mark.parametrize("params", [{}, RESIZED], ids=["post", "resized"])
def test_each_s_panel_of_the_heads_stage_is_that_heads_s(params):
    at = run(stage="heads", **params)
    _, _, tr = trace(config(**params))
    spec = chart(at, "heads_s")
    heatmaps = [t for t in spec["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == tr.probs.shape[0]
    titles = panel_titles(spec)
    for h, trace_ in enumerate(heatmaps):
        drawn = z(trace_)
        masked = np.isneginf(tr.masked[h])
        assert np.all(np.isnan(drawn[masked])) and not np.any(np.isnan(drawn[~masked]))
        np.testing.assert_allclose(drawn[~masked], tr.probs[h][~masked], atol=1e-12, rtol=0)
        n = tr.probs.shape[1]
        assert titles[h].startswith(f"<b>S<sub>{h + 1}</sub></b> · {n}×{n}")


def test_a_models_heads_are_named_by_layer_and_concats_rows_by_token_as_s_rows_are():
    """Audit 2026-12-07 #12: with the trained model the patterns were titled S₁, S₂ while the knock-out table and the
    other parts say 1.1 and 1.2, and Concat's rows were numbered while S's carried the letters. The layer shown is
    the walk's (here 2), the ticks the sequence's letters, on the patterns and on the training part."""
    at = run(stage="heads", model="trained", text="C F A H B C F A H B", layer=2)
    letters = list("CFAHBCFAHB")
    s = chart(at, "heads_s")
    assert [t.split("</b>")[0] for t in panel_titles(s)] == ["<b>S<sub>2.1</sub>", "<b>S<sub>2.2</sub>"]
    for axis in ("xaxis", "yaxis", "xaxis2", "yaxis2"):  # queries and keys alike (planted p15: the keys numbered)
        assert s["layout"][axis]["ticktext"] == letters, axis
    concat = chart(at, "heads_concat")
    assert concat["layout"]["yaxis"]["ticktext"] == letters == s["layout"]["yaxis"]["ticktext"]
    at.session_state["heads_part"] = "timeline"
    timeline = chart(rerun(at), "timeline_s")
    assert [t.split("</b>")[0] for t in panel_titles(timeline)] == ["<b>S<sub>2.1</sub>", "<b>S<sub>2.2</sub>"]


def test_concat_block_names_sit_under_their_blocks_on_the_heads_stage():
    at = run(stage="heads", **RESIZED)
    spec = chart(at, "heads_concat")
    cols = z(spec["data"][0]).shape[1]
    lo, hi = spec["layout"]["xaxis"]["domain"]
    d_v = RESIZED["d_v"]
    assert cols == 34  # 51 columns: two whole heads of 17 fit the 48 drawn, the title names head 3 as not drawn
    assert EN["block_hidden"].format(first=3) in panel_titles(spec)[0].replace("<br>", " ")
    for h in range(2):
        label = next(a for a in spec["layout"]["annotations"] if a["text"] == EN["head_word"].format(h=h + 1))
        centre = lo + (h * d_v + (d_v + 1) / 2 - 0.5) / cols * (hi - lo)
        assert abs(label["x"] - centre) < 0.5 / cols * (hi - lo)


def test_a_trimmed_concat_names_the_heads_it_leaves_out_in_either_language():
    """Read as one line whatever the title's width breaks it into (a Chinese title breaks between characters: the
    words are compared without their spaces and breaks)."""
    flat = lambda text: re.sub(r"<br>|\s", "", text)  # noqa: E731
    for lang, table in (("en", EN), ("zh", ZH)):
        at = run(stage="heads", lang=lang, n_tokens=64, d_model=256, n_heads=8)
        title = flat(panel_titles(chart(at, "heads_concat"))[0])
        assert "64×88" in title
        assert flat(table["trim_both"].format(rows=48, cols=44)) in title
        assert flat(table["blocks_hidden"].format(first=5, last=8)) in title
        s_title = flat(panel_titles(chart(at, "heads_s"))[0])
        assert "64×64" in s_title and flat(table["trim_both"].format(rows=48, cols=48)) in s_title


def test_the_output_product_draws_concat_w_o_and_y():
    at = run(stage="output")
    _, w, tr = trace(config())
    spec = chart(at, "output_y")
    np.testing.assert_allclose(z(spec["data"][0]), tr.concat, atol=1e-12, rtol=0)
    np.testing.assert_allclose(z(spec["data"][1]), w.w_o, atol=1e-12, rtol=0)
    np.testing.assert_allclose(z(spec["data"][2]), tr.y, atol=1e-12, rtol=0)
    shapes = {t.split("</b>")[0][3:]: t.split(" · ")[1] for t in panel_titles(spec)}
    assert shapes == {"Concat": "3×22", "W<sub>O</sub>": "22×5", "Y": "3×5"}


def _nudge(at, j: int, eps: float = 0.5):
    at.number_input(key="nudge_j").set_value(j)
    at.number_input(key="nudge_eps").set_value(eps)
    return rerun(at)


@pytest.mark.parametrize("params", [{}, RESIZED], ids=["post", "resized"])
def test_the_nudge_moves_token_j_and_only_rows_j_on_of_y(params):
    at = run(stage="dependency", **params)
    cfg = config(**params)
    x, w, tr = trace(cfg)
    n = cfg.n_tokens
    for j in (2, n):
        _nudge(at, j)
        delta = z(chart(at, "dependency_nudge")["data"][0])
        moved = x.copy()
        moved[j - 1] += 0.5  # token j, 1-based: an independent recomputation of the nudge
        np.testing.assert_allclose(delta, mha.forward(moved, w).y - tr.y, atol=1e-12, rtol=0)
        assert np.all(delta[: j - 1] == 0.0)  # rows before j: exactly unchanged
        assert np.abs(delta[j - 1]).max() > 1e-6  # row j moves
        named = [m.value for m in at.markdown if "ΔY" in m.value]
        assert named and f"X{subscript(j)}" in named[0] and "0.5" in named[0]  # the page names token j


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_concat_heading_names_the_heads_there_are(lang):
    """Audit 2026-12-04 #12: the heading read Concat(H₁,…,H_h) with two heads. It names H₁, H₂ at two heads, and
    the first and last head with an ellipsis from three on, as Concat's own panel title does."""
    for h, heads in ((2, "H_{1}, H_{2}"), (1, "H_{1}"), (4, r"H_{1},\dots,H_{4}")):
        at = run(stage="heads", n_heads=h, lang=lang)
        heading = next(m.value for m in at.markdown if r"\operatorname{Concat}" in m.value and m.value.startswith("**"))
        assert rf"\operatorname{{Concat}}({heads})" in heading and "H_h" not in heading, heading
