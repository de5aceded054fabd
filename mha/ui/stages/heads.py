"""Stage `heads`: every head's S as small multiples, and Concat(H₁, …, H_h) with each head's block marked. With the
trained model, in parts (S.HEADS_PARTS, one at a time): where each head looks (the patterns and the roles they earn),
heads knocked out, what each writes, its circuits (mha/ui/heads/), and training with the heads forming."""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import token_ticks

from .. import exports, heads, models, session, training, x_edits, x_source
from .. import settings as S
from ..chart import chart
from ..heads import circuits, hub_box, knock, real, s_maps, writes
from ..inputs import number
from ..prose import equation, header, markdown_table, part_control
from ..strings import md_escape
from ..view import View, concat_args

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("concat",)]


def source() -> exports.Source | None:
    """With a checkpoint's heads shown: the checkpoint, for the files' record and names. Else None (the walk's)."""
    return real.source() if models.chosen() else None


def download(cfg, x, w) -> exports.Part | None:
    """With the trained model's heads knocked out on the knock-out part (audit #14): the layer's attention as the walk
    holds it, the last layer's patterns with every head (S_all) and without the knocked ones (S_knocked), and the
    held-out table (accuracy and loss with every head, without the knocked ones, at chance), `knock` in the record
    and the name. Else None: the walk's trace is the view."""
    ss = st.session_state
    if models.chosen():  # a checkpoint's heads: what its view shows
        return real.download()
    chosen = list(ss.get("knock") or [])
    if not (models.trained_on() and ss.get("heads_part") == "knock" and chosen):
        return None
    m, run = models.shipped(), x_source.model_run(tuple(x_source.text_tokens(ss["text"]))).trace
    knocked = heads.pairs(chosen)
    after, last = heads.knocked_trace(m, tuple(int(i) for i in run.ids), knocked), len(run.layers) - 1
    every, without = heads.score(m, ()), heads.score(m, knocked)
    table = {"accuracy": np.array([every.accuracy, without.accuracy, 1 / len(m.vocab)]),
             "loss": np.array([every.loss, without.loss, np.log(len(m.vocab))])}
    arrays = {**exports.arrays(x, w), "S_all": run.layers[last].attn.probs, "S_knocked": after.layers[last].attn.probs,
              **table}
    labels = {"S_all": ("query", "key"), "S_knocked": ("query", "key"), "accuracy": ("row", "row"),
              "loss": ("row", "row")}
    meta = {"knock": chosen, "table_rows": ["every head", "without " + ", ".join(chosen), "chance"],
            "patterns_layer": last + 1}
    return exports.Part(arrays, labels, meta, suffix="-knock" + "-".join(chosen))


def render(v: View) -> None:
    t = v.t
    header(t, "heads", v.look)
    if models.chosen():  # a real model's heads
        hub_box.say()
        real.render(v)
        return
    if not v.run:
        patterns(v)
        box = st.container(horizontal=True, vertical_alignment="center")
        box.caption(t("heads_offer"))
        box.button(t("heads_offer_button"), key="heads_trained", on_click=use_trained)
        offer_real(t)
        return
    part = part_control(t, "heads")
    dict(patterns=patterns, knock=knock.render, writes=writes.render, circuits=circuits.render,
         timeline=timeline)[part](v)
    if part == "patterns":
        offer_real(t)


def offer_real(t) -> None:
    """The same roles looked for in a real model's heads: one the server offers (MHA_MODELS), or the reader's own."""
    st.caption(t("real_offer"))
    real.picker(t)
    real.uploader(t)
    hub_box.render(t)


def use_trained() -> None:
    """The offer under the seeded heads: the trained model, as the sidebar's model switch makes it."""
    st.session_state["model"] = "trained"
    session.on_model_change()


def patterns(v: View) -> None:
    """Every head's S and Concat(H); with the trained model, the roles its heads earn on this sequence."""
    t, tr, cfg = v.t, v.trace, v.cfg
    n, h, dv = cfg.n_tokens, cfg.n_heads, cfg.d_v
    equation(v.look, (rf"\operatorname{{Concat}}({concat_args(h).tex}):",
                      rf"{h}\times({n}\times {dv}) \to {n}\times {h * dv}"))
    st.markdown(f"**{t('heads_s')}**")
    s_maps(v, tr, "heads_s", first=3, layer=v.run.layer + 1 if v.run else None)  # under the parts and this title:
    # about three rows of controls; a model's heads named layer.head, as its other parts name them (audit 12-07 #12)
    concat = F.Mat(tr.concat, f"Concat({concat_args(h).html})", row_label=t("token"), col_label=t("cols_of"))
    labels = [t("head_word", h=i + 1) for i in range(h)]
    st.markdown(f"**{t('heads_concat', heads=concat_args(h).tex)}**")  # H₁, H₂ at two heads, not H₁,…,H_h
    fig = F.grid_figure([concat], text=v.text, words=v.words, look=v.named, block_cols=dv, block_names=labels)
    chart(token_ticks(fig, v.tokens, ("yaxis",), v.look), key="heads_concat")  # its rows named as S's are
    if v.run:
        st.markdown(roles(v))


def role(t, prev: float, induction: float, bars: tuple[float, float]) -> str:
    """The name a head earns on this sequence, from its two scores and the bars they must reach (mha.role_bars)."""
    named = [k for k, score, bar in (("previous", prev, bars[0]), ("induction", induction, bars[1])) if score >= bar]
    return t("role_both") if len(named) == 2 else t(f"role_{named[0]}") if named else t("role_none")


def role_bars(ids: np.ndarray) -> tuple[float, float]:
    """The bars a head's scores must reach on this sequence: clear of what the untrained model (the first snapshot,
    step 0) scores on it."""
    untrained = mha.model_forward(ids, models.shipped().snapshots[0][2])
    return mha.role_bars([mha.head_roles(layer.attn.probs, ids) for layer in untrained.layers])


def roles(v: View, trace: mha.ModelTrace | None = None) -> str:
    """Every head of every layer of the trained model (or of `trace`, a snapshot's run), scored on the current
    sequence, as Markdown (a table, after its title and words for the page's own run); the chosen layer's S maps
    show the patterns."""
    t, run = v.t, v.run
    bars = role_bars(run.trace.ids)
    lead = ""
    if trace is None:
        trace = run.trace
        prev_bar, ind_bar = f"{bars[0]:.2f}", f"{bars[1]:.2f}"  # one number said once (audit 2026-12-04 #12)
        said_bars = t("roles_bars_same", bar=prev_bar) if prev_bar == ind_bar else t("roles_bars", prev_bar=prev_bar,
                                                                                   ind_bar=ind_bar)
        words = t("roles_text", bars=said_bars, floor=f"{mha.analysis.ROLE_FLOOR:.2f}",
                  margin=mha.analysis.ROLE_MARGIN)
        lead = f"**{t('roles_title')}**\n\n:gray[:small[{words}]]\n\n"  # one element with the table
    rows = []
    for layer, layer_trace in enumerate(trace.layers):
        prev, induction = mha.head_roles(layer_trace.attn.probs, trace.ids)
        for head in range(len(prev)):
            ind = t("roles_no_repeat") if np.isnan(induction[head]) else f"{induction[head]:.2f}"
            name_ = role(t, prev[head], 0.0 if np.isnan(induction[head]) else induction[head], bars)
            mark = "**" if layer == run.layer else ""
            rows.append((f"{mark}{layer + 1}{mark}", head + 1, f"{prev[head]:.2f}", ind, name_))
    return lead + markdown_table([t("roles_layer"), t("roles_head"), t("roles_prev"), t("roles_induction"),
                                  t("roles_role")], rows)


def timeline(v: View) -> None:
    """Training, scrubbed: the loss at each shipped snapshot, and the chosen layer's heads at the chosen one
    on this sequence (their patterns and scores), so the induction head can be watched forming."""
    t, run, m = v.t, v.run, models.shipped()
    snaps = m.snapshots
    steps = [step for step, *_ in snaps]
    words = t("timeline_text", count=len(snaps), steps=steps[-1])
    st.markdown(f"**{t('timeline_title')}**\n\n:gray[:small[{words}]]")  # one element
    step = st.select_slider(t("timeline_step"), steps, value=steps[-1], key="snapshot")
    k = steps.index(step)
    chart(F.loss_figure(steps, [loss for _, loss, *_ in snaps], k, x_title=t("timeline_x"),
                        y_title=t("timeline_y"), look=v.look), key="timeline_loss")
    whole, knocked, induction = heads.timeline(m)
    last = m.weights.n_layers
    series = ((t("timeline_acc"), whole), (t("timeline_acc_knocked", layer=last), knocked),
              (t("timeline_induction", layer=last), induction))
    chart(F.series_figure(steps, series, k, x_title=t("timeline_x"), y_title=t("timeline_y_acc"), look=v.look),
          key="timeline_knock")
    trace = mha.model_forward(run.trace.ids, snaps[k][2])
    acc, without = round(100 * whole[k]), round(100 * knocked[k])  # the gap of the percentages shown (audit #12)
    st.markdown(t("timeline_knock_at", step=step, acc=f"{acc}%", without=f"{without}%", gap=f"{acc - without}",
                  ind=f"{induction[k]:.2f}", layer=last, count=heads.PROBE) + "\n\n"
                + t("timeline_at", step=step, layer=run.layer + 1) + "\n\n" + roles(v, trace))  # one element
    s_maps(v, trace.layers[run.layer].attn, "timeline_s", layer=run.layer + 1)
    train_again(v)


TRAINER = "_trainer"  # session key: this page's own id for the trainer (training.start), made once


def train_again(v: View) -> None:
    """Retrain the model with another seed here (one run at a time per process, in the trainer's own thread, with
    a rest between runs; kept for every session), then walk it like the shipped one."""
    t, ss = v.t, st.session_state
    st.markdown(f"**{t('retrain_title')}**\n\n:gray[:small[{t('retrain_text', steps=training.STEPS)}]]")
    owner = ss.setdefault(TRAINER, training.new_owner())
    left, right = st.columns([1, 2])
    seed = number(left, t, "retrain_seed", *S.RETRAIN_SEEDS, default=1)
    if right.button(t("retrain_button"), key="retrain"):
        answer, wait = training.start(int(seed), owner, models.shipped_meta())
        if answer == "kept":
            _show_retrained(int(seed))
        elif answer == "busy":
            st.warning(t("retrain_busy", s=f"{wait:.0f}"))
        elif answer == "resting":
            st.warning(t("retrain_resting", s=f"{wait:.0f}"))
    if training.job(owner) is not None:
        _progress(t, owner)
    if ss.get("train_seed") is not None:
        meta = models.shipped().meta
        best = lambda key, layer: max(meta[key][layer])
        st.info(t("retrain_showing", seed=ss["train_seed"], acc=f"{meta['accuracy']:.3f}", count=training.N_EVAL,
                  prev=f"{best('previous_token', 0):.2f}", ind=f"{best('induction', 1):.2f}"))
        st.button(t("retrain_back"), key="retrain_back", on_click=back_to_shipped)


@st.fragment(run_every=1.0)
def _progress(t, owner: str) -> None:
    """This page's run, as it goes: redrawn each second on its own; when it ends, the page shows its model (or says
    what went wrong). A click meanwhile reruns the page and leaves the run as it is."""
    job = training.job(owner)
    if job is None:
        return
    if not job.done.is_set():
        st.progress(min(job.fraction, 1.0), text=t("retrain_running", seed=job.seed))
        return
    ended = training.collect(owner)
    if ended is not None and ended.result is not None:
        _show_retrained(ended.seed)
    elif ended is not None:
        st.error(t("retrain_failed", seed=ended.seed, error=md_escape(ended.error)))


def _show_retrained(seed: int) -> None:
    st.session_state["train_seed"] = seed
    x_edits.reset_x()
    st.rerun()


def back_to_shipped() -> None:
    st.session_state.pop("train_seed", None)
    x_edits.reset_x()
