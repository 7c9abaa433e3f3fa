"""``qoslab ios``: read a Cisco IOS configuration — check it, explain an interface, or
convert it to scenario YAML.

Every problem with the input (a missing file, a folder, a file above 16 MiB, text that is
not UTF-8, a line IOS or qoslab refuses) is a ``ScenarioError`` or a finding naming its
place, and exits with status 2. ``explain`` and ``to-yaml`` refuse what a run refuses.
"""

from __future__ import annotations

import argparse
import sys

from qoslab._core import ios_check, ios_explain, ios_interfaces, ios_read, ios_to_yaml
from qoslab.cli.common import EXIT_BAD_INPUT, EXIT_STATUS_HELP
from qoslab.cli.text import visible


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "ios",
        help="check, explain or convert a Cisco IOS configuration",
        description="Read a router's IOS configuration the way the scenario key "
        "`interfaces.NODE.PEER.ios` does.",
        epilog=EXIT_STATUS_HELP,
    )
    actions = command.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        epilog=EXIT_STATUS_HELP,
        help="list the lines qoslab does not model (warnings) and every mistake a run "
        "would refuse (errors), each at its line and column",
    )
    check.add_argument("file", metavar="FILE", help="configuration text file")
    check.set_defaults(main=main_check)
    explain = actions.add_parser(
        "explain",
        epilog=EXIT_STATUS_HELP,
        help="what an interface's queuing does: classes, matches, rates in bit/s, admission",
    )
    explain.add_argument("file", metavar="FILE", help="configuration text file")
    explain.add_argument("--interface", help="the interface (default: every interface)")
    explain.add_argument(
        "--rate", help="the link's physical rate, e.g. 128kbps (default: its clock rate)"
    )
    explain.set_defaults(main=main_explain)
    to_yaml = actions.add_parser(
        "to-yaml",
        help="the interface as a scenario's interfaces.NODE.PEER entry",
        epilog=EXIT_STATUS_HELP,
    )
    to_yaml.add_argument("file", metavar="FILE", help="configuration text file")
    to_yaml.add_argument("--interface", help="the interface (required if there are several)")
    to_yaml.set_defaults(main=main_to_yaml)


def main_check(args: argparse.Namespace) -> int:
    findings = ios_check(ios_read(args.file))
    shown = visible(args.file)
    for severity, line, column, message, hint in findings:
        where = f"{shown}:{line}:{column}" if line else shown
        text = f"{where}: {severity}: {visible(message)}"
        if hint:
            text += f" ({visible(hint)})"
        print(text)
    errors = sum(1 for finding in findings if finding[0] == "error")
    warnings = len(findings) - errors
    print(f"{shown}: {errors} errors, {warnings} lines not modelled")
    return EXIT_BAD_INPUT if errors else 0


def main_explain(args: argparse.Namespace) -> int:
    text = ios_read(args.file)
    names = [args.interface] if args.interface else ios_interfaces(text)
    if not names:
        print(f"{visible(args.file)}: no interfaces", file=sys.stderr)
        return EXIT_BAD_INPUT
    for name in names:
        print(ios_explain(text, name, args.rate, args.file), end="")
    return 0


def main_to_yaml(args: argparse.Namespace) -> int:
    text = ios_read(args.file)
    name = args.interface
    if name is None:
        names = ios_interfaces(text)
        if len(names) != 1:
            listed = ", ".join(names) or "none"
            print(
                f"{visible(args.file)}: name the interface with --interface ({visible(listed)})",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        name = names[0]
    yaml = ios_to_yaml(text, name, args.file)
    print(f"# {visible(name)} from {visible(args.file)}")
    print(yaml, end="")
    return 0
