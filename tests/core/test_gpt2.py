"""A GPT-2 checkpoint in the core (mha/gpt2.py): the same logits as Hugging Face transformers' GPT2LMHeadModel on a
tiny random GPT-2 this test builds, trains a BPE for and saves; the trained model through the same format and back,
bit for bit; and every kind of folder that is not a GPT-2 refused by name."""

import json
import struct

import numpy as np
import pytest

import mha
from mha.gpt2 import CheckpointError, load_gpt2
from mha.train import load_trained
from tests.checkpoints import bpe, trained_gpt2

SAID = "the dog sat on the mat: 多头因果自注意力 is attention. ✓"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A random GPT-2 (3 layers, 4 heads, d_model 32), saved with its BPE as transformers saves a checkpoint. Every
    bias and layer norm is drawn too (transformers starts them at 0 and 1, which would hide a bias read wrongly), and
    the matrices wider than transformers' 0.02, so that the FFN's GELU works where its two forms differ (|z| ~ 1–3)
    and attention's rows are far from flat."""
    # Imported here, not at the top: torch and transformers took half of each worker's ~14 s of collecting the suite,
    # and only the worker that runs these tests needs them.
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    tok = bpe()
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=3, n_head=4, n_embd=32, n_positions=48, vocab_size=tok.get_vocab_size(),
                                       resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or ".ln_" in name or name.startswith("transformer.ln_f"):
                p.normal_(0.0, 0.3 if name.endswith("bias") else 1.0)
            elif p.ndim == 2 and not name.startswith("transformer.w"):
                p.normal_(0.0, 0.3)
    model.eval()
    model.save_pretrained(folder, safe_serialization=True)
    tok.save(str(folder / "tokenizer.json"))
    return folder, model, tok


def _reference(model, ids: list[int]) -> np.ndarray:
    import torch

    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0].double().numpy()


def test_the_logits_are_transformers_on_the_same_ids(tiny):
    folder, model, tok = tiny
    m = load_gpt2(folder)
    ids = m.tokenizer.encode(SAID)
    assert ids == tok.encode(SAID).ids and len(ids) > 20
    ours = mha.model_forward(ids, m.weights).logits
    theirs = _reference(model, ids)
    scale = np.abs(theirs).max()
    assert np.abs(ours - theirs).max() <= 1e-5 * scale  # float32 against float64: a few float32 ulps of the largest
    ids = list(range(m.weights.n_ctx))  # every position the model has, every token id it can see
    assert np.abs(mha.model_forward(ids, m.weights).logits - _reference(model, ids)).max() <= 1e-5 * scale
    block = m.weights.blocks[1].attn
    assert block.b_q is not None and np.abs(block.b_q).max() > 0.1  # the biases are read, and they matter


def test_the_kv_cache_decodes_a_biased_model_as_the_forward_pass_does(tiny):
    folder, _, _ = tiny
    attn = load_gpt2(folder).weights.blocks[0].attn
    x = np.random.default_rng(0).standard_normal((9, attn.d_model))
    whole = mha.forward(x, attn)
    cache = mha.KVCache(attn)
    rows = np.stack([cache.append(row).y for row in x])
    np.testing.assert_allclose(rows, whole.y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mha.forward(x, mha.share_kv(attn, 2)).q, whole.q, rtol=0, atol=0)  # GQA keeps W_Q, b_Q


def test_the_checkpoints_own_bpe_splits_into_bytes_and_back(tiny):
    folder, _, _ = tiny
    bpe = load_gpt2(folder).tokenizer
    ids = bpe.encode(SAID)
    assert bpe.decode(ids) == SAID
    assert b"".join(bpe.piece(i) for i in ids) == SAID.encode()  # each piece is bytes, whole or part of a character
    pieces = bpe.pieces("多头")
    assert b"".join(pieces) == "多头".encode() and all(isinstance(p, bytes) for p in pieces)


def test_vocab_and_merges_read_as_tokenizer_json_does(tiny, tmp_path):
    folder, _, tok = tiny
    for name in ("config.json", "model.safetensors"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    tok.model.save(str(tmp_path))  # vocab.json and merges.txt
    assert load_gpt2(tmp_path).tokenizer.encode(SAID) == tok.encode(SAID).ids


def test_the_trained_model_goes_through_the_format_and_back_bit_for_bit(tmp_path):
    trained = load_trained()
    vocab = {letter: i for i, letter in enumerate(trained.vocab)}
    back = load_gpt2(trained_gpt2(tmp_path))  # save_gpt2, with a tokenizer of one token a letter
    before, after = trained.weights, back.weights
    for name in ("wte", "wpe", "lnf_g", "lnf_b"):
        assert np.array_equal(getattr(before, name), getattr(after, name)), name
    for b0, b1 in zip(before.blocks, after.blocks, strict=True):
        for name in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_fc", "b_fc", "w_proj", "b_proj"):
            assert np.array_equal(getattr(b0, name), getattr(b1, name)), name
        for name in ("w_q", "w_k", "w_v", "w_o"):
            assert np.array_equal(getattr(b0.attn, name), getattr(b1.attn, name)), name
        assert not np.any(b1.attn.b_q) and not np.any(b1.attn.b_o)  # none: written as zeros
    ids = back.tokenizer.encode("ABCDABCD")
    assert ids == [vocab[c] for c in "ABCDABCD"]
    assert np.array_equal(mha.model_forward(ids, before).logits, mha.model_forward(ids, after).logits)


def _copy(folder, to, config=None, tensors=None):
    """A copy of checkpoint `folder` in `to`, with config.json's settings and the tensors changed as given."""
    from safetensors.numpy import load_file, save_file

    to.mkdir(exist_ok=True)
    cfg = json.loads((folder / "config.json").read_text()) | (config or {})
    (to / "config.json").write_text(json.dumps(cfg))
    t = load_file(str(folder / "model.safetensors"))
    for name, value in (tensors or {}).items():
        if value is None:
            t.pop(name)
        else:
            t[name] = value
    save_file(t, str(to / "model.safetensors"))
    (to / "tokenizer.json").write_bytes((folder / "tokenizer.json").read_bytes())
    return to


def test_a_folder_that_is_not_a_gpt2_is_refused_by_name(tiny, tmp_path):
    folder, _, _ = tiny
    w = "transformer.h.1.attn.c_attn.weight"
    nan = np.full((32, 96), np.nan, dtype=np.float32)
    cases = {
        "model_type": _copy(folder, tmp_path / "llama", {"model_type": "llama"}),
        "lacks transformer.h.1.attn.c_attn.weight": None,
        "h.1.attn.c_attn.weight has shape [96, 32]": _copy(folder, tmp_path / "turned",
                                                           tensors={w: np.zeros((96, 32), np.float32)}),
        "h.1.attn.c_attn.weight holds NaN": _copy(folder, tmp_path / "nan", tensors={w: nan}),
        "activation_function is 'gelu'": _copy(folder, tmp_path / "gelu", {"activation_function": "gelu"}),
        "n_layer must be a whole number": _copy(folder, tmp_path / "layers", {"n_layer": "3"}),
    }
    cases["lacks h.1.attn.c_attn.weight"] = _copy(folder, tmp_path / "lacking", tensors={w: None})
    del cases["lacks transformer.h.1.attn.c_attn.weight"]
    huge = _copy(folder, tmp_path / "huge")
    body = (huge / "model.safetensors").read_bytes()
    (huge / "model.safetensors").write_bytes(struct.pack("<Q", 1 << 40) + body[8:])
    cases["header is 1,099,511,627,776 bytes"] = huge
    cases["no model.safetensors"] = tmp_path / "empty"
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "config.json").write_text((folder / "config.json").read_text())
    cases["no config.json"] = tmp_path
    untokenized = _copy(folder, tmp_path / "untokenized")
    (untokenized / "tokenizer.json").unlink()
    cases["no tokenizer"] = untokenized
    for said, where in cases.items():
        with pytest.raises(CheckpointError) as e:
            load_gpt2(where)
        assert said in str(e.value), (said, str(e.value))
        assert isinstance(e.value, mha.InputError)


def test_the_logits_split_into_parts_that_add_up_with_biases_too(tiny):
    folder, _, _ = tiny
    m = load_gpt2(folder)
    trace = mha.model_forward(m.tokenizer.encode(SAID), m.weights)
    parts = mha.logit_parts(trace, m.weights)
    np.testing.assert_allclose(sum(parts.values()), trace.logits, rtol=1e-9, atol=1e-9 * np.abs(trace.logits).max())
