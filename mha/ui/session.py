"""Session state: read a link once, keep X and the editors' matrices, write the view back into the URL.

Widget keys are the URL parameter names (DESIGN.md contract). The URL is managed here rather than
with bind="query-params", so ids (not translated labels) travel in links and every value is
checked before a widget is built.
"""

from functools import lru_cache

import numpy as np
import pandas as pd
import streamlit as st

import mha

from . import settings as S
from .strings import Text

STARTED = "_started"


def start() -> None:
    """On a session's first run: settings from the URL, else defaults; language from the browser."""
    if st.session_state.get(STARTED):
        return
    values, notices = S.parse_params(st.query_params.to_dict())
    locale = (st.context.locale or "").lower()
    state = dict(S.DEFAULTS, lang="zh" if locale.startswith("zh") else "en",
                 cell_values=st.query_params.get("cells") != "0", present=st.query_params.get("present") == "1")
    state.update(values)
    if "preset" in values and values["preset"] != "custom" and not set(S.SIZES) & set(values):
        state.update(S.PRESETS[values["preset"]])
    state["preset"] = S.preset_of(state)
    state["head"] = min(state["head"], state["n_heads"])
    for key, value in state.items():  # a widget value the browser already sent (a reconnect) wins
        st.session_state.setdefault(key, value)
    cfg = config()
    x = seeded_x(cfg)
    if "x" in st.query_params:
        x, more = S.decode_x(st.query_params["x"], x)
        notices += more
    st.session_state["x_base"] = x
    st.session_state["notices"] = notices
    st.session_state[STARTED] = True


@lru_cache(maxsize=16)
def seeded_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """The seeded X for these sizes, made once (every rerun needs it twice: to fit X and to diff it for the link)."""
    x = mha.init_input(cfg)
    x.flags.writeable = False  # shared: callers copy before changing it
    return x


def config() -> mha.AttentionConfig:
    ss = st.session_state
    return mha.AttentionConfig(**{k: int(ss[k]) for k in (*S.SIZES, "seed")},
                               init="integers" if ss["integers"] else "gaussian")


def on_size_change() -> None:
    st.session_state["preset"] = S.preset_of(st.session_state)


def apply_preset() -> None:
    name = st.session_state["preset"]
    if name in S.PRESETS:
        for key, value in S.PRESETS[name].items():
            st.session_state[key] = value
    reset_x()


def make_primes() -> None:
    st.session_state.update(S.nearest_distinct_primes(st.session_state))
    on_size_change()


def reset_x() -> None:
    st.session_state["x_base"] = None


def go_to(stage: str) -> None:
    st.session_state["stage"] = stage


def current_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """X for these sizes: the user's X where the shape allows, seeded cells elsewhere.

    A reset or a new seed starts again from the seeded X and gives the editor a new identity, since
    a Streamlit 1.67 data editor re-applies its edits to new data of the same shape.
    """
    ss = st.session_state
    seeded, source = seeded_x(cfg), (cfg.seed, cfg.init)
    old = ss.get("x_base")
    if old is None or ss.setdefault("x_source", source) != source:
        x = seeded
        ss["x_generation"] = ss.get("x_generation", 0) + 1
    else:
        x = _fit(old, seeded)
    ss["x_base"], ss["x_source"] = x, source
    return x


def _fit(old: np.ndarray, seeded: np.ndarray) -> np.ndarray:
    x = seeded.copy()
    r, c = min(old.shape[0], x.shape[0]), min(old.shape[1], x.shape[1])
    x[:r, :c] = old[:r, :c]
    return x


def matrix_editor(key: str, base_key: str, base: np.ndarray, rows: list[str], t: Text, generation: int = 0,
                  **column) -> np.ndarray:
    """An editable grid over `base`; finite edits are kept in session_state[base_key], others refused
    with a message naming the cell. Columns are c0, c1, … (labelled 1, 2, …). A new `generation`
    (its parity, in an invisible index name) gives the editor a new identity: its edits are dropped."""
    cols = [f"c{j}" for j in range(base.shape[1])]
    frame = pd.DataFrame(base.astype(np.float64), index=pd.Index(rows, name=" " * (generation % 2)), columns=cols)
    config = {c: st.column_config.NumberColumn(str(j + 1), **column) for j, c in enumerate(cols)}
    edited = st.data_editor(frame, key=key, column_config=config, num_rows="fixed", width="content")
    values = np.array(edited.to_numpy(dtype=np.float64, na_value=np.nan))
    bad = ~np.isfinite(values)
    for r, c in zip(*np.nonzero(bad)):
        st.warning(t("notice_cells", cell=f"{r + 1},{c + 1}", value=_word(values[r, c]), kept=f"{base[r, c]:g}"))
    values[bad] = base[bad]
    st.session_state[base_key] = values
    return values


def _word(v: float) -> str:
    return "∞" if v == np.inf else "−∞" if v == -np.inf else "—"


def link_params(cfg: mha.AttentionConfig, x: np.ndarray) -> dict[str, str]:
    """The view as query parameters: settings that differ from the defaults, the stage, the language, X's edits."""
    ss = st.session_state
    params = {k: str(ss[k]) for k in (*S.SIZES, "seed", "head") if ss[k] != S.DEFAULTS[k]}
    flags = dict(integers=ss["integers"], present=ss["present"], cells=not ss["cell_values"])
    params.update({k: "1" if k != "cells" else "0" for k, on in flags.items() if on})
    params.update(lang=ss["lang"], stage=ss["stage"])
    if ss["stage"] == "scores" and ss.get("phase", S.DEFAULTS["phase"]) != S.DEFAULTS["phase"]:
        params["phase"] = ss["phase"]
    if ss.get("example"):
        params["example"] = S.EXAMPLES[0]
    if ss["preset"] != "custom":
        params["preset"] = ss["preset"]
    diff = S.encode_x(x, seeded_x(cfg))
    if diff and len(diff) <= S.X_PARAM_MAX:
        params["x"] = diff
    return params


def write_url(params: dict[str, str]) -> None:
    """Keep the address bar equal to the view, so the page's own URL is always a working link."""
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
