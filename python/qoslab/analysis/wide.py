"""A summary laid out for reading: one row per configuration and table row, one column per
metric, each cell the mean and the half-width of its confidence interval (``12.3 ± 0.4``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from qoslab.analysis.summary import STATISTIC_COLUMNS


def wide(summary: pd.DataFrame, *, decimals: int = 3) -> pd.DataFrame:
    """The long table of :func:`qoslab.analysis.summarize` with its metrics side by side.

    The index holds the group columns (those before ``metric``) in the summary's order; each
    metric becomes a column, in the order it first appears, whose cells read
    ``"mean ± ci_half_width"`` rounded to ``decimals`` decimals, the mean alone when there is
    no interval (one replication) and an empty string when there is no value at all.
    """
    if "metric" not in summary.columns or any(c not in summary for c in STATISTIC_COLUMNS):
        raise ValueError("not a summary: expected the columns of qoslab.analysis.summarize")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be a whole number from 0, not {decimals!r}")
    groups = list(summary.columns[: list(summary.columns).index("metric")])
    metrics = list(pd.unique(summary["metric"]))
    column_of = {metric: k for k, metric in enumerate(metrics)}
    if groups:
        ids = summary.groupby(groups, sort=False, dropna=False).ngroup().to_numpy()
    else:
        ids = np.zeros(len(summary), dtype=np.int64)
    _, first_rows = np.unique(ids, return_index=True)
    grid = [[""] * len(metrics) for _ in first_rows]
    filled = set()
    for group, metric, mean, half_width in zip(
        ids, summary["metric"], summary["mean"], summary["ci_half_width"], strict=True
    ):
        if (group, metric) in filled:
            raise ValueError(f"the summary holds metric {metric!r} twice for one group")
        filled.add((group, metric))
        grid[group][column_of[metric]] = _cell(mean, half_width, decimals)
    keys = summary[groups].iloc[first_rows]
    if not groups:
        index = None
    elif len(groups) == 1:
        index = pd.Index(keys[groups[0]], name=groups[0])
    else:
        index = pd.MultiIndex.from_frame(keys)
    return pd.DataFrame(grid, index=index, columns=metrics)


def _cell(mean: float, half_width: float, decimals: int) -> str:
    """One cell: the mean and half-width as text."""
    if math.isnan(mean):
        return ""
    if math.isnan(half_width):
        return f"{mean:.{decimals}f}"
    return f"{mean:.{decimals}f} ± {half_width:.{decimals}f}"
