"""A results document read back from a file, checked against the simulator core's table
schemas before anything uses it.

The core writes the document (``results.json``, a sweep's ``runs/<key>.json``) and its
schemas say what each table's rows hold: the columns in order, each an ``int``, ``float``,
``str``, ``bool`` or ``list[str]``, and whether it may be missing. A document read back may
have been edited or damaged; checking it here turns every way it can be wrong into one
:class:`qoslab.readback.ReadError` naming the file, the table, the row and the column, instead
of a ``KeyError`` or ``TypeError`` deep in pandas or a plot.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from qoslab._core import table_schemas
from qoslab.readback import expect

if TYPE_CHECKING:
    from qoslab._core import ColumnSchema

RUN = "run"
"""The document's one-record table of the run's own facts."""

INPUTS = "inputs"
"""The texts the run read (not a table); absent from documents of earlier versions."""

INPUT_KEYS = ("kind", "path", "text")


@cache
def schemas() -> dict[str, list[ColumnSchema]]:
    """Every table's schema, from the core."""
    return table_schemas()


def _fits(value: object, kind: str) -> bool:
    if kind == "float":
        return type(value) in (float, int)
    if kind == "int":
        return type(value) is int
    if kind == "str":
        return type(value) is str
    if kind == "bool":
        return type(value) is bool
    if kind == "list[str]":
        return type(value) is list and all(type(item) is str for item in value)
    return False


def check_rows(rows: object, table: str, shown: Path) -> list[dict]:
    """``rows``, the table ``table`` of the document in the file ``shown``, if it is a list
    of rows each holding exactly the schema's columns with values of their types."""
    schema = schemas()[table]
    expect(isinstance(rows, list), shown, f"table {table!r} is not a list of rows")
    assert isinstance(rows, list)
    names = [column["name"] for column in schema]
    for number, row in enumerate(rows):
        expect(isinstance(row, dict), shown, f"row {number} of {table!r} is not a record")
        if list(row) != names:
            missing = [name for name in names if name not in row]
            extra = [name for name in row if name not in names]
            what = f"lacks {missing[0]!r}" if missing else f"has {extra[0]!r}" if extra else ""
            expect(
                False, shown, f"row {number} of {table!r} {what or 'has its columns out of order'}"
            )
        for column in schema:
            value = row[column["name"]]
            if value is None and column["nullable"]:
                continue
            expect(
                _fits(value, column["type"]),
                shown,
                f"row {number} of {table!r}: {column['name']} is not a {column['type']}",
            )
    return rows


def check_document(document: object, shown: Path) -> dict:
    """``document``, read from the file ``shown``, if it is a whole results document."""
    expect(isinstance(document, dict), shown, "is not a results document (no JSON object)")
    assert isinstance(document, dict)
    for table in schemas():
        expect(table in document, shown, f"has no table {table!r}")
    run = document[RUN]
    expect(isinstance(run, dict), shown, f"{RUN!r} is not a record")
    check_rows([run], RUN, shown)
    for table in schemas():
        if table != RUN:
            check_rows(document[table], table, shown)
    inputs = document.get(INPUTS, [])
    expect(
        isinstance(inputs, list)
        and all(
            isinstance(item, dict) and all(isinstance(item.get(key), str) for key in INPUT_KEYS)
            for item in inputs
        ),
        shown,
        f"{INPUTS!r} is not a list of texts with their kind and path",
    )
    return document
