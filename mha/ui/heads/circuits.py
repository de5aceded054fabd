"""A head's OV and QK circuits at the trained model's own sizes, each a clickable product A·B = C over the letters:
OV, what the head writes for each letter it reads, read out as each letter's logit; QK, the score a query on one
letter gives a key on another, the keys either the letters themselves or what an earlier head writes about them
(K-composition: how an induction head finds the letter after an earlier copy)."""

from dataclasses import replace

import streamlit as st

import mha
from mha import figures as F
from mha.circuits import copies
from mha.figures.ticks import token_ticks

from .. import models
from .. import settings as S
from ..chart import chart
from ..product import product_view
from ..view import Name, Operand, View, first_screen
from . import label, role_of
from .writes import default_head

CIRCUITS = ("ov", "qk")
FIRST_ROWS = 6  # rows of controls above the circuit on a projector: the part, the head and the circuit (labelled)


def render(v: View) -> None:
    t, ss, m = v.t, st.session_state, models.shipped()
    if ss.get("circuit_head") not in S.KNOCK_NAMES:
        ss["circuit_head"] = default_head(m)
    row = st if v.look.narrow else st.container(horizontal=True, vertical_alignment="bottom")  # a phone: stacked
    name = row.segmented_control(t("circuit_head"), S.KNOCK_NAMES, key="circuit_head", required=True,
                                 persist_state="session",
                                 format_func=lambda x: label(t, m, x))
    kind = row.segmented_control(t("circuit_kind"), CIRCUITS, key="circuit", required=True, default="ov",
                                 persist_state="session",
                                 format_func=lambda x: t(f"circuit_{x}"))
    (layer, head), = S.knocked_pairs([name])
    through = None
    earlier = [n for n in S.KNOCK_NAMES if S.knocked_pairs([n])[0][0] < layer]
    if kind == "qk" and earlier:
        options = ("none", *earlier)
        if ss.get("circuit_through") not in options:
            ss["circuit_through"] = next((n for n in earlier if role_of(m, n) == "previous"), "none")
        chosen = row.segmented_control(t("circuit_through"), options, key="circuit_through", required=True,
                                       persist_state="session",
                                       format_func=lambda x: t("circuit_through_none") if x == "none"
                                       else label(t, m, x))
        through = None if chosen == "none" else S.knocked_pairs([chosen])[0]
    letters = replace(v, tokens=tuple(m.vocab))  # the circuits' rows are letters, named as tokens are
    if kind == "ov":
        a, b = mha.ov_factors(m.weights, layer, head)
        c = a @ b
        words = t("circuit_ov_text", name=name, hits=copies(c), v=len(c))
        an = Name("Ê·W<sub>V</sub>·W<sub>O</sub>", r"\hat E W_V W_O", "Ê·W_V·W_O")
        bn = Name("Γ<sub>f</sub>·E<sup>T</sup>", r"\Gamma_f E^{\mathrm T}", "Γf·Eᵀ")
        cn = Name(f"OV<sub>{name}</sub>", rf"OV_{{{name}}}", f"OV {name}")
    else:
        a, b = mha.qk_factors(m.weights, layer, head, through)
        c = a @ b
        writer = "" if through is None else f"{through[0] + 1}.{through[1] + 1}"
        key = "circuit_qk_text" if through is None else "circuit_qk_through_text"
        words = t(key, name=name, hits=copies(c), v=len(c), through=writer)
        an = Name("Ê·W<sub>Q</sub>/√d<sub>k</sub>", r"\hat E W_Q/\sqrt{d_k}", "Ê·W_Q/√d_k")
        bn = Name("(Ê·W<sub>K</sub>)<sup>T</sup>", r"(\hat E W_K)^{\mathrm T}", "(Ê·W_K)ᵀ") if through is None else \
            Name(f"(Ô<sub>{writer}</sub>·W<sub>K</sub>)<sup>T</sup>", rf"(\hat O_{{{writer}}} W_K)^{{\mathrm T}}",
                 f"(Ô{writer}·W_K)ᵀ")
        cn = Name(f"QK<sub>{name}</sub>", rf"QK_{{{name}}}", f"QK {name}")
    projector = v.look == F.PRESENT  # there the circuit comes first, whole under the controls, and the words under it
    if not projector:
        st.markdown(words)
    if v.look.narrow or projector:  # the product's C is small there: the circuit alone, letters named
        fig = F.grid_figure([F.Mat(c, cn.html, row_label=t("writes_letter"), col_label=t("writes_letter"))],
                            text=v.text, words=v.words, look=first_screen(letters.named, FIRST_ROWS))
        chart(token_ticks(fig, tuple(m.vocab), ("xaxis", "yaxis"), v.look), key="circuit_alone")
    if projector:
        st.markdown(words)
    # rows and columns said as what they count (zh review 2026-12-04: the rows are letters of the vocabulary, not
    # positions; OV's inner dimension is d_model's features, QK's the head's d_k columns)
    letter, inner = t("writes_letter"), t("feature") if kind == "ov" else t("cols_of")
    product_view("circuit_product", letters, Operand(a, an, letter, inner), Operand(b, bn, inner, letter),
                 Operand(c, cn, letter, letter), f"{cn.html} = ({an.html})·{bn.html}", cols=tuple(m.vocab),
                 named=True)
