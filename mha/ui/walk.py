"""The walk: its stages in order, the one list the app reads them from. Pure Python: no Streamlit here.

A stage's id is its value of `stage=` in a link (a contract: docs/DESIGN.md), the name of its module in stages/ (whose
render(view) draws it) and, as `stage_<id>`, the key of its name (mha/ui/strings/shell.py). The navigation numbers
the stages from this list. Adding a stage: an entry here, its module, its name in both languages.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mha.figures.scores import PHASES

from .strings import Text
from .variant_defs import VARIANT_LIST


@dataclass(frozen=True)
class Parts:
    """A stage drawn one part at a time: the session key of the part shown (`part` in a link) and the parts."""

    key: str
    values: tuple[str, ...]
    model: str | None = None  # in a link only with these weights ("trained", "seeded"); None: with either
    first: Callable[[Mapping], str] | None = None  # the part it opens on, from the session's values (else the default)
    elsewhere: bool = False  # a link that opens a stage without parts reads its `part` as this stage's
    every_layer: tuple[str, ...] = ()  # parts that draw every layer of the trained model: no sidebar layer control
    walked: bool = False  # Next and Back step through the parts before leaving the stage (walked_parts)
    ordered: Callable[[Mapping], tuple[str, ...]] | None = None  # the parts in the order shown (else `values`)


@dataclass(frozen=True)
class Param:
    """A link parameter a stage owns: written into the link while the stage is shown and differs from its default,
    read back from a link (settings.parse_params), each value checked against `values`."""

    name: str  # in the link
    key: str  # the session key it sets
    values: tuple[str, ...] | None  # None: heads named in a list, read by settings' own parser (`knock`)
    model: str | None = None  # in a link only with these weights ("trained", "seeded"); None: with either
    elsewhere: bool = True  # read from a link that opens another stage too (False: there the name is another's)
    knobs: bool = False  # the chosen variant's knobs travel with it, each under its own name


# The block stage's parts, one on screen at a time: LN₁; attention, + X; LN₂, the FFN's up-projection; GELU; the
# down-projection, + R₁.
BLOCK_PARTS = ("ln1", "attn", "ffn", "gelu", "out")
# The KV-cache stage's parts: the step a token makes, the cost.
KV_PARTS = ("step", "cost")
# The variant lab's parts: what changes, drawn on the walk's figures; its products, one clickable at a time; the live
# check with what it caches.
LAB_PARTS = ("change", "click", "check")
# The heads stage's parts with the trained model: where each head looks, heads knocked out (`knock` in the link), what
# each writes into the logits, its OV and QK circuits, training.
HEADS_PARTS = ("patterns", "knock", "writes", "circuits", "timeline")
# A real model's layer on the heads stage (`ckpt_layer`, from 1: GPT-2 XL has 48; the page keeps it to the model's)
CKPT_LAYERS = tuple(str(i) for i in range(1, 97))
# Where the block's layer norms sit (`ln` in the link): after each residual sum, the original GPT's order and the
# post's figure (the default), or before each sublayer, GPT-2's (the trained model's, which cannot be switched).
BLOCK_ORDERS = ("post", "pre")
# The parts follow the order the block shows: post-LN's attention comes before its LN₁, whose input is X + Attn.
BLOCK_PARTS_IN = {"pre": BLOCK_PARTS, "post": ("attn", "ln1", "ffn", "gelu", "out")}
# The variant lab (`variant` in the link): one change today's models make, on the walk's own X and weights, each
# declared in variant_defs. The KV-cache stage decodes through any of them but the online softmax (a way to compute,
# not to cache); in its links `variant` names the attention it decodes through.
LAB_VARIANTS = tuple(v.id for v in VARIANT_LIST if v.module)
KV_VARIANTS = tuple(v.id for v in VARIANT_LIST if v.kv)


def block_order(values: Mapping) -> str:
    """The order the block stage shows: a real model's own (pre-LN, as the trained one and GPT-2 were trained), else
    the chosen one."""
    return "pre" if values.get("model") in ("trained", "checkpoint") else values.get("block_ln", BLOCK_ORDERS[0])


def first_block_part(values: Mapping) -> str:
    """The part the block stage opens on, the first in the order shown (a link without `part` opens there)."""
    return BLOCK_PARTS_IN[block_order(values)][0]


@dataclass(frozen=True)
class Stage:
    id: str
    aside: bool = False  # added beside the stage before: numbered as it, with a letter (1b); the rest keep theirs
    # draws the block's feed-forward network: the sidebar shows d_ff only there (elsewhere it keeps its value, and
    # its place in the link, unseen)
    ffn: bool = False
    parts: Parts | None = None  # drawn one part at a time
    params: tuple[Param, ...] = ()  # the link parameters it owns, besides `part`
    # without a text: "x", the coda's example text (x_source.EXAMPLE) makes X and the vocabulary drawn; "vocab", the
    # walk's X runs and the example gives only the vocabulary; "": neither
    example: str = ""
    resets_x: bool = False  # draws the button that puts X back to the seeded one itself (elsewhere x_source adds it)
    grows: bool = False  # adds seeded rows to X (the KV cache's tokens): the lengths checked count them as n
    section: str = ""  # the strings key of the post's section it follows (an aside has none: aside_<id> says what)
    layer_control: bool = False  # with a checkpoint, draws the control of its layer itself (the sidebar does not)


WALK = (
    Stage("matmul", section="post_refresher"),
    Stage("tokens", aside=True, example="x"),
    Stage("input", resets_x=True, section="post_io"),
    Stage("qk", section="post_qkv"),
    Stage("scores", section="post_qkv", params=(Param("phase", "phase", PHASES),)),
    Stage("values", section="post_qkv"),
    Stage("heads", section="post_multi", layer_control=True, parts=Parts("heads_part", HEADS_PARTS, model="trained",
                                                     every_layer=("knock", "writes", "circuits"), walked=True),
          params=(Param("knock", "knock", None, model="trained"), Param("ckpt_layer", "ckpt_layer", CKPT_LAYERS),
                  Param("ckpt_knock", "ckpt_knock", None))),
    Stage("output", section="post_output"),
    Stage("dependency", section="post_analysis"),
    Stage("kv_cache", grows=True, section="post_kv", parts=Parts("kv_part", KV_PARTS),
          params=(Param("variant", "kv_variant", KV_VARIANTS, elsewhere=False, knobs=True),)),
    Stage("variants", aside=True, parts=Parts("lab_part", LAB_PARTS),
          params=(Param("variant", "variant", LAB_VARIANTS, knobs=True),)),
    Stage("block", ffn=True, section="post_coda",
          parts=Parts("block_part", BLOCK_PARTS, first=first_block_part, elsewhere=True, walked=True,
                      ordered=lambda values: BLOCK_PARTS_IN[block_order(values)]),
          params=(Param("ln", "block_ln", BLOCK_ORDERS, model="seeded"),)),
    Stage("next_token", ffn=True, example="vocab", section="post_coda_next"),
)
STAGES = tuple(s.id for s in WALK)
FFN_STAGES = tuple(s.id for s in WALK if s.ffn)
BY_ID = {s.id: s for s in WALK}


def walked_parts(values: Mapping) -> tuple[str, ...]:
    """The parts Next and Back step through on the stage shown, in the order shown (audit 2026-12-07 #1: Next left
    the block after its first part, and LN₁, the FFN and GELU, the post's coda, were reached only by the part
    buttons); () where they go from stage to stage (the KV cache's cost and the lab's parts are asides to the
    stage's view, reached by their own control)."""
    parts = BY_ID[values["stage"]].parts
    if not parts or not parts.walked or (parts.model and values.get("model") != parts.model):
        return ()
    return parts.ordered(values) if parts.ordered else parts.values


def reads_layer(values: Mapping) -> bool:
    """Whether the view shown reads the sidebar's trained layer: not on a part that draws every layer (audit
    2026-12-04 #16: the control stood at layer 1 beside head 2.1's circuit)."""
    parts = BY_ID[values["stage"]].parts
    return not (parts and values.get(parts.key) in parts.every_layer)


def numbers(stages: tuple[Stage, ...]) -> dict[str, str]:
    """Each stage's number on screen: 1, 2, … in order; the stages added beside stage n are nb, nc, …"""
    out, n, asides = {}, 0, 0
    for s in stages:
        if s.aside:
            asides += 1
            out[s.id] = f"{n}{chr(ord('a') + asides)}"
        else:
            n, asides = n + 1, 0
            out[s.id] = str(n)
    return out


NUMBERS = numbers(WALK)


LAST = NUMBERS[[s.id for s in WALK if not s.aside][-1]]  # the walk's last number: "Stage 2 of 11"


def title(t: Text, stage: str) -> str:
    """A stage's name as its heading and the page that waits to draw it show it, its number first: "1b · Text →
    tokens → X"."""
    return f"{NUMBERS[stage]} · {t(f'stage_{stage}')}"


def nav_title(t: Text, stage: str, model: str) -> str:
    """A stage's name in the navigation, with the views behind it where it is drawn in parts (with these weights):
    "10 · The GPT block · 5 parts", "9b · Variant lab · 9 variants × 3 parts"."""
    s, name = BY_ID[stage], title(t, stage)
    if not s.parts or s.parts.model not in (None, model):
        return name
    parts = len(s.parts.values)
    variants = next((len(p.values) for p in s.params if p.knobs), 0)  # the variant shown chooses the figures too
    more = t("walk_variant_parts", variants=variants, parts=parts) if variants else t("walk_parts", parts=parts)
    return f"{name} · {more}"


def where(t: Text, stage: str, opening: bool = False) -> str:
    """Where `stage` sits: its number of the walk's, and the post's section it follows (or, for an aside, what it
    adds that the post does not have); on the stage the app opens on, how Next walks the post as well."""
    s, num = BY_ID[stage], NUMBERS[stage]
    if s.aside:
        line = t("where_aside", num=num, base=num[:-1], last=LAST, what=t(f"aside_{stage}"))
    else:
        line = t("where_stage", num=num, last=LAST, section=t(s.section))
    return t("where_opening", line=line) if opening else line
