"""The formatters, linters and type checkers the project holds itself to pass on the whole
tree: ruff, mypy over the package (settings in ``pyproject.toml``), mypy's stubtest of the
compiled ``qoslab._core`` against ``python/qoslab/_core.pyi``, rustfmt and clippy."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHECKS = [
    pytest.param(
        [sys.executable, "-m", "ruff", "check", "python", "tests", "scripts"], id="ruff check"
    ),
    pytest.param(
        [sys.executable, "-m", "ruff", "format", "--check", "python", "tests", "scripts"],
        id="ruff format",
    ),
    pytest.param([sys.executable, "-m", "mypy"], id="mypy"),
    pytest.param(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "qoslab._core",
            "--allowlist",
            "stubtest-allowlist.txt",
        ],
        id="stubtest of the compiled module",
    ),
    pytest.param(["cargo", "fmt", "--all", "--", "--check"], id="cargo fmt"),
    pytest.param(
        ["cargo", "clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"],
        id="cargo clippy",
    ),
]


@pytest.mark.parametrize("command", CHECKS)
def test_tool_reports_nothing(command):
    if command[0] == "cargo" and shutil.which("cargo") is None:
        pytest.fail("cargo is not on PATH; the Rust checks need it")
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(command[-4:])}:\n{done.stdout}\n{done.stderr}"
