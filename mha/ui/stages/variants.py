"""Stage `variants`, the variant lab: one change today's models make to the post's attention (shared K and V, a
window, sinks, ALiBi, RoPE, a cached latent, the online softmax), on the walk's own X and weights. Each shows what
changes on the same figures, its products to click, and a live check that it computes what it claims with what it
caches per token: one part at a time (`part` in the link), as on the KV-cache and block stages, so that a rerun
draws no more elements than theirs do."""

import streamlit as st

import mha

from .. import exports, lab, link, primes
from .. import settings as S
from ..knobs import divisors
from ..lab import costs, files, groups
from ..prose import header, input_error, part_control
from ..variant_defs import VARIANT_LIST, VARIANTS
from ..view import View

# the code view, by the variant shown: the walk with today's changes, and the piece that makes the change
CODE = {v.id: list(v.code) for v in VARIANT_LIST if v.module}


def sizes_note(t, values) -> str:
    """Why the sizes are not distinct primes here, where the lab needs it (GQA's groups need a composite h: the 4
    heads its own button sets), for the sidebar's check to say instead of offering primes; else ""."""
    h = int(values["n_heads"])
    groups = VARIANTS[values.get("variant", S.DEFAULTS["variant"])].groups  # as its declaration says
    if groups and len(divisors(h)) > 2 and primes.primes_but(values, "n_heads"):
        return t("lab_groups_primes_note", h=h)
    return ""


def sizes_away(t, box) -> bool:
    """The lab's 4 heads, where the view has no need of them: said in `box`, with the way back (groups.elsewhere)."""
    return groups.elsewhere(t, box)


def render(v: View) -> None:
    header(v.t, "variants", v.look)
    _lab(v)


@st.fragment
def _lab(v: View) -> None:
    """The picker and the variant. A fragment: another variant or knob reruns the lab only, not the page with its
    sidebar; the address bar follows."""
    t = v.t
    variant = st.segmented_control(t("variant"), S.VARIANTS, format_func=lambda x: t(f"variant_{x}"), key="variant",
                                   required=True, persist_state="session", label_visibility="collapsed")
    part = part_control(t, "variants")
    lead = ""
    try:
        lead = lab.render(v, variant, part)
    except mha.InputError as e:
        input_error(t, e)
    if part == "check":
        costs.render(v, variant, lead)
    link.follows(v.cfg)


def download(cfg, x, w) -> exports.Part | None:
    """The variant's files, computed as its page computes them (None where the page does not cut MLA's sizes: the
    walk's arrays)."""
    ss = st.session_state
    variant = ss.get("variant", S.DEFAULTS["variant"])
    if variant == "mla" and not lab.mla_fits(cfg, w):
        return None
    return files.variant_part(lab.variant_x(cfg, x, variant), w, variant, lab.variant_config(cfg, variant),
                              int(ss["d_latent"]), int(ss["tile"]), int(ss["head"]) - 1)
