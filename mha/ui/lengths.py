"""The lengths a view's matrices are made of, and which of them it shares: what the sidebar's prime check reads (a
shape tells where it came from only while every length is its own)."""

import streamlit as st

import mha

from . import primes, variant_defs
from .models import checkpoint_on, shipped, trained_on, walked
from .settings import SIZES
from .walk import BY_ID, FFN_STAGES
from .x_source import example_text, text_tokens

LENGTHS_SAID = "lengths_said"  # session key: the lengths shared that the sidebar's check last said


def shared_lengths(stage: str, lang: str) -> list[tuple[int, tuple[str, ...]]]:
    """The lengths this view's quantities share (primes.shared_lengths of view_lengths)."""
    return primes.shared_lengths(view_lengths(stage, lang))


def view_lengths(stage: str, lang: str) -> dict[str, int]:
    """The lengths this view's matrices are made of, by quantity (the sidebar's keys, and "vocab" and "concat"): n
    is the text's number of tokens (on the tokens stage without one, the example's), the vocabulary
    is counted where it is drawn, h·d_v with more than one head, d_ff where the FFN is drawn."""
    ss = st.session_state
    own = text_tokens(ss.get("text", ""))
    example = BY_ID[stage].example  # without a text: the example's X, or only its vocabulary (next_token)
    tokens = own or (text_tokens(example_text(lang)) if example else [])
    out = {"n_tokens": len(tokens) if own or (tokens and example == "x") else int(ss["n_tokens"])}
    added = [r for r in ss.get("kv_added", []) if len(r) == ss["d_model"]] if BY_ID[stage].grows and not own else []
    if added:  # the seeded rows the cache has added are rows of X too: n counts them, under its own name
        out = {"n_cached": out["n_tokens"] + len(added)}
    if BY_ID[stage].grows and (held := _window_holds(ss, out["n_cached" if added else "n_tokens"])) is not None:
        # a window's caches hold its sinks and its last tokens, their own length; Q, S, H and Y keep a row for every
        # token so far (the step's titles: Y · 5×5 beside K cache · 2×7)
        out = {"n_so_far": next(iter(out.values())), "n_held": held}
    if tokens and example:
        out["vocab"] = (len(shipped().vocab) if trained_on() else walked().weights.vocab_size if checkpoint_on()
                        else len(set(tokens)))
    out.update({key: int(ss[key]) for key in ("d_model", "d_k", "d_v", "n_heads")})
    if out["n_heads"] > 1:
        out["concat"] = out["n_heads"] * out["d_v"]
    if stage in FFN_STAGES:
        out["d_ff"] = int(ss["d_ff"])
    return out



def _window_holds(ss, tokens: int) -> int | None:
    """The tokens the KV-cache stage's variant holds of `tokens`, where its window leaves some out; else None."""
    variant = ss.get("kv_variant", "mha")
    if variant not in variant_defs.VARIANTS or not variant_defs.VARIANTS[variant].knobs:
        return None
    knobs = {k.key: int(ss.get(k.key, k.default)) for k in variant_defs.VARIANTS[variant].knobs}
    cfg = variant_defs.config(mha.AttentionConfig(**{k: int(ss[k]) for k in SIZES}), variant, knobs)
    return cfg.sinks + cfg.window if cfg.window and cfg.sinks + cfg.window < tokens else None
