"""The tables of a report: which columns of each result table it shows, their headings with
units, and each value as text.

A heading is the column's name without its unit suffix, the unit beneath it (``delay p99`` /
``ms``); bit rates are shown in kbit/s. A value that does not exist is shown as ``-``, as in
the terminal. A sweep's tables show, per point of the grid and row, the mean and the
half-width of its 95 % confidence interval (``12.3 ± 0.4``, :func:`qoslab.analysis.wide`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from qoslab.analysis import wide
from qoslab.analysis.labels import short_headings, spelled_out
from qoslab.experiment.sweep import Sweep
from qoslab.results import Results

MISSING = "-"
"""What a cell shows for a value that does not exist."""

BPS_PER_KBPS = 1000

UNITS = (
    ("_bps", "kbit/s"),
    ("_pct", "%"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_packets", "packets"),
    ("_bytes", "bytes"),
)
"""Column suffixes and the unit shown under a heading, longest match first by order."""

SHOWN_COLUMNS = {
    "flows": (
        "flow",
        "from",
        "to",
        "dscp",
        "sent_packets",
        "received_packets",
        "loss_pct",
        "offered_l3_bps",
        "delivered_l3_bps",
        "delay_mean_ms",
        "delay_p99_ms",
        "delay_max_ms",
        "jitter_rfc3550_ms",
    ),
    "ports": (
        "port",
        "qdisc",
        "rate_bps",
        "sent_packets",
        "dropped_packets",
        "throughput_l3_bps",
        "utilisation_pct",
        "queue_mean_packets",
        "queue_max_packets",
    ),
    "classes": (
        "port",
        "qdisc",
        "class",
        "enqueued_packets",
        "dequeued_packets",
        "dropped_packets",
        "queue_mean_packets",
        "queue_max_packets",
    ),
    "apps": (
        "app",
        "kind",
        "users",
        "transfers_completed",
        "completion_mean_s",
        "completion_p95_s",
        "goodput_bps",
        "jain_index",
        "retransmitted_segments",
        "timeouts",
    ),
    "voice": (
        "flow",
        "codec",
        "playout",
        "network_loss_pct",
        "late_pct",
        "mouth_to_ear_ms",
        "jitter_rfc3550_ms",
        "r",
        "mos",
    ),
    "contracts": (
        "point",
        "app",
        "interval_ms",
        "consumption_mean",
        "in_contract_pct",
        "offered_bps",
        "transported_bps",
        "in_contract_bps",
        "discarded_bps",
    ),
}
"""The columns each report table shows (those present in the results), in order."""

TITLES = {
    "flows": "Flows",
    "ports": "Ports",
    "classes": "Queue classes",
    "apps": "Applications",
    "voice": "Voice quality",
    "contracts": "Quality budgets",
}
"""The heading of each table's section."""

SWEEP_METRICS = {
    "flows": ("loss_pct", "delivered_l3_bps", "delay_mean_ms", "delay_p99_ms", "jitter_rfc3550_ms"),
    "ports": ("utilisation_pct", "dropped_packets", "queue_mean_packets"),
    "classes": ("dequeued_packets", "dropped_packets", "queue_mean_packets"),
    "apps": ("goodput_bps", "completion_mean_s", "retransmitted_segments"),
    "voice": ("mos", "r", "mouth_to_ear_ms", "effective_loss_pct"),
    "contracts": ("in_contract_pct", "consumption_mean"),
}
"""The metrics a sweep's report summarizes per table, in order."""

INTERVAL = "Mean ± half-width of the 95 % confidence interval over the replications."
IDLE_PORTS = "Ports (and their classes) that neither sent nor dropped a packet are left out."

DECIMALS = 2
"""Decimals of a measured value with a fraction."""


@dataclass(frozen=True)
class Heading:
    label: str
    unit: str
    numeric: bool


@dataclass(frozen=True)
class Cell:
    text: str
    numeric: bool


@dataclass(frozen=True)
class Part:
    """The rows of one table of a section: for a sweep, those of one flow, port or
    application (named by ``subtitle``) at every point."""

    subtitle: str
    rows: list[list[Cell]]


@dataclass(frozen=True)
class Table:
    """One section's table, or tables of the same columns, ready to lay out."""

    anchor: str
    title: str
    headings: list[Heading]
    parts: list[Part]
    caption: str = ""


def run_tables(results: Results) -> list[Table]:
    """The run's tables that have rows, in the order of :data:`SHOWN_COLUMNS`."""
    tables = []
    for name, wanted in SHOWN_COLUMNS.items():
        frame: pd.DataFrame = getattr(results, name)
        caption = ""
        if name in ("ports", "classes"):
            frame = frame[frame["port"].isin(_busy_ports(results.ports))]
            caption = IDLE_PORTS
        if frame.empty:
            continue
        columns = [column for column in wanted if column in frame.columns]
        numeric = [pd.api.types.is_numeric_dtype(frame[column]) for column in columns]
        headings = [
            heading(column, is_numeric) for column, is_numeric in zip(columns, numeric, strict=True)
        ]
        rows = [
            [cell(column, record[column]) for column in columns]
            for record in frame[columns].to_dict("records")
        ]
        tables.append(Table(name, TITLES[name], headings, [Part("", rows)], caption))
    return tables


def sweep_tables(sweep: Sweep) -> list[Table]:
    """Per table of the sweep's summary, its main metrics at each point and row as mean ±
    half-width of the 95 % confidence interval."""
    tables = []
    for name, metrics in SWEEP_METRICS.items():
        if name not in sweep.summary:
            continue
        summary = sweep.summary[name]
        summary = summary[summary["metric"].isin(metrics)].copy()
        caption = INTERVAL
        if name in ("ports", "classes"):
            summary = summary[summary["port"].isin(_busy_ports(sweep.runs.ports))]
            caption = f"{INTERVAL} {IDLE_PORTS}"
        if summary.empty:
            continue
        rates = summary["metric"].str.endswith("_bps")
        for statistic in ("mean", "ci_half_width"):
            summary.loc[rates, statistic] = summary.loc[rates, statistic] / BPS_PER_KBPS
        laid_out = wide(summary, decimals=DECIMALS).reset_index()
        shown = [metric for metric in metrics if metric in laid_out.columns]
        groups = [column for column in laid_out.columns if column not in metrics]
        # With a grid, one table per flow, port or application, a row per point: the
        # identity columns name the table instead of repeating on every row.
        parameters = [column for column in groups if column in sweep.parameters]
        identity = [column for column in groups if column not in parameters] if parameters else []
        columns = [column for column in groups if column not in identity]
        headings = [_parameter_heading(column, sweep.parameters) for column in columns]
        headings += [heading(metric, numeric=True) for metric in shown]
        parts = []
        split = (
            laid_out.groupby(identity, sort=False, dropna=False) if identity else [((), laid_out)]
        )
        for names, rows in split:
            values = names if isinstance(names, tuple) else (names,)
            parts.append(
                Part(
                    " · ".join(_text(value) for value in values),
                    [
                        [Cell(_text(record[column]), numeric=False) for column in columns]
                        + [Cell(record[metric] or MISSING, numeric=True) for metric in shown]
                        for record in rows[columns + shown].to_dict("records")
                    ],
                )
            )
        if parameters and spelled_out(parameters):
            caption = f"{caption} {spelled_out(parameters)}."
        tables.append(Table(name, TITLES[name], headings, parts, caption))
    return tables


def _parameter_heading(column: str, parameters: list[str]) -> Heading:
    """A naming column's heading: a varied key by its short name (``output``)."""
    if column in parameters:
        return Heading(short_headings(parameters)[parameters.index(column)], "", False)
    return heading(column, numeric=False)


def _busy(sent: pd.Series, dropped: pd.Series) -> pd.Series:
    """Which ports sent or dropped a packet."""
    return (sent > 0) | (dropped > 0)


def _busy_ports(ports: pd.DataFrame) -> set[str]:
    """The ports that sent or dropped a packet in any run."""
    return set(ports.loc[_busy(ports["sent_packets"], ports["dropped_packets"]), "port"])


def heading(column: str, numeric: bool) -> Heading:
    """The heading of ``column``: its name without the unit suffix, and the unit."""
    for suffix, unit in UNITS:
        if column.endswith(suffix):
            return Heading(column.removesuffix(suffix).replace("_", " "), unit, numeric)
    return Heading(column.replace("_", " "), "", numeric)


def cell(column: str, value: object) -> Cell:
    """A value of ``column`` as text: counts with thousands separators, rates in kbit/s,
    other fractions with :data:`DECIMALS` decimals."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return Cell(MISSING, numeric=True)
    if isinstance(value, bool):
        return Cell(str(value).lower(), numeric=False)
    if isinstance(value, int | float) and column.endswith("_bps"):
        return Cell(f"{value / BPS_PER_KBPS:,.1f}", numeric=True)
    if isinstance(value, float):
        return Cell(f"{value:,.{DECIMALS}f}", numeric=True)
    if isinstance(value, int):
        return Cell(f"{value:,}", numeric=True)
    return Cell(str(value), numeric=False)


def _text(value: object) -> str:
    """A naming value (a parameter, a flow) as text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return str(value)
