"""The defaults and limits the pages give with the name of the constant that holds them
(``40 packets (`DEFAULT_LIMIT`)``, ``` `SLOW_CIR_BPS` (320 kbit/s) ```) are the constants'
values in the core's source: a constant changed without its page fails here, naming both.

A constant defined in several modules (``DEFAULT_LIMIT``) is read from the module the page
names (``fifo::DEFAULT_LIMIT``), or else from the module of the page's name
(``docs/qdisc/fifo.md`` → ``qdisc/fifo.rs``)."""

from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "crates" / "qoslab-core" / "src"

DEFINITION = re.compile(r"^\s*(?:pub(?:\(\w+\))? )?const ([A-Z][A-Z0-9_]*): [^=]+= (.+?);", re.M)
UNIT = r"(?: ?(packets|segments|queues|B|KiB|MiB|ms|s|%|kbit/s))?"
CONSTANT = r"`((?:[a-z_]+::)?[A-Z][A-Z0-9]*_[A-Z0-9_]+)`"
# "40 packets (`DEFAULT_LIMIT`)" and "`SLOW_CIR_BPS` (320 kbit/s)".
BEFORE = re.compile(rf"(\d[\d ,.]*){UNIT} \({CONSTANT}")
AFTER = re.compile(rf"{CONSTANT} \((\d[\d ,.]*){UNIT}\)")

OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.floordiv,
    ast.LShift: operator.lshift,
}


def definitions() -> dict[str, dict[Path, str]]:
    """Every constant of the core: its name → {file: expression}."""
    found: dict[str, dict[Path, str]] = {}
    for path in SOURCE.rglob("*.rs"):
        for name, expression in DEFINITION.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, {})[path] = expression
    return found


DEFINED = definitions()


def value(name: str, near: Path | None = None) -> float:
    """The value of the constant ``name`` (``module::NAME`` names its file), from the file
    ``near`` when several define it."""
    module, _, name = name.rpartition("::")
    places = DEFINED[name]
    if module:
        near = next((path for path in places if path.stem == module), None)
    if len(places) > 1:
        assert near in places, f"`{name}` is defined in several files; none is {near}"
        expression = places[near]
    else:
        ((near, expression),) = places.items()
    expression = re.sub(r"QueueLimit::Packets\((.+)\)", r"\1", expression)
    expression = re.sub(r"\b(?:[a-z_]+::)+", "", expression).replace("_", "")
    expression = re.sub(r"\b([A-Z][A-Z0-9]*)\b", lambda m: _restore(m[1]), expression)
    return _evaluate(ast.parse(expression, mode="eval").body, near)


def _restore(squeezed: str) -> str:
    """A constant's name whose underscores were removed with the number separators."""
    matches = [name for name in DEFINED if name.replace("_", "") == squeezed]
    assert len(matches) == 1, f"`{squeezed}` names {matches}"
    return f"__{matches[0]}__"


def _evaluate(node: ast.expr, near: Path) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        return value(node.id.strip("_"), near)
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](_evaluate(node.left, near), _evaluate(node.right, near))
    raise AssertionError(f"cannot read {ast.unparse(node)} as a number")


def in_unit(number: str, unit: str | None, name: str) -> float:
    """The page's figure in the constant's own unit."""
    figure = float(number.replace(" ", "").replace(",", ""))
    scale = {"KiB": 1 << 10, "MiB": 1 << 20, "kbit/s": 1000}.get(unit or "", 1)
    if unit in ("ms", "s") and name.endswith("_NS"):
        scale = 1_000_000 if unit == "ms" else 1_000_000_000
    if unit == "%" and name.endswith("_PPM"):
        scale = 10_000
    return figure * scale


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def figures() -> list[tuple[str, str, str, str | None]]:
    """Every (page, constant, figure, unit) the pages give."""
    found = []
    for page in pages():
        text = " ".join(page.read_text(encoding="utf-8").split())
        name = str(page.relative_to(ROOT))
        found += [(name, constant, figure, unit) for figure, unit, constant in BEFORE.findall(text)]
        found += [(name, constant, figure, unit) for constant, figure, unit in AFTER.findall(text)]
    return found


FIGURES = figures()


def test_the_pages_name_constants_with_figures():
    assert len(FIGURES) >= 25, FIGURES


@pytest.mark.parametrize(
    ("page", "constant", "figure", "unit"), FIGURES, ids=[f"{p}:{c}" for p, c, _, _ in FIGURES]
)
def test_a_figure_the_pages_give_is_its_constants_value(page, constant, figure, unit):
    defined = constant.rpartition("::")[2] in DEFINED
    assert defined, f"{page} names `{constant}`, which the core does not define"
    module = (
        SOURCE / Path(page).relative_to("docs").with_suffix(".rs")
        if page.startswith("docs/")
        else None
    )
    assert in_unit(figure, unit, constant) == value(constant, module), (
        f"{page}: `{constant}` is given as {figure} {unit or ''}"
    )
