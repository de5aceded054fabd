"""A head's OV and QK circuits at the trained model's own sizes, each a clickable product A·B = C over the letters:
OV, what the head writes for each letter it reads, read out as each letter's logit; QK, the score a query on one
letter gives a key on another, the keys either the letters themselves or what an earlier head writes about them
(K-composition: how an induction head finds the letter after an earlier copy)."""

from dataclasses import replace

import streamlit as st

import mha
from mha.circuits import copies

from .. import models
from .. import settings as S
from ..product import product_view
from ..view import Name, Operand, View
from . import label, role_of
from .writes import default_head

CIRCUITS = ("ov", "qk")


def render(v: View) -> None:
    t, ss, m = v.t, st.session_state, models.shipped()
    if ss.get("circuit_head") not in S.KNOCK_NAMES:
        ss["circuit_head"] = default_head(m)
    row = st if v.look.narrow else st.container(horizontal=True, vertical_alignment="bottom")  # a phone: stacked
    name = row.segmented_control(t("circuit_head"), S.KNOCK_NAMES, key="circuit_head", required=True,
                                 format_func=lambda x: label(t, m, x))
    kind = row.segmented_control(t("circuit_kind"), CIRCUITS, key="circuit", required=True, default="ov",
                                 format_func=lambda x: t(f"circuit_{x}"))
    (layer, head), = S.knocked_pairs([name])
    through = None
    earlier = [n for n in S.KNOCK_NAMES if S.knocked_pairs([n])[0][0] < layer]
    if kind == "qk" and earlier:
        options = ("none", *earlier)
        if ss.get("circuit_through") not in options:
            ss["circuit_through"] = next((n for n in earlier if role_of(m, n) == "previous"), "none")
        chosen = row.segmented_control(t("circuit_through"), options, key="circuit_through", required=True,
                                       format_func=lambda x: t("circuit_through_none") if x == "none"
                                       else label(t, m, x))
        through = None if chosen == "none" else S.knocked_pairs([chosen])[0]
    letters = replace(v, tokens=tuple(m.vocab))  # the circuits' rows are letters, named as tokens are
    if kind == "ov":
        a, b = mha.ov_factors(m.weights, layer, head)
        c = a @ b
        st.markdown(t("circuit_ov_text", name=name, hits=copies(c), v=len(c)))
        product_view("circuit_product", letters,
                     Operand(a, Name("E·W<sub>V</sub>·W<sub>O</sub>", r"E W_V W_O", "E·W_V·W_O"), t("token"),
                             t("cols_of")),
                     Operand(b, Name("E<sup>T</sup>", r"E^\top", "Eᵀ"), t("cols_of"), t("writes_letter")),
                     Operand(c, Name(f"OV<sub>{name}</sub>", rf"OV_{{{name}}}", f"OV {name}"), t("token"),
                             t("writes_letter")),
                     "OV = (E·W_V·W_O)·Eᵀ", cols=tuple(m.vocab))
        return
    a, b = mha.qk_factors(m.weights, layer, head, through)
    c = a @ b
    key = "circuit_qk_text" if through is None else "circuit_qk_through_text"
    st.markdown(t(key, name=name, hits=copies(c), v=len(c),
                  through="" if through is None else f"{through[0] + 1}.{through[1] + 1}"))
    kname = Name("K<sup>T</sup>", r"K^\top", "Kᵀ") if through is None else Name("(E·OV·W<sub>K</sub>)<sup>T</sup>",
                                                                                 r"(E\,OV\,W_K)^\top", "(E·OV·W_K)ᵀ")
    product_view("circuit_product", letters,
                 Operand(a, Name("E·W<sub>Q</sub>/√d<sub>k</sub>", r"E W_Q/\sqrt{d_k}", "E·W_Q/√d_k"), t("token"),
                         t("cols_of")),
                 Operand(b, kname, t("cols_of"), t("writes_letter")),
                 Operand(c, Name(f"QK<sub>{name}</sub>", rf"QK_{{{name}}}", f"QK {name}"), t("token"),
                         t("writes_letter")),
                 "QK = (E·W_Q/√d_k)·Kᵀ", cols=tuple(m.vocab))
