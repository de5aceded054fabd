"""The KV-cache stage with a variant (issue 34): for each, tokens added on the page decode through that variant's
cache, and what the page shows (the cache's state, the animation's panels and row names, the proof) equals a loop
reference written from the contract (tests/core/reference.py), not the core's cache."""

import json
import re

import numpy as np
import pytest

import mha
from mha.ui import prepared
from mha.ui.strings import Text
from tests.core import reference as ref
from tests.figures.test_cache_figure import _frame_traces, _letter, _title_shape, drawn, panels

from .helpers import chart_text, charts, keyed_charts, page_text, rerun, run
from .kv_frames import SCORES, STEPPED, expected_panels, frame_z
from .test_stage_downloads import _arrays, downloaded

H, HEAD = 4, 3  # four heads, the third shown: with 2 KV heads it reads KV head 2, with heads 3 and 4 (group 2)
D_K, D_V = 7, 11
SIZES = dict(n_heads=H, head=HEAD)
# variant -> what it changes, as the reference takes it (the knobs at their defaults: kv_heads 2, W 2, s 1,
# rotary_dims 6, d_latent 4)
CHANGE = dict(
    mha=dict(),
    gqa=dict(n_kv_heads=2),
    mqa=dict(n_kv_heads=1),
    window=dict(window=2),
    sinks=dict(window=2, sinks=1),
    alibi=dict(alibi=True),
    rope=dict(rotary_dims=6),
)
ADDED = 3
LANGS = ("en", "zh")


def _rows(t: int) -> np.ndarray:
    cfg = mha.AttentionConfig(n_heads=H)
    return np.stack([mha.next_token(cfg, i) for i in range(t)])  # X (3 rows) and the seeded tokens added


def _opened(variant: str, lang: str, added: int = ADDED, **params):
    at = run(stage="kv_cache", variant=variant, lang=lang, **SIZES, **params)
    for _ in range(added):
        at.button(key="add_token").click()
        rerun(at)
    return at


def _expected(variant: str, t: int) -> dict:
    """The reference's trace of the variant on the page's t rows (lists -> arrays)."""
    change = dict(n_kv_heads=0, window=0, sinks=0, alibi=False, rotary_dims=0, rope_base=10000.0) | CHANGE[variant]
    w = mha.share_kv(mha.init_weights(mha.AttentionConfig(n_heads=H)), change["n_kv_heads"] or H)
    tr = ref.variant_trace(_rows(t).tolist(), w.w_q.tolist(), w.w_k.tolist(), w.w_v.tolist(), w.w_o.tolist(),
                           **change)
    return {k: np.array(v) for k, v in tr.items()} | change


def _held(t: int, window: int, sinks: int) -> list[int]:
    """The positions a cache holds after t tokens: every one, or the sinks and the last `window`."""
    return [p for p in range(t) if not window or p < sinks or p > t - 1 - window]


def _animation(at) -> tuple[dict, list, list]:
    """The animation's spec, its last frame's traces and its panels' axes in their order: Q, K, V, S, H, Y."""
    spec = next(c for c in charts(at) if c.get("frames"))
    return spec, _frame_traces(spec, len(spec["frames"]) - 1), list(panels(spec).values())


def _matrix(cells: dict, rows: int) -> np.ndarray:
    cols = max(c for _, c in cells)
    out = np.full((rows, cols), np.nan)
    for (r, c), (value, _) in cells.items():
        out[r - 1, c - 1] = value
    return out


def _proof(at) -> list[list[str]]:
    """The rows of the proof's table, as cells."""
    lines = next(m.value for m in at.markdown if "Δ" in m.value).split("\n")
    rows = [line.strip("|").split(" | ") for line in lines if line.startswith("|")][2:]
    return [[cell.strip() for cell in row] for row in rows]


def _captions(at) -> str:
    """Every frame's words (the caption of each step of the animation), without the spaces and line breaks that
    wrap them: compare with _bare(words)."""
    spec = _animation(at)[0]
    return _bare(" ".join(a["text"] for f in spec["frames"] for a in f["layout"]["annotations"]))


def _bare(text: str) -> str:
    return re.sub(r"\s|<br>", "", text)


def _row_names(spec: dict) -> list[str]:
    """What the K cache's rows are called: their tick texts, or their numbers."""
    axis = spec["layout"][list(panels(spec).values())[1][1].replace("y", "yaxis")]
    return axis.get("ticktext") or [str(v) for v in axis["tickvals"]]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant", list(CHANGE))
def test_each_variants_cache_shows_the_references_numbers(variant, lang):
    at = _opened(variant, lang)
    t = 3 + ADDED
    e = _expected(variant, t)
    kv = e["n_kv_heads"] or H
    g = (HEAD - 1) // (H // kv)  # the KV head the shown head reads
    held = _held(t, e["window"], e["sinks"])
    spec, last, (q, k, v, s, h, y) = _animation(at)
    rows = len(held)
    np.testing.assert_allclose(_matrix(drawn(last, k), rows), e["k_rot"][g][held], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, v), rows), e["v"][g][held], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, q), rows)[-1], e["q_rot"][HEAD - 1][-1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, s), rows)[-1], e["probs"][HEAD - 1][-1][held], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, h), rows)[-1], e["heads"][HEAD - 1][-1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, y), rows)[-1], e["y"][-1], atol=1e-12, rtol=0)
    text = chart_text(at)
    assert re.search(f"K<sub>{g + 1 if kv < H else HEAD}</sub>[)）]</b> · {rows}×{D_K}", text)  # the KV head read
    assert Text(lang)("kv_bytes", n=f"{rows * kv * (D_K + D_V) * 8:,}") in page_text(at)  # what the cache holds
    assert _row_names(spec) == [str(p + 1) for p in held]  # rows named by the positions held
    # Q, S, H and Y keep every token's row (a window limits what the new query reads), the caches hold the window's;
    # a title whose rows are a window's says which (audit 2026-12-07 #8: "Y · 2×5" as if Y had lost its rows)
    titles = {_letter(title): title for title in panels(spec)}
    assert {x: _title_shape(titles[x])[0] for x in "QKVSHY"} == dict(Q=t, K=rows, V=rows, S=t, H=t, Y=t), titles
    said = {"window": {"en": "(rows 5–6)", "zh": "（第 5–6 行）"},
            "sinks": {"en": "(rows 1, 5–6)", "zh": "（第 1、5–6 行）"}}.get(variant, {}).get(lang)
    for x in "QSHY":
        assert (said in titles[x]) if said else ("(" not in titles[x].split("</b>")[1]), titles
    assert _bare(Text(lang)("kv_output", n=t, t="₆", s=f"S{_subscript(HEAD)}", h=f"H{_subscript(HEAD)}",
                            ys="Y₁…Y₅")) in _captions(at)  # every earlier row of Y unchanged, a window's too
    proof = _proof(at)
    assert proof[0][1] in ("0\u00a0—\u00a0exactly", "0——完全相同")  # rows 1..5 of Y unchanged by the new token
    assert all(float(row[1]) <= 1e-12 for row in proof[1:3])  # Y₆ and S row 6 equal the recompute
    if e["window"]:
        most = e["sinks"] + e["window"]
        assert proof[3][1] == f"{rows} ≤ {most}" and rows == most


@pytest.mark.parametrize("lang", LANGS)
def test_gqa_names_the_group_the_head_reads(lang):
    at = _opened("gqa", lang, added=0)
    said = {"en": "Head 3 reads KV head 2, which heads 3–4 share (group 2)",
            "zh": "第 3 个头读第 2 个 KV 头，第 3–4 个头共用它（第 2 组）"}[lang]
    assert said in page_text(at)
    caption = {"en": "k₃, v₃ become row 3 of group 2's caches (heads 3–4).",
               "zh": "k₃ 和 v₃ 成为第 2 组（第 3–4 个头）缓存的第 3 行。"}[lang]
    assert _bare(caption) in _captions(at)


@pytest.mark.parametrize("lang", LANGS)
def test_mla_caches_the_latent_and_decodes_to_the_naive_reference(lang):
    at = _opened("mla", lang)
    t = 3 + ADDED
    w = mha.init_weights(mha.AttentionConfig(n_heads=H))
    w_mla = mha.mla_from(w, 4)
    c, probs, heads, y_ref = (np.array(a) for a in ref.mla_attention(
        _rows(t).tolist(), w_mla.w_q.tolist(), w_mla.w_dkv.tolist(), w_mla.w_uk.tolist(), w_mla.w_uv.tolist(),
        w_mla.w_o.tolist()))
    _, last, (q, k, v, s, h, y) = _animation(at)
    np.testing.assert_allclose(_matrix(drawn(last, k), t), c, atol=1e-12, rtol=0)  # the latent, all that is cached
    np.testing.assert_allclose(_matrix(drawn(last, s), t)[-1], probs[HEAD - 1][-1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, h), t)[-1], heads[HEAD - 1][-1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(_matrix(drawn(last, y), t)[-1], y_ref[-1], atol=1e-12, rtol=0)
    assert {"en": "latent cache c</b> · 6×4", "zh": "潜向量缓存 c</b> · 6×4"}[lang] in chart_text(at)
    # the query dropped meets the latent rows: there is no K cache to meet
    said = {"en": ("meets the latent cache", "meets the K cache"),
            "zh": ("与潜向量缓存的每一行", "K 缓存里的每个键")}[lang]
    assert _bare(said[0]) in _captions(at) and _bare(said[1]) not in _captions(at)
    # and when X_t arrives the cache holds latent rows, no K or V rows (audit 2026-12-07 #2)
    arrive = {"en": ("holds the latent rows c of X₁…X₅", "holds the K and V rows"),
              "zh": ("存着 X₁…X₅ 的潜向量 c", "的 K 行和 V 行")}[lang]
    assert _bare(arrive[0]) in _captions(at) and _bare(arrive[1]) not in _captions(at)
    assert Text(lang)("kv_bytes", n=f"{t * 4 * 8:,}") in page_text(at)
    assert all(float(row[1]) <= 1e-12 for row in _proof(at)[1:3])
    # Y's earlier rows, recomputed in another order of sums: exactly equal, or said to differ by rounding only
    earlier = _proof(at)[0][1]
    rounding = Text(lang)("kv_rounding", value="")
    assert earlier == Text(lang)("kv_exact") or (earlier.endswith(rounding) and float(earlier[:-len(rounding)]) < 1e-12)
    # the latent keeps 4 of the 5 directions of [W_K | W_V] (d_model = 5): the numbers are not the walk's, and
    # the page says so; at width 5 nothing is cut, and it says nothing (audit 2026-12-07 #3)
    cut = Text(lang)("kv_state_mla_cut", l=4, r=5)
    assert cut in page_text(at)
    assert not np.allclose(_matrix(drawn(last, s), t)[-1], _expected("mha", t)["probs"][HEAD - 1][-1], atol=1e-3)
    whole = run(stage="kv_cache", variant="mla", d_latent=5, lang=lang, **SIZES)
    assert Text(lang)("kv_state_mla", t=3, d_latent=5, size=Text(lang)("kv_bytes", n="120")) in page_text(whole)
    assert "W_K \\mid W_V" not in page_text(whole)


@pytest.mark.parametrize("lang", LANGS)
def test_int8s_bytes_are_worked_out_from_its_codes_and_scales(lang):
    """204 bytes for 3 tokens cannot be read from "3×7 and 3×11" alone (float64 gives 864, the codes alone 108): the
    state says a byte a code and 8 a row's scale, for K and V (audit 2026-12-07 #4)."""
    at = run(stage="kv_cache", variant="int8", lang=lang, **SIZES)
    kv, t = H, 3  # int8 keeps every head's own K and V
    nbytes = kv * t * (D_K + D_V) + kv * t * 2 * 8
    text = page_text(at)
    assert Text(lang)("kv_bytes", n=f"{nbytes:,}") in text
    assert f"{kv}·{t}·({D_K} + {D_V} + 2·8) = {nbytes:,}" in text


@pytest.mark.parametrize("variant, window, sinks", [("window", 2, 0), ("window", 3, 0), ("sinks", 2, 1)])
def test_a_window_holds_at_most_s_plus_w_and_its_oldest_token_leaves(variant, window, sinks):
    at = run(stage="kv_cache", variant=variant, window=window, sinks=sinks, **SIZES)
    for t in range(3, 8):
        spec, _, _ = _animation(at)
        held = _held(t, window, sinks)
        assert _row_names(spec) == [str(p + 1) for p in held], t
        text = page_text(at)
        assert f"{len(held)} ≤ {sinks + window}" in text
        gone = [p for p in range(t) if p not in held]
        if gone:  # the state names the tokens that left; the step names the one this token pushed out
            assert re.search(r"X[₀-₉]+(…X[₀-₉]+)? left", text)
        if t - 1 - window >= sinks and t - 1 - window >= 0:
            x = str(t - window).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
            assert _bare(f"X{x} leaves") in _captions(at), t
        at.button(key="add_token").click()
        rerun(at)


def test_a_link_with_a_variant_its_knob_and_tokens_added_opens_the_same_cache():
    at = _opened("window", "en", added=2, window=3)
    link = dict(at.query_params)
    flat = {k: v[0] if isinstance(v, list) else v for k, v in link.items()}
    assert flat["stage"] == "kv_cache" and flat["variant"] == "window" and flat["window"] == "3" and "kv" in flat
    again = run(**flat)
    assert _animation(again)[0] == _animation(at)[0]
    assert _proof(again) == _proof(at)


def test_the_knob_on_the_stage_changes_the_cache():
    at = _opened("window", "en", added=2)
    assert _row_names(_animation(at)[0]) == ["4", "5"]
    at.number_input(key="window").set_value(4)
    rerun(at)
    assert _row_names(_animation(at)[0]) == ["2", "3", "4", "5"]
    assert "4 ≤ 4" in page_text(at)


def test_the_picker_switches_the_variant_and_back_to_the_posts_cache():
    at = _opened("mha", "en", added=1)
    before = _animation(at)[0]
    at.segmented_control(key="kv_variant").set_value("mqa")
    rerun(at)
    assert "4 tokens' K and V per KV head (1 in all)" in page_text(at) and at.query_params["variant"] == "mqa"
    at.segmented_control(key="kv_variant").set_value("mha")
    rerun(at)
    assert _animation(at)[0] == before and "variant" not in at.query_params


@pytest.mark.parametrize("variant", ["gqa", "sinks", "rope"])
def test_the_downloads_hold_the_variants_cache_and_say_which(variant):
    prepared.FILES.clear()
    at = _opened(variant, "en", added=2)
    at.session_state["downloads_open"] = True
    name, files = downloaded(rerun(at))
    got, meta = _arrays(files)
    t = 5
    e = _expected(variant, t)
    held = _held(t, e["window"], e["sinks"])
    assert meta["variant"] == variant and meta["n_kv_heads"] == (e["n_kv_heads"] or H)
    assert (meta["window"], meta["sinks"], meta["rotary_dims"]) == (e["window"], e["sinks"], e["rotary_dims"])
    np.testing.assert_allclose(got["X"], _rows(t), atol=0, rtol=0)
    np.testing.assert_allclose(got["Y"], e["y"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(got["S"], e["probs"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(got["K_cache"], e["k_rot"][:, held], atol=1e-12, rtol=0)  # what the cache holds
    np.testing.assert_allclose(got["V_cache"], e["v"][:, held], atol=1e-12, rtol=0)
    assert got["positions"].tolist() == held and name == f"mha-kv_cache-{t}x5x7x11x{H}-seed0"


def test_the_mla_download_holds_the_latent():
    prepared.FILES.clear()
    at = _opened("mla", "en", added=1)
    at.session_state["downloads_open"] = True
    got, meta = _arrays(downloaded(rerun(at))[1])
    w_mla = mha.mla_from(mha.init_weights(mha.AttentionConfig(n_heads=H)), 4)
    c, _, _, y = (np.array(a) for a in ref.mla_attention(
        _rows(4).tolist(), w_mla.w_q.tolist(), w_mla.w_dkv.tolist(), w_mla.w_uk.tolist(), w_mla.w_uv.tolist(),
        w_mla.w_o.tolist()))
    assert meta["variant"] == "mla" and meta["d_latent"] == 4
    np.testing.assert_allclose(got["c"], c, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got["Y"], y, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got["Y_absorbed"], y, atol=1e-12, rtol=0)


@pytest.mark.parametrize("lang", LANGS)
def test_gqa_with_as_many_kv_heads_as_heads_says_nothing_is_shared(lang):
    at = run(stage="kv_cache", variant="gqa", lang=lang)  # the post's 2 heads, 2 KV heads
    said = {"en": "With 2 heads and 2 KV heads no two heads share", "zh": "2 个头配 2 个 KV 头，没有两个头共用"}[lang]
    assert said in page_text(at)
    at.segmented_control(key="kv_heads").set_value(1)
    rerun(at)
    # 3 tokens × 1 KV head × (7 + 11) × 8 bytes
    assert said not in page_text(at) and Text(lang)("kv_bytes", n="432") in page_text(at)


@pytest.mark.parametrize("variant, screen, link, said, scores_say", STEPPED,
                         ids=[f"{c[0]}-{c[1]}-{c[2]['lang']}" for c in STEPPED])
def test_every_frame_of_each_variants_step_shows_the_cores_numbers(variant, screen, link, said, scores_say):
    """X₄ and X₅ added through the variant: each frame's heatmaps are the core's (forward or mla_forward on the five
    tokens and on the first four), a row empty until the frame that computes it; the rows (and S's columns) are the
    tokens held, by their numbers; the page says what the cache holds; the scores' frame writes the variant's term.
    (tests/e2e/test_lab_kv_e2e.py draws two of these in Chromium.)"""
    at = run(stage="kv_cache", **link)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    assert all(s in page_text(at) for s in said), said
    spec = next(c for c in charts(at) if c.get("frames"))
    held, want = expected_panels(variant, link)
    names = [str(p + 1) for p in held]
    layout = spec["layout"]
    for axis in [k for k in layout if re.fullmatch(r"yaxis\d*", k)] + ["xaxis4"]:
        drawn_names = layout[axis].get("ticktext")
        if names == [str(i) for i in range(1, len(held) + 1)]:
            assert drawn_names is None, axis  # numbered by the figure itself
        else:
            assert drawn_names == [names[int(i) - 1] for i in layout[axis]["tickvals"]], axis
    assert len(spec["frames"]) == 6
    for k in range(6):
        traces = _frame_traces(spec, k)
        shown = [np.array([[np.nan if v is None else v for v in row] for row in t["z"]], float)
                 for t in traces if t["type"] == "heatmap"]
        expected = frame_z(want, k)
        assert [a.shape for a in shown] == [a.shape for a in expected], k
        for i, (a, b) in enumerate(zip(shown, expected)):
            np.testing.assert_allclose(a, b, atol=1e-9, equal_nan=True, err_msg=f"frame {k + 1}, heatmap {i}")
        if k == SCORES:
            notes = "".join(n["text"] for n in (spec["frames"][k].get("layout", {}).get("annotations")
                                                 or layout.get("annotations", []))).replace(" ", "")
            assert all(s.replace(" ", "") in notes for s in scores_say), notes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_window_s_step_says_which_token_leaves_as_the_new_one_arrives(lang):
    """Audit #8: with W = 2, X₅'s first frame said the cache held X₃ and X₄, while it drew X₄ alone: X₃ leaves the
    window as X₅ arrives, and the page did not say so."""
    at = run(stage="kv_cache", variant="window", window=2, lang=lang)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    spec = json.dumps(dict(keyed_charts(at))["kv_animation"], ensure_ascii=False)
    sep = Text(lang)("list_sep")
    assert Text(lang)("kv_arrive_evict", t="₅", gone="X₃", tokens="X₄") in spec
    assert Text(lang)("kv_arrive", t="₅", tokens=f"X₃{sep}X₄") not in spec


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant, window, sinks", [("window", 2, 0), ("window", 3, 0), ("sinks", 2, 1)])
def test_a_window_says_what_weight_its_earlier_rows_gave_tokens_that_left(variant, window, sinks, lang):
    """Audit 2026-12-04 #8: after two additions with W = 2, S₁'s dotted row 4 reads 0.458 and nothing else; the
    other 0.542 went to X₃, which has left. Under the chart, each earlier row that gave weight to a token no longer
    held says how much, to which tokens, and what its drawn weights add up to, from the loop reference's softmax at
    that row's own time; a row that gave none is not named."""
    t_ = Text(lang)
    at = run(stage="kv_cache", variant=variant, window=window, sinks=sinks, lang=lang, **SIZES)
    named = 0
    for t in range(3, 8):
        held = _held(t, window, sinks)
        w = mha.init_weights(mha.AttentionConfig(n_heads=H))
        before = ref.variant_trace(_rows(t - 1).tolist(), w.w_q.tolist(), w.w_k.tolist(), w.w_v.tolist(),
                                   w.w_o.tolist(), n_kv_heads=0, window=window, sinks=sinks, alibi=False,
                                   rotary_dims=0, rope_base=10000.0)
        probs = np.array(before["probs"])[HEAD - 1]
        captions = " ".join(c.value for c in at.caption)
        for p in held[:-1]:
            left = [j for j in range(t - 1) if j not in held and probs[p, j] > 0]
            gone = float(sum(probs[p, j] for j in left))
            start = t_("kv_weight_gone", row=p + 1, s="S₃", w="@", gone="", kept="").split("@")[0]  # names row p
            if gone >= 5e-4:
                tokens = "、".join if lang == "zh" else ", ".join
                said = t_("kv_weight_gone", row=p + 1, s="S₃", w=f"{gone:.3f}",
                          gone=tokens(f"X{chr(0x2080 + j + 1)}" for j in left) if len(left) < 3
                          else f"X{chr(0x2080 + left[0] + 1)}…X{chr(0x2080 + left[-1] + 1)}", kept=f"{1 - gone:.3f}")
                assert said in captions, (t, p, captions)
                named += 1
            else:
                assert start not in captions, (t, p)
        at.button(key="add_token").click()
        rerun(at)
    assert named >= 3


def _subscript(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _tokens_said(positions: list[int], sep: str) -> str:
    """Tokens as the page writes them, from the rule alone: each run of consecutive positions of three or more as
    its ends (X₁…X₅), shorter runs token by token."""
    runs = []
    for p in positions:
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    names = lambda r: [f"X{_subscript(p + 1)}" for p in r]  # noqa: E731
    return sep.join(f"{names(r)[0]}…{names(r)[-1]}" if len(r) >= 3 else sep.join(names(r)) for r in runs)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant, window, sinks", [("window", 2, 0), ("sinks", 2, 1), ("sinks", 3, 2)])
def test_the_tokens_a_window_holds_and_those_that_left_are_said_run_by_run(variant, window, sinks, lang):
    """What the cache holds, in words: once four, five tokens have left, each run of three or more is written as its
    ends and a shorter run token by token (X₂…X₅ left; X₁, X₆, X₇ held), as the rule says, for every t; before any
    has left, which leaves first and when (audit 2026-12-07 #10: sinks at n = 3 kept all, unsaid); the bound as the
    variant has it, s + W with sinks, W alone without (#12: "at most s + W = 0 + 2")."""
    t_ = Text(lang)
    sep = t_("list_sep")
    at = run(stage="kv_cache", variant=variant, window=window, sinks=sinks, lang=lang, **SIZES)
    said_none = 0
    for t in range(3, 9):
        held = _held(t, window, sinks)
        gone = [p for p in range(t) if p not in held]
        text = page_text(at)
        bound = {"en": f"at most s + W = {sinks} + {window} = {sinks + window}" if sinks else f"at most W = {window}",
                 "zh": f"最多 s + W = {sinks} + {window} = {sinks + window} 个" if sinks else f"最多 W = {window} 个"}
        assert _tokens_said(held, sep) in text and bound[lang] in text, (t, text)
        if gone:
            key = "kv_state_left_one" if len(gone) == 1 else "kv_state_left"  # "X₁ left: … sees it" (audit 12-07)
            assert t_(key, gone=_tokens_said(gone, sep)) in text, (t, gone)
        else:  # the first after the sinks leaves as the token past the bound arrives
            when, first = _subscript(sinks + window + 1), _subscript(sinks + 1)
            assert {"en": f"when X{when} arrives, X{first} is the first to leave",
                    "zh": f"X{when} 到来时，X{first} 第一个滑出窗口"}[lang] in text, (t, text)
            said_none += 1
        at.button(key="add_token").click()
        rerun(at)
    assert said_none == max(0, sinks + window - 2)  # t = 3 … s + W: nothing has left


@pytest.mark.parametrize("lang", LANGS)
def test_a_window_s_captions_name_the_new_row_as_its_row_names_do(lang):
    """With a window the cache's rows are named by their tokens' positions (X₄ and X₅ held: rows 4 and 5); the words
    of each step name the new row by the name drawn beside it, not by how many rows are drawn."""
    t_ = Text(lang)
    at = run(stage="kv_cache", variant="window", window=2, lang=lang, **SIZES)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    spec = _animation(at)[0]
    assert _row_names(spec) == ["4", "5"]
    words = _captions(at)
    assert _bare(t_("kv_scores", n=5, t="₅", d_k=D_K)) in words
    assert _bare(t_("kv_softmax", n=5, s=f"S{_subscript(HEAD)}")) in words


def test_the_latent_width_set_on_the_stage_is_the_width_of_the_cache_it_draws():
    """MLA's weights are cut once a width for every session; a width set after another was drawn on the same
    weights draws a latent of that width, the reference's, and counts its bytes."""
    at = _opened("mla", "en", added=1)
    assert "latent cache c</b> · 4×4" in chart_text(at)
    at.number_input(key="d_latent").set_value(2)
    rerun(at)
    t = 4
    w_mla = mha.mla_from(mha.init_weights(mha.AttentionConfig(n_heads=H)), 2)
    c = np.array(ref.mla_attention(_rows(t).tolist(), w_mla.w_q.tolist(), w_mla.w_dkv.tolist(),
                                   w_mla.w_uk.tolist(), w_mla.w_uv.tolist(), w_mla.w_o.tolist())[0])
    _, last, (_, k, *_) = _animation(at)
    assert "latent cache c</b> · 4×2" in chart_text(at)
    np.testing.assert_allclose(_matrix(drawn(last, k), t), c, atol=1e-12, rtol=0)
    assert Text("en")("kv_bytes", n=f"{t * 2 * 8:,}") in page_text(at)


@pytest.mark.parametrize("lang", LANGS)
def test_gqa_at_two_heads_offers_the_labs_four_heads_and_then_shows_a_real_group(lang):
    """Audit 2026-12-07 #10: the stage opened GQA at the post's 2 heads, where no two heads share, and said only
    "set more heads". It offers the lab's button: 4 heads, X kept, two groups of two; the sidebar says why h is
    composite and offers no primes. The post's attention offers nothing."""
    t = Text(lang)
    assert not [b for b in run(stage="kv_cache", lang=lang).button if b.key == "kv_four"]
    at = run(stage="kv_cache", variant="gqa", lang=lang)
    assert t("kv_state_no_group", h=2, kv=2) in page_text(at)
    at.button(key="kv_four").click()
    rerun(at)
    assert (at.session_state["n_heads"], at.session_state["kv_heads"]) == (4, 2)
    assert "x" not in at.query_params  # no edit written into X
    assert t("kv_state_group", i=1, g=1, heads="1–2") in page_text(at)
    assert not [b for b in at.button if b.key == "kv_four"]
    side = [c.value for c in at.sidebar.caption]
    assert t("lab_groups_primes_note", h=4) in side and not [b for b in at.sidebar.button if b.key == "make_primes"]
