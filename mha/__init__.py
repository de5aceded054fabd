"""MHA Explorer's core: multi-head causal self-attention in numpy, every step kept for teaching.

numpy only: importing mha pulls in neither streamlit nor plotly.
"""

from .analysis import Cost, cost, dependency
from .attention import (
    Trace,
    Weights,
    causal_mask,
    check_input,
    forward,
    init_input,
    init_weights,
    next_token,
    softmax,
)
from .cache import DecodeStep, KVCache
from .config import INITS, AttentionConfig
from .errors import ConfigError, InputError

__all__ = [
    "INITS", "AttentionConfig", "ConfigError", "Cost", "DecodeStep", "InputError", "KVCache",
    "Trace", "Weights", "causal_mask", "check_input", "cost", "dependency", "forward",
    "init_input", "init_weights", "next_token", "softmax",
]
