"""Voice quality of every call: its E-model rating R and MOS against the quality bands.

R and MOS per voice flow come from the ``voice`` table (ITU-T G.107 E-model, docs/quality.md).
The shaded bands are the speech transmission quality categories of ITU-T G.109 (09/1999)
Table 1, also given in G.107 Annex B: R 90-100 best, 80-90 high, 70-80 medium, 60-70 low,
50-60 poor, with the MOS at each band's lower limit (4.34, 4.03, 3.60, 3.10, 2.58). Below
R 50 G.109 does not recommend the connection. For a sweep, each bar is the mean over
replications at a point of the grid, with its 95 % confidence interval.
"""

from __future__ import annotations

from itertools import count

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from qoslab.analysis.labels import short_headings
from qoslab.experiment.sweep import Sweep
from qoslab.plot import grouping
from qoslab.plot.source import check_source, palette, point_tick, points, rows, scenario
from qoslab.plot.style import category_ticks, figure, legend, styled, tag, title

KIND = "voice"
BANDS = (
    (90.0, 100.0, 4.34, 4.5, "best", "#1a9850"),
    (80.0, 90.0, 4.03, 4.34, "high", "#91cf60"),
    (70.0, 80.0, 3.60, 4.03, "medium", "#d9ef8b"),
    (60.0, 70.0, 3.10, 3.60, "low", "#fee08b"),
    (50.0, 60.0, 2.58, 3.10, "poor", "#fc8d59"),
)
"""G.109 Table 1: R range, MOS range (its lower limits), category, and the band's shade."""
TURN_AFTER = 12
"""A sweep's point labels are turned when there are more than this many."""
FIX = "voice flows are those with a codec pattern, push-to-talk, or measure.voice.flows"


@styled
def voice(results_or_sweep: object) -> Figure:
    """R (left) and MOS (right) of every voice call, over the G.109 quality bands; for a
    sweep, per point of the grid with 95 % confidence intervals."""
    source = check_source(results_or_sweep, KIND)
    rows(source, "voice", KIND, FIX)
    colour = palette(source)
    if isinstance(source, Sweep):
        # A sweep's points need the figure's width: the two panels one above the other.
        fig = figure(2, columns=1)
        left, right = fig.subplots(2, 1, sharex=True)
    else:
        fig = figure(2, columns=2, height_in=4.2)
        left, right = fig.subplots(1, 2)
    numbers = count()
    for axis, metric, scale in ((left, "r", "R"), (right, "mos", "MOS")):
        # The band names go beside the panel the legend is not beside.
        _bands(axis, metric, named=axis is (right if isinstance(source, Sweep) else left))
        if isinstance(source, Sweep):
            _sweep_bars(axis, source, metric, colour, axis is left, numbers)
        else:
            _run_bars(axis, source.voice, metric, colour, numbers)
        axis.set_ylabel(scale)
    legend(fig, left)
    title(fig, scenario(source), "voice quality per call (ITU-T G.107 E-model)")
    return fig


def _bands(axis: Axes, metric: str, named: bool) -> None:
    """The G.109 bands as shades; ``named``: with each band's name at its right."""
    for r_low, r_high, mos_low, mos_high, name, shade in BANDS:
        low, high = (r_low, r_high) if metric == "r" else (mos_low, mos_high)
        axis.axhspan(low, high, color=shade, alpha=0.35, linewidth=0, zorder=0)
        if not named:
            continue
        axis.text(
            1.0,
            (low + high) / 2,
            f" {name}",
            transform=axis.get_yaxis_transform(),
            va="center",
            ha="left",
            fontsize="small",
            color="#444444",
        )
    if metric == "r":
        axis.set_ylim(0, 100)
    else:
        axis.set_ylim(1, 4.5)


def _run_bars(
    axis: Axes, frame: pd.DataFrame, metric: str, colour: dict[str, str], numbers: count
) -> None:
    calls = list(frame["flow"].astype(str))
    container = axis.bar(
        range(len(calls)),
        frame[metric].to_numpy(dtype=float),
        0.7,
        color=[colour.get(call, "#555555") for call in calls],
        zorder=2,
    )
    tag(container.patches, "bar", next(numbers))
    category_ticks(axis, range(len(calls)), calls)


def _sweep_bars(
    axis: Axes,
    sweep: Sweep,
    metric: str,
    colour: dict[str, str],
    labelled: bool,
    numbers: count,
) -> None:
    frame, _ = grouping.summary_rows(sweep.summary, "voice", metric, KIND)
    grid = sweep.parameters
    grid_points = points(frame, grid)
    calls = list(dict.fromkeys(frame["flow"].astype(str)))
    width = 0.8 / len(calls)
    for i, call in enumerate(calls):
        means, errors = [], []
        for _, part in grid_points:
            one = part[part["flow"].astype(str) == call]
            means.append(float(one["mean"].iloc[0]) if len(one) else np.nan)
            errors.append(float(one["ci_half_width"].iloc[0]) if len(one) else np.nan)
        x = np.arange(len(grid_points)) + (i - (len(calls) - 1) / 2) * width
        container = axis.bar(
            x,
            means,
            width,
            yerr=errors,
            color=colour.get(call, "#555555"),
            label=call if labelled else None,
            zorder=2,
            error_kw={"ecolor": "#333333", "capsize": 2, "elinewidth": 1},
        )
        number = next(numbers)
        tag(container.patches, "bar", number)
        if container.errorbar is not None:
            tag(container.errorbar.lines[2], "errorbar", number)
    labels = [point_tick(grid, values) if grid else "all runs" for values, _ in grid_points]
    category_ticks(axis, range(len(grid_points)), labels, turn_after=TURN_AFTER)
    if grid and not labelled:
        axis.set_xlabel(" / ".join(short_headings(grid)))
