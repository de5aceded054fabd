"""The session: started from its link (or the defaults) on its first run, started again from it when the page
reconnects to a restarted server, and the settings' callbacks, which keep sizes, text, model and X agreeing.

The link itself is written in link.py; where X comes from, in x_source.py."""

import numpy as np
import streamlit as st

import mha

from . import primes, training, x_codec
from . import settings as S
from .models import checkpoint_on, choices, fixed_sizes, random_repeat, trained_on, walked
from .next_word import context, next_word
from .x_edits import current_x, keep_rows, reset_x, shown_model
from .x_source import base_x, example_text, has_text, seeded_added, text_tokens, trained_tokens

STARTED = "_started"
SIZES_FROM = "sizes_from"  # session key: sizes a view's button set, and what they were before, until a size is changed
RECONNECT_TIMER = "1h"  # the timed fragment below ticks once an hour: cheap, and under JavaScript's timer limit


def start() -> None:
    """On a session's first run: settings from the URL, else defaults; language from the browser."""
    _run_on_reconnect()
    if st.session_state.get(STARTED):
        if notices := sync_model():  # the walk's checkpoint is gone: said as a link's notices are
            st.session_state["notices"] = notices
        sync_n_tokens()
        st.session_state["head"] = min(st.session_state["head"], st.session_state["n_heads"])  # fewer heads now?
        return
    locale = (st.context.locale or "").lower()
    _open(st.query_params.to_dict(), "zh" if locale.startswith("zh") else "en")


# What a page keeps of its own when it follows a room's view: its screen, its open panels, its training slot
PAGE_OWN = ("screen", "screen_phone", "share_open", "downloads_open", "options_open", "code_view")


def follow(view: dict[str, str]) -> None:
    """A room's view, applied as if its link were opened on this page (the same parser and checks), this page's
    language, projector and cell numbers kept, and its screen, panels and own keys ("_…")."""
    ss = st.session_state
    own = dict(lang=ss["lang"], present="1" if ss["present"] else "0", cells="1" if ss["cell_values"] else "0")
    for key in [k for k in ss if not k.startswith("_") and k not in PAGE_OWN and not k.startswith("room")]:
        del ss[key]
    _open(dict(view, **own), own["lang"])


def _open(query: dict[str, str], lang: str) -> None:
    """Every setting from a link's parameters (a default for each it leaves out or cannot use, with a notice)."""
    values, notices = S.parse_params(query)
    state = dict(S.DEFAULTS, lang=lang, cell_values=query.get("cells") != "0", present=query.get("present") == "1")
    state.update(values)
    for parts in S.PARTS.values():  # a stage whose first part depends on the view (the block's order) opens there
        if parts.first and parts.key not in values:
            state[parts.key] = parts.first(state)
    if "preset" in values and values["preset"] != "custom" and not set(S.SIZES) & set(values):
        state.update(S.PRESETS[values["preset"]])
    state["preset"] = S.preset_of(state)
    state["head"] = min(state["head"], state["n_heads"])
    for key, value in state.items():  # the browser's widget values are not visible yet: see _run_on_reconnect
        st.session_state[key] = value
    if trained_on() and not trained_tokens(state["text"])[0]:
        st.session_state["text"] = st.session_state["text_made"] = random_repeat(int(state["seed"]))
    if state["model"] == "checkpoint" and not state["text"]:
        st.session_state["text"] = st.session_state["text_made"] = example_text(lang)
    notices += sync_model()
    sync_n_tokens()
    cfg = config()
    x = base_x(cfg)
    if "x" in query:
        x, more = x_codec.decode_x(query["x"], x)
        notices += more
    st.session_state["x_base"] = x
    if "kv" in query:
        rows, more = x_codec.decode_kv(query["kv"], lambda count: seeded_added(cfg, count))
        if has_text():
            more = _kv_as_words(len(rows), more)
        else:
            st.session_state["kv_added"] = [np.array(r, float) for r in rows]
        notices += more
    st.session_state["notices"] = notices
    st.session_state[STARTED] = True


def _kv_as_words(count: int, notices: list) -> list:
    """A link written before the cache added words (kv=count after a text): the text gains the model's next `count`
    words, as many adds would give (within the context), and the page says so. Returns the notices to show."""
    ss = st.session_state
    notices = [n for n in notices if n.key != "notice_kv_items"]  # cells of seeded rows: no such rows now
    added = []
    for _ in range(min(count, context() - int(ss["n_tokens"]))):
        cfg = config()
        word = next_word(cfg, ss["x_base"])
        if word.text is None:  # part of a character's bytes: a text cannot hold it, and the next choice is the same
            break
        append_word(ss["text"], word.text)
        ss["x_base"] = current_x(config())
        added.append(word.token)
    if count:
        notices.append(S.Notice("notice_kv_words", dict(count=count, words=" ".join(added))))
    return notices


@st.fragment(run_every=RECONNECT_TIMER)
def _run_on_reconnect() -> None:
    """Draws nothing. A page with a timed fragment asks for a full run as soon as it reconnects to a
    restarted server (Streamlit's frontend does so for pages with a timed fragment, and for no
    others). Without that run, the new session's first run is the user's next click: its widget
    value arrives keyed by element id, unseen by start(), which puts the link's value back over it,
    and the callbacks it should fire are unknown to the new session. With it, the page is started
    from its link (the URL always equals the view) before a click is run: a click on a fragment
    that run has not drawn yet waits for its end (reruns.py)."""


def config() -> mha.AttentionConfig:
    ss = st.session_state
    return mha.AttentionConfig(**{k: int(ss[k]) for k in (*S.SIZES, "seed", "d_ff")},
                               init="integers" if ss["integers"] else "gaussian")


def sync_model() -> list[S.Notice]:
    """With the trained model or a checkpoint the sizes are the model's own (the sidebar shows them, read-only). A
    retrained model this server no longer keeps gives the page back the shipped one, said. A checkpoint the walk can
    no longer run on (none chosen, or it cannot be opened here) gives the walk back to seeded
    weights at the post's sizes; the notice returned says so (the tokens and heads stages say why it cannot open)."""
    ss = st.session_state
    if (seed := ss.get("train_seed")) is not None and training.model(seed) is None:  # red team 2026-12-07 T8
        ss.pop("train_seed")  # other seeds trained since took its place: the page shows the shipped model, and says so
        return [S.Notice("notice_retrain_gone", dict(seed=seed, kept=training.MAX_KEPT))]
    if ss.get("model") == "checkpoint":
        name, why = ss.get("ckpt") or "", "notice_ckpt_walk"
        try:
            sizes = fixed_sizes() if checkpoint_on() else None
        except mha.InputError:
            sizes = None
        if sizes and not text_tokens(ss.get("text", "")):  # a word-level vocabulary may hold none of the text
            sizes, why = None, "notice_ckpt_no_tokens"
        if sizes is None:
            ss["model"] = "seeded"
            ss.update(S.PRESETS["post"], preset="post")
            reset_x()
            return [S.Notice(why if name else "notice_ckpt_walk_none", dict(name=S.shorten(name)))]
    if sizes := fixed_sizes():
        ss.update(sizes, preset="custom")
        ss["head"] = min(ss.get("head", 1), ss["n_heads"])
    return []


# The seeded walk as the learner leaves it for another model's (its text, sizes, numbers and X with its edits), given
# back when Seeded is chosen again, unless a text was typed meanwhile
SEEDED_SETTINGS = (*S.SIZES, "d_ff", "seed", "integers", "example", "preset", "positions")
SEEDED_WALK = ("text", *SEEDED_SETTINGS, "x_base", "x_source", "x_aside")


def on_model_change() -> None:
    """To the trained model: its sizes, and a sequence of its task when the text has none of its letters. To a
    checkpoint: the one chosen (else the first offered), its sizes, and the language's example when there is no
    text. Each way X starts again from the text. Back to seeded weights: the seeded walk as it was left (else the
    post's sizes, without a text another model made up)."""
    ss = st.session_state
    if ss["model"] != "seeded" and shown_model() == "seeded":
        ss["seeded_walk"] = {k: ss[k] for k in SEEDED_WALK if k in ss}
    if trained_on():
        if not trained_tokens(ss.get("text", ""))[0]:
            ss["text"] = ss["text_made"] = random_repeat(int(ss.get("seed", 0)))
    elif ss["model"] == "checkpoint":
        if not checkpoint_on() and len(choices()) > 1:
            ss["ckpt"] = choices()[1]
        if not ss.get("text"):
            ss["text"] = ss["text_made"] = example_text(ss["lang"])
    elif _seeded_walk_back():
        return
    if "seeded_walk" in ss:
        ss["seeded_walk"].setdefault("away", ss.get("text", ""))
    if notices := sync_model():
        ss["notices"] = notices
    sync_n_tokens()
    reset_x()


def _seeded_walk_back() -> bool:
    """Seeded chosen again: the walk kept when it was left, whole if the text is still the one it was left with (True:
    X and its edits are back too); else its sizes with the text now shown, or the post's sizes. A text another model
    made up goes with it."""
    ss = st.session_state
    kept, made = ss.pop("seeded_walk", {}), ss.pop("text_made", None)
    if kept and ss.get("text", "") == kept.pop("away", None):
        ss.update(kept)
        ss["x_generation"] = ss.get("x_generation", 0) + 1  # the editor shows the X given back
        return True
    if ss.get("text") == made:
        ss["text"] = ""
    ss.update(S.PRESETS["post"], preset="post", d_ff=S.DEFAULTS["d_ff"])
    ss.update({k: kept[k] for k in SEEDED_SETTINGS if k in kept})
    return False


def new_repeat() -> None:
    ss = st.session_state
    ss["repeat_draws"] = ss.get("repeat_draws", 0) + 1
    ss["text"] = random_repeat(int(ss.get("seed", 0)) + ss["repeat_draws"])
    on_text_change()


def sync_n_tokens() -> None:
    """A text fixes n: one row of X per token (the sidebar's n is then read-only). Emptied, it gives n back as it was
    before the text."""
    ss = st.session_state
    tokens = text_tokens(ss.get("text", ""))
    if tokens:
        ss.setdefault("n_free", ss.get("n_tokens", S.DEFAULTS["n_tokens"]))
        n = len(tokens)
    elif "n_free" in ss:
        n = ss.pop("n_free")
    else:
        return
    if ss.get("n_tokens") != n:
        ss["n_tokens"] = n
        if "preset" in ss:
            ss["preset"] = S.preset_of(ss)


def on_size_change() -> None:
    """A size changed by hand (or by a view's button, which then notes what it changed, in SIZES_FROM)."""
    st.session_state["preset"] = S.preset_of(st.session_state)
    st.session_state.pop(SIZES_FROM, None)


def apply_preset() -> None:
    name = st.session_state["preset"]
    if name in S.PRESETS:
        for key, value in S.PRESETS[name].items():
            st.session_state[key] = value
    reset_x()


def make_primes() -> None:
    st.session_state.update(primes.nearest_distinct_primes(st.session_state))
    on_size_change()


def append_word(text: str, token: str) -> None:
    """The text with the next word after it (the next-token stage's append and the cache stage's add are this one
    act, so the link is the same after either): joined directly where that still reads as one more token
    (我爱 + 你), else after a space. X's rows so far stay, edits included: they are the same tokens (the example
    text of a page with none starts X again)."""
    ss = st.session_state
    own = has_text()  # else `text` is the next-token stage's example, and X was seeded: it starts again
    if checkpoint_on():
        _append_piece(text, token, own)
        return
    n = len(mha.tokenize(text))
    ss["text"] = text + token if len(mha.tokenize(text + token)) == n + 1 else text.rstrip() + " " + token
    ss["text"], ss["text_notice"] = S.cap_text(ss["text"])
    sync_n_tokens()
    if own:
        keep_rows(config())
    else:
        reset_x()


def _append_piece(text: str, piece: str, own: bool) -> None:
    """A checkpoint's token appended: its text joined on directly (a BPE token carries its own space). Splitting the
    longer text again can join the new piece to the one before (" cat" + "s" is " cats"): then the rows are no longer
    those of the text before, so X starts again, and the page says why."""
    ss = st.session_state
    m, before = walked(), text_tokens(text)
    ss["text"], ss["text_notice"] = S.cap_text(text + piece)
    sync_n_tokens()
    after = text_tokens(ss["text"])
    if own and after[: len(before)] == before:
        keep_rows(config())
        return
    reset_x()
    if own:
        ss["notices"] = [S.Notice("notice_bpe_merged", dict(name=S.shorten(m.name), n=len(after),
                                                            last=S.shorten(after[-1] if after else "")))]


def on_text_change() -> None:
    """A new text (or kind of positions) makes a new X: edits of the old one are dropped; a text past the
    token limit is cut, and the page says so."""
    ss = st.session_state
    ss["text"], notice = S.cap_text(ss.get("text") or "")
    ss["text_notice"] = notice
    sync_n_tokens()
    reset_x()


def use_text(text: str) -> None:
    """The walk on this text from now on (a button's: the example offered where there is none)."""
    st.session_state["text"] = text
    on_text_change()


def go_to(stage: str) -> None:
    st.session_state["stage"] = stage
