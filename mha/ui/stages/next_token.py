"""Stage `next_token` (the coda): the block's output through the final layer norm, logits = LN_f(Y)·Eᵀ, the next token.

On the walk's X (edits included): with a text, its tokens; with none, the walk's n rows, scored against the
vocabulary of the tokens stage's example. The chosen token can be appended to the text, so n grows by one on every
stage: the same act as adding a token on the KV-cache stage.
"""

from dataclasses import replace

import streamlit as st

import mha
from mha import figures as F
from mha.figures.text import short

from .. import exports, next_word, session, x_source
from .. import settings as S
from ..chart import chart
from ..inputs import number
from ..product import product_view
from ..prose import display, header, later
from ..strings import Text
from ..view import Name, Operand, View
from ..walk import NUMBERS
from .tokens import coda_shown

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [mha.logits_from, mha.model_forward]

CHOSEN_MOST = 24  # glyphs of the chosen token its sentence writes
E_T = Name("E<sup>T</sup>", r"E^{\mathrm T}", "Eᵀ")
LOGITS = Name("logits", r"\mathrm{logits}", "logits")
FINAL = Name("LN<sub>f</sub>(Y)", r"\mathrm{LN}_f(Y)", "LN_f(Y)")


def render(v: View) -> None:
    t, ss = v.t, st.session_state
    header(t, "next_token", v.look)
    own = x_source.has_text()
    text = ss["text"] if own else x_source.example_text(t.lang)  # without a text: the example's words, the vocabulary
    cfg = replace(v.cfg, n_tokens=len(x_source.text_tokens(text)))
    tokens, vocab, ids, mw = x_source.coda(cfg, text, ss.get("positions", S.DEFAULTS["positions"]))
    if not own:  # the walk's X, its n rows as the sidebar says, scored against the example's vocabulary
        tokens = []
        if not later(v.look, said := t.md("next_example", example=text, n=len(v.x), vocab=len(vocab))):
            st.info(said)  # a projector: under the figures, where the presenter's own words go
    n, d, size = len(v.x), cfg.d_model, len(vocab)
    # the trained model's whole run on the text, or the one-block model's on the walk's X (edits included)
    top = v.run.trace if v.run else mha.logits_from(v.x, mw)
    final, logits = top.final, top.logits
    tex = display(v.look, (r"\mathrm{logits} = \mathrm{LN}_f(Y)\,E^{\mathrm T}:",
                           rf"({n}\times {d})\cdot({d}\times {size}) \to {n}\times {size}"),
                  r"p = \operatorname{softmax}(\mathrm{logits}_{" + str(n) + r"} / T)")
    note = t.sentences(t("next_tied", vocab=size), t("next_order"))  # E twice; GPT-2's order of the blocks
    formulas = f"$$\n{tex}\n$$\n\n:gray[:small[{note}]]"  # the formulas and their note, one element
    if not later(v.look, formulas):  # a projector: under the figures
        st.markdown(formulas)
    product_view("next_logits", replace(v, tokens=tuple(tokens)), Operand(final, FINAL, t("token"), t("feature")),
                 Operand(mw.wte.T, E_T, t("feature"), t("token_id")),
                 Operand(logits, LOGITS, t("token"), t("token_id")),
                 "logits = LN<sub>f</sub>(Y) · E<sup>T</sup>", cols=vocab, first=0)
    row = st.container(horizontal=True, vertical_alignment="bottom")  # one block, not three (st.columns)
    temperature = number(row, t, "temperature", *S.TEMPERATURE, step=0.1, persist_state="session",
                         help=t("temperature_help"))
    choice = row.segmented_control(t("choice"), S.CHOICES, format_func=lambda c: t(f"choice_{c}"), key="choice",
                                   required=True, persist_state="session")
    chosen, probs = next_word.pick(logits[-1], temperature, choice, cfg.seed, n)
    chart(F.probs_figure(probs, vocab, chosen, t("next_probs_title", i=n), look=v.look), key="next_probs")
    chosen_words = t.md("next_chosen_" + choice, token=short(vocab[chosen], CHOSEN_MOST), id=chosen,
                        p=f"{probs[chosen]:.4f}")  # a long token whole in the chart's hover, not in a sentence
    weights = t(f"next_{v.run.kind}") if v.run else t("next_untrained")
    st.markdown(f"{chosen_words}\n\n:gray[:small[{weights}]]")  # the choice and what the weights make of it
    if not own:  # the bars score seeded rows, not words: nothing to append a word to, but the example to take
        st.button(t("next_use_example"), key="next_use_example", type="primary", on_click=session.use_text,
                  args=(text,))
    else:
        _append(t, vocab, chosen, n, text)
    if not v.run and ss.get("block_ln", S.DEFAULTS["block_ln"]) != "pre":  # audit #11: said, and a way to see it
        row = st.container(horizontal=True, vertical_alignment="center")
        row.caption(t("next_order_chosen", block=NUMBERS["block"]))
        row.button(t("next_order_see", block=NUMBERS["block"]), key="next_order_see", on_click=_see_pre_ln)


def _append(t: Text, vocab: list[str], chosen: int, n: int, text: str) -> None:
    """The button that appends the chosen token to the text, or why it cannot."""
    most = next_word.context()  # the trained model's context, else the demo's limit
    full, piece = n >= most, next_word.appended(vocab, chosen)
    # the same act as adding a token on the KV-cache stage: the link is the same after either
    st.button(t("append_token"), key="append_token", type="primary", on_click=session.append_word,
              args=(text, piece), disabled=full or piece is None)
    if full:
        st.caption(t("next_full", most=most))
    elif piece is None:  # part of a character's bytes: a text cannot hold it alone
        st.caption(t.md("next_partial", token=vocab[chosen]))


def _see_pre_ln() -> None:
    """The block stage in GPT-2's order (pre-LN), on its first part: the order this stage's model runs."""
    ss = st.session_state
    ss["block_ln"], ss["block_part"] = "pre", S.BLOCK_PARTS_IN["pre"][0]
    session.go_to("block")


def download(cfg, x, w) -> exports.Part:
    """The next token's files: the walk's X (edits included) through the coda's model, or the trained run's: what
    the model reads, LN_f(Y), E (its transpose scores LN_f(Y)), the logits, and the last row's probabilities at the
    temperature shown."""
    tokens, _, mw = coda_shown(cfg)
    run = x_source.model_run(tuple(tokens))
    top = run.trace if run else mha.logits_from(x, mw)
    temperature = float(st.session_state.get("temperature", S.DEFAULTS["temperature"]))
    probs = mha.softmax(top.logits[-1] / temperature)
    return exports.Part({"X": top.x, "LN_f_Y": top.final, "E": mw.wte, "logits": top.logits, "p_next": probs},
                        {"X": ("token", "feature"), "LN_f_Y": ("token", "feature"), "E": ("vocab", "feature"),
                         "logits": ("token", "vocab"), "p_next": ("row", "vocab")})
