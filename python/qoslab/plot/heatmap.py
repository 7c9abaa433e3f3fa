"""A metric's mean at every point of a sweep and for every flow (or application) as one grid of
coloured cells: a row per series, a column per point, each cell written with its value.

Grouped bars stop being readable past a handful of series: with 15 flows at 9 points a bar
is a few pixels wide and its legend needs two columns. A heat map keeps every value legible
whatever the number of series, and shows at a glance where along the grid a flow suffers.
The colour scale is logarithmic when the values are all positive and span more than two
decades (a delay from 10 ms to 10 s), linear otherwise; the values come from
``sweep.summary`` (mean over the replications) and are written in each cell to three
significant figures.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import LogNorm, Normalize
from matplotlib.figure import Figure

from qoslab.analysis.labels import short_headings
from qoslab.plot import grouping
from qoslab.plot.errors import PlotError
from qoslab.plot.source import need_sweep, point_tick, points, scenario
from qoslab.plot.style import figure, shorten, styled, tag, title, unit

KIND = "heatmap"
ROW_HEIGHT_IN = 0.28
"""Height of one series' row."""
LOG_DECADES = 2.0
"""Positive values spanning more than this many decades get a logarithmic colour scale."""
MAX_WRITTEN_CELLS = 400
"""Beyond this many cells the values are left out of the cells (the colour remains)."""


@styled
def heatmap(sweep: object, metric: str, table: str = "flows") -> Figure:
    """The mean of ``metric`` of ``table`` at each point of the sweep (columns) for each flow
    or application (rows), as coloured cells written with their values."""
    source = need_sweep(sweep, KIND)
    frame, keys = grouping.summary_rows(source.summary, table, metric, KIND)
    parameters = source.parameters
    keys = [key for key in keys if key not in parameters]
    group = grouping.choose_group(None, keys, KIND)
    frame = frame.assign(_series=grouping.series_labels(frame, group, keys))
    series = list(dict.fromkeys(frame["_series"]))
    grid = points(frame, parameters)
    label, factor = unit(metric, frame["mean"])
    values = np.full((len(series), len(grid)), np.nan)
    for column, (_, rows) in enumerate(grid):
        for name, mean in zip(rows["_series"], rows["mean"], strict=True):
            values[series.index(name), column] = float(mean) * factor
    if not np.isfinite(values).any():
        raise PlotError(f"{KIND}: no run has a value of {metric} in the {table} table")

    fig = figure(1, height_in=max(2.4, 1.6 + ROW_HEIGHT_IN * len(series)))
    axis = fig.subplots()
    norm = _norm(values)
    mesh = axis.pcolormesh(np.ma.masked_invalid(values), cmap="viridis", norm=norm)
    tag(mesh, "heatmap", 0)
    if values.size <= MAX_WRITTEN_CELLS:
        _write_values(axis, values, norm)
    axis.set_yticks(np.arange(len(series)) + 0.5, [shorten(name) for name in series])
    axis.set_ylim(len(series), 0)
    ticks = [point_tick(parameters, key) if parameters else "all runs" for key, _ in grid]
    axis.set_xticks(np.arange(len(grid)) + 0.5, ticks, fontsize="small")
    axis.grid(False)
    if parameters:
        axis.set_xlabel(" / ".join(short_headings(parameters)))
    fig.colorbar(mesh, ax=axis, label=label, pad=0.02)
    title(fig, scenario(source), f"{label} per {group or 'row'} and point (mean over replications)")
    return fig


def _norm(values: np.ndarray) -> Normalize:
    """A logarithmic scale for positive values spanning many decades, else a linear one."""
    finite = values[np.isfinite(values)]
    low, high = float(finite.min()), float(finite.max())
    if low > 0 and np.log10(high / low) > LOG_DECADES:
        return LogNorm(vmin=low, vmax=high)
    return Normalize(vmin=min(low, 0.0), vmax=high if high > low else low + 1)


def _write_values(axis: Axes, values: np.ndarray, norm: Normalize) -> None:
    """Each cell's value, in white on dark cells and black on light ones."""
    for row, column in np.ndindex(values.shape):
        value = values[row, column]
        if not np.isfinite(value):
            axis.text(column + 0.5, row + 0.5, "-", ha="center", va="center", fontsize="x-small")
            continue
        shade = float(norm(value))
        axis.text(
            column + 0.5,
            row + 0.5,
            f"{value:.3g}",
            ha="center",
            va="center",
            fontsize="x-small",
            color="white" if shade < 0.6 else "black",
        )
