"""The delay distribution of each flow, from the histogram the simulator keeps of its
delays.

The ``delay_distribution`` table gives every flow's one-way delay at each hundredth of its
received packets and at 0.995, 0.999, 0.9999 and 1 (docs/results.md), read from the flow's
delay histogram (within 0.4 %), with the exact smallest and largest delay at 0 and 1. The
plot draws them as the cumulative distribution: the fraction of received packets with at
most that delay.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

from matplotlib.figure import Figure

from qoslab.plot.errors import PlotError
from qoslab.plot.source import need_run, palette, rows, scenario
from qoslab.plot.style import figure, legend, panels, styled, tag, title

KIND = "delay_cdf"
TABLE = "delay_distribution"
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
LOG_SPAN = 100.0
"""The x axis is logarithmic when the largest delay shown exceeds the smallest this many
times."""


@styled
def delay_cdf(results: object, flows: Sequence[str] | None = None) -> Figure:
    """For each flow that received packets (or each of ``flows``), the cumulative
    distribution of its one-way delay."""
    run = need_run(results, KIND)
    frame = rows(run, TABLE, KIND, "no flow received a packet, so there is no delay to plot")
    if flows:
        known = list(dict.fromkeys(frame["flow"]))
        unknown = [flow for flow in flows if flow not in known]
        if unknown:
            raise PlotError(
                f"{KIND}: no flow {', '.join(map(repr, unknown))} with delays "
                f"(flows: {', '.join(known)})"
            )
        frame = frame[frame["flow"].isin(flows)]
    colour = palette(run)

    fig = figure(1)
    (axis,) = panels(fig, 1)
    numbers = count()
    for name, curve in frame.groupby("flow", sort=False):
        (line,) = axis.step(
            curve["delay_ms"].to_numpy(dtype=float),
            curve["quantile"].to_numpy(dtype=float),
            where="post",
            color=colour.get(str(name), "#555555"),
            linewidth=1.4,
            label=str(name),
        )
        tag(line, "line", next(numbers))
    positive = frame["delay_ms"][frame["delay_ms"] > 0]
    if not positive.empty and positive.max() / positive.min() > LOG_SPAN:
        axis.set_xscale("log")
    axis.set_yticks(TICKS)
    axis.set_ylim(-0.03, 1.03)
    axis.set_xlabel("one-way delay (ms)")
    axis.set_ylabel("fraction of received packets")
    legend(fig, axis)
    title(fig, scenario(run), "delay distribution per flow")
    return fig
