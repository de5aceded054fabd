"""The variant lab's parts, one module per change (`MODULES`), each with render(view, variant, part) that draws one
of S.LAB_PARTS: what changes ("change"), its products, one at a time through `one_product` ("click"), or its live
check ("check"), returned as Markdown that `costs` puts before what it caches, in one element; `costs` compares
them all. What they share is here: the variant's
config from the knobs in the session, the X it runs on (ALiBi's without positions), the walk's weights made to fit
it, and the variant's trace: the page and its downloads (sidebar.stage_part) read the same."""

from collections.abc import Callable, Mapping
from importlib import import_module

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.model import positions_for

from .. import models, variant_defs, x_source
from .. import settings as S
from ..shared import weights_digest
from ..strings import Text
from ..variant_defs import VARIANT_LIST
from ..view import TRACES, View, read_only

# MLA's SVD of every head's [W_K | W_V], (d_model, h (d_k + d_v)), costs about d_model² · h (d_k + d_v) multiply-adds:
# GPT-2-small's widths (0.9e9) are made once a second or so; the caps (4.3e9) would hold the server for seconds.
MLA_WORK = 1e9


def mla_work(cfg: mha.AttentionConfig) -> int:
    return cfg.d_model**2 * cfg.n_heads * (cfg.d_k + cfg.d_v)


def mla_fits(cfg: mha.AttentionConfig, w: mha.Weights | None = None) -> bool:
    """Whether the pages cut these sizes' K and V (of weights w) for MLA: else mla_skip says why not, in words."""
    return mla_work(cfg) <= MLA_WORK and not (w is not None and w.biased)


def mla_skip(t: Text, cfg: mha.AttentionConfig, w: mha.Weights) -> str:
    """Why the pages do not cut K and V for MLA here, or "" where they do: a checkpoint's biases, which MLA's one
    latent has no place for, or sizes whose SVD is too much work."""
    if w.biased:
        return t("lab_mla_biased")
    return "" if mla_fits(cfg) else t("lab_mla_skip", work=mla_work(cfg), limit=int(MLA_WORK))


MODULES = {v.id: v.module for v in VARIANT_LIST if v.module}


def render(v: View, variant: str, part: str) -> str:
    """The variant's own `part` of the lab; the check's words ("" for the other parts)."""
    return import_module(f"{__name__}.{MODULES[variant]}").render(v, variant, part) or ""


# Rows of controls and words above a product of the click part (the variant, the part, the product, two lines of
# words): on a projector such a product is no taller than the rest of the first screen (view.first_screen).
CLICK_ROWS = 5


def said_then_product(v: View, words: str, product: Callable[[], None]) -> None:
    """A click part's words and its product (`product()` draws it). On a projector the product comes first, right
    under the controls, and the words under it; elsewhere the words lead into it."""
    if v.look == F.PRESENT:
        product()
        st.markdown(words)
    else:
        st.markdown(words)
        product()


def one_product(v: View, variant: str, products: Mapping[str, tuple[str, Callable[[], None]]], box=st) -> None:
    """The click part: one of the variant's products, {id: (its name, what draws it)}, picked by a control when
    there are more than one (in `box`: a row of the part's controls). A product with its breakdown and Quiz me is
    four elements: one at a time keeps the part within the other stages' count."""
    key, ids = f"lab_product_{variant}", list(products)
    if st.session_state.get(key) not in ids:  # none picked yet, or the ids changed (another head count)
        st.session_state[key] = ids[0]
    if len(ids) > 1:
        box.segmented_control(v.t("lab_product"), ids, format_func=lambda p: products[p][0], key=key, required=True,
                              label_visibility="collapsed")
    products[st.session_state[key]][1]()


def config(v: View, variant: str) -> mha.AttentionConfig:
    """The walk's sizes with `variant`'s change, its knobs read from the session (each kept to what the sizes
    allow); "mha", "mla" and "online" change nothing the attention config holds."""
    return variant_config(v.cfg, variant)


def variant_config(cfg: mha.AttentionConfig, variant: str) -> mha.AttentionConfig:
    """`config` for the walk's cfg (what the downloads use, with no view at hand)."""
    ss = st.session_state
    return variant_defs.config(cfg, variant, {k.key: int(ss.get(k.key, S.DEFAULTS[k.key]))
                                              for k in variant_defs.VARIANTS[variant].knobs})


def without_positions(cfg: mha.AttentionConfig, x: np.ndarray) -> tuple[np.ndarray, str]:
    """X with no positions in it, what ALiBi runs on, and where it came from: seeded X has none ("seeded"); a text's
    X is E[ids] + P, so P is taken back out, the user's edits kept ("text"); the trained layer's input is left as it
    is, its positions mixed in by the layers below ("trained"). The ALiBi page and its downloads both call this."""
    ss = st.session_state
    if not x_source.text_tokens(ss.get("text", "")):
        return x, "seeded"
    if models.real_on():  # the trained model's layer, or a checkpoint's: the same words
        return x, "trained"
    mw = x_source.coda(cfg, ss["text"], ss.get("positions", S.DEFAULTS["positions"]))[3]
    return x - positions_for(mw, 0, len(x)), "text"


def variant_x(cfg: mha.AttentionConfig, x: np.ndarray, variant: str) -> np.ndarray:
    """The X `variant` runs on from the walk's X: ALiBi's without positions, every other variant's the walk's own."""
    return without_positions(cfg, x)[0] if variant == "alibi" else x


def weights(v: View, cfg: mha.AttentionConfig) -> mha.Weights:
    """The walk's own weights (seeded, from a text, or the trained layer's) with cfg's kv heads shared."""
    return mha.share_kv(v.w, cfg.kv_heads)


def trace(v: View, cfg: mha.AttentionConfig) -> mha.Trace:
    """forward(X, weights, cfg), shared between sessions showing the same numbers while it is small (read-only)."""
    w = weights(v, cfg)
    key = ("lab", weights_digest(w, v.x), cfg)  # the whole config: a field added later is in it
    return TRACES.get(key, lambda: read_only(mha.forward(v.x, w, cfg)))
