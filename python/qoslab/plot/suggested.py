"""The plots that fit a run's or a sweep's data, for a report."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from matplotlib.figure import Figure

from qoslab.experiment.sweep import Sweep
from qoslab.experiment.task import DONE
from qoslab.plot.bars import bars
from qoslab.plot.delay_cdf import delay_cdf
from qoslab.plot.dq_scatter import dq_scatter
from qoslab.plot.heatmap import heatmap
from qoslab.plot.in_contract import in_contract
from qoslab.plot.loads import loads
from qoslab.plot.queue import queue
from qoslab.plot.series import series
from qoslab.plot.source import check_source, table
from qoslab.plot.voice import voice

SWEEP_BARS = (
    ("delay_mean_ms", "Mean delay per flow"),
    ("delay_p99_ms", "99th-percentile delay per flow"),
    ("loss_pct", "Loss per flow"),
    ("jitter_rfc3550_ms", "Jitter per flow"),
)
"""The flow metrics a sweep's report compares across the grid."""
RUN_SERIES = (
    ("throughput", "Delivered rate per interval"),
    ("delay", "Delay per interval"),
    ("loss", "Loss per interval"),
    ("jitter", "Jitter per interval"),
)
MAX_BAR_SERIES = 8
"""A sweep with more flows than this gets heat maps of its flows' metrics instead of bars."""
MAX_SERIES_POINTS = 6
"""A sweep with more points than this gets no series plot: its panels would be too small."""


def suggested(results_or_sweep: object, *, limit: int | None = None) -> list[tuple[str, Figure]]:
    """A titled figure of every kind whose tables have rows in ``results_or_sweep``, at most
    ``limit`` of them (only those are drawn): for a sweep, time in contract and budget
    consumption per application first, then bars of the flows' delay, loss and jitter,
    voice quality, and the series when the grid is small; for a run, the series, the delay
    distribution, queues, budget consumption, loads and voice quality."""
    source = check_source(results_or_sweep, "suggested")
    drawn: list[tuple[str, Callable[[], Figure]]] = []
    has = {
        name: _has_rows(source, name)
        for name in ("flows", "series", "contracts", "voice", "class_series")
    }
    contracts = table(source, "contracts")
    budgets = contracts is not None and contracts["consumption_mean"].notna().any()
    if isinstance(source, Sweep):
        if budgets:
            drawn.append(("Time in contract per application", lambda: in_contract(source)))
            drawn.append(("Budget consumption per application", lambda: dq_scatter(source)))
        if has["flows"]:
            # Past a few flows grouped bars are slivers: a heat map keeps each value legible.
            many = _series_count(source) > MAX_BAR_SERIES
            draw = heatmap if many else bars
            drawn += [(name, partial(draw, source, metric)) for metric, name in SWEEP_BARS]
        if has["series"] and _grid_points(source) <= MAX_SERIES_POINTS:
            drawn.append(("Delivered rate per interval", lambda: series(source, "throughput")))
    else:
        if has["series"]:
            drawn += [(name, partial(series, source, metric)) for metric, name in RUN_SERIES]
        if has["flows"] and source.flows["delay_max_ms"].notna().any():
            drawn.append(("Delay distribution per flow", lambda: delay_cdf(source)))
        if has["class_series"]:
            drawn.append(("Queue length and drops", lambda: queue(source)))
        if budgets:
            drawn.append(("Budget consumption per application", lambda: dq_scatter(source)))
        if has["contracts"]:
            drawn.append(("Loads per application", lambda: loads(source)))
    if has["voice"]:
        drawn.append(("Voice quality per call", lambda: voice(source)))
    return [(name, draw()) for name, draw in drawn[:limit]]


def _series_count(sweep: Sweep) -> int:
    """The number of flows of the sweep's summary."""
    return int(sweep.summary.flows["flow"].nunique())


def _grid_points(sweep: Sweep) -> int:
    """The number of points of the sweep's grid that have finished runs."""
    finished = sweep.index[sweep.index["status"] == DONE]
    if not sweep.parameters:
        return 1
    return len(finished.groupby(sweep.parameters, observed=True))


def _has_rows(source: object, name: str) -> bool:
    frame = table(source, name)  # type: ignore[arg-type]
    return frame is not None and not frame.empty
