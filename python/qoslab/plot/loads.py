"""Offered, transported and in-contract load per application: the ad-hoc report's load
charts.

For each application at one observation point (``contracts`` table, docs/quality.md) three
bars side by side: the IP bit rate that entered, that was delivered, and that was delivered
in intervals within the application's budget. The totals ``all`` (every application) and
``quality`` (the applications with a budget) follow at the right.
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from qoslab.plot.contracts import FIX, at_point
from qoslab.plot.source import need_run, palette, rows, scenario
from qoslab.plot.style import category_ticks, figure, panels, styled, tag, title, unit

KIND = "loads"
LOADS = (
    ("offered_bps", "offered", 0.3, ""),
    ("transported_bps", "transported", 0.65, ""),
    ("in_contract_bps", "in contract", 1.0, "//"),
)
"""The load columns with their name, the opacity of the application's colour, and a hatch."""
TOTAL_COLOUR = "#555555"


@styled
def loads(results: object, point: str | None = None, *, interval_ms: float | None = None) -> Figure:
    """Offered, transported and in-contract bit rate of each application at ``point``
    (default: the first observation point); in contract over intervals of ``interval_ms``
    (default: the first length of ``measure.intervals``)."""
    run = need_run(results, KIND)
    frame = rows(run, "contracts", KIND, FIX)
    chosen, point, interval_ms = at_point(frame, point, interval_ms, KIND)
    apps = list(chosen["app"])
    colour = palette(run)
    label, factor = unit("offered_bps", chosen["offered_bps"], "load")

    fig = figure(1)
    (axis,) = panels(fig, 1)
    width = 0.8 / len(LOADS)
    for number, (column, _, alpha, hatch) in enumerate(LOADS):
        x = [i + (number - 1) * width for i in range(len(apps))]
        container = axis.bar(
            x,
            chosen[column].to_numpy(dtype=float) * factor,
            width,
            color=[colour.get(str(app), TOTAL_COLOUR) for app in apps],
            alpha=alpha,
            hatch=hatch,
            edgecolor="#333333",
            linewidth=0.5,
        )
        tag(container.patches, "bar", number)
    category_ticks(axis, range(len(apps)), apps)
    axis.set_ylabel(label)
    axis.legend(
        handles=[
            Patch(facecolor="#777777", alpha=alpha, hatch=hatch, edgecolor="#333333", label=name)
            for _, name, alpha, hatch in LOADS
        ],
        loc="upper left",
        fontsize="small",
    )
    title(fig, scenario(run), f"loads at {point} (in contract over {interval_ms:g} ms intervals)")
    return fig
