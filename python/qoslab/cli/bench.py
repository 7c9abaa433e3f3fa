"""``qoslab bench``: simulated packets per wall-clock second on the benchmark scenarios.

The scenarios are the ones ``cargo bench`` measures. The headline: a 10 Mbit/s serial link
between two routers carries one G.711 voice flow and eight 1500-byte UDP floods offering
1.5 times the link rate between them, with each queuing variant on the bottleneck — FIFO,
priority queuing (voice in the high band), WFQ, LLQ and FIFO with WRED. Then ``tcp100``:
100 concurrent TCP connections share a 100 Mbit/s bottleneck (data and ACKs both
simulated). Then ``flows-1`` to ``flows-10000``: the headline link with FIFO shared by 1, 10,
100, 1000 and 10,000 floods at the same total load, whose costs per hop side by side show
what the number of flows adds. Last ``network-200``: 200 routers (a ring of 20 with 180 edge
routers on 2 Mbit/s serial links) and 4,000 flows of G.711 calls and Poisson data, whose
cost per hop beside the headline's shows what the network's size adds. Each runs several
times, and the table shows medians of two times
per run: the event loop's, from the first event to the last (the rates and ns/hop are of
this time), and the results', checking the end-of-run invariants and building and
serializing the result tables — a cost per run and per flow, not per hop (for 1000 flows,
11 MB of JSON). Reading the results back in Python is not counted.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

from rich.table import Table

from qoslab._core import Simulation, bench_cases, parse_override
from qoslab.cli.bench_build import build_table
from qoslab.cli.bench_sweep import sweep_table
from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_BAD_INPUT, EXIT_STATUS_HELP, stdout_console

NS_PER_S = 1_000_000_000

HEADINGS = (
    "case",
    "simulated s",
    "packets",
    "packet-hops",
    "loop ms",
    "packets/s",
    "packet-hops/s",
    "ns/hop",
    "results ms",
)
CASE_NAMES = [name for name, _, _ in bench_cases()]


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "bench",
        help=summary("bench"),
        description=__doc__.replace("``", ""),
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument(
        "--seconds",
        type=simulated_seconds,
        metavar="S",
        help="simulated seconds per run (default: each scenario's 60 s)",
    )
    command.add_argument(
        "--case",
        action="append",
        choices=CASE_NAMES,
        metavar="NAME",
        help="run only this case (repeatable; default: every case): " + ", ".join(CASE_NAMES),
    )
    command.add_argument(
        "--repeat",
        type=int,
        default=5,
        metavar="N",
        help="runs per variant; the median wall time is reported (default: 5)",
    )
    command.add_argument(
        "--sweep",
        action="store_true",
        help="measure sweep throughput at 1, 2, ... jobs and the sweep's overhead per run "
        "instead (see benches/README.md)",
    )
    command.add_argument(
        "--runs", type=int, metavar="N", help="runs of the --sweep measurement (default: 24)"
    )
    command.add_argument(
        "--build",
        action="store_true",
        help="measure building scenarios of 1,000 to 100,000 flows instead: CPU time per "
        "flow (see benches/README.md)",
    )
    command.add_argument(
        "--grid",
        type=Path,
        metavar="SCENARIO",
        help="with --sweep: the runs of this scenario's sweep: section instead "
        "(e.g. examples/congestion-lab.yaml)",
    )
    command.set_defaults(main=main)


def simulated_seconds(text: str) -> float:
    """``--seconds``: a finite number of seconds of at least one nanosecond."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds * NS_PER_S >= 1):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds of at least 1e-9, e.g. --seconds 10"
        )
    return seconds


def main(args: argparse.Namespace) -> int:
    if args.grid is not None and not args.sweep:
        print("error: --grid measures a sweep: add --sweep", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.sweep:
        stdout_console().print(sweep_table(args.seconds, args.runs, args.grid))
        return 0
    if args.build:
        stdout_console().print(build_table(args.repeat))
        return 0
    table = Table(title="qoslab bench", title_justify="left")
    for heading in HEADINGS:
        case = heading == "case"
        table.add_column(heading, justify="left" if case else "right", no_wrap=case)
    for variant, scenario, changes in bench_cases():
        if args.case and variant not in args.case:
            continue
        overrides = [parse_override(change) for change in changes]
        if args.seconds is not None:
            overrides.append(("run.duration", f"{round(args.seconds * NS_PER_S)}ns"))
        loops_s, results_s = [], []
        for _ in range(max(args.repeat, 1)):
            simulation = Simulation(scenario, f"<{variant}>", overrides)
            started_s = time.perf_counter()
            simulation.advance(simulation.end_ns)
            looped_s = time.perf_counter()
            document = simulation.finish()
            loops_s.append(looped_s - started_s)
            results_s.append(time.perf_counter() - looped_s)
            run = json.loads(document)["run"]
        loop_s = statistics.median(loops_s)
        packets, hops = run["created_packets"], run["packet_hops"]
        table.add_row(
            variant,
            f"{run['warmup_s'] + run['duration_s']:g}",
            f"{packets:,}",
            f"{hops:,}",
            f"{loop_s * 1000:.1f}",
            f"{packets / loop_s:,.0f}",
            f"{hops / loop_s:,.0f}",
            f"{loop_s * NS_PER_S / hops:.1f}",
            f"{statistics.median(results_s) * 1000:.1f}",
        )
    stdout_console().print(table)
    return 0
