"""The variant lab's GQA and MQA (mha/ui/lab/groups.py) in AppTest: what the page draws and says equals an
independent computation of grouped heads (each group's K and V from its first head's weights, the group of query
head i worked out here as i // (h / n_kv)); the cache it measures; the offer of 4 heads; kv_heads in links; each
of the lab's parts (what changes, the products to click, the check) with the knob and the head control where they
change what it shows."""

import re

import numpy as np
import pytest

import mha
from mha.ui.lab import groups
from mha.ui.strings import TABLES, Text

from .helpers import keyed_charts, page_text, rerun, run, z


def grouped(h: int, n_kv: int, x: np.ndarray | None = None, n: int = 3, d_model: int = 5, d_k: int = 7,
            d_v: int = 11) -> dict:
    """Grouped attention on the walk's seeded weights, written from the definition: group g keeps the W_K and W_V
    of its first head, query head i reads group i // (h / n_kv)."""
    cfg = mha.AttentionConfig(n_tokens=n, d_model=d_model, d_k=d_k, d_v=d_v, n_heads=h, seed=0)
    x = mha.init_input(cfg) if x is None else x
    w = mha.init_weights(cfg)
    size = h // n_kv
    k = [x @ w.w_k[g * size] for g in range(n_kv)]
    v = [x @ w.w_v[g * size] for g in range(n_kv)]
    q = [x @ w.w_q[i] for i in range(h)]
    group = [i // size for i in range(h)]
    hidden = np.triu(np.ones((n, n), dtype=bool), 1)
    scores = [q[i] @ k[group[i]].T for i in range(h)]
    s = []
    for i in range(h):
        e = np.where(hidden, 0.0, np.exp(scores[i] / np.sqrt(d_k)))
        s.append(e / e.sum(axis=1, keepdims=True))
    heads = [s[i] @ v[group[i]] for i in range(h)]
    concat = np.concatenate(heads, axis=1)
    walk = mha.forward(x, w)
    return dict(x=x, q=q, k=k, v=v, group=group, scores=scores, s=s, heads=heads, concat=concat,
                y=concat @ w.w_o, y_mha=walk.y, hidden=hidden)


def charts(at) -> dict:
    return dict(keyed_charts(at))


def to_part(at, part: str, product: str | None = None):
    """The same page on another of the lab's parts (and, on the click part, another product), as its controls would
    set them."""
    at.session_state["lab_part"] = part
    if product:
        at.session_state[f"lab_product_{at.session_state['variant']}"] = product
    return rerun(at)


def table_rows(at, first_header: str) -> list[list[str]]:
    """The rows of the Markdown table whose first header cell is `first_header`, as cell texts."""
    for element in at.markdown:
        lines = element.value.split("\n")
        for k, line in enumerate(lines):
            if line.startswith(f"| {first_header} |"):
                rows = []
                for row in lines[k + 2:]:
                    if not row.startswith("|"):
                        break
                    rows.append([c.strip() for c in row.strip("|").split("|")])
                return rows
    raise AssertionError(f"no table headed {first_header!r}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_draws_each_group_s_k_and_v_once_and_every_head_reads_its_own(lang):
    t = Text(lang)
    at = run(stage="variants", variant="gqa", n_heads=4, kv_heads=2, head=3, lang=lang)
    ref = grouped(4, 2)
    drawn = charts(at)
    panels = drawn["lab_groups_map"]["data"]
    sep = t("list_sep")
    expected = [(f"K<sub>1</sub> · {t('lab_groups_read_by', heads=f'1{sep}2')}", ref["k"][0]),
                (f"V<sub>1</sub> · {t('lab_groups_read_by', heads=f'1{sep}2')}", ref["v"][0]),
                ("Q<sub>1</sub>", ref["q"][0]), ("Q<sub>2</sub>", ref["q"][1]),
                (f"K<sub>2</sub> · {t('lab_groups_read_by', heads=f'3{sep}4')}", ref["k"][1]),
                (f"V<sub>2</sub> · {t('lab_groups_read_by', heads=f'3{sep}4')}", ref["v"][1]),
                ("Q<sub>3</sub>", ref["q"][2]), ("Q<sub>4</sub>", ref["q"][3])]
    assert [p["name"] for p in panels] == [name for name, _ in expected]
    for panel, (_, values) in zip(panels, expected):
        np.testing.assert_allclose(z(panel), values, atol=1e-12, rtol=0)
    for i, panel in enumerate(drawn["lab_groups_s"]["data"]):  # every head's S, its masked cells as gaps
        np.testing.assert_allclose(z(panel), np.where(ref["hidden"], np.nan, ref["s"][i]), atol=1e-12, rtol=0)
    concat = z(drawn["lab_groups_h"]["data"][0])
    np.testing.assert_allclose(concat, ref["concat"], atol=1e-12, rtol=0)
    # as the page says, row 1 of H is the same for the heads of a group (and only for them)
    assert t("lab_groups_row1") in page_text(at)
    first = [concat[0, 11 * i:11 * (i + 1)] for i in range(4)]
    assert np.array_equal(first[0], first[1]) and np.array_equal(first[2], first[3])
    assert not np.allclose(first[1], first[2])
    # head 3 (the link's) reads group 2: its scores Q₃K₂ᵀ and H₃ = S₃V₂, one at a time on the click part
    qk = charts(to_part(at, "click"))["lab_groups_qk"]["data"]
    np.testing.assert_allclose(z(qk[1]), ref["k"][1].T, atol=1e-12, rtol=0)
    np.testing.assert_allclose(z(qk[2]), ref["scores"][2], atol=1e-12, rtol=0)
    assert "Q₃K₂ᵀ = Q₃ · K₂ᵀ" in page_text(at).replace("<br>", " ")  # group 2's K (a figure's formula wraps)
    sv = charts(to_part(at, "click", "sv"))["lab_groups_sv"]["data"]
    np.testing.assert_allclose(z(sv[1]), ref["v"][1], atol=1e-12, rtol=0)
    np.testing.assert_allclose(z(sv[2]), ref["heads"][2], atol=1e-12, rtol=0)
    assert "H<sub>3</sub> = S<sub>3</sub> · V<sub>2</sub>" in page_text(at).replace("<br>", " ")  # and its V
    # the live checks: 4 heads cache 4·18 floats a token, 2 groups 2·18; each head's group and a zero difference
    text = page_text(to_part(at, "check")).replace("<br>", " ")
    cache = table_rows(at, t("lab_groups_col_cache"))
    assert [row[1] for row in cache] == ["72", "36"] and [row[3] for row in cache] == ["✓", "✓"]
    reads = table_rows(at, t("lab_groups_col_head"))
    assert [(int(r[0]), int(r[1]), r[3]) for r in reads] == [(i + 1, g + 1, "✓") for i, g in enumerate(ref["group"])]
    moved = float(np.abs(ref["y"] - ref["y_mha"]).max())
    assert moved > 0.1 and t("lab_groups_y_moved", diff=f"{moved:.4g}".replace("-", "−")) in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mqa_at_the_post_s_sizes_keeps_18_floats_a_token_instead_of_36(lang):
    t = Text(lang)
    at = run(stage="variants", variant="mqa", lang=lang)
    ref = grouped(2, 1)
    drawn = charts(at)
    assert [p["name"] for p in drawn["lab_groups_map"]["data"]] == [
        f"K<sub>1</sub> · {t('lab_groups_read_by', heads='1' + t('list_sep') + '2')}",
        f"V<sub>1</sub> · {t('lab_groups_read_by', heads='1' + t('list_sep') + '2')}", "Q<sub>1</sub>",
        "Q<sub>2</sub>"]
    np.testing.assert_allclose(z(drawn["lab_groups_h"]["data"][0]), ref["concat"], atol=1e-12, rtol=0)
    assert t("lab_groups_four_gqa", h=2) not in page_text(at)  # MQA with 2 heads is a real sharing: no offer
    cache = table_rows(to_part(at, "check"), t("lab_groups_col_cache"))
    assert [row[1] for row in cache] == ["36", "18"]
    assert "2\\cdot18 = 36" in cache[0][2] and "1\\cdot18 = 18" in cache[1][2]
    assert [(int(r[0]), int(r[1])) for r in table_rows(at, t("lab_groups_col_head"))] == [(1, 1), (2, 1)]
    for part in ("change", "click", "check"):  # MQA has no knob, in any part
        to_part(at, part)
        assert at.get("segmented_control") and not any(s.key == "kv_heads" for s in at.get("segmented_control"))


@pytest.mark.parametrize("lang, source", [("en", dict(x="1.2~0.5")), ("zh", dict(x="1.2~0.5")),
                                          ("en", dict(text="to be or not to be"))])
def test_two_heads_offer_four_and_the_offer_keeps_x(lang, source):
    """X stays as it was, edited or made from a text; only h changes, as the sidebar's own size would change it."""
    t = Text(lang)
    at = run(stage="variants", variant="gqa", lang=lang, **source)
    x_before = np.array(at.session_state["x_base"])
    n = len(x_before)
    assert t("lab_groups_four_gqa", h=2) in page_text(at)
    assert at.segmented_control(key="kv_heads").options == ["1", "2"]
    at.button(key="lab_groups_four").click()
    rerun(at)
    assert at.session_state["n_heads"] == 4 and at.session_state["kv_heads"] == 2
    assert at.query_params["n_heads"] == "4" and all(at.query_params[k] == v for k, v in source.items())
    np.testing.assert_array_equal(np.array(at.session_state["x_base"]), x_before)
    ref = grouped(4, 2, x=x_before, n=n)
    panels = charts(at)["lab_groups_map"]["data"]
    assert len(panels) == 8
    np.testing.assert_allclose(z(panels[6]), ref["q"][2], atol=1e-12, rtol=0)  # Q₃ of the edited X, in group 2
    np.testing.assert_allclose(z(charts(at)["lab_groups_h"]["data"][0]), ref["concat"], atol=1e-12, rtol=0)
    assert t("lab_groups_four_gqa", h=2) not in page_text(at)


WEIGHTS_OF_THEIR_OWN = {"trained": dict(model="trained"),
                        "checkpoint": dict(model="checkpoint", ckpt="trained-gpt2", text="A B C D")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("weights", WEIGHTS_OF_THEIR_OWN)
def test_weights_of_their_own_say_their_heads_are_fixed_instead_of_offering(weights, lang, offered):
    """The trained model and a checkpoint say it in one sentence (it was two near-alike strings, one a model)."""
    t = Text(lang)
    at = run(stage="variants", variant="gqa", lang=lang, **WEIGHTS_OF_THEIR_OWN[weights])
    assert not [b for b in at.button if b.key == "lab_groups_four"]
    assert [i.value for i in at.info] == [t("lab_groups_fixed", h=2, options=t("list_sep").join("12"))]
    assert at.segmented_control(key="kv_heads").options == ["1", "2"]


@pytest.mark.parametrize("heads, asked, used", [(4, 3, 2), (6, 4, 3), (4, 16, 4), (2, 5, 2), (12, 5, 4)])
def test_a_link_s_kv_heads_that_does_not_divide_h_is_kept_valid_and_said(heads, asked, used):
    at = run(stage="variants", variant="gqa", n_heads=heads, kv_heads=asked)
    t = Text("en")
    kept = t("lab_groups_kept", asked=asked, used=used, h=heads)
    assert kept in [c.value for c in at.caption]
    assert at.segmented_control(key="kv_heads").value == used
    assert at.query_params.get("kv_heads", "2") == str(used)  # the link now holds what is shown
    assert len(charts(at)["lab_groups_map"]["data"]) == heads + 2 * used
    rerun(at)  # said until the knob moves
    assert kept in [c.value for c in at.caption]
    at.segmented_control(key="kv_heads").set_value(1)
    rerun(at)
    assert kept not in [c.value for c in at.caption] and at.query_params["kv_heads"] == "1"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("heads, asked, used", [(2, 7, 2), (4, 3, 2), (6, 4, 3)])
def test_the_kv_cache_keeps_a_kv_heads_that_does_not_divide_h_valid_and_says_so(heads, asked, used, lang):
    """The red team's N11: `stage=kv_cache&variant=gqa&kv_heads=7` with 2 heads decoded with 2 KV heads while the
    link kept 7 and nothing said so. Now the KV cache's knob is kept valid as the lab's is: the same words, the box
    and the link hold what the cache decodes with, until the knob moves."""
    at = run(stage="kv_cache", variant="gqa", n_heads=heads, kv_heads=asked, lang=lang)
    kept = Text(lang)("lab_groups_kept", asked=asked, used=used, h=heads)
    assert kept in [c.value for c in at.caption]
    assert at.segmented_control(key="kv_heads").value == used
    assert at.query_params.get("kv_heads", "2") == str(used)
    rerun(at)  # said until the knob moves
    assert kept in [c.value for c in at.caption]
    at.segmented_control(key="kv_heads").set_value(1)
    rerun(at)
    assert kept not in [c.value for c in at.caption] and at.query_params["kv_heads"] == "1"


@pytest.mark.parametrize("asked", [1, 2, 4])
def test_a_link_s_divisor_is_shown_as_it_is(asked):
    at = run(stage="variants", variant="gqa", n_heads=4, kv_heads=asked, lang="zh")
    assert at.segmented_control(key="kv_heads").value == asked
    assert not [c for c in at.caption if "kv" in c.value and "$h =" in c.value]
    assert len(charts(at)["lab_groups_map"]["data"]) == 4 + 2 * asked
    assert at.query_params.get("kv_heads", "2") == str(asked)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_clicked_score_is_written_out_and_quiz_me_asks_for_one(lang):
    at = run(stage="variants", variant="gqa", n_heads=4, kv_heads=2, head=4, lang=lang, part="click")
    ref = grouped(4, 2)
    at.session_state["sel_lab_groups_qk"] = (2, 1)
    rerun(at)
    text = page_text(at)
    assert r"Q_{4}K_{2}^{\mathrm T}" in text and "[3, 2]" in text
    value = float(ref["scores"][3][2, 1])
    written = re.findall(r"(?:holds|是|为|等于)\s*(−?\d+(?:\.\d+)?)", text)
    assert any(abs(float(w.replace("−", "-")) - value) < 1e-3 * max(1, abs(value)) for w in written), written
    at.button(key="quiz_start_lab_groups_qk").click()
    rerun(at)
    assert at.session_state["quiz_lab_groups_qk"] is not None
    assert TABLES[lang]["quiz_check"] in [b.label for b in at.button]


def test_the_page_s_own_check_flags_heads_that_read_another_group(monkeypatch):
    """The live check's rule is the page's own: a core that sent query heads to the wrong group (off by one) leaves
    differences far from 0 in the page's table, for exactly the heads sent astray."""
    cfg = mha.AttentionConfig(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=4, n_kv_heads=2)
    x, w = mha.init_input(cfg), mha.init_weights(cfg)
    assert [(i, g) for i, g, _ in groups.reads(x, w, mha.forward(x, w, cfg), 2)] == [(0, 0), (1, 0), (2, 1), (3, 1)]
    assert max(d for *_, d in groups.reads(x, w, mha.forward(x, w, cfg), 2)) < 1e-12
    monkeypatch.setattr(mha.attention, "groups", lambda h, n_kv: (np.arange(h) + 1) // (h // n_kv) % n_kv)
    wrong = mha.forward(x, w, cfg)  # heads 1..4 read groups 0 1 1 0: heads 2 and 4 the wrong one
    diffs = [d for *_, d in groups.reads(x, w, wrong, 2)]
    assert max(diffs[0], diffs[2]) < 1e-12 and min(diffs[1], diffs[3]) > 1e-3, diffs


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_long_sequence_draws_one_row_of_the_map_and_says_which_group(lang):
    """64 tokens, 8 heads in 2 groups: every group's panels would run past a projector's screen, so the map draws
    the chosen head's group (head 7: group 2), its K, V and first two heads, and its title says so."""
    at = run(stage="variants", variant="gqa", lang=lang, n_tokens=64, d_model=16, n_heads=8, kv_heads=2, head=7,
             present=1, cleared=10**8)
    spec = charts(at)["lab_groups_map"]
    heatmaps = [tr for tr in spec["data"] if tr["type"] == "heatmap"]
    assert len(heatmaps) == 4  # K₂, V₂, Q₅, Q₆: one row
    cfg = mha.AttentionConfig(n_tokens=64, d_model=16, n_heads=8, n_kv_heads=2)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    t = mha.forward(x, w, cfg)
    np.testing.assert_allclose(z(heatmaps[0]), t.k[1][: z(heatmaps[0]).shape[0]], atol=1e-12)
    np.testing.assert_allclose(z(heatmaps[2]), t.q[4][: z(heatmaps[2]).shape[0]], atol=1e-12)
    said = Text(lang)("lab_groups_map_part", g=2, groups=2, heads=Text(lang)("list_sep").join(["5", "6"]))
    assert said in page_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_knob_is_in_every_part_and_each_part_follows_it(lang):
    """GQA's kv_heads control in each part, and moving it there changes what that part shows: the map's panels, the
    K the chosen head's scores read, the cache the check measures."""
    t = Text(lang)
    for part in ("change", "click", "check"):
        at = run(stage="variants", variant="gqa", n_heads=4, kv_heads=2, head=3, lang=lang, part=part)
        at.segmented_control(key="kv_heads").set_value(1)
        rerun(at)
        assert at.session_state["lab_part"] == part and at.query_params["kv_heads"] == "1"
        ref = grouped(4, 1)
        if part == "change":
            panels = charts(at)["lab_groups_map"]["data"]
            assert len(panels) == 6  # one K, one V, four Q's
            np.testing.assert_allclose(z(panels[0]), ref["k"][0], atol=1e-12, rtol=0)
        elif part == "click":
            qk = charts(at)["lab_groups_qk"]["data"]  # head 3 reads the one group now
            np.testing.assert_allclose(z(qk[1]), ref["k"][0].T, atol=1e-12, rtol=0)
            np.testing.assert_allclose(z(qk[2]), ref["scores"][2], atol=1e-12, rtol=0)
        else:
            assert [row[1] for row in table_rows(at, t("lab_groups_col_cache"))] == ["72", "18"]


def test_the_head_control_is_drawn_where_the_part_depends_on_the_head():
    """The click part draws the chosen head's products, so it has the head control; the check and the change at short
    sizes show every head, so they have none; the change of a long sequence draws the chosen head's group alone, so
    there the control is, and moving it moves the map to the other group."""
    def heads(at) -> bool:
        return any(s.key == "head" for s in at.get("segmented_control"))

    t = Text("en")
    at = run(stage="variants", variant="gqa", n_heads=4, kv_heads=2, part="click")
    assert heads(at)
    at.segmented_control(key="head").set_value(4)
    rerun(at)
    np.testing.assert_allclose(z(charts(at)["lab_groups_qk"]["data"][2]), grouped(4, 2)["scores"][3], atol=1e-12,
                               rtol=0)
    for part in ("change", "check"):
        assert not heads(to_part(at, part)), part
    at = run(stage="variants", variant="gqa", n_tokens=64, d_model=16, n_heads=8, kv_heads=2, head=7, cleared=10**8)
    assert heads(at)
    at.segmented_control(key="head").set_value(2)
    rerun(at)
    said = t("lab_groups_map_part", g=1, groups=2, heads=t("list_sep").join(["1", "2"]))
    assert said in page_text(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_click_part_draws_one_product_at_a_time_named_by_its_formula(lang):
    at = run(stage="variants", variant="gqa", n_heads=4, kv_heads=2, head=3, lang=lang, part="click")
    control = at.segmented_control(key="lab_product_gqa")
    assert control.options == ["Q₃K₂ᵀ", "H₃ = S₃·V₂"]
    assert "lab_groups_qk" in charts(at) and "lab_groups_sv" not in charts(at)
    control.set_value("sv")
    rerun(at)
    assert "lab_groups_sv" in charts(at) and "lab_groups_qk" not in charts(at)
    ref = grouped(4, 2)
    np.testing.assert_allclose(z(charts(at)["lab_groups_sv"]["data"][0]),
                               np.where(ref["hidden"], np.nan, ref["s"][2]), atol=1e-12, rtol=0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lab_opens_on_a_change_and_its_four_heads_are_not_offered_primes(lang):
    """Audit #4: the lab opened on GQA at the post's 2 heads with 2 K and V heads, the walk's MHA, and once its own
    "Use 4 heads" was pressed the sidebar offered to make the sizes primes again, which would undo the groups. Now it
    opens on MQA, where the post's two heads share one K and V; and with GQA at 4 heads the sidebar says why h is
    composite and offers no primes; elsewhere the sidebar says the 4 heads are the lab's, and offers the walk's back
    (test_off_the_lab_its_four_heads_are_named_and_the_walks_heads_offered_back)."""
    t = Text(lang)
    at = run(lang=lang, stage="variants")
    assert at.session_state["variant"] == "mqa"
    assert len(charts(at)["lab_groups_map"]["data"]) == 2 + 2 * 1  # two heads' Q, one group's K and V
    at = run(lang=lang, stage="variants", variant="gqa")
    at.button(key="lab_groups_four").click()
    rerun(at)
    side = [c.value for c in at.sidebar.caption]
    assert t("lab_groups_primes_note", h=4) in side and t("primes_no") not in side
    assert not [b for b in at.sidebar.button if b.key == "make_primes"]
    at.session_state["stage"] = "scores"
    rerun(at)
    assert t("lab_four_elsewhere", h=4, before=2) in [c.value for c in at.sidebar.caption]
    assert [b for b in at.sidebar.button if b.key == "lab_four_back"]


def written(trace: dict) -> np.ndarray | None:
    """The numbers a heatmap writes in its cells, as floats (None: it writes none)."""
    if trace.get("texttemplate") != "%{text}":
        return None
    return np.array([[float(s.replace("−", "-")) for s in row] for row in trace["text"]])


@pytest.mark.parametrize("variant,heads,kv,screen", [("mqa", 2, 1, "desk"), ("gqa", 2, 2, "desk"),
                                                     ("mqa", 2, 1, "present"), ("gqa", 4, 2, "phone")])
def test_the_map_writes_every_matrix_s_numbers_at_the_posts_sizes(variant, heads, kv, screen):
    """Audit 2026-12-04 #9: the map drew K, V and the Q's four a row, colour only, so what a group shares could not
    be read. At the post's sizes each panel writes its numbers, and they are the independent computation's to the
    digits written; on a projector too for MQA, the lab's first view (GQA's two groups there take four rows, and
    the map stays whole on the first screen at cells too small for numbers). On a phone (audit 2026-12-07 #3: two
    a row drew 16 px cells, colour only) one a row across the column's whole width, so V's 11 columns write too."""
    screen_args = dict(present=dict(present=1), phone=dict(phone=True)).get(screen, {})
    at = run(stage="variants", variant=variant, n_heads=heads, kv_heads=kv, **screen_args)
    assert at.session_state["screen_phone"] == (screen == "phone")
    ref = grouped(heads, kv)
    panels = [p for p in charts(at)["lab_groups_map"]["data"] if p["type"] == "heatmap"]
    wanted = [m for g in range(len(ref["k"])) for m in (ref["k"][g], ref["v"][g],
              *(ref["q"][i] for i in range(heads) if ref["group"][i] == g))]
    assert len(panels) == len(wanted)
    for panel, want in zip(panels, wanted):
        numbers = written(panel)
        assert numbers is not None, panel["name"]
        np.testing.assert_allclose(numbers, want, atol=0.00051 if screen == "desk" else 0.0051)  # 2 decimals else


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_off_the_lab_its_four_heads_are_named_and_the_walks_heads_offered_back(lang):
    """Audit 2026-12-06 #5: after the lab's Use 4 heads, Next to the block stage said only "not distinct primes"
    and offered to make them so. Off the lab the sidebar says h = 4 is the lab's, and offers the walk's 2 back."""
    t = Text(lang)
    at = run(stage="variants", variant="gqa", lang=lang)
    at.button(key="lab_groups_four").click()
    rerun(at)
    assert t("lab_four_elsewhere", h=4, before=2) not in _sidebar(at)  # in the lab its own note says why
    at.session_state["stage"] = "block"
    rerun(at)
    assert t("lab_four_elsewhere", h=4, before=2) in _sidebar(at)
    assert not [b for b in at.sidebar.button if b.key == "make_primes"]
    at.sidebar.button(key="lab_four_back").click()
    rerun(at)
    assert at.session_state["n_heads"] == 2 and t("primes_yes") in _sidebar(at)
    at.number_input(key="n_heads").set_value(4)  # 4 set by hand: the sidebar's own check, not the lab's words
    rerun(at)
    assert t("lab_four_elsewhere", h=4, before=2) not in _sidebar(at) and at.sidebar.button(key="make_primes")
    at.session_state["stage"] = "variants"  # the lab's 4 again, then 3 and 4 by hand on another stage
    rerun(at)
    at.number_input(key="n_heads").set_value(2)
    rerun(at)
    at.button(key="lab_groups_four").click()
    rerun(at)
    at.session_state["stage"] = "block"
    for h in (3, 4):
        at.number_input(key="n_heads").set_value(h)
        rerun(at)
    assert t("lab_four_elsewhere", h=4, before=2) not in _sidebar(at)


def _sidebar(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


@pytest.mark.parametrize("head", [1, 2])
def test_a_projector_s_map_at_the_posts_sizes_draws_the_chosen_head_s_group(head):
    """Audit 2026-12-06 #8: on a projector, GQA at the post's 2 heads (2 groups of one) draws one group, the chosen
    head's: its K beside its V, then its Q, with their numbers; head 1 reads group 1 and head 2 group 2."""
    at = run(stage="variants", variant="gqa", n_heads=2, kv_heads=2, head=head, present=1)
    ref = grouped(2, 2)
    panels = [p for p in charts(at)["lab_groups_map"]["data"] if p["type"] == "heatmap"]
    g = ref["group"][head - 1]
    wanted = [ref["k"][g], ref["v"][g], ref["q"][head - 1]]
    assert len(panels) == len(wanted)
    for panel, want in zip(panels, wanted):
        np.testing.assert_allclose(written(panel), want, atol=0.0051)
    said = Text("en")("lab_groups_map_part", g=g + 1, groups=2, heads=str(head))
    assert said in page_text(at)


def test_a_long_sequence_s_map_follows_the_head_to_the_last_of_its_group_and_the_first_of_the_next():
    """8 heads in 2 groups at 64 tokens: the map draws the chosen head's group; head 4 is group 1's last, head 5
    group 2's first."""
    for head, g, heads in ((4, 1, ["1", "2"]), (5, 2, ["5", "6"])):
        at = run(stage="variants", variant="gqa", n_tokens=64, d_model=16, n_heads=8, kv_heads=2, head=head,
                 present=1, cleared=10**8)
        t = Text("en")
        assert t("lab_groups_map_part", g=g, groups=2, heads=t("list_sep").join(heads)) in page_text(at), head


@pytest.mark.parametrize("screen", ["desk", "phone"])
def test_each_group_of_three_or_more_heads_starts_a_row_of_its_own(screen):
    """6 heads in 2 groups: a group's K, V and three Q's wrap over rows, and the next group's K begins a row of its own
    under all of them, at the same left as the first group's K (planted 2026-12-07: a group's last row counted as
    full, and K₂ began beside Q₃)."""
    at = run(stage="variants", variant="gqa", n_heads=6, kv_heads=2, **(dict(phone=True) if screen == "phone" else {}))
    spec = charts(at)["lab_groups_map"]
    panels = [t for t in spec["data"] if t["type"] == "heatmap"]
    assert [p["name"].split("<")[0] + p["name"].split("<sub>")[1][0] for p in panels] == [
        "K1", "V1", "Q1", "Q2", "Q3", "K2", "V2", "Q4", "Q5", "Q6"]
    axis = lambda p, a: spec["layout"][f"{a}axis{p[a + 'axis'][1:]}"]["domain"]  # noqa: E731
    first, second = panels[:5], panels[5:]
    assert axis(second[0], "y")[1] < min(axis(p, "y")[0] for p in first)  # below every panel of group 1
    assert axis(second[0], "x")[0] == pytest.approx(axis(first[0], "x")[0])
