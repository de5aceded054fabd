"""The KV-cache animation draws what its titles say, checked against an independent computation.

Each panel is found from the figure alone (its title sits just above it), the matrix its title names is
computed here with mha.forward and mha.KVCache, and every frame is compared cell by cell: the K cache
panel holds the cache's K, S rows 1..t-1 are the full recompute's S and row t the cached step's, Y rows
1..t-1 are Y before the token arrived; a title's shape is its matrix's shape, and a trimmed panel's title
says which rows and columns are drawn; row 1 is at the top and the new row is the last drawn row.
"""

import itertools
import re

import numpy as np
import pytest

import mha
from mha import figures as F
from mha.figures.base import CELL_PAD
from mha.figures.cache import cache_animation
from mha.figures.text import text_px
from mha.ui.kv.shared import decode_rows
from mha.ui.kv.step import cache_step
from mha.ui.strings import Text
from mha.ui.view import View

# The story of the frames: from which frame on each matrix has its row t (S shows q_t·Kᵀ/√d_k at frame 2
# and its softmax from frame 3 on).
ROW_T_FROM = dict(Q=1, K=1, V=1, S=2, H=5, Y=5)
FRAMES = 6

CASES = {
    "post, X4 arrives": (dict(), 4, 0),
    "resized": (dict(d_k=13, d_v=17, n_heads=3), 5, 2),
    "first token": (dict(), 1, 0),
    "second token": (dict(), 2, 1),
    "trimmed": (dict(d_model=29, d_k=23, d_v=19, n_heads=2), 19, 1),
}


def _case(sizes: dict, t: int, head: int, lang: str, look: F.Look):
    """The app's step for token t (the view builds it) and the figure, plus what is expected in each panel."""
    cfg = mha.AttentionConfig(n_tokens=t, **sizes)
    w = mha.init_weights(cfg)
    x = np.stack([mha.next_token(cfg, i) for i in range(t)])
    cache = mha.KVCache(w)
    steps = [cache.append(r) for r in x]
    full = mha.forward(x, w)
    view = View(Text(lang), cfg, w, x, head, True, look)
    before = mha.forward(x[:-1], w) if t > 1 else None
    spec = cache_animation(cache_step(view, decode_rows(view, "mha", x)), text=True, look=look).to_dict()
    step = steps[-1]
    # Rows 1..t-1 (what was there before X_t) and row t (what the step computes), per matrix.
    old = dict(Q=full.q[head][:-1], K=cache.k[head][:-1], V=cache.v[head][:-1],
               S=full.probs[head][:-1], H=full.heads[head][:-1], Y=before.y if before else np.zeros((0, cfg.d_model)))
    new = dict(Q=step.q[head], K=step.k[head], V=step.v[head], S=step.probs[head], H=step.heads[head], Y=step.y)
    shapes = dict(Q=(t, cfg.d_k), K=(t, cfg.d_k), V=(t, cfg.d_v), S=(t, t), H=(t, cfg.d_v), Y=(t, cfg.d_model))
    return spec, old, new, step.scaled[head], shapes


def _frame_traces(spec: dict, k: int) -> list[dict]:
    """Frame k's traces: the figure's traces with that frame's changes merged in (as Plotly does)."""
    frame = spec["frames"][k]
    indices = frame.get("traces", range(len(frame["data"])))
    traces = [dict(tr) for tr in spec["data"]]
    for i, patch in zip(indices, frame["data"]):
        traces[i].update(patch)
    return traces


def _z(trace: dict) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in trace["z"]], dtype=float)


def panels(spec: dict) -> dict:
    """Title text -> (x axis, y axis), pairing each title with the plot area right under it."""
    lay = spec["layout"]
    areas = {}
    for key, ax in lay.items():
        if key.startswith("xaxis"):
            ya = lay[ax["anchor"].replace("y", "yaxis")]
            areas[(key.replace("axis", ""), ax["anchor"])] = (ax["domain"], ya["domain"])
    out = {}
    for note in lay["annotations"]:
        if not note["text"].startswith("<b>"):
            continue
        below = [(note["y"] - yd[1], axes) for axes, (xd, yd) in areas.items()
                 if xd[0] <= note["x"] <= xd[1] and yd[1] <= note["y"]]
        assert below, note["text"]
        out[note["text"]] = min(below)[1]
    return out


def drawn(traces: list[dict], axes: tuple[str, str]) -> dict:
    """(row, column) -> (value, opacity) of every cell the heatmaps on `axes` draw (empty slots left out)."""
    cells = {}
    for tr in traces:
        if tr["type"] != "heatmap" or (tr["xaxis"], tr["yaxis"]) != axes or tr.get("hoverinfo") == "skip":
            continue
        z = _z(tr)
        for i, j in zip(*np.nonzero(np.isfinite(z))):
            cell = (int(tr.get("y0", 0)) + i, int(tr.get("x0", 0)) + j)
            assert cell not in cells, f"cell {cell} drawn twice"
            cells[cell] = (z[i, j], tr.get("opacity", 1.0))
    return cells


def _letter(title: str) -> str:
    """The matrix a title names: the last of Q, K, V, S, H, Y in its bold part ("K cache (K₁)" -> K)."""
    bold = re.sub(r"<[^>]+>", "", title.split("</b>")[0])
    return re.findall(r"[QKVSHY]", bold)[-1]


def _title_shape(title: str) -> tuple[int, int]:
    a, b = re.search(r"(\d+)×(\d+)", title.split("<br>")[0]).groups()
    return int(a), int(b)


LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", CASES)
def test_every_panel_of_every_frame_holds_what_its_title_names(case, lang, look):
    sizes, t, head = CASES[case]
    spec, old, new, scaled, shapes = _case(sizes, t, head, lang, LOOKS[look])
    words = Text(lang)
    found = panels(spec)
    assert sorted(_letter(title) for title in found) == sorted("QKVSHY")
    assert len(spec["frames"]) == FRAMES
    for title, axes in found.items():
        letter = _letter(title)
        rows_total, cols_total = shapes[letter]
        assert _title_shape(title) == shapes[letter], title
        if letter != "Y":
            bold = re.sub(r"<[^>]+>", "", title.split("</b>")[0])
            assert (bold.rstrip(")）") if letter in "KV" else bold).endswith(str(head + 1)), title
        lay = spec["layout"]
        ya, xa = lay[axes[1].replace("y", "yaxis")], lay[axes[0].replace("x", "xaxis")]
        assert ya["range"][0] > ya["range"][1], f"{title}: row 1 is not at the top"
        assert ya["range"][0] == t + 0.5, f"{title}: the new row {t} is not the bottom row"
        assert xa["range"][0] < xa["range"][1], f"{title}: columns do not run left to right"
        row_span = range(int(ya["range"][1] + 0.5), int(ya["range"][0] + 0.5))
        col_span = range(int(xa["range"][0] + 0.5), int(xa["range"][1] + 0.5))
        # The last rows are drawn (the new token is the last row); the first columns (S: the rows' tokens).
        assert col_span.start == (row_span.start if letter == "S" else 1), title
        second = title.split("<br>")[1] if "<br>" in title else ""
        trimmed_rows = words.template("kv_last_rows").format(n=len(row_span), total=rows_total)
        trimmed_cols = words.template("kv_last_cols" if letter == "S" else "kv_first_cols").format(n=len(col_span),
                                                                                           total=cols_total)
        window = LOOKS[look].rows_titled  # a projector's caption says the tokens' window, not its titles
        assert (trimmed_rows in second) == (len(row_span) < rows_total and window), title
        assert (trimmed_cols in second) == (len(col_span) < cols_total and (window or letter != "S")), title
        # a projector's titles say the rows drawn on their first line: "S₁ · 6×6" over four rows read as the whole
        drawn_rows = words.ranged("kv_rows_drawn").format(a=row_span.start, b=row_span.stop - 1)
        assert (drawn_rows in title.split("<br>")[0]) == (len(row_span) < rows_total and not window), title
        for k in range(FRAMES):
            cells = drawn(_frame_traces(spec, k), axes)
            expected = {}
            for r in range(1, t):
                for c in range(1, (r if letter == "S" else cols_total) + 1):
                    expected[(r, c)] = old[letter][r - 1, c - 1]
            if k >= ROW_T_FROM[letter]:
                row_t = scaled if letter == "S" and k == ROW_T_FROM["S"] else new[letter]
                expected.update({(t, c): row_t[c - 1] for c in range(1, cols_total + 1)})
            window = {cell for cell in expected if cell[0] in row_span and cell[1] in col_span}
            assert set(cells) == window, f"frame {k + 1}, {title}: the cells drawn are not the matrix's"
            for cell in window:
                assert cells[cell][0] == pytest.approx(expected[cell], abs=1e-12, rel=1e-12), (k, title, cell)


@pytest.mark.parametrize("case", ["post, X4 arrives", "resized"])
def test_old_q_rows_fade_once_dropped_and_other_rows_never_do(case):
    sizes, t, head = CASES[case]
    spec, *_ = _case(sizes, t, head, "en", F.DESK)
    for title, axes in panels(spec).items():
        for k in range(FRAMES):
            for (r, _), (_, opacity) in drawn(_frame_traces(spec, k), axes).items():
                faded = _letter(title) == "Q" and (k >= 4 and r < t or k >= 5)
                assert (opacity < 0.5) == faded, (title, k, r)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_notes_say_which_q_rows_are_faded_and_where_the_scores_stand(lang):
    """The learner audit of 2026-12-07: the output's frame faded q₄ too while Q's note named rows 1–3 only, and the
    scores' frame drew q₄·Kᵀ/√d_k (outside 0–1) in S's row 4 with no word that they are not yet S. Each frame's Q
    note names exactly the Q rows it fades, and the scores' frame says where its numbers stand (in the note under
    Q's row, which no other frame of it uses)."""
    t, words = 4, Text(lang)
    spec, *_ = _case({}, t, 0, lang, F.DESK)
    q_axes = next(axes for title, axes in panels(spec).items() if _letter(title) == "Q")
    s_name = View(words, mha.AttentionConfig(n_tokens=t), None, None, 0, True, F.DESK).head_name("S").plain
    for k in range(FRAMES):
        texts = [a["text"] for a in spec["frames"][k]["layout"]["annotations"]]
        faded = sorted({r for (r, _), (_, opacity) in drawn(_frame_traces(spec, k), q_axes).items() if opacity < 0.5})
        said = {words("kv_drop_q_note", rows=words.rows(1, last)) for last in range(1, t + 1)} & set(texts)
        assert said == ({words("kv_drop_q_note", rows=words.rows(1, max(faded)))} if faded else set()), (k, said)
        assert min(faded, default=1) == 1 and faded == list(range(1, len(faded) + 1)), (k, faded)
        where = re.sub(r"\s", "", words("kv_scores_where", n=t, s=s_name))  # a caption is wrapped at <br>
        assert any(where in re.sub(r"\s|<br>", "", text) for text in texts) == (k == 2), k
        assert not any(re.search(r"[。；：，] ", text) for text in texts), texts  # Chinese runs on after its stops


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_titles_and_slider_are_in_the_pages_language(lang):
    spec, *_ = _case({}, 4, 0, lang, F.DESK)
    words = Text(lang)
    titles = list(panels(spec))
    assert any(title.startswith(f"<b>{words('kv_name_k', k='K<sub>1</sub>')}</b>") for title in titles)
    assert any(title.startswith(f"<b>{words('kv_name_v', v='V<sub>1</sub>')}</b>") for title in titles)
    if lang == "zh":
        assert not any(re.search(r"[a-z]{3,}", re.sub(r"<[^>]+>", "", t.split("</b>")[0])) for t in titles)
    steps = [s["label"] for s in spec["layout"]["sliders"][0]["steps"]]
    assert steps == [words(f"kv_step_{k}") for k in ("arrive", "append", "scores", "softmax", "drop_q", "output")]


SCREEN_BOX = {"desk": (860, None), "present": (1120, 660), "phone": (358, None)}  # px: a 390 px phone leaves 358
READABLE_STEP = {"desk": 8, "present": 16, "phone": 11}  # px: the smallest a step's name is written on each screen


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("case", CASES)
def test_the_figure_fits_its_screen_and_a_phone_gets_one_column(case, look):
    """Presenter mode: the whole figure, Play button included, fits a 1280×720 projector below the page's
    header (Streamlit's main column there is 1120 px), drawing the last 4 tokens; a phone stacks the six panels in
    one column."""
    sizes, t, head = CASES[case]
    spec, *_ = _case(sizes, t, head, "zh", LOOKS[look])
    lay = spec["layout"]
    most_w, most_h = SCREEN_BOX[look]
    assert lay["width"] <= most_w and (most_h is None or lay["height"] <= most_h), (lay["width"], lay["height"])
    assert lay["updatemenus"][0]["y"] <= 1 and lay["sliders"][0]["y"] <= 1  # controls inside the figure
    assert lay["sliders"][0]["font"]["size"] >= READABLE_STEP[look]  # audit 2026-12-06 #9: 10 px on a phone
    boxes = {axes: (lay[axes[0].replace("x", "xaxis")]["domain"], lay[axes[1].replace("y", "yaxis")]["domain"])
             for axes in panels(spec).values()}
    tops = sorted({round(yd[1], 6) for _, yd in boxes.values()})
    assert len(tops) == (6 if look == "phone" else 2)


LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("case", ["post, X4 arrives", "second token"])
def test_every_panel_writes_its_numbers_to_the_same_decimals(case, look):
    """Audit 2026-12-04 #16: S was written to 3 decimals beside 2 in the other panels, which reads as a difference
    in precision. Across every frame, the panels that write numbers write them to one count of decimals (trailing
    zeros dropped, so the most any number shows)."""
    sizes, t, head = CASES[case]
    spec = _case(sizes, t, head, "en", LOOKS[look])[0]
    most = {}
    for k in range(len(spec["frames"])):
        for tr in _frame_traces(spec, k):
            if tr.get("type") == "heatmap" and tr.get("texttemplate") == "%{text}":
                places = [len(x.split(".")[1]) if "." in x else 0 for row in tr["text"] for x in row if x]
                if places:
                    most[tr["name"]] = max(most.get(tr["name"], 0), *places)
    assert len(set(most.values())) <= 1 and len(most) >= 4, most


@pytest.mark.parametrize("look", ["desk", "present", "phone"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tokens_added_at_the_posts_sizes_keep_every_number_written(lang, look):
    """The learner audit of 2026-12-07: on a projector in English, adding one token (t = 4) took every number off
    the step's figure, and in Chinese a second one did: the figure was held to the screen's height, its cells shrank
    under the size that writes numbers. For 4 to 12 tokens (and 6 at smaller sizes), the frames write a number in
    every cell of the six panels (the rows the figure draws, row t included): a projector's at 14 px or more (25
    columns across leave its cells 40 px, where "−2.36" takes 14 px, 1.27× a desk's 11; bench/README.md, presenter
    mode's first screen); a projector's figure, of the last 4 tokens, stays on its screen. A phone's too, from 10
    tokens on (the review of 2026-12-07: the row name "10" left V's cells 29 px at 350 px wide; the column is 358)."""
    narrow = dict(d_model=4, d_k=4, d_v=4, n_heads=1)  # 12 columns across: the screen's height binds, not the width
    for sizes, t in [({}, 4), ({}, 5), ({}, 8), ({}, 12), (narrow, 6)]:
        spec, old, new, _, shapes = _case(sizes, t, 0, lang, LOOKS[look])
        rows = min(t, LOOKS[look].cache_rows)
        assert look != "present" or spec["layout"]["height"] <= SCREEN_BOX["present"][1], (t, spec["layout"]["height"])
        for k, whole in ((3, "Q"), (len(spec["frames"]) - 1, "KVSHY")):  # Q before it fades, the rest at the end
            traces, fonts, written = _frame_traces(spec, k), set(), {}
            for title, axes in panels(spec).items():
                for tr in traces:
                    if tr["type"] != "heatmap" or (tr["xaxis"], tr["yaxis"]) != axes or tr.get("opacity", 1.0) < 1:
                        continue
                    z = _z(tr)
                    assert tr.get("texttemplate") == "%{text}", (t, title)
                    assert all(tr["text"][i][j] for i, j in zip(*np.nonzero(np.isfinite(z)))), (t, title)
                    fonts.add(tr["textfont"]["size"])
                    written[_letter(title)] = written.get(_letter(title), 0) + int(np.isfinite(z).sum())
            causal = rows * (rows + 1) // 2  # S's cells on and under the diagonal
            assert {m: written[m] for m in whole} == {
                m: causal if m == "S" else rows * shapes[m][1] for m in whole}, (t, k, written)
            assert min(fonts) >= (14 if look == "present" else 9), (t, fonts)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_variants_step_on_a_projector_stays_on_its_screen_with_its_numbers(lang):
    """The review of 2026-12-07: with the scores' sentence in its caption, ALiBi's English step and a step whose rows
    are named by a text's words took a third caption line and ran 29 px past a projector's screen. Every variant the
    KV stage decodes through, at 4 and 6 tokens, numbered or named by short words, fits 660 px and writes every
    number of its panels."""
    from mha.ui.walk import KV_VARIANTS

    for variant, t, tokens in itertools.product(KV_VARIANTS, (4, 6), (None, ("the", "cat", "sat", "on", "the", "mat"))):
        cfg = mha.AttentionConfig(n_tokens=t)
        w, x = mha.init_weights(cfg), np.stack([mha.next_token(cfg, i) for i in range(t)])
        view = View(Text(lang), cfg, w, x, 0, True, F.PRESENT, tokens and tokens[:t])
        spec = cache_animation(cache_step(view, decode_rows(view, variant, x)), text=True, look=view.named).to_dict()
        assert spec["layout"]["height"] <= SCREEN_BOX["present"][1], (variant, t, tokens, spec["layout"]["height"])
        for k in range(FRAMES):
            heat = [tr for tr in _frame_traces(spec, k) if tr["type"] == "heatmap" and tr.get("opacity", 1) == 1]
            assert all(tr.get("texttemplate") == "%{text}" for tr in heat), (variant, t, tokens, k)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_variants_step_is_whole_under_the_kv_stages_controls(lang):
    """Sinks' step ran 17 px past a projector's first screen once its append sentence took a second line ("held to
    1 token at the start and the last 2", 2026-12-07). Every variant the KV stage decodes through, from the post's 3
    tokens to 3 added, is no taller than what view.first_screen leaves under the stage's rows of controls, give or
    take the 6 px it counts over what the page takes (RoPE's step with a token added: 461 px against 456, and on
    the page 257–718 of 720: bench/presenter_first_screen.py)."""
    from mha.ui.stages.kv_cache import _above
    from mha.ui.view import first_screen
    from mha.ui.walk import KV_VARIANTS

    for variant, t in itertools.product(KV_VARIANTS, (3, 4, 5, 6)):
        cfg = mha.AttentionConfig(n_tokens=t)
        w, x = mha.init_weights(cfg), np.stack([mha.next_token(cfg, i) for i in range(t)])
        look = first_screen(F.PRESENT, 2, _above(variant))
        view = View(Text(lang), cfg, w, x, 0, True, look)
        spec = cache_animation(cache_step(view, decode_rows(view, variant, x)), text=True, look=look).to_dict()
        assert spec["layout"]["height"] <= look.fig_h + 6, (variant, t, spec["layout"]["height"], look.fig_h)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_projectors_step_held_to_its_first_screen_lowers_its_rows_and_keeps_every_number(lang):
    """Issue 46 item 3: under the KV stage's two rows of controls a projector has 464 px left (view.first_screen). The
    step at the post's sizes fits them with its rows lower than its columns are wide, each still a number's line
    (16 px type and CELL_PAD), every token named; the key to its boxes is said under it, in the page, not in it. A
    desk's step keeps square cells and its key. Held to less than its numbers need, its rows stop at a number's line
    and the figure runs past the budget, its numbers written."""
    from dataclasses import replace

    from mha.figures.cache import plan

    held = replace(F.PRESENT, fig_h=464)
    cfg = mha.AttentionConfig(n_tokens=3)
    w, x = mha.init_weights(cfg), np.stack([mha.next_token(cfg, i) for i in range(3)])
    for look in (held, F.DESK):
        view = View(Text(lang), cfg, w, x, 0, True, look)
        step = cache_step(view, decode_rows(view, "mha", x))
        p, spec = plan(step, look), cache_animation(step, text=True, look=look).to_dict()
        texts = " ".join(a["text"] for a in spec["layout"]["annotations"])
        if look is held:
            assert spec["layout"]["height"] <= 464 and p.row < p.cell, (spec["layout"]["height"], p.row, p.cell)
            assert p.row >= 16 * 1.2 + 2 + CELL_PAD and all(p.styles.values()), (p.row, p.styles)  # a number's line
            assert step.words["legend"] not in texts
            named = [a for k, a in spec["layout"].items() if k.startswith("yaxis") and a.get("showticklabels", True)]
            assert all(a["tickvals"] == [1, 2, 3] for a in named), [a["tickvals"] for a in named]
        else:
            assert p.row == p.cell and step.words["legend"].split("<")[0][:12] in texts
    view = View(Text(lang), cfg, w, x, 0, True, replace(held, fig_h=300))
    p = plan(cache_step(view, decode_rows(view, "mha", x)), view.look)
    assert p.height > 300 and p.row >= 16 * 1.2 + 2 + CELL_PAD and all(p.styles.values()), (p.height, p.row)


def test_a_step_without_numbers_keeps_to_its_height():
    """The review of 2026-12-07: with the cells' numbers turned off (the sidebar's option), the step still grew taller
    to make room for numbers it would not write (12 tokens on a desk: 917 px). Without numbers it keeps to the look's
    height budget."""
    from mha.figures.cache import HEIGHT_EXTRA

    cfg = mha.AttentionConfig(n_tokens=12)
    w, x = mha.init_weights(cfg), np.stack([mha.next_token(cfg, i) for i in range(12)])
    view = View(Text("en"), cfg, w, x, 0, False, F.DESK)
    step = cache_step(view, decode_rows(view, "mha", x))
    spec = cache_animation(step, text=False, look=F.DESK).to_dict()
    assert spec["layout"]["height"] <= F.DESK.max_h + HEIGHT_EXTRA
    assert not any(tr.get("texttemplate") == "%{text}" for tr in spec["data"])
    assert cache_animation(step, text=True, look=F.DESK).to_dict()["layout"]["height"] > spec["layout"]["height"]


def test_row_names_stand_clear_of_the_outlines():
    """Audit 2026-12-04 #16: the row numbers touched the dotted outline of the rows kept (2 px wide) and the solid one
    of row t (3 px): each stands half its line past the cells. Every axis that names rows keeps its labels farther off
    than that, with room for them left of the panel."""
    spec = _case({}, 4, 0, "en", F.DESK)[0]
    lay = spec["layout"]
    widths = [tr["line"]["width"] for tr in spec["data"] if tr.get("mode") == "lines"]
    widths += [s["line"]["width"] for s in lay.get("shapes", []) if s.get("type") != "rect" or s["line"].get("width")]
    named = [a for k, a in lay.items() if k.startswith("yaxis") and a.get("showticklabels", True)]
    assert named and all(a.get("ticklabelstandoff", 0) >= max(widths) / 2 + 2 for a in named), named


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("case", CASES)
def test_each_title_stands_above_its_panel_and_each_row_name_left_of_it_with_the_new_row_named(case, look):
    """Where the glyphs sit, read from the layout as Plotly places them: a panel's title (anchored by its bottom, top
    or middle at its y) ends above the panel's top edge, not over its cells; every panel that names its rows names
    row t, the new one, however its names are thinned; and its widest name, with its standoff, fits between the
    figure's left edge (margins are 0) and the panel."""
    sizes, t, head = CASES[case]
    spec = _case(sizes, t, head, "en", LOOKS[look])[0]
    lay = spec["layout"]
    W, H = lay["width"], lay["height"]
    titles = {a["text"]: a for a in lay["annotations"] if a["text"].startswith("<b>")}
    for title, (xa, ya) in panels(spec).items():
        x, y, note = lay[xa.replace("x", "xaxis")], lay[ya.replace("y", "yaxis")], titles[title]
        tall = (title.count("<br>") + 1) * note["font"]["size"] * 1.3 / H
        lowest = note["y"] - {"bottom": 0.0, "middle": tall / 2, "top": tall}[note["yanchor"]]
        assert lowest >= y["domain"][1] - 1e-9, title
        if not y.get("showticklabels", True):
            continue
        assert t in y["tickvals"], (title, y["tickvals"])
        names = y.get("ticktext") or [str(v) for v in y["tickvals"]]
        needs = max(text_px(n, y["tickfont"]["size"]) for n in names) + y.get("ticklabelstandoff", 0)
        assert x["domain"][0] * W >= needs, (title, x["domain"][0] * W, needs)


def test_a_projectors_step_reserves_its_slider_the_height_the_page_draws_it():
    """The projector's step reserves the frame slider SLIDER_EM em, the height matrix_chart.js gives its element (its
    step names end inside it: 26 px and their 1.25 em line): the figure's caption starts under the slider, and with
    one token added (four rows of tokens) the step stays on a 720 px screen under the KV stage's controls."""
    from dataclasses import replace
    from pathlib import Path

    from mha.figures.cache import SLIDER_EM, plan

    css = (Path(__file__).resolve().parents[2] / "mha" / "ui" / "matrix_chart.js").read_text()
    assert re.search(r"\.mha-slider \{ height: ([\d.]+)em;", css).group(1) == str(SLIDER_EM)
    assert re.search(r"\.mha-step \{ position: absolute; top: 26px;", css)
    held = replace(F.PRESENT, fig_h=720 - 249)  # what the KV stage's title and controls leave (bench/README.md)
    cfg = mha.AttentionConfig(n_tokens=4)
    w, x = mha.init_weights(cfg), np.stack([mha.next_token(cfg, i) for i in range(4)])
    for lang in ("en", "zh"):
        view = View(Text(lang), cfg, w, x, 0, True, held)
        p = plan(cache_step(view, decode_rows(view, "mha", x)), held)
        size = p.sizes["slider"]
        assert p.caption_top >= p.slider[0] + max(SLIDER_EM * size, 26 + 1.25 * size)
        assert p.height <= held.fig_h, (lang, p.height)


def test_a_timings_spikes_stay_within_its_axis_between_two_labels():
    """Audit 2026-12-07 #12: a timing's spikes (12 ms among 0.3 ms steps) ran off the top of its log axis. The y
    axis spans every value, between two of its labels. Counts over decades keep Plotly's powers of ten (labelled
    one by one, fourteen decades of FLOPs overlapped)."""
    from mha.figures.cache import cost_figure

    steps = np.arange(1, 101)
    timing = np.full(100, 0.3)
    timing[[37, 80]] = [9.7, 12.4]
    y = cost_figure(steps, {"cached": (timing, "solid"), "full": (timing * 2, "dash")}, x_title="t",
                    y_title="ms").to_dict()["layout"]["yaxis"]
    lo, hi = y["range"]
    assert 10 ** lo <= 0.3 and 12.4 * 2 <= 10 ** hi, y["range"]
    assert min(y["tickvals"]) <= 0.3 and 12.4 * 2 <= max(y["tickvals"]), y["tickvals"]
    flops = cost_figure(steps, {"flops": (steps.astype(float) ** 3 * 1e3, "solid")}, x_title="t", y_title="FLOPs")
    assert flops.to_dict()["layout"]["yaxis"]["dtick"] == 1


def test_rows_tall_enough_for_their_names_are_all_named():
    """A projector's step at larger sizes (35 columns, 30 px cells, 30 px rows) named every other row, as its columns
    are numbered (labels 2.2 em apart): of a window's two rows only "5" was named. A row's name needs its line
    (ROW_LABEL_EM), so rows that tall are all named; columns keep their spacing."""
    from mha.figures.base import ROW_LABEL_EM
    from mha.figures.cache import plan

    cfg = mha.AttentionConfig(n_tokens=5, d_model=7, d_k=11, d_v=13, n_heads=3)
    w, x = mha.init_weights(cfg), np.stack([mha.next_token(cfg, i) for i in range(5)])
    for variant, look in itertools.product(("mha", "window"), (F.PRESENT, F.DESK)):
        view = View(Text("en"), cfg, w, x, 0, True, look)
        step = cache_step(view, decode_rows(view, variant, x))
        p, spec = plan(step, look), cache_animation(step, text=True, look=look).to_dict()
        assert p.row >= ROW_LABEL_EM * look.tick, (variant, p.row)
        for key, axis in spec["layout"].items():
            if key.startswith("yaxis") and axis.get("showticklabels", True):
                drawn_rows = int(axis["range"][0] - axis["range"][1])
                assert len(axis["tickvals"]) == drawn_rows, (variant, key, axis["tickvals"])
