"""The walk: its stages in order, the one list the app reads them from. Pure Python: no Streamlit here.

A stage's id is its value of `stage=` in a link (a contract: docs/DESIGN.md), the name of its module in stages/ (whose
render(view) draws it) and, as `stage_<id>`, the key of its name (mha/ui/strings/shell.py). The navigation numbers
the stages from this list. Adding a stage: an entry here, its module, its name in both languages.
"""

from dataclasses import dataclass

from .strings import Text


@dataclass(frozen=True)
class Stage:
    id: str
    aside: bool = False  # added beside the stage before: numbered as it, with a letter (1b); the rest keep theirs
    # draws the block's feed-forward network: the sidebar shows d_ff only there (elsewhere it keeps its value, and
    # its place in the link, unseen)
    ffn: bool = False


WALK = (
    Stage("matmul"),
    Stage("tokens", aside=True),
    Stage("input"),
    Stage("qk"),
    Stage("scores"),
    Stage("values"),
    Stage("heads"),
    Stage("output"),
    Stage("dependency"),
    Stage("kv_cache"),
    Stage("variants", aside=True),
    Stage("block", ffn=True),
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
