"""``qoslab crosscheck``: a scenario's prediction set beside the running Linux kernel's, per
flow, with a verdict per figure (:mod:`qoslab.crosscheck.check`)."""

from __future__ import annotations

import argparse
import math
import sys

from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_BAD_INPUT, EXIT_STATUS_HELP
from qoslab.cli.text import visible


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "crosscheck",
        help=summary("crosscheck"),
        description="Build the scenario's network of Linux network namespaces, apply its "
        "policies with tc, replay its open-loop traffic and compare the kernel's losses and "
        "delays with qoslab's. Needs root.",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    command.add_argument(
        "--runs", type=int, default=2, help="replays through the kernel (default 2, for its spread)"
    )
    command.set_defaults(main=main)


def _number(x: float) -> str:
    """A count as a whole number, a delay (ms) to two decimals."""
    if isinstance(x, int):
        return f"{x:,}"
    return "n/a" if math.isnan(x) else f"{x:,.2f}"


def main(args: argparse.Namespace) -> int:
    from qoslab.crosscheck.check import CrosscheckError, crosscheck

    if args.runs < 1:
        print("--runs: give at least 1 replay", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        report = crosscheck(args.scenario, runs=args.runs)
    except CrosscheckError as error:
        print(f"error: {visible(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"ports with their policy: {', '.join(report.applied) or 'none'}")
    for port, why in report.skipped.items():
        print(f"port {port} left with the kernel's default: {visible(why)}")
    for warning in report.warnings:
        print(f"note: {visible(warning)}")
    if report.not_replayed:
        names = ", ".join(report.not_replayed)
        print(f"not replayed (applications over TCP, copied flows): {visible(names)}")
    floor = report.noise_floor_ms
    late = report.sender_late_us
    print(
        f"noise floor (idle run): mean {floor['mean']:.3f} ms, p99 {floor['p99']:.3f} ms, "
        f"max {floor['max']:.3f} ms; sender late by mean {late['mean']:.1f} µs, "
        f"p99 {late['p99']:.1f} µs, max {late['max']:.1f} µs"
    )
    header = ["flow", "figure", "qoslab", *[f"kernel {i + 1}" for i in range(args.runs)], "verdict"]
    rows = []
    for check in report.flows:
        for name in ("sent", "lost", "delay_mean_ms", "delay_p99_ms", "delay_max_ms"):
            rows.append(
                [
                    check.flow,
                    name,
                    _number(check.qoslab[name]),
                    *[_number(run[name]) for run in check.kernel],
                    check.verdicts.get(name, ""),
                ]
            )
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)))
    return 0 if report.agrees else 1
