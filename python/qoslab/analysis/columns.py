"""What each column of the result tables is: part of a row's identity, a description of the
row, or a measurement.

Summarizing replications means putting side by side the rows that describe the same thing in
different runs — the same flow, the same class of the same port's discipline, the same ΔQ
interval — and averaging their measurements. The *identity* columns of a table name its row
within one run; the *descriptive* columns repeat facts of the scenario about that row (its
endpoints, its DSCP, its codec, the link's configured rate, a budget) and are not
measurements, even where they are numbers; every other numeric column is a *metric*. The
lists follow the records the simulator writes (``docs/results.md`` documents each column).

Some identities hold only as far as the runs agree on what they contain: a discipline's
classes are named by the time the discipline was installed (``since_s``) because an interface
replaced during the run lists the classes of every discipline it had, and a change of
discipline by the time it happened (``at_s``); talk spurts are numbered in the order they
were spoken, so spurt 3 of one replication and spurt 3 of another are different talk spurts
put side by side.
"""

from __future__ import annotations

from numbers import Real

import pandas as pd
from pandas.api import types

from qoslab.results import TABLES

IDENTITY_COLUMNS: dict[str, tuple[str, ...]] = {
    "flows": ("flow",),
    "classes": ("port", "since_s", "class"),
    "ports": ("port",),
    "apps": ("app",),
    "users": ("app", "user"),
    "probes": ("probe",),
    "spurts": ("app", "spurt"),
    "hops": ("port", "flow"),
    "changes": ("port", "at_s"),
    "contracts": ("point", "app", "interval_ms"),
    "dq_intervals": ("point", "app", "interval_ms", "start_s"),
    "voice": ("flow",),
    "voice_spurts": ("flow", "spurt"),
    "series": ("flow", "start_s"),
    "class_series": ("port", "since_s", "class", "start_s"),
    "delay_distribution": ("flow", "quantile"),
}
"""The columns that name a row of each table within one run."""

DESCRIPTIVE_COLUMNS: dict[str, tuple[str, ...]] = {
    "flows": (
        "from",
        "to",
        "src_addr",
        "dst_addr",
        "protocol",
        "src_port",
        "dst_port",
        "dscp",
        "pattern",
        "packet_size_bytes",
        "bottleneck",
    ),
    "classes": ("qdisc",),
    "ports": (
        "node",
        "peer",
        "qdisc",
        "rate_bps",
        "bandwidth_bps",
        "l2_overhead_bytes",
        "propagation_ms",
        "mtu_bytes",
        "tx_ring_packets",
    ),
    "apps": ("kind", "from", "to", "users"),
    "users": (),
    "probes": ("from", "to", "dscp"),
    "spurts": ("start_s",),
    "hops": (),
    "changes": ("qdisc", "cause"),
    "contracts": ("delay_budget_ms", "loss_budget_pct", "jitter_budget_ms", "link_bps"),
    "dq_intervals": (),
    "voice": (
        "codec",
        "ie",
        "bpl",
        "playout",
        "playout_buffer_ms",
        "packetization_ms",
        "codec_delay_ms",
    ),
    "voice_spurts": ("start_s",),
    "series": ("app", "interval_s"),
    "class_series": ("qdisc", "interval_s"),
    "delay_distribution": (),
}
"""The columns of each table that describe its row from the scenario: not measurements."""

RUN_COLUMNS = ("replication", "seed")
"""Columns a sweep adds to name the run a row comes from; never metrics."""


def check_table(table: str) -> str:
    """``table`` if it names a result table; otherwise a ``ValueError`` listing them."""
    if table not in IDENTITY_COLUMNS:
        raise ValueError(f"no result table named {table!r} (tables: {', '.join(TABLES)})")
    return table


def identity_columns(table: str) -> tuple[str, ...]:
    """The columns that name a row of ``table`` within one run."""
    return IDENTITY_COLUMNS[check_table(table)]


def descriptive_columns(table: str) -> tuple[str, ...]:
    """The columns of ``table`` that describe a row rather than measure it."""
    return DESCRIPTIVE_COLUMNS[check_table(table)]


def is_numeric(column: pd.Series) -> bool:
    """Whether every value of ``column`` present is a number (booleans count as 0 and 1).

    Columns of a table that was empty in some run hold Python objects after concatenation;
    they are numeric when their values are, and a column with no value at all is numeric
    too, so a measurement that no run could take still appears, with no values.
    """
    if types.is_bool_dtype(column.dtype) or types.is_numeric_dtype(column.dtype):
        return not types.is_complex_dtype(column.dtype)
    if types.is_object_dtype(column.dtype):
        return all(
            isinstance(value, Real) and not isinstance(value, str)
            for value in column.dropna().tolist()
        )
    return False


def metric_columns(frame: pd.DataFrame, excluded: tuple[str, ...]) -> list[str]:
    """The numeric columns of ``frame`` not in ``excluded``, in the frame's order."""
    return [
        name
        for name in frame.columns
        if name not in excluded and name not in RUN_COLUMNS and is_numeric(frame[name])
    ]
