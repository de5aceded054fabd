"""What each head writes: a head's direct contribution to the logits (mha.head_logits), per position and per letter,
drawn as a matrix; and at one position, every part of the logit of the predicted letter (the embedding, the
positions, each head, each FFN, the biases), added up against the forward's logit."""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.base import box
from mha.figures.ticks import token_ticks

from .. import models
from .. import settings as S
from ..chart import chart
from ..prose import fmt, markdown_table
from ..view import View, first_screen
from . import earlier_next, label, role_of

FIRST_ROWS = 5  # rows of controls above the figure on a projector: the part, the head (labelled) beside the position
TOLERANCE = 1e-9  # what the parts' sum may differ from the forward's logit by: rounding, added in another order


def default_head(m) -> str:
    """The head the part opens on: the first induction head, else the last head."""
    return next((n for n in S.KNOCK_NAMES if role_of(m, n) == "induction"), S.KNOCK_NAMES[-1])


def render(v: View) -> None:
    t, ss, m = v.t, st.session_state, models.shipped()
    run = v.run.trace
    n = len(run.ids)
    if ss.get("writes_head") not in S.KNOCK_NAMES:
        ss["writes_head"] = default_head(m)
    if not 1 <= int(ss.get("writes_pos", n)) <= n:
        ss["writes_pos"] = n
    row = st if v.look.narrow else st.container(horizontal=True, vertical_alignment="bottom")  # a phone: stacked
    name = row.segmented_control(t("writes_head"), S.KNOCK_NAMES, key="writes_head", required=True,
                                 persist_state="session",
                                 format_func=lambda x: label(t, m, x))
    pos = row.select_slider(t("writes_pos"), list(range(1, n + 1)), value=int(ss.get("writes_pos", n)),
                            key="writes_pos", persist_state="session")
    (layer, head), = S.knocked_pairs([name])
    parts = mha.logit_parts(run, m.weights)
    mine = parts[f"head {name}"]  # (n, vocab)
    title = t("writes_figure", name=name)
    fig = F.grid_figure([F.Mat(mine, title, row_label=t("token"), col_label=t("writes_letter"))], text=v.text,
                        words=v.words, look=first_screen(v.named, FIRST_ROWS))
    targets = earlier_next(run.ids)  # the letter after each row's earlier copy: boxed, what an induction head copies
    fig.to_dict()["layout"].setdefault("shapes", []).extend(
        box("x", "y", b + 1, b + 1, i + 1, i + 1, width=2, dash="dot") for i, b in enumerate(targets) if b is not None)
    chart(token_ticks(token_ticks(fig, v.tokens, ("yaxis",), v.look), tuple(m.vocab), ("xaxis",), v.look),
          key="writes_figure")
    whole = t("writes_whole", names=t("list_sep").join(ss["knock"])) + "\n\n" if ss.get("knock") else ""
    st.markdown(f"{whole}{_words(t, targets, mine, name)}\n\n{_sum(t, m, run, parts, pos - 1)}")  # one element


def _words(t, targets: list[int | None], mine: np.ndarray, name: str) -> str:
    """What the matrix shows, and how often the head's largest push is the letter after an earlier copy."""
    rows = [i for i, target in enumerate(targets) if target is not None]
    hits = sum(int(np.argmax(mine[i]) == targets[i]) for i in rows)
    read = t("writes_text", name=name)
    if not rows:
        return t.sentences(read, t("writes_no_repeat"))
    return t.sentences(read, t("writes_copies", name=name, hits=hits, rows=len(rows)))


def _sum(t, m, run: mha.ModelTrace, parts: dict[str, np.ndarray], i: int) -> str:
    """At position i, the logit of the letter predicted there split into its parts, and their sum checked."""
    top = int(np.argmax(run.logits[i]))
    letter = m.vocab[top]
    rows = [(_part_name(t, key), fmt(float(part[i, top]))) for key, part in parts.items()]
    total = float(sum(part[i, top] for part in parts.values()))
    logit = float(run.logits[i, top])
    ok = "✓" if abs(total - logit) <= TOLERANCE * max(1.0, abs(logit)) else "✗"
    rows += [(f"**{t('writes_total')}**", f"**{fmt(total)}**"), (t("writes_logit"), f"{fmt(logit)} {ok}")]
    head = t("writes_sum_title", pos=i + 1, token=m.vocab[int(run.ids[i])], letter=letter)
    return f"**{head}** · {t('writes_sum_text')}\n\n" + markdown_table([t("writes_col_part"), t("writes_col_logit",
                                                                                             letter=letter)], rows)


def _part_name(t, key: str) -> str:
    if key.startswith("head "):
        return t("writes_part_head", name=key[5:])
    if key.startswith("ffn "):
        return t("writes_part_ffn", layer=key[4:])
    return t(f"writes_part_{key}")
