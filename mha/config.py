"""AttentionConfig: the sizes of one multi-head attention layer, defaulting to the post's primes."""

from dataclasses import dataclass, fields

import numpy as np

from .errors import ConfigError

INITS = ("gaussian", "integers")


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

    def __post_init__(self):
        for f in fields(self):
            if f.name == "init":
                continue
            minimum = 0 if f.name == "seed" else 1
            object.__setattr__(self, f.name, _whole(f.name, getattr(self, f.name), minimum))
        if self.init not in INITS:
            raise ConfigError(f"init must be one of {', '.join(INITS)}; got {self.init!r}.")
