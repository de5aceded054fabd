"""What the KV-cache stage's two parts share: the variant picker and its knobs, the rows decoded through the chosen
cache (Decoded) and what the cache holds, said in words."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

import mha
from mha import figures as F

from .. import knobs, lab
from .. import settings as S
from ..lab.costs import size as lab_size
from ..lab.mla import directions
from ..models import MODELS
from ..shared import weights_digest
from ..variant_defs import VARIANTS
from ..view import View, subscript

ITEMSIZE = 8  # float64, as the caches on this page


def picker(v: View) -> str:
    """The attention the cache decodes (the post's, or one of the lab's variants) and, beside it, its knobs: the
    lab's own session keys, so a knob set on either stage holds on both."""
    t_ = v.t
    # one row, the picker then its knobs; a phone's picker wraps its options over lines of their own
    row = st if v.look.narrow else st.container(horizontal=True, vertical_alignment="bottom")
    variant = row.segmented_control(t_("kv_variant"), S.KV_VARIANTS,
                                    format_func=lambda x: variant_name(t_, x), key="kv_variant",
                                    required=True, persist_state="session", label_visibility="collapsed")
    beside = v.look == F.PRESENT and names_beside(variant)
    for knob in VARIANTS[variant].knobs:  # the lab's widgets, with their shorter names
        knobs.draw(v, knob, row, short=True, width=130, label="beside" if beside else "visible")
    return variant


def names_beside(variant: str) -> bool:
    """Whether a projector writes the names of `variant`'s knobs beside their boxes, not over them: a row of controls
    no taller than the others' (the step's figure under them is whole on the first screen). One knob's; two (sinks
    and a window) leave no room beside the picker."""
    return len(VARIANTS[variant].knobs) == 1


@dataclass(frozen=True, eq=False)
class Decoded:
    """The rows decoded through the variant's cache, one at a time, and the full recomputes it is checked against.

    held: the positions (from 0) of the tokens the cache holds after the last step, the rows the figure draws;
    labels: what those rows are called when not 1..t (a window's), else None."""

    variant: str
    cfg: mha.AttentionConfig | None  # None: the post's attention (and MLA, which has no attention config)
    cache: object  # mha.KVCache or mha.MLACache
    step: object  # the last mha.DecodeStep or mha.MLAStep
    full: object  # forward (mla_forward) on every row
    before: object | None  # on every row but the last
    held: np.ndarray
    group: int  # the kv head the chosen head reads (0-based)
    held_before: np.ndarray  # the positions held before the last step
    d_latent: int = 0
    mla: mha.MLAWeights | None = None

    @property
    def labels(self) -> tuple[str, ...] | None:
        if np.array_equal(self.held, np.arange(len(self.held))):
            return None
        return tuple(str(p + 1) for p in self.held)


def variant_of(cfg: mha.AttentionConfig, w: mha.Weights, variant: str) -> tuple[mha.AttentionConfig | None,
                                                                                 mha.Weights]:
    """The config and weights the cache runs for `variant` (not MLA) on the walk's sizes and weights, its knobs from
    the session: (None, w) for the post's attention."""
    if variant == "mha":
        return None, w
    changed = lab.variant_config(cfg, variant)
    return changed, mha.share_kv(w, changed.kv_heads)  # lab.weights' sharing, with no view at hand


def mla_weights(w: mha.Weights) -> mha.MLAWeights:
    """MLA's weights cut from the walk's at the latent width in the session; the SVD is made once for every session
    showing the same weights (at GPT-2-small widths it takes seconds)."""
    width = int(st.session_state.get("d_latent", S.DEFAULTS["d_latent"]))
    key = ("kv_mla", weights_digest(w), width)
    return MODELS.get(key, lambda: mha.mla_from(w, width))  # at GPT-2's widths past TRACES' budget


def decode_rows(v: View, variant: str, rows: np.ndarray) -> Decoded:
    """Every row through the variant's cache; forward with the same variant on all rows and on all but the last."""
    t = len(rows)
    if variant == "mla":
        w_mla = mla_weights(v.w)
        cache, steps = mha.decode(rows, w_mla)
        before = mha.mla_forward(rows[:-1], w_mla) if t > 1 else None
        return Decoded(variant, None, cache, steps[-1], mha.mla_forward(rows, w_mla), before, np.arange(t), v.head,
                       np.arange(t - 1), w_mla.d_latent, w_mla)
    cfg, w = variant_of(v.cfg, v.w, variant)
    cache, steps = mha.decode(rows, w, cfg)
    step = steps[-1]
    held_before = np.array(steps[-2].held) if t > 1 else np.arange(0)  # what the cache held before the last token
    before = mha.forward(rows[:-1], w, cfg) if t > 1 else None  # what the tokens before the last one gave
    group = int(mha.groups(w.n_heads, w.n_kv_heads)[v.head])
    return Decoded(variant, cfg, cache, step, mha.forward(rows, w, cfg), before, np.array(cache.positions), group,
                   held_before)


def variant_name(t_, variant: str) -> str:
    return t_(VARIANTS[variant].kv_name or f"variant_{variant}")


def _size(t_, nbytes: int) -> str:
    """Bytes as the lab says them (zh review K4): under 10,000 in bytes, in the page's word; else decimal units."""
    return t_("kv_bytes", n=f"{nbytes:,}") if nbytes < 10_000 else lab_size(nbytes)


def said_tokens(positions, sep: str = ", ") -> str:
    """X₁, X₃…X₅: the tokens at these positions (from 0), a run of three or more written as its ends; `sep`, the
    page's list separator (t("list_sep"): a Chinese list takes 、)."""
    runs, out = [], []
    for p in positions:
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    for r in runs:
        a, b = f"X{subscript(r[0] + 1)}", f"X{subscript(r[-1] + 1)}"
        out.append(a if len(r) == 1 else f"{a}{sep}{b}" if len(r) == 2 else f"{a}…{b}")
    return sep.join(out)


def said_heads(group: int, size: int) -> str:
    """The heads of a group, 1-based: 3–4, or 3 alone."""
    first = group * size + 1
    return str(first) if size == 1 else f"{first}–{first + size - 1}"


def held_words(v: View, d: Decoded) -> str:
    """What the cache holds, as Markdown: tokens × kv heads (or the latent's width) and its bytes; which kv head the
    chosen head reads; a window's tokens and those that left."""
    t_, cfg, cache = v.t, v.cfg, d.cache
    t, size = len(cache), _size(t_, cache.nbytes)
    if d.variant == "mha":
        return t_("kv_state", t=t, d_k=cfg.d_k, d_v=cfg.d_v, size=size)
    if d.variant == "mla":
        rank = directions(cfg)
        cut = t_("kv_state_mla_cut", l=d.d_latent, r=rank) if d.d_latent < rank else ""
        return t_.sentences(t_("kv_state_mla", t=t, d_latent=d.d_latent, size=size), cut)
    kv = d.cfg.kv_heads
    out = [t_("kv_state_heads", kv=kv, t=t, d_k=cfg.d_k, d_v=cfg.d_v, size=size)]
    size_g = cfg.n_heads // kv
    if size_g > 1:
        out.append(t_("kv_state_group", i=v.head + 1, g=d.group + 1, heads=said_heads(d.group, size_g)))
    elif d.variant == "gqa":  # kv heads as many as heads: nothing is shared yet
        out.append(t_("kv_state_no_group", h=cfg.n_heads, kv=kv))
    if d.cfg.kv_bits:  # the bytes said above, worked out: a code a number, a scale a row of K and of V
        out.append(t_("kv_state_int8", kv=kv, t=t, d_k=cfg.d_k, d_v=cfg.d_v, nbytes=cache.nbytes))
    if d.cfg.window:
        held, most = said_tokens(d.held, t_("list_sep")), d.cfg.sinks + d.cfg.window
        out.append(t_("kv_state_sinks" if d.cfg.sinks else "kv_state_window", held=held, sinks=d.cfg.sinks,
                      w=d.cfg.window, most=most))
        gone = sorted(set(range(d.step.pos + 1)) - set(d.held.tolist()))
        if gone:
            out.append(t_("kv_state_left_one" if len(gone) == 1 else "kv_state_left",
                          gone=said_tokens(gone, t_("list_sep"))))
        else:  # the first past the sinks leaves when the cache is over its bound
            out.append(t_("kv_state_none_left", when=subscript(most + 1), gone=subscript(d.cfg.sinks + 1)))
    return t_.sentences(*out)
