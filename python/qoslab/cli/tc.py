"""``qoslab tc``: a scenario interface's output policy as the ``tc`` commands that give a
Linux device the same discipline, and back: a device's policy, as ``tc`` shows it, as a
scenario's.

``export`` refuses what a run refuses, and what tc cannot express, at the scenario's key;
``import`` refuses what qoslab cannot read, at the output and entry (a ``ScenarioError``,
exit status 2). ``import --dev`` runs ``tc`` itself: ``tc -j -d -r qdisc show``, ``tc -d -r
class show`` (text: it carries each bucket as the kernel keeps it, and DRR's quantum, which
tc's JSON leaves out) and ``tc -j filter show ... parent H:`` for every discipline that
classifies.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

from qoslab._core import tc_from_yaml, tc_import
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_STATUS_HELP,
    add_override_options,
    add_variant_option,
    print_or_write,
)
from qoslab.cli.text import visible
from qoslab.scenario import pairs, scenario_text
from qoslab.textfile import input_error, read_text

MAX_TC_OUTPUT_BYTES = 16 * 1024 * 1024
"""The largest tc output read: far above any device's policy."""

CLASSIFYING_KINDS = ("htb", "prio", "drr")
"""Disciplines whose filters choose a class: their filters are asked for by handle."""


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
    add_import_parser(actions)


def add_import_parser(actions: argparse._SubParsersAction) -> None:
    command = actions.add_parser(
        "import",
        help="a Linux device's policy, as tc shows it, as the YAML of a scenario interface "
        "(`interfaces.NODE.PEER`)",
        description="Read a device's queuing disciplines, classes and u32 filters as tc shows "
        "them, live (--dev) or from files, and write them as a scenario interface's output "
        "policy.",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument(
        "--dev", metavar="DEVICE", help="read this device's policy by running tc (no root needed)"
    )
    command.add_argument(
        "--netns",
        metavar="NAME",
        help="with --dev: the device is in this network namespace (tc runs under `ip netns "
        "exec NAME`, which needs root)",
    )
    command.add_argument(
        "--qdiscs", type=Path, metavar="FILE", help="the output of `tc -j -d -r qdisc show dev D`"
    )
    command.add_argument(
        "--classes",
        type=Path,
        metavar="FILE",
        help="the output of `tc -d -r class show dev D` (or of `tc -j -d class show dev D`)",
    )
    command.add_argument(
        "--filters",
        action="append",
        default=[],
        metavar="[PARENT=]FILE",
        help="the output of `tc -j filter show dev D parent PARENT` (repeatable; PARENT, "
        "e.g. 2:, names the discipline when the entries do not)",
    )
    command.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write the YAML here (default: stdout)"
    )
    command.set_defaults(main=main_import)


def main_export(args: argparse.Namespace) -> int:
    text, origin = scenario_text(args.scenario)
    script = tc_from_yaml(text, origin, args.interface, args.dev, pairs(args.set, {}), args.variant)
    return print_or_write(script, args.output, "tc script")


def main_import(args: argparse.Namespace) -> int:
    if args.dev is not None:
        if args.qdiscs or args.classes or args.filters:
            raise input_error(
                "--dev reads the device itself: leave out --qdiscs, --classes and --filters"
            )
        shown = shown_by_tc(args.dev, args.netns)
    else:
        if args.netns is not None:
            raise input_error("--netns names where --dev is: give --dev DEVICE too")
        if args.qdiscs is None or args.classes is None:
            raise input_error(
                "give --dev DEVICE, or --qdiscs FILE and --classes FILE (and --filters)"
            )
        shown = shown_in_files(args.qdiscs, args.classes, args.filters)
    return print_or_write(tc_import(*shown), args.output, "interface YAML")


Named = tuple[str, str]
"""One output of tc and the name its errors give it."""

Shown = tuple[Named, Named, list[tuple[Named, str | None]]]
"""What tc shows of a device: its disciplines, its classes, and each filter listing with the
parent handle it was asked for (None where its entries say)."""


def shown_in_files(qdiscs: Path, classes: Path, filters: list[str]) -> Shown:
    """tc's outputs saved in files; ``filters`` as ``[PARENT=]FILE``."""
    listings: list[tuple[Named, str | None]] = []
    for given in filters:
        parent, _, name = given.rpartition("=")
        path = Path(name)
        listings.append(
            ((read_text(path, limit_bytes=MAX_TC_OUTPUT_BYTES), str(path)), parent or None)
        )
    return (
        (read_text(qdiscs, limit_bytes=MAX_TC_OUTPUT_BYTES), str(qdiscs)),
        (read_text(classes, limit_bytes=MAX_TC_OUTPUT_BYTES), str(classes)),
        listings,
    )


def shown_by_tc(device: str, netns: str | None = None) -> Shown:
    """What tc shows of ``device`` (in network namespace ``netns``, if given): its
    disciplines, classes, and the filters of each discipline that classifies, each with the
    command that printed it as its name."""
    if shutil.which("tc") is None:
        raise input_error("tc import --dev runs `tc`, which is not on PATH: install iproute2")
    prefix = ["ip", "netns", "exec", netns] if netns is not None else []
    qdiscs = run_tc(prefix, ["-j", "-d", "-r", "qdisc", "show", "dev", device])
    classes = run_tc(prefix, ["-d", "-r", "class", "show", "dev", device])
    filters: list[tuple[Named, str | None]] = []
    try:
        listed = json.loads(qdiscs[0])
    except ValueError:
        listed = []
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, dict) and entry.get("kind") in CLASSIFYING_KINDS:
            handle = str(entry.get("handle", ""))
            filters.append(
                (run_tc(prefix, ["-j", "filter", "show", "dev", device, "parent", handle]), handle)
            )
    return qdiscs, classes, filters


def run_tc(prefix: list[str], arguments: list[str]) -> Named:
    """The output of ``tc ARGUMENTS`` (run under ``prefix``), named by the command."""
    command = [*prefix, "tc", *arguments]
    shown = " ".join(["tc", *arguments])
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        raise input_error(f"`{shown}` failed: {visible(done.stderr.strip() or done.returncode)}")
    return done.stdout, shown
