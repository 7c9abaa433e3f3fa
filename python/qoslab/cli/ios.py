"""``qoslab ios``: read a Cisco IOS configuration — check it, explain an interface, convert
it to scenario YAML, or migrate it to IOS XE (``ios_migrate.py``) — or write a scenario's
interface as IOS configuration.

Every problem with the input (a missing file, a folder, a file above 16 MiB, text that is
not UTF-8, a line IOS or qoslab refuses) is a ``ScenarioError`` or a finding naming its
place, and exits with status 2. ``explain`` and ``to-yaml`` refuse what a run refuses;
``from-yaml`` refuses that too, and what IOS cannot express, at the scenario's key.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qoslab._core import (
    ios_check,
    ios_explain,
    ios_flavour,
    ios_from_yaml,
    ios_interfaces,
    ios_read,
    ios_to_yaml,
)
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_STATUS_HELP,
    add_override_options,
    add_variant_option,
    print_or_write,
)
from qoslab.cli.ios_migrate import add_migrate_parser
from qoslab.cli.text import counted, visible
from qoslab.scenario import pairs, scenario_text

SCHEDULERS = ("pre-hqf", "hqf", "xe")
"""The class schedulers a router may run: IOS before HQF, classic IOS with HQF, IOS XE."""


def add_scheduler_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler",
        choices=SCHEDULERS,
        help="the router's class scheduler (default: read from the `version` line and the "
        "syntax: 16.x and later IOS XE, 15.x HQF, 12.x and none pre-HQF)",
    )


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "ios",
        help=summary("ios"),
        description="Read a router's IOS configuration the way the scenario key "
        "`interfaces.NODE.PEER.ios` does, or write a scenario's interface as one.",
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
    add_scheduler_option(check)
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
    add_scheduler_option(explain)
    explain.set_defaults(main=main_explain)
    to_yaml = actions.add_parser(
        "to-yaml",
        help="the interface as a scenario's interfaces.NODE.PEER entry",
        epilog=EXIT_STATUS_HELP,
    )
    to_yaml.add_argument("file", metavar="FILE", help="configuration text file")
    to_yaml.add_argument("--interface", help="the interface (required if there are several)")
    add_scheduler_option(to_yaml)
    to_yaml.set_defaults(main=main_to_yaml)
    from_yaml = actions.add_parser(
        "from-yaml",
        help="a scenario's interface as IOS configuration: access lists, class maps, "
        "policy maps, priority or queue list and the interface",
        epilog=EXIT_STATUS_HELP,
    )
    from_yaml.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    from_yaml.add_argument(
        "--interface",
        required=True,
        metavar="NODE.PEER",
        help="the interface: NODE's egress towards its neighbour PEER, and its input from it",
    )
    from_yaml.add_argument(
        "--name",
        metavar="IOS_NAME",
        help="the interface's name in IOS (default: Serial0/0/0 on HDLC and PPP links, "
        "GigabitEthernet0/0 on others)",
    )
    from_yaml.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write the text here (default: stdout)"
    )
    add_variant_option(from_yaml)
    add_override_options(from_yaml)
    from_yaml.set_defaults(main=main_from_yaml)
    add_migrate_parser(actions, EXIT_STATUS_HELP)


def main_check(args: argparse.Namespace) -> int:
    config = ios_read(args.file)
    findings = ios_check(config, args.scheduler)
    shown = visible(args.file)
    for severity, line, column, message, hint in findings:
        where = f"{shown}:{line}:{column}" if line else shown
        text = f"{where}: {severity}: {visible(message)}"
        if hint:
            text += f" ({visible(hint)})"
        print(text)
    errors = sum(1 for finding in findings if finding[0] == "error")
    warnings = len(findings) - errors
    flavour = ios_flavour(config, args.scheduler)
    if flavour is not None:
        name, reason = flavour
        print(f"{shown}: the `{name}` class scheduler: {visible(reason)}")
    print(f"{shown}: {counted(errors, 'error')}, {counted(warnings, 'line')} not modelled")
    return EXIT_BAD_INPUT if errors else 0


def main_explain(args: argparse.Namespace) -> int:
    text = ios_read(args.file)
    names = [args.interface] if args.interface else ios_interfaces(text)
    if not names:
        print(f"{visible(args.file)}: no interfaces", file=sys.stderr)
        return EXIT_BAD_INPUT
    for name in names:
        print(ios_explain(text, name, args.rate, args.file, args.scheduler), end="")
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
    yaml = ios_to_yaml(text, name, args.file, args.scheduler)
    print(f"# {visible(name)} from {visible(args.file)}")
    print(yaml, end="")
    return 0


def main_from_yaml(args: argparse.Namespace) -> int:
    text, origin = scenario_text(args.scenario)
    config = ios_from_yaml(
        text, origin, args.interface, args.name, pairs(args.set, {}), args.variant
    )
    return print_or_write(config, args.output, "IOS configuration")
