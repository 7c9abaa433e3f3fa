"""``qoslab tc``: a scenario interface's output policy as the ``tc`` commands that give a
Linux device the same discipline.

``export`` refuses what a run refuses, and what tc cannot express, at the scenario's key
(a ``ScenarioError``, exit status 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from qoslab._core import tc_from_yaml
from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_STATUS_HELP, add_override_options, add_variant_option
from qoslab.cli.text import visible
from qoslab.output import write_file
from qoslab.scenario import pairs, scenario_text


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "tc",
        help=summary("tc"),
        description="Write a scenario interface's output policy as Linux tc commands.",
        epilog=EXIT_STATUS_HELP,
    )
    actions = command.add_subparsers(dest="action", required=True, metavar="ACTION")
    export = actions.add_parser(
        "export",
        help="the interface's output policy as a shell script of tc commands (qdiscs, "
        "classes and u32 filters)",
        epilog=EXIT_STATUS_HELP,
    )
    export.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    export.add_argument(
        "--interface",
        required=True,
        metavar="NODE.PEER",
        help="the interface: NODE's egress towards its neighbour PEER",
    )
    export.add_argument(
        "--dev", metavar="DEVICE", help="the Linux device the script configures (default eth0)"
    )
    export.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write the script here (default: stdout)"
    )
    add_variant_option(export)
    add_override_options(export)
    export.set_defaults(main=main_export)


def main_export(args: argparse.Namespace) -> int:
    text, origin = scenario_text(args.scenario)
    script = tc_from_yaml(text, origin, args.interface, args.dev, pairs(args.set, {}), args.variant)
    if args.output is None:
        print(script, end="")
        return 0
    write_file(args.output, script.encode())
    print(f"tc script written to {visible(args.output)}")
    return 0
