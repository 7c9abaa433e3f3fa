"""``qoslab validate``: check a scenario without running it."""

from __future__ import annotations

import argparse

import qoslab
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_STATUS_HELP,
    add_limit_options,
    add_override_options,
    add_variant_option,
)
from qoslab.cli.text import counted, visible


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "validate",
        help=summary("validate"),
        description="Check a scenario file: its syntax, keys, units and references. Prints "
        "where the first problem is and how to fix it.",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument("file", metavar="FILE", help="scenario file (YAML)")
    add_variant_option(command)
    add_override_options(command)
    add_limit_options(command)
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    summary = qoslab.validate(
        args.file,
        variant=args.variant,
        set=args.set,
        max_memory=args.max_memory,
        max_events=args.max_events,
    )
    print(
        f"{visible(args.file)}: valid ({counted(summary.nodes, 'node')}, "
        f"{counted(summary.links, 'link')}, {counted(summary.flows, 'flow')}, "
        f"{summary.simulated_s:g} s to simulate)"
    )
    return 0
