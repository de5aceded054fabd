"""The next word: the token the model chooses after the text, decoded through its per-layer KV cache. The next-token
stage shows the choice; the KV-cache stage adds it; both append it to the text, so the two are one act."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

import mha

from . import settings as S
from .models import checkpoint_on, real_on, shipped, trained_on, walked
from .shared import digest
from .x_source import coda


@dataclass(frozen=True)
class NextWord:
    """The token the model chooses after the text, as the next-token stage chooses it."""

    id: int  # in the model's vocabulary
    token: str  # as the page names it
    text: str | None  # what appending it adds to the text (appended); None: a text cannot hold it
    probs: np.ndarray  # (vocab,) softmax(logits of the last token / temperature)


def pick(logits: np.ndarray, temperature: float, choice: str, seed: int, n: int) -> tuple[int, np.ndarray]:
    """The chosen id and the probabilities it was chosen from: the most likely (greedy), or one drawn with a
    generator fixed by the seed and the text's length n (sample), so that a link shows the same choice again."""
    probs = mha.softmax(np.asarray(logits, float) / float(temperature))
    if choice == "sample":
        return int(np.random.default_rng([seed, n]).choice(len(probs), p=probs)), probs
    return int(np.argmax(probs)), probs


def next_word(cfg: mha.AttentionConfig, x: np.ndarray) -> NextWord:
    """The word after the text, read from the last logits of the model's per-layer KV cache (mha.ModelCache, as
    mha.generate decodes) fed the text one token at a time: the trained model its letters, the text's one-block
    model the rows of the walk's X (edits included, as the next-token stage reads them). Kept for the session's
    view, so a rerun of the cache stage does not decode the text again."""
    ss = st.session_state
    text, positions = ss.get("text", ""), ss.get("positions", S.DEFAULTS["positions"])
    temperature, choice = float(ss.get("temperature", S.DEFAULTS["temperature"])), ss.get("choice", "greedy")
    key = (cfg, text, positions, ss.get("model"), ss.get("ckpt"), ss.get("train_seed"), temperature, choice, digest(x))
    held_word = ss.get("kv_word")
    if held_word and held_word[0] == key:
        return held_word[1]
    tokens, vocab, ids, mw = coda(cfg, text, positions)
    cache = mha.ModelCache(mw)
    if real_on():  # a real model reads its token ids (its embedding), as it was trained to
        for i in ids:
            logits = cache.append(int(i))
    else:
        for row in x:
            logits = cache.append_x(row)
    chosen, probs = pick(logits, temperature, choice, cfg.seed, len(tokens))
    word = NextWord(chosen, vocab[chosen], appended(vocab, chosen), probs)
    ss["kv_word"] = (key, word)
    return word


def appended(vocab: list[str], i: int) -> str | None:
    """What appending token i adds to the text: the token, or a checkpoint's token's bytes decoded (its label writes
    a space as ␣; a BPE token carries its own space); None for a checkpoint's token that is only part of a
    character's UTF-8 bytes, which a text cannot hold alone."""
    if not checkpoint_on():
        return vocab[i]
    try:
        return walked().tokenizer.piece(i).decode("utf-8")
    except UnicodeDecodeError:
        return None


def context() -> int:
    """The most tokens a text may grow to by appending: the trained model's context or a checkpoint's (within the
    demo's limit), else the demo's limit."""
    if trained_on():
        return shipped().meta["sizes"]["n_ctx"]
    return min(walked().weights.n_ctx, S.LIMITS["n_tokens"]) if checkpoint_on() else S.LIMITS["n_tokens"]
