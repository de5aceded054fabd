"""The models a view shows, made once per process and shared read-only by every session: the seeded weights of
the walk, the block around them, the coda's model around that block (MODELS, within a byte budget), the trained
model (the shipped one, or one this session retrained), and a GPT-2 checkpoint (checkpoints.py), whose layer the
walk can run on as it runs on the trained model's (`model=checkpoint`)."""

from functools import lru_cache

import numpy as np
import streamlit as st

import mha

from . import checkpoints, training
from . import settings as S
from .shared import MB, Shared

MODELS_BUDGET = 160 * MB  # the seeded weights of one view at the caps (the walk's, the FFN, E) with room to spare
MODELS = Shared(MODELS_BUDGET)  # the walk's weights, the block around them, the coda's model around that block


def weights(d_model: int, d_k: int, d_v: int, n_heads: int, seed: int, init: str) -> mha.Weights:
    """Read-only weights shared by every session with the same sizes and seed."""
    cfg = mha.AttentionConfig(1, d_model, d_k, d_v, n_heads, seed, init)
    numbers = n_heads * d_model * (2 * d_k + d_v) + n_heads * d_v * d_model
    return held(("weights", d_model, d_k, d_v, n_heads, seed, init), numbers, lambda: mha.init_weights(cfg))


def block_weights(cfg: mha.AttentionConfig) -> mha.BlockWeights:
    """Layer 0's block, around the walk's own weights object (not a copy of them); shared read-only."""
    w = weights(cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init)
    numbers = 2 * cfg.d_model * cfg.d_ff + cfg.d_ff + 5 * cfg.d_model
    key = ("block", cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init, cfg.d_ff)
    return held(key, numbers, lambda: mha.init_block(cfg, 0, attn=w))


def held(key: tuple, numbers: int, make):
    """A value of MODELS, made when missing after room is made for its float64 numbers: at the caps the old
    weights and the new are not held at once."""
    if key not in MODELS:
        MODELS.room(8 * numbers)
    return MODELS.get(key, make)


# ---------------------------------------------------------------- the trained model (mha.train)


def trained_on() -> bool:
    return st.session_state.get("model") == "trained"


@lru_cache(maxsize=1)
def _shipped() -> "mha.train.Trained":
    return mha.load_trained()


def shipped_meta() -> dict:
    """The shipped model's meta (its task, sizes and scores), whichever model this session shows."""
    return _shipped().meta


def shipped() -> "mha.train.Trained":
    """The trained model this session shows: the one shipped in mha/trained/ (read once per process, shared
    read-only by every session), or one this session retrained with another seed (see training.py)."""
    return training.model(st.session_state.get("train_seed")) or _shipped()


def trained_sizes() -> dict:
    sizes = shipped().meta["sizes"]
    return {k: sizes[k] for k in ("d_model", "d_k", "d_v", "n_heads", "d_ff")}


def trained_trace(letters: tuple[str, ...]) -> mha.ModelTrace:
    """This session's trained model run on these letters (every layer's whole trace)."""
    return _trace(shipped(), letters)


@lru_cache(maxsize=32)
def _trace(m: "mha.train.Trained", letters: tuple[str, ...]) -> mha.ModelTrace:
    index = {tok: i for i, tok in enumerate(m.vocab)}
    return mha.model_forward(np.array([index[c] for c in letters], dtype=np.int64), m.weights)


def random_repeat(seed: int) -> str:
    """A sequence of the trained task: L distinct letters of the alphabet, then the same L again (spaced). Distinct,
    so that the pattern reads at a glance; the training draws (which may repeat a letter) include these, and the
    shipped model gets every one of them right (README). Its length 2L is none of the model's sizes, nor its
    vocabulary's or context's (where the task's lengths allow), so that every shape on its page says where it came
    from."""
    m = shipped()
    rng = np.random.default_rng([seed, 2024])
    lo, hi = m.meta["repeat_lengths"]
    sizes = m.meta["sizes"]
    taken = {len(m.vocab), sizes["n_ctx"], sizes["n_heads"] * sizes["d_v"], *trained_sizes().values()}
    halves = [half for half in range(lo, hi + 1) if 2 * half not in taken] or list(range(lo, hi + 1))
    first = [m.vocab[i] for i in rng.choice(m.meta["alphabet"], size=int(rng.choice(halves)), replace=False)]
    return " ".join(first + first)


# ---------------------------------------------------------------- a checkpoint (checkpoints.py)

OWN = "ckpt_own"  # session key: this tab's uploaded checkpoint and the numbers it holds, while the tab is open


def choices() -> list[str]:
    """What the checkpoint picker offers: none, the server's checkpoints, and this tab's upload if it has one."""
    return ["", *checkpoints.offered(), *([checkpoints.UPLOAD] if OWN in st.session_state else [])]


def offered_models() -> list[str]:
    """The weights the sidebar offers (settings.MODELS): a checkpoint only where there is one to walk."""
    return [m for m in S.MODELS if m != "checkpoint" or len(choices()) > 1]


def chosen() -> bool:
    """Whether a checkpoint is chosen (the heads stage shows its heads, the tokens stage its tokens)."""
    return bool(st.session_state.get("ckpt")) and st.session_state["ckpt"] in choices()


def checkpoint(name: str) -> mha.GPT2:
    """The checkpoint the picker names: this tab's upload, or one the server offers (checkpoints.load: TooLarge or
    CheckpointError if it cannot be opened)."""
    return st.session_state[OWN][0] if name == checkpoints.UPLOAD else checkpoints.load(name)


def real_on() -> bool:
    """Whether the walk runs on a model's layer, the trained one's or a checkpoint's, rather than seeded weights."""
    return trained_on() or checkpoint_on()


def checkpoint_on() -> bool:
    """Whether the walk runs on the chosen checkpoint's layer (`model=checkpoint`, a checkpoint chosen)."""
    return st.session_state.get("model") == "checkpoint" and chosen()


def walked() -> mha.GPT2:
    """The checkpoint the walk runs on (checkpoint_on)."""
    return checkpoint(st.session_state["ckpt"])


def checkpoint_sizes(m: mha.GPT2) -> dict:
    """A checkpoint's sizes under the sidebar's keys (its FFN's width from its weights)."""
    attn = m.weights.blocks[0].attn
    return dict(d_model=attn.d_model, d_k=attn.d_k, d_v=attn.d_v, n_heads=attn.n_heads,
                d_ff=m.weights.blocks[0].w_fc.shape[1])


def fixed_sizes() -> dict:
    """The sizes the model the walk runs on fixes (the sidebar shows them read-only): the trained model's, a
    checkpoint's, or none (seeded weights, at any sizes)."""
    if trained_on():
        return trained_sizes()
    return checkpoint_sizes(walked()) if checkpoint_on() else {}


def shown_layer(m: mha.GPT2) -> int:
    """The checkpoint's layer the view shows (from 1): the link's or the control's, within the model's."""
    return min(int(st.session_state.get("ckpt_layer", "1")), m.weights.n_layers)


def tokens_of(m: mha.GPT2, text: str) -> tuple[list[int], int]:
    """The text's ids in the model's own tokens, at most its context and the page's limit; how many the whole text
    has (more than the ids where it was cut)."""
    ids, most = m.tokenizer.encode(text), min(m.weights.n_ctx, S.LIMITS["n_tokens"])
    return ids[:most], len(ids)
