"""``qoslab order-of-failure``: run a scenario at each value of one setting, mildest first,
and compare the order in which its applications exceed their budgets with the declared
order (``measure.order_of_failure``)."""

from __future__ import annotations

import argparse
import sys

import pandas as pd
from rich import box
from rich.table import Table

import qoslab
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_RUN_FAILED,
    EXIT_STATUS_HELP,
    add_override_options,
    stdout_console,
)
from qoslab.cli.text import plain, visible
from qoslab.experiment.plan import parse_vary


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "order-of-failure",
        help=summary("order-of-failure"),
        description="Run the scenario once per value of --vary (mildest condition first: "
        "link rates falling, loads rising) and report, per application with a budget, the "
        "first value at which it exceeds its budget, and the applications that failed out "
        "of the order measure.order_of_failure declares.",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    command.add_argument(
        "--vary",
        required=True,
        metavar="KEY.PATH=V1,V2,...",
        help="the setting to sweep and its values, mildest first, "
        "e.g. topology.links.1.rate=2Mbps,1Mbps,512kbps",
    )
    add_override_options(command)
    command.add_argument(
        "--point", metavar="NAME", help="observation point (default: the first in the results)"
    )
    command.add_argument(
        "--interval-ms",
        type=float,
        metavar="MS",
        help="ΔQ interval length (default: the first in the results)",
    )
    command.add_argument(
        "--min-in-contract",
        type=float,
        metavar="PCT",
        help="fail an application when its share of intervals in contract falls below PCT "
        "(default: when its mean budget consumption exceeds 1)",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    try:
        key, steps = parse_vary(args.vary)
        if len(steps) < 2:
            raise ValueError(f"--vary {args.vary!r}: give at least two values, mildest first")
    except ValueError as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sweep = qoslab.sweep(
        args.scenario,
        vary={key: steps},
        set=args.set,
        reps=1,
        variants=["base"],
        use_section=False,
        warn=lambda message: print(f"warning: {visible(message)}", file=sys.stderr),
    )
    if len(sweep.failures):
        failure = sweep.failures.iloc[0]
        print(f"run failed at {key}={failure[key]}: {visible(failure['error'])}", file=sys.stderr)
        return EXIT_RUN_FAILED
    try:
        table = qoslab.order_of_failure(
            sweep,
            point=args.point,
            interval_ms=args.interval_ms,
            min_in_contract_pct=args.min_in_contract,
        )
    except ValueError as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT

    console = stdout_console()
    console.print(plain(f"order of failure as {key} goes {' → '.join(steps)}:"))
    shown = Table(box=box.SIMPLE_HEAD)
    for heading in ("application", "declared", "observed", "first fails at", "failed before"):
        shown.add_column(
            heading, justify="right" if heading in ("declared", "observed") else "left"
        )
    for row in table.to_dict("records"):
        at = row["first_failure_at"]
        shown.add_row(
            plain(row["app"]),
            str(row["declared_rank"]),
            str(row["observed_rank"]),
            plain("never" if pd.isna(at) else at),
            plain(row["fails_before"] or "-"),
        )
    console.print(shown)
    inversions = [row for row in table.to_dict("records") if row["fails_before"]]
    if not inversions:
        console.print("the declared order holds", markup=False)
    for row in inversions:
        console.print(plain(f"out of order: {row['app']} failed before {row['fails_before']}"))
    return 0
