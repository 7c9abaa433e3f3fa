"""Figures of a run's or a sweep's results, drawn with matplotlib.

Each function takes the :class:`~qoslab.Results` of a run or a :class:`~qoslab.Sweep` and
returns a ``matplotlib.figure.Figure`` (built on the Agg canvas, never through pyplot)::

    import qoslab
    from qoslab import plot

    sweep = qoslab.load("results/congestion-lab-sweep")
    plot.bars(sweep, "delay_mean_ms").savefig("delay.svg")
    for title, fig in plot.suggested(sweep):
        svg = plot.to_svg(fig)

A plot the data cannot give raises :class:`PlotError` naming what is missing.
"""

from collections.abc import Callable

from matplotlib.figure import Figure

from qoslab.plot.bars import bars
from qoslab.plot.delay_cdf import delay_cdf
from qoslab.plot.dq_scatter import dq_scatter
from qoslab.plot.errors import PlotError
from qoslab.plot.heatmap import heatmap
from qoslab.plot.in_contract import in_contract
from qoslab.plot.loads import loads
from qoslab.plot.queue import queue
from qoslab.plot.series import series
from qoslab.plot.suggested import suggested
from qoslab.plot.tcp_sequence import tcp_sequence
from qoslab.plot.to_svg import to_svg
from qoslab.plot.voice import voice

KINDS: dict[str, Callable[..., Figure]] = {
    "bars": bars,
    "heatmap": heatmap,
    "series": series,
    "delay_cdf": delay_cdf,
    "queue": queue,
    "dq_scatter": dq_scatter,
    "loads": loads,
    "in_contract": in_contract,
    "voice": voice,
    "tcp_sequence": tcp_sequence,
}
"""Every kind of plot by name."""

__all__ = [
    "KINDS",
    "PlotError",
    "bars",
    "delay_cdf",
    "dq_scatter",
    "heatmap",
    "in_contract",
    "loads",
    "queue",
    "series",
    "suggested",
    "tcp_sequence",
    "to_svg",
    "voice",
]
