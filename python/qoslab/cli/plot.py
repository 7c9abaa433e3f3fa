"""``qoslab plot``: draw one kind of plot of a run's or a sweep's results folder into an
SVG or PNG file."""

from __future__ import annotations

import argparse
import inspect
import sys
from functools import partial
from pathlib import Path

import qoslab
from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_BAD_INPUT, EXIT_STATUS_HELP
from qoslab.cli.text import visible
from qoslab.output import check_file, write_file

FORMATS = (".svg", ".png")
PNG_DPI = 150

OPTIONS = {
    "metric": "--metric",
    "table": "--table",
    "by": "--by",
    "group": "--group",
    "flows": "--flow",
    "port": "--port",
    "point": "--point",
    "interval_ms": "--interval",
}
"""Each keyword a plot function may take and the option giving it."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "plot",
        help=summary("plot"),
        description="Draw one plot of the results folder of qoslab run or qoslab sweep. "
        "KIND is one of: bars (a metric's mean per point of a sweep, with 95 % confidence "
        "intervals), heatmap (a metric's mean per point of a sweep and flow, as coloured "
        "cells), series (per-interval values of each flow), delay_cdf (delay "
        "distribution per flow), queue (backlog and drops per class over time), dq_scatter "
        "(ΔQ budget consumption per application), loads (offered, transported and "
        "in-contract load), in_contract (time in contract across a sweep's parameter), "
        "voice (R and MOS per call), tcp_sequence (the time-sequence graph of a TCP flow, from "
        "a run's per-packet trace).",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument("results", metavar="RESULTS_DIR", type=Path, help="results folder")
    command.add_argument("kind", metavar="KIND", type=_kind, help="the kind of plot (above)")
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        required=True,
        help="file to write; its ending, .svg or .png, chooses the format",
    )
    command.add_argument(
        "--metric",
        help="the column to draw (bars, heatmap: a column of --table; series: a column of "
        "the series table or delay, jitter, loss, throughput; in_contract: in_contract_pct "
        "(default), in_delay_contract_pct, in_loss_contract_pct or in_jitter_contract_pct)",
    )
    command.add_argument(
        "--table", help="bars, heatmap: the table the metric is in (default flows)"
    )
    command.add_argument(
        "--by", metavar="KEY.PATH", help="bars, in_contract: the parameter along the x axis"
    )
    command.add_argument("--group", metavar="COLUMN", help="bars: the column naming each bar")
    command.add_argument(
        "--flow",
        action="append",
        metavar="NAME",
        help="series, delay_cdf, tcp_sequence: draw only this flow (repeatable)",
    )
    command.add_argument(
        "--port",
        metavar="NODE->PEER",
        help="queue: draw only this port; tcp_sequence: the port the segments are shown at",
    )
    command.add_argument(
        "--point",
        metavar="POINT",
        help="dq_scatter, loads, in_contract: observation point (end_to_end or NODE->PEER)",
    )
    command.add_argument(
        "--interval",
        type=float,
        metavar="MS",
        help="dq_scatter, loads, in_contract: ΔQ interval length in ms",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    output: Path = args.output
    if output.suffix.lower() not in FORMATS:
        print(
            f"error: {visible(output)}: give a file name ending in .svg or .png",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    from qoslab.plot import KINDS, PlotError, to_svg  # matplotlib only when plotting

    function = KINDS[args.kind]
    accepted = inspect.signature(function).parameters
    options = {"metric": args.metric, "table": args.table, "by": args.by, "group": args.group}
    options |= {"flows": args.flow, "port": args.port, "point": args.point}
    options["interval_ms"] = args.interval
    given = {key: value for key, value in options.items() if value is not None}
    refused = [OPTIONS[key] for key in given if key not in accepted]
    if refused:
        print(f"error: {args.kind} takes no {', '.join(refused)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    needs_metric = "metric" in accepted and accepted["metric"].default is inspect.Parameter.empty
    if needs_metric and "metric" not in given:
        print(f"error: {args.kind} needs --metric", file=sys.stderr)
        return EXIT_BAD_INPUT
    check_file(output)
    source = qoslab.load(args.results)
    try:
        figure = function(source, **given)
    except PlotError as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if output.suffix.lower() == ".svg":
        write_file(output, to_svg(figure).encode())
    else:
        write_file(output, partial(figure.savefig, format="png", dpi=PNG_DPI))
    print(f"plot written to {visible(output)}")
    return 0


def _kind(text: str) -> str:
    from qoslab.plot import KINDS

    kind = text.replace("-", "_")
    if kind not in KINDS:
        raise argparse.ArgumentTypeError(
            f"unknown plot {visible(text)!r}: use one of {', '.join(KINDS)}"
        )
    return kind
