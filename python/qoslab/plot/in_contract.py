"""Share of time in contract per application across one parameter of a sweep: the ad-hoc
report's "per-app percentage in contract" charts.

For each application with a budget, the mean over replications of the share of ΔQ intervals
in which every component was within its limit (``in_contract_pct``, docs/quality.md) at each
value of the parameter, joined by lines, with the 95 % confidence interval as error bars.
Points that differ in the other parameters are drawn in separate panels. The same chart of
the share within the delay limit alone, the loss limit or the jitter limit (the report's
"in-delay" and "in-loss contract" charts) is drawn with ``metric``.
"""

from __future__ import annotations

from itertools import count

import numpy as np
from matplotlib.figure import Figure

from qoslab.plot import grouping
from qoslab.plot.contracts import at_point
from qoslab.plot.errors import PlotError
from qoslab.plot.source import TOTALS, need_sweep, palette, point_label, points, scenario
from qoslab.plot.style import (
    category_ticks,
    figure,
    first_column,
    legend,
    panels,
    styled,
    tag,
    title,
)

KIND = "in_contract"
METRIC = "in_contract_pct"
METRICS = {
    "in_contract_pct": ("in contract", "intervals in contract (%)"),
    "in_delay_contract_pct": ("within the delay limit", "intervals within the delay limit (%)"),
    "in_loss_contract_pct": ("within the loss limit", "intervals within the loss limit (%)"),
    "in_jitter_contract_pct": ("within the jitter limit", "intervals within the jitter limit (%)"),
}
"""The shares of the contracts table it draws, each with its words and its axis label."""


@styled
def in_contract(
    sweep: object,
    by: str | None = None,
    *,
    point: str | None = None,
    interval_ms: float | None = None,
    metric: str = METRIC,
) -> Figure:
    """The share of intervals in contract of every application with a budget, along the
    parameter ``by`` (default: the first of the grid), at ``point`` (default: the first
    observation point) over intervals of ``interval_ms`` (default: the first length);
    ``metric`` draws another share of :data:`METRICS` (within the delay limit alone, ...)."""
    source = need_sweep(sweep, KIND)
    if metric not in METRICS:
        raise PlotError(f"{KIND}: no share {metric!r} (shares: {', '.join(METRICS)})")
    words, label = METRICS[metric]
    frame, _ = grouping.summary_rows(source.summary, "contracts", metric, KIND)
    frame, point, interval_ms = at_point(frame, point, interval_ms, KIND)
    frame = frame[~frame["app"].isin(TOTALS) & frame["mean"].notna()]
    if frame.empty:
        raise PlotError(f"{KIND}: no application has a budget at {point}")
    parameters = source.parameters
    by = grouping.choose_by(by, parameters, KIND)
    others = [parameter for parameter in parameters if parameter != by]
    facets = points(frame, others)
    colour = palette(source)

    fig = figure(len(facets), columns=2 if len(facets) > 1 else 1)
    axes = panels(fig, len(facets), columns=2, sharey=True)
    numbers = count()
    for facet, (axis, (values, part)) in enumerate(zip(axes, facets, strict=True)):
        categories = list(dict.fromkeys(part[by])) if by is not None else ["all runs"]
        position = {category: i for i, category in enumerate(categories)}
        for app, rows in part.groupby("app", sort=False):
            x = (
                np.array([position[v] for v in rows[by]], dtype=float)
                if by
                else np.zeros(len(rows))
            )
            drawn = axis.errorbar(
                x,
                rows["mean"].to_numpy(dtype=float),
                yerr=rows["ci_half_width"].to_numpy(dtype=float),
                marker="o",
                markersize=4,
                capsize=3,
                color=colour.get(str(app), "#555555"),
                label=str(app) if facet == 0 else None,
            )
            number = next(numbers)
            tag(drawn.lines[0], "line", number)
            tag(drawn.lines[2], "errorbar", number)
        category_ticks(axis, range(len(categories)), categories)
        axis.set_ylim(-3, 103)
        axis.set_xlabel(grouping.axis_name(by))
        if first_column(axis):
            axis.set_ylabel(label)
        if others:
            axis.set_title(point_label(others, values))
    legend(fig, axes[0])
    title(
        fig,
        scenario(source),
        f"time {words} at {point} ({interval_ms:g} ms intervals), mean and 95 % CI",
    )
    return fig
