"""A GPT-2 checkpoint in the Hugging Face layout, read into the core's own model: `m = load_gpt2(folder)`.

The folder holds `config.json`, `model.safetensors` and the byte-level BPE, as `tokenizer.json` or as `vocab.json` and
`merges.txt`. `m.weights` is a ModelWeights for model_forward, `m.tokenizer` encodes and decodes text. The weights
are read with `safetensors` and the BPE with `tokenizers` (both imported only here, when a checkpoint is opened);
nothing is downloaded.

GPT-2's layers map onto the core's one to one. Its Conv1D weights are already (in, out), as the post writes them:
- `h.L.attn.c_attn` (d, 3d) and its bias (3d,): W_Q | W_K | W_V side by side, each (d, h·d_head) with head i in
  columns i·d_head…(i+1)·d_head, so W_Qi = c_attn[:, i·d_head:(i+1)·d_head] and b_Qi likewise;
- `h.L.attn.c_proj` (d, d): W_O, whose rows take the heads' outputs in the same order as Concat; its bias is b_O;
- `h.L.ln_1`, `h.L.ln_2`, `h.L.mlp.c_fc`, `h.L.mlp.c_proj`, `ln_f`, `wte`, `wpe`: LN₁, LN₂, the FFN, the final LN,
  E (also the unembedding: GPT-2 ties them) and the learned positions P.
The block is pre-LN with ε = 1e-5 and the tanh GELU ("gelu_new"), as block.py's. A checkpoint that differs in any of
these is refused by name, before any weight is read: nothing is half-loaded.

`save_gpt2` writes a model the other way (float64 tensors, so that what it wrote reads back bit for bit). The
core's own models may have heads narrower or wider than d_model / n_head (the trained model's d_k = 19, d_v = 11 at
d_model = 13): config.json then says so in two keys of this project's, `mha_d_k` and `mha_d_v`, which a GPT-2 never
has (transformers cannot load such a folder; this module can).
"""

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .attention import Weights
from .block import EPS, BlockWeights
from .bpe import BPE
from .errors import InputError
from .model import ModelWeights

CONFIG_MAX_BYTES = 1 << 20  # a config.json is a few hundred bytes
HEADER_MAX_BYTES = 1 << 24  # a safetensors header lists each tensor's name, dtype, shape and offsets: GPT-2 XL's
# ~580 tensors take ~60 KB; a header claiming more than 16 MB is not a checkpoint's
GELUS = ("gelu_new", "gelu_pytorch_tanh")  # the tanh approximation, under its two names in transformers
DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16}


class CheckpointError(InputError):
    """A folder that is not a GPT-2 checkpoint this core can run: the message names what is wrong; `key` and `fields`
    say it for a page that words it in its own language (mha/ui/strings/checkpoint.py)."""

    def __init__(self, message: str, key: str = "", **fields):
        super().__init__(message)
        self.key, self.fields = key, fields


@dataclass(frozen=True, eq=False)
class GPT2:
    weights: ModelWeights
    tokenizer: BPE
    config: dict  # config.json as read: n_layer, n_head, n_embd, n_positions, vocab_size, …
    name: str  # the folder's name

    n_heads = property(lambda self: self.weights.blocks[0].attn.n_heads)


def _read_config(folder: Path) -> dict:
    path = folder / "config.json"
    if not path.is_file():
        raise CheckpointError(f"{folder.name}: no config.json; a GPT-2 checkpoint's folder has config.json, "
                              "model.safetensors and tokenizer.json (or vocab.json and merges.txt).", "no_config")
    if path.stat().st_size > CONFIG_MAX_BYTES:
        raise CheckpointError(f"{folder.name}: config.json is {path.stat().st_size:,} bytes, not a model's config.",
                              "config_big", size=path.stat().st_size)
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{folder.name}: config.json is not JSON ({e}).", "config_json") from None
    if not isinstance(config, dict):
        raise CheckpointError(f"{folder.name}: config.json holds no settings.", "config_json")
    kind = config.get("model_type")
    if kind != "gpt2":
        raise CheckpointError(f"{folder.name}: a {kind!r} model, not GPT-2 (config.json's model_type); this core runs "
                              "GPT-2's architecture only.", "not_gpt2", kind=str(kind))
    for name in ("n_layer", "n_head", "n_embd", "n_positions", "vocab_size"):
        value = config.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CheckpointError(f"{folder.name}: config.json's {name} must be a whole number ≥ 1; got {value!r}.",
                                  "bad_size", name=name, value=repr(value))
    for name in ("n_inner", "mha_d_k", "mha_d_v"):
        value = config.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise CheckpointError(f"{folder.name}: config.json's {name} must be a whole number ≥ 1; got {value!r}.",
                                  "bad_size", name=name, value=repr(value))
    if "mha_d_k" not in config and config["n_embd"] % config["n_head"]:
        raise CheckpointError(f"{folder.name}: n_embd = {config['n_embd']} is not a multiple of n_head = "
                              f"{config['n_head']}.", "not_multiple", d=config["n_embd"], h=config["n_head"])
    differs = {
        "activation_function": (config.get("activation_function", "gelu_new") in GELUS, "the tanh GELU"),
        "layer_norm_epsilon": (config.get("layer_norm_epsilon", EPS) == EPS, f"{EPS}"),
        "scale_attn_weights": (config.get("scale_attn_weights", True) is True, "true (scores ÷ √d_head)"),
        "scale_attn_by_inverse_layer_idx": (not config.get("scale_attn_by_inverse_layer_idx", False), "false"),
        "tie_word_embeddings": (config.get("tie_word_embeddings", True) is True, "true (E is the unembedding)"),
    }
    for name, (ok, wanted) in differs.items():
        if not ok:
            raise CheckpointError(f"{folder.name}: config.json's {name} is {config.get(name)!r}; this core's GPT-2 "
                                  f"block needs {wanted}.", "differs", name=name, value=repr(config.get(name)))
    return config


def _header(path: Path) -> dict:
    """The safetensors header (each tensor's dtype, shape and offsets), read and checked before any tensor is."""
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CheckpointError(f"{path.name} is {size} bytes: too short for a safetensors file.", "not_safetensors")
        (length,) = struct.unpack("<Q", head)
        if length > min(HEADER_MAX_BYTES, size - 8):
            raise CheckpointError(f"{path.name} says its header is {length:,} bytes, more than a checkpoint's "
                                  f"header (at most {HEADER_MAX_BYTES:,}) or the file ({size:,} bytes): not a "
                                  "safetensors file.", "header_big", length=length, most=HEADER_MAX_BYTES)
        try:
            header = json.loads(f.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise CheckpointError(f"{path.name}: its header is not JSON: not a safetensors file.",
                                  "not_safetensors") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path.name}: its header is not a table of tensors.", "not_safetensors")
    return header  # with safetensors' "__metadata__" if the file has it: no tensor is looked up by that name


def _sizes(config: dict) -> tuple[int, int, int, int, int]:
    """d_model, heads, d_k, d_v and d_ff of config.json (GPT-2's: d_k = d_v = d_model / heads, d_ff = 4 d_model)."""
    d, h = config["n_embd"], config["n_head"]
    d_k = config.get("mha_d_k") or d // h
    return d, h, d_k, config.get("mha_d_v") or d_k, config.get("n_inner") or 4 * d


def _expected(config: dict) -> dict[str, tuple[int, ...]]:
    """Every tensor the model needs, by its name without the `transformer.` prefix, and its shape."""
    d, h, d_k, d_v, d_ff = _sizes(config)
    qkv = h * (2 * d_k + d_v)
    shapes = {"wte.weight": (config["vocab_size"], d), "wpe.weight": (config["n_positions"], d), "ln_f.weight": (d,),
              "ln_f.bias": (d,)}
    for layer in range(config["n_layer"]):
        shapes |= {f"h.{layer}.{name}": shape for name, shape in (
            ("ln_1.weight", (d,)), ("ln_1.bias", (d,)), ("attn.c_attn.weight", (d, qkv)), ("attn.c_attn.bias", (qkv,)),
            ("attn.c_proj.weight", (h * d_v, d)), ("attn.c_proj.bias", (d,)), ("ln_2.weight", (d,)),
            ("ln_2.bias", (d,)), ("mlp.c_fc.weight", (d, d_ff)), ("mlp.c_fc.bias", (d_ff,)),
            ("mlp.c_proj.weight", (d_ff, d)), ("mlp.c_proj.bias", (d,)))}
    return shapes


def _tensors(path: Path, config: dict) -> dict[str, np.ndarray]:
    """The model's tensors as float64, each checked (name, shape, dtype, finite) before the next is read."""
    from safetensors import safe_open

    header, expected = _header(path), _expected(config)
    prefix = "transformer." if any(k.startswith("transformer.") for k in header) else ""
    missing = [name for name in expected if prefix + name not in header]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise CheckpointError(f"{path.name} lacks {', '.join(missing[:5])}{more}: not a GPT-2 of config.json's "
                              f"sizes ({config['n_layer']} layers, n_embd {config['n_embd']}).", "lacks",
                              names=", ".join(missing[:5]), count=len(missing))
    for name, shape in expected.items():
        entry = header[prefix + name]
        if not isinstance(entry, dict) or tuple(entry.get("shape", ())) != shape:
            got = entry.get("shape") if isinstance(entry, dict) else entry
            raise CheckpointError(f"{path.name}: {name} has shape {got}; config.json's sizes make it {shape}.",
                                  "shape", name=name, got=str(got), shape=str(shape))
        if entry.get("dtype") not in DTYPES:
            raise CheckpointError(f"{path.name}: {name} is {entry.get('dtype')}; this core reads "
                                  f"{', '.join(DTYPES)} tensors.", "dtype", name=name, dtype=str(entry.get("dtype")),
                                  dtypes=", ".join(DTYPES))
    out = {}
    try:
        with safe_open(str(path), framework="numpy") as f:
            for name in expected:
                a = np.asarray(f.get_tensor(prefix + name), dtype=np.float64)
                if not np.all(np.isfinite(a)):
                    raise CheckpointError(f"{path.name}: {name} holds NaN or infinite values.", "not_finite",
                                          name=name)
                out[name] = a
    except CheckpointError:
        raise
    except Exception as e:  # noqa: BLE001 - safetensors raises its own errors for a damaged file
        raise CheckpointError(f"{path.name} could not be read as safetensors ({e}).", "not_safetensors") from None
    return out


def _model(t: dict[str, np.ndarray], config: dict) -> ModelWeights:
    d, h, d_k, d_v, _ = _sizes(config)
    cuts = [h * d_k, 2 * h * d_k]  # c_attn's columns: W_Q | W_K | W_V
    heads = lambda m: m.reshape(d, h, -1).transpose(1, 0, 2)  # noqa: E731 (d, h·d_head) -> (h, d, d_head)
    blocks = []
    for layer in range(config["n_layer"]):
        g = lambda name: t[f"h.{layer}.{name}"]  # noqa: E731, B023 (used at once, in this iteration)
        w_q, w_k, w_v = np.split(g("attn.c_attn.weight"), cuts, axis=1)
        b_q, b_k, b_v = (b.reshape(h, -1) for b in np.split(g("attn.c_attn.bias"), cuts))
        attn = Weights(heads(w_q), heads(w_k), heads(w_v), g("attn.c_proj.weight"), b_q, b_k, b_v,
                       g("attn.c_proj.bias"))
        blocks.append(BlockWeights(attn, g("ln_1.weight"), g("ln_1.bias"), g("ln_2.weight"), g("ln_2.bias"),
                                   g("mlp.c_fc.weight"), g("mlp.c_fc.bias"), g("mlp.c_proj.weight"),
                                   g("mlp.c_proj.bias")))
    return ModelWeights(t["wte.weight"], t["wpe.weight"], tuple(blocks), t["ln_f.weight"], t["ln_f.bias"])


def _tokenizer(folder: Path, vocab_size: int) -> BPE:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    try:
        if (folder / "tokenizer.json").is_file():
            tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        elif (folder / "vocab.json").is_file() and (folder / "merges.txt").is_file():
            tok = Tokenizer(models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
            tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            tok.decoder = decoders.ByteLevel()
        else:
            raise CheckpointError(f"{folder.name}: no tokenizer: it needs tokenizer.json, or vocab.json and "
                                  "merges.txt.", "no_tokenizer")
    except CheckpointError:
        raise
    except Exception as e:  # noqa: BLE001 - tokenizers raises its own errors for a damaged file
        raise CheckpointError(f"{folder.name}: its tokenizer could not be read ({e}).", "bad_tokenizer") from None
    if tok.get_vocab_size() > vocab_size:
        raise CheckpointError(f"{folder.name}: the tokenizer has {tok.get_vocab_size():,} tokens, the model's "
                              f"embedding {vocab_size:,}.", "tokenizer_big", tokens=tok.get_vocab_size(),
                              vocab=vocab_size)
    return BPE(tok)


def checkpoint_numbers(path) -> tuple[dict, int]:
    """The config.json of the checkpoint in folder `path` (checked as load_gpt2 checks it) and the numbers its
    model holds: what a server reads before deciding whether to load it (8 bytes each, here in float64)."""
    folder = Path(path)
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: no such folder.", "no_folder")
    config = _read_config(folder)
    return config, sum(int(np.prod(shape)) for shape in _expected(config).values())


def load_gpt2(path) -> GPT2:
    """The GPT-2 checkpoint in folder `path` (config.json, model.safetensors, and tokenizer.json or vocab.json +
    merges.txt), as the core's model and the checkpoint's own BPE. CheckpointError (an InputError) naming what is
    wrong with anything else; nothing is kept of a checkpoint that fails."""
    folder = Path(path)
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: no such folder.", "no_folder")
    config = _read_config(folder)
    weights_file = folder / "model.safetensors"
    if not weights_file.is_file():
        raise CheckpointError(f"{folder.name}: no model.safetensors (this core reads safetensors, not .bin or .pt).",
                              "no_safetensors")
    tokenizer = _tokenizer(folder, config["vocab_size"])
    weights = _model(_tensors(weights_file, config), config)
    return GPT2(weights, tokenizer, config, folder.name)


def save_gpt2(path, mw: ModelWeights, tokenizer_json: str | None = None) -> None:
    """Write `mw` as a GPT-2 checkpoint in folder `path`: config.json and model.safetensors (float64, so a load gives
    back the same numbers), and `tokenizer_json` as tokenizer.json if given. The model needs learned positions and a K
    and V per head; heads of another width than d_model / n_head are written as `mha_d_k` and `mha_d_v`."""
    from safetensors.numpy import save_file

    a0 = mw.blocks[0].attn
    h, d, d_k, d_v = a0.n_heads, mw.d_model, a0.d_k, a0.d_v
    if mw.wpe is None or a0.n_kv_heads != h:
        raise InputError("save_gpt2 writes models with learned positions and a K and V per head (as GPT-2's).")
    cat = lambda w: w.transpose(1, 0, 2).reshape(d, -1)  # noqa: E731 (h, d, d_head) -> (d, h·d_head)
    zeros = lambda b, n: np.zeros(n) if b is None else b.reshape(-1)  # noqa: E731
    t = {"wte.weight": mw.wte, "wpe.weight": mw.wpe, "ln_f.weight": mw.lnf_g, "ln_f.bias": mw.lnf_b}
    for layer, bw in enumerate(mw.blocks):
        a = bw.attn
        t |= {f"h.{layer}.{name}": value for name, value in (
            ("ln_1.weight", bw.ln1_g), ("ln_1.bias", bw.ln1_b),
            ("attn.c_attn.weight", np.concatenate([cat(a.w_q), cat(a.w_k), cat(a.w_v)], axis=1)),
            ("attn.c_attn.bias", np.concatenate([zeros(a.b_q, h * d_k), zeros(a.b_k, h * d_k), zeros(a.b_v, h * d_v)])),
            ("attn.c_proj.weight", a.w_o), ("attn.c_proj.bias", zeros(a.b_o, d)),
            ("ln_2.weight", bw.ln2_g), ("ln_2.bias", bw.ln2_b), ("mlp.c_fc.weight", bw.w_fc),
            ("mlp.c_fc.bias", bw.b_fc), ("mlp.c_proj.weight", bw.w_proj), ("mlp.c_proj.bias", bw.b_proj))}
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: np.ascontiguousarray(v, dtype=np.float64) for k, v in t.items()}, str(folder / "model.safetensors"))
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": mw.n_layers, "n_head": h,
              "n_embd": d, "n_positions": mw.n_ctx, "n_ctx": mw.n_ctx, "vocab_size": mw.vocab_size,
              "n_inner": mw.blocks[0].d_ff, "activation_function": "gelu_new", "layer_norm_epsilon": EPS,
              "torch_dtype": "float64"}
    if (d_k, d_v) != (d // h, d // h) or d % h:
        config |= {"mha_d_k": d_k, "mha_d_v": d_v}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    if tokenizer_json is not None:
        (folder / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
