"""``qoslab report``: a run's or a sweep's results folder as one self-contained HTML page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import qoslab
from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_BAD_INPUT, EXIT_STATUS_HELP, percent
from qoslab.cli.text import visible
from qoslab.output import check_file, write_file


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "report",
        help=summary("report"),
        description="Write the results folder of a run (qoslab run) or a sweep (qoslab "
        "sweep) as one self-contained HTML file: what was run and how to run it again, the "
        "notes, the main tables and the plots that fit the data. The file fetches nothing "
        "and prints well.",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument("folder", metavar="RESULTS_DIR", help="a run's or a sweep's folder")
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="FILE",
        help="the HTML file to write, replaced in one step, e.g. report.html",
    )
    command.add_argument(
        "--target",
        type=percent,
        default=95.0,
        metavar="P%",
        help="a sweep's page: share of intervals each budgeted application must be in "
        "contract (lower bound of the 95 %% confidence interval) for a point to meet its "
        "budget (default: 95%%)",
    )
    command.add_argument(
        "--interactive",
        action="store_true",
        help="write the interactive page instead: for a sweep, a selector per varied key "
        "switches its charts and tables among the points; for a run recorded with --trace, "
        "an animation of one port's queues. One file that works offline",
    )
    command.add_argument(
        "--port",
        metavar="NODE->PEER",
        help="--interactive, a run: the port animated (default: the one that dropped the "
        "most packets, else the busiest)",
    )
    command.add_argument(
        "--start",
        type=float,
        metavar="S",
        help="--interactive, a run: where the animation starts, s (default: the end of the "
        "warm-up)",
    )
    command.add_argument(
        "--span",
        type=float,
        metavar="S",
        help="--interactive, a run: how long the animation lasts, s (default: 2)",
    )
    command.add_argument(
        "--max-packets",
        type=int,
        metavar="N",
        help="--interactive, a run: the most packets the page carries; the window is cut "
        "short to keep to it (default: 4000)",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    output: Path = args.output
    check_file(output)
    if not 0 <= args.target <= 100:
        print(f"error: --target {args.target:g}%: give a share from 0 to 100 %", file=sys.stderr)
        return EXIT_BAD_INPUT
    from qoslab.report import render  # Jinja2 and matplotlib only when asked
    from qoslab.report.interactive import render_interactive
    from qoslab.report.queue_data import QueueDataError

    loaded = qoslab.load(args.folder)
    if not args.interactive:
        html = render(loaded, target_pct=args.target)
    else:
        try:
            given = {"span_s": args.span, "max_packets": args.max_packets}
            html = render_interactive(
                loaded,
                target_pct=args.target,
                port=args.port,
                start_s=args.start,
                **{name: value for name, value in given.items() if value is not None},
            )
        except QueueDataError as error:
            print(f"error: {visible(error)}", file=sys.stderr)
            return EXIT_BAD_INPUT
    write_file(output, html.encode("utf-8"))
    print(f"report written to {visible(output)}")
    return 0
