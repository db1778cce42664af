"""The code stays ruff-clean: lint rules and formatting, as `make lint` checks them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["rope_explained", "tests", "benchmarks", "docs/hooks", "tools", "training"]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_check_is_clean():
    out = ruff("check", "--no-cache")
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format_is_clean():
    out = ruff("format", "--check", "--no-cache")
    assert out.returncode == 0, out.stdout + out.stderr
