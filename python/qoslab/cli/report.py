"""``qoslab report``: a run's or a sweep's results folder as one self-contained HTML page."""

from __future__ import annotations

import argparse
from pathlib import Path

import qoslab
from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_STATUS_HELP
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
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    output: Path = args.output
    check_file(output)
    from qoslab.report import render  # Jinja2 and matplotlib only when asked

    html = render(qoslab.load(args.folder))
    write_file(output, html.encode("utf-8"))
    print(f"report written to {visible(output)}")
    return 0
