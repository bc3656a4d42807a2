"""The code style: ``ruff check`` (rules and exceptions in pyproject.toml) finds nothing in the
project. The layer rules (import-linter) are checked by tests/ops/test_layers.py the same way:
the tool runs in a subprocess from the project root, and its own report is the failure message."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # tests/test_code_style.py -> project root


def test_ruff_finds_nothing_in_the_project():
    # --no-cache: the check writes nothing into the checkout
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
