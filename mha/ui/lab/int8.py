"""Variant `int8`: the KV cache kept as int8 codes with one scale a row (AttentionConfig(kv_bits=8)), on the walk's X
and weights. Drawn one part at a time: the codes and scales the cache keeps for the chosen head's kv head (what
changes); that head's scores from the keys read back, clickable with their sums (click); the check that every row
read back is within half a step of its float row, and Y against the float walk's (check)."""

from dataclasses import replace

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.ticks import token_ticks

from .. import lab
from ..chart import chart
from ..product import product_view
from ..prose import fmt, head_control
from ..view import Name, Operand, View, first_screen, name

CODES_ROWS = 5  # rows of controls and words above the codes on a projector: the variant, the part, the head, the title
WITHIN = 1 + 1e-9  # a row read back counts as within half a step up to rounding in the last bits


def render(v: View, variant: str, part: str) -> str:
    """`part` of the lab for the int8 cache; the check's words for the check part ("" for the others)."""
    t = v.t
    cfg = lab.config(v, variant)
    tr = lab.trace(v, cfg)
    if part == "check":
        return _checked(v, cfg, tr)
    head_control(t)
    h = min(st.session_state.get("head", 1), cfg.n_heads) - 1  # read here: the head picker reruns the fragment
    g = int(mha.groups(cfg.n_heads, cfg.kv_heads)[h])
    if part == "click":
        _scores(v, tr, h, g)
        return ""
    words, title = t("lab_int8_text", d=cfg.d_k), f"**{t('lab_int8_codes_title', g=g + 1, h=h + 1)}**"
    if v.look == F.PRESENT:  # a projector shows the codes first, on the first screen, and the words under them
        st.markdown(title)
        _codes(v, tr, g)
        st.markdown(words)
    else:
        st.markdown(f"{words}\n\n{title}")
        _codes(v, tr, g)
    return ""


def _codes(v: View, tr: mha.Trace, g: int) -> None:
    """Kv head g's codes of K and of V, each beside its column of scales."""
    t, token = v.t, v.t("token")
    i = str(g + 1)
    mats = [F.Mat(tr.k_codes[g].astype(float), t("lab_int8_codes", m=name("K", i).html), "signed", token,
                  t("cols_of")),
            F.Mat(tr.k_scale[g][:, None], name("s", f"K{i}").html, "magnitude", token, ""),
            F.Mat(tr.v_codes[g].astype(float), t("lab_int8_codes", m=name("V", i).html), "signed", token,
                  t("cols_of")),
            F.Mat(tr.v_scale[g][:, None], name("s", f"V{i}").html, "magnitude", token, "")]
    axes = [f"{a}axis{k + 1 if k else ''}" for k in range(len(mats)) for a in "xy"]
    look = first_screen(v.named, CODES_ROWS)  # on a projector, whole under the variant, the part, the head and title
    chart(token_ticks(F.grid_figure(mats, text=v.text, words=v.words, look=look), v.tokens, axes, v.look),
          key="lab_int8_codes")


def _scores(v: View, tr: mha.Trace, h: int, g: int) -> None:
    """Head h's scores against the keys read back (codes × scale): Q_rot K̂ᵀ, a click writing its sum."""
    t, i = v.t, str(h + 1)
    kn = Name(f"K̂<sub>{g + 1}</sub><sup>T</sup>", rf"\hat K_{{{g + 1}}}^{{\mathrm T}}", f"K̂{g + 1}ᵀ")
    qn = name("Q", i)
    sn = Name(qn.html + kn.html, rf"{qn.tex}{kn.tex}", f"{qn.plain}{kn.plain}")
    st.markdown(t("lab_int8_click", h=h + 1))
    product_view("lab_int8_scores", v, Operand(tr.q_rot[h], qn, t("token"), t("cols_of")),
                 Operand(tr.k_rot[g].T, kn, t("cols_of"), t("key_pos")),
                 Operand(tr.scores[h], sn, t("token"), t("key_pos")), f"{sn.html} = {qn.html} · {kn.html}",
                 first=lab.CLICK_ROWS)


def _checked(v: View, cfg: mha.AttentionConfig, tr: mha.Trace) -> str:
    """Every row read back against the float row it stands for, within half its scale; Y against the float walk's."""
    t = v.t
    flt = lab.trace(v, replace(cfg, kv_bits=0))
    k_err, v_err = (np.abs(a - b).max(axis=-1) for a, b in ((tr.k_rot, flt.k_rot), (tr.v, flt.v)))
    k_half, v_half = tr.k_scale / 2, tr.v_scale / 2
    over = [f"{m}[{gi + 1}, {row + 1}]" for m, err, half in (("K", k_err, k_half), ("V", v_err, v_half))
            for gi, row in zip(*np.nonzero(err > half * WITHIN), strict=True)]
    words = t("lab_int8_check_bad", what=t("list_sep").join(over)) if over else t(
        "lab_int8_check_ok", k=fmt(float(k_err.max())), k_half=fmt(float(k_half.max())), v=fmt(float(v_err.max())),
        v_half=fmt(float(v_half.max())))
    if over:
        st.error(words)
    y = t("lab_int8_y", diff=fmt(float(np.abs(tr.y - flt.y).max())), most=fmt(float(np.abs(flt.y).max())))
    return "\n\n".join([*([] if over else [words]), y])
