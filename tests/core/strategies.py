"""Hypothesis strategies: random layer sizes (d_k ≠ d_v, h·d_v ≠ d_model allowed) and inputs."""

from hypothesis import strategies as st

import mha


@st.composite
def configs(draw, max_tokens=8, max_dim=9, max_heads=4, init="gaussian"):
    return mha.AttentionConfig(
        n_tokens=draw(st.integers(1, max_tokens)),
        d_model=draw(st.integers(1, max_dim)),
        d_k=draw(st.integers(1, max_dim)),
        d_v=draw(st.integers(1, max_dim)),
        n_heads=draw(st.integers(1, max_heads)),
        seed=draw(st.integers(0, 2**32 - 1)),
        init=init,
    )
