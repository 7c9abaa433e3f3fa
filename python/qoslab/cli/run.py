"""``qoslab run``: run a scenario, print the per-flow table and write the result files."""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

import qoslab
from qoslab._core import scenario_counts
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_RUN_FAILED,
    EXIT_STATUS_HELP,
    add_limit_options,
    add_override_options,
    add_variant_option,
    stdout_console,
)
from qoslab.cli.text import counted, plain, visible
from qoslab.output import folder_name
from qoslab.ratetext import format_rate
from qoslab.results import SCHEMAS, check_destination, columns
from qoslab.scenario import pairs, scenario_text

FLOW_COLUMNS = {
    "flow": "flow",
    "sent_packets": "sent\npackets",
    "received_packets": "received\npackets",
    "loss_pct": "loss\n%",
    "delay_mean_ms": "delay mean\nms",
    "delay_p99_ms": "delay p99\nms",
    "delay_max_ms": "delay max\nms",
    "jitter_rfc3550_ms": "jitter\nms",
    "delivered_l3_bps": "delivered\nkbit/s",
}
"""Columns of the printed flow table (those present in the results), with their headings."""

PRINTED_FLOWS = 60
"""Flows the terminal table shows at most; a run with more prints these and one line for the
others (rendering 10,000 rows took most of such a run's time, and nobody reads them there:
every flow is in flows.csv)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "run",
        help=summary("run"),
        description="Run a scenario, print its per-flow measurements and write the result "
        "files (results.json, and each table — flows, classes, ports, delay distributions, "
        "series and the others docs/results.md describes — as CSV and Parquet), with a "
        "per-packet trace, a packet capture or an HTML report when asked.",
        epilog=EXIT_STATUS_HELP,
    )
    command.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    add_variant_option(command)
    add_override_options(command)
    add_limit_options(command)
    command.add_argument(
        "--seed", type=int, metavar="N", help="master seed, replacing the scenario's run.seed"
    )
    command.add_argument(
        "--replication",
        type=int,
        metavar="N",
        help="replication number, replacing the scenario's run.replication",
    )
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        help="folder for the result files, replaced as a whole; it must be new, empty or "
        "hold only earlier results (default: results/<scenario name made safe as a "
        "folder name>)",
    )
    command.add_argument(
        "--pcap",
        type=Path,
        metavar="DIR",
        help="write a packet capture into this folder: one pcap file per port that "
        "measure.pcap names (every port without it), a record per frame as it starts on "
        "the wire",
    )
    command.add_argument(
        "--trace",
        action="store_true",
        help="record the per-packet trace (trace.parquet): every flow at every port unless "
        "the scenario's measure.trace narrows it, up to 10 million rows",
    )
    command.add_argument(
        "--report",
        action="store_true",
        help="also write report.html into the folder: the run as one self-contained HTML "
        "page (see qoslab report)",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    # The folder is checked before the run, so that a long run is not lost to a folder that
    # cannot take its results.
    check_destination(args.output or _default_folder(args))
    started_s = time.perf_counter()
    try:
        results = qoslab.run(
            args.scenario,
            seed=args.seed,
            replication=args.replication,
            variant=args.variant,
            set=args.set,
            progress=sys.stderr.isatty(),
            max_memory=args.max_memory,
            max_events=args.max_events,
            pcap=args.pcap,
            trace=True if args.trace else None,
        )
    except OSError as error:  # a file the run writes (its capture, its trace) failed
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_RUN_FAILED
    wall_s = time.perf_counter() - started_s
    directory = args.output or Path("results") / folder_name(str(results.run["scenario"]))
    report = None
    if args.report:
        from qoslab.report import render  # Jinja2 and matplotlib only when asked

        report = render(results)
    try:
        results.write(directory, report=report)
    except OSError as error:
        print(
            f"error: results not written to {visible(directory)}: {visible(error)}",
            file=sys.stderr,
        )
        return EXIT_RUN_FAILED

    console = stdout_console()
    console.print(_headline(results.run, wall_s))
    for note in results.run.get("notes", []):
        console.print(plain(f"note: {note}"))
    console.print(flow_table(results))
    others = hidden_flows_line(results, directory)
    if others:
        console.print(plain(others))
    for title, table in contract_tables(results):
        console.print(plain(title))
        console.print(table)
    for line in app_lines(results) + probe_lines(results) + voice_lines(results):
        console.print(plain(line))
    for line in port_lines(results):
        console.print(plain(line))
    console.print(plain(f"results written to {directory}"))
    if args.pcap is not None:
        console.print(plain(f"packet capture written to {args.pcap}"))
    return 0


def _default_folder(args: argparse.Namespace) -> Path:
    """``results/<scenario name made safe>``, the name read as the run will read it."""
    text, origin = scenario_text(args.scenario)
    name = scenario_counts(text, origin, pairs(args.set, {}), args.variant)[0]
    return Path("results") / folder_name(name)


def _headline(run: dict[str, object], wall_s: float) -> Text:
    return Text.assemble(
        (visible(run["scenario"]), "bold"),
        f"  seed {run['seed']}, {run['duration_s']:g} s measured after "
        f"{run['warmup_s']:g} s warm-up, {run['created_packets']:,} packets in {wall_time(wall_s)}",
    )


def wall_time(wall_s: float) -> str:
    """A run's wall time as people read it: milliseconds under a second (a short run's
    ``0.00 s`` would say nothing), seconds from there."""
    wall_ms = wall_s * 1e3
    return f"{wall_ms:.1f} ms" if wall_ms < 999.95 else f"{wall_s:.2f} s"


def records(results: qoslab.Results, table: str) -> list[dict[str, Any]]:
    """The rows of ``table`` with each missing number as NaN, as in its DataFrame (the lines
    below read the rows, so that printing them does not load pandas)."""
    numbers = [column["name"] for column in SCHEMAS[table] if column["type"] == "float"]
    return [
        row | {name: math.nan for name in numbers if row[name] is None}
        for row in results.rows(table)
    ]


def flow_table(results: qoslab.Results) -> Table:
    """The per-flow measurements as a table for the terminal."""
    shown = [column for column in FLOW_COLUMNS if column in columns("flows")]
    table = Table(box=box.SIMPLE_HEAD)
    for column in shown:
        table.add_column(FLOW_COLUMNS[column], justify="left" if column == "flow" else "right")
    for record in records(results, "flows")[:PRINTED_FLOWS]:
        table.add_row(*(plain(_cell(column, record[column])) for column in shown))
    return table


def hidden_flows_line(results: qoslab.Results, directory: Path) -> str | None:
    """For a run with more flows than the table shows, one line for the others: how many,
    their packets sent and received, and the worst of their delays; None otherwise."""
    hidden = results.rows("flows")[PRINTED_FLOWS:]
    if not hidden:
        return None
    sent = sum(row["sent_packets"] for row in hidden)
    received = sum(row["received_packets"] for row in hidden)
    worst = [row["delay_max_ms"] for row in hidden if row["delay_max_ms"] is not None]
    delay = f", worst delay {max(worst):.1f} ms" if worst else ""
    return (
        f"and {len(hidden):,} more flows: {sent:,} packets sent, {received:,} received{delay} "
        f"(every flow is in {visible(directory / 'flows.csv')})"
    )


CONTRACT_COLUMNS = {
    "app": "application",
    "consumption_mean": "budget\nconsumed",
    "in_contract_pct": "in contract\n%",
    "in_loss_contract_pct": "in loss\ncontract %",
    "in_delay_contract_pct": "in delay\ncontract %",
    "offered_bps": "offered\nkbit/s",
    "transported_bps": "transported\nkbit/s",
    "in_contract_bps": "in contract\nkbit/s",
    "discarded_bps": "discarded\nkbit/s",
}
"""Columns of the printed contract tables, with their headings."""


def contract_tables(results: qoslab.Results) -> list[tuple[str, Table]]:
    """Per observation point, the applications' budget consumption, time in contract and
    loads over the first ΔQ interval length (all lengths are in the result files)."""
    contracts = records(results, "contracts")
    if not contracts:
        return []
    interval_ms = contracts[0]["interval_ms"]
    tables = []
    for point in dict.fromkeys(record["point"] for record in contracts):
        table = Table(box=box.SIMPLE_HEAD)
        for column, heading in CONTRACT_COLUMNS.items():
            table.add_column(heading, justify="left" if column == "app" else "right")
        for record in contracts:
            if record["point"] != point or record["interval_ms"] != interval_ms:
                continue
            table.add_row(*(plain(_cell(column, record[column])) for column in CONTRACT_COLUMNS))
        title = f"quality budgets at {point}, {interval_ms:g} ms intervals:"
        tables.append((title, table))
    return tables


def voice_lines(results: qoslab.Results) -> list[str]:
    """One line per voice flow — E-model rating, MOS, mouth-to-ear delay and loss — or, for
    the copies of one traffic entry (``voip.1`` ... ``voip.N``), one line with their mean
    and worst, and how many played nothing (they have no rating)."""
    lines = []
    entries: dict[str, list[dict[str, Any]]] = {}
    for record in records(results, "voice"):
        entries.setdefault(re.sub(r"\.\d+$", "", str(record["flow"])), []).append(record)
    for entry, calls in entries.items():
        first = calls[0]
        setting = f"{first['codec']}, {first['playout']} playout"
        rated = [call for call in calls if not math.isnan(call["r"])]
        silent = len(calls) - len(rated)
        if len(calls) == 1:
            line = f"voice {first['flow']} ({setting})"
        elif silent and rated:
            line = (
                f"voice {entry} ({len(calls)} calls, {silent} of which played nothing; "
                f"{setting}, mean and worst of the others)"
            )
        else:
            line = f"voice {entry} ({len(calls)} calls, {setting}, mean and worst)"
        if not rated:
            lines.append(line + ": nothing played")
            continue
        if len(calls) == 1:
            lines.append(
                line + f": R {first['r']:.1f}, MOS {first['mos']:.2f}, mouth-to-ear "
                f"{first['mouth_to_ear_ms']:.1f} ms, lost {first['network_loss_pct']:.2f} % "
                f"+ late {first['late_pct']:.2f} %"
            )
            continue
        r, mos, delay, loss = (
            [call[column] for call in rated if not math.isnan(call[column])]
            for column in ("r", "mos", "mouth_to_ear_ms", "effective_loss_pct")
        )
        lines.append(
            line + f": R {_mean(r):.1f} / {min(r, default=math.nan):.1f}, MOS "
            f"{_mean(mos):.2f} / {min(mos, default=math.nan):.2f}, mouth-to-ear "
            f"{_mean(delay):.1f} / {max(delay, default=math.nan):.1f} ms, "
            f"lost + late {_mean(loss):.2f} / {max(loss, default=math.nan):.2f} %"
        )
    return lines


def app_lines(results: qoslab.Results) -> list[str]:
    """One line per application: goodput, transfers, completion time and TCP repairs."""
    lines = []
    for app in records(results, "apps"):
        line = f"app {app['app']} ({app['kind']}): goodput {format_rate(app['goodput_bps'])}"
        if app["transfers_started"]:
            line += (
                f", {app['transfers_completed']:,} of {app['transfers_started']:,} transfers done"
            )
        mean_s = app["completion_mean_s"]
        if mean_s is not None and not (isinstance(mean_s, float) and math.isnan(mean_s)):
            line += f", mean completion {mean_s:.3f} s (p95 {app['completion_p95_s']:.3f} s)"
        jain = app["jain_index"]
        if app["users"] > 1 and jain is not None and not math.isnan(jain):
            line += f", {app['users']} users (Jain {jain:.3f})"
        line += f", {counted(app['retransmitted_segments'], 'retransmission')}"
        line += f", {counted(app['timeouts'], 'timeout')}"
        lines.append(line)
    return lines


def probe_lines(results: qoslab.Results) -> list[str]:
    """One line per probe: round trips answered, loss (and its split by direction) and
    round-trip times."""
    lines = []
    for probe in records(results, "probes"):
        line = (
            f"probe {probe['probe']} (DSCP {probe['dscp']}): "
            f"{probe['returned_packets']:,} of {probe['sent_packets']:,} returned"
        )
        if probe["returned_packets"]:
            line += (
                f", loss {probe['loss_pct']:.2f} % (out {probe['loss_sd_pct']:.2f}, "
                f"back {probe['loss_ds_pct']:.2f}), RTT mean {probe['rtt_mean_ms']:.2f} ms"
                f" (p95 {probe['rtt_p95_ms']:.2f}, max {probe['rtt_max_ms']:.2f})"
            )
        lines.append(line)
    return lines


def port_lines(results: qoslab.Results) -> list[str]:
    """One line per port that carried traffic or dropped packets, then one per
    replacement of a port's discipline during the run."""
    lines = []
    for port in records(results, "ports"):
        busy_pct = port.get("utilisation_pct", 0.0)
        dropped = port.get("dropped_packets", 0)
        if not busy_pct and not dropped:
            continue
        line = f"port {port['port']}"
        if "qdisc" in port and "rate_bps" in port:
            line += f" ({port['qdisc']}, {format_rate(port['rate_bps'])})"
        line += f": {busy_pct:.1f} % busy"
        if "dropped_packets" in port:
            line += f", {counted(dropped, 'packet')} dropped"
        lines.append(line)
    for change in records(results, "changes"):
        line = (
            f"port {change['port']} at {change['at_s']:g} s: {change['qdisc']} — {change['cause']}"
        )
        if change["handed_over_packets"]:
            line += (
                f" ({change['handed_over_packets']:,} queued packets handed over,"
                f" {change['refused_packets']:,} refused)"
            )
        lines.append(line)
    return lines


def _mean(values: list[float]) -> float:
    """The mean, NaN of none, as pandas gives it."""
    return sum(values) / len(values) if values else math.nan


def _cell(column: str, value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if column.endswith("_bps") and isinstance(value, int | float):
        return f"{value / 1000:,.1f}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
