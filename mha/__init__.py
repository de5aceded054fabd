"""MHA Explorer's core: multi-head causal self-attention in numpy, every step kept for teaching.

numpy (and regex, for the tokenizer) only: importing mha pulls in neither streamlit nor plotly; safetensors and
tokenizers are imported when a GPT-2 checkpoint is opened (mha.load_gpt2).
"""

from .analysis import Cost, cost, dependency, head_roles, role_bars
from .attention import (
    Trace,
    Weights,
    causal_mask,
    check_input,
    forward,
    init_input,
    init_weights,
    next_token,
    share_kv,
    softmax,
)
from .block import BlockTrace, BlockWeights, block, gelu, init_block, layer_norm
from .cache import DecodeStep, KVCache
from .circuits import (
    TaskScore,
    head_logits,
    head_scores,
    logit_parts,
    ov_circuit,
    ov_factors,
    part_names,
    qk_circuit,
    qk_factors,
    repeated_tokens,
    task_score,
)
from .config import INITS, VARIANT_FIELDS, AttentionConfig, variant_fields
from .decoding import decode
from .errors import ConfigError, InputError
from .gpt2 import BPE, GPT2, CheckpointError, checkpoint_numbers, load_gpt2, save_gpt2
from .mla import MLACache, MLAStep, MLATrace, MLAWeights, init_mla, mla_forward, mla_from
from .model import (
    POSITIONS,
    LogitsTrace,
    ModelCache,
    ModelTrace,
    ModelWeights,
    embed,
    generate,
    init_model,
    logits_from,
    model_forward,
    resume,
    sinusoidal_positions,
    token_embedding,
    tokenize,
    vocabulary,
)
from .online import OnlineTrace, Tile, online_attention
from .variants import Storage, alibi_slopes, groups, rope, storage

__all__ = [
    "INITS", "POSITIONS", "AttentionConfig", "BlockTrace", "BlockWeights", "ConfigError", "Cost", "DecodeStep",
    "InputError", "KVCache", "LogitsTrace", "ModelCache", "ModelTrace", "ModelWeights", "Trace", "Weights", "block",
    "causal_mask", "check_input", "cost", "dependency", "embed", "forward", "head_roles", "gelu", "generate",
    "role_bars", "init_block", "init_input", "init_model", "init_weights", "layer_norm", "logits_from", "model_forward",
    "next_token", "OnlineTrace", "Tile", "online_attention", "MLACache", "MLAStep", "MLATrace", "MLAWeights",
    "init_mla", "mla_forward", "mla_from", "share_kv", "alibi_slopes", "groups", "rope", "Storage", "storage",
    "sinusoidal_positions", "softmax", "token_embedding", "tokenize", "vocabulary", "load_trained", "TaskScore",
    "head_logits", "logit_parts", "ov_circuit", "ov_factors", "part_names", "qk_circuit", "qk_factors", "task_score",
    "VARIANT_FIELDS", "variant_fields", "decode", "GPT2", "BPE", "CheckpointError", "load_gpt2", "save_gpt2",
    "head_scores", "repeated_tokens", "resume", "checkpoint_numbers",
]


def load_trained(path=None):
    """The trained model shipped in mha/trained/ (or a directory written by `python -m mha.train --out`):
    an object with .weights (ModelWeights), .vocab, .meta and .snapshots [(step, loss, weights, head scores)].

    mha.train is imported here, not at the top, so that `python -m mha.train` runs it fresh."""
    from .train import load_trained as load

    return load(path)
