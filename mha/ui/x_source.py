"""Where X comes from: seeded numbers, a text's tokens (X = E[ids] + P of the coda's model), or a real model's run on
the text, the trained one's or a checkpoint's (what the chosen layer's attention reads), with the user's edits on top,
kept or set aside as the sizes change. `inputs` answers, once a run, what the walk computes from: X, its tokens, and
the weights to use on it."""

import unicodedata
from dataclasses import dataclass

import numpy as np
import streamlit as st

import mha

from . import checkpoints, models
from . import settings as S
from .models import block_weights, checkpoint_on, held, shipped, trained_on, trained_sizes, trained_trace, walked
from .strings import Text
from .view import ModelRun
from .walk import BY_ID

# The text a stage of the coda shows when none is typed: its tokens and its vocabulary (14 and 8; 14 and 6) are lengths
# no size of the post has (3, 5, 7, 11, 2, 22 and d_ff 13), and neither are the next three n that generating words
# makes (15, 16, 17), so every shape on those stages still says where it came from, and keeps saying it while the KV
# cache adds words (tests/app/test_lengths.py). 14 is the shortest n with three such lengths after it.
EXAMPLE = dict(en="the cat sat on the mat, and the dog sat on the mat", zh="山外有山，人外有人，天外有天")


@dataclass(frozen=True)
class Inputs:
    """What the walk computes from on this run."""

    cfg: mha.AttentionConfig
    x: np.ndarray  # current_x: the user's X where the shape allows, seeded (or the text's) cells elsewhere
    tokens: tuple[str, ...]  # the text's tokens, one per row of X (none without a text)
    run: ModelRun | None  # with the trained model or a checkpoint on a text: its run, and the layer the walk shows

    def weights(self) -> mha.Weights:
        """The attention the walk shows: the model's layer's, or the seeded weights, made on this call (at the caps
        they are large, so the page makes them only once it has decided to draw the view)."""
        if self.run:
            return self.run.weights.blocks[self.run.layer].attn
        cfg = self.cfg
        return models.weights(cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init)


def inputs(cfg: mha.AttentionConfig) -> Inputs:
    """X on this run and where it comes from. With the trained model or a checkpoint on a text, the walk shows the
    chosen layer's attention, on what that layer reads."""
    tokens = tuple(text_tokens(st.session_state["text"]))
    return Inputs(cfg, current_x(cfg), tokens, model_run(tokens))


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


def _base_for(cfg: mha.AttentionConfig, text: str, positions: str, model: str = "seeded",
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
    return _base_for(cfg, ss.get("text", ""), ss.get("positions", S.DEFAULTS["positions"]), ss.get("model", "seeded"),
                     walked_layer())


def walked_layer() -> int:
    """The layer the walk shows (from 1): the trained model's `layer`, or a checkpoint's `ckpt_layer`."""
    ss = st.session_state
    return int(ss.get("ckpt_layer", 1)) if ss.get("model") == "checkpoint" else int(ss.get("layer", 1))


# ---------------------------------------------------------------- the user's edits


def reset_x() -> None:
    st.session_state["x_base"] = None
    st.session_state["x_aside"] = None


def current_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """X for these sizes: the user's X where the shape allows, seeded cells elsewhere.

    A new seed (or kind of numbers) draws X anew but keeps the cells the user edited, and says so.
    A reset, or a new seed, gives the editor a new identity, since a Streamlit 1.67 data editor
    re-applies its edits to new data of the same shape.
    """
    ss = st.session_state
    seeded, source = base_x(cfg), _source(cfg)
    old = ss.get("x_base")
    if old is None:
        x = seeded
        ss["x_generation"] = ss.get("x_generation", 0) + 1
    elif ss.setdefault("x_source", source) != source:
        x, kept = _keep_edits(old, seeded, ss["x_source"])
        ss["x_generation"] = ss.get("x_generation", 0) + 1
        if kept:
            t = Text(ss["lang"])
            st.info(t("input_kept", seed=cfg.seed, count=kept), icon=":material/edit_note:")
            if not BY_ID[ss["stage"]].resets_x:  # the input stage has this button under X
                st.button(t("input_reset"), key="reset_x_kept", on_click=reset_x)
    else:  # the same source: X as it was, or at a new shape with the cells the user edited (a rerun's usual path)
        x = old.copy() if old.shape == seeded.shape else _keep_edits(old, seeded, source)[0]
        if old.shape != x.shape:
            _set_aside(old, x, source, Text(ss["lang"]))
    ss["x_base"], ss["x_source"] = x, source
    return x


def _source(cfg: mha.AttentionConfig) -> tuple:
    """What the X before edits is made from: seed, kind of numbers, text, positions, model, layer, checkpoint."""
    ss = st.session_state
    return (cfg.seed, cfg.init, ss.get("text", ""), ss.get("positions", S.DEFAULTS["positions"]),
            ss.get("model", "seeded"), walked_layer(), ss.get("ckpt", ""))


def shown_model() -> str:
    """The model the X of the last run was made under (a change of model is seen before it is drawn)."""
    source = st.session_state.get("x_source")
    return source[4] if source else st.session_state.get("model", "seeded")


def keep_rows(cfg: mha.AttentionConfig) -> None:
    """The text grew by a token at its end (the next word appended): X's rows so far are the same tokens at the same
    places, so they stay as they are, edits included, and the new token's row is the text's (see current_x)."""
    if st.session_state.get("x_base") is not None:
        st.session_state["x_source"] = _source(cfg)


def _base_of_shape(shape: tuple[int, int], source: tuple) -> np.ndarray | None:
    """The X before edits that an X of this shape was made from under `source`. A text longer than the rows (it grew
    by a generated token since: keep_rows) gives its first rows: a token's row depends only on the tokens up to it.
    None when it cannot be made again: a checkpoint no longer walked (its edits are dropped, never guessed)."""
    seed, init, text, positions, model, layer, ckpt = source
    if model == "checkpoint" and not (checkpoint_on() and st.session_state["ckpt"] == ckpt):
        return None
    rows, cols = shape
    tokens = trained_tokens(text)[0] if model == "trained" else text_tokens(text)  # a checkpoint's: the one shown
    cfg = mha.AttentionConfig(max(rows, len(tokens)), cols, seed=seed, init=init)
    return _base_for(cfg, text, positions, model, layer)[:rows]


def _set_aside(old: np.ndarray, x: np.ndarray, source: tuple, t: Text) -> None:
    """X changed shape: the edited cells of `old` that no longer fit are set aside, and those set aside earlier that
    fit again are put back into `x`; each said once. session_state["x_aside"] holds them by place: an array as large
    as the places used (NaN where nothing is set aside: an edit is always finite), or None. At most X's size at the
    caps (512 KB), where a dict of 65,536 cells took 13 MB a page (red team 2026-12-06 R6)."""
    ss = st.session_state
    aside = ss.get("x_aside")
    was = _base_of_shape(old.shape, source)
    beyond = np.zeros(old.shape, bool) if was is None else old != was
    beyond[: x.shape[0], : x.shape[1]] = False
    if beyond.any():
        grown = np.full(np.maximum(old.shape, aside.shape if aside is not None else (0, 0)), np.nan)
        if aside is not None:
            grown[: aside.shape[0], : aside.shape[1]] = aside
        grown[: old.shape[0], : old.shape[1]][beyond] = old[beyond]
        aside = grown
    back = 0
    if aside is not None:
        region = aside[: x.shape[0], : x.shape[1]]  # a view: what is put back leaves the array
        fits = ~np.isnan(region)
        back = int(fits.sum())
        x[: region.shape[0], : region.shape[1]][fits] = region[fits]
        region[fits] = np.nan
        aside = None if np.isnan(aside).all() else aside
    ss["x_aside"] = aside
    shape = f"{x.shape[0]}×{x.shape[1]}"
    if beyond.any():
        st.info(t("input_aside", shape=shape, count=int(beyond.sum())), icon=":material/edit_note:")
    if back:
        st.info(t("input_back", shape=shape, count=back), icon=":material/edit_note:")


def _keep_edits(old: np.ndarray, seeded: np.ndarray, old_source: tuple) -> tuple[np.ndarray, int]:
    """The new X before edits with the cells where `old` differed from its own X before edits (made from
    `old_source` at old's shape); how many those are. Only those: a cell the user never edited takes the new value,
    so a change of sizes never turns the old text's numbers into edits."""
    was = _base_of_shape(old.shape, old_source)
    x = seeded.copy()
    if was is None:
        return x, 0
    r, c = min(old.shape[0], x.shape[0]), min(old.shape[1], x.shape[1])
    edited = old[:r, :c] != was[:r, :c]
    x[:r, :c][edited] = old[:r, :c][edited]
    return x, int(edited.sum())
