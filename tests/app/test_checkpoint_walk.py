"""The walk on a GPT-2 checkpoint's layer (issue 45, item 3: `model=checkpoint`): every stage computes with the layer
the link or the sidebar names, on the text in the checkpoint's own tokens, and its numbers are GPT-2's, checked here
against a forward pass written out below from the safetensors file alone (no mha code): X is LN₁ of the residual
stream at that layer, a product the page lets you click is the product alone with the bias GPT-2 adds after it said
under it, and S, Y and the next token are the checkpoint's."""

import io
import json

import numpy as np
import pytest
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import mha
from mha.ui import checkpoints

from .helpers import keyed_charts, page_text, rerun, run, shown, z

TEXT = "the cat sat"  # tiny-gpt2 chooses " sat" next: a token with its own space
EPS = 1e-5


@pytest.fixture(autouse=True)
def _offered(offered):
    return offered


def gpt2_by_hand(folder, ids: list[int]) -> tuple[list[dict], np.ndarray]:
    """GPT-2's forward on ids, layer by layer from the checkpoint's tensors: each layer's LN₁ output, its Q, K, V per
    head (biases added), S, Concat and attention output; and the logits."""
    p, cfg = load_file(folder / "model.safetensors"), json.loads((folder / "config.json").read_text())
    d, h, n = cfg["n_embd"], cfg["n_head"], len(ids)
    hd = d // h

    def ln(x, name):
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + EPS) * p[f"{name}.weight"] + p[f"{name}.bias"]

    def gelu(x):
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))

    x, layers = p["wte.weight"][ids] + p["wpe.weight"][:n], []
    future = np.triu(np.ones((n, n), bool), 1)
    for layer in range(cfg["n_layer"]):
        pre = f"h.{layer}."
        a = ln(x, pre + "ln_1")
        w, b = p[pre + "attn.c_attn.weight"], p[pre + "attn.c_attn.bias"]
        heads = lambda m: m.reshape(n, h, hd).transpose(1, 0, 2)  # noqa: E731 (n, d) -> (h, n, hd)
        q, k, v = (heads(a @ w[:, i * d:(i + 1) * d] + b[i * d:(i + 1) * d]) for i in range(3))
        scores = np.where(future, -np.inf, q @ k.transpose(0, 2, 1) / np.sqrt(hd))
        e = np.exp(scores - scores.max(-1, keepdims=True))
        s = e / e.sum(-1, keepdims=True)
        concat = (s @ v).transpose(1, 0, 2).reshape(n, d)
        w_o = p[pre + "attn.c_proj.weight"]
        y = concat @ w_o + p[pre + "attn.c_proj.bias"]
        layers.append(dict(ln1=a, w_q=w[:, :d], b_q=b[:d], q=q, k=k, s=s, concat=concat, w_o=w_o, y=y))
        x = x + y
        up = ln(x, pre + "ln_2") @ p[pre + "mlp.c_fc.weight"] + p[pre + "mlp.c_fc.bias"]
        x = x + gelu(up) @ p[pre + "mlp.c_proj.weight"] + p[pre + "mlp.c_proj.bias"]
    return layers, ln(x, "ln_f") @ p["wte.weight"].T


def _ids(folder, text: str) -> list[int]:
    return Tokenizer.from_file(str(folder / "tokenizer.json")).encode(text).ids


def test_every_stage_computes_with_the_checkpoints_layer_as_gpt2_does(offered):
    folder = offered / "tiny-gpt2"
    ids = _ids(folder, TEXT)
    layers, logits = gpt2_by_hand(folder, ids)
    layer = layers[1]
    assert np.abs(layer["b_q"]).max() > 0.01  # biases that change the numbers: the page must add them
    at = run(stage="input", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, ckpt_layer=2, head=2)
    ss = at.session_state
    assert (ss["n_tokens"], ss["d_model"], ss["d_k"], ss["d_v"], ss["n_heads"], ss["d_ff"]) == (len(ids), 32, 8, 8,
                                                                                                4, 13)
    assert np.allclose(ss["x_base"], layer["ln1"], atol=1e-9)  # X: what layer 2's attention reads
    assert "this X is the input of layer 2's attention" in shown(page_text(at))

    ss["stage"] = "qk"
    rerun(at)
    spec = dict(keyed_charts(at))["qk_q"]
    a, w, c = (z(trace) for trace in spec["data"][:3])
    assert np.allclose(c, layer["ln1"] @ layer["w_q"][:, 8:16], atol=1e-9)  # head 2's product alone: A·B = C
    assert np.allclose(a @ w, c, atol=1e-9)
    said = shown(page_text(at))
    assert "$XW_{Q2}$ plus the row $b_{Q2}$ (8 numbers, the same for every token) is $Q_{2}$" in said
    assert any("+ b_{Q2}" in latex.value for latex in at.latex) or "+ b_{Q2}" in said  # in the formula too

    ss["stage"] = "scores"
    for phase, want in (("s", layer["s"][1]), ("qkt", layer["q"][1] @ layer["k"][1].T)):  # S₂, and Q₂K₂ᵀ: b_K
        ss["phase"] = phase  # changes no probability (it adds q·b_K to a whole row), so QKᵀ is where it shows
        rerun(at)
        drawn = [z(trace) for trace in dict(keyed_charts(at))["scores"]["data"] if "z" in trace]
        assert any(m.shape == want.shape and np.allclose(np.tril(np.nan_to_num(m)), np.tril(want), atol=1e-9)
                   for m in drawn), phase

    ss["stage"] = "output"
    rerun(at)
    charts = dict(keyed_charts(at))
    assert np.allclose(z(charts["output_y"]["data"][2]), layer["concat"] @ layer["w_o"], atol=1e-9)  # before b_O
    parts = [z(trace) for trace in charts["output_parts"]["data"] if "z" in trace]
    assert np.allclose(parts[-1], layer["y"], atol=1e-9)  # Y = Σ Hᵢ W_O⁽ⁱ⁾ + b_O, GPT-2's attention output
    assert np.allclose(sum(parts[:-1]), layer["y"], atol=1e-9)  # the heads' terms and b_O add up to it

    ss["stage"] = "next_token"
    rerun(at)
    chosen = int(np.argmax(logits[-1]))
    assert f"(id {chosen})" in shown(page_text(at))
    at.button(key="append_token").click()
    rerun(at)
    piece = Tokenizer.from_file(str(folder / "tokenizer.json")).decode([chosen])
    assert piece == " sat" and ss["text"] == TEXT + piece  # the token's own bytes, its space included
    assert np.allclose(ss["x_base"], gpt2_by_hand(folder, _ids(folder, TEXT + piece))[0][1]["ln1"], atol=1e-9)


def test_a_piece_that_bpe_joins_to_the_token_before_makes_x_again_and_says_so(offered):
    folder = offered / "tiny-gpt2"
    at = run(stage="next_token", model="checkpoint", ckpt="tiny-gpt2", text="a ea")
    assert _ids(folder, "a ea") == [64, 220, 68, 64]
    at.button(key="append_token").click()  # tiny-gpt2 chooses "log": "a ealog" splits as a, ␣, e, al, og
    rerun(at)
    ss, after = at.session_state, [64, 220, 68, 281, 270]
    assert ss["text"] == "a ealog" and _ids(folder, "a ealog") == after and ss["n_tokens"] == 5
    assert "joined the new piece to the token before it, so your text is now 5 tokens ending in og" in shown(
        page_text(at))
    assert np.allclose(ss["x_base"], gpt2_by_hand(folder, after)[0][0]["ln1"], atol=1e-9)


def test_a_token_that_is_part_of_a_characters_bytes_is_not_appended(offered):
    folder = offered / "tiny-gpt2"
    ids = _ids(folder, "the dog")
    chosen = int(np.argmax(gpt2_by_hand(folder, ids)[1][-1]))
    with pytest.raises(UnicodeDecodeError):  # tiny-gpt2's next token after "the dog": a lone byte
        Tokenizer.from_file(str(folder / "tokenizer.json")).id_to_token(chosen).encode("latin-1").decode("utf-8")
    at = run(stage="next_token", model="checkpoint", ckpt="tiny-gpt2", text="the dog")
    assert at.button(key="append_token").disabled
    assert "is only part of a character's UTF-8 bytes" in shown(page_text(at))
    at = run(stage="kv_cache", model="checkpoint", ckpt="tiny-gpt2", text="the dog", lang="zh")
    assert at.button(key="add_token").disabled and "只是某个字符 UTF-8 编码的一部分字节" in page_text(at)


def test_the_link_carries_the_walk_on_a_checkpoint_and_one_it_cannot_open_falls_back_and_says_why(offered,
                                                                                                   monkeypatch):
    at = run(stage="qk", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, ckpt_layer=3)
    link = dict(at.query_params)
    assert (link["model"], link["ckpt"], link["ckpt_layer"]) == ("checkpoint", "tiny-gpt2", "3")
    assert not {"d_model", "d_k", "d_v", "n_heads", "n_tokens"} & set(link)  # the model's sizes are not the link's
    again = run(**link)
    assert np.array_equal(again.session_state["x_base"], at.session_state["x_base"])  # the same layer's X
    model = again.sidebar.segmented_control(key="model")
    assert model.value == "checkpoint" and "checkpoint" in model.options[-1].lower()
    assert again.sidebar.segmented_control(key="ckpt_layer").value == "3"
    assert "tiny\\-gpt2 fixes the sizes" in " ".join(c.value for c in again.sidebar.caption)
    for lost in (dict(ckpt="nope"), {}):  # a checkpoint the server lacks, or none named: the post's seeded walk
        back = run(stage="qk", model="checkpoint", text=TEXT, **lost)
        ss = back.session_state
        assert ss["model"] == "seeded" and (ss["d_model"], ss["d_k"], ss["d_v"]) == (5, 7, 11)
        assert "The walk cannot run on a checkpoint with none chosen" in shown(page_text(back))
    checkpoints._held.clear()  # read again, under a budget it does not fit
    monkeypatch.setenv("MHA_MODEL_MB", "0.01")
    back = run(stage="qk", model="checkpoint", ckpt="tiny-gpt2", text=TEXT)
    assert back.session_state["model"] == "seeded"
    assert "The walk cannot run on checkpoint tiny-gpt2 here (it cannot be opened" in shown(page_text(back))
    monkeypatch.delenv("MHA_MODEL_MB")
    monkeypatch.delenv("MHA_MODELS")
    plain = run(stage="qk", text=TEXT)  # a server that offers no checkpoint: the control offers none
    assert "checkpoint" not in plain.sidebar.segmented_control(key="model").options[-1].lower()


def test_a_walked_checkpoint_that_goes_away_mid_session_leaves_x_with_a_row_per_word(offered, monkeypatch):
    """Planted 2026-12-07 (p28): a checkpoint the page walks on can no longer be opened on its next run (the server
    let it go, under a budget it no longer fits). The post's sizes came back after n was matched to the text, so X
    had 3 rows for the 6 words of the text."""
    text = "the cat sat on the mat"
    at = run(stage="qk", model="checkpoint", ckpt="tiny-gpt2", text=text)
    assert at.session_state["model"] == "checkpoint"
    checkpoints._held.clear()
    monkeypatch.setenv("MHA_MODEL_MB", "0.01")
    rerun(at)
    ss, n = at.session_state, len(mha.tokenize(text))
    assert ss["model"] == "seeded" and ss["n_tokens"] == n and ss["x_base"].shape == (n, 5)
    assert f"({n}\\times 5)" in page_text(at)


def test_moving_to_another_layer_keeps_an_edit_and_makes_no_other_cell_an_edit(offered):
    folder = offered / "tiny-gpt2"
    layers, _ = gpt2_by_hand(folder, _ids(folder, TEXT))
    at = run(stage="input", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, ckpt_layer=2)
    at.session_state["x_editor"] = {"edited_rows": {1: {"c3": 7.25}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    assert at.session_state["x_base"][1, 3] == 7.25
    at.sidebar.segmented_control(key="ckpt_layer").set_value("3")
    rerun(at)
    want = layers[2]["ln1"].copy()
    want[1, 3] = 7.25
    assert np.allclose(at.session_state["x_base"], want, atol=1e-9)  # layer 3's X, the one edit kept
    assert "x" in at.query_params and len(at.query_params["x"]) < 40  # the link carries the one edit only


def test_mla_says_in_the_pages_language_why_a_checkpoint_has_no_latent(offered):
    for lang, words in (("en", "GPT-2's biases on K and V have no place in it"), ("zh", "偏置在 MLA 里无处安放")):
        for stage in ("variants", "kv_cache"):
            at = run(stage=stage, variant="mla", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, lang=lang)
            assert words in page_text(at) and not at.error


def test_a_text_with_none_of_the_checkpoints_tokens_walks_on_seeded_weights_and_says_why(offered):
    at = run(stage="input", model="checkpoint", ckpt="trained-gpt2", text="hello world")  # its vocabulary: 8 letters
    ss = at.session_state
    assert ss["model"] == "seeded" and ss["d_model"] == 5
    assert "Your text is empty or has nothing in trained-gpt2's vocabulary" in page_text(at)
    at = run(stage="tokens", model="checkpoint", ckpt="tiny-gpt2", text=TEXT)
    at.text_input(key="text").set_value("")  # the box emptied while the walk runs on the checkpoint
    rerun(rerun(at))
    assert at.session_state["model"] == "seeded" and "Your text is empty" in page_text(at)


def test_the_cache_adds_the_token_the_next_token_stage_appends_and_the_heads_stage_offers_the_walk(offered):
    folder = offered / "tiny-gpt2"
    logits = gpt2_by_hand(folder, _ids(folder, TEXT))[1][-1]
    at = run(stage="kv_cache", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, ckpt_layer=3)
    p = np.exp(logits - logits.max())
    assert np.allclose(at.session_state["kv_word"][1].probs, p / p.sum(), atol=1e-9)  # decoded from the ids
    at.button(key="add_token").click()
    assert rerun(at).session_state["text"] == TEXT + " sat"  # as the next-token stage appends it
    at = run(stage="heads", ckpt="tiny-gpt2", text=TEXT)
    assert at.session_state["model"] == "seeded"
    at.button(key="real_walk").click()
    rerun(at)
    assert at.session_state["model"] == "checkpoint" and at.session_state["d_model"] == 32
    assert all(b.key != "real_walk" for b in at.button)  # walking it, the sidebar's weights are the way back


def test_a_checkpoint_walks_files_hold_its_biases_and_name_it(offered):
    from .test_stage_downloads import downloaded, opened

    folder = offered / "tiny-gpt2"
    layer = gpt2_by_hand(folder, _ids(folder, TEXT))[0][1]
    at = opened(stage="output", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, ckpt_layer=2)
    name, files = downloaded(at)
    data = np.load(io.BytesIO(files["npz"]))
    assert np.allclose(data["X"], layer["ln1"], atol=1e-9) and np.allclose(data["Y"], layer["y"], atol=1e-9)
    assert np.allclose(data["b_Q"].reshape(-1), layer["b_q"], atol=1e-12) and data["b_O"].shape == (32,)
    source = json.loads(files["json"])["source"]
    assert "tiny-gpt2" in name and (source["model"], source["checkpoint"], source["layer"]) == ("checkpoint",
                                                                                               "tiny-gpt2", 2)


def test_a_room_follows_its_presenter_onto_a_checkpoints_layer(offered):
    presenter = run(room="new", stage="qk", model="checkpoint", ckpt="tiny-gpt2", text=TEXT, ckpt_layer=3)
    follower = run(room=presenter.session_state["room"], lang="zh")
    ss = follower.session_state
    assert (ss["model"], ss["ckpt"], ss["ckpt_layer"], ss["d_model"], ss["lang"]) == ("checkpoint", "tiny-gpt2", "3",
                                                                                     32, "zh")
    assert np.array_equal(ss["x_base"], presenter.session_state["x_base"])  # layer 3's X on both pages
