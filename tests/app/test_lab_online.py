"""The lab's online softmax (stage variants, variant online), in both languages: every frame of the animation against
a loop over the keys written here, its last frame against H = softmax(QKᵀ/√d_k + M)·V in plain numpy, the live
check's table, the clicked cell's sums, the memory sentence and the product acc = P·V."""

import re

import numpy as np
import plotly.graph_objects as go
import pytest

import mha
from mha.figures.schema import problems
from mha.ui import settings as S
from mha.ui.strings import TABLES

from .helpers import chart_data, keyed_charts, page_text, rerun, run, z

RESIZED = dict(n_tokens=5, d_model=6, d_k=4, d_v=3, n_heads=3)
PANEL = dict(s=0, grey=1, r=2, m=3, l=4, acc=5, out=6)  # the animation's traces (mha/figures/online.py)


def operands(sizes: dict, head: int):
    """q, k, v of one head from the page's X and weights, multiplied out here (X·W, no core function)."""
    cfg = mha.AttentionConfig(**sizes)
    x, w = mha.init_input(cfg), mha.init_weights(cfg)
    return x @ w.w_q[head], x @ w.w_k[head], x @ w.w_v[head]


def softmax_h(q, k, v) -> np.ndarray:
    """H = softmax(qkᵀ/√d_k + M)·v, the causal mask as −∞ above the diagonal."""
    s = q @ k.T / np.sqrt(q.shape[1])
    s[np.triu(np.ones(s.shape, bool), k=1)] = -np.inf
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True) @ v


def loop(q, k, v, block: int) -> list[dict]:
    """Each tile's state from loops over rows and keys: the tile's scores, m, r, ℓ and acc after it (NaN where a
    row has seen no key, and r where it held nothing before the tile)."""
    n, d_k = q.shape
    m, l, acc = [None] * n, [0.0] * n, [np.zeros(v.shape[1]) for _ in range(n)]  # noqa: E741
    states = []
    for start in range(0, n, block):
        stop = min(start + block, n)
        scores = np.full((n, n), np.nan)
        r = np.full(n, np.nan)
        for i in range(n):
            seen = [j for j in range(start, stop) if j <= i]
            for j in range(start, stop):
                scores[i, j] = float(np.dot(q[i], k[j])) / np.sqrt(d_k) if j <= i else np.nan
            if not seen:  # every key of the tile is masked for row i: m stays, and so does what it held
                r[i] = np.nan if m[i] is None else 1.0
                continue
            top = max(scores[i, j] for j in seen)
            new = top if m[i] is None else max(m[i], top)
            if m[i] is not None:
                r[i] = np.exp(m[i] - new)
                l[i], acc[i] = l[i] * r[i], acc[i] * r[i]
            for j in seen:
                e = np.exp(scores[i, j] - new)
                l[i] += e
                acc[i] = acc[i] + e * v[j]
            m[i] = new
        nan = lambda x: np.nan if x is None else x  # noqa: E731
        states.append(dict(s=scores, start=start, stop=stop, r=r, m=np.array([nan(x) for x in m]),
                           l=np.array([np.nan if x is None else l[i] for i, x in enumerate(m)]),
                           acc=np.array([acc[i] if x is not None else np.full(v.shape[1], np.nan)
                                         for i, x in enumerate(m)])))
    return states


def animation(at) -> dict:
    return next(spec for key, spec in keyed_charts(at) if key == "lab_online")


def frame_z(spec: dict, k: int, panel: str) -> np.ndarray:
    return z(spec["frames"][k]["data"][PANEL[panel]])


def close(a, b) -> bool:
    """Equal to rounding, empty cells (NaN) in the same places."""
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and \
        np.allclose(np.nan_to_num(a), np.nan_to_num(b), atol=1e-12, rtol=1e-9)


def table(at, header: str) -> list[list[str]]:
    for m in at.markdown:
        lines = [line for line in m.value.split("\n") if line.startswith("|")]
        if lines and header in lines[0]:
            return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]
    raise AssertionError(f"no table headed {header!r}")


def across(at, corner: str) -> dict[str, list[str]]:
    """The tables whose corner cell is `corner` (one quantity a row, its values across), joined: row name → values."""
    out: dict[str, list[str]] = {}
    for m in at.markdown:
        for block in m.value.split("\n\n"):
            lines = [line for line in block.split("\n") if line.startswith("|")]
            if not lines or [c.strip() for c in lines[0].strip("|").split(" | ")][0] != corner:
                continue
            for line in lines[:1] + lines[2:]:
                name, *values = [c.strip().replace("\\|", "|") for c in line.strip("|").split(" | ")]
                out.setdefault(name, []).extend(values)
    assert out, f"no table with the corner {corner!r}"
    return out


CASES = [("en", {}, 1, 2), ("zh", {}, 1, 1), ("en", {}, 2, 3), ("zh", RESIZED, 2, 2), ("en", RESIZED, 3, 4)]


@pytest.mark.parametrize("lang, sizes, head, tile", CASES)
def test_every_frame_is_the_loop_and_the_last_is_h(lang, sizes, head, tile):
    at = run(stage="variants", variant="online", lang=lang, head=head, tile=tile, **sizes)
    spec = animation(at)
    assert problems(spec) == []  # the page's SVG draws all of it, as Plotly would …
    go.Figure(spec)  # … and Plotly takes every property
    q, k, v = operands(sizes, head - 1)
    states = loop(q, k, v, tile)
    frames = spec["frames"]
    assert len(frames) == len(states) + 1 and spec["layout"]["sliders"][0]["active"] == len(states)
    for f, state in enumerate(states):
        shown = frame_z(spec, f, "s")
        assert close(shown, state["s"]), f  # only the tile's columns; masked cells are gaps …
        grey = frame_z(spec, f, "grey")
        masked, tile = np.zeros_like(grey, bool), slice(state["start"], state["stop"])
        masked[:, tile] = np.triu(np.ones_like(grey, bool), k=1)[:, tile]
        assert np.array_equal(~np.isnan(grey), masked), f  # … drawn grey
        for panel in ("m", "l", "r"):
            assert close(frame_z(spec, f, panel)[:, 0], state[panel]), (f, panel)
        assert close(frame_z(spec, f, "acc"), state["acc"]), f
        assert np.isnan(frame_z(spec, f, "out")).all(), f  # out waits for the division
    n, d_v = v.shape
    for f, frame in enumerate(frames):  # each frame says what it holds: the tile's n·B scores (none at the end)
        width = states[f]["stop"] - states[f]["start"] if f < len(states) else 0
        held = TABLES[lang]["lab_online_fig_held"].format(tile=n * width, two=2 * n, acc=n * d_v,
                                                          held=n * width + 2 * n + n * d_v, s=n * n)
        notes = "".join(a["text"] for a in frame["layout"]["annotations"]).replace("<br>", "").replace(" ", "")
        assert held.replace(" ", "") in notes, f
    h = softmax_h(q, k, v)
    assert close(frame_z(spec, len(states), "out"), h)
    assert close(z(spec["data"][PANEL["out"]]), h)  # the figure rests on it
    assert close(frame_z(spec, len(states), "acc") / frame_z(spec, len(states), "l"), h)


@pytest.mark.parametrize("lang, sizes, head", [("en", {}, 1), ("zh", RESIZED, 3), ("en", dict(n_tokens=11), 2)])
def test_the_live_check_covers_every_tile_size(lang, sizes, head):
    at = run(stage="variants", variant="online", lang=lang, head=head, part="check", **sizes)
    words = TABLES[lang]
    rows = across(at, words["lab_online_check_b"])
    n = sizes.get("n_tokens", 3)
    assert [int(b) for b in rows[words["lab_online_check_b"]]] == list(range(1, n + 1))
    assert [int(c) for c in rows[words["lab_online_check_tiles"]]] == [-(-n // b) for b in range(1, n + 1)]
    assert all(float(d) < 1e-12 for d in rows[words["lab_online_check_delta"]])
    text = page_text(at)
    sentence = words["lab_online_check_frames"].split("{frames}")[0]
    assert sentence in text
    found = re.search(re.escape(sentence) + r"(\d\.\de[-+]\d+)", text)
    assert float(found[1]) < 1e-12


@pytest.mark.parametrize("lang, sizes, head, tile", [("en", {}, 2, 2), ("zh", RESIZED, 1, 2)])
def test_the_memory_sentence_counts_what_the_tiles_hold(lang, sizes, head, tile):
    at = run(stage="variants", variant="online", lang=lang, head=head, tile=tile, part="check", **sizes)
    cfg = mha.AttentionConfig(**sizes)
    n, d_v = cfg.n_tokens, cfg.d_v
    expected = TABLES[lang]["lab_online_memory"].format(
        tile=f"{n * tile:,}", two=f"{2 * n:,}", acc=f"{n * d_v:,}", held=f"{n * tile + 2 * n + n * d_v:,}",
        s=f"{n * n:,}", big="4,096", big_held=f"{4096 * (tile + 2 + d_v):,}", big_s=f"{4096 ** 2:,}")
    assert expected in page_text(at)


@pytest.mark.parametrize("lang, sizes, head, tile, cell", [("en", {}, 1, 2, (2, 4)), ("zh", RESIZED, 2, 3, (4, 1))])
def test_a_click_on_out_writes_acc_over_l_and_the_row_s_way_there(lang, sizes, head, tile, cell):
    at = run(stage="variants", variant="online", lang=lang, head=head, tile=tile, part="click", **sizes)
    at.session_state["sel_lab_online"] = cell
    at.session_state["frame_lab_online"] = 0
    rerun(at)
    q, k, v = operands(sizes, head - 1)
    states = loop(q, k, v, tile)
    i, j = cell
    acc, ell, h = states[-1]["acc"][i, j], states[-1]["l"][i], softmax_h(q, k, v)[i, j]
    tex = lambda x: f"{x:.4g}" if x >= 0 else f"({x:.4g})"  # noqa: E731 (prose.tex_num's way)
    text = page_text(at)
    assert rf"\frac{{{tex(acc)}}}{{{tex(ell)}}} = {tex(h)}" in text
    words = TABLES[lang]
    assert words["lab_online_cell_frame"].format(k=1, count=len(states) + 1) in text
    history = table(at, words["lab_online_hist_tile"])
    assert len(history) == sum(1 for s in states if s["start"] <= i)
    fmt = lambda x: f"{x:.4g}".replace("-", "−")  # noqa: E731 (prose.fmt)
    assert [r[2] for r in history] == [fmt(s["m"][i]) if not np.isnan(s["m"][i]) else words["lab_online_hist_nothing"]
                                       for s in states[: len(history)]]
    assert [r[4] for r in history] == [fmt(s["l"][i]) if not np.isnan(s["l"][i]) else "0"
                                       for s in states[: len(history)]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_product_is_acc_equal_to_p_v_and_quizzes(lang):
    at = run(stage="variants", variant="online", lang=lang, part="click")
    assert at.button_group(key="lab_product_online").value == "out"  # out to click comes first, then the product
    at.button_group(key="lab_product_online").set_value("acc")
    rerun(at)
    assert "lab_online" not in dict(keyed_charts(at))  # one at a time
    product = next(spec for key, spec in keyed_charts(at) if key == "lab_online_pv")
    q, k, v = operands({}, 0)
    s = q @ k.T / np.sqrt(q.shape[1])
    s[np.triu(np.ones(s.shape, bool), k=1)] = -np.inf
    p = np.exp(s - s.max(axis=1, keepdims=True))
    assert np.allclose(z(product["data"][2]), p @ v, atol=1e-12)
    at.session_state["sel_lab_online_pv"] = (1, 3)
    rerun(at)
    assert f"{(p @ v)[1, 3]:.4g}".replace("-", "−") in page_text(at) or f"{(p @ v)[1, 3]:.4g}" in page_text(at)
    at.button(key="quiz_start_lab_online_pv").click()
    rerun(at)
    assert at.session_state["quiz_lab_online_pv"] is not None


def test_a_tile_larger_than_n_is_one_tile_and_a_tile_of_one_is_n_frames():
    at = run(stage="variants", variant="online", tile=99)
    assert len(animation(at)["frames"]) == 2 and at.session_state["tile"] == 3
    at = run(stage="variants", variant="online", tile=1)
    assert len(animation(at)["frames"]) == 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tile_box_goes_into_the_link_and_refuses_more_than_n(lang):
    at = run(stage="variants", variant="online", lang=lang)
    at.number_input(key="tile").set_value(3)
    rerun(at)
    assert at.query_params["tile"] == "3" and len(animation(at)["frames"]) == 2
    at.number_input(key="tile").set_value(9)
    rerun(at)
    assert at.session_state["tile"] == 3 and len(animation(at)["frames"]) == 2
    label = TABLES[lang]["lab_online_tile"]
    assert [w.value for w in at.warning] == [TABLES[lang]["number_outside"].format(label=label, low=1, high=3,
                                                                                   value=9, kept=3)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tile_and_the_head_are_in_every_part_and_each_part_shows_its_own(lang):
    """The tile size and the head change all three parts, so all three draw them; the animation plays on what
    changes, takes clicks on the click part, and the check draws no figure of its own."""
    words = TABLES[lang]
    at = run(stage="variants", variant="online", lang=lang, n_heads=3, head=2, tile=1)
    shown, texts = {}, {}
    for part in S.LAB_PARTS:
        at.session_state["lab_part"] = part
        rerun(at)
        assert at.number_input(key="tile").value == 1 and at.button_group(key="head").value == 2, part
        shown[part] = {key: clickable(at, key) for key, _ in keyed_charts(at)}
        texts[part] = page_text(at)
    assert shown == {"change": {"lab_online": False}, "click": {"lab_online": True}, "check": {}}
    play = words["lab_online_play_hint"].format(tiles=3, b=1)
    assert words["lab_online_text"].format(h=2) in texts["change"] and play in texts["change"]
    assert words["lab_online_click_hint"] not in texts["change"]
    assert play in texts["click"] and words["lab_online_click_hint"] in texts["click"]
    assert words["lab_online_check_title"].format(h=2) in texts["check"]


def test_on_a_projector_the_animation_comes_before_its_words():
    at = run(stage="variants", variant="online", present=1)
    order = [("chart" if chart_data(n) is not None else "words") for n in at._tree
             if chart_data(n) is not None or (n.type == "markdown" and "FlashAttention" in n.proto.body)]
    assert order == ["chart", "words"]
    at = run(stage="variants", variant="online")
    order = [("chart" if chart_data(n) is not None else "words") for n in at._tree
             if chart_data(n) is not None or (n.type == "markdown" and "FlashAttention" in n.proto.body)]
    assert order == ["words", "chart"]


def clickable(at, key: str) -> bool:
    """Whether chart `key` is drawn to take clicks (its element says so: chart.spec_html)."""
    found = [data for data in map(chart_data, at.get("html")) if data and data["key"] == key]
    return found[0].get("clickable") == "1"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("tile", ["7", "64", "99999999999"])
def test_a_tile_longer_than_the_tokens_is_cut_to_n_and_said_with_the_value_asked(tile, lang):
    """The red team's N11: `tile=99999999999` was noticed as "64 was used" while the page used 3, and `tile=7` became 3
    with nothing said. The page says the value the link asked for and the n it uses, and the box and link hold n."""
    at = run(stage="variants", variant="online", tile=tile, lang=lang)
    said = TABLES[lang]["lab_online_tile_kept"].format(asked=f"{int(tile):,}", n=3)
    assert said in [c.value for c in at.caption]
    assert not [e for e in [*at.info, *at.warning] if "64" in e.value]  # no notice of a tile the page does not use
    assert at.number_input(key="tile").value == 3 and at.query_params["tile"] == "3"
    rerun(at)  # said until the box moves
    assert said in [c.value for c in at.caption]
    at.number_input(key="tile").set_value(2)
    rerun(at)
    assert said not in [c.value for c in at.caption] and at.query_params.get("tile", "2") == "2"  # the default


def test_a_tile_that_fits_is_used_as_it_is_and_nothing_is_said():
    at = run(stage="variants", variant="online", tile="3", n_tokens=5)
    assert at.number_input(key="tile").value == 3
    assert not [c for c in at.caption if "B =" in c.value]
