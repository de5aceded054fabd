"""The X the walk computes from: x_source's X before edits with the user's edits on top, kept or set aside as the
sizes change. `inputs` answers, once a run, what the walk computes from: X, its tokens, and the weights to use on
it."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

import mha

from . import models
from . import settings as S
from .models import checkpoint_on
from .strings import Text
from .view import ModelRun
from .walk import BY_ID
from .x_source import base_for, base_x, model_run, text_tokens, trained_tokens, walked_layer


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
    return base_for(cfg, text, positions, model, layer)[:rows]


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
