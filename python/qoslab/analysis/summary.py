"""Summaries of replicated runs: per configuration, row and metric, the mean of the
replications with its confidence interval.

A sweep runs each configuration (parameter values and variant) several times with different
random streams and concatenates each result table of every run, adding the parameter columns
and ``replication``. :func:`summarize` groups such a table by the configuration columns and
the table's row identity (``qoslab.analysis.columns``) and describes each metric over the
replications in one long table (one row per group and metric); ``qoslab.analysis.interval``
explains the statistics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from qoslab.analysis.columns import (
    descriptive_columns,
    identity_columns,
    is_numeric,
    metric_columns,
)
from qoslab.analysis.interval import check_interval, group_statistics
from qoslab.analysis.ordering import group_codes

STATISTIC_COLUMNS = ("n", "mean", "sd", "ci_half_width", "ci_low", "ci_high", "min", "max")
"""The statistics of each metric in a summary, in order after the group and ``metric``."""


def summarize(
    frame: pd.DataFrame,
    by: str | Sequence[str] = (),
    *,
    table: str | None = None,
    keys: str | Sequence[str] | None = None,
    metrics: str | Sequence[str] | None = None,
    replication: str = "replication",
    confidence: float = 0.95,
    interval: str = "t",
    order: Mapping[str, Sequence[object]] | None = None,
) -> pd.DataFrame:
    """Each metric of ``frame`` over the replications, per configuration and row.

    ``frame`` is a result table of several runs concatenated (one row per run and table
    row); ``by`` names the columns that tell configurations apart (the sweep's parameter
    columns and ``variant``). ``table`` names the result table ``frame`` comes from
    (``"flows"``, ``"contracts"`` …), which gives the row identity (``flow``; ``point``,
    ``app``, ``interval_ms`` …) and the descriptive columns that are not metrics;
    ``keys`` gives the identity instead, or overrides the table's. ``metrics`` chooses the
    metrics; by default they are every numeric column that is neither a ``by`` or key
    column, descriptive, ``replication`` nor ``seed``, in the frame's order. Booleans count
    as 0 and 1, so the mean of one is the share of replications where it held; missing
    values (``None``, NaN, ``pd.NA``) are left out of ``n`` and of every statistic.

    Returns one row per group and metric with the columns ``*by``, ``*keys``, ``metric``,
    ``n``, ``mean``, ``sd`` (sample, divisor n - 1), ``ci_half_width``, ``ci_low``,
    ``ci_high`` (two-sided, at ``confidence``; ``interval="t"`` for Student's t with n - 1
    degrees of freedom, ``"normal"`` for the normal approximation), ``min`` and ``max``.
    Groups are sorted by the ``by`` columns, then the keys: each column in the order that
    ``order`` gives for it (``{"variant": ["fifo", "llq"]}``), or its categories if it is
    categorical, else numbers by value, then text, missing values last; within a group the
    metrics follow the frame's column order. The result depends only on the rows, not on
    the order they arrive in: it is the same, bit for bit, for any shuffle of them.

    Raises ``ValueError`` when a named column is missing or not numeric, when the frame holds
    two rows of one replication in one group (the ``by`` columns leave out a parameter, or
    the keys do not name a row), or when ``confidence``, ``interval`` or ``order`` are
    invalid.
    """
    check_interval(confidence, interval)
    by = _names(by)
    if keys is None:
        if table is None:
            raise ValueError(
                "name the result table (table='flows') or the columns naming a row (keys=[...])"
            )
        keys = identity_columns(table)
    keys = _names(keys)
    descriptive = descriptive_columns(table) if table is not None else ()
    grouping = [*by, *(key for key in keys if key not in by)]
    _check_present(frame, grouping)
    order = dict(order or {})
    unknown = sorted(set(order) - set(grouping))
    if unknown:
        raise ValueError(f"order names columns that are not grouped by: {', '.join(unknown)}")
    chosen = _metrics(frame, metrics, (*grouping, replication), descriptive)
    _check_one_row_per_replication(frame, grouping, replication)

    codes, group_count = group_codes(frame, grouping, order)
    _, first_rows = np.unique(codes, return_index=True)
    groups = frame[grouping].iloc[first_rows].reset_index(drop=True)
    columns: dict[str, list[np.ndarray]] = {name: [] for name in STATISTIC_COLUMNS}
    for metric in chosen:
        values = frame[metric].to_numpy(dtype=np.float64, na_value=np.nan)
        statistics = group_statistics(values, codes, group_count, confidence, interval)
        for name in STATISTIC_COLUMNS:
            columns[name].append(getattr(statistics, name))

    rows = groups.iloc[np.repeat(np.arange(group_count), len(chosen))].reset_index(drop=True)
    rows["metric"] = pd.Series(np.tile(np.array(chosen, dtype=object), group_count), dtype=object)
    for name in STATISTIC_COLUMNS:
        stacked = np.column_stack(columns[name]) if chosen else np.empty((group_count, 0))
        rows[name] = stacked.reshape(-1).astype(np.int64 if name == "n" else np.float64)
    return rows[[*grouping, "metric", *STATISTIC_COLUMNS]]


def _names(names: str | Sequence[str]) -> list[str]:
    """Column names given as one name or a sequence, as a list."""
    return [names] if isinstance(names, str) else list(names)


def _check_present(frame: pd.DataFrame, names: Sequence[str]) -> None:
    """Raise ``ValueError`` naming the first of ``names`` that ``frame`` has no column for."""
    for name in names:
        if name not in frame.columns:
            known = ", ".join(map(str, frame.columns)) or "none"
            raise ValueError(f"the frame has no column {name!r} (columns: {known})")


def _metrics(
    frame: pd.DataFrame,
    metrics: str | Sequence[str] | None,
    naming: tuple[str, ...],
    descriptive: tuple[str, ...],
) -> list[str]:
    """The metric columns: those asked for (any numeric column but the ``naming`` ones, which
    tell groups and runs apart), or every numeric column neither naming nor descriptive."""
    if metrics is None:
        return metric_columns(frame, (*naming, *descriptive))
    chosen = _names(metrics)
    _check_present(frame, chosen)
    for name in chosen:
        if name in naming:
            raise ValueError(f"{name!r} names groups or runs; it cannot also be a metric")
        if not is_numeric(frame[name]):
            raise ValueError(f"column {name!r} is not numeric, so it cannot be summarized")
    return chosen


def _check_one_row_per_replication(
    frame: pd.DataFrame, grouping: Sequence[str], replication: str
) -> None:
    """Raise ``ValueError`` if a group holds two rows of one replication."""
    if replication not in frame.columns:
        return
    repeated = frame.duplicated([*grouping, replication], keep=False)
    if repeated.any():
        example = frame.loc[repeated, [*grouping, replication]].iloc[0].to_dict()
        raise ValueError(
            f"{int(repeated.sum())} rows share their group and {replication!r} with another "
            f"row (for example {example}): add the columns that tell them apart (a parameter "
            "or variant column to `by`, or an identity column to `keys`)"
        )
