"""Bars of one metric's mean at each point of a sweep, with the 95 % confidence interval.

One bar per point along a parameter (a scheme, a variant, a link rate) and per series — a
flow, an application, a class — from ``sweep.summary``: the height is the mean over the
replications and the error bar the half-width of the two-sided 95 % Student t interval
(docs/analysis.md), cut at zero below a non-negative mean. Points that differ in the
other parameters are drawn in separate panels.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import count

import numpy as np
from matplotlib.figure import Figure

from qoslab.plot import grouping
from qoslab.plot.errors import PlotError
from qoslab.plot.source import need_sweep, palette, point_label, points, scenario, where
from qoslab.plot.style import (
    category_ticks,
    figure,
    first_column,
    legend,
    panels,
    quantity,
    styled,
    tag,
    title,
    unit,
)

KIND = "bars"
BAR_SPAN = 0.8
"""The share of each category's width taken by its bars."""


@styled
def bars(
    sweep: object,
    metric: str,
    table: str = "flows",
    by: str | None = None,
    group: str | None = None,
    *,
    select: Mapping[str, object] | None = None,
) -> Figure:
    """The mean of ``metric`` of ``table`` at each value of the parameter ``by`` (default:
    the first of the grid), one bar per value of ``group`` (default: the application or
    flow the rows are of), with 95 % confidence intervals as error bars. The other
    parameters of the grid get a panel per combination. ``select`` keeps the rows whose
    columns have the given values, e.g. ``{"point": "end_to_end", "interval_ms": 250}``."""
    source = need_sweep(sweep, KIND)
    frame, keys = grouping.summary_rows(source.summary, table, metric, KIND)
    frame = where(frame, select, KIND)
    parameters = source.parameters
    by = grouping.choose_by(by, parameters, KIND)
    keys = [key for key in keys if key not in parameters]
    group = grouping.choose_group(group, keys, KIND)
    frame = frame.assign(_series=grouping.series_labels(frame, group, keys))
    shown = frame.groupby("_series", sort=False)["mean"].apply(lambda m: m.notna().any())
    labels = [label for label in dict.fromkeys(frame["_series"]) if shown[label]]
    if not labels:
        raise PlotError(f"{KIND}: no run has a value of {metric} in the {table} table")
    frame = frame[frame["_series"].isin(labels)]
    colour = grouping.series_colours(labels, palette(source))
    label, factor = unit(metric, frame["mean"])
    others = [parameter for parameter in parameters if parameter != by]
    facets = points(frame, others)

    fig = figure(len(facets), columns=2 if len(facets) > 1 else 1)
    axes = panels(fig, len(facets), columns=2, sharey=True)
    numbers = count()
    width = BAR_SPAN / len(labels)
    for facet, (axis, (values, rows)) in enumerate(zip(axes, facets, strict=True)):
        categories = list(dict.fromkeys(rows[by])) if by is not None else ["all runs"]
        position = {category: i for i, category in enumerate(categories)}
        for i, series in enumerate(labels):
            part = rows[rows["_series"] == series]
            if part.empty:
                continue
            x = (
                np.array([position[v] for v in part[by]], dtype=float)
                if by is not None
                else np.zeros(len(part))
            )
            x += (i - (len(labels) - 1) / 2) * width
            means = part["mean"].to_numpy(dtype=float) * factor
            halves = part["ci_half_width"].to_numpy(dtype=float) * factor
            container = axis.bar(
                x,
                means,
                width,
                yerr=_error_bars(means, halves),
                color=colour[series],
                label=series if facet == 0 else None,
                error_kw={"ecolor": "#333333", "capsize": 3, "elinewidth": 1},
            )
            number = next(numbers)
            tag(container.patches, "bar", number)
            if container.errorbar is not None:
                tag(container.errorbar.lines[2], "errorbar", number)
        if (frame["mean"].dropna() >= 0).all():
            axis.set_ylim(bottom=0)
        category_ticks(axis, range(len(categories)), categories)
        axis.set_xlabel(grouping.axis_name(by))
        if first_column(axis):
            axis.set_ylabel(label)
        if others:
            axis.set_title(point_label(others, values))
    legend(fig, axes[0])
    title(fig, scenario(source), f"{quantity(metric)} (mean over replications, 95 % CI)")
    return fig


def _error_bars(means: np.ndarray, halves: np.ndarray) -> np.ndarray:
    """The error bars below and above each mean: the interval's half-width, cut at zero
    below a non-negative mean — a delay, a loss or a rate is never negative, however wide
    the interval of a few replications."""
    below = np.where(means >= 0, np.minimum(halves, np.maximum(means, 0)), halves)
    return np.vstack([below, halves])
