"""Exports hold every matrix of the current view, equal to the trace, in .npz, .json and .csv."""

import csv
import io
import json
import zipfile

import numpy as np
import pytest

import mha
from mha.ui import exports, prepared

from .helpers import option, rerun, run

CFG = mha.AttentionConfig()
W, X = mha.init_weights(CFG), mha.init_input(CFG)


def test_npz_round_trips_every_matrix():
    data = np.load(io.BytesIO(exports.files(X, W, CFG)["npz"]))
    t = mha.forward(X, W)
    np.testing.assert_array_equal(data["Y"], t.y)
    np.testing.assert_array_equal(data["S"], t.probs)
    assert data["Concat"].shape == (3, 22) and data["W_O"].shape == (22, 5)


def test_json_writes_minus_infinity_as_null():
    body = json.loads(exports.files(X, W, CFG)["json"])
    masked = body["matrices"]["QK^T_masked"]
    assert masked["shape"] == [2, 3, 3] and masked["values"][0][0][1] is None
    np.testing.assert_allclose(body["matrices"]["Y"]["values"], mha.forward(X, W).y, rtol=0, atol=0)
    assert body["config"]["d_v"] == 11


def _csv(name: str, x=X, w=W) -> list[list[str]]:
    archive = zipfile.ZipFile(io.BytesIO(exports.files(x, w, CFG)["csv"]))
    return list(csv.reader(io.StringIO(archive.read(name).decode())))


def test_csv_zip_has_one_file_per_matrix_and_head():
    archive = zipfile.ZipFile(io.BytesIO(exports.files(X, W, CFG)["csv"]))
    names = set(archive.namelist())
    assert {"X.csv", "Y.csv", "W_O.csv", "Q_head1.csv", "Q_head2.csv", "S_head2.csv"} <= names
    y = np.array([row[1:] for row in _csv("Y.csv")[1:]], dtype=float)
    np.testing.assert_array_equal(y, mha.forward(X, W).y)


@pytest.mark.parametrize("name, header, labels, matrix", [
    ("X.csv", ["token", "f1", "f2", "f3", "f4", "f5"], ["t1", "t2", "t3"], lambda t: t.x),
    ("QKT_head2.csv", ["query", "k1", "k2", "k3"], ["q1", "q2", "q3"], lambda t: t.scores[1]),
    ("QKT_masked_head1.csv", ["query", "k1", "k2", "k3"], ["q1", "q2", "q3"], lambda t: t.masked[0]),
    ("W_Q_head1.csv", ["feature", *(f"dk{j}" for j in range(1, 8))], [f"f{i}" for i in range(1, 6)],
     lambda t: W.w_q[0]),
    ("V_head1.csv", ["token", *(f"dv{j}" for j in range(1, 12))], ["t1", "t2", "t3"], lambda t: t.v[0]),
    ("W_O.csv", ["concat", "f1", "f2", "f3", "f4", "f5"], [f"c{i}" for i in range(1, 23)], lambda t: W.w_o),
    ("Concat.csv", ["token", *(f"c{j}" for j in range(1, 23))], ["t1", "t2", "t3"], lambda t: t.concat),
])
def test_each_csv_has_a_header_row_row_labels_and_the_shortest_exact_numbers(name, header, labels, matrix):
    rows = _csv(name)
    expected = matrix(mha.forward(X, W))
    assert rows[0] == header and [r[0] for r in rows[1:]] == labels
    cells = [r[1:] for r in rows[1:]]
    assert cells == [[repr(float(v)) for v in row] for row in expected]  # 0.43, never 0.42999999999999999
    np.testing.assert_array_equal(np.array(cells, dtype=float), expected)  # and each reads back exactly


def test_csv_writes_the_masked_cells_as_minus_inf_and_decimals_as_typed():
    x = X.copy()
    x[0, 0] = 0.43
    rows = _csv("X.csv", x)
    assert rows[1][1] == "0.43"
    masked = _csv("QKT_masked_head1.csv", x)
    assert [r[2:] for r in masked[1:]][0] == ["-inf", "-inf"] and masked[2][3] == "-inf"
    assert "-inf" not in masked[3]


def opened(**params):
    """The page with its downloads panel opened (the click on the panel reruns the page)."""
    at = run(**params)
    at.session_state["downloads_open"] = True
    return rerun(at)


def test_the_sidebar_offers_the_downloads_in_a_panel_that_writes_nothing_while_folded(monkeypatch):
    """A folded panel costs a run nothing: no file written or registered, no button; opened, it offers all three."""
    written = []
    real = exports.files
    monkeypatch.setattr(exports, "files", lambda *a: written.append(a) or real(*a))
    prepared.FILES.clear()
    at = run(stage="qk")
    assert at.expander(key="downloads_open").label == "Download every matrix of this view"
    assert not at.get("download_button") and not written
    at.session_state["downloads_open"] = True
    rerun(at)
    keys = {b.key for b in at.get("download_button")}
    assert {"download_npz", "download_json", "download_csv"} <= keys and len(written) == 1


def _downloads(at) -> dict:
    return {b.proto.id.rsplit("-", 1)[-1]: b.proto for b in at.get("download_button")}


def test_a_small_views_files_are_written_before_the_click_and_a_click_does_not_rerun():
    """Streamlit's deferred downloads lost files: each rerun made new ids and any session's rerun could drop
    the old one before the browser asked for it. Files handed over whole, and clicks that do not rerun, keep."""
    at = opened(stage="qk")
    buttons = _downloads(at)
    assert set(buttons) == {"download_npz", "download_json", "download_csv"}
    for proto in buttons.values():
        assert proto.url.startswith("/mock/media/") and not proto.HasField("deferred_file_id")
        assert proto.ignore_rerun
    assert [b.proto.url for b in at.get("download_button")] == [b.proto.url for b in rerun(at).get("download_button")]


LARGE = dict(n_tokens=16, d_model=128, d_k=32, d_v=32, n_heads=8)


def test_a_large_views_files_are_written_when_asked_and_kept_while_the_view_stays():
    assert exports.READY_MAX < exports.size(mha.AttentionConfig(**LARGE)) <= exports.MAX_VALUES
    prepared.FILES.clear()  # not written by an earlier test in this process
    at = opened(stage="input", **LARGE)
    assert not _downloads(at) and at.button(key="export_prepare").label.startswith("Write the files (")
    at.button(key="export_prepare").click()
    rerun(at)
    assert set(_downloads(at)) == {"download_npz", "download_json", "download_csv"}
    option(at, "cell_values").set_value(False)
    rerun(at)  # another change of the page, the same numbers: the files stay
    assert len(_downloads(at)) == 3
    at.number_input(key="seed").set_value(1)
    rerun(at)  # other numbers: asked for again
    assert not _downloads(at) and at.button(key="export_prepare")


def test_a_large_view_prepared_in_one_session_is_ready_in_the_next():
    """Shared by view: a class on one link writes the large files once."""
    prepared.FILES.clear()
    first = opened(stage="input", **LARGE)
    first.button(key="export_prepare").click()
    assert len(_downloads(rerun(first))) == 3
    second = opened(stage="input", **LARGE)
    assert [p.url for p in _downloads(second).values()] == [p.url for p in _downloads(first).values()]


def test_export_size_counts_every_number():
    assert exports.size(CFG) == sum(a.size for a in exports.arrays(X, W).values())


def test_huge_views_offer_no_downloads_and_say_why():
    at = opened(stage="qk", n_tokens=64, d_model=1024, d_k=128, d_v=128, n_heads=16)
    assert not at.get("download_button")
    assert any("downloads stop at" in c.value for c in at.caption)


def test_every_session_showing_a_small_view_shares_its_files(monkeypatch):
    """A class toggling between the same few views writes each view's files once for the whole process."""
    written = []
    real = exports.files
    monkeypatch.setattr(exports, "files", lambda *a: written.append(a[2]) or real(*a))
    prepared.FILES.clear()
    first, second = opened(stage="qk", seed=5), opened(stage="qk", seed=5)
    assert [b.proto.url for b in first.get("download_button")] == [b.proto.url for b in second.get("download_button")]
    assert len(written) == 1
    second.number_input(key="n_tokens").set_value(4)
    rerun(second)
    assert len(written) == 2 and written[1].n_tokens == 4


def test_other_weights_of_the_same_sizes_give_their_own_files():
    other = mha.Weights(W.w_q + 1, W.w_k, W.w_v, W.w_o)
    shared = lambda w: prepared.prepare(exports.view_key(X, w, CFG), X, w, CFG)  # noqa: E731
    assert shared(W) == exports.files(X, W, CFG)
    assert shared(other) == exports.files(X, other, CFG) != exports.files(X, W, CFG)


def test_the_trained_models_files_follow_the_layer_shown():
    """Both layers have the same sizes and X: the files must still change with the layer's weights."""
    at = opened(stage="qk", model="trained", layer=1)
    urls = {k: p.url for k, p in _downloads(at).items()}
    at.segmented_control(key="layer").set_value(2)
    rerun(at)
    assert at.session_state["layer"] == 2
    after = {k: p.url for k, p in _downloads(at).items()}
    assert set(after) == set(urls) and all(after[k] != urls[k] for k in urls)


def test_the_json_is_the_text_one_dump_of_the_whole_gives():
    """Written a matrix at a time, the file is still the text json.dumps makes of the whole body, byte for byte."""
    for cfg in (CFG, mha.AttentionConfig(4, 3, 2, 5, 3, seed=2, init="integers")):
        w, x = mha.init_weights(cfg), mha.init_input(cfg)
        matrices = {name: {"shape": list(m.shape), "values": np.where(np.isfinite(m), m, np.nan).tolist()}
                    for name, m in exports.arrays(x, w).items()}
        sizes = ("n_tokens", "d_model", "d_k", "d_v", "n_heads", "seed", "init")
        source = {"stage": "input", "model": "seeded", "seed": cfg.seed, "init": cfg.init}
        body = {"config": {k: getattr(cfg, k) for k in sizes}, "source": source, "note": exports.NOTE,
                "matrices": matrices}
        assert exports.files(x, w, cfg)["json"] == json.dumps(body, allow_nan=True).replace("NaN", "null").encode()
