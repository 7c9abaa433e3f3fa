"""``qoslab schema``: print the JSON Schema of the scenario format."""

from __future__ import annotations

import argparse

from qoslab._core import json_schema
from qoslab.cli.common import EXIT_STATUS_HELP


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "schema",
        help="print the JSON Schema of the scenario format",
        description="Print the JSON Schema of the scenario format, for editors and "
        "validators (e.g. the YAML language server).",
        epilog=EXIT_STATUS_HELP,
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    print(json_schema())
    return 0
