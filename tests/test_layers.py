"""The layers stay honest: the core needs no UI library, figures never touch Streamlit (import-linter)."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_mha_pulls_in_neither_streamlit_nor_plotly():
    code = "import sys, mha; print(sorted(m for m in ('streamlit', 'plotly', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_contracts_hold():
    linter = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 kept, 0 broken" in out.stdout


def test_every_core_module_is_in_both_contracts():
    """A module added to the core and left out of a contract would be free to import Streamlit unseen."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layered = {m for layer in contracts[0]["layers"] for m in re.split(r"\s*\|\s*", layer)}
    core = {f"mha.{p.stem}" for p in (ROOT / "mha").glob("*.py") if p.stem != "__init__"}
    assert core - layered == set(), "not in the layers"
    assert core == set(contracts[1]["source_modules"]), "the core's modules, and those the UI-free contract names"


def test_no_page_module_outgrows_one_job():
    """Issue 43: a page module past 300 lines was doing several jobs (the KV stage's 606: the step, the cost and every
    variant's decoding; exports' 317: every stage's files). A stage's files live with the stage; a module that grows
    past this is split by what it does."""
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "mha" / "ui").rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 300}
    assert long == {}
