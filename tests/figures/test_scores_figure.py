"""The scores figure draws what its titles say, in every frame and at rest, on every screen.

Checked against the trace (an independent forward pass) and the post's own mask example, not against the
builder's own arrays: the Q panel holds Q, the Kᵀ panel holds K transposed, the ÷√d_k frame holds the
scaled scores, the masked frame has gaps exactly above the diagonal, S's rows sum to 1, row 1 is at the top.
"""

import json
import re

import numpy as np
import pytest

import mha
from mha import figures as F
from mha.figures.scores import FIGURE_EXTRA, PHASES, WORDS, ScoreSteps, number, scores_animation

NAMES = dict(q="Q<sub>1</sub>", kt="K<sub>1</sub><sup>T</sup>", scores="Q<sub>1</sub>K<sub>1</sub><sup>T</sup>",
             probs="S<sub>1</sub>")
STEP = dict(step_qkt="QKᵀ", step_scaled="÷√d", step_masked="mask", step_s="S")
TEXT = {key: key for key in WORDS} | STEP | dict(fill="q{i}·k{j}", fill_row="r{a}", fill_rows="r{a}-{b}",
                                                softmax_row="s{a}", softmax_rows="s{a}-{b}",
                                                shown="first {rows}×{cols}")
SIZES = {"post": dict(), "resized": dict(n_tokens=5, d_k=13, d_v=17, n_heads=3), "tiny": dict(n_tokens=2, d_k=2),
         "large": dict(n_tokens=64, d_model=256, n_heads=8), "wide_dk": dict(n_tokens=8, d_model=96, d_k=64)}
LOOKS = {"desk": F.DESK, "present": F.PRESENT, "phone": F.PHONE}
POST_EXAMPLE = np.arange(1.0, 10.0).reshape(3, 3)


def trace_of(**sizes) -> mha.Trace:
    cfg = mha.AttentionConfig(**sizes)
    return mha.forward(mha.init_input(cfg), mha.init_weights(cfg))


def model_steps(tr: mha.Trace, h: int = 0) -> ScoreSteps:
    return ScoreSteps(tr.scaled[h], tr.masked[h], tr.probs[h], NAMES, TEXT, q=tr.q[h], k=tr.k[h], scores=tr.scores[h])


def example_steps() -> ScoreSteps:
    masked = POST_EXAMPLE + mha.causal_mask(3)
    return ScoreSteps(POST_EXAMPLE, masked, mha.softmax(masked), dict(NAMES, scores="A", probs="S"), TEXT)


def z(trace: dict) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in trace["z"]], dtype=float)


def find(spec: dict, **props) -> int:
    """The index of the one base trace with these properties."""
    hits = [i for i, t in enumerate(spec["data"]) if all(t.get(k) == v for k, v in props.items())]
    assert len(hits) == 1, (props, hits)
    return hits[0]


def in_frame(spec: dict, frame: dict, index: int) -> dict:
    """Base trace `index` as `frame` draws it (frames patch some traces; the rest stay as they are)."""
    trace = dict(spec["data"][index])
    if index in frame["traces"]:
        trace.update(frame["data"][frame["traces"].index(index)])
    return trace


def hover_said(spec: dict, frame: dict | None = None) -> list[str]:
    """What the click layer's hover says on each cell, on `frame` (None: at rest), as the page writes it from the
    layout's parts and the frame's counts (matrix_chart.js, `grown`)."""
    grows = spec["layout"]["meta"]["hover"]
    upto = frame["layout"]["meta"]["hover"]["upto"] if frame else grows["upto"]
    n = len(spec["data"][grows["trace"]]["x"])
    said = [[p["label"] + p["cells"][k] for p, u in zip(grows["parts"], upto) if k < u and p["cells"][k]]
            for k in range(n)]
    return ["<br>".join(parts) if parts else grows["pending"] for parts in said]


def roles(spec: dict, names: dict = NAMES) -> dict:
    """Base-trace indices by what they draw."""
    data = spec["data"]
    heat = lambda x, y, name=None: [i for i, t in enumerate(data) if t["type"] == "heatmap" and t["xaxis"] == x
                                    and t["yaxis"] == y and name in (None, t["name"])]
    text = lambda x: next(i for i, t in enumerate(data) if t.get("mode") == "text" and t["xaxis"] == x)
    (mask,), (signed,), (probs,) = heat("x2", "y", "mask"), heat("x2", "y", names["scores"]), \
        heat("x2", "y", names["probs"])
    out = dict(mask=mask, signed=signed, probs=probs, marks=text("x2"), sigma=text("x3"), sentence=text("x4"),
               click=next(i for i, t in enumerate(data) if t.get("name") == "click"))
    q, kt = heat("x", "y"), heat("x2", "y2")
    out |= dict(q=q[0]) if q else {}
    out |= dict(kt=kt[0]) if kt else {}
    return out


def rest_frames(spec: dict) -> dict:
    """Phase -> the frame the slider names it under."""
    steps = spec["layout"]["sliders"][0]["steps"]
    by_label = {v: k for k, v in STEP.items()}
    return {by_label[s["label"]][5:]: i for i, s in enumerate(steps) if s["label"]}


def title(spec: dict, name: str) -> str:
    hits = [a["text"] for a in spec["layout"]["annotations"] if a["text"].startswith(f"<b>{name}</b>")]
    assert len(hits) == 1, (name, [a["text"] for a in spec["layout"]["annotations"]])
    return hits[0]


def shapes_in(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"(\d+)×(\d+)", text)]


def assert_same(drawn: np.ndarray, expected: np.ndarray):
    assert drawn.shape == expected.shape
    np.testing.assert_allclose(drawn, expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", SIZES)
def test_q_and_kt_panels_hold_q_and_k_transposed_and_their_titles_give_their_shapes(size, look):
    tr = trace_of(**SIZES[size])
    spec = scores_animation(model_steps(tr), text=True, look=LOOKS[look]).to_dict()
    r = roles(spec)
    n, d_k = tr.q.shape[1:]
    if not LOOKS[look].operands:  # a phone and a projector leave Q and Kᵀ out; the page says so
        assert "q" not in r and "kt" not in r and "xaxis" not in spec["layout"]
        return
    q, kt = z(spec["data"][r["q"]]), z(spec["data"][r["kt"]])
    rows, inner = q.shape
    assert_same(q, tr.q[0][:rows, :inner])
    assert_same(kt, tr.k[0][:rows, :inner].T)  # Kᵀ: row f is feature f of every key
    assert rows == min(n, F.MAX_SIDE) and inner == F.inner_window(n, d_k)
    q_shapes, kt_shapes = shapes_in(title(spec, NAMES["q"])), shapes_in(title(spec, NAMES["kt"]))
    assert q_shapes[0] == (n, d_k) and kt_shapes[0] == (d_k, n)  # the whole matrix's shape
    assert q_shapes[-1] == q.shape and kt_shapes[-1] == kt.shape  # … and what is drawn, when that is less
    assert len(q_shapes) == 1 + ((n, d_k) != q.shape)


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", ["post", "resized", "large"])
def test_each_phase_rests_on_a_frame_that_holds_its_matrix(size, look):
    tr = trace_of(**SIZES[size])
    spec = scores_animation(model_steps(tr), text=True, look=LOOKS[look]).to_dict()
    r, frames = roles(spec), spec["frames"]
    at = rest_frames(spec)
    assert list(at) == list(PHASES) and list(at.values()) == sorted(at.values())  # named in the post's order
    m = min(tr.q.shape[1], F.MAX_SIDE)
    upper = np.triu(np.ones((m, m), bool), k=1)
    draw = lambda phase, role: in_frame(spec, frames[at[phase]], r[role])
    part = lambda a: a[0][:m, :m]

    assert_same(z(draw("qkt", "signed")), part(tr.scores))
    assert_same(z(draw("scaled", "signed")), part(tr.scaled))  # ÷√d_k: the scaled scores, not QKᵀ
    assert not np.allclose(part(tr.scaled), part(tr.scores))

    masked = z(draw("masked", "signed"))
    assert np.array_equal(np.isnan(masked), upper)  # −∞ (a gap) exactly above the diagonal
    assert_same(masked[~upper], part(tr.masked)[~upper])
    assert np.array_equal(~np.isnan(z(draw("masked", "mask"))), upper)  # grey exactly there
    for phase in ("qkt", "scaled"):
        assert np.all(np.isnan(z(draw(phase, "mask"))))  # no mask before it falls

    s = z(draw("s", "probs"))
    assert np.array_equal(np.isnan(s), upper) and np.all(part(tr.probs)[upper] == 0)  # masked: exact 0, grey
    assert_same(s[~upper], part(tr.probs)[~upper])
    if m == tr.q.shape[1]:
        np.testing.assert_allclose(np.nansum(s, axis=1), 1, atol=1e-12)  # every row of S sums to 1
    assert np.all(np.isnan(z(draw("s", "signed"))))


@pytest.mark.parametrize("size", ["post", "resized"])
def test_marks_name_the_masked_cells_and_the_finished_rows(size):
    tr = trace_of(**SIZES[size])
    spec = scores_animation(model_steps(tr), text=True).to_dict()
    r, at, frames = roles(spec), rest_frames(spec), spec["frames"]
    n = tr.q.shape[1]
    upper = {(i + 1, j + 1) for i in range(n) for j in range(n) if j > i}
    for phase, mark in (("masked", "−∞"), ("s", "0")):
        marks = in_frame(spec, frames[at[phase]], r["marks"])
        assert set(zip(marks["y"], marks["x"])) == upper and set(marks["text"]) == {mark}
    assert in_frame(spec, frames[at["scaled"]], r["marks"])["x"] == []
    sigma = in_frame(spec, frames[at["s"]], r["sigma"])
    assert sigma["y"] == list(range(1, n + 1)) and sigma["text"] == ["Σ=1"] * n
    assert set(in_frame(spec, frames[at["masked"]], r["sigma"])["text"]) == {""}


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", SIZES)
def test_row_one_is_drawn_at_the_top_of_every_panel(size, look):
    spec = scores_animation(model_steps(trace_of(**SIZES[size])), text=True, look=LOOKS[look]).to_dict()
    lay = spec["layout"]
    for axis in ("yaxis", "yaxis2"):
        if axis in lay:
            low, high = lay[axis]["range"]
            assert low > high and high == 0.5  # reversed: row 1 at the top
    for t in spec["data"]:
        if t["type"] == "heatmap":
            assert t["y0"] == 1 and t["x0"] == 1  # z row 0 is row 1, drawn where the axis puts 1
    click = spec["data"][roles(spec)["click"]]
    assert click["customdata"][0] == [0, 0] and (click["x"][0], click["y"][0]) == (1, 1)


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("look", LOOKS)
def test_the_resting_chart_is_the_chosen_phase(phase, look):
    spec = scores_animation(model_steps(trace_of()), text=True, look=LOOKS[look], phase=phase).to_dict()
    at = rest_frames(spec)
    assert spec["layout"]["sliders"][0]["active"] == at[phase]
    frame = spec["frames"][at[phase]]
    r = roles(spec)
    for role in ("mask", "signed", "probs", "marks", "sigma"):
        base, drawn = spec["data"][r[role]], frame["data"][frame["traces"].index(r[role])]
        for key in set(drawn) & {"z", "x", "y", "text"}:
            if key == "z":
                assert np.array_equal(z(base), z(drawn), equal_nan=True), role
            else:
                assert base[key] == drawn[key], (role, key)
    sentence = spec["data"][r["sentence"]]["text"][0].replace("<br>", " ")
    assert sentence == TEXT[f"cap_{phase}"]


def test_frames_change_data_only_and_colour_bars_never_move():
    spec = scores_animation(model_steps(trace_of()), text=True).to_dict()
    r = roles(spec)
    dynamic = spec["frames"][0]["traces"]
    bars = [i for i, t in enumerate(spec["data"]) if t.get("marker", {}).get("showscale")]
    assert len(bars) == 2 and not set(bars) & set(dynamic)  # both colour bars, on traces no frame touches
    assert r["q"] not in dynamic and r["kt"] not in dynamic and r["click"] not in dynamic  # a click lands as drawn
    for frame in spec["frames"]:
        assert set(frame) == {"name", "data", "traces", "layout"} and frame["traces"] == dynamic
        assert frame["layout"] == {"meta": {"hover": {"upto": frame["layout"]["meta"]["hover"]["upto"]}}}  # counts
        for patch in frame["data"]:
            assert set(patch) <= {"type", "z", "x", "y", "text", "texttemplate", "opacity"}
    lay = spec["layout"]
    assert lay["margin"]["autoexpand"] is False  # nothing a frame draws can push the margins
    assert all(not t.get("showscale") for t in spec["data"] if t["type"] == "heatmap")


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("phase", PHASES)
def test_a_clicked_cell_is_outlined_with_its_row_of_q_and_column_of_kt(phase, look):
    """The figure says how the page outlines a clicked cell (i, j) at the step it rests on: row i of Q (every column
    drawn), column j of Kᵀ (every row drawn) and the cell; on a phone, which draws no Q or Kᵀ, the cell. Each goes
    into one of the outline traces the frames animate, empty at rest."""
    tr = trace_of(**SIZES["resized"])
    spec = scores_animation(model_steps(tr), text=True, phase=phase, look=LOOKS[look]).to_dict()
    rule, data = spec["layout"]["meta"]["outline"], spec["data"]
    n = tr.scores.shape[1]
    assert rule["cells"] == [n, n]
    boxes = {(data[b["trace"]]["xaxis"], data[b["trace"]]["yaxis"]): (b["x"], b["y"]) for b in rule["boxes"]}
    if not LOOKS[look].operands:
        assert boxes == {("x2", "y"): ("j", "i")}
    else:
        k = z(data[roles(spec)["q"]]).shape[1]
        assert boxes == {("x", "y"): ([1, k], "i"), ("x2", "y2"): ("j", [1, k]), ("x2", "y"): ("j", "i")}
    for b in rule["boxes"]:
        assert data[b["trace"]]["mode"] == "lines" and data[b["trace"]]["x"] == [None]
        assert b["trace"] in spec["frames"][0]["traces"]


@pytest.mark.parametrize("look", LOOKS)
def test_cell_numbers_are_the_values_they_sit_on(look):
    tr = trace_of()
    spec = scores_animation(model_steps(tr), text=True, look=LOOKS[look]).to_dict()
    for frame in spec["frames"]:
        for patch in frame["data"]:
            if patch["type"] == "heatmap" and patch.get("texttemplate"):
                values, text = z(patch), patch["text"]
                for v, s in zip(values.ravel(), np.ravel(text)):
                    if np.isnan(v):
                        assert s == ""
                    else:
                        assert abs(float(s.replace("−", "-")) - v) <= 0.051, (s, v)
                        assert s.startswith("−") == (v < 0) and (s == "0") == (v == 0), (s, v)  # −0.004: "−0.00"


def test_the_posts_mask_example_becomes_what_the_post_writes():
    spec = scores_animation(example_steps(), text=True).to_dict()
    r, at, frames = roles(spec, dict(NAMES, scores="A", probs="S")), rest_frames(spec), spec["frames"]
    assert list(at) == ["scaled", "masked", "s"]  # given: no QKᵀ step, and no Q or Kᵀ panel
    assert "q" not in r and "kt" not in r
    assert z(in_frame(spec, frames[at["scaled"]], r["signed"])).tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    masked = z(in_frame(spec, frames[at["masked"]], r["signed"]))
    inf = np.inf
    assert np.where(np.isnan(masked), -inf, masked).tolist() == [[1, -inf, -inf], [4, 5, -inf], [7, 8, 9]]
    s = z(in_frame(spec, frames[at["s"]], r["probs"]))
    e = np.exp([[1, 0, 0], [4, 5, 0], [7, 8, 9]]) * np.tri(3)
    np.testing.assert_allclose(np.nan_to_num(s), e / e.sum(axis=1, keepdims=True), atol=1e-12)
    assert spec["layout"]["sliders"][0]["active"] == at["s"]


READABLE_STEP = {"desk": 8, "present": 16, "phone": 11}  # px: the smallest a step's name is written on each screen


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("size", SIZES)
def test_the_board_fits_the_screen_and_names_every_phase_on_the_slider(size, look):
    lk = LOOKS[look]
    spec = scores_animation(model_steps(trace_of(**SIZES[size])), text=True, look=lk).to_dict()
    lay = spec["layout"]
    assert lay["width"] <= lk.max_w + 40
    # on a 1280×720 projector, with the step control, below Streamlit's 60 px toolbar; a board whose cells grew to
    # write Q's and Kᵀ's numbers keeps to the look's tallest figure (640 px there)
    grown = lk.fig_h if spec["data"][0].get("texttemplate") else 0
    assert lay["height"] <= max(lk.max_h + FIGURE_EXTRA, grown)
    assert look != "present" or lay["height"] <= 720 - 60
    slider = lay["sliders"][0]
    labels = [s["label"] for s in slider["steps"]]
    assert [label for label in labels if label] == list(STEP.values())
    assert len(labels) == len(spec["frames"]) >= 4
    assert slider["font"]["size"] >= READABLE_STEP[look]  # audit 2026-12-06 #9: 9 px on a phone


def test_numbers_are_written_with_a_true_minus_and_no_trailing_zeros():
    """Trailing zeros go, except where a value rounds to zero: it keeps its sign and decimals (audit 2026-12-04 #10:
    a masked frame wrote the score −0.004 as "0"). Only an exact zero is "0"."""
    values = (-0.127, 0.4, 1.0, -0.001, 0.004, 0.0, 12.345, np.nan)
    assert [number(v, 2) for v in values] == ["−0.13", "0.4", "1", "−0.00", "0.00", "0", "12.35", ""]


@pytest.mark.parametrize("look", LOOKS)
def test_q_and_kt_keep_two_decimals_or_write_none(look):
    """Q and Kᵀ on the scores board are written as the products write them: never rounded to fewer than two
    decimals (Q₁[1,3] = 0.045 once read "0" on a projector), so each written number is within 0.005 of its value.
    At the post's sizes a desk writes them (a phone and a projector draw S alone)."""
    tr = trace_of()
    spec = scores_animation(model_steps(tr), text=True, look=LOOKS[look]).to_dict()
    if not LOOKS[look].operands:
        return  # a phone and a projector leave Q and Kᵀ out
    for trace, values in zip(spec["data"][:2], (tr.q[0], tr.k[0].T)):
        text = trace.get("text") or []
        assert not text or trace["texttemplate"] == "%{text}"
        for row, want in zip(text, values):
            for s, v in zip(row, want):
                assert abs(float(s.replace("−", "-")) - v) <= 0.005 + 1e-12, (s, v)
    assert spec["data"][0]["text"][0][2] in ("0.045", "0.05")  # Q₁[1,3] = 0.0454


@pytest.mark.parametrize("size", SIZES)
def test_on_a_projector_every_written_mark_is_at_its_type(size):
    """In presenter mode Σ=1, the −∞/0 marks, the slider's step names, Play and the ticks are never under the
    projector's tick size: a mark that would have to shrink to fit its row is written once instead, full size."""
    spec = scores_animation(model_steps(trace_of(**SIZES[size])), text=True, look=F.PRESENT).to_dict()
    marks = [t for t in spec["data"] if t.get("mode") == "text" and t.get("hoverinfo") == "skip"]
    assert any(t["xaxis"] == "x3" for t in marks)  # Σ=1
    assert all(t["textfont"]["size"] >= F.PRESENT.tick for t in marks if t["textfont"]["size"] > 1), [
        (t["xaxis"], t["textfont"]["size"]) for t in marks]  # size 1: the −∞/0 marks not drawn (cells too small)
    layout = spec["layout"]
    assert layout["sliders"][0]["font"]["size"] >= F.PRESENT.tick - 2
    assert layout["updatemenus"][0]["font"]["size"] > F.PRESENT.tick
    assert all(a["tickfont"]["size"] >= F.PRESENT.tick for k, a in layout.items() if k.startswith(("xaxis", "yaxis"))
               and a.get("visible", True))


@pytest.mark.parametrize("look", ["desk", "phone"])
def test_a_cells_hover_says_only_what_its_frame_has_computed(look):
    """Audit 2026-12-04 #10: hovering S[3, 2] on a QKᵀ frame gave S's value while the page said the cell was not
    computed yet. On every frame (and at rest), a cell's hover: "pending" before QKᵀ fills it, the score once filled;
    −∞ only once the mask is down and above the diagonal; S only on a row softmax has reached, with the trace's
    value."""
    tr = trace_of()
    spec = scores_animation(model_steps(tr), text=True, look=LOOKS[look]).to_dict()
    r, n = roles(spec), 3
    hovers = [hover_said(spec, f) for f in spec["frames"]]
    signed = [z(in_frame(spec, f, r["signed"])) for f in spec["frames"]]
    probs = [z(in_frame(spec, f, r["probs"])) for f in spec["frames"]]
    masks = [z(in_frame(spec, f, r["mask"])) for f in spec["frames"]]
    seen_pending = seen_partial_s = False
    for k, text in enumerate(hovers):
        for i in range(n):
            for j in range(n):
                said = text[i * n + j]
                filled = not np.isnan(signed[k][i, j]) or not np.isnan(probs[k][i, j]) or not np.isnan(masks[k][i, j])
                if not filled:
                    assert said == "pending", (k, i, j, said)
                    seen_pending = True
                    continue
                assert said.startswith(f"{NAMES['scores']} = "), (k, i, j, said)
                softmaxed = i < int(np.sum(~np.isnan(probs[k][:, 0])))
                assert (NAMES["probs"] in said) == softmaxed, (k, i, j, said)
                if softmaxed:
                    assert said.endswith(F.base.general(tr.probs[0, i, j], 4)), (k, i, j, said)
                seen_partial_s |= softmaxed != bool(np.sum(~np.isnan(probs[k][:, 0])) == n)
                assert ("−∞" in said) == (j > i and not np.isnan(masks[k][i, j])), (k, i, j, said)
    assert seen_pending and seen_partial_s  # the frames before QKᵀ is filled and softmax part way are among them
    rest = hover_said(spec)
    assert all(NAMES["probs"] in said for said in rest)  # at rest on S: every value it went through
    assert len(json.dumps(spec["frames"])) < 2 * len(json.dumps(spec["data"]))  # no frame sends every cell's text


def test_the_sliders_words_say_each_step_once_and_keep_its_subscripts():
    """zh review 2026-12-04: a screen reader heard the step's name twice ("QKᵀ：QKᵀ：…", "掩码：掩码：…") and subscripts
    run together ("X₆·WQ", "WDKV", "√dk"). A caption that opens with its step's name loses that opening; a sub- or
    superscript is read as its Unicode letter, or after _ or ^."""
    layout = {}
    F.base.slider_words(layout, "s", "Frame {k} of {count}, {step}: {caption}",
                        [("QKᵀ", "QKᵀ: cell (i, j)"), ("÷√7", "÷ √7: every score"), ("S", "softmax, rows 1–2"),
                         ("掩码", "掩码：对角线以上改成 −∞"), ("H", "X<sub>6</sub>·W<sub>Q</sub>, √d<sub>k</sub>")])
    assert layout["meta"]["slider"]["steps"] == [
        "Frame 1 of 5, QKᵀ: cell (i, j)", "Frame 2 of 5, ÷√7: every score", "Frame 3 of 5, S: softmax, rows 1–2",
        "Frame 4 of 5, 掩码: 对角线以上改成 −∞", "Frame 5 of 5, H: X₆·W_Q, √dₖ"]
    assert F.base.plain("W<sub>DKV</sub>, K<sup>T</sup>, Q<sub>1</sub><sup>rot</sup>") == "W_DKV, Kᵀ, Q₁ʳᵒᵗ"


def test_on_a_projector_s_is_drawn_alone_and_whole_on_the_first_screen():
    """Issue 46 item 3: the audience looks at S. On a projector the scores board draws S alone (Q and Kᵀ are written
    on a click, as on a phone), no taller than the screen left under the stage's title and controls (720 − 287 px),
    where with Q and Kᵀ it was 630 px; every step still has its frames (QKᵀ by rows, ÷√d_k, the mask, softmax)."""
    spec = scores_animation(model_steps(trace_of()), text=True, look=F.PRESENT).to_dict()
    r = roles(spec)
    assert "q" not in r and "kt" not in r
    assert spec["layout"]["height"] <= 720 - 287
    assert list(rest_frames(spec)) == list(PHASES)


def test_a_cell_by_cell_frame_names_the_cell_it_fills_row_first():
    """Each frame that fills one cell of QKᵀ says q_i·k_j for the cell that appears, i its row and j its column
    (planted 2026-12-07: i and j swapped, "q3·k1" over the cell of row 1, column 3)."""
    spec = scores_animation(model_steps(trace_of()), text=True, look=F.DESK).to_dict()
    r, before, named = roles(spec), None, 0
    for frame in spec["frames"]:
        filled = np.isfinite(z(in_frame(spec, frame, r["signed"])))
        words = in_frame(spec, frame, r["sentence"])["text"][0]
        if before is not None and (filled & ~before).sum() == 1 and re.fullmatch(r"q\d+·k\d+", words):
            (i,), (j,) = np.nonzero(filled & ~before)
            assert words == TEXT["fill"].format(i=i + 1, j=j + 1), (words, i, j)
            named += 1
        before = filled
    assert named == 3 * 3 - 1  # every cell after the first


def test_a_cells_hover_names_it_row_first_as_its_click_sends_it():
    """The click layer's hover writes [row, column], the order of the cell it sends (customdata [i, j]) and of the
    sums and the quiz (planted 2026-12-07: [%{x}, %{y}] read [column, row])."""
    spec = scores_animation(model_steps(trace_of()), text=True, look=F.DESK).to_dict()
    click = spec["data"][roles(spec)["click"]]
    for x, y, (i, j) in zip(click["x"], click["y"], click["customdata"], strict=True):
        said = click["hovertemplate"].replace("%{y}", str(y)).replace("%{x}", str(x))
        assert said.startswith(f"[{i + 1}, {j + 1}]"), (said, i, j)


def test_one_sigma_mark_for_thin_rows_sits_in_the_middle_of_the_rows_already_softmaxed():
    """Rows too thin for a Σ=1 each get one, in the middle of the rows done, never beside a row still to be
    normalised (planted 2026-12-07: one row lower, on the first row not yet done when two were)."""
    spec = scores_animation(model_steps(trace_of(**SIZES["large"])), text=True, look=F.DESK).to_dict()
    r, seen = roles(spec), 0
    for frame in spec["frames"]:
        marks = in_frame(spec, frame, r["sigma"])["text"]
        done = int(np.isfinite(z(in_frame(spec, frame, r["probs"]))).any(axis=1).sum())
        if marks.count("Σ=1") == 1 and done > 1:
            assert marks.index("Σ=1") == (done - 1) // 2 < done, (marks.index("Σ=1"), done)
            seen += 1
    assert seen > 2
