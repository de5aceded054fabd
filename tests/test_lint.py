"""ruff (settings in pyproject.toml) finds nothing in the repository, and vulture no dead code in the app."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean():
    ruff = Path(sys.executable).with_name("ruff")
    out = subprocess.run([str(ruff), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_vulture_finds_no_dead_code():
    """Code nothing calls goes. vulture, with pyproject.toml's settings (mha/ and app.py, 60%: unused functions,
    classes and attributes; its names used where vulture cannot see), names nothing."""
    vulture = Path(sys.executable).with_name("vulture")
    out = subprocess.run([str(vulture)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
