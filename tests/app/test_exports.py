"""Exports hold every matrix of the current view, equal to the trace, in .npz, .json and .csv."""

import io
import json
import zipfile

import numpy as np

import mha
from mha.ui import exports

from .helpers import run

CFG = mha.AttentionConfig()
W, X = mha.init_weights(CFG), mha.init_input(CFG)


def test_npz_round_trips_every_matrix():
    data = np.load(io.BytesIO(exports.to_npz(X, W)))
    t = mha.forward(X, W)
    np.testing.assert_array_equal(data["Y"], t.y)
    np.testing.assert_array_equal(data["S"], t.probs)
    assert data["Concat"].shape == (3, 22) and data["W_O"].shape == (22, 5)


def test_json_writes_minus_infinity_as_null():
    body = json.loads(exports.to_json(X, W, CFG))
    masked = body["matrices"]["QK^T_masked"]
    assert masked["shape"] == [2, 3, 3] and masked["values"][0][0][1] is None
    np.testing.assert_allclose(body["matrices"]["Y"]["values"], mha.forward(X, W).y, rtol=0, atol=0)
    assert body["config"]["d_v"] == 11


def test_csv_zip_has_one_file_per_matrix_and_head():
    archive = zipfile.ZipFile(io.BytesIO(exports.to_csv_zip(X, W)))
    names = set(archive.namelist())
    assert {"X.csv", "Y.csv", "W_O.csv", "Q_head1.csv", "Q_head2.csv", "S_head2.csv"} <= names
    y = np.loadtxt(io.StringIO(archive.read("Y.csv").decode()), delimiter=",")
    np.testing.assert_array_equal(y, mha.forward(X, W).y)


def test_the_sidebar_offers_the_downloads():
    at = run(stage="qk")
    keys = {b.key for b in at.get("download_button")}
    assert {"download_npz", "download_json", "download_csv"} <= keys


def test_export_size_counts_every_number():
    assert exports.size(CFG) == sum(a.size for a in exports.arrays(X, W).values())


def test_huge_views_offer_no_downloads_and_say_why():
    at = run(stage="qk", n_tokens=64, d_model=1024, d_k=128, d_v=128, n_heads=16)
    assert not at.get("download_button")
    assert any("downloads stop at" in c.value for c in at.caption)
