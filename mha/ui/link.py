"""The link: the view written into the address bar as query parameters, so the page's own URL is always a working
link, and what a link cannot carry said where it is left out.

Widget keys are the URL parameter names (a contract: docs/DESIGN.md). The URL is managed here rather than with
bind="query-params", so ids (not translated labels) travel in links; session.start reads a link back, every value
checked before a widget is built."""

import numpy as np
import streamlit as st

import mha

from . import checkpoints, classroom, x_codec
from . import settings as S
from .models import checkpoint_on, fixed_sizes
from .strings import Text
from .x_source import base_x, has_text, seeded_added


def params(cfg: mha.AttentionConfig, x: np.ndarray) -> dict[str, str]:
    """The view as query parameters: settings that differ from the defaults, the stage, the language, X's edits,
    the seeded tokens added on the KV-cache stage without a text (those that fit d_model, as the stage keeps them;
    with a text, a word added there, as one appended on the next-token stage, is in `text`)."""
    ss = st.session_state
    from_text = has_text()  # the text fixes n
    fixed = set(fixed_sizes())  # the trained model's sizes, or a checkpoint's, are its own
    out = {k: str(ss[k]) for k in (*S.SIZES, "seed", "head", "d_ff")
           if ss[k] != S.DEFAULTS[k] and not (from_text and k == "n_tokens") and k not in fixed}
    for key in ("text", "positions", "temperature", "choice", "model", "layer"):
        if ss.get(key, S.DEFAULTS[key]) != S.DEFAULTS[key]:
            out[key] = str(ss[key])
    if ss.get("model") == "trained" and ss.get("train_seed") is not None:  # a retrained model (audit 2026-12-07 #9)
        out["train_seed"] = str(ss["train_seed"])
    if ss.get("ckpt") in checkpoints.offered():  # a server's checkpoint (its layer and heads knocked out: the heads
        out["ckpt"] = ss["ckpt"]  # stage's parameters); an upload stays with its tab
        if checkpoint_on() and ss.get("ckpt_layer", "1") != "1":  # the layer the walk runs on, on every stage
            out["ckpt_layer"] = ss["ckpt_layer"]
    flags = dict(integers=ss["integers"], present=ss["present"], cells=not ss["cell_values"])
    out.update({k: "1" if k != "cells" else "0" for k, on in flags.items() if on})
    out.update(lang=ss["lang"], stage=ss["stage"])
    stage, model = S.BY_ID[ss["stage"]], ss["model"]
    if stage.parts and stage.parts.model in (None, model):  # the part shown, if not the first
        first = S.first_part(stage.id, ss)
        if ss.get(stage.parts.key, first) != first:
            out["part"] = ss[stage.parts.key]
    for p in stage.params:  # the stage's own parameters, as its walk entry declares them
        value = ss.get(p.key, S.DEFAULTS.get(p.key))
        if p.model in (None, model) and value and value != S.DEFAULTS.get(p.key):
            out[p.name] = ",".join(value) if p.values is None else value
        if p.knobs:  # the knobs the chosen variant reads
            out.update({k: str(ss[k]) for k in S.KNOBS[value] if ss.get(k, S.DEFAULTS[k]) != S.DEFAULTS[k]})
    if ss.get("example"):
        out["example"] = S.EXAMPLES[0]
    if ss["preset"] != "custom":
        out["preset"] = ss["preset"]
    # the seeded tokens added to the cache; with a text the cache adds the next word, which the text carries
    added = np.array([r for r in ss.get("kv_added", []) if len(r) == cfg.d_model and not from_text]
                     ).reshape(-1, cfg.d_model)
    too_long = {}  # what the link cannot carry, by parameter: its length (said in the share panel, on the stage)
    for key, value in (("x", x_codec.encode_x(x, base_x(cfg))),
                       ("kv", x_codec.encode_kv(added, seeded_added(cfg, len(added))) if len(added) else "")):
        if len(value) > S.X_PARAM_MAX:
            too_long[key] = len(value)
        elif value:
            out[key] = value
    ss["link_left_out"] = too_long
    return out


def left_out(t: Text, key: str, length: int) -> str:
    """That a link leaves out parameter `key` (x or kv), `length` characters long, said in the page's language."""
    return t("link_left_out", what=t(f"link_left_out_{key}"), length=length, limit=S.X_PARAM_MAX)


def follows(cfg: mha.AttentionConfig) -> None:
    """After a fragment changed what the link holds (the step, tokens added): the address bar follows. The sidebar's
    share panel, if open, shows the link, and its downloads panel the cache with the tokens added, so then the whole
    page runs again to draw them anew."""
    ss = st.session_state
    if ss.get("page_running"):  # a run of the whole page writes the link at its end (app.py)
        return
    now = params(cfg, ss["x_base"])
    query = classroom.unaddressed(st.query_params.to_dict())
    # the open share panel shows the link; the open downloads panel holds the tokens added to the cache
    if (ss.get("share_open") and now != query) or (ss.get("downloads_open") and now.get("kv") != query.get("kv")):
        st.rerun(scope="app")
    write(now)


def write(query: dict[str, str]) -> None:
    """Keep the address bar equal to the view, so the page's own URL is always a working link; in a classroom, with
    the room's code (and on the presenter's page, its key), and the presenter's view sent to the room."""
    classroom.send(query)
    query = classroom.address(query)
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)
