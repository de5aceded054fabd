"""Every requirement names the releases the suite was run on: a lower and an upper bound, which the installed
release meets (so the suite that passes here passed on what a fresh install gets)."""

import re
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def _requirements(name: str) -> list[Requirement]:
    lines = (line.split("#", 1)[0].strip() for line in (ROOT / name).read_text().splitlines())
    return [Requirement(line) for line in lines if line and not line.startswith("-r")]


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-dev.txt"])
def test_each_requirement_is_bounded_and_met_by_what_is_installed(name):
    for req in _requirements(name):
        ops = {spec.operator for spec in req.specifier}
        assert ">=" in ops and "<" in ops, f"{req}: give it the releases the suite passed on, >=X.Y,<X.Y+1"
        assert req.specifier.contains(version(req.name)), f"{req}: {version(req.name)} is installed"


def test_streamlit_is_held_to_one_minor_release():
    """The app wraps Streamlit internals (mha/ui/startup.py): one minor release, the one they were checked on."""
    [req] = [r for r in _requirements("requirements.txt") if r.name == "streamlit"]
    bound = {s.operator: tuple(map(int, re.fullmatch(r"(\d+)\.(\d+)", s.version).groups())) for s in req.specifier}
    assert bound["<"] == (bound[">="][0], bound[">="][1] + 1), req.specifier
