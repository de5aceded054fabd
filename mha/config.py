"""AttentionConfig: the sizes of one multi-head attention layer, defaulting to the post's primes."""

import math
from dataclasses import dataclass, field, fields

import numpy as np

from .errors import ConfigError

INITS = ("gaussian", "integers")
KV_BITS = (0, 8)  # how K and V are kept: float64, or int8 codes with one scale a row


def _variant(default):
    """A field that turns a variant on (its default is the post's attention): VARIANT_FIELDS lists them."""
    return field(default=default, metadata={"variant": True})


def _whole(name: str, value, minimum: int) -> int:
    """`value` as a Python int >= minimum, or ConfigError naming the field."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ConfigError(
            f"{name} must be a whole number >= {minimum}; got {value!r} ({type(value).__name__})."
        )
    if value < minimum:
        raise ConfigError(f"{name} must be a whole number >= {minimum}; got {value}.")
    return int(value)


@dataclass(frozen=True)
class AttentionConfig:
    n_tokens: int = 3  # rows of X: tokens in the sequence
    d_model: int = 5  # columns of X and Y: the embedding size
    d_k: int = 7  # columns of Q and K per head (the dot-product space)
    d_v: int = 11  # columns of V and H per head
    n_heads: int = 2  # heads; Concat(H_1..H_h) has n_heads * d_v columns
    seed: int = 0  # fixes X and every weight matrix
    init: str = "gaussian"  # "gaussian" (real numbers) or "integers" (small whole numbers, for paper)
    d_ff: int = 13  # hidden width of the GPT block's feed-forward network (GPT-2 uses 4·d_model)
    # The variants (all off by default: the post's attention). See forward for what each changes.
    n_kv_heads: int = _variant(0)  # heads of K and V (GQA; 1 = MQA); 0 = n_heads. Query head i reads kv head i // group
    window: int = _variant(0)  # query i sees keys i - window < j <= i (a band); 0 = every earlier key
    sinks: int = _variant(0)  # keys j < sinks stay visible beside the window (StreamingLLM's attention sinks)
    alibi: bool = _variant(False)  # add -m_h (i - j) to head h's scores, slopes by the ALiBi paper's rule
    rotary_dims: int = _variant(0)  # RoPE: the first rotary_dims of every q and k head rotate by position; 0 = none
    rope_base: float = _variant(10000.0)  # RoPE's θ_i = rope_base^(-2i / rotary_dims)
    kv_bits: int = _variant(0)  # 8: K (after RoPE) and V kept as int8 codes, one scale a row; 0 = float64

    def __post_init__(self):
        for name, minimum in (("n_tokens", 1), ("d_model", 1), ("d_k", 1), ("d_v", 1), ("n_heads", 1),
                              ("seed", 0), ("d_ff", 1), ("n_kv_heads", 0), ("window", 0), ("sinks", 0),
                              ("rotary_dims", 0), ("kv_bits", 0)):
            object.__setattr__(self, name, _whole(name, getattr(self, name), minimum))
        if self.init not in INITS:
            raise ConfigError(f"init must be one of {', '.join(INITS)}; got {self.init!r}.")
        if not isinstance(self.alibi, (bool, np.bool_)):
            raise ConfigError(f"alibi must be True or False; got {self.alibi!r}.")
        object.__setattr__(self, "alibi", bool(self.alibi))
        if self.n_kv_heads and self.n_heads % self.n_kv_heads:
            raise ConfigError(f"n_kv_heads must divide n_heads = {self.n_heads} (each group of query heads shares "
                              f"one K and V); got {self.n_kv_heads}.")
        if self.rotary_dims % 2 or self.rotary_dims > self.d_k:
            raise ConfigError(f"rotary_dims must be even (dims rotate in pairs) and at most d_k = {self.d_k}; "
                              f"got {self.rotary_dims}.")
        if self.kv_bits not in KV_BITS:
            raise ConfigError(f"kv_bits must be 0 (float64) or 8 (int8 codes, a scale a row); got {self.kv_bits}.")
        base = self.rope_base
        if isinstance(base, (bool, np.bool_)) or not isinstance(base, (int, float, np.integer, np.floating)) \
                or not math.isfinite(base) or base <= 0:
            raise ConfigError(f"rope_base must be a finite number > 0; got {base!r}.")
        object.__setattr__(self, "rope_base", float(base))

    @property
    def kv_heads(self) -> int:
        """Heads of K and V: n_kv_heads, or n_heads when it is 0."""
        return self.n_kv_heads or self.n_heads


# The fields that choose a variant, in the dataclass's order: what a trace's key, a download's record and the tests
# read, so that a field added with _variant reaches all of them.
VARIANT_FIELDS = tuple(f.name for f in fields(AttentionConfig) if f.metadata.get("variant"))


def variant_fields(cfg: AttentionConfig) -> dict:
    """cfg's variant fields by name, n_kv_heads as the kv heads it means (n_heads for 0)."""
    return {name: getattr(cfg, name) for name in VARIANT_FIELDS} | {"n_kv_heads": cfg.kv_heads}
