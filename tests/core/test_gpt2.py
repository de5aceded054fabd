"""A GPT-2 checkpoint in the core (mha/gpt2.py): the same logits as Hugging Face transformers' GPT2LMHeadModel on a
tiny random GPT-2 this test builds, trains a BPE for and saves; the trained model through the same format and back,
bit for bit. What a checkpoint's files may hold, and what is refused: test_gpt2_files.py."""

import numpy as np
import pytest

import mha
from mha.gpt2 import load_gpt2
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


def test_the_logits_split_into_parts_that_add_up_with_biases_too(tiny):
    folder, _, _ = tiny
    m = load_gpt2(folder)
    trace = mha.model_forward(m.tokenizer.encode(SAID), m.weights)
    parts = mha.logit_parts(trace, m.weights)
    np.testing.assert_allclose(sum(parts.values()), trace.logits, rtol=1e-9, atol=1e-9 * np.abs(trace.logits).max())
