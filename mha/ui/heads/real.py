"""A real model's heads (issue 45), on the heads stage with a checkpoint chosen (`ckpt`, checkpoints.py): every
head's pattern on the learner's text in the model's own tokens, every layer small (thumbnails), then one layer in full
(`ckpt_layer`); each head's previous-token and induction score on the probe (random tokens, repeated), every layer at
once; and heads knocked out (`ckpt_knock`), scored on the probe's second half. The checkpoint picker is here too, for
the tokens stage."""

from dataclasses import replace

import numpy as np
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

import mha
from mha import figures as F
from mha.analysis import ROLE_FLOOR
from mha.figures.thumbs import thumbs_figure

from .. import checkpoints, exports, models, session, uploads, x_source
from .. import settings as S
from ..chart import chart
from ..models import OWN, choices, shown_layer, tokens_of
from ..prose import later, markdown_table
from ..strings import Text, md_escape
from ..view import View, first_screen, name
from ..walk import NUMBERS
from . import s_maps

BEST = 3  # induction heads (a score of ROLE_FLOOR or more) the knock-out part offers to knock out in one click, at most


UPLOAD_ERROR = "ckpt_upload_error"  # session key: why the last upload could not be read, said once under the box


def said_name(t: Text, name: str) -> str:
    """A checkpoint as the page names it (Markdown): its folder's name, or "your upload"."""
    return t("real_own") if name == checkpoints.UPLOAD else md_escape(name)


def picker(t: Text) -> str:
    """The checkpoints this server offers and this tab's upload, and none (the first), when there is one to pick;
    the name chosen, or ""."""
    ss = st.session_state
    if ss.get("ckpt") not in choices():
        ss["ckpt"] = ""
    if len(choices()) > 1:
        st.selectbox(t("real_pick"), choices(), key="ckpt", help=t("real_pick_help", variable=md_escape(
            checkpoints.FOLDERS)), format_func=lambda name: t("real_own_plain") if name == checkpoints.UPLOAD
            else name or t("real_none"))
    return ss["ckpt"]


def uploader(t: Text) -> None:
    """A checkpoint of the learner's own, in files under the server's upload limit, for this tab only."""
    st.file_uploader(t("real_upload", mb=checkpoints.UPLOAD_MB), type=["json", "safetensors", "txt"],
                     accept_multiple_files=True, key="ckpt_files", max_upload_size=checkpoints.UPLOAD_MB,
                     on_change=_uploaded, help=t("real_upload_help", mb=checkpoints.UPLOAD_MB, files=md_escape(
                         t("list_sep").join(checkpoints.UPLOAD_FILES))))
    if error := st.session_state.pop(UPLOAD_ERROR, None):
        st.error(error)


def _uploaded() -> None:
    """The files in the box read as a checkpoint, shown at once; what is wrong said under the box; none: no upload."""
    ss = st.session_state
    files = ss.get("ckpt_files") or []
    t = Text(ss["lang"])
    if not files:
        ss.pop(OWN, None)
        return
    if not all(isinstance(f, UploadedFile) for f in files):  # files read before and let go (red team 2026-12-07 T7)
        ss[UPLOAD_ERROR] = t("real_upload_again")
        return
    try:
        ss[OWN] = checkpoints.read_upload([(f.name, f.getvalue()) for f in files])
        ss["ckpt"] = checkpoints.UPLOAD
    except checkpoints.TooLarge as e:
        ss[UPLOAD_ERROR] = too_large(t, e, t("real_own"))
    except mha.InputError as e:  # its files stay in the box: the one missing may be added to them
        ss[UPLOAD_ERROR] = t("real_error", name=t("real_own"), error=failure(t, e))
        return
    uploads.release([f.file_id for f in files])  # read as a checkpoint, or too large for this server: let go


def failure(t: Text, e: mha.InputError) -> str:
    """What is wrong with a checkpoint, in the page's language where the core says which thing it is (Markdown, the
    file's values escaped); the core's own words otherwise."""
    if getattr(e, "key", ""):
        return t(f"ckpt_err_{e.key}", **{k: md_escape(v) if isinstance(v, str) else v for k, v in e.fields.items()})
    return md_escape(str(e))


def too_large(t: Text, e: "checkpoints.TooLarge", name: str) -> str:
    """That a checkpoint does not fit the server's budget, how much it needs, and which offered ones fit."""
    fits = t("real_fits", names=md_escape(t("list_sep").join(e.fits))) if e.fits else t("real_fits_none")
    return t.sentences(t("real_too_large", name=name, need=checkpoints.megabytes(e.nbytes),
                         allowed=checkpoints.megabytes(e.allowed), variable=md_escape(checkpoints.BUDGET)), fits)


def page_tokens(m: mha.GPT2) -> tuple[list[int], int, tuple[str, ...]]:
    """The page's text (or the language's example) in m's tokens: the ids, how many the whole text has, their
    labels."""
    ss = st.session_state
    text = ss["text"] if x_source.has_text() else x_source.example_text(ss["lang"])
    ids, total = tokens_of(m, text)
    return ids, total, checkpoints.labels(m, ids)


def knocked_names(m: mha.GPT2) -> tuple[list[str], list[str]]:
    """Every head's name (layer.head from 1), and those of the view's knock-out that are the model's."""
    names = [f"{a}.{b}" for a in range(1, m.weights.n_layers + 1) for b in range(1, m.n_heads + 1)]
    return names, [n for n in st.session_state.get("ckpt_knock") or [] if n in names]


def source() -> exports.Source:
    """The files' record of a checkpoint's heads: its name and the layer shown, the text in its tokens."""
    ss = st.session_state
    try:
        m = models.checkpoint(ss["ckpt"])
    except mha.InputError:  # the page says why; its files are none (download raises it again)
        return exports.Source(ss["stage"], "checkpoint", checkpoint=ss["ckpt"])
    name = "upload" if ss["ckpt"] == checkpoints.UPLOAD else m.name  # a file name holds no colon
    return exports.Source(ss["stage"], "checkpoint", shown_layer(m), tokens=page_tokens(m)[2], checkpoint=name)


def download() -> exports.Part:
    """A checkpoint's heads as its view shows them: the text's ids and the shown layer's S (one per head), each
    head's two probe scores (layers × heads), the probe's sequences, and the knock-out table (accuracy and loss with
    every head, without the knocked ones if any, at chance); its sizes as the files' config. CheckpointError (an
    InputError: the panel offers no files) if it cannot be opened, which the page says."""
    m = models.checkpoint(st.session_state["ckpt"])
    w, layer = m.weights, shown_layer(m)
    ids, _, _ = page_tokens(m)
    seqs, _, (prev, induction) = checkpoints.probe(m)
    _, chosen = knocked_names(m)
    scores = [checkpoints.knocked_score(m, ())]
    if chosen:
        scores.append(checkpoints.knocked_score(m, tuple(sorted(S.knocked_pairs(chosen)))))
    arrays = {"previous_token": prev, "induction": induction, "probe": seqs,
              "accuracy": np.array([*(s.accuracy for s in scores), 1 / w.vocab_size]),
              "loss": np.array([*(s.loss for s in scores), np.log(w.vocab_size)])}
    labels = {"previous_token": ("layer", "head"), "induction": ("layer", "head"), "probe": ("row", "token"),
              "accuracy": ("row", "row"), "loss": ("row", "row")}
    if ids:
        arrays |= {"ids": np.array(ids), f"S_layer{layer}": checkpoints.run(m, tuple(ids)).layers[layer - 1].attn.probs}
        labels |= {"ids": ("row", "token"), f"S_layer{layer}": ("query", "key")}
    config = {"n_layer": w.n_layers, "n_head": m.n_heads, "d_model": w.d_model, "vocab_size": w.vocab_size,
              "n_ctx": w.n_ctx}
    rows = ["every head", *(["without " + ", ".join(chosen)] if chosen else []), "chance"]
    meta = {"config": config, "knock": chosen, "table_rows": rows}
    return exports.Part(arrays, labels, meta, suffix="-knock" + "-".join(chosen) if chosen else "")


def opened(t: Text, name: str) -> mha.GPT2 | None:
    """Checkpoint `name`, or None after saying in the page why it could not be opened."""
    try:
        return models.checkpoint(name)
    except checkpoints.TooLarge as e:
        st.error(too_large(t, e, md_escape(name)))
    except mha.InputError as e:  # what the core found wrong
        st.error(t("real_error", name=md_escape(name), error=failure(t, e)))
    return None


def walk_it() -> None:
    """Every stage on the chosen checkpoint's layer, as the sidebar's weights control makes it."""
    st.session_state["model"] = "checkpoint"
    session.on_model_change()


def render(v: View) -> None:
    t, ss = v.t, st.session_state
    name = ss["ckpt"]
    m = opened(t, name)
    if not models.checkpoint_on():  # walking the checkpoint, the sidebar's weights control is the way back
        row = st.container(horizontal=True)
        row.button(t("real_back"), key="real_back", on_click=lambda: ss.update(ckpt=""))
        if m is not None:
            row.button(t("real_walk"), key="real_walk", on_click=walk_it, help=t("real_walk_help"))
    if m is None:
        return
    w, heads = m.weights, m.n_heads
    numbers = ss[OWN][1] if name == checkpoints.UPLOAD else checkpoints.need(name) // 8
    ids, total, labels = page_tokens(m)
    most = min(w.n_ctx, S.LIMITS["n_tokens"])
    about = t("real_title", name=f"**{said_name(t, name)}**", layers=w.n_layers, heads=heads, d=w.d_model,
              vocab=f"{w.vocab_size:,}", numbers=f"{numbers:,}", mb=checkpoints.megabytes(8 * numbers))
    about += "\n\n:gray[:small[" + t.sentences(
        t("real_text", name=said_name(t, name), n=len(ids),
          cut=t("real_cut", most=most, total=total) if total > len(ids) else ""),
        t("real_own_link") if name == checkpoints.UPLOAD else "") + "]]"
    if not later(v.look, about):  # on a projector, under the figures: the layer's patterns come first
        st.markdown(about)
    ss["ckpt_layer"] = str(shown_layer(m))  # a link's, within this model's
    if ids:
        every_layer(v, m, ids, int(ss["ckpt_layer"]))
    layer = int(st.segmented_control(t("real_layer"), [str(i) for i in range(1, w.n_layers + 1)], key="ckpt_layer",
                                     required=True, label_visibility="collapsed" if v.look == F.PRESENT else "visible"))
    if not ids:  # a text in none of the model's tokens (letters a letter-level vocabulary lacks), or the example's
        st.warning(t("real_no_tokens", name=said_name(t, name)) if x_source.has_text() else
                   t("real_no_tokens_example", name=said_name(t, name), tokens=NUMBERS["tokens"]))
    else:
        patterns(v, m, ids, labels, layer)
    try:
        scores(v, m)
        knock(v, m, name)
    except checkpoints.ProbeTooLarge as e:
        mb = checkpoints.megabytes
        st.warning(t("real_probe_too_large", name=said_name(t, name), probe=mb(e.probe), weights=mb(e.weights),
                     allowed=mb(e.allowed), variable=md_escape(checkpoints.BUDGET)))


def every_layer(v: View, m: mha.GPT2, ids: list[int], layer: int) -> None:
    """Every head of every layer on the page's tokens, small (bertviz's model view), the layer drawn in full below
    boxed."""
    t, trace = v.t, checkpoints.run(m, tuple(ids))
    maps = np.stack([block.attn.probs for block in trace.layers])
    masked = np.isneginf(np.stack([block.attn.masked for block in trace.layers]))
    names = [[name("S", f"{i + 1}.{j + 1}").html for j in range(m.n_heads)] for i in range(len(trace.layers))]
    st.markdown(f"**{t('real_every_title')}**")
    if not later(v.look, text := f":gray[:small[{t('real_every_text', layer=layer)}]]"):  # a projector: under it
        st.markdown(text)
    chart(thumbs_figure(maps, masked, names, layer_word=t("real_layer_axis"), head_word=t("real_head_axis"),
                        row_label=t("token"), col_label=t("key_pos"), look=first_screen(v.look, 2),
                        chosen=layer - 1), key="real_every")  # the first figure, under the back button and its title


def patterns(v: View, m: mha.GPT2, ids: list[int], labels: tuple[str, ...], layer: int) -> None:
    """Every head's pattern of one layer on the page's tokens."""
    trace = checkpoints.run(m, tuple(ids))
    st.markdown(f"**{v.t('real_patterns', layer=layer)}**")
    s_maps(replace(v, tokens=labels), trace.layers[layer - 1].attn, "real_s", layer=layer)


def scores(v: View, m: mha.GPT2) -> tuple[np.ndarray, np.ndarray]:
    """Every head's two scores on the probe, as two layers × heads maps, and the best of each said in words."""
    t = v.t
    seqs, _, (prev, induction) = checkpoints.probe(m)
    half = seqs.shape[1] // 2
    st.markdown(f"**{t('real_scores_title')}**\n\n:gray[:small[{t('real_scores_text', count=len(seqs), half=half)}]]")
    mats = [F.Mat(prev, t("real_scores_prev"), "probs", t("real_layer_axis"), t("real_head_axis")),
            F.Mat(induction, t("real_scores_ind"), "probs", t("real_layer_axis"), t("real_head_axis"))]
    chart(F.grid_figure(mats, text=v.text, words=v.words, look=v.look, axis_titles=True), key="real_scores")
    said, floor = [], f"{ROLE_FLOOR:.2f}"
    for kind, a in (("ind", induction), ("prev", prev)):  # every head with a score of ROLE_FLOOR or more is named
        over = named_over(a)
        if len(over) > 1:
            heads = t("list_sep").join(t("real_head_score", head=head, score=f"{score:.2f}") for head, score in over)
            said.append(t(f"real_best_{kind}_many", heads=heads, floor=floor))
        else:
            head, score = over[0] if over else named_over(a, -np.inf)[0]
            said.append(t(f"real_best_{kind}" if over else f"real_no_{kind}", head=head, score=f"{score:.2f}",
                          floor=floor))
    st.markdown(t.sentences(*said, t("real_heads_named")))
    return prev, induction


def named_over(scores: np.ndarray, floor: float = ROLE_FLOOR) -> list[tuple[str, float]]:
    """The heads (layer.head, from 1) whose score is `floor` or more, with their scores, best first (ties in order)."""
    order = np.argsort(-scores, axis=None, kind="stable")
    heads = [np.unravel_index(i, scores.shape) for i in order if scores.flat[i] >= floor]
    return [(f"{layer + 1}.{head + 1}", float(scores[layer, head])) for layer, head in heads]


def knock(v: View, m: mha.GPT2, name: str) -> None:
    """Heads knocked out, chosen by name (or the best induction heads in one click), and the probe's second half
    scored with every head, without them, and at chance."""
    t, ss, w = v.t, st.session_state, m.weights
    names, kept = knocked_names(m)
    if left := [n for n in ss.get("ckpt_knock") or [] if n not in kept]:
        st.warning(t("real_knock_left", names=md_escape(t("list_sep").join(left[:5])), name=said_name(t, name),
                     layers=w.n_layers, heads=m.n_heads))
    ss["ckpt_knock"] = kept
    st.markdown(f"**{t('real_knock_title')}**\n\n:gray[:small[{t('real_knock_text')}]]")
    _, _, (_, induction) = checkpoints.probe(m)
    if best := [head for head, _ in named_over(induction)][:BEST]:  # none: the scores' sentence says no head copies
        st.button(t("real_knock_best", heads=t("list_sep").join(best)), key="real_knock_best",
                  on_click=lambda: ss.update(ckpt_knock=best))
    chosen = st.multiselect(t("real_knock_pick"), names, key="ckpt_knock", placeholder=t("real_knock_none"))
    knocked = tuple(sorted(S.knocked_pairs(chosen)))
    every = checkpoints.knocked_score(m, ())
    rows = [(t("real_knock_every"), f"{every.accuracy:.2f}", f"{every.loss:.2f}")]
    if knocked:
        without = checkpoints.knocked_score(m, knocked)
        rows.append((t("real_knock_without", heads=t("list_sep").join(chosen)), f"{without.accuracy:.2f}",
                     f"{without.loss:.2f}"))
    chance = np.log(w.vocab_size)
    rows.append((t("real_knock_chance"), f"{1 / w.vocab_size:.2g}", f"{chance:.2f}"))
    st.markdown(markdown_table([t("real_knock_row"), t("real_knock_acc"), t("real_knock_loss")], rows))
    if every.loss > chance:  # a model that guesses worse than chance (tiny-gpt2: random weights), said (audit #11)
        st.caption(t("real_knock_worse", name=said_name(t, name), loss=f"{every.loss:.2f}", chance=f"{chance:.2f}"))
