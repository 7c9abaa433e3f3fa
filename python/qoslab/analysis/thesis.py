"""The layout of replicated measurements in trial tables: each trial, then its statistics.

Studies of voice over land mobile radio report a configuration's metrics as a table whose
rows are the trials T1 … Tn (the replications, in order), then M (their mean), SD (sample
standard deviation), M-X and M+X (the lower and upper bounds of the confidence interval,
X being its half-width) and Max (the largest trial); the metrics are the columns.
:func:`thesis_table` builds that table for one configuration and one row of a result table;
``qoslab.analysis.interval`` explains the statistics. Published tables of this kind often
took X from the normal approximation (1.96 · SD / √n at 95 %): ``interval="normal"``
reproduces them, the default Student t gives the exact small-sample interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from qoslab.analysis.columns import is_numeric
from qoslab.analysis.interval import check_interval, group_statistics
from qoslab.analysis.ordering import ranks

STATISTIC_ROWS = ("M", "SD", "M-X", "M+X", "Max")
"""The rows after the trials, in order."""


def thesis_table(
    frame: pd.DataFrame,
    metrics: str | Sequence[str],
    replication: str = "replication",
    *,
    confidence: float = 0.95,
    interval: str = "t",
) -> pd.DataFrame:
    """The trials of ``metrics`` and their statistics, one column per metric.

    ``frame`` holds one configuration's rows for one table row (one flow, one class …), one
    row per replication, told apart by the ``replication`` column: filter a sweep's table
    first. The index is ``T1`` … ``Tn`` (replications in ascending order), ``M``, ``SD``,
    ``M-X``, ``M+X`` and ``Max``; ``confidence`` and ``interval`` (``"t"`` or ``"normal"``)
    choose the interval as in :func:`qoslab.analysis.summarize`. A missing value shows as NaN
    in its trial row and is left out of the statistics.

    Raises ``ValueError`` when a column is missing or not numeric, when the frame is empty,
    or when two rows share a replication (the frame holds more than one configuration or
    row).
    """
    check_interval(confidence, interval)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    for name in [replication, *names]:
        if name not in frame.columns:
            known = ", ".join(map(str, frame.columns)) or "none"
            raise ValueError(f"the frame has no column {name!r} (columns: {known})")
    for name in names:
        if not is_numeric(frame[name]):
            raise ValueError(f"column {name!r} is not numeric, so it cannot be summarized")
    if frame.empty:
        raise ValueError("the frame has no rows: there are no trials to show")
    repeated = frame[replication].duplicated(keep=False)
    if repeated.any():
        shared = sorted({repr(value) for value in frame.loc[repeated, replication]})
        raise ValueError(
            f"several rows share {replication} {', '.join(shared)}: keep one configuration "
            "and one table row (filter by the parameter, variant and identity columns)"
        )
    trials = frame.iloc[np.argsort(ranks(frame[replication]), kind="stable")]
    one_group = np.zeros(len(trials), dtype=np.int64)
    table: dict[str, np.ndarray] = {}
    for name in names:
        values = trials[name].to_numpy(dtype=np.float64, na_value=np.nan)
        s = group_statistics(values, one_group, 1, confidence, interval)
        table[name] = np.concatenate(
            [values, [s.mean[0], s.sd[0], s.ci_low[0], s.ci_high[0], s.max[0]]]
        )
    index = [f"T{k}" for k in range(1, len(trials) + 1)] + list(STATISTIC_ROWS)
    return pd.DataFrame(table, index=pd.Index(index), columns=names)
