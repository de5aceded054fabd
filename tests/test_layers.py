"""The layers stay honest: the core needs no UI library, figures never touch Streamlit (import-linter)."""

import subprocess
import sys
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
    assert "3 kept, 0 broken" in out.stdout
