"""The sidebar: language, the walk, sizes and seed, view options; containers for share and downloads."""

from urllib.parse import urlencode

import numpy as np
import streamlit as st

import mha

from . import checkpoints, exports, lengths, link, models, prepared, primes, room_panel, session, walk, x_source
from . import settings as S
from .inputs import number
from .stages import DOWNLOAD, SIZES_AWAY, SIZES_NOTE, SOURCE
from .strings import Text, md_escape

LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


# Widgets whose value the browser sends back as its option's label (Streamlit's radio and selectbox do), labelled
# in the page's language. The segmented controls send an index.
LABELLED = ("stage", "preset")


def _relabel() -> None:
    """The language changed. The browser still holds the radio's and the selectbox's labels in the old language, and
    sends them back with the next click: the new labels do not know them, and the stage fell back to the first (in a
    fragment's run it stayed the old label and raised). Set each again, so their new labels go to the browser."""
    ss = st.session_state
    for key in LABELLED:
        ss[key] = ss[key]


def render(t: Text):
    """Draw the settings; return the (share, downloads) panels, filled once the view is known and only while open.

    Both are folded at first: a closed panel costs a run one element, and no link is written and no files are
    registered for it."""
    ss = st.session_state
    with st.sidebar:
        st.segmented_control(t("lang"), S.LANGS, format_func=LANGUAGE_NAMES.get, key="lang", required=True,
                             on_change=_relabel)
        model = ss["model"]  # the labels' own (a format function may be called after the run)
        st.radio(t("sidebar_walk"), walk.STAGES, format_func=lambda s: walk.nav_title(t, s, model), key="stage")
        offered = models.offered_models()
        st.segmented_control(t("model"), offered, format_func=lambda m: t(f"model_{m}"), key="model",
                             required=True, on_change=session.on_model_change,
                             help=t.sentences(t("model_help"), t("model_help_checkpoint") if len(offered) > 2 else ""))
        sizes = models.fixed_sizes()
        trained = bool(sizes)  # the model's sizes: read-only
        if models.trained_on() and walk.reads_layer(ss):  # kept while hidden: the walk's other views read it
            st.segmented_control(t("layer"), list(range(1, S.TRAINED_LAYERS + 1)), key="layer", required=True,
                                 help=t("layer_help"), persist_state="session")
        elif models.checkpoint_on() and not walk.BY_ID[ss["stage"]].layer_control:  # else the stage draws it
            m = models.walked()
            ss["ckpt_layer"] = str(models.shown_layer(m))
            st.segmented_control(t("layer"), [str(i) for i in range(1, m.weights.n_layers + 1)], key="ckpt_layer",
                                 required=True, help=t("layer_help_checkpoint", name=m.name))
        st.selectbox(t("preset"), [*S.PRESETS, "custom"], format_func=lambda p: t(f"preset_{p}"), key="preset",
                     on_change=session.apply_preset, disabled=trained)
        from_text = x_source.has_text()
        for key in S.SIZES:
            number(st, t, key, 1, S.LIMITS[key], on_change=session.on_size_change,
                   disabled=trained or (key == "n_tokens" and from_text),
                   help=t("n_tokens_from_text") if key == "n_tokens" and from_text else None)
        if ss["stage"] in walk.FFN_STAGES:  # one widget fewer on every other stage's run
            number(st, t, "d_ff", 1, S.LIMITS["d_ff"], help=t("d_ff_help"), disabled=trained, persist_state="session")
        shared, distinct = _shared_lengths(t, ss["stage"]), primes.distinct_primes(ss)
        fixed = not distinct and primes.primes_but_n(ss)  # what make-primes gives when n, X's rows, is no prime
        needed = "" if trained or distinct else SIZES_NOTE.get(ss["stage"], lambda *_: "")(t, ss)
        if models.checkpoint_on():
            own = ss["ckpt"] == checkpoints.UPLOAD
            st.caption(t("checkpoint_sizes", name=t("real_own") if own else md_escape(ss["ckpt"]), **sizes))
        elif trained:
            st.caption(t("trained_sizes", **sizes))
        elif needed:  # the view needs these sizes (the lab's GQA, a composite h): why, and no primes on offer
            st.caption(needed)
        elif not distinct and any(away(t, st) for away in SIZES_AWAY):  # sizes a view's button set: said, and the
            needed = "away"  # way back
        elif fixed:  # its ✓ would contradict a shared length said below
            st.caption(shared or t("primes_but_n", n=ss["n_tokens"]))
            shared = ""
        elif not distinct:
            st.caption(t("primes_no"))
        elif not shared:
            st.caption(t("primes_yes"))
        if shared:  # which quantities share a length: said once, where the sizes are
            st.caption(shared)
        if not trained and not distinct and not fixed and not needed:
            st.button(t("primes_fix"), on_click=session.make_primes, key="make_primes", help=t("primes_fix_help"))
        number(st, t, "seed", 0, S.LIMITS["seed"], disabled=trained)
        _options(t, trained)
        room_panel.panel(t)
        panels = (st.expander(t("share"), icon=":material/link:", key="share_open", on_change="rerun"),
                  st.expander(t("sidebar_export"), icon=":material/download:", key="downloads_open",
                              on_change="rerun"))
    return panels


def _shared_lengths(t: Text, stage: str) -> str:
    """The sentence naming the quantities of this view that share a length (a text's tokens or vocabulary, or sizes
    alike), each group as "a = b = length"; empty when every length is its own."""
    groups = lengths.shared_lengths(stage, t.lang)
    st.session_state[lengths.LENGTHS_SAID] = groups  # a stage adding rows in a fragment compares with it
    if not groups:
        return ""
    said = (" = ".join([*(t(f"length_{name}") for name in names), str(length)]) for length, names in groups)
    return t("lengths_shared", groups=t("lengths_sep").join(said))


def _options(t: Text, trained: bool) -> None:
    """Whole numbers, numbers in cells, presenter mode: in a panel whose toggles are built only while it is open.

    Each element a full rerun draws costs the browser time on every interaction; these three are set once per
    session, if at all (a link carries them: integers, cells, present), so they wait in a
    closed panel and keep their values while it is closed (persist_state)."""
    panel = st.expander(t("sidebar_view"), icon=":material/tune:", key="options_open", on_change="rerun")
    if panel.open:
        panel.toggle(t("integers"), key="integers", help=t("integers_help"), on_change=session.on_size_change,
                     disabled=trained, persist_state="session")
        panel.toggle(t("cell_values"), key="cell_values", help=t("cell_values_help"), persist_state="session")
        panel.toggle(t("present"), key="present", help=t("present_help"), persist_state="session")


def share(panel, t: Text, params: dict[str, str]) -> None:
    """The link of this view, with Streamlit's copy button, in the share panel while it is open."""
    if panel.open:
        panel.code(f"{st.context.url or ''}?{urlencode(params)}", language=None, wrap_lines=True)
        notes = [link.left_out(t, k, n) for k, n in st.session_state.get("link_left_out", {}).items()]
        panel.caption(t.sentences(t("share_help"), *notes))


DOWNLOADS = (("npz", ".npz", ".npz", "application/octet-stream"), ("json", ".json", ".json", "application/json"),
             ("csv", ".csv (.zip)", "-csv.zip", "application/zip"))


def downloads(panel, t: Text, cfg: mha.AttentionConfig, x, w: mha.Weights | None) -> None:
    """The view's every matrix, in the downloads panel while it is open: files written before the click.

    Not Streamlit's deferred downloads (a callable run on click): each rerun gives the callable a new id
    and any session's rerun may drop the old one, or the file it wrote, before the browser fetches it
    ("Deferred file … not found"). Files written here stay registered to this session until its next
    run, and a click does not rerun (on_click="ignore"). A small view's files are written as the panel
    opens, a large view's when asked for; either way once for the whole process (prepared.prepare),
    and kept while the process's budget for them allows (prepared.BUDGET)."""
    if not panel.open:
        prepared.show(None)
        return
    with panel:
        prepared.show(_files(t, cfg, x, w))


def _files(t: Text, cfg: mha.AttentionConfig, x, w: mha.Weights | None):
    """Draw the panel's buttons; return the view whose files they registered (None: none)."""
    source = _source()
    try:
        part = stage_part(source.stage, cfg, x, w) if w is not None else None
    except mha.InputError:  # the page says why X cannot be computed
        st.caption(t("export_no_trace"))
        return None
    values = exports.export_size(cfg, part)
    if values > exports.MAX_VALUES:
        st.caption(t("export_too_big", values=values, limit=exports.MAX_VALUES))
        return None
    if w is None:  # the page asks before drawing this view (budget.asks)
        st.caption(t("export_after_ask"))
        return None
    view = exports.view_key(x, w, cfg, part, source)
    made, gone = prepared.ready(view), prepared.let_go()
    if made is None:
        if gone and values > exports.READY_MAX:  # a small view's files are written again at once, unasked
            st.caption(t("export_let_go"))
        ask = st.empty()
        if values > exports.READY_MAX and not ask.button(t("export_prepare", values=values), key="export_prepare",
                                                         icon=":material/description:"):
            return None
        try:
            with ask, st.spinner(t("export_preparing", values=values)):
                made = prepared.prepare(view, x, w, cfg, part, source)
        except mha.InputError:  # the page says why X cannot be computed
            ask.caption(t("export_no_trace"))
            return None
        ask.empty()
    name = exports.stem(cfg, source) + (part.suffix if part else "")
    for kind, label, ending, mime in DOWNLOADS:
        st.download_button(label, made[kind], f"{name}{ending}", mime, key=f"download_{kind}",
                           icon=":material/download:", on_click="ignore")
    return view


def _source() -> exports.Source:
    """What this view's numbers come from, for its files: the stage, the model (and layer), the text's tokens."""
    ss = st.session_state
    if (shown := SOURCE.get(ss["stage"], lambda: None)()) is not None:  # a stage showing other weights than the walk's
        return shown
    tokens = tuple(x_source.text_tokens(ss.get("text", "")))
    x, base = ss.get("x_base"), x_source.base_x(session.config())
    edited = int(np.count_nonzero(x != base)) if x is not None and x.shape == base.shape else 0
    if models.trained_on():
        return exports.Source(ss["stage"], "trained", int(ss["layer"]), ss.get("train_seed"), tokens, edited=edited)
    if models.checkpoint_on():
        name = "upload" if ss["ckpt"] == checkpoints.UPLOAD else ss["ckpt"]  # a file name holds no colon
        return exports.Source(ss["stage"], "checkpoint", models.shown_layer(models.walked()), tokens=tokens,
                              checkpoint=name, edited=edited)
    return exports.Source(ss["stage"], "seeded", tokens=tokens, edited=edited)


def stage_part(stage: str, cfg: mha.AttentionConfig, x, w: mha.Weights) -> exports.Part | None:
    """What a stage shows beyond the attention's trace, for its files, as the stage computes it (its module's
    download; None: the attention's trace is the view)."""
    return DOWNLOAD[stage](cfg, x, w) if stage in DOWNLOAD else None
