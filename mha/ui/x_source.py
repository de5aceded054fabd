"""Where X comes from before the user's edits: seeded numbers, a text's tokens (X = E[ids] + P of the coda's model), or
a real model's run on the text, the trained one's or a checkpoint's (what the chosen layer's attention reads). The
edits on top of it, and what the walk computes from, are x_edits.py's."""

import unicodedata

import numpy as np
import streamlit as st

import mha

from . import checkpoints, models
from . import settings as S
from .models import block_weights, checkpoint_on, held, shipped, trained_on, trained_sizes, trained_trace, walked
from .view import ModelRun

# The text a stage of the coda shows when none is typed: its tokens and its vocabulary (14 and 8) are lengths no size
# of the post has (3, 5, 7, 11, 2, 22 and d_ff 13), and neither are the next three n that generating words makes (15,
# 16, 17), so every shape on those stages still says where it came from, and keeps saying it while the KV cache adds
# words (tests/app/test_lengths.py). 14 is the shortest n with three such lengths after it. The two languages' texts
# repeat their words in the same places (a vocabulary is in order of first use), so they have the same ids and every
# shape is the same: a presenter who switches language mid-lesson keeps the matrices' sizes (audit 2026-12-07 #10).
# E's numbers differ, since a word's row is fixed by its own text (mha.token_embedding).
EXAMPLE = dict(en="the cat sat on the mat, the dog also sat on the mat", zh="大猫吃了大鱼，大狗也吃了大鱼")


def model_run(tokens: tuple[str, ...]) -> ModelRun | None:
    """With the trained model on these tokens (its letters), or a checkpoint on the text they are of: its run, and
    the layer the walk shows; else None."""
    if checkpoint_on() and tokens:
        m = walked()
        return ModelRun(m.weights, checkpoint_trace(st.session_state.get("text", "")), models.shown_layer(m) - 1,
                        m.name)
    if not (trained_on() and tokens):
        return None
    return ModelRun(shipped().weights, trained_trace(tokens), st.session_state["layer"] - 1)


def checkpoint_trace(text: str) -> mha.ModelTrace:
    """The walked checkpoint's run on the text's ids (checkpoints.run: shared by the tabs that show it)."""
    m = walked()
    return checkpoints.run(m, tuple(models.tokens_of(m, text)[0]))


# ---------------------------------------------------------------- tokens


def text_tokens(text: str) -> list[str]:
    """The text's tokens (at most LIMITS["n_tokens"]: a longer text is cut where it is read). With the trained
    model, its letters: see trained_tokens; with a checkpoint, its BPE tokens as the page names them."""
    if trained_on():
        return trained_tokens(text)[0]
    if checkpoint_on():
        m = walked()
        return list(checkpoints.labels(m, models.tokens_of(m, text)[0]))
    return mha.tokenize(text)[: S.LIMITS["n_tokens"]]


def example_text(lang: str) -> str:
    return EXAMPLE.get(lang, EXAMPLE["en"])


def has_text() -> bool:
    return bool(text_tokens(st.session_state.get("text", "")))


def trained_tokens(text: str) -> tuple[list[str], list[str], bool]:
    """The trained model reads one letter a token (spaces ignored, lower case read as upper case): the letters
    of its alphabet, at most its context length; the characters it does not know; whether the text was cut."""
    m = shipped()
    known, unknown = set(m.vocab), []
    letters = []
    for ch in unicodedata.normalize("NFKC", text):
        if ch.isspace():
            continue
        if ch.upper() in known:
            letters.append(ch.upper())
        elif ch not in unknown:
            unknown.append(ch)
    most = m.meta["sizes"]["n_ctx"]
    return letters[:most], unknown, len(letters) > most


# ---------------------------------------------------------------- X before edits


def seeded_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """The seeded X for these sizes, made once for every session (every rerun needs it twice: to fit X and to diff it
    for the link), held beside the walk's weights within their budget (models.MODELS)."""
    def make():
        x = mha.init_input(cfg)
        x.flags.writeable = False  # shared: callers copy before changing it
        return x

    return held(("seeded_x", cfg), cfg.n_tokens * cfg.d_model, make)


def seeded_added(cfg: mha.AttentionConfig, count: int) -> np.ndarray:
    """The seeded tokens the KV-cache stage offers after X, (count, d_model): what a link's `kv` edits."""
    return np.array([mha.next_token(cfg, cfg.n_tokens + i) for i in range(count)]).reshape(count, cfg.d_model)


def coda(cfg: mha.AttentionConfig, text: str, positions: str) -> tuple[list[str], list[str], np.ndarray,
                                                                        mha.ModelWeights]:
    """The text's tokens, its vocabulary, the token ids and a model: a one-block model over the text's own
    vocabulary, whose block is init_block(cfg, 0) (its attention is the walk's weights); or the trained one, or the
    checkpoint the walk runs on (its vocabulary as the page names its tokens)."""
    if trained_on():
        m, tokens = shipped(), text_tokens(text)
        return tokens, m.vocab, trained_trace(tuple(tokens)).ids, m.weights
    if checkpoint_on():
        m = walked()
        return text_tokens(text), list(checkpoints.vocabulary(m)), checkpoint_trace(text).ids, m.weights
    return _seeded_coda(cfg, text, positions)


def _seeded_coda(cfg: mha.AttentionConfig, text: str, positions: str) -> tuple[list[str], list[str], np.ndarray,
                                                                                 mha.ModelWeights]:
    """The text's one-block model, around the block of block_weights (not a copy of it): only its E and P are its
    own."""
    block = block_weights(cfg)
    numbers = (2 * S.LIMITS["n_tokens"] + 1) * cfg.d_model  # E (a row per distinct token) and P, at most

    def make():
        tokens = text_tokens(text)
        vocab = mha.vocabulary(tokens)
        index = {tok: i for i, tok in enumerate(vocab)}
        ids = np.array([index[tok] for tok in tokens], dtype=np.int64)
        return tokens, vocab, ids, mha.init_model(cfg, vocab, 1, positions, S.LIMITS["n_tokens"] + 1, (block,))

    return held(("coda", cfg, text, positions), numbers, make)


def text_x(cfg: mha.AttentionConfig, text: str, positions: str) -> np.ndarray:
    """X = E[ids] + P for the text (n_tokens × d_model), held as seeded_x is."""
    def make():
        _, _, ids, mw = coda(cfg, text, positions)
        x = mha.embed(ids, mw)
        x.flags.writeable = False
        return x

    return held(("text_x", cfg, text, positions), cfg.n_tokens * cfg.d_model, make)


def base_for(cfg: mha.AttentionConfig, text: str, positions: str, model: str = "seeded",
              layer: int = 1) -> np.ndarray:
    if model == "trained":  # what the chosen layer's attention reads: LN₁ of the residual stream there
        letters = trained_tokens(text)[0]
        if letters and len(letters) == cfg.n_tokens and cfg.d_model == trained_sizes()["d_model"]:
            return trained_trace(tuple(letters)).layers[layer - 1].ln1
    if model == "checkpoint" and checkpoint_on():  # the same, in the checkpoint's layer `layer`
        run = checkpoint_trace(text)
        if len(run.ids) == cfg.n_tokens and cfg.d_model == walked().weights.d_model:
            return run.layers[min(layer, len(run.layers)) - 1].ln1
    tokens = text_tokens(text)
    if not tokens or len(tokens) != cfg.n_tokens:
        return seeded_x(cfg)
    return text_x(cfg, text, positions)


def base_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """The X a view starts from before edits: made from the text when there is one, else seeded."""
    ss = st.session_state
    return base_for(cfg, ss.get("text", ""), ss.get("positions", S.DEFAULTS["positions"]), ss.get("model", "seeded"),
                     walked_layer())


def walked_layer() -> int:
    """The layer the walk shows (from 1): the trained model's `layer`, or a checkpoint's `ckpt_layer`."""
    ss = st.session_state
    return int(ss.get("ckpt_layer", 1)) if ss.get("model") == "checkpoint" else int(ss.get("layer", 1))
