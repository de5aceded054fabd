"""The static figures draw what they say: each panel holds exactly the matrix its title names, the title's
shape is that matrix's shape (and says when only part of it is drawn), row 1 is at the top, masked cells
are gaps, block names sit under their blocks, and every figure keeps within its screen's budget."""

import re
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import pytest

import mha
from mha import figures as F
from mha.figures.text import text_px
from mha.ui.strings import EN, ZH

LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}
CONFIGS = {
    "post": mha.AttentionConfig(),
    "large": mha.AttentionConfig(n_tokens=64, d_model=256, n_heads=8),
    "gpt2": mha.AttentionConfig(n_tokens=8, d_model=768, d_k=64, d_v=64, n_heads=12),
}


def words(table=EN) -> F.Words:
    return F.Words(*(table[k] for k in ("trim_rows", "trim_cols", "trim_both", "blocks_hidden", "block_hidden")))


def trace_of(cfg):
    w = mha.init_weights(cfg)
    return w, mha.forward(mha.init_input(cfg), w)


def z(trace: dict) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in trace["z"]], dtype=float)


def titles(spec: dict) -> dict[str, dict]:
    """Panel titles by matrix name: the annotations that start with a bold name."""
    out = {}
    for a in spec["layout"]["annotations"]:
        found = re.match(r"<b>(.*?)</b>(?: · |<br>· |<br>| ·<br>)(\d+)×(\d+)", a["text"])  # a break stands for ·
        if found:
            out[found.group(1)] = a | {"shape": (int(found.group(2)), int(found.group(3))),
                                       "plain": a["text"].replace("<br>", " ")}
    return out


def domain_centre(spec: dict, axis: str) -> float:
    lo, hi = spec["layout"][axis]["domain"]
    return (lo + hi) / 2


def check_panel(spec: dict, trace: dict, values: np.ndarray, name: str, wording: F.Words):
    """The trace draws values (windowed) and the panel's title names it, its full shape, and any trimming."""
    drawn = z(trace)
    rows, cols = drawn.shape
    np.testing.assert_array_equal(drawn, values[:rows, :cols])
    title = titles(spec)[name]
    assert title["shape"] == values.shape, (name, title["shape"], values.shape)
    note = wording.trimmed(values.shape, (rows, cols))
    assert (note in title["plain"]) if note else "drawn" not in title["plain"], title["plain"]
    assert rows == min(values.shape[0], F.MAX_SIDE)
    # the title stands over (or under) its own panel: the panel's middle lies within the title's width
    half = max(text_px(line, title["font"]["size"]) for line in title["text"].split("<br>")) / 2
    half /= spec["layout"]["width"]
    middle = domain_centre(spec, "xaxis" + trace["xaxis"][1:])
    assert title["x"] - half <= middle <= title["x"] + half, (name, title["x"], half, middle)


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", CONFIGS)
def test_every_product_panel_holds_what_its_title_names(size, look):
    cfg = CONFIGS[size]
    w, tr = trace_of(cfg)
    spec = F.product_figure(F.Mat(tr.x, "X"), F.Mat(w.w_q[0], "W"), F.Mat(tr.q[0], "Q"), text=True, formula="Q = XW",
                            words=words(), look=LOOKS[look]).to_dict()
    data = spec["data"]
    check_panel(spec, data[0], tr.x, "X", words())
    check_panel(spec, data[1], w.w_q[0], "W", words())
    check_panel(spec, data[2], tr.q[0], "Q", words())
    assert data[3]["name"] == "click" and (data[3]["xaxis"], data[3]["yaxis"]) == (data[2]["xaxis"], data[2]["yaxis"])


@pytest.mark.parametrize("look", LOOKS)
def test_a_trimmed_title_says_so_in_either_language(look):
    _, tr = trace_of(CONFIGS["large"])
    for table in (EN, ZH):
        spec = F.grid_figure([F.Mat(tr.probs[0], "S", "probs")], text=True, words=words(table),
                             look=LOOKS[look]).to_dict()
        title, side = titles(spec)["S"]["plain"], LOOKS[look].side  # a phone draws 24 of each small multiple
        assert z(spec["data"][0]).shape == (side, side)
        assert title.startswith("<b>S</b> · 64×64 · ") and table["trim_both"].format(rows=side, cols=side) in title


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", CONFIGS)
def test_row_one_is_at_the_top_of_every_panel(size, look):
    cfg = CONFIGS[size]
    w, tr = trace_of(cfg)
    figs = [
        F.product_figure(F.Mat(tr.concat, "C"), F.Mat(w.w_o, "W"), F.Mat(tr.y, "Y"), text=True, formula="Y",
                         words=words(), look=LOOKS[look], blocks=cfg.d_v, block_names=["h"] * cfg.n_heads),
        F.grid_figure([F.Mat(p, "S", "probs") for p in tr.probs], text=True, words=words(), look=LOOKS[look]),
    ]
    for spec in (f.to_dict() for f in figs):
        for trace in spec["data"]:
            y_axis = spec["layout"]["yaxis" + trace["yaxis"][1:]]
            assert y_axis["range"][0] > y_axis["range"][1]  # reversed: row 1 drawn at the top
            if trace["type"] == "heatmap":  # its axis's first row (12 for a projector's second block of W_O's rows)
                assert trace["y0"] == round(y_axis["range"][1] + 0.5) and trace["x0"] == 1


def test_the_grid_draws_each_matrix_in_its_own_panel():
    _, tr = trace_of(CONFIGS["post"])
    mats = [F.Mat(tr.heads[i], f"H{i + 1}") for i in range(2)] + [F.Mat(tr.y, "Y")]
    spec = F.grid_figure(mats, text=True, words=words()).to_dict()
    for trace, m in zip(spec["data"], mats, strict=True):
        check_panel(spec, trace, m.values, m.name, words())


@pytest.mark.parametrize("look", LOOKS)
def test_masked_cells_are_gaps_and_only_they(look):
    """Masked positions are passed, not guessed: an unmasked exact 0 is drawn, a masked cell never is."""
    s = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.25, 0.0, 0.75]])  # row 2 puts an exact 0 below the diagonal
    mask = np.triu(np.ones((3, 3), bool), k=1)
    spec = F.grid_figure([F.Mat(s, "S", "probs", mask=mask)], text=True, words=words(), look=LOOKS[look]).to_dict()
    drawn = z(spec["data"][0])
    assert np.all(np.isnan(drawn[mask])) and not np.any(np.isnan(drawn[~mask]))
    assert drawn[1, 0] == 0.0 and drawn[2, 1] == 0.0
    text = spec["data"][0].get("text")
    assert text and all(text[i][j] == "" for i, j in zip(*np.nonzero(mask)))  # no number in a masked cell
    assert text[1][0] == "0"


def block_label_positions(spec: dict, names: list[str], along: str = "x") -> dict[str, float]:
    return {a["text"]: a[along] for a in spec["layout"]["annotations"] if a["text"] in names}


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", CONFIGS)
def test_concat_block_names_sit_under_their_blocks(size, look):
    cfg = CONFIGS[size]
    _, tr = trace_of(cfg)
    names = [f"head {i + 1}" for i in range(cfg.n_heads)]
    spec = F.grid_figure([F.Mat(tr.concat, "Concat")], text=True, words=words(), look=LOOKS[look],
                         block_cols=cfg.d_v, block_names=names).to_dict()
    cols = z(spec["data"][0]).shape[1]
    lo, hi = spec["layout"]["xaxis"]["domain"]
    placed = block_label_positions(spec, names)
    drawn = -(-cols // cfg.d_v)
    assert placed and set(placed) <= set(names[:drawn])
    for name, x in placed.items():
        b = names.index(name)
        first, last = b * cfg.d_v + 1, min((b + 1) * cfg.d_v, cols)
        centre = lo + ((first + last) / 2 - 0.5) / cols * (hi - lo)
        assert abs(x - centre) < 0.5 / cols * (hi - lo), (name, x, centre)
    title = titles(spec)["Concat"]["plain"]
    if drawn < cfg.n_heads:
        assert words().hidden(drawn + 1, cfg.n_heads) in title
    else:
        assert "not drawn" not in title
    for name in names[:drawn]:  # every drawn head is named (unless names would touch: then every other one)
        assert name in placed or len(placed) < drawn


@pytest.mark.parametrize("look", LOOKS)
def test_block_names_never_overlap_however_many_blocks_they_skip(look):
    """Planted 2026-12-07 (p17): with 32 blocks one column wide, the names were written every other block whatever
    room they needed, so 'head 1', 'head 3', … lay over one another. Each name written keeps clear of the next."""
    concat = np.random.default_rng(0).standard_normal((3, 32))
    names = [f"head {i + 1}" for i in range(32)]
    spec = F.grid_figure([F.Mat(concat, "Concat")], text=True, words=words(), look=LOOKS[look], block_cols=1,
                         block_names=names).to_dict()
    width = spec["layout"]["width"]
    placed = sorted((a["x"] * width, text_px(a["text"], a["font"]["size"]), a["text"])
                    for a in spec["layout"]["annotations"] if a["text"] in names)
    assert len(placed) >= 2
    for (x, w, name), (x_next, w_next, name_next) in zip(placed, placed[1:]):
        assert x + w / 2 < x_next - w_next / 2, (name, name_next, x, x_next, w)


def test_output_block_names_sit_beside_their_blocks_of_w_o():
    cfg = CONFIGS["post"]
    w, tr = trace_of(cfg)
    spec = F.product_figure(F.Mat(tr.concat, "C"), F.Mat(w.w_o, "W"), F.Mat(tr.y, "Y"), text=True, formula="Y",
                            words=words(), blocks=cfg.d_v, block_names=["head 1", "head 2"]).to_dict()
    lo, hi = spec["layout"]["yaxis2"]["domain"]
    k = w.w_o.shape[0]
    for b, name in enumerate(["head 1", "head 2"]):
        y = block_label_positions(spec, [name], "y")[name]
        centre_row = b * cfg.d_v + (cfg.d_v + 1) / 2
        assert abs(y - (hi - (centre_row - 0.5) / k * (hi - lo))) < 0.5 / k * (hi - lo)


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", CONFIGS)
def test_figures_keep_within_their_screen(size, look):
    cfg, lk = CONFIGS[size], LOOKS[look]
    w, tr = trace_of(cfg)
    product = F.product_figure(F.Mat(tr.concat, "C"), F.Mat(w.w_o, "W"), F.Mat(tr.y, "Y"), text=True, formula="Y",
                               words=words(), look=lk, blocks=cfg.d_v, block_names=["h"] * cfg.n_heads).to_dict()
    grid = F.grid_figure([F.Mat(p, "S", "probs") for p in tr.probs], text=True, words=words(), look=lk).to_dict()
    for spec in (product, grid):
        assert spec["layout"]["width"] <= lk.max_w + 8
        if not lk.narrow:
            assert spec["layout"]["height"] <= lk.fig_h
    assert product["layout"]["height"] <= lk.fig_h or lk.narrow


def test_the_answer_gets_numbers_in_presenter_mode():
    """Y at the post's sizes on a projector: numbers in every cell, in the projector's type size."""
    w, tr = trace_of(CONFIGS["post"])
    spec = F.product_figure(F.Mat(tr.concat, "C"), F.Mat(w.w_o, "W"), F.Mat(tr.y, "Y"), text=True, formula="Y",
                            words=words(), look=F.PRESENT, blocks=11, block_names=["h1", "h2"]).to_dict()
    y = spec["data"][2]
    assert y["texttemplate"] == "%{text}" and y["textfont"]["size"] >= F.PRESENT.cell_text - 2
    assert all(s for row in y["text"] for s in row)
    assert spec["layout"]["height"] <= F.PRESENT.fig_h


@pytest.mark.parametrize("look", LOOKS)
def test_plotly_accepts_every_property(look):
    w, tr = trace_of(CONFIGS["large"])
    for fig in (F.product_figure(F.Mat(tr.concat, "C"), F.Mat(w.w_o, "W"), F.Mat(tr.y, "Y"), text=True,
                                 formula="Y", words=words(), look=LOOKS[look], blocks=11, block_names=["h"] * 8,
                                 hidden=(0, 0)),
                F.grid_figure([F.Mat(tr.concat, "C")], text=True, words=words(), look=LOOKS[look], block_cols=11,
                              block_names=["h"] * 8, axis_titles=True)):
        go.Figure(fig.to_dict())


def horizontal_extent(note: dict, width: float) -> tuple[float, float]:
    """Left and right edge (px) of an unrotated paper-anchored annotation in a figure `width` px wide."""
    wide = max(text_px(line, note["font"]["size"]) for line in note["text"].split("<br>"))
    x = note["x"] * width
    return {"left": (x, x + wide), "right": (x - wide, x), "center": (x - wide / 2, x + wide / 2)}[note["xanchor"]]


def product_cases(cfg, table) -> dict[str, dict]:
    """The product figures of the walk: Q = X·W_Q (a narrow C) and Y = Concat·W_O (blocks named beside W_O)."""
    w, tr = trace_of(cfg)
    x = mha.init_input(cfg)
    names = [table["head_word"].format(h=h + 1) for h in range(cfg.n_heads)]
    return {
        "q": dict(a=F.Mat(x, "X"), b=F.Mat(w.w_q[0], "W<sub>Q1</sub>"), c=F.Mat(tr.q[0], "Q<sub>1</sub>"),
                  formula="Q<sub>1</sub> = X · W<sub>Q1</sub>"),
        "y": dict(a=F.Mat(tr.concat, "Concat"), b=F.Mat(w.w_o, "W<sub>O</sub>"), c=F.Mat(tr.y, "Y"),
                  formula="Y = Concat · W<sub>O</sub>", blocks=cfg.d_v, block_names=names),
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", CONFIGS)
def test_every_label_of_a_product_is_inside_the_figure(size, look, lang):
    """Titles, axis words and the head names beside W_O's blocks: none is cut off at the figure's edge (on a
    phone the stacked product once put the head names past the right edge)."""
    table = {"en": EN, "zh": ZH}[lang]
    for case, parts in product_cases(CONFIGS[size], table).items():
        spec = F.product_figure(**parts, text=True, words=words(table), look=LOOKS[look]).to_dict()
        width = spec["layout"]["width"]
        for note in spec["layout"]["annotations"]:
            if note.get("textangle", 0) in (0, None):
                left, right = horizontal_extent(note, width)
                assert -1 <= left and right <= width + 1, (case, note["text"], left, right, width)


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", CONFIGS)
def test_a_clicked_cell_of_c_is_outlined_with_its_row_of_a_and_column_of_b(size, look):
    """The figure says how the page outlines a clicked cell (i, j) of C, crossed, stacked or long: row i of A across
    every column drawn (column i of Aᵀ down every row, where a phone draws A transposed), column j of B down every
    row drawn, and the cell on C's axes (its click layer's); any cell drawn may be chosen."""
    for case, parts in product_cases(CONFIGS[size], EN).items():
        spec = F.product_figure(**parts, text=True, words=words(), look=LOOKS[look]).to_dict()
        rule, data = spec["layout"]["meta"]["outline"], spec["data"]
        click = next(t for t in data if t.get("name") == "click")
        transposed = data[0]["name"].endswith("<sup>T</sup>")
        k = z(data[0]).shape[0 if transposed else 1]
        assert rule["cells"] == list(z(data[2]).shape), case
        boxes = {(b["shape"]["xref"], b["shape"]["yref"]): (b["x"], b["y"]) for b in rule["boxes"]}
        a_box = ("i", [1, k]) if transposed else ([1, k], "i")
        b_boxes, first = {}, 1  # B's panels: one, or its blocks of rows side by side (a projector's W_O)
        for t in (t for t in data if t["type"] == "heatmap" and t["name"] == data[1]["name"]):
            b_boxes[t["xaxis"], t["yaxis"]] = ("j", [first, first + len(t["z"]) - 1])
            first += len(t["z"])
        assert first == k + 1, case
        assert boxes == {(data[0]["xaxis"], data[0]["yaxis"]): a_box, **b_boxes,
                         (click["xaxis"], click["yaxis"]): ("j", "i")}, case


@pytest.mark.parametrize("look", LOOKS)
def test_titles_of_one_column_panels_neither_overlap_nor_leave_the_figure(look):
    """μ and σ² of a layer norm are 64×1: a panel one cell wide; its Chinese title must get a slot of its own
    (they once overlapped on a projector and ran off a phone's figure)."""
    rng = np.random.default_rng(0)
    mats = [F.Mat(rng.normal(size=(64, 1)), name) for name in ("μ<sub>1</sub>", "σ²<sub>1</sub>")]
    mats.append(F.Mat(rng.normal(size=(64, 13)), "LN<sub>1</sub>"))
    spec = F.grid_figure(mats, text=True, words=words(ZH), look=LOOKS[look]).to_dict()
    width = spec["layout"]["width"]
    titles = [a for a in spec["layout"]["annotations"] if a["text"].startswith("<b>")]
    boxes = [(a["y"], *horizontal_extent(a, width)) for a in titles]
    for _, left, right in boxes:
        assert -1 <= left and right <= width + 1, (left, right, width)
    for k, (y1, l1, r1) in enumerate(boxes):
        for y2, l2, r2 in boxes[k + 1:]:
            assert abs(y1 - y2) > 1e-9 or r1 <= l2 + 1 or r2 <= l1 + 1, ((l1, r1), (l2, r2))


def colour_bar_box(spec: dict) -> tuple[float, float, float, float]:
    """Left, right, top, bottom (px) of the product's colour bar with its labels."""
    layout = spec["layout"]
    width, height = layout["width"], layout["height"]
    bar = next(t["colorbar"] for t in spec["data"] if t.get("colorbar"))
    left, top = bar["x"] * width, (1 - bar["y"]) * height
    labels = max(text_px(s, bar["tickfont"]["size"]) for s in bar["ticktext"])
    return left, left + bar["thickness"] + 4 + labels, top, top + bar["len"] * height


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("look", LOOKS)
def test_the_answers_title_keeps_clear_of_its_colour_bar(look, lang):
    """A C of few rows (the logits of a short text: 6×5) has a colour bar longer than itself, reaching down
    beside C's title; the title once ran under the bar on a projector."""
    rng = np.random.default_rng(1)
    table = {"en": EN, "zh": ZH}[lang]
    for n, k, m in [(1, 13, 5), (2, 64, 7), (3, 5, 3), (6, 13, 5), (6, 256, 5), (6, 256, 40), (3, 768, 64)]:
        c = rng.normal(size=(n, m)) * 10
        spec = F.product_figure(F.Mat(rng.normal(size=(n, k)), "LN<sub>f</sub>(Y)"),
                                F.Mat(rng.normal(size=(k, m)), "E<sup>T</sup>"), F.Mat(c, "logits"),
                                text=True, formula="logits = LN<sub>f</sub>(Y) · E<sup>T</sup>",
                                words=words(table), look=LOOKS[look]).to_dict()
        if "xaxis3" in spec["layout"]:  # stacked on a phone: C has a row of its own
            continue
        width, height = spec["layout"]["width"], spec["layout"]["height"]
        left, right, top, bottom = colour_bar_box(spec)
        title = titles(spec)["logits"]
        t_left, t_right = horizontal_extent(title, width)
        t_top = (1 - title["y"]) * height
        assert title["yanchor"] == "top"
        assert t_right <= left + 1 or t_top >= bottom - 1, ((n, k, m), (t_left, t_right, t_top), (left, bottom))
        assert t_top + (1.3 * title["text"].count("<br>") + 1.3) * title["font"]["size"] <= height + 1


def read_number(s: str) -> float:
    return float(s.replace("−", "-"))


def written(trace: dict) -> tuple[np.ndarray, int]:
    """A panel's cell numbers as written (read back as floats; NaN where a cell has none) and their decimals."""
    text = trace.get("text") or []
    values = np.array([[read_number(s) if s else np.nan for s in row] for row in text], dtype=float)
    decimals = max((len(s.split(".")[1]) for row in text for s in row if "." in s), default=0)
    return values, decimals


def output_product(look, hidden=None) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    w, tr = trace_of(CONFIGS["post"])
    spec = F.product_figure(F.Mat(tr.concat, "Concat"), F.Mat(w.w_o, "W<sub>O</sub>"), F.Mat(tr.y, "Y"), text=True,
                            formula="Y = Concat · W<sub>O</sub>", words=words(), look=look, blocks=11,
                            block_names=["head 1", "head 2"], hidden=hidden).to_dict()
    return spec, tr.concat, w.w_o, tr.y


READABLE = {"desk": 11, "present": 14, "phone": 11}  # px: the least a screen writes Concat's and W_O's numbers in


@pytest.mark.parametrize("look", LOOKS)
def test_concat_and_w_o_write_every_number_at_the_posts_sizes(look):
    """The output section's two matrices, Concat (3×22) and W_O (22×5), with every cell's number written, rounded
    from the matrix itself, in a type no smaller than the screen's least (READABLE), within the screen. A phone draws
    Concat transposed beside W_O, row k of one beside row k of the other (audit 2026-12-06 #9: there at 9 px); a
    projector W_O's two heads' blocks of rows side by side, each a panel (issue 46 item 3: W_O ran off its screen)."""
    lk = LOOKS[look]
    spec, concat, w_o, y = output_product(lk)
    w_o_blocks = [t for t in spec["data"] if t.get("type") == "heatmap" and t["name"] == spec["data"][1]["name"]]
    assert len(w_o_blocks) == (2 if look == "present" else 1)  # a projector's: the heads' blocks side by side
    blocks = np.cumsum([0] + [len(t["z"]) for t in w_o_blocks])
    for trace, values in zip([*spec["data"][:3:2], *w_o_blocks],
                             (concat.T if lk.narrow else concat, y, *(w_o[a:b] for a, b in zip(blocks, blocks[1:])))):
        shown, decimals = written(trace)
        assert shown.shape == values.shape and np.isfinite(shown).all(), trace["name"]
        assert decimals >= 2
        np.testing.assert_allclose(shown, values, atol=0.5 * 10.0 ** -decimals + 1e-12, rtol=0)
        assert trace["texttemplate"] == "%{text}" and trace["textfont"]["size"] >= READABLE[look]
    assert spec["layout"]["width"] <= lk.max_w and spec["layout"]["height"] <= lk.fig_h


def test_a_product_held_to_a_lower_figure_keeps_its_numbers_in_lower_rows():
    """On a projector under its controls (view.first_screen: fig_h 560), the next token's LN_f(Y)·Eᵀ (3×5 · 5×8)
    once shrank its cells to fit, and LN_f(Y)'s columns (Eᵀ's rows) lost their numbers. Its rows are made lower
    instead: every cell of the three panels written in the format it has at full height, each number within its
    cell, and the figure within the height."""
    cfg = mha.AttentionConfig()
    final = mha.layer_norm(mha.forward(mha.init_input(cfg), mha.init_weights(cfg)).y, np.ones(5), np.zeros(5))
    e = np.random.default_rng(0).standard_normal((8, 5))
    mats = (F.Mat(final, "LN"), F.Mat(e.T, "E<sup>T</sup>"), F.Mat(final @ e.T, "logits"))
    tall = F.product_figure(*mats, text=True, formula="logits", words=words(), look=F.PRESENT).to_dict()
    look = replace(F.PRESENT, fig_h=560)
    spec = F.product_figure(*mats, text=True, formula="logits", words=words(), look=look).to_dict()
    assert tall["layout"]["height"] > 560 >= spec["layout"]["height"]  # it had to come down
    def cells(spec: dict, trace: dict, values: np.ndarray) -> tuple[float, float]:
        lay = spec["layout"]
        xa, ya = lay["xaxis" + trace["xaxis"][1:]], lay["yaxis" + trace["yaxis"][1:]]
        return ((xa["domain"][1] - xa["domain"][0]) * lay["width"] / values.shape[1],
                (ya["domain"][1] - ya["domain"][0]) * lay["height"] / values.shape[0])

    for trace, full, values in zip(spec["data"][:3], tall["data"][:3], (final, e.T, final @ e.T)):
        shown, decimals = written(trace)
        assert shown.shape == values.shape and np.isfinite(shown).all(), trace["name"]
        assert (decimals, trace["textfont"]["size"]) == (written(full)[1], full["textfont"]["size"])
        (cell_w, cell_h), (full_w, full_h) = cells(spec, trace, values), cells(tall, full, values)
        size = trace["textfont"]["size"]
        assert max(text_px(s, size) for row in trace["text"] for s in row) + 6 <= cell_w + 1e-6
        assert size * 1.2 + 2 <= cell_h + 1e-6
        assert abs(cell_w - full_w) < 0.5 and cell_h < full_h  # as wide as at full height, lower
    low = replace(F.PRESENT, fig_h=300)  # lower than its numbers' rows allow: the cells shrink instead, not to strips
    spec = F.product_figure(*mats, text=True, formula="logits", words=words(), look=low).to_dict()
    for trace, values in zip(spec["data"][:3], (final, e.T, final @ e.T)):
        cell_w, cell_h = cells(spec, trace, values)
        assert cell_h >= 0.75 * cell_w, (trace["name"], cell_w, cell_h)


def test_a_product_held_to_a_projectors_first_screen_writes_its_factors_too_where_the_width_allows():
    """Audit 2026-12-07 #7: the next token on a projector with a six-token text (LN_f(Y) 6×5 · Eᵀ 5×4) wrote only the
    logits. Their numbers were bought by squeezing LN_f(Y)'s columns and Eᵀ's rows to 10 px strips, while the figure
    took a third of the screen's width. Columns as wide as the width gives, rows lowered to the height, write all
    three, at the projector's own type size."""
    rng = np.random.default_rng(1)
    final, e = np.round(rng.standard_normal((6, 5)), 3), np.round(rng.standard_normal((4, 5)), 2)
    mats = (F.Mat(final, "LN"), F.Mat(e.T, "E<sup>T</sup>"), F.Mat(final @ e.T, "logits"))
    look = replace(F.PRESENT, fig_h=560)
    spec = F.product_figure(*mats, text=True, formula="logits", words=words(), look=look).to_dict()
    assert spec["layout"]["height"] <= 560
    for trace, values in zip(spec["data"][:3], (final, e.T, final @ e.T)):
        shown, _ = written(trace)
        assert shown.shape == values.shape and np.isfinite(shown).all(), trace["name"]
        assert trace["textfont"]["size"] >= F.PRESENT.cell_text
    for n, d, m in ((6, 5, 4), (3, 8, 8), (2, 8, 8), (3, 5, 14)):  # and never wider than the screen (planted p01:
        a, b = rng.standard_normal((n, d)), rng.standard_normal((d, m))  # the gap between A and C left out: 1124 px)
        spec = F.product_figure(F.Mat(a, "A"), F.Mat(b, "B"), F.Mat(a @ b, "C"), text=True, formula="C",
                                words=words(), look=look).to_dict()
        assert spec["layout"]["width"] <= look.max_w and spec["layout"]["height"] <= 560, (n, d, m)


def test_a_long_inner_dimension_held_to_a_projectors_first_screen_goes_in_a_row():
    """The lab's RoPE scores Q_rot · K_rotᵀ (3×7 · 7×3) under its controls and head picker on a projector (fig_h 308):
    the long layout (A over B, C beside B) fits there only in 14 px numbers, and unheld it ran 125 px past the 720 px
    screen (bench/README.md, the twelfth session). A, B and C in one row, tops aligned, A · B = C written between
    them, every number at the projector's 16 px, C's colour bar kept, within the height and width; a clicked cell
    still outlines its row of A and column of B. Unheld, the long layout stays on a projector, the cross on a desk."""
    cfg = replace(mha.AttentionConfig(), rotary_dims=6)
    tr = mha.forward(mha.init_input(cfg), mha.init_weights(cfg), cfg)
    values = (tr.q_rot[0], tr.k_rot[0].T, tr.scores[0])
    mats = [F.Mat(v, n) for v, n in zip(values, ("Q<sup>rot</sup>", "K<sup>rot</sup>ᵀ", "S"))]
    look = replace(F.PRESENT, fig_h=308)
    spec = F.product_figure(*mats, text=True, formula="Q · K", words=words(), look=look).to_dict()
    lay = spec["layout"]
    assert lay["height"] <= 308 and lay["width"] <= look.max_w
    for trace, v in zip(spec["data"][:3], values):
        shown, decimals = written(trace)
        np.testing.assert_allclose(shown, v, atol=0.5 * 10.0 ** -decimals + 1e-12, rtol=0)
        assert trace["textfont"]["size"] == F.PRESENT.cell_text, trace["name"]
    tops = {round(lay[f"yaxis{s}"]["domain"][1], 9) for s in ("", "2", "3")}
    lefts = [lay[f"xaxis{s}"]["domain"][0] for s in ("", "2", "3")]
    assert len(tops) == 1 and lefts == sorted(lefts), (tops, lefts)
    signs = [a for a in lay["annotations"] if a["text"] in ("<b>·</b>", "<b>=</b>")]
    assert [a["text"] for a in signs] == ["<b>·</b>", "<b>=</b>"]
    for sign, (left, right) in zip(signs, (("", "2"), ("2", "3"))):  # between the panels, at the middle of A's rows
        assert lay[f"xaxis{left}"]["domain"][1] < sign["x"] < lay[f"xaxis{right}"]["domain"][0], sign
        assert abs(sign["y"] - sum(lay["yaxis"]["domain"]) / 2) < 0.01, (sign["y"], lay["yaxis"]["domain"])
    assert spec["data"][2]["showscale"]
    boxes = {(b["shape"]["xref"], b["shape"]["yref"]): (b["x"], b["y"]) for b in lay["meta"]["outline"]["boxes"]}
    assert boxes == {("x", "y"): ([1, 7], "i"), ("x2", "y2"): ("j", [1, 7]), ("x3", "y3"): ("j", "i")}
    for free, a_on_top in ((F.PRESENT, True), (F.DESK, False)):
        lay = F.product_figure(*mats, text=True, formula="Q · K", words=words(), look=free).to_dict()["layout"]
        assert (lay["yaxis"]["domain"][1] > lay["yaxis2"]["domain"][1]) is a_on_top, free
        assert not any(a["text"] == "<b>=</b>" for a in lay["annotations"]), free


def test_small_multiples_held_to_a_lower_figure_keep_their_numbers_in_lower_rows():
    """MLA's rebuilt K and V beside the latent c on a projector under the lab's controls (fig_h 380) once fell to one
    row of cells too small for the projector's type (14 px) and lost a decimal. Their rows are made lower instead:
    every number written as in the unheld figure, within its cell, the figure within its height; held lower than its
    numbers allow, the cells shrink square as before, never to strips."""
    w, tr = trace_of(CONFIGS["post"])
    mla = mha.mla_forward(mha.init_input(CONFIGS["post"]), mha.mla_from(w, 4))
    mats = [F.Mat(mla.latent, "c"), F.Mat(mla.k[0], "K"), F.Mat(mla.v[0], "V")]
    free = F.grid_figure(mats, text=True, words=words(), look=F.PRESENT).to_dict()
    held = F.grid_figure(mats, text=True, words=words(), look=replace(F.PRESENT, fig_h=380)).to_dict()
    assert free["layout"]["height"] > 380 >= held["layout"]["height"]
    for spec in (free, held):
        lay = spec["layout"]
        for trace, m in zip(spec["data"], mats):
            shown, decimals = written(trace)
            assert np.isfinite(shown).all() and decimals == 3 and trace["textfont"]["size"] == F.PRESENT.cell_text
            np.testing.assert_allclose(shown, m.values, atol=0.0005 + 1e-12, rtol=0)
            xa, ya = lay["xaxis" + trace["xaxis"][1:]], lay["yaxis" + trace["yaxis"][1:]]
            cell_w = (xa["domain"][1] - xa["domain"][0]) * lay["width"] / m.values.shape[1]
            cell_h = (ya["domain"][1] - ya["domain"][0]) * lay["height"] / m.values.shape[0]
            assert max(text_px(s, 16) for row in trace["text"] for s in row) + 6 <= cell_w + 1e-6
            assert 16 * 1.2 + 2 <= cell_h + 1e-6
        boxes = [(*lay["xaxis" + t["xaxis"][1:]]["domain"], *lay["yaxis" + t["yaxis"][1:]]["domain"])
                 for t in spec["data"][:3]]
        assert all(0 <= v <= 1 for box in boxes for v in box)  # inside the figure, and no panel over another
        assert not any(a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]
                       for i, a in enumerate(boxes) for b in boxes[i + 1:])
    for fig_h in (200, 120):  # lower: fewer decimals in lower rows, then square cells without numbers
        low = F.grid_figure(mats, text=True, words=words(), look=replace(F.PRESENT, fig_h=fig_h)).to_dict()
        lay = low["layout"]
        for trace, m in zip(low["data"], mats):
            xa, ya = lay["xaxis" + trace["xaxis"][1:]], lay["yaxis" + trace["yaxis"][1:]]
            cell_w = (xa["domain"][1] - xa["domain"][0]) * lay["width"] / m.values.shape[1]
            cell_h = (ya["domain"][1] - ya["domain"][0]) * lay["height"] / m.values.shape[0]
            if trace.get("text"):
                assert trace["textfont"]["size"] * 1.2 + 2 <= cell_h + 1e-6, (fig_h, trace["name"], cell_h)
            else:
                assert abs(cell_h - cell_w) < 0.5, (fig_h, trace["name"], cell_w, cell_h)


@pytest.mark.parametrize("look", LOOKS)
def test_every_number_of_a_cell_of_y_fits_its_cell(look):
    """Each written number of the long layout fits its cell's width and height (as text_px measures it)."""
    lk = LOOKS[look]
    spec, *_ = output_product(lk)
    lay = spec["layout"]
    for trace in spec["data"][:3]:
        xa, ya = lay["xaxis" + trace["xaxis"][1:]], lay["yaxis" + trace["yaxis"][1:]]
        rows, cols = len(trace["z"]), len(trace["z"][0])
        cell_w = (xa["domain"][1] - xa["domain"][0]) * lay["width"] / cols
        cell_h = (ya["domain"][1] - ya["domain"][0]) * lay["height"] / rows
        size = trace["textfont"]["size"]
        assert max(text_px(s, size) for row in trace["text"] for s in row) + 6 <= cell_w + 1e-6
        assert size * 1.2 + 2 <= cell_h + 1e-6


def test_the_heads_concat_writes_every_number_on_a_desk_and_a_projector():
    w, tr = trace_of(CONFIGS["post"])
    for lk in (F.DESK, F.PRESENT):
        spec = F.grid_figure([F.Mat(tr.concat, "Concat")], text=True, words=words(), look=lk, block_cols=11,
                             block_names=["head 1", "head 2"]).to_dict()
        shown, decimals = written(spec["data"][0])
        assert shown.shape == tr.concat.shape and decimals >= 2
        np.testing.assert_allclose(shown, tr.concat, atol=0.5 * 10.0 ** -decimals + 1e-12, rtol=0)
        assert spec["data"][0]["textfont"]["size"] >= max(9, lk.cell_text - 2)


def test_a_phone_outlines_column_i_of_concat_transposed_beside_column_j_of_w_o():
    """On a phone's Concatᵀ beside W_O, a clicked Y[i, j] outlines column i of Concatᵀ (row i of Concat), column j of
    W_O and the cell; Concatᵀ's rows are numbered once, left of it, with W_O's rows beside them."""
    spec, *_ = output_product(F.PHONE)
    lay = spec["layout"]
    cells, boxes = lay["meta"]["outline"]["cells"], {(b["shape"]["xref"], b["shape"]["yref"]): (b["x"], b["y"])
                                                      for b in lay["meta"]["outline"]["boxes"]}
    assert cells == [3, 5]
    concat_t, w_o, y = ((t["xaxis"], t["yaxis"]) for t in spec["data"][:3])
    assert boxes == {concat_t: ("i", [1, 22]), w_o: ("j", [1, 22]), y: ("j", "i")}
    assert lay[f"yaxis{concat_t[1][1:]}"]["domain"] == lay[f"yaxis{w_o[1][1:]}"]["domain"]  # rows side by side
    assert lay[f"yaxis{w_o[1][1:]}"]["showticklabels"] is False
    assert titles(spec)["Concat<sup>T</sup>"]["shape"] == (22, 3)  # the title names what is drawn: Concat transposed


@pytest.mark.parametrize("per_row, rows", [(2, [[0, 1], [2, 3], [4]]), ((1, 2), [[0], [1, 2], [3, 4]]),
                                           ((1, 3, 1), [[0], [1, 2, 3], [4]])])
def test_small_multiples_take_each_row_s_count_in_turn(per_row, rows):
    """per_row as one count, or as row lengths in turn, the last repeated: panels sharing a row share its height."""
    spec = F.grid_figure([F.Mat(np.ones((2, 2)), f"M{i}") for i in range(5)], text=True, words=words(),
                         per_row=per_row).to_dict()
    layout = spec["layout"]
    top = [layout[f"yaxis{i + 1 if i else ''}"]["domain"][1] for i in range(5)]
    found = [[i for i in range(5) if top[i] == level] for level in sorted(set(top), reverse=True)]
    assert found == rows
