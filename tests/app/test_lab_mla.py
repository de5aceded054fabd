"""The variant lab's MLA, as the page shows it, against numpy written here from the idea, not from mha/mla.py.

The reference cuts every head's [W_K | W_V], side by side, to its best rank-r approximation with numpy's SVD and
runs the post's attention on it in both orders (K and V rebuilt; W_UK folded into the query, W_UV after the
softmax). The page must draw those numbers, say the checks' differences it computed and the price of each width,
and keep d_latent from a link within what it offers, with a notice in the page's language. The lab shows one part at a
time (`part`): what changes (c and the rebuilt K and V, with the words), the products to click, one at a time, and
the checks; each test opens the part it reads."""

import re

import numpy as np
import pytest

import mha
from mha.ui.strings import Text

from .helpers import captions, keyed_charts, page_text, rerun, run, warnings, z

POST = dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2)
EVEN = dict(n_tokens=4, d_model=6, d_k=3, d_v=3, n_heads=2)  # d_k = d_v: W_UV could stand in for W_UK unseen


def walk(sizes: dict) -> tuple[np.ndarray, mha.Weights]:
    cfg = mha.AttentionConfig(**sizes)
    return mha.init_input(cfg), mha.init_weights(cfg)


def softmax_causal(scores: np.ndarray, d_k: int) -> np.ndarray:
    n = len(scores)
    a = scores / np.sqrt(d_k) + np.triu(np.full((n, n), -np.inf), 1)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def reference(x: np.ndarray, w: mha.Weights, r: int) -> dict:
    """The walk's attention with [W_K | W_V] cut to rank r, in both orders, and the singular values."""
    h, dk, dv = w.n_heads, w.d_k, w.d_v
    wide = np.hstack([np.hstack([w.w_k[i], w.w_v[i]]) for i in range(h)])  # (d_model, h (d_k + d_v))
    u, s, vt = np.linalg.svd(wide, full_matrices=False)
    down, up = u[:, :r] * s[:r], vt[:r]  # wide ≈ down @ up
    c = x @ down
    out = dict(sigma=s, kv=[], scores=[], q_tilde=[], probs=[], probs_abs=[], heads=[], heads_abs=[])
    for i in range(h):
        block = (down @ up)[:, i * (dk + dv):(i + 1) * (dk + dv)]
        w_uk, w_uv = up[:, i * (dk + dv):i * (dk + dv) + dk], up[:, i * (dk + dv) + dk:(i + 1) * (dk + dv)]
        q = x @ w.w_q[i]
        k, v = x @ block[:, :dk], x @ block[:, dk:]
        q_tilde = q @ w_uk.T
        p, p_abs = softmax_causal(q @ k.T, dk), softmax_causal(q_tilde @ c.T, dk)
        out["kv"].append(np.hstack([k, v]))
        out["scores"].append(q @ k.T)
        out["q_tilde"].append(q_tilde)
        out["probs"].append(p)
        out["probs_abs"].append(p_abs)
        out["heads"].append(p @ v)
        out["heads_abs"].append((p_abs @ c) @ w_uv)
    out["y"] = np.hstack(out["heads"]) @ w.w_o
    out["y_abs"] = np.hstack(out["heads_abs"]) @ w.w_o
    out["cut"] = down @ up
    return out


def mha_y(x: np.ndarray, w: mha.Weights) -> np.ndarray:
    heads = [softmax_causal((x @ w.w_q[i]) @ (x @ w.w_k[i]).T, w.d_k) @ (x @ w.w_v[i]) for i in range(w.n_heads)]
    return np.hstack(heads) @ w.w_o


def chart(at, key: str) -> list[np.ndarray]:
    """A product's A, B and C as drawn."""
    spec = next(spec for k, spec in keyed_charts(at) if k == key)
    return [z(spec["data"][k]) for k in range(3)]


def table(at, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose first header cell is `header`, as cells."""
    for m in at.markdown:
        lines = m.value.split("\n")
        for k, line in enumerate(lines):
            if line.startswith(f"| {header} |"):
                rows = []
                for row in lines[k + 2:]:
                    if not row.startswith("|"):
                        break
                    rows.append([cell.strip() for cell in row.strip("|").split(" | ")])
                return rows
    raise AssertionError(f"no table headed {header!r}")


def leaves(node) -> list:
    """The page's elements in page order."""
    kids = getattr(node, "children", None)
    if not kids:
        return [node]
    return [leaf for kid in (kids.values() if isinstance(kids, dict) else kids) for leaf in leaves(kid)]


def number(cell: str) -> float:
    return float(cell.strip("*"))


def lab(lang: str = "en", part: str = "change", **params):
    return run(stage="variants", variant="mla", lang=lang, part=part, **params)


def show(at, part: str, product: str | None = None):
    """The same session on another part of the lab (and, on "click", another product)."""
    at.session_state["lab_part"] = part
    if product:
        at.session_state["lab_product_mla"] = product
    return rerun(at)


def products(at) -> dict[str, list[np.ndarray]]:
    """The click part's three products as drawn, each chosen in turn: {key: [A, B, C]}."""
    return {key: chart(show(at, "click", pid), key) for pid, key in (("c", "mla_c"), ("kv", "mla_kv"), ("s", "mla_s"))}


def test_on_a_projector_each_product_is_held_to_the_first_screen_only_where_it_keeps_its_numbers():
    """On a projector a click product is drawn no taller than the screen leaves under the lab's controls
    (view.first_screen), unless that figure would write numbers in fewer of its panels than the free one: [K | V] =
    c·[W_UK | W_UV] (3×4 · 4×18) would write none, and a quiz on it asks for its numbers. c = X·W_DKV and the
    absorbed scores are held, with every number."""
    at = lab(part="click", present=1)
    held = 712 - 152 - 36 * 7  # view.first_screen under the lab's 7 rows of controls (mla.CLICK_ROWS)
    for pid, key in (("c", "mla_c"), ("kv", "mla_kv"), ("s", "mla_s")):
        spec = dict(keyed_charts(show(at, "click", pid)))[key]
        written = sum(t.get("texttemplate") == "%{text}" for t in spec["data"][:3])
        if pid == "kv":
            assert spec["layout"]["height"] > held and written >= 1
        else:
            assert spec["layout"]["height"] <= held and written == 3, (pid, spec["layout"]["height"], written)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sizes, head, r", [(POST, 1, 4), (EVEN, 2, 3)], ids=["post", "even"])
def test_the_products_draw_the_latent_the_rebuilt_k_and_v_and_the_absorbed_scores(lang, sizes, head, r):
    x, w = walk(sizes)
    at = lab(lang, "click", head=head, d_latent=r, **sizes)
    ref, i, dk = reference(x, w, r), head - 1, sizes["d_k"]
    drawn = products(at)
    a, w_dkv, c = drawn["mla_c"]
    np.testing.assert_allclose(a, x, atol=1e-12, rtol=0)
    np.testing.assert_allclose(c, x @ w_dkv, atol=1e-12, rtol=0)
    c_again, w_up, kv = drawn["mla_kv"]
    np.testing.assert_allclose(c_again, c, atol=0, rtol=0)
    width = dk + sizes["d_v"]  # W_DKV · [W_UK | W_UV] is head i's block of the rank-r cut (the SVD's signs cancel)
    np.testing.assert_allclose(w_dkv @ w_up, ref["cut"][:, i * width:(i + 1) * width], atol=1e-12, rtol=0)
    np.testing.assert_allclose(kv, ref["kv"][i], atol=1e-12, rtol=0)
    q_tilde, c_t, scores = drawn["mla_s"]
    np.testing.assert_allclose(q_tilde, (x @ w.w_q[i]) @ w_up[:, :dk].T, atol=1e-12, rtol=0)  # Q W_UKᵀ, not W_UV
    np.testing.assert_allclose(c_t, c.T, atol=0, rtol=0)
    np.testing.assert_allclose(scores, ref["scores"][i], atol=1e-12, rtol=0)  # = Q K_iᵀ with K rebuilt


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sizes, head, r", [(POST, 2, 4), (EVEN, 1, 3)], ids=["post", "even"])
def test_what_changes_draws_the_latent_and_the_chosen_heads_rebuilt_k_and_v_with_the_words(lang, sizes, head, r):
    x, w = walk(sizes)
    at = lab(lang, head=head, d_latent=r, **sizes)
    t, ref, i, dk = Text(lang), reference(x, w, r), head - 1, sizes["d_k"]
    assert [k for k, _ in keyed_charts(at)] == ["lab_mla_rebuilt"]  # plain figures: no product here
    spec = next(spec for k, spec in keyed_charts(at) if k == "lab_mla_rebuilt")
    c, k, v = (z(trace) for trace in spec["data"])
    c_ref = x @ (np.linalg.svd(np.hstack([np.hstack([w.w_k[j], w.w_v[j]]) for j in range(w.n_heads)]))[0][:, :r]
                 * ref["sigma"][:r])
    assert c.shape == (sizes["n_tokens"], r)
    np.testing.assert_allclose(c @ c.T, c_ref @ c_ref.T, atol=1e-12, rtol=0)  # c up to the SVD's signs
    np.testing.assert_allclose(k, ref["kv"][i][:, :dk], atol=1e-12, rtol=0)
    np.testing.assert_allclose(v, ref["kv"][i][:, dk:], atol=1e-12, rtol=0)
    text = page_text(at)
    d, kv = sizes["d_model"], sizes["n_heads"] * (dk + sizes["d_v"])
    check = t("lab_part_check")
    small_x = t("lab_mla_small_x", d=d, kv=kv, check=check, costs=t("lab_costs_title", variant="MLA"))
    for words in (t("lab_mla_title"), t("lab_mla_intro", d=d, kv=kv), small_x, t("lab_mla_orders")):
        assert words in text
    assert rf"K_{{{head}}} = c\,W_{{UK{head}}}" in text  # the orders' formulas name the chosen head
    price = t("lab_mla_price_title", price=t("lab_mla_price"))
    assert t("lab_mla_checks_title") not in text and price not in text  # the check's part


def test_on_the_projector_the_figure_comes_before_the_words_that_open_it():
    t = Text("en")
    for params, first in ((dict(), "words"), (dict(present=1), "figure")):
        order = [("words" if t("lab_mla_title") in node.value else None) if node.type == "markdown"
                 else "figure" if "lab_mla_rebuilt" in str(getattr(node, "proto", "")) else None
                 for node in leaves(lab(**params).main)]
        assert [o for o in order if o][:2] == [first, {"words": "figure", "figure": "words"}[first]], params


@pytest.mark.parametrize("part, head_shown", [("change", True), ("click", True), ("check", False)])
def test_every_part_has_the_width_and_its_notice_and_the_head_where_the_part_shows_one_head(part, head_shown):
    t = Text("zh")
    at = lab("zh", part, d_latent=9, n_heads=4)
    assert at.number_input(key="d_latent").value == 8
    assert t("lab_mla_clamped", asked=9, d=5, high=8) in captions(at)
    assert any(b.key == "head" for b in at.button_group) == head_shown


def test_the_click_part_names_its_three_products_for_the_chosen_head_and_draws_one_at_a_time():
    at = lab(part="click", head=2)
    assert at.button_group(key="lab_product_mla").options == ["c = X·W_DKV", "[K₂ | V₂] = c·[W_UK2 | W_UV2]",
                                                               "Q₂K₂ᵀ = Q̃₂·cᵀ"]
    for pid, key in (("c", "mla_c"), ("kv", "mla_kv"), ("s", "mla_s")):
        show(at, "click", pid)
        assert [k for k, _ in keyed_charts(at)] == [key]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sizes, r", [(POST, 4), (EVEN, 3), (POST, 5)], ids=["post", "even", "post-exact"])
def test_the_checks_say_the_differences_the_two_orders_make_on_these_numbers(lang, sizes, r):
    x, w = walk(sizes)
    at = lab(lang, "check", d_latent=r, **sizes)
    t = Text(lang)
    ref = reference(x, w, r)
    np.testing.assert_allclose(ref["y_abs"], ref["y"], atol=1e-12, rtol=0)  # the reference agrees with itself
    core = mha.mla_forward(x, mha.mla_from(w, r))
    np.testing.assert_allclose(core.y, ref["y"], atol=1e-12, rtol=0)
    np.testing.assert_allclose(core.y_absorbed, ref["y_abs"], atol=1e-12, rtol=0)
    rows = table(at, t("lab_mla_check_what"))
    assert [what for what, _ in rows] == [t("lab_mla_check_scores"), t("lab_mla_check_s"), t("lab_mla_check_y")]
    said = lambda d: t("kv_exact") if d == 0 else f"{d:.3g}"  # noqa: E731
    expected = [np.max(np.abs(core.q @ core.k.transpose(0, 2, 1) - core.q_absorbed @ core.latent.T)),
                np.max(np.abs(core.probs - core.probs_absorbed)), np.max(np.abs(core.y - core.y_absorbed))]
    assert [delta for _, delta in rows] == [said(float(d)) for d in expected]
    assert all(d <= 1e-12 for d in expected)
    assert expected[2] > 0, "the two orders round differently here, so a page comparing one Y with itself shows"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sizes, r", [(POST, 4), (EVEN, 2)], ids=["post", "even"])
def test_the_price_of_each_width_is_the_reference_y_against_the_walks_with_the_dropped_singular_value(lang, sizes, r):
    x, w = walk(sizes)
    at = lab(lang, "check", d_latent=r, **sizes)
    t = Text(lang)
    y_mha = mha_y(x, w)
    rows = table(at, t("lab_mla_price_l"))
    d = sizes["d_model"]
    assert [int(number(width)) for width, *_ in rows] == list(range(1, d + 1))
    for width, dropped, delta in rows:
        k = int(number(width))
        ref = reference(x, w, k)
        bold = width.startswith("**")
        assert bold == (k == r) and dropped.startswith("**") == bold and delta.startswith("**") == bold
        if k < min(d, len(ref["sigma"])):
            assert number(dropped) == pytest.approx(ref["sigma"][k], rel=1e-3)
            assert number(delta) == pytest.approx(np.max(np.abs(ref["y"] - y_mha)), rel=1e-2)
        else:
            assert dropped.strip("*") == t("lab_mla_none") and number(delta) <= 1e-12
    text = page_text(show(at, "change"))
    assert t("lab_mla_cut", l=r, dropped=d - r, r=d, next=r + 1, sigma=f"{reference(x, w, d)['sigma'][r]:.4g}",
                check=t("lab_part_check"), price=t("lab_mla_price")) in text


def test_the_page_says_the_posts_sizes_make_the_latent_save_nothing_in_both_languages():
    for lang in ("en", "zh"):
        t = Text(lang)
        text = page_text(lab(lang))
        costs = t("lab_costs_title", variant="MLA")
        small_x = t("lab_mla_small_x", d=5, kv=36, check=t("lab_part_check"), costs=costs)
        assert small_x in text and "5120" in text and "512" in text
        # the tables the words point to are there, under the titles they are called by (zh review: "cost table",
        # "price table", neither a title on the page)
        checked = page_text(show(lab(lang), "check"))
        assert costs in checked and t("lab_mla_price_title", price=t("lab_mla_price")) in checked


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_width_past_d_model_is_exact_and_adds_only_columns_of_zeros(lang):
    x, w = walk(POST)
    at = lab(lang, "click", d_latent=7)
    t = Text(lang)
    _, w_dkv, c = chart(at, "mla_c")
    assert c.shape == (3, 7) and np.all(c[:, 5:] == 0) and np.all(np.abs(c[:, :5]) > 0)
    text = page_text(show(at, "change"))
    assert t("lab_mla_exact", l=7) in text and t("lab_mla_zero_cols", extra=2) in text
    rows = table(show(at, "check"), t("lab_mla_price_l"))
    assert [r[0] for r in rows][-1] == "**7**" and number(rows[-1][2]) <= 1e-12


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("given, used, link_notice, page_notice", [
    ("2", 2, None, False),
    ("0", 1, ("notice_clamped", 1), False),
    ("8", 8, None, False),
    ("9", 8, None, True),
    ("99", 8, None, True),
    ("5000", 8, None, True),  # above any size's limit: the page names the value asked, not the limit (N11)
    ("x1", 4, ("notice_not_whole", None), False),
])
def test_d_latent_from_a_link_is_kept_within_what_the_page_offers_and_says_so(lang, given, used, link_notice,
                                                                            page_notice):
    t = Text(lang)
    at = lab(lang, "click", d_latent=given)
    assert at.number_input(key="d_latent").value == used
    _, w_dkv, c = chart(at, "mla_c")
    assert w_dkv.shape == (5, used) and c.shape == (3, used)
    shown = warnings(at) + captions(at)
    if link_notice:
        key, value = link_notice
        fields = dict(key="d_latent", value=given) | ({"used": value} if value is not None else {})
        assert t(key, **fields) in shown
    asked = f"{int(given):,}" if given.isdigit() else None
    clamped = t("lab_mla_clamped", asked=asked, d=5, high=8) if asked is not None else None
    assert (clamped in shown) == page_notice
    assert not at.exception


def test_a_shrunk_d_model_takes_the_width_down_with_a_notice():
    t = Text("en")
    at = lab(part="click", d_latent=8)
    assert at.number_input(key="d_latent").value == 8
    at.session_state["d_model"] = 3
    rerun(at)
    assert at.number_input(key="d_latent").value == 6
    assert t("lab_mla_clamped", asked=8, d=3, high=6) in captions(at)
    assert chart(at, "mla_c")[2].shape == (3, 6)


def test_a_clicked_score_writes_the_absorbed_dot_product_and_the_quiz_hides_a_cell():
    at = lab(part="click")
    at.session_state["sel_mla_s"] = (2, 1)
    show(at, "click", "s")
    q_tilde, c_t, scores = chart(at, "mla_s")
    text = page_text(at)
    assert r"$Q_{1}K_{1}^{\mathrm T}[3, 2]$ is row 3 of $\tilde Q_{1}$ times column 2 of $c^{\mathrm T}$" in text
    first = rf"{q_tilde[2, 0]:.4g}".replace("-", "(-", 1) + (")" if q_tilde[2, 0] < 0 else "")
    assert re.search(re.escape(first) + r"\\cdot", text)
    assert f"{scores[2, 1]:.4g}".replace("-", "−") in text
    at.button(key="quiz_start_mla_s").click()
    rerun(at)
    i, j = at.session_state["quiz_mla_s"]
    assert np.isnan(chart(at, "mla_s")[2][i, j])


def test_at_gpt2_widths_the_price_table_shows_a_few_widths_from_1_to_d_model():
    t = Text("en")
    at = lab(part="check", preset="gpt2")
    rows = table(at, t("lab_mla_price_l"))
    widths = [int(number(r[0])) for r in rows]
    assert widths[0] == 1 and widths[-1] == 768 and len(widths) <= 13 and widths == sorted(set(widths))
    assert 4 in widths and rows[widths.index(4)][0] == "**4**"  # the chosen width is a row of its own
    deltas = [number(r[2]) for r in rows]
    assert deltas[-1] <= 1e-9 and deltas[0] > deltas[-2] > deltas[-1]
    assert set(widths) - {4} == {1, 2, 3, 6, 11, 20, 37, 69, 125, 229, 420, 768}  # 12, evenly on a log scale
    assert t("lab_mla_price_some", shown=len(widths) - 1, d=768) in page_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_when_k_and_v_are_narrower_than_x_the_page_says_so_and_the_cut_is_exact_from_their_width(lang):
    sizes = dict(n_tokens=3, d_model=7, d_k=2, d_v=3, n_heads=1)  # K and V: 5 numbers a token, X: 7
    x, w = walk(sizes)
    at = lab(lang, d_latent=6, **sizes)
    t = Text(lang)
    text = page_text(at)
    wide_x = t("lab_mla_wide_x", d=7, kv=5, check=t("lab_part_check"), costs=t("lab_costs_title", variant="MLA"))
    assert wide_x in text and t("lab_mla_zero_cols", extra=1) in text
    rows = table(show(at, "check"), t("lab_mla_price_l"))
    assert [int(number(r[0])) for r in rows] == list(range(1, 8))
    ref = reference(x, w, 5)
    assert len(ref["sigma"]) == 5
    for width, dropped, delta in rows:
        k = int(number(width))
        if k < 5:
            assert number(dropped) == pytest.approx(ref["sigma"][k], rel=1e-3)
        else:
            assert dropped.strip("*") == t("lab_mla_none") and number(delta) <= 1e-12


@pytest.mark.parametrize("sizes", [POST, EVEN, dict(n_tokens=3, d_model=7, d_k=2, d_v=3, n_heads=1)])
def test_one_svd_serves_every_width_the_numbers_mla_from_writes(sizes):
    from mha.ui.lab.mla import narrow

    _, w = walk(sizes)
    full = mha.mla_from(w, w.d_model)
    for r in range(1, w.d_model + 1):
        mine, core = narrow(full, r), mha.mla_from(w, r)
        for name in ("w_q", "w_dkv", "w_uk", "w_uv", "w_o"):
            np.testing.assert_array_equal(getattr(mine, name), getattr(core, name), err_msg=f"{name} at {r}")


CAPS = dict(n_tokens=64, d_model=1024, d_k=128, d_v=128, n_heads=16)


@pytest.mark.parametrize("stage, lang, part", [("variants", "en", "change"), ("variants", "zh", "click"),
                                               ("variants", "en", "check"), ("kv_cache", "zh", "step")])
def test_at_the_caps_mla_says_why_it_is_not_cut_instead_of_holding_the_server(stage, lang, part, monkeypatch):
    """d_model² · h(d_k + d_v) = 4.3e9 multiply-adds of SVD, seconds of a shared server's time a rerun: the page
    says so in words and makes no SVD (mla_from is never called)."""
    calls = []
    monkeypatch.setattr(mha, "mla_from", lambda *a: calls.append(a))
    at = run(stage=stage, variant="mla", lang=lang, part=part, cleared=10**9, **CAPS)
    said = [e.value for e in at.info]
    work = f"{1024 ** 2 * 16 * 256:,}"
    assert any(work in s and "SVD" in s for s in said), said
    assert not calls
