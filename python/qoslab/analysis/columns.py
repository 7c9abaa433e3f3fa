"""What each column of the result tables is: part of a row's identity, a description of the
row, or a measurement.

Summarizing replications means putting side by side the rows that describe the same thing in
different runs — the same flow, the same class of the same port's discipline, the same ΔQ
interval — and averaging their measurements. The *identity* columns of a table name its row
within one run; the *descriptive* columns repeat facts of the scenario about that row (its
endpoints, its DSCP, its codec, the link's configured rate, a budget) and are not
measurements, even where they are numbers; every other numeric column is a *metric*
(``docs/results.md`` documents each column).

Some identities hold only as far as the runs agree on what they contain: a discipline's
classes are named by the time the discipline was installed (``since_s``) because an interface
replaced during the run lists the classes of every discipline it had, and a change of
discipline by the time it happened (``at_s``); talk spurts are numbered in the order they
were spoken, so spurt 3 of one replication and spurt 3 of another are different talk spurts
put side by side.

The roles are the core's: each record marks its key columns and its descriptive ones
(``crates/qoslab-core/src/report/``), and ``qoslab._core.table_schemas()`` hands them over.
"""

from __future__ import annotations

from numbers import Real

import pandas as pd
from pandas.api import types

from qoslab._core import table_schemas
from qoslab.results import TABLES


def _roles() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Each table's key columns in key order, and its descriptive columns in row order, as
    the core's schemas mark them (``key``, ``descriptive``)."""
    identity, descriptive = {}, {}
    for table, columns in table_schemas().items():
        if table == "run":
            continue
        keyed = sorted((column["key"], column["name"]) for column in columns if column["key"])
        identity[table] = tuple(name for _, name in keyed)
        descriptive[table] = tuple(c["name"] for c in columns if c["descriptive"])
    return identity, descriptive


IDENTITY_COLUMNS, DESCRIPTIVE_COLUMNS = _roles()
"""The columns that name a row of each table within one run, and those that describe its
row from the scenario (not measurements), from the core's table schemas."""

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
