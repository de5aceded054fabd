"""The walk: its stages in order, the one list the app reads them from. Pure Python: no Streamlit here.

A stage's id is its value of `stage=` in a link (a contract: docs/DESIGN.md), the name of its module in stages/ (whose
render(view) draws it) and, as `stage_<id>`, the key of its name (mha/ui/strings/shell.py). The navigation numbers
the stages from this list. Adding a stage: an entry here, its module, its name in both languages.
"""

from dataclasses import dataclass

from .strings import Text


@dataclass(frozen=True)
class Parts:
    """A stage drawn one part at a time: the session key of the part shown (`part` in a link) and the parts."""

    key: str
    values: tuple[str, ...]


# The block stage's parts, one on screen at a time: LN₁; attention, + X; LN₂, the FFN's up-projection; GELU; the
# down-projection, + R₁ (in the order shown: settings.BLOCK_PARTS_IN).
BLOCK_PARTS = ("ln1", "attn", "ffn", "gelu", "out")
# The KV-cache stage's parts: the step a token makes, the cost.
KV_PARTS = ("step", "cost")
# The variant lab's parts: what changes, drawn on the walk's figures; its products, one clickable at a time; the live
# check with what it caches.
LAB_PARTS = ("change", "click", "check")
# The heads stage's parts with the trained model: where each head looks, heads knocked out (`knock` in the link), what
# each writes into the logits, its OV and QK circuits, training.
HEADS_PARTS = ("patterns", "knock", "writes", "circuits", "timeline")


@dataclass(frozen=True)
class Stage:
    id: str
    aside: bool = False  # added beside the stage before: numbered as it, with a letter (1b); the rest keep theirs
    # draws the block's feed-forward network: the sidebar shows d_ff only there (elsewhere it keeps its value, and
    # its place in the link, unseen)
    ffn: bool = False
    parts: Parts | None = None  # drawn one part at a time


WALK = (
    Stage("matmul"),
    Stage("tokens", aside=True),
    Stage("input"),
    Stage("qk"),
    Stage("scores"),
    Stage("values"),
    Stage("heads", parts=Parts("heads_part", HEADS_PARTS)),
    Stage("output"),
    Stage("dependency"),
    Stage("kv_cache", parts=Parts("kv_part", KV_PARTS)),
    Stage("variants", aside=True, parts=Parts("lab_part", LAB_PARTS)),
    Stage("block", ffn=True, parts=Parts("block_part", BLOCK_PARTS)),
    Stage("next_token", ffn=True),
)
STAGES = tuple(s.id for s in WALK)
FFN_STAGES = tuple(s.id for s in WALK if s.ffn)


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


def title(t: Text, stage: str) -> str:
    """A stage's name as the navigation shows it, its number first: "1b · Text → tokens → X"."""
    return f"{NUMBERS[stage]} · {t(f'stage_{stage}')}"
