"""Every stage's download holds the arrays its view shows, computed here from mha alone, and says what they come from
(the stage, the model and the layer) in its name and in each file."""

import io
import json
import zipfile

import numpy as np
import pytest
from streamlit.runtime.memory_media_file_storage import _calculate_file_id

import mha
from mha.ui import exports, prepared, x_source
from mha.ui.walk import STAGES

from .helpers import rerun, run

CFG = mha.AttentionConfig()  # the post's sizes, the page's defaults
TEXT = "one two three one two"
MATMUL_A = np.array([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0]])  # the refresher's example, as the page shows it
MATMUL_B = np.array([[2.0, 0.0, 1.0, -1.0, 3.0], [1.0, -2.0, 0.0, 2.0, 1.0], [0.0, 1.0, 3.0, 1.0, -1.0]])
EXAMPLE = x_source.EXAMPLE["en"]  # the tokens stage's example (English page), used without a text


def downloaded(at, suffix: str = "") -> tuple[str, dict[str, bytes]]:
    """The files the download buttons hand over, and their name: the three files the process wrote for this view,
    matched to the buttons by Streamlit's media file ids (a hash of the bytes, the type and the file's name, which
    ends in the stage's `suffix`, where it has one)."""
    urls = {b.proto.id.rsplit("-", 1)[-1]: b.proto.url.rsplit("/", 1)[-1].split(".")[0]
            for b in at.get("download_button")}
    assert set(urls) == {"download_npz", "download_json", "download_csv"}, urls
    for key in list(prepared.FILES._items):
        files = prepared.FILES.peek(key)
        name = exports.stem(key[0], key[3]) + suffix
        if _calculate_file_id(files["npz"], "application/octet-stream", f"{name}.npz") == urls["download_npz"]:
            assert _calculate_file_id(files["json"], "application/json", f"{name}.json") == urls["download_json"]
            assert _calculate_file_id(files["csv"], "application/zip", f"{name}-csv.zip") == urls["download_csv"]
            return name, files
    raise AssertionError("no written files match the buttons")


def opened(**params):
    at = run(**params)
    at.session_state["downloads_open"] = True
    return rerun(at)


def _seeded_model(cfg: mha.AttentionConfig, text: str) -> tuple[np.ndarray, list[str], mha.ModelWeights]:
    """The coda's one-block model over the text's vocabulary, from mha: ids, vocabulary, weights."""
    tokens = mha.tokenize(text)
    vocab = mha.vocabulary(tokens)
    ids = np.array([vocab.index(tok) for tok in tokens])
    block = mha.init_block(cfg, 0, attn=mha.init_weights(cfg))
    return ids, vocab, mha.init_model(cfg, vocab, 1, "sinusoidal", 65, (block,))


def expected(stage: str, text: str = "") -> dict[str, np.ndarray]:
    """What the stage's view shows, computed from mha: the walk's X is the seeded one, or the text's E[ids] + P."""
    n = len(mha.tokenize(text)) if text else CFG.n_tokens
    cfg = mha.AttentionConfig(n_tokens=n)
    w = mha.init_weights(cfg)
    if text:
        ids, vocab, mw = _seeded_model(cfg, text)
        x = mw.wte[ids] + mha.sinusoidal_positions(n, cfg.d_model)
    else:
        x = mha.init_input(cfg)
    if stage == "matmul":
        return {"A": MATMUL_A, "B": MATMUL_B, "R": MATMUL_A @ MATMUL_B}
    if stage == "tokens":
        shown = text or EXAMPLE
        k = len(mha.tokenize(shown))
        ids, vocab, mw = _seeded_model(mha.AttentionConfig(n_tokens=k), shown)
        p = mha.sinusoidal_positions(k, cfg.d_model)
        return {"ids": ids, "E": mw.wte, "E_ids": mw.wte[ids], "P": p, "X": mw.wte[ids] + p}
    if stage == "next_token":
        _, vocab, mw = _seeded_model(mha.AttentionConfig(n_tokens=len(mha.tokenize(text or EXAMPLE))), text or EXAMPLE)
        bw = mha.init_block(cfg, 0)
        y = mha.block(x, bw).y
        final = mha.layer_norm(y, mw.lnf_g, mw.lnf_b)
        logits = final @ mw.wte.T
        p = np.exp(logits[-1] - logits[-1].max())
        return {"X": x, "LN_f_Y": final, "E": mw.wte, "logits": logits, "p_next": p / p.sum()}
    if stage == "block":  # the post's order, the stage's default
        bw = mha.init_block(cfg, 0)
        return _block(mha.block(x, bw, ln="post"), bw)
    t = mha.forward(x, w)
    out = {"X": x, "W_Q": w.w_q, "W_K": w.w_k, "W_V": w.w_v, "W_O": w.w_o, "Q": t.q, "K": t.k, "V": t.v,
           "QK^T": t.scores, "QK^T_scaled": t.scaled, "QK^T_masked": t.masked, "S": t.probs, "H": t.heads,
           "Concat": t.concat, "Y": t.y}
    if stage == "dependency":
        out["D"] = mha.dependency(x, w)
    if stage == "variants":
        # GQA as the walk: no copies of Q and K as Q_rot, K_rot, nor of the causal mask as a bias, which RoPE, a
        # window or ALiBi add (audit 2026-12-04 #14)
        order = ("X", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V", "QK^T", "QK^T_scaled", "QK^T_masked", "S", "H",
                 "Concat", "Y")
        return {k: out[k] for k in order}
    return out


def _ln(z: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (z - z.mean(axis=1, keepdims=True)) / np.sqrt(z.var(axis=1, keepdims=True) + 1e-5) * g + b


def _block(tr: mha.BlockTrace, bw: mha.BlockWeights) -> dict[str, np.ndarray]:
    """The block's arrays in its order, each sum and norm recomputed here from the attention's output and the FFN's
    activation: pre-LN (GPT-2), X → LN₁ → Attn → + X → LN₂ → FFN → + R₁; post-LN (the post's), X → Attn → + X → LN₁
    → FFN → + R₁ → LN₂."""
    x, a = tr.x, bw.attn
    weights = {"W_Q": a.w_q, "W_K": a.w_k, "W_V": a.w_v, "W_O": a.w_o}
    if tr.ln == "pre":
        ln1 = _ln(x, bw.ln1_g, bw.ln1_b)
        r1 = x + tr.attn.y
        ln2 = _ln(r1, bw.ln2_g, bw.ln2_b)
        ffn = tr.act @ bw.w_proj + bw.b_proj
        return {"X": x, **weights, "Attn": tr.attn.y, "mu_1": x.mean(axis=1), "var_1": x.var(axis=1), **_hat(x),
                "gamma_1": bw.ln1_g, "beta_1": bw.ln1_b, "LN_1": ln1, "R_1": r1, "gamma_2": bw.ln2_g,
                "beta_2": bw.ln2_b, "LN_2": ln2, "W_fc": bw.w_fc, "b_fc": bw.b_fc, "LN_2W_fc": ln2 @ bw.w_fc,
                "H": ln2 @ bw.w_fc + bw.b_fc, "A": tr.act, "W_proj": bw.w_proj, "b_proj": bw.b_proj, "FFN": ffn,
                "Y": r1 + ffn}
    sum1 = x + tr.attn.y
    r1 = _ln(sum1, bw.ln1_g, bw.ln1_b)
    ffn = tr.act @ bw.w_proj + bw.b_proj
    return {"X": x, **weights, "Attn": tr.attn.y, "sum_1": sum1, "mu_1": sum1.mean(axis=1), "var_1": sum1.var(axis=1),
            **_hat(sum1), "gamma_1": bw.ln1_g, "beta_1": bw.ln1_b, "LN_1": r1, "R_1": r1, "gamma_2": bw.ln2_g,
            "beta_2": bw.ln2_b,
            "W_fc": bw.w_fc, "b_fc": bw.b_fc, "R_1W_fc": r1 @ bw.w_fc, "H": r1 @ bw.w_fc + bw.b_fc, "A": tr.act,
            "W_proj": bw.w_proj, "b_proj": bw.b_proj, "FFN": ffn, "sum_2": r1 + ffn,
            "Y": _ln(r1 + ffn, bw.ln2_g, bw.ln2_b)}


def _hat(z: np.ndarray) -> dict[str, np.ndarray]:
    """LN₁'s normalised rows, each row's mean taken off and divided by √(variance + 10⁻⁵), and their mean and
    variance by row (0 and just under 1)."""
    hat = np.array([(row - row.mean()) / np.sqrt(row.var() + 1e-5) for row in z])
    return {"x_hat_1": hat, "mu_x_hat_1": hat.mean(axis=1), "var_x_hat_1": hat.var(axis=1)}


def _arrays(files: dict[str, bytes]) -> tuple[dict[str, np.ndarray], dict]:
    data = np.load(io.BytesIO(files["npz"]))
    return {k: data[k] for k in data.files if k != exports.META}, json.loads(str(data[exports.META]))


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-12, err_msg=k)


@pytest.mark.parametrize("stage", STAGES)
def test_every_stages_download_holds_what_its_view_shows(stage):
    prepared.FILES.clear()
    at = opened(stage=stage, **({"variant": "gqa"} if stage == "variants" else {}))
    name, files = downloaded(at)
    got, meta = _arrays(files)
    if stage == "kv_cache":  # its own export is another change's; today it holds the walk's trace
        _same({k: got[k] for k in ("X", "Y")}, {k: expected("input")[k] for k in ("X", "Y")})
    else:
        _same(got, expected(stage))
    assert name == f"mha-{stage}-3x5x7x11x2-seed0"
    lab = dict(variant="gqa", n_kv_heads=2, window=0, sinks=0, alibi=False, rotary_dims=0, rope_base=10000.0,
               kv_bits=0)
    assert meta == {"stage": stage, "model": "seeded", "seed": 0, "init": "gaussian",
                    **({"ln": "post"} if stage == "block" else {}), **(lab if stage == "variants" else {})}
    body = json.loads(files["json"])
    assert list(body["matrices"]) == list(got) and body["source"] == meta
    archive = zipfile.ZipFile(io.BytesIO(files["csv"]))
    assert json.loads(archive.read("meta.json")) == meta


@pytest.mark.parametrize("stage", ["tokens", "next_token", "block", "scores"])
def test_with_a_text_the_download_follows_the_texts_x(stage):
    prepared.FILES.clear()
    name, files = downloaded(opened(stage=stage, text=TEXT))
    got, meta = _arrays(files)
    _same(got, expected(stage, TEXT))
    assert meta["tokens"] == TEXT.split() and name.startswith(f"mha-{stage}-5x5x")


def test_the_blocks_download_follows_the_order_shown():
    """GPT-2's order (ln=pre) holds LN₂ and LN₂·W_fc; the post's, the two sums its norms take."""
    prepared.FILES.clear()
    _, files = downloaded(opened(stage="block", ln="pre"))
    got, meta = _arrays(files)
    bw = mha.init_block(CFG, 0)
    _same(got, _block(mha.block(mha.init_input(CFG), bw, ln="pre"), bw))
    assert meta["ln"] == "pre" and "LN_2W_fc" in got and "sum_1" not in got


def test_the_csv_writes_the_coda_arrays_with_their_axes():
    prepared.FILES.clear()
    _, files = downloaded(opened(stage="next_token", text=TEXT))
    archive = zipfile.ZipFile(io.BytesIO(files["csv"]))
    logits = [line.split(",") for line in archive.read("logits.csv").decode().splitlines()]
    assert logits[0] == ["token", "v1", "v2", "v3"] and [r[0] for r in logits[1:]] == [f"t{i}" for i in range(1, 6)]
    p = archive.read("p_next.csv").decode().splitlines()
    assert p[0] == "row,v1,v2,v3" and p[1].startswith("r1,")
    assert json.loads(files["json"])["matrices"]["E"]["shape"] == [3, 5]


@pytest.mark.parametrize("stage, layer", [("block", 2), ("next_token", 1), ("scores", 2), ("tokens", 1)])
def test_a_trained_models_files_are_named_after_the_model_and_layer_and_hold_its_arrays(stage, layer):
    prepared.FILES.clear()
    text = "B C G A B C G A"
    name, files = downloaded(opened(stage=stage, model="trained", layer=layer, text=text))
    got, meta = _arrays(files)
    model = mha.load_trained()
    ids = np.array([model.vocab.index(c) for c in text.split()])
    trace = mha.model_forward(ids, model.weights)
    assert "seed0" not in name and f"trained-layer{layer}" in name and name.startswith(f"mha-{stage}-")
    assert meta == {"stage": stage, "model": "trained", "layer": layer, "trained": "shipped", "tokens": text.split(),
                    **({"ln": "pre"} if stage == "block" else {})}
    if stage == "block":
        _same(got, _block(trace.layers[layer - 1], model.weights.blocks[layer - 1]))
    elif stage == "next_token":
        np.testing.assert_allclose(got["logits"], trace.logits, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got["p_next"], trace.probs[-1], rtol=1e-12, atol=1e-12)
    elif stage == "scores":  # the walk shows the layer's attention on what it reads
        attn = trace.layers[layer - 1].attn
        np.testing.assert_allclose(got["S"], attn.probs, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got["X"], trace.layers[layer - 1].ln1, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(got["ids"], ids)
        np.testing.assert_allclose(got["X"], trace.x, rtol=1e-12, atol=1e-12)


def test_next_token_without_a_text_computes_the_sidebars_n_rows():
    """It ran on the example's 6 tokens while the sidebar's n said 3: now the walk's X, n rows, through the block,
    scored against the example's vocabulary."""
    at = run(stage="next_token")
    assert at.number_input(key="n_tokens").value == 3
    assert any("3 rows" in i.value for i in at.info)
    _, files = downloaded(opened(stage="next_token"))
    vocab = len(set(mha.tokenize(EXAMPLE)))
    assert _arrays(files)[0]["logits"].shape == (3, vocab)  # n × the example's words


def test_the_knock_out_part_s_files_hold_the_knocked_heads_and_their_table():
    """Audit #14: with 2.1 and 2.2 knocked out, the files held layer 1's attention only, named and recorded as if
    nothing were knocked out. Now the record and the name say `knock`, and the files hold the last layer's patterns
    with every head and without the knocked ones, and the held-out table, against mha's own forward."""
    prepared.FILES.clear()
    at = opened(stage="heads", model="trained", part="knock", knock="2.1,2.2")
    name, files = downloaded(at, "-knock2.1-2.2")  # the buttons' files carry the knocked heads in their name
    got, meta = _arrays(files)
    assert meta["knock"] == ["2.1", "2.2"]
    m = mha.load_trained()
    ids = mha.model_forward(np.array([m.vocab.index(c) for c in at.session_state["text"].split()]), m.weights).ids
    np.testing.assert_allclose(got["S_all"], mha.model_forward(ids, m.weights).layers[-1].attn.probs, atol=1e-12)
    knocked = mha.model_forward(ids, m.weights, knocked=((1, 0), (1, 1)))
    np.testing.assert_allclose(got["S_knocked"], knocked.layers[-1].attn.probs, atol=1e-12)
    assert got["accuracy"][0] > 0.9 and got["accuracy"][1] < 0.3 and abs(got["accuracy"][2] - 1 / len(m.vocab)) < 1e-12
    assert meta["table_rows"][0] == "every head" and len(got["loss"]) == 3


@pytest.mark.parametrize("extra", [dict(), dict(model="trained", text="A B C A B")])
def test_files_of_an_edited_x_say_so_in_their_name_and_their_source(extra):
    """Audit 2026-12-06 #11: the files held X's edited cell, yet their name and source said only "seed 0", from which
    another X comes. Their name ends in -xedited and their source counts the cells edited; unedited, neither."""
    prepared.FILES.clear()
    at = run(stage="output", **extra)
    at.session_state["downloads_open"] = True
    name, files = downloaded(rerun(at))
    assert not name.endswith("-xedited") and "x_edited_cells" not in json.loads(files["json"])["source"]
    x = at.session_state["x_base"].copy()
    x[1, 2] = 5.0
    prepared.FILES.clear()
    edited = run(stage="output", x="2.3~5.0", **extra)
    edited.session_state["downloads_open"] = True
    name, files = downloaded(rerun(edited))
    assert name.endswith("-xedited") and json.loads(files["json"])["source"]["x_edited_cells"] == 1
    np.testing.assert_array_equal(np.load(io.BytesIO(files["npz"]))["X"], x)
