"""Two small GPT-2-format checkpoints for the pages' tests and screenshots, built with the core alone (no torch):
- `tiny-gpt2`: seeded weights (3 layers, 4 heads, d_model 32, learned positions) with a byte-level BPE trained here
  on English and Chinese, so that Chinese characters come out as pieces of their UTF-8 bytes, as in GPT-2;
- `trained-gpt2`: the model trained in this repository (mha/trained/), written in GPT-2's format with a tokenizer of
  its 8 letters, so that its induction heads (layer 2) are there to be found.

`bad_checkpoints` makes folders beside them that are each wrong in one way (what the page must name).
`python -m tests.checkpoints FOLDER` writes both into FOLDER, for `MHA_MODELS=FOLDER streamlit run app.py`."""

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

import mha
from mha.train import load_trained

TEXT = ("the cat sat on the mat and the dog sat on the log; 多头因果自注意力 keeps the keys and the values. "
        "A head that copies the token after an earlier copy of this one is an induction head. ") * 20


def bpe(vocab_size: int = 300) -> Tokenizer:
    """A byte-level BPE trained here on TEXT: GPT-2's kind of tokenizer, small."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator([TEXT], trainers.BpeTrainer(vocab_size=vocab_size,
                                                         initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def tiny_gpt2(folder: Path) -> Path:
    """Seeded weights, with seeded attention biases as every GPT-2 has (pages that leave one out show other numbers)."""
    tok = bpe()
    vocab = [tok.id_to_token(i) for i in range(tok.get_vocab_size())]
    cfg = mha.AttentionConfig(1, 32, 8, 8, 4, seed=3)
    mw = mha.init_model(cfg, vocab, n_layers=3, positions="learned", n_ctx=48)
    rng = np.random.default_rng(3)
    mw = replace(mw, blocks=tuple(replace(b, attn=_biased(b.attn, rng)) for b in mw.blocks))
    mha.save_gpt2(folder, mw, tok.to_str())
    return folder


def _biased(a: mha.Weights, rng: np.random.Generator) -> mha.Weights:
    """a with seeded biases after W_Q, W_K, W_V and W_O, of a size GPT-2's have (0.1)."""
    draw = lambda *shape: 0.1 * rng.standard_normal(shape)  # noqa: E731
    return replace(a, b_q=draw(a.n_heads, a.d_k), b_k=draw(a.n_kv_heads, a.d_k), b_v=draw(a.n_kv_heads, a.d_v),
                   b_o=draw(a.d_model))


def trained_gpt2(folder: Path) -> Path:
    m = load_trained()
    tok = Tokenizer(models.BPE(vocab={letter: i for i, letter in enumerate(m.vocab)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.decoder = decoders.BPEDecoder()
    mha.save_gpt2(folder, m.weights, tok.to_str())
    return folder


def bad_checkpoints(root: Path) -> Path:
    """Beside root (build's): folders that are not checkpoints the core runs, each wrong in one way, made from
    tiny-gpt2's files."""
    out = root.parent / "broken-checkpoints"
    if out.exists():
        return out
    tiny = root / "tiny-gpt2"
    config = json.loads((tiny / "config.json").read_text())
    cases = {"b-type": dict(model_type="bert"), "b-size": dict(n_layer=0), "b-multiple": dict(n_embd=30),
             "b-differs": dict(activation_function="relu"), "b-lacks": dict(n_layer=4), "b-shape": dict(n_positions=64),
             "b-deep": dict(n_layer=25),
             "b-notok": {}, "b-nosafe": {}, "b-header": {}, "b-json": {}}
    for name, change in cases.items():
        folder = out / name
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{not json" if name == "b-json" else json.dumps(config | change))
        if name != "b-notok":
            (folder / "tokenizer.json").write_bytes((tiny / "tokenizer.json").read_bytes())
        if name == "b-header":
            (folder / "model.safetensors").write_bytes(b"\xff" * 64)
        elif name != "b-nosafe":
            (folder / "model.safetensors").write_bytes((tiny / "model.safetensors").read_bytes())
    return out


def build(root: Path) -> Path:
    """Both checkpoints in root (each in a folder of its name); root, for MHA_MODELS."""
    tiny_gpt2(root / "tiny-gpt2")
    trained_gpt2(root / "trained-gpt2")
    return root


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
