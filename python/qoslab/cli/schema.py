"""``qoslab schema``: print the JSON Schema of the scenario format, or the result tables'
columns."""

from __future__ import annotations

import argparse
import json

from qoslab._core import json_schema, table_schemas
from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_STATUS_HELP


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "schema",
        help=summary("schema"),
        description="Print the JSON Schema of the scenario format, for editors and "
        "validators (e.g. the YAML language server).",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument(
        "--results",
        action="store_true",
        help="print the columns of every result table instead, as JSON: per table its "
        "columns in order, with their type, whether they may be empty, unit and description",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    print(
        json.dumps(table_schemas(), indent=2, ensure_ascii=False) if args.results else json_schema()
    )
    return 0
