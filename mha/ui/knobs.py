"""A variant's knobs, each drawn by one widget wherever it is set: in the lab and beside the KV-cache stage's picker.

Both read and write the same session keys (the link's parameters), so a knob set on one stage holds on the other.
Each knob is declared in variant_defs (its range, how it is picked, its words). A value these sizes cannot take (a
link's kv_heads=3 with 4 heads, an odd rotary_dims, a tile longer than n, or one kept from larger sizes) becomes the
nearest one they take before the widget holds the key, and the page says which was asked and which is used, under
the knob, until the knob moves or the sizes change."""

import streamlit as st

from . import settings as S
from .inputs import number
from .variant_defs import DIVISORS, EVEN, Knob
from .view import View

KEPT = "knob_kept"  # session key: by knob, (the value asked, the value used, the sizes) until the knob moves


def divisors(h: int) -> list[int]:
    """The kv heads h query heads can share: every divisor of h (1: MQA, h: the walk's MHA)."""
    return [d for d in range(1, h + 1) if h % d == 0]


def draw(v: View, knob: Knob, box=st, *, short: bool = False, width: int | None = None, label: str = "visible") -> int:
    """`knob` in `box` (a row of the stage's controls), labelled as the lab labels it, or with its shorter name
    beside the KV-cache stage's picker (`short`); `width`: a number box's, in px; `label`: "visible" over the box, or
    "beside" it (a projector's row of controls, no taller than its others). Its value, as these sizes take it."""
    t, ss, cfg = v.t, st.session_state, v.cfg
    limit = S.KNOB_RANGE[knob.key][1]
    sizes = dict(h=cfg.n_heads, n=cfg.n_tokens, d=cfg.d_model, d_k=cfg.d_k)
    asked = ss.get(S.KNOB_ASKED, {}).pop(knob.key, None)  # a link's value above any size's limit
    asked = int(asked if asked is not None else knob.default if ss.get(knob.key) is None else ss[knob.key])
    used = knob.fit(cfg, asked, limit)
    if used != asked:
        ss.setdefault(KEPT, {})[knob.key] = (asked, used, sizes)
    ss[knob.key] = used  # before the widget holds the key: the page, its link and its words use the same
    name = t(knob.kv_label if short else knob.label)
    if label == "beside":
        box.markdown(name, width="content")
    shown = dict(label_visibility="collapsed" if label == "beside" else "visible")
    if knob.kind == DIVISORS:
        box.segmented_control(name, divisors(cfg.n_heads), key=knob.key, required=True, persist_state="session",
                              **shown)
    elif knob.kind == EVEN:
        most = cfg.d_k - cfg.d_k % 2
        if most:  # d_k = 1: no pair to turn, nothing to pick
            box.select_slider(name, list(range(0, most + 1, 2)), key=knob.key, persist_state="session",
                              help=t(knob.help, d_k=cfg.d_k, most=most) if knob.help else None, **shown)
    else:
        number(box, t, knob.key, knob.low, knob.highest(cfg, limit), label=name, default=knob.default,
               persist_state="session", **({"width": width} if width else {}), **shown)
    kept = ss.get(KEPT, {}).get(knob.key)
    if kept and kept[1:] == (ss[knob.key], sizes):
        key = knob.kept + (("_over" if kept[0] > cfg.d_k else "_odd") if knob.kind == EVEN else "")
        st.caption(t(key, asked=f"{kept[0]:,}", used=kept[1], high=kept[1], **sizes))
    else:
        ss.get(KEPT, {}).pop(knob.key, None)
    return int(ss[knob.key])
