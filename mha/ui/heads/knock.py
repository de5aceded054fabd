"""The knock-out part: heads of the trained model knocked out (their outputs zeroed before W_O, `knock` in the
link), and what changes: the held-out accuracy and loss, the next letter after the page's sequence, and which of the
sequence's predictions change."""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.train import HELD_OUT, HELD_OUT_SEED

from .. import models
from .. import settings as S
from ..prose import markdown_table
from ..view import View
from . import knocked_trace, label, pairs, s_maps, score


def render(v: View) -> None:
    t, m = v.t, models.shipped()
    chosen = st.pills(t("knock_pick"), S.KNOCK_NAMES, selection_mode="multi", key="knock",
                      persist_state="session",
                      format_func=lambda name: label(t, m, name))
    knocked = pairs(chosen)
    run = v.run.trace
    after = knocked_trace(m, tuple(int(i) for i in run.ids), knocked)
    intro = [t("knock_intro"), t("knock_set", count=HELD_OUT, seed=HELD_OUT_SEED)]
    parts = [_scores(t, m, chosen, knocked), _next(t, m, run, after, chosen), _sequence(t, m, run, after, chosen)]
    last = len(run.layers) - 1
    below = any(layer < last for layer, _ in knocked)  # a head below the last layer: the last layer's patterns move
    if below:
        parts.append(_composed(t, run, after, chosen, last))
    # what the room reads first on a projector is the held-out table under the heads picked: the words that
    # introduce it come after what it measured
    parts = [*parts, *intro] if v.look == F.PRESENT else [*intro, *parts]
    st.markdown("\n\n".join(p for p in parts if p))  # one element
    if below:
        s_maps(v, after.layers[last].attn, "knock_s", before=run.layers[last].attn, layer=last + 1)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _names(t, chosen) -> str:
    return t("list_sep").join(chosen)


def _scores(t, m, chosen, knocked) -> str:
    """The held-out table (every head, the knocked set, chance) and what it says, at the size measured."""
    whole = score(m, ())
    chance = 1 / len(m.vocab)
    rows = [(t("knock_row_all"), pct(whole.accuracy), f"{whole.loss:.3f}")]
    if not knocked:
        return t("knock_none") + "\n\n" + markdown_table([" ", t("knock_col_acc"), t("knock_col_loss")], rows)
    gone = score(m, knocked)
    rows.append((t("knock_row_without", names=_names(t, chosen)), pct(gone.accuracy), f"{gone.loss:.3f}"))
    rows.append((t("knock_row_chance", v=len(m.vocab)), pct(chance), f"{np.log(len(m.vocab)):.3f}"))
    drop = whole.accuracy - gone.accuracy
    if drop >= 0.25:
        verdict = "knock_needs_chance" if gone.accuracy <= 2 * chance else "knock_needs"
    else:
        verdict = "knock_leans" if drop >= 0.1 else "knock_barely"
    them = t("knock_them_one" if len(chosen) == 1 else "knock_them_many")
    words = t(verdict, names=_names(t, chosen), them=them, before=pct(whole.accuracy), after=pct(gone.accuracy),
              drop=f"{100 * drop:.1f}", chance=pct(chance))
    return markdown_table([" ", t("knock_col_acc"), t("knock_col_loss")], rows) + "\n\n" + words


def _next(t, m, run: mha.ModelTrace, after: mha.ModelTrace, chosen) -> str:
    """The letter predicted after the whole sequence, with every head and with the heads knocked out."""
    p0, p1 = run.probs[-1], after.probs[-1]
    a, b = int(np.argmax(p0)), int(np.argmax(p1))
    if not chosen:
        return t("knock_next_all", letter=m.vocab[a], p=f"{p0[a]:.2f}")
    return t("knock_next", letter=m.vocab[a], p=f"{p0[a]:.2f}", names=_names(t, chosen), after=m.vocab[b],
             q=f"{p1[b]:.2f}")


def _composed(t, run: mha.ModelTrace, after: mha.ModelTrace, chosen, last: int) -> str:
    """The last layer's heads' induction scores on the sequence, with every head and without the knocked ones: a
    lower head's output is part of what their queries and keys read."""
    before = mha.head_roles(run.layers[last].attn.probs, run.ids)[1]
    now = mha.head_roles(after.layers[last].attn.probs, run.ids)[1]
    if np.isnan(before).all():
        return f"**{t('knock_composed_title', layer=last + 1)}** · {t('knock_composed_no_repeat')}"
    scores = t("list_sep").join(t("knock_composed_head", name=f"{last + 1}.{h + 1}", before=f"{a:.2f}",
                                  after=f"{b:.2f}") for h, (a, b) in enumerate(zip(before, now)))
    words = t("knock_composed", names=_names(t, chosen), layer=last + 1, scores=scores)
    return f"**{t('knock_composed_title', layer=last + 1)}** · {words}"


def _sequence(t, m, run: mha.ModelTrace, after: mha.ModelTrace, chosen) -> str:
    """The sequence, one column per position: the letter, the letter that comes next, the prediction with every
    head and (with heads knocked out) without them, each changed prediction in bold."""
    ids = run.ids
    n = len(ids)
    nxt = [m.vocab[int(i)] for i in ids[1:]] + ["·"]
    before = [m.vocab[int(i)] for i in np.argmax(run.logits, -1)]
    rows = [(t("knock_seq_letter"), *(m.vocab[int(i)] for i in ids)), (t("knock_seq_next"), *nxt),
            (t("knock_seq_all"), *before)]
    changed = 0
    if chosen:
        cells = []
        for i, letter in enumerate(m.vocab[int(j)] for j in np.argmax(after.logits, -1)):
            cells.append(f"**{letter}**" if letter != before[i] else letter)
            changed += letter != before[i]
        rows.append((t("knock_seq_without"), *cells))
    head = [t("knock_seq_pos"), *(str(i + 1) for i in range(n))]
    said = t("knock_seq_changed", changed=changed, n=n) if chosen else t("knock_seq_text")
    return f"**{t('knock_seq_title')}** · {said}\n\n" + markdown_table(head, rows)
