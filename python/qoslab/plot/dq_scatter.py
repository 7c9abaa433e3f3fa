"""Consumed quality budget per application: the ad-hoc report's scatter diagrams.

Each point is one run's mean budget consumption of one application over the ΔQ intervals
(``contracts`` table, docs/quality.md), on a logarithmic axis: below 1 the application was
within its budget on average. At a port the point is the hop's share of the end-to-end
budget (``end_to_end_consumption_mean``), and marks on the application's row show where the
per-hop budget lies: the per-hop limit divided by the end-to-end one, for delay and for
loss. End to end the point is the consumption itself and the budget is the line at 1.
"""

from __future__ import annotations

from itertools import count
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from qoslab.experiment.sweep import Sweep
from qoslab.plot.contracts import END_TO_END, FIX, at_point
from qoslab.plot.errors import PlotError
from qoslab.plot.source import (
    check_source,
    palette,
    parameters,
    point_label,
    points,
    rows,
    scenario,
)
from qoslab.plot.style import figure, legend, panels, shorten, styled, tag, title

KIND = "dq_scatter"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
"""The marker of each point of a sweep's grid, in grid order."""
LIMITS = (
    ("delay_budget_ms", "|", "per-hop delay budget"),
    ("loss_budget_pct", "x", "per-hop loss budget"),
)


@styled
def dq_scatter(
    results_or_sweep: object, point: str | None = None, *, interval_ms: float | None = None
) -> Figure:
    """Each application's mean budget consumption at ``point`` (default: the first
    observation point), one dot per run, over intervals of ``interval_ms`` (default: the
    first length of ``measure.intervals``)."""
    source = check_source(results_or_sweep, KIND)
    frame = rows(source, "contracts", KIND, FIX)
    chosen, point, interval_ms = at_point(frame, point, interval_ms, KIND)
    consumption = "end_to_end_consumption_mean"
    chosen = chosen[chosen[consumption].notna()]
    if chosen.empty:
        raise PlotError(f"{KIND}: no application has a budget at {point}; {FIX}")
    apps = list(dict.fromkeys(chosen["app"]))
    row = {app: i for i, app in enumerate(apps)}
    colour = palette(source)
    grid = parameters(source)
    grid_points = points(chosen, grid)
    spread = 0.6 / max(len(grid_points), 1)

    fig = figure(1, height_in=max(3.0, 0.45 * len(apps) + 1.6))
    (axis,) = panels(fig, 1)
    numbers = count()
    for k, (values, part) in enumerate(grid_points):
        offset = (k - (len(grid_points) - 1) / 2) * spread
        y = np.array([row[app] for app in part["app"]], dtype=float) + offset
        dots = axis.scatter(
            part[consumption].to_numpy(dtype=float),
            y,
            c=[colour.get(str(app), "#555555") for app in part["app"]],
            marker=MARKERS[k % len(MARKERS)],
            s=28,
            alpha=0.8,
            edgecolors="none",
            label=point_label(grid, values) if grid else None,
        )
        tag(dots, "points", next(numbers))
    if point != END_TO_END:
        _per_hop_marks(axis, frame, chosen, row, interval_ms)
    axis.axvline(1.0, color="#333333", linewidth=1, label="end-to-end budget")
    axis.set_xscale("log")
    axis.set_yticks(range(len(apps)), [shorten(app) for app in apps])
    axis.set_ylim(len(apps) - 0.5, -0.5)
    axis.set_xlabel("consumed share of the end-to-end budget (1 = all of it)")
    legend(fig, axis)
    runs = f", {len(chosen)} points (runs and applications)" if isinstance(source, Sweep) else ""
    title(
        fig,
        scenario(source),
        f"ΔQ budget consumption at {point} ({interval_ms:g} ms intervals{runs})",
    )
    return fig


def _per_hop_marks(
    axis: Axes, frame: pd.DataFrame, chosen: pd.DataFrame, row: dict[str, int], interval_ms: float
) -> None:
    """Where each application's per-hop limits lie on the end-to-end scale."""
    end_to_end = frame[
        (frame["point"] == END_TO_END) & (frame["interval_ms"].astype(float) == interval_ms)
    ]
    whole = end_to_end.drop_duplicates("app").set_index("app")
    hop = chosen.drop_duplicates("app").set_index("app")
    for column, marker, label in LIMITS:
        ratios = []
        for app in hop.index:
            if app not in whole.index:
                continue
            per_hop: Any = hop.at[app, column]
            total: Any = whole.at[app, column]
            if pd.notna(per_hop) and pd.notna(total) and float(total) > 0:
                ratios.append((float(per_hop) / float(total), row[app]))
        if ratios:
            x, y = zip(*ratios, strict=True)
            marks = axis.scatter(
                x, y, marker=marker, s=160, color="#333333", linewidths=1.5, label=label
            )
            tag(marks, "marks", 0 if marker == "|" else 1)
