"""Stage 9: the KV cache (its own issue builds the live step; the stage id works already)."""

import streamlit as st

from ..views import View, header


def render(v: View) -> None:
    header(v.t, "kv")
    st.latex(r"Y_{n+1} = f_{n+1}(X_1,\dots,X_{n+1};W):\quad \text{keep } K, V;\ \text{drop } Q")
