"""Session state: read a link once, keep X and the editors' matrices, write the view back into the URL.

Widget keys are the URL parameter names (DESIGN.md contract). The URL is managed here rather than
with bind="query-params", so ids (not translated labels) travel in links and every value is
checked before a widget is built.
"""

import math
import unicodedata
from functools import lru_cache

import numpy as np
import pandas as pd
import streamlit as st

import mha

from . import settings as S
from .shared import MB, Shared
from .strings import Text

STARTED = "_started"
RECONNECT_TIMER = "1h"  # the timed fragment below ticks once an hour: cheap, and under JavaScript's timer limit


def start() -> None:
    """On a session's first run: settings from the URL, else defaults; language from the browser."""
    _run_on_reconnect()
    if st.session_state.get(STARTED):
        sync_trained()
        sync_n_tokens()
        st.session_state["head"] = min(st.session_state["head"], st.session_state["n_heads"])  # fewer heads now?
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
    for key, value in state.items():  # the browser's widget values are not visible yet: see _run_on_reconnect
        st.session_state[key] = value
    if trained_on() and not trained_tokens(state["text"])[0]:
        st.session_state["text"] = random_repeat(int(state["seed"]))
    sync_trained()
    sync_n_tokens()
    cfg = config()
    x = base_x(cfg)
    if "x" in st.query_params:
        x, more = S.decode_x(st.query_params["x"], x)
        notices += more
    st.session_state["x_base"] = x
    if "kv" in st.query_params:
        rows, more = S.decode_kv(st.query_params["kv"], lambda count: seeded_added(cfg, count))
        st.session_state["kv_added"] = rows.tolist()
        notices += more
    st.session_state["notices"] = notices
    st.session_state[STARTED] = True


@st.fragment(run_every=RECONNECT_TIMER)
def _run_on_reconnect() -> None:
    """Draws nothing. A page with a timed fragment asks for a full run as soon as it reconnects to a
    restarted server (Streamlit 1.67's frontend does so for pages with auto-rerun fragments, and for
    no others). Without that run, the new session's first run is the user's next click: its widget
    value arrives keyed by element id, unseen by start(), which puts the link's value back over it,
    and the callbacks it should fire are unknown to the new session. With it, the page is started
    from its link (the URL always equals the view) before a click is run: a click on a fragment
    that run has not drawn yet waits for its end (reruns.py)."""


MODELS_BUDGET = 160 * MB  # the seeded weights of one view at the caps (the walk's, the FFN, E) with room to spare
MODELS = Shared(MODELS_BUDGET)  # the walk's weights, the block around them, the coda's model around that block


def weights(d_model: int, d_k: int, d_v: int, n_heads: int, seed: int, init: str) -> mha.Weights:
    """Read-only weights shared by every session with the same sizes and seed."""
    cfg = mha.AttentionConfig(1, d_model, d_k, d_v, n_heads, seed, init)
    numbers = n_heads * d_model * (2 * d_k + d_v) + n_heads * d_v * d_model
    return _model(("weights", d_model, d_k, d_v, n_heads, seed, init), numbers, lambda: mha.init_weights(cfg))


def block_weights(cfg: mha.AttentionConfig) -> mha.BlockWeights:
    """Layer 0's block, around the walk's own weights object (not a copy of them); shared read-only."""
    w = weights(cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init)
    numbers = 2 * cfg.d_model * cfg.d_ff + cfg.d_ff + 5 * cfg.d_model
    key = ("block", cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init, cfg.d_ff)
    return _model(key, numbers, lambda: mha.init_block(cfg, 0, attn=w))


def _model(key: tuple, numbers: int, make):
    """A value of MODELS, made when missing after room is made for its float64 numbers: at the caps the old
    weights and the new are not held at once."""
    if key not in MODELS:
        MODELS.room(8 * numbers)
    return MODELS.get(key, make)


@lru_cache(maxsize=16)
def seeded_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """The seeded X for these sizes, made once (every rerun needs it twice: to fit X and to diff it for the link)."""
    x = mha.init_input(cfg)
    x.flags.writeable = False  # shared: callers copy before changing it
    return x


def text_tokens(text: str) -> list[str]:
    """The text's tokens (at most LIMITS["n_tokens"]: a longer text is cut where it is read). With the trained
    model, its letters: see trained_tokens."""
    if trained_on():
        return trained_tokens(text)[0]
    return mha.tokenize(text)[: S.LIMITS["n_tokens"]]


# ---------------------------------------------------------------- the trained model (mha.train)


def trained_on() -> bool:
    return st.session_state.get("model") == "trained"


@lru_cache(maxsize=1)
def _shipped() -> "mha.train.Trained":
    return mha.load_trained()


def shipped() -> "mha.train.Trained":
    """The trained model this session shows: the one shipped in mha/trained/ (read once per process, shared
    read-only by every session), or one this session retrained with another seed (see training.py)."""
    from . import training

    return training.model(st.session_state.get("train_seed")) or _shipped()


def trained_sizes() -> dict:
    sizes = shipped().meta["sizes"]
    return {k: sizes[k] for k in ("d_model", "d_k", "d_v", "n_heads", "d_ff")}


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


def random_repeat(seed: int) -> str:
    """A sequence of the trained task: L distinct letters of the alphabet, then the same L again (spaced). Distinct,
    so that the pattern reads at a glance; the training draws (which may repeat a letter) include these, and the
    shipped model gets every one of them right (README)."""
    m = shipped()
    rng = np.random.default_rng([seed, 2024])
    lo, hi = m.meta["repeat_lengths"]
    first = [m.vocab[i] for i in rng.choice(m.meta["alphabet"], size=int(rng.integers(lo, hi + 1)), replace=False)]
    return " ".join(first + first)


def trained_trace(letters: tuple[str, ...]) -> mha.ModelTrace:
    """This session's trained model run on these letters (every layer's whole trace)."""
    return _trace(shipped(), letters)


@lru_cache(maxsize=32)
def _trace(m: "mha.train.Trained", letters: tuple[str, ...]) -> mha.ModelTrace:
    index = {tok: i for i, tok in enumerate(m.vocab)}
    return mha.model_forward(np.array([index[c] for c in letters], dtype=np.int64), m.weights)


def sync_trained() -> None:
    """With the trained model the sizes are its own (the sidebar shows them, read-only)."""
    ss = st.session_state
    if trained_on():
        for key, value in trained_sizes().items():
            ss[key] = value
        ss["head"] = min(ss.get("head", 1), ss["n_heads"])
        ss["preset"] = "custom"


def on_model_change() -> None:
    """To the trained model: its sizes, and a sequence of its task when the text has none of its letters.
    Back to seeded weights: the post's sizes. Either way X starts again from the text."""
    ss = st.session_state
    if trained_on():
        if not trained_tokens(ss.get("text", ""))[0]:
            ss["text"] = random_repeat(int(ss.get("seed", 0)))
        sync_trained()
    else:
        ss.update(S.PRESETS["post"])
        ss["preset"] = "post"
    sync_n_tokens()
    reset_x()


def new_repeat() -> None:
    ss = st.session_state
    ss["repeat_draws"] = ss.get("repeat_draws", 0) + 1
    ss["text"] = random_repeat(int(ss.get("seed", 0)) + ss["repeat_draws"])
    on_text_change()


def sync_n_tokens() -> None:
    """A text fixes n: one row of X per token (the sidebar's n is then read-only)."""
    ss = st.session_state
    tokens = text_tokens(ss.get("text", ""))
    if tokens and ss.get("n_tokens") != len(tokens):
        ss["n_tokens"] = len(tokens)
        if "preset" in ss:
            ss["preset"] = S.preset_of(ss)


def coda(cfg: mha.AttentionConfig, text: str, positions: str) -> tuple[list[str], list[str], np.ndarray,
                                                                        mha.ModelWeights]:
    """The text's tokens, its vocabulary, the token ids and a model: a one-block model over the text's own
    vocabulary, whose block is init_block(cfg, 0) (its attention is the walk's weights); or the trained one."""
    if trained_on():
        m, tokens = shipped(), text_tokens(text)
        return tokens, m.vocab, trained_trace(tuple(tokens)).ids, m.weights
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

    return _model(("coda", cfg, text, positions), numbers, make)


def _base_for(cfg: mha.AttentionConfig, text: str, positions: str, model: str = "seeded",
              layer: int = 1) -> np.ndarray:
    if model == "trained":  # what the chosen layer's attention reads: LN₁ of the residual stream there
        letters = trained_tokens(text)[0]
        if letters and len(letters) == cfg.n_tokens and cfg.d_model == trained_sizes()["d_model"]:
            return trained_trace(tuple(letters)).layers[layer - 1].ln1
    tokens = text_tokens(text)
    if not tokens or len(tokens) != cfg.n_tokens:
        return seeded_x(cfg)
    return text_x(cfg, text, positions)


@lru_cache(maxsize=8)
def text_x(cfg: mha.AttentionConfig, text: str, positions: str) -> np.ndarray:
    """X = E[ids] + P for the text (n_tokens × d_model)."""
    _, _, ids, mw = coda(cfg, text, positions)
    x = mw.wte[ids] + mha.model.positions_for(mw, 0, len(ids))
    x.flags.writeable = False
    return x


def base_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """The X a view starts from before edits: made from the text when there is one, else seeded."""
    ss = st.session_state
    return _base_for(cfg, ss.get("text", ""), ss.get("positions", S.DEFAULTS["positions"]), ss.get("model", "seeded"),
                     int(ss.get("layer", 1)))


def has_text() -> bool:
    return bool(text_tokens(st.session_state.get("text", "")))


def seeded_added(cfg: mha.AttentionConfig, count: int) -> np.ndarray:
    """The seeded tokens the KV-cache stage offers after X, (count, d_model): what a link's `kv` edits."""
    return np.array([mha.next_token(cfg, cfg.n_tokens + i) for i in range(count)]).reshape(count, cfg.d_model)


def config() -> mha.AttentionConfig:
    ss = st.session_state
    return mha.AttentionConfig(**{k: int(ss[k]) for k in (*S.SIZES, "seed", "d_ff")},
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
    st.session_state["x_aside"] = {}


def on_text_change() -> None:
    """A new text (or kind of positions) makes a new X: edits of the old one are dropped; a text past the
    token limit is cut, and the page says so."""
    ss = st.session_state
    ss["text"], notice = S.cap_text(ss.get("text") or "")
    ss["text_notice"] = notice
    sync_n_tokens()
    reset_x()


def go_to(stage: str) -> None:
    st.session_state["stage"] = stage


def current_x(cfg: mha.AttentionConfig) -> np.ndarray:
    """X for these sizes: the user's X where the shape allows, seeded cells elsewhere.

    A new seed (or kind of numbers) draws X anew but keeps the cells the user edited, and says so.
    A reset, or a new seed, gives the editor a new identity, since a Streamlit 1.67 data editor
    re-applies its edits to new data of the same shape.
    """
    ss = st.session_state
    text, positions = ss.get("text", ""), ss.get("positions", S.DEFAULTS["positions"])
    model, layer = ss.get("model", "seeded"), int(ss.get("layer", 1))
    seeded, source = base_x(cfg), (cfg.seed, cfg.init, text, positions, model, layer)
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
            if ss["stage"] != "input":  # the input stage has this button under X
                st.button(t("input_reset"), key="reset_x_kept", on_click=reset_x)
    else:
        x = _fit(old, seeded)
        if old.shape != x.shape:
            _set_aside(old, x, source, Text(ss["lang"]))
    ss["x_base"], ss["x_source"] = x, source
    return x


def _set_aside(old: np.ndarray, x: np.ndarray, source: tuple, t: Text) -> None:
    """X changed shape: the edited cells of `old` that no longer fit are set aside (session_state["x_aside"], by
    place), and those set aside earlier that fit again are put back into `x`; each said once."""
    aside = st.session_state.setdefault("x_aside", {})
    seed, init, text, positions, model, layer = source
    was = _base_for(mha.AttentionConfig(old.shape[0], old.shape[1], seed=seed, init=init), text, positions, model,
                    layer)
    beyond = old != was
    beyond[: x.shape[0], : x.shape[1]] = False
    for r, c in zip(*np.nonzero(beyond)):
        aside[int(r), int(c)] = float(old[r, c])
    back = [(r, c) for r, c in aside if r < x.shape[0] and c < x.shape[1]]
    for r, c in back:
        x[r, c] = aside.pop((r, c))
    shape = f"{x.shape[0]}×{x.shape[1]}"
    if beyond.any():
        st.info(t("input_aside", shape=shape, count=int(beyond.sum())), icon=":material/edit_note:")
    if back:
        st.info(t("input_back", shape=shape, count=len(back)), icon=":material/edit_note:")


def _keep_edits(old: np.ndarray, seeded: np.ndarray, old_source: tuple) -> tuple[np.ndarray, int]:
    """The new seeded X with the cells where `old` differed from its own seeded X; how many those are."""
    seed, init, text, positions, model, layer = old_source
    was = _base_for(mha.AttentionConfig(old.shape[0], old.shape[1], seed=seed, init=init), text, positions, model,
                    layer)
    x = seeded.copy()
    r, c = min(old.shape[0], x.shape[0]), min(old.shape[1], x.shape[1])
    edited = old[:r, :c] != was[:r, :c]
    x[:r, :c][edited] = old[:r, :c][edited]
    return x, int(edited.sum())


def _fit(old: np.ndarray, seeded: np.ndarray) -> np.ndarray:
    x = seeded.copy()
    r, c = min(old.shape[0], x.shape[0]), min(old.shape[1], x.shape[1])
    x[:r, :c] = old[:r, :c]
    return x


def matrix_editor(key: str, base_key: str, base: np.ndarray, rows: list[str], t: Text, generation: int = 0,
                  **column) -> np.ndarray:
    """An editable grid over `base`; finite edits are kept in session_state[base_key], others refused
    with a message naming the cell. Columns are c0, c1, … (labelled 1, 2, …). A new `generation`
    (its parity, in an invisible index name) gives the editor a new identity: its edits are dropped.

    The grid is given the same numbers run after run (those `base` held when this generation began, or
    when its shape changed), its edits on top: given new numbers, the browser drops its edits and
    starts another run to say so, which took every first click after an edit a second run.

    Cells are text, read here: the grid's number editor (react-number-format) drops every key but
    digits, '.' and '-', so a typed 1e200 would arrive as 1200. Each number is shown in its shortest
    form that reads back exactly (repr), so an untouched cell keeps its value to the last bit."""
    held = st.session_state.get(f"{key}_data")
    if held is None or held[0] != generation or held[1].shape != base.shape:
        held = st.session_state[f"{key}_data"] = (generation, base.copy())
    data = held[1]
    cols = [f"c{j}" for j in range(data.shape[1])]
    shown = [[_shortest(float(v)) for v in row] for row in data]
    frame = pd.DataFrame(shown, index=pd.Index(rows, name=" " * (generation % 2)), columns=cols, dtype=object)
    config = {c: st.column_config.TextColumn(str(j + 1), alignment="right", **column) for j, c in enumerate(cols)}
    edited = st.data_editor(frame, key=key, column_config=config, num_rows="fixed", width="content")
    values, refused = _read_edits(data, base, np.array(shown, dtype=object), edited.to_numpy(dtype=object))
    if refused:  # one notice, however many cells: a select-all and Delete empties every cell at once
        r, c, cell, v = refused[0]
        fields = dict(cell=f"{r + 1},{c + 1}", value=_word(cell, v))
        st.warning(t.md("notice_cells", kept=f"{base[r, c]:g}", **fields) if len(refused) == 1
                   else t.md("notice_cells_many", count=len(refused), **fields))
    st.session_state[base_key] = values
    return values


def _read_edits(data: np.ndarray, last: np.ndarray, shown: np.ndarray,
                cells: np.ndarray) -> tuple[np.ndarray, list[tuple]]:
    """The grid's numbers: `data` (shown as `shown`) with its changed cells read in (only those: a large grid's run
    reads a handful, not all), a refused one keeping its `last` value; and the refused cells, as (row, col, cell,
    value read or None), in reading order."""
    values, refused = data.astype(np.float64), []
    for r, c in zip(*np.nonzero(cells != shown)):
        cell = cells[r, c]
        v = _number(cell)
        if v is not None and math.isfinite(v):
            values[r, c] = v
        else:
            values[r, c] = last[r, c]
            refused.append((int(r), int(c), cell, v))
    return values, refused


def _shortest(v: float) -> str:
    """The shortest text that reads back as v: 0.53, -1.5, 2 (not 2.0), 1e+200; 0 for −0.0 too."""
    text = repr(v + 0.0)  # −0.0 + 0.0 is 0.0
    return text[:-2] if text.endswith(".0") else text


def _blank(cell) -> bool:
    if isinstance(cell, str):
        return not cell.strip()
    return cell is None or (isinstance(cell, float) and math.isnan(cell))


def _number(cell) -> float | None:
    """A grid cell as a number: None when empty or not a number, read as a link reads one (settings.read_number)."""
    if _blank(cell):
        return None
    if isinstance(cell, (int, float)):
        return float(cell)
    return S.read_number(str(cell))


def _word(cell, v: float | None) -> str:
    """How a refused cell is named in the message: ∞, −∞, — when empty, else what was typed."""
    if v is not None and math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return "—" if _blank(cell) else f"“{S.shorten(str(cell).strip())}”"


def link_params(cfg: mha.AttentionConfig, x: np.ndarray) -> dict[str, str]:
    """The view as query parameters: settings that differ from the defaults, the stage, the language, X's edits,
    the tokens added on the KV-cache stage (those that fit d_model, as the stage keeps them)."""
    ss = st.session_state
    from_text = has_text()  # the text fixes n
    fixed = set(trained_sizes()) if trained_on() else set()  # the trained model's sizes are its own
    params = {k: str(ss[k]) for k in (*S.SIZES, "seed", "head", "d_ff")
              if ss[k] != S.DEFAULTS[k] and not (from_text and k == "n_tokens") and k not in fixed}
    for key in ("text", "positions", "temperature", "choice", "model", "layer"):
        if ss.get(key, S.DEFAULTS[key]) != S.DEFAULTS[key]:
            params[key] = str(ss[key])
    flags = dict(integers=ss["integers"], present=ss["present"], cells=not ss["cell_values"])
    params.update({k: "1" if k != "cells" else "0" for k, on in flags.items() if on})
    params.update(lang=ss["lang"], stage=ss["stage"])
    if ss["stage"] == "scores" and ss.get("phase", S.DEFAULTS["phase"]) != S.DEFAULTS["phase"]:
        params["phase"] = ss["phase"]
    part = {"block": "block_part", "kv_cache": "kv_part"}.get(ss["stage"])
    if part and ss.get(part, S.DEFAULTS[part]) != S.DEFAULTS[part]:
        params["part"] = ss[part]
    if ss.get("example"):
        params["example"] = S.EXAMPLES[0]
    if ss["preset"] != "custom":
        params["preset"] = ss["preset"]
    added = np.array([r for r in ss.get("kv_added", []) if len(r) == cfg.d_model]).reshape(-1, cfg.d_model)
    left_out = {}  # what the link cannot carry, by parameter: its length (said in the share panel, on the stage)
    for key, value in (("x", S.encode_x(x, base_x(cfg))),
                       ("kv", S.encode_kv(added, seeded_added(cfg, len(added))) if len(added) else "")):
        if len(value) > S.X_PARAM_MAX:
            left_out[key] = len(value)
        elif value:
            params[key] = value
    ss["link_left_out"] = left_out
    return params


def left_out(t: Text, key: str, length: int) -> str:
    """That a link leaves out parameter `key` (x or kv), `length` characters long, said in the page's language."""
    return t("link_left_out", what=t(f"link_left_out_{key}"), length=length, limit=S.X_PARAM_MAX)


def link_follows(cfg: mha.AttentionConfig) -> None:
    """After a fragment changed what the link holds (the step, tokens added): the address bar follows. The sidebar's
    share panel, if open, shows the link, so then the whole page runs again to draw it anew."""
    ss = st.session_state
    if ss.get("page_running"):  # a run of the whole page writes the link at its end (app.py)
        return
    params = link_params(cfg, ss["x_base"])
    if ss.get("share_open") and params != st.query_params.to_dict():
        st.rerun(scope="app")
    write_url(params)


def write_url(params: dict[str, str]) -> None:
    """Keep the address bar equal to the view, so the page's own URL is always a working link."""
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
