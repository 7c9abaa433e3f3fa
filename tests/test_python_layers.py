"""The Python package's layers hold: ``lint-imports`` (import-linter) keeps the contracts in
``pyproject.toml``, and nothing outside the CLI imports the package root.

import-linter reads only ``.py`` files, so it cannot see the compiled bindings
``qoslab._core`` and files every ``from qoslab._core import ...`` under the package root
``qoslab``. The contracts therefore ignore imports of the root, and the second test covers
what that leaves out: the root re-exports the API, so a lower module importing it would reach
upwards without import-linter noticing.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "python"
PACKAGE = SOURCE / "qoslab"

LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def test_lint_imports_keeps_every_contract():
    if importlib.util.find_spec("importlinter") is None:
        pytest.fail("import-linter is not installed: pip install -e '.[test]'")
    # This checkout's package, not whichever copy of qoslab is installed.
    path = os.pathsep.join(filter(None, [str(SOURCE), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "pyproject.toml", "--no-cache"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"lint-imports:\n{done.stdout}\n{done.stderr}"
    assert "0 broken" in done.stdout, done.stdout


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_root_importer(module: str) -> bool:
    """Whether ``module`` may import the package root: the root itself, and the CLI (the top
    layer) with its submodules."""
    return module == "qoslab" or module == "qoslab.cli" or module.startswith("qoslab.cli.")


def is_submodule(name: str) -> bool:
    return (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()


def root_imports(path: Path) -> list[str]:
    """The lines of ``path`` that import the package root itself (``import qoslab``, or a name
    that is not a submodule ``from qoslab import ...``), as ``file:line``."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            hit = any(alias.name == "qoslab" for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level > 0:  # relative: up from this module's package
                parts = package.split(".")
                source = ".".join([*parts[: len(parts) - node.level + 1], source]).rstrip(".")
            hit = source == "qoslab" and any(not is_submodule(alias.name) for alias in node.names)
        else:
            continue
        if hit:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_only_the_cli_imports_the_package_root():
    offenders = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if not is_root_importer(module_name(path))
        for line in root_imports(path)
    ]
    assert offenders == [], (
        "these modules import the package root, which re-exports the API above them; "
        f"import the module that defines the name instead: {offenders}"
    )


MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 120


def test_modules_and_functions_stay_small():
    """The Rust core's limits (``crates/qoslab-core/tests/it/layers.rs``) for the package:
    a module of at most 800 lines, a function of at most 120, decorators excluded."""
    large = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        shown = path.relative_to(SOURCE)
        if text.count("\n") > MAX_FILE_LINES:
            large.append(f"{shown}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    large.append(f"{shown}: {node.name} ({lines} lines)")
    assert not large, "split these by concept:\n" + "\n".join(large)
