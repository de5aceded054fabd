"""The variant lab's element budget (issue 34): every part of every variant draws no more elements than the most
the other chart stages draw (the scores, the KV cache's step, the block's parts: 19 today), counted in the same run,
so a lab part that grows past them fails here. The KV cache's cost part (23, with its timing run and two charts) is
left out of the bar: the lab keeps to the walk's figure pages. The browser renders every element of a rerun again
(docs/DESIGN.md): the count is what a rerun costs."""

import pytest

from mha.ui import settings as S

from .helpers import run


def count(at) -> int:
    """The page's elements, the main area's leaves (the sidebar is the same on every stage)."""
    def leaves(node) -> int:
        kids = getattr(node, "children", None)
        if not kids:
            return 1
        return sum(leaves(k) for k in (kids.values() if isinstance(kids, dict) else kids))
    return leaves(at.main)


@pytest.fixture(scope="module")
def budget() -> int:
    pages = [dict(stage="scores"), dict(stage="kv_cache")]
    pages += [dict(stage="block", part=p) for p in S.BLOCK_PARTS]
    counts = [count(run(**p)) for p in pages]
    assert min(counts) >= 10  # a page drawn, not an error
    return max(counts)


@pytest.mark.parametrize("variant", S.VARIANTS)
@pytest.mark.parametrize("part", S.LAB_PARTS)
@pytest.mark.parametrize("sizes", [dict(), dict(n_heads="4", lang="zh")], ids=["post", "4heads-zh"])
def test_every_lab_part_keeps_to_the_other_stages_element_count(budget, variant, part, sizes):
    at = run(stage="variants", variant=variant, part=part, **sizes)
    assert not at.exception
    assert at.session_state["lab_part"] == part
    assert count(at) <= budget, f"{variant}/{part}: {count(at)} elements, the other chart stages draw ≤ {budget}"
