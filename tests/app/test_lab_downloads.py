"""The variant lab's downloads hold what its page computes, each array checked against numpy written here."""

import io
import json
import zipfile
from dataclasses import replace

import numpy as np
import pytest

import mha
from mha.ui import exports, prepared
from mha.ui import settings as S
from mha.ui.lab import files

from .helpers import keyed_charts, run, z
from .test_stage_downloads import _arrays as arrays_of
from .test_stage_downloads import downloaded, opened

CFG = mha.AttentionConfig(n_tokens=5, n_heads=4)
W, X = mha.init_weights(CFG), mha.init_input(CFG)


def softmax_rows(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_gqa_files_hold_one_k_and_v_per_group_and_every_head_reads_its_groups():
    cfg = replace(CFG, n_kv_heads=2)
    part = files.variant_part(X, W, "gqa", cfg, 4, 2, 0)
    a = part.arrays
    assert a["W_K"].shape == (2, 5, 7) and part.meta["n_kv_heads"] == 2 and part.meta["variant"] == "gqa"
    for head in range(4):
        g = head // 2  # heads 1, 2 read group 1; heads 3, 4 group 2
        k = X @ W.w_k[2 * g]
        np.testing.assert_allclose(a["K"][g], k)
        scores = (X @ W.w_q[head]) @ k.T / np.sqrt(7) + np.triu(np.full((5, 5), -np.inf), 1)
        np.testing.assert_allclose(a["S"][head], softmax_rows(scores), atol=1e-12)


def test_window_files_hold_the_band_that_was_added():
    cfg = replace(CFG, window=2, sinks=1)
    a = files.variant_part(X, W, "sinks", cfg, 4, 2, 0).arrays
    i, j = np.indices((5, 5))
    hidden = (j > i) | ((j <= i - 2) & (j >= 1))
    assert (np.isneginf(a["bias"]) == hidden[None]).all()
    assert (a["S"][:, hidden] == 0).all()


def test_int8_files_hold_the_codes_and_scales_the_cache_keeps():
    """An int8 download holds what the page says the cache keeps: each row of K and V as int8 codes with one scale
    (max|row| / 127, worked here), and the K and V attention read back from them."""
    cfg = replace(CFG, kv_bits=8)
    part = files.variant_part(X, W, "int8", cfg, 4, 2, 0)
    a = part.arrays
    k, v = np.stack([X @ W.w_k[h] for h in range(4)]), np.stack([X @ W.w_v[h] for h in range(4)])
    for rows, codes, scale, back in ((k, "K_codes", "K_scale", "K_rot"), (v, "V_codes", "V_scale", "V")):
        want_scale = np.abs(rows).max(axis=-1) / 127
        np.testing.assert_allclose(a[scale], want_scale, rtol=1e-12)
        assert a[codes].dtype == np.int8
        assert (np.abs(a[codes] - rows / want_scale[..., None]) <= 0.5 + 1e-9).all()
        np.testing.assert_allclose(a[back], a[codes] * a[scale][..., None], rtol=1e-12)
    assert part.meta["kv_bits"] == 8
    csv = zipfile.ZipFile(io.BytesIO(exports.files(X, W, cfg, part)["csv"]))
    assert {"K_codes_head1.csv", "V_codes_head4.csv", "K_scale.csv", "V_scale.csv"} <= set(csv.namelist())
    header = lambda name: csv.read(name).decode().splitlines()[0]  # noqa: E731
    for codes, rows in (("K_codes", "K_rot"), ("V_codes", "V")):  # a code a number: the rows' own axes
        assert header(f"{codes}_head1.csv") == header(f"{rows}_head1.csv")
    assert header("K_scale.csv") == header("V_scale.csv") == "head," + ",".join(f"t{i}" for i in range(1, 6))


def test_mla_files_hold_the_latent_and_both_orders():
    part = files.variant_part(X, W, "mla", CFG, 3, 2, 0)
    a = part.arrays
    assert a["c"].shape == (5, 3) and part.meta["d_latent"] == 3
    np.testing.assert_allclose(a["c"], X @ a["W_DKV"])
    np.testing.assert_allclose(a["Y_absorbed"], a["Y"], atol=1e-12)
    np.testing.assert_allclose(a["K"], np.einsum("nl,hlk->hnk", a["c"], a["W_UK"]), atol=1e-12)


@pytest.mark.parametrize("tile", [1, 2, 5])
def test_online_files_hold_each_tiles_state_and_the_head_they_end_on(tile):
    part = files.variant_part(X, W, "online", CFG, 4, tile, 2)
    a = part.arrays
    t = mha.forward(X, W)
    assert len(a["m"]) == -(-5 // tile) == sum(k.startswith("acc_tile") for k in a)
    np.testing.assert_allclose(a["out"], t.heads[2], atol=1e-12)
    last = a[f"acc_tile{len(a['m'])}"] / a["l"][-1][:, None]
    np.testing.assert_allclose(last, t.heads[2], atol=1e-12)
    written = exports.files(X, W, CFG, part)
    names = zipfile.ZipFile(io.BytesIO(written["csv"])).namelist()
    assert "acc_tile1.csv" in names and "out.csv" in names
    assert json.loads(written["json"])["source"] | {"variant": "online", "tile": tile, "head": 3} == \
        json.loads(written["json"])["source"]


# ---------------------------------------------------------------- ALiBi: the X its page runs on


def alibi_probs(x: np.ndarray, w: mha.Weights, slopes: list[float]) -> np.ndarray:
    """S of every head, worked here: q·k/√d_k − m_h (i − j), the future hidden, softmax by row."""
    n = len(x)
    i, j = np.indices((n, n))
    out = []
    for head, m in enumerate(slopes):
        q, k = x @ w.w_q[head], x @ w.w_k[head]
        scores = q @ k.T / np.sqrt(w.d_k) - m * (i - j)
        out.append(softmax_rows(np.where(j > i, -np.inf, scores)))
    return np.array(out)


def page_s(at) -> np.ndarray:
    """Head 1's S as the ALiBi page draws it (hidden cells, drawn as gaps, are 0)."""
    spec = dict(keyed_charts(at))["lab_alibi_scores"]
    return np.nan_to_num(z([tr for tr in spec["data"] if tr["type"] == "heatmap"][1]))


def text_rows(text: str) -> tuple[np.ndarray, mha.Weights]:
    """A text's E[ids], its rows of E with no positions, as the coda's model makes them here, and the walk's weights."""
    tokens = mha.tokenize(text)
    cfg = mha.AttentionConfig(n_tokens=len(tokens))
    vocab = mha.vocabulary(tokens)
    ids = np.array([vocab.index(tok) for tok in tokens])
    w = mha.init_weights(cfg)
    e = mha.init_model(cfg, vocab, 1, "sinusoidal", S.LIMITS["n_tokens"] + 1, (mha.init_block(cfg, 0, attn=w),)).wte
    return e[ids], w


def test_alibi_on_a_text_downloads_the_x_without_positions_its_page_runs_on():
    """The page takes P out of a text's X = E[ids] + P; its files hold that X and the S it gives, not the walk's."""
    prepared.FILES.clear()
    text = "one two three one two"
    at = opened(stage="variants", variant="alibi", text=text, part="click")
    got, meta = arrays_of(downloaded(at)[1])
    x, w = text_rows(text)
    np.testing.assert_allclose(got["X"], x, rtol=1e-12, atol=1e-12)  # E's rows: no positions
    s = alibi_probs(x, w, [2 ** -4, 2 ** -8])
    np.testing.assert_allclose(got["S"], s, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(page_s(at), got["S"][0], rtol=1e-12, atol=1e-12)  # what the page draws
    assert meta["variant"] == "alibi" and meta["alibi"] and meta["tokens"] == mha.tokenize(text)


def test_alibi_on_the_trained_model_downloads_the_layers_own_input_its_page_runs_on():
    """Layer 2 reads positions mixed in by layer 1: the page (and so its files) keep that X as it is."""
    prepared.FILES.clear()
    text = "B C G A B C G A"
    at = opened(stage="variants", variant="alibi", model="trained", layer=2, text=text, part="click")
    got, meta = arrays_of(downloaded(at)[1])
    model = mha.load_trained()
    trace = mha.model_forward(np.array([model.vocab.index(c) for c in text.split()]), model.weights)
    x, w = trace.layers[1].ln1, model.weights.blocks[1].attn
    np.testing.assert_allclose(got["X"], x, rtol=1e-12, atol=1e-12)
    assert w.n_heads == 2
    s = alibi_probs(x, w, [2 ** -4, 2 ** -8])  # the paper's slopes for 2 heads
    np.testing.assert_allclose(got["S"], s, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(page_s(at), got["S"][0], rtol=1e-12, atol=1e-12)
    assert meta["model"] == "trained" and meta["layer"] == 2


def test_the_kv_caches_alibi_decodes_the_same_x_without_positions_as_the_lab(monkeypatch):
    """A text's X = E[ids] + P: the cache with ALiBi reads E[ids], as the lab's ALiBi page does (positions come from
    the bias, not from X), and its proof holds for those rows."""
    text = "one two three one two"
    read = []

    class Recording(mha.KVCache):
        def append(self, x_row):
            read.append(np.array(x_row))
            return super().append(x_row)

    monkeypatch.setattr(mha.decoding, "KVCache", Recording)  # the one decode loop's cache
    run(stage="kv_cache", variant="alibi", text=text)
    x, _ = text_rows(text)
    np.testing.assert_allclose(np.array(read[-len(x):]), x, rtol=1e-12, atol=1e-12)
