#!/usr/bin/env python3
"""Write the column tables of ``docs/results.md`` from the result schemas of the core.

    scripts/make_results_doc.py [--check]

Each column table of the document sits between two markers, and the script rewrites what is
between them from ``qoslab._core.table_schemas()``, leaving the prose around them as it is::

    <!-- columns flows flow..bottleneck -->
    ... generated ...
    <!-- end columns -->

``flows`` is the table and ``flow..bottleneck`` the range of its columns the block lists (all
of them when no range is given). Every column of every table must be in exactly one block.
With ``--check`` the document is only compared: exit status 1 when it differs from what the
script would write (run the script without ``--check`` to update it), 0 when it is current.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from qoslab._core import table_schemas

if TYPE_CHECKING:
    from qoslab._core import ColumnSchema

DOC = Path(__file__).resolve().parent.parent / "docs" / "results.md"

BLOCK = re.compile(
    r"(?P<open><!-- columns (?P<table>\w+)(?: (?P<first>\w+)\.\.(?P<last>\w+))? -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- end columns -->)",
    re.DOTALL,
)


class DocError(Exception):
    """A marker that names no table or column, or a column no block lists."""


def table_text(columns: list[ColumnSchema]) -> str:
    """The Markdown table of ``columns``."""
    lines = ["| column | type | unit | definition |", "|---|---|---|---|"]
    for column in columns:
        kind = column["type"] + ("?" if column["nullable"] else "")
        description = column["description"].replace("|", "\\|")
        lines.append(f"| `{column['name']}` | {kind} | {column['unit']} | {description} |")
    return "\n".join(lines) + "\n"


def columns_of(schemas: dict[str, list[ColumnSchema]], match: re.Match) -> list[ColumnSchema]:
    """The columns the block of ``match`` lists."""
    table = match["table"]
    if table not in schemas:
        raise DocError(f"docs/results.md: no result table named {table!r} in {match['open']!r}")
    columns = schemas[table]
    if match["first"] is None:
        return columns
    names = [column["name"] for column in columns]
    for name in (match["first"], match["last"]):
        if name not in names:
            raise DocError(f"docs/results.md: {table} has no column {name!r} ({match['open']!r})")
    return columns[names.index(match["first"]) : names.index(match["last"]) + 1]


def generate(text: str, schemas: dict[str, list[ColumnSchema]]) -> str:
    """``text`` with every block rewritten; raises ``DocError`` unless the blocks list every
    column exactly once."""
    listed: dict[str, list[str]] = {table: [] for table in schemas}

    def rewrite(match: re.Match) -> str:
        columns = columns_of(schemas, match)
        listed[match["table"]].extend(column["name"] for column in columns)
        return match["open"] + table_text(columns) + match["close"]

    result = BLOCK.sub(rewrite, text)
    for table, columns in schemas.items():
        names = [column["name"] for column in columns]
        if sorted(listed[table]) != sorted(names):
            missing = [name for name in names if name not in listed[table]]
            twice = sorted({name for name in listed[table] if listed[table].count(name) > 1})
            raise DocError(
                f"docs/results.md: the column blocks of {table} miss {missing} and list {twice} "
                "more than once: add a block or widen a range"
            )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, do not write")
    args = parser.parse_args()
    text = DOC.read_text(encoding="utf-8")
    try:
        wanted = generate(text, table_schemas())
    except DocError as error:
        print(error, file=sys.stderr)
        return 2
    if args.check:
        if wanted != text:
            print(
                "docs/results.md is out of date: run scripts/make_results_doc.py", file=sys.stderr
            )
            return 1
        return 0
    if wanted != text:
        DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
