"""The walk's order is written once (mha/ui/walk.py): each stage in it has a module that renders it and a name in both
languages, no stage module lies outside it, and the navigation numbers the stages as the page always has."""

import importlib
import pkgutil
from pathlib import Path

import pytest

import mha.ui
from mha.ui import walk
from mha.ui.strings import TABLES
from mha.ui.walk import STAGES, Stage

from .helpers import rerun, run

# The numbers the navigation shows, in the walk's order: the post's 1 to 9, the tokens stage added beside the first,
# the variant lab beside the cache, the coda's block and next token after it. Written out here, not derived, so
# that a change shows.
SHOWN = ("1", "1b", "2", "3", "4", "5", "6", "7", "8", "9", "9b", "10", "11")
STAGE_MODULES = Path(mha.ui.__file__).parent / "stages"


def test_every_stage_in_the_walk_has_a_module_that_renders_it_and_a_name_in_both_languages():
    assert not (missing := [s for s in STAGES if not (STAGE_MODULES / f"{s}.py").is_file()]), f"no module: {missing}"
    from mha.ui import stages  # builds its RENDER from the walk

    for stage in STAGES:
        module = importlib.import_module(f"{stages.__name__}.{stage}")
        assert callable(getattr(module, "render", None)), f"stages/{stage}.py has no render(view)"
        for lang, table in TABLES.items():
            name = table.get(f"stage_{stage}", "")
            assert name.strip(), f"stage_{stage} has no name in {lang}"
            assert not name[0].isdigit(), f"stage_{stage} ({lang}) carries a number: walk.py numbers the stages"
    assert list(stages.RENDER) == list(STAGES)
    assert {m.name for m in pkgutil.iter_modules(stages.__path__)} == set(STAGES), "a stage module outside the walk"


def test_a_stage_added_beside_another_takes_its_number_and_a_letter_and_the_rest_keep_theirs():
    assert walk.numbers((Stage("a"), Stage("b", aside=True), Stage("c", aside=True), Stage("d"), Stage("e"))) == \
        {"a": "1", "b": "1b", "c": "1c", "d": "2", "e": "3"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_navigation_shows_each_stage_numbered_in_the_walks_order(lang):
    at = run(stage=STAGES[0], lang=lang)
    names = [TABLES[lang][f"stage_{s}"] for s in STAGES]
    assert at.radio(key="stage").options == [f"{n} · {name}" for n, name in zip(SHOWN, names, strict=True)]
    for stage in STAGES[1:]:  # the next button follows the same order
        at.button(key="next_stage").click()
        assert rerun(at).session_state["stage"] == stage
    assert "next_stage" not in [b.key for b in at.button]  # the last stage has none
