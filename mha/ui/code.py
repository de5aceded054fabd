"""The numpy lines of `mha` behind each stage, read from the source at run time, so they cannot drift."""

import inspect
import textwrap
from functools import cache

from mha import attention

from .stages import MODULES

# stage -> what to show, as each stage module declares it (CODE): whole functions, or the lines of the walk
# (attention.walk) that assign these names; the lab's, by the variant shown
PIECES = {stage: module.CODE for stage, module in MODULES.items() if hasattr(module, "CODE")}


@cache
def snippet(stage: str, variant: str = "") -> str:
    """Python source for `stage` (on the variant lab, for its `variant`), joined with a comment naming where each
    piece lives ("" if none)."""
    parts = []
    pieces = PIECES.get(stage, [])
    for piece in pieces[variant] if isinstance(pieces, dict) else pieces:
        if callable(piece):
            source, where = inspect.getsource(piece), f"{piece.__module__}.{piece.__qualname__}"
        else:
            source, where = _assignments(piece), "mha.attention.walk"
        parts.append(f"# {where}\n{textwrap.dedent(source).rstrip()}")
    return "\n\n".join(parts)


def _assignments(names: tuple[str, ...]) -> str:
    """The lines of the walk that assign one of `names` (first statement of a line), dedented."""
    lines = inspect.getsource(attention.walk).splitlines()
    picked = [line.strip() for line in lines if line.strip().split(" = ")[0] in names]
    return "\n".join(picked)
