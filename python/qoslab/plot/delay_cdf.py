"""The delay distribution of each flow, from the percentiles a run reports.

The simulator keeps a log-linear histogram of every flow's delays but the results expose
only values read from it: the exact smallest and largest delay and the 50th, 95th and 99th
percentiles (docs/results.md, delay). This plot draws those five points of each flow's
cumulative distribution — the fraction of received packets with at most that delay — and
joins them with straight lines: the shape between two points is not known, and the figure
says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

from matplotlib.figure import Figure

from qoslab.plot.errors import PlotError
from qoslab.plot.source import need_run, palette, rows, scenario
from qoslab.plot.style import figure, legend, panels, styled, tag, title

KIND = "delay_cdf"

POINTS = (
    ("delay_min_ms", 0.0),
    ("delay_p50_ms", 0.50),
    ("delay_p95_ms", 0.95),
    ("delay_p99_ms", 0.99),
    ("delay_max_ms", 1.0),
)
"""The delay columns of the flows table and the fraction of packets at or below each."""

TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
LOG_SPAN = 100.0
"""The x axis is logarithmic when the largest delay shown exceeds the smallest this many
times."""


@styled
def delay_cdf(results: object, flows: Sequence[str] | None = None) -> Figure:
    """For each flow that received packets (or each of ``flows``), its smallest delay,
    50th, 95th and 99th percentiles and largest delay as points of the cumulative
    distribution, joined by straight lines."""
    run = need_run(results, KIND)
    frame = rows(run, "flows", KIND, "the scenario has no traffic")
    if flows:
        unknown = [flow for flow in flows if flow not in set(frame["flow"])]
        if unknown:
            raise PlotError(
                f"{KIND}: no flow {', '.join(map(repr, unknown))} "
                f"(flows: {', '.join(frame['flow'])})"
            )
        frame = frame[frame["flow"].isin(flows)]
    columns = [column for column, _ in POINTS]
    frame = frame.dropna(subset=columns)
    if frame.empty:
        raise PlotError(f"{KIND}: no flow received a packet, so there is no delay to plot")
    colour = palette(run)
    fractions = [fraction for _, fraction in POINTS]

    fig = figure(1)
    (axis,) = panels(fig, 1)
    numbers = count()
    for _, flow in frame.iterrows():
        delays_ms = flow[columns].to_numpy(dtype=float)
        (line,) = axis.plot(
            delays_ms,
            fractions,
            "o-",
            color=colour.get(str(flow["flow"]), "#555555"),
            markersize=4,
            linewidth=1.2,
            label=str(flow["flow"]),
        )
        tag(line, "line", next(numbers))
    values = frame[columns].to_numpy(dtype=float)
    positive = values[values > 0]
    if positive.size and positive.max() / positive.min() > LOG_SPAN:
        axis.set_xscale("log")
    axis.set_yticks(TICKS)
    axis.set_ylim(-0.03, 1.03)
    axis.set_xlabel("one-way delay (ms)")
    axis.set_ylabel("fraction of received packets")
    axis.set_title(
        "points: min, p50, p95, p99 and max as the run reports them; lines only join them",
        fontsize="small",
        color="#555555",
        wrap=True,
    )
    legend(fig, axis)
    title(fig, scenario(run), "delay distribution per flow")
    return fig
