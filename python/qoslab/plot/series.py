"""Per-interval time series of each flow, from the ``series`` table (``measure.series``).

Each flow's value in every interval — delivered bit rate, loss, mean and largest delay,
RFC 3550 jitter (docs/quality.md, per-interval series) — drawn at the interval's middle. An
interval in which nothing happened to the flow has no row: its delivered and lost counts are
drawn as 0 and its loss, delay and jitter are left as a gap (they do not exist). For a sweep,
each point of the grid is a panel and its replications are overlaid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import count
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from qoslab.plot.errors import PlotError
from qoslab.plot.source import (
    check_source,
    palette,
    parameters,
    point_label,
    points,
    replications,
    rows,
    scenario,
    where,
)
from qoslab.plot.style import (
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

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType

KIND = "series"

ALIASES = {
    "delay": ("delay_mean_ms", "delay_max_ms"),
    "jitter": ("jitter_rfc3550_ms",),
    "loss": ("loss_pct",),
    "throughput": ("delivered_bps",),
}
"""Short names for the usual metrics; ``delay`` draws the mean solid and the largest dashed."""

NOT_METRICS = ("flow", "app", "start_s", "interval_s", "replication")
ZERO_WHEN_ABSENT = ("delivered_packets", "delivered_bps", "lost_packets")
"""Counts that are 0 in an interval without a row; the other columns do not exist there."""
DASHES: tuple[LineStyleType, ...] = ("-", "--", ":", "-.")
"""The line style of each column of a metric (mean solid, max dashed)."""

FIX = "ask for it with measure.series in the scenario (e.g. measure: {series: 1s})"


@styled
def series(
    results_or_sweep: object,
    metric: str,
    flows: Sequence[str] | None = None,
    *,
    select: Mapping[str, object] | None = None,
) -> Figure:
    """``metric`` of each flow in each interval: a column of the series table, or one of
    ``delay`` (mean and largest), ``jitter``, ``loss``, ``throughput``. ``flows`` limits the
    flows drawn. For a sweep, a panel per point of the grid (``select`` keeps some, e.g.
    ``{"interfaces.r1.r2.output": "llq"}``) with every replication overlaid."""
    source = check_source(results_or_sweep, KIND)
    frame = rows(source, "series", KIND, FIX)
    columns = _columns(metric, frame)
    frame = _flows(frame, flows)
    frame = where(frame, select, KIND)
    grid = parameters(source)
    facets = points(frame, grid)
    colour = palette(results_or_sweep)  # type: ignore[arg-type]
    label, factor = unit(columns[0], frame[columns[0]], metric if metric in ALIASES else None)

    fig = figure(len(facets), columns=2 if len(facets) > 1 else 1)
    axes = panels(fig, len(facets), columns=2, sharey=True)
    numbers = count()
    for facet, (axis, (values, part)) in enumerate(zip(axes, facets, strict=True)):
        for run_number, (_, one_run) in enumerate(replications(part)):
            for flow, flow_rows in one_run.groupby("flow", sort=True):
                first = facet == 0 and run_number == 0
                _draw(
                    axis,
                    flow_rows,
                    columns,
                    factor,
                    colour.get(str(flow), "#555555"),
                    str(flow) if first else None,
                    numbers,
                )
        axis.set_xlabel("time since the run began (s)")
        if first_column(axis):
            axis.set_ylabel(label)
        if grid:
            axis.set_title(point_label(grid, values))
    if len(columns) > 1:
        _style_key(axes[0], columns)
    legend(fig, axes[0])
    shown = metric if metric in ALIASES else quantity(metric)
    every = f"{frame['interval_s'].iloc[0]:g} s"
    title(fig, scenario(results_or_sweep), f"{shown} per {every} interval")  # type: ignore[arg-type]
    return fig


def _columns(metric: str, frame: pd.DataFrame) -> tuple[str, ...]:
    if metric in ALIASES:
        return ALIASES[metric]
    metrics = [c for c in frame.columns if c not in NOT_METRICS and _numeric(frame[c])]
    if metric not in metrics:
        known = ", ".join([*ALIASES, *metrics])
        raise PlotError(f"{KIND}: no metric {metric!r} in the series table (metrics: {known})")
    return (metric,)


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _flows(frame: pd.DataFrame, flows: Sequence[str] | None) -> pd.DataFrame:
    if not flows:
        return frame
    known = list(dict.fromkeys(frame["flow"]))
    unknown = [flow for flow in flows if flow not in known]
    if unknown:
        raise PlotError(
            f"{KIND}: no series of flow {', '.join(map(repr, unknown))} (flows: {', '.join(known)})"
        )
    return frame[frame["flow"].isin(flows)]


def _draw(
    axis: Axes,
    rows_of_flow: pd.DataFrame,
    columns: Sequence[str],
    factor: float,
    colour: str,
    label: str | None,
    numbers: count,
) -> None:
    """One flow of one run: every interval from its first to its last row, gaps where a
    value does not exist."""
    interval_s = float(rows_of_flow["interval_s"].iloc[0])
    slot = np.rint(rows_of_flow["start_s"].to_numpy(dtype=float) / interval_s).astype(int)
    every = np.arange(slot.min(), slot.max() + 1)
    middle_s = (every + 0.5) * interval_s
    for dash, column in zip(DASHES, columns, strict=False):
        values = pd.Series(rows_of_flow[column].to_numpy(dtype=float), index=slot)
        fill = 0.0 if column in ZERO_WHEN_ABSENT else np.nan
        values = values.reindex(every, fill_value=fill)
        (line,) = axis.plot(
            middle_s,
            values.to_numpy() * factor,
            dash,
            color=colour,
            linewidth=1.3,
            label=label if dash == DASHES[0] else None,
        )
        tag(line, "line", next(numbers))


def _style_key(axis: Axes, columns: Sequence[str]) -> None:
    """Grey lines in the legend saying which line style is which column."""
    for dash, column in zip(DASHES, columns, strict=False):
        axis.add_line(Line2D([], [], linestyle=dash, color="#777777", label=quantity(column)))
