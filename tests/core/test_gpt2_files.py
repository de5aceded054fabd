"""A GPT-2 checkpoint's files (mha/gpt2.py): what load_gpt2 and checkpoint_numbers refuse, and with which key and
fields (the page words a refusal from those, in the reader's language), what they accept at the edges, and save_gpt2's
way there and back. Built on tests/checkpoints.py's tiny GPT-2 (no torch); the comparison with transformers is in
test_gpt2.py."""

import json
import struct
from dataclasses import replace

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

import mha
from mha.gpt2 import CONFIG_MAX_BYTES, DTYPES, HEADER_MAX_BYTES, CheckpointError, checkpoint_numbers, load_gpt2
from tests.checkpoints import bpe, tiny_gpt2, trained_gpt2

W = "h.1.attn.c_attn.weight"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_gpt2(tmp_path_factory.mktemp("ckpt") / "tiny-gpt2")


def _config(folder) -> dict:
    return json.loads((folder / "config.json").read_text())


def _copy(folder, to, config=None, tensors=None, drop=()):
    """A copy of checkpoint `folder` in `to`, config.json's settings changed as given (None: the setting removed) and
    the tensors too (None: removed)."""
    to.mkdir(parents=True)
    cfg = {k: v for k, v in (_config(folder) | (config or {})).items() if v is not None}
    (to / "config.json").write_text(json.dumps(cfg))
    t = load_file(str(folder / "model.safetensors"))
    for name, value in (tensors or {}).items():
        if value is None:
            t.pop(name)
        else:
            t[name] = value
    save_file(t, str(to / "model.safetensors"))
    for name in {"tokenizer.json"} - set(drop):
        (to / name).write_bytes((folder / name).read_bytes())
    return to


def _header(folder) -> tuple[dict, bytes]:
    body = (folder / "model.safetensors").read_bytes()
    (length,) = struct.unpack("<Q", body[:8])
    return json.loads(body[8:8 + length]), body[8 + length:]


def _with_file(folder, to, raw: bytes):
    """A copy of `folder` whose model.safetensors is `raw`."""
    _copy(folder, to)
    (to / "model.safetensors").write_bytes(raw)
    return to


def _safetensors(header, data: bytes, length: int | None = None) -> bytes:
    text = json.dumps(header).encode() if isinstance(header, (dict, list)) else header
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def _refused(call, where) -> CheckpointError:
    with pytest.raises(CheckpointError) as e:
        call(where)
    assert isinstance(e.value, mha.InputError)
    return e.value


def _config_only(tmp_path, name: str, content) -> object:
    folder = tmp_path / name
    folder.mkdir()
    raw = content if isinstance(content, bytes) else json.dumps(content).encode()
    (folder / "config.json").write_bytes(raw)
    return folder


def test_config_json_is_refused_by_key_and_fields_before_any_weight_is_read(tiny, tmp_path):
    """Each config.json that is not a GPT-2's this core runs: checkpoint_numbers (what a server reads before it
    decides to load) and load_gpt2 refuse it alike, the message opening on the folder's name."""
    base = _config(tiny)
    padded = b"{}" + b" " * (CONFIG_MAX_BYTES - 1)
    cases = [
        ("big", padded, "config_big", {"size": CONFIG_MAX_BYTES + 1}),
        ("notjson", b'{"model_type": "gpt2",', "config_json", {}),
        ("latin1", b'{"model_type": "gpt\xe9"}', "config_json", {}),
        ("list", [base], "config_json", {}),
        ("llama", base | {"model_type": "llama"}, "not_gpt2", {"kind": "llama"}),
        ("untyped", {k: v for k, v in base.items() if k != "model_type"}, "not_gpt2", {"kind": "None"}),
        ("not-multiple", base | {"n_embd": 30}, "not_multiple", {"d": 30, "h": 4}),
    ]
    for i, name in enumerate(("n_layer", "n_head", "n_embd", "n_positions", "vocab_size")):
        value = ["3", True, 0, -1, 2.0][i]
        cases.append((f"size-{name}", base | {name: value}, "bad_size", {"name": name, "value": repr(value)}))
    cases.append(("size-missing", {k: v for k, v in base.items() if k != "vocab_size"}, "bad_size",
                  {"name": "vocab_size", "value": "None"}))
    for name, value in (("n_inner", 0), ("mha_d_k", True), ("mha_d_v", "8"), ("n_inner", -4)):
        cases.append((f"size-{name}-{value}", base | {name: value}, "bad_size", {"name": name, "value": repr(value)}))
    needs = {  # each setting GPT-2's block needs: a value that differs, and what the words say it needs
        "activation_function": ("gelu", "the tanh GELU"),
        "layer_norm_epsilon": (1e-6, "1e-05"),
        "scale_attn_weights": (False, "true (scores ÷ √d_head)"),
        "scale_attn_by_inverse_layer_idx": (True, "false"),
        "tie_word_embeddings": (False, "true (E is the unembedding)"),
    }
    for name, (value, _) in needs.items():
        cases.append((f"differs-{name}", base | {name: value}, "differs", {"name": name, "value": repr(value)}))
    for name, content, key, fields in cases:
        folder = _config_only(tmp_path, name, content)
        for call in (checkpoint_numbers, load_gpt2):
            e = _refused(call, folder)
            assert (e.key, e.fields) == (key, fields), (name, call.__name__)
            assert str(e).startswith(f"{name}: "), str(e)
            assert "config.json" in str(e) or key == "not_multiple", str(e)
            if key == "differs":
                setting, (value, wanted) = fields["name"], needs[fields["name"]]
                assert f"{setting} is {value!r}; this core's GPT-2 block needs {wanted}." in str(e), str(e)


def test_config_json_at_its_edges_is_read(tiny, tmp_path):
    base = _config(tiny)
    d, ctx, vocab, layers = base["n_embd"], base["n_positions"], base["vocab_size"], base["n_layer"]
    qkv = 3 * d  # d_k = d_v = d / h, h of them each
    per_layer = 4 * d + d * qkv + qkv + d * d + d + d * base["n_inner"] + base["n_inner"] + base["n_inner"] * d + d
    numbers = vocab * d + ctx * d + 2 * d + layers * per_layer
    tensors = load_file(str(tiny / "model.safetensors"))
    assert numbers == sum(a.size for a in tensors.values())  # the formula above counts what the file holds
    assert checkpoint_numbers(tiny) == (base, numbers)

    # exactly the most bytes a config.json may have; none of the five settings a GPT-2 may leave to their defaults
    # (the tanh GELU, ε = 1e-5, scaled scores, no scaling by the layer's index, E tied); the tanh GELU's other name
    bare = {k: v for k, v in base.items() if k not in ("activation_function", "layer_norm_epsilon")}
    text = json.dumps(bare).encode()
    assert checkpoint_numbers(_config_only(tmp_path, "edge", text + b" " * (CONFIG_MAX_BYTES - len(text))))[1] \
        == numbers
    assert checkpoint_numbers(_config_only(tmp_path, "torch-gelu", base | {"activation_function":
                                                                             "gelu_pytorch_tanh"}))[1] == numbers
    # the smallest sizes of all; heads wider than n_embd / n_head need no multiple
    one = {"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 1, "n_positions": 1, "vocab_size": 1,
           "n_inner": 1, "mha_d_k": 1, "mha_d_v": 1}
    assert checkpoint_numbers(_config_only(tmp_path, "ones", one))[1] == 1 + 1 + 2 + (4 + 3 + 3 + 1 + 1 + 2 + 2)
    wide = base | {"n_embd": 30, "mha_d_k": 8, "mha_d_v": 5}
    assert checkpoint_numbers(_config_only(tmp_path, "wide", wide))[0] == wide


def test_the_weights_file_is_refused_by_key_and_fields(tiny, tmp_path):
    header, data = _header(tiny)
    size = 8 + len(json.dumps(header)) + len(data)
    config = _config(tiny)
    expected = 4 + 12 * config["n_layer"]
    wrong_dtype = {k: dict(v, dtype="I64") if k == W else v for k, v in header.items()}
    listed = {k: [1] if k == W else v for k, v in header.items()}
    shapeless = {k: {"dtype": "F64"} if k == W else v for k, v in header.items()}
    layer0 = [f"h.0.{n}" for n in ("ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
                                   "attn.c_proj.weight", "attn.c_proj.bias")]  # in GPT-2's order of a block's tensors
    nan = np.full((32, 96), np.nan)
    cases = [
        ("short", _with_file(tiny, tmp_path / "short", b"\x01\x02\x03\x04\x05"), "not_safetensors", {},
         "model.safetensors is 5 bytes"),
        ("huge", _with_file(tiny, tmp_path / "huge", _safetensors(header, data, 1 << 40)), "header_big",
         {"length": 1 << 40, "most": HEADER_MAX_BYTES}, "1,099,511,627,776"),
        ("top-bit", _with_file(tiny, tmp_path / "top-bit", _safetensors(header, data, 1 << 63)), "header_big",
         {"length": 1 << 63, "most": HEADER_MAX_BYTES}, "9,223,372,036,854,775,808"),
        ("past-end", _with_file(tiny, tmp_path / "past-end", _safetensors(header, data, size - 8 + 1)), "header_big",
         {"length": size - 7, "most": HEADER_MAX_BYTES}, f"({size:,} bytes)"),
        ("not-json", _with_file(tiny, tmp_path / "not-json", _safetensors(b"{{{{", b"")), "not_safetensors", {},
         "not JSON"),
        ("list", _with_file(tiny, tmp_path / "list", _safetensors([1, 2], b"")), "not_safetensors", {},
         "not a table"),
        ("only-header", _with_file(tiny, tmp_path / "only-header", _safetensors(b"{}   ", b"")), "lacks",
         {"names": "wte.weight, wpe.weight, ln_f.weight, ln_f.bias, h.0.ln_1.weight", "count": expected},
         f" and {expected - 5} more: not a GPT-2 of config.json's sizes (3 layers, n_embd 32)"),
        ("lacks", _copy(tiny, tmp_path / "lacks", tensors={W: None}), "lacks", {"names": W, "count": 1},
         f"lacks {W}: not"),
        ("lacks-5", _copy(tiny, tmp_path / "lacks-5", tensors=dict.fromkeys(layer0[:5])), "lacks",
         {"names": ", ".join(layer0[:5]), "count": 5},
         "(3 layers"),
        ("lacks-6", _copy(tiny, tmp_path / "lacks-6", tensors=dict.fromkeys(layer0[:6])), "lacks",
         {"names": ", ".join(layer0[:5]), "count": 6},
         " and 1 more: not"),
        ("shapeless", _with_file(tiny, tmp_path / "shapeless", _safetensors(shapeless, data)), "shape",
         {"name": W, "got": "None", "shape": "(32, 96)"}, f"{W} has shape None"),
        ("turned", _copy(tiny, tmp_path / "turned", tensors={W: np.zeros((96, 32))}), "shape",
         {"name": W, "got": "[96, 32]", "shape": "(32, 96)"}, f"{W} has shape [96, 32]; config.json's sizes make it"),
        ("entry", _with_file(tiny, tmp_path / "entry", _safetensors(listed, data)), "shape",
         {"name": W, "got": "[1]", "shape": "(32, 96)"}, f"{W} has shape [1]"),
        ("dtype", _with_file(tiny, tmp_path / "dtype", _safetensors(wrong_dtype, data)), "dtype",
         {"name": W, "dtype": "I64", "dtypes": ", ".join(DTYPES)}, f"{W} is I64; this core reads F64, F32, F16"),
        ("nan", _copy(tiny, tmp_path / "nan", tensors={W: nan}), "not_finite", {"name": W}, f"{W} holds NaN"),
        ("cut", _with_file(tiny, tmp_path / "cut", _safetensors(header, data[:-8])), "not_safetensors", {},
         "could not be read as safetensors"),
    ]
    for name, folder, key, fields, words in cases:
        e = _refused(load_gpt2, folder)
        assert (e.key, e.fields) == (key, fields), name
        assert str(e).startswith("model.safetensors") and words in str(e), (name, str(e))
        if key == "lacks":
            more = f" and {fields['count'] - 5} more" if fields["count"] > 5 else ""
            assert str(e).startswith(f"model.safetensors lacks {fields['names']}{more}: not a GPT-2"), str(e)


def test_a_folder_without_its_files_or_with_a_tokenizer_that_does_not_fit_is_refused(tiny, tmp_path):
    missing = tmp_path / "nowhere"
    for call in (load_gpt2, checkpoint_numbers):
        e = _refused(call, missing)
        assert (e.key, e.fields, str(e)) == ("no_folder", {}, f"{missing}: no such folder.")
    noconfig = _copy(tiny, tmp_path / "noconfig")
    (noconfig / "config.json").unlink()
    nosafe = _copy(tiny, tmp_path / "nosafe")
    (nosafe / "model.safetensors").unlink()
    notok = _copy(tiny, tmp_path / "notok", drop={"tokenizer.json"})
    halftok = _copy(tiny, tmp_path / "halftok", drop={"tokenizer.json"})
    (halftok / "vocab.json").write_text("{}")
    badtok = _copy(tiny, tmp_path / "badtok")
    (badtok / "tokenizer.json").write_text('{"model": ')
    tokens = json.loads((tiny / "tokenizer.json").read_text())["model"]["vocab"]
    split = _copy(tiny, tmp_path / "split", drop={"tokenizer.json"})  # vocab.json and merges.txt, as older GPT-2s
    bpe().model.save(str(split))
    said = "the cat 多头 sat"
    two = load_gpt2(split).tokenizer
    assert two.decode(two.encode(said)) == said and two.encode(said) == load_gpt2(tiny).tokenizer.encode(said)
    small = _copy(tiny, tmp_path / "small", {"vocab_size": len(tokens) - 1})
    cases = [(noconfig, "no_config", {}, "no config.json"), (nosafe, "no_safetensors", {}, "no model.safetensors"),
             (notok, "no_tokenizer", {}, "no tokenizer"), (halftok, "no_tokenizer", {}, "no tokenizer"),
             (badtok, "bad_tokenizer", {}, "its tokenizer could not be read"),
             (small, "tokenizer_big", {"tokens": len(tokens), "vocab": len(tokens) - 1},
              f"the tokenizer has {len(tokens):,} tokens, the model's embedding {len(tokens) - 1:,}")]
    for folder, key, fields, words in cases:
        e = _refused(load_gpt2, folder)
        assert (e.key, e.fields) == (key, fields), folder.name
        assert str(e).startswith(f"{folder.name}: ") and words in str(e), str(e)


def test_a_checkpoint_reads_as_its_files_say_and_save_gpt2_writes_it_back(tiny, tmp_path):
    """Every head's W and b cut from c_attn's columns as GPT-2 lays them out, config.json and the folder's name kept;
    then save_gpt2 into a folder not made yet, and back, array for array, biases too."""
    m = load_gpt2(tiny)
    assert (m.config, m.name) == (_config(tiny), "tiny-gpt2")
    t = load_file(str(tiny / "model.safetensors"))
    d, h = 32, 4
    for layer, b in enumerate(m.weights.blocks):
        w, bias = t[f"h.{layer}.attn.c_attn.weight"], t[f"h.{layer}.attn.c_attn.bias"]
        for i in range(h):
            for part, (wm, bm) in enumerate(((b.attn.w_q, b.attn.b_q), (b.attn.w_k, b.attn.b_k),
                                             (b.attn.w_v, b.attn.b_v))):
                cols = slice(part * d + i * 8, part * d + (i + 1) * 8)
                assert np.array_equal(wm[i], w[:, cols]) and np.array_equal(bm[i], bias[cols]), (layer, i, part)
        assert np.array_equal(b.attn.b_o, t[f"h.{layer}.attn.c_proj.bias"])

    # biases drawn here, not read from a file save_gpt2 wrote: a save that dropped one would not show in those
    rng = np.random.default_rng(5)
    biased = replace(m.weights, blocks=tuple(replace(b, attn=replace(
        b.attn, **{name: rng.standard_normal(getattr(b.attn, name).shape) for name in ("b_q", "b_k", "b_v", "b_o")}))
        for b in m.weights.blocks))
    again = tmp_path / "a" / "b"
    mha.save_gpt2(again, biased, (tiny / "tokenizer.json").read_text(encoding="utf-8"))
    back = load_gpt2(again)
    # what transformers' GPT2Config reads, and no mha_d_k or mha_d_v for heads of n_embd / n_head
    assert back.config == {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": 3, "n_head": 4,
                           "n_embd": 32, "n_positions": 48, "n_ctx": 48, "vocab_size": m.config["vocab_size"],
                           "n_inner": m.config["n_inner"], "activation_function": "gelu_new",
                           "layer_norm_epsilon": 1e-5, "torch_dtype": "float64"}
    for b0, b1 in zip(biased.blocks, back.weights.blocks, strict=True):
        for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o"):
            assert np.array_equal(getattr(b0.attn, name), getattr(b1.attn, name)), name
    assert back.tokenizer.encode("the cat 多头") == m.tokenizer.encode("the cat 多头")


def test_save_gpt2_names_heads_of_another_width_and_refuses_what_gpt2_cannot_hold(tmp_path):
    trained = load_gpt2(trained_gpt2(tmp_path / "trained"))  # d_model 13, d_k 19, d_v 11
    assert (trained.config["mha_d_k"], trained.config["mha_d_v"]) == (19, 11)
    # heads of width d_model // h that do not divide d_model: written as such, or the load would ask for a multiple
    cfg = mha.AttentionConfig(1, 10, 2, 2, 4, seed=1)
    uneven = mha.init_model(cfg, ["a", "b"], positions="learned", n_ctx=4)
    mha.save_gpt2(tmp_path / "uneven", uneven)
    config = _config(tmp_path / "uneven")
    assert (config["mha_d_k"], config["mha_d_v"], config["n_embd"], config["n_head"]) == (2, 2, 10, 4)
    assert checkpoint_numbers(tmp_path / "uneven")[0] == config
    learned = mha.init_model(mha.AttentionConfig(1, 8, 2, 2, 4, seed=1), ["a"], positions="learned", n_ctx=4)
    gqa = replace(learned, blocks=tuple(replace(b, attn=mha.share_kv(b.attn, 2)) for b in learned.blocks))
    sinusoidal = mha.init_model(mha.AttentionConfig(1, 8, 2, 2, 4, seed=1), ["a"])
    for mw in (gqa, sinusoidal):
        with pytest.raises(mha.InputError, match="learned positions and a K and V per head"):
            mha.save_gpt2(tmp_path / "refused", mw)


def test_the_bpe_reads_every_byte_and_adds_or_drops_no_special_token():
    """GPT-2's byte table is the one `tokenizers` uses (the same 256 characters, the printable bytes as themselves); a
    tokenizer.json whose post-processor adds a token adds none here, and one in the ids is decoded, not dropped."""
    from tokenizers import pre_tokenizers, processors

    from mha.bpe import BPE, _byte_table

    table = _byte_table()
    assert sorted(table) == list(range(256)) and set(table.values()) == set(pre_tokenizers.ByteLevel.alphabet())
    assert all(table[b] == chr(b) for b in b"!~\xa1\xac\xae\xff") and table[0] == "\u0100"
    tok = bpe()
    assert tok.token_to_id("<|endoftext|>") is None
    tok.add_special_tokens(["<|endoftext|>"])
    end = tok.token_to_id("<|endoftext|>")
    tok.post_processor = processors.TemplateProcessing(single="$A <|endoftext|>", special_tokens=[("<|endoftext|>",
                                                                                                   end)])
    b = BPE(tok)
    ids = b.encode("the cat")
    assert end not in ids and b.decode(ids) == "the cat"
    assert b.decode([*ids, end]) == "the cat<|endoftext|>"
    assert b.piece(tok.get_vocab_size() + 5) == b"" and b"".join(b.pieces("é多")) == "é多".encode()
