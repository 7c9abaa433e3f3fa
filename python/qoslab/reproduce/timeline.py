"""A ``timeline`` figure: several metrics of one run against time, a panel per group of
metrics and a line per metric — the JANET trial's SAA graph (the average round trip and the
loss of each class's probe trains) with the load beside it on the same time axis.

Each metric is read from a per-interval table (``series``, ``class_series``) at the figure's
point, replication 0: in every interval, the values of the rows it picks reduced as its
``per_run`` says (the sum of three flows' rates, the single row of a probe's replies). An
interval with no row (a probe between two trains) has no point; a line with few points is
drawn with markers so that each train shows.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import FuncFormatter

from qoslab.plot.style import colours, figure, panels, styled, tag
from qoslab.reproduce.measure import REPLICATION, Measurements, point_mask, reduce_rows, where_mask
from qoslab.reproduce.model import Figure

SPARSE = 60
"""A line with fewer points than this is drawn with a marker at each."""


def intervals(spec: Figure, measured: Measurements, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The metric ``name`` in each interval of replication 0 at the figure's point: the
    intervals' starts (s) and the values."""
    study = measured.study
    metric = study.metrics[name]
    experiment = study.experiments[metric.experiment]
    frame = measured.sweeps[experiment.name].runs[metric.table]
    rows = frame[point_mask(frame, experiment, spec.at) & where_mask(frame, metric, metric.where)]
    rows = rows[rows[REPLICATION] == 0]
    values = rows[metric.column] if metric.column else rows.eval(metric.expr, engine="python")
    values = np.asarray(values, dtype=np.float64)
    part = where_mask(rows, metric, metric.part) if metric.per_run == "share" else None
    starts = rows["start_s"].to_numpy(dtype=np.float64)
    times = np.unique(starts)
    out = []
    for t in times:
        here = starts == t
        out.append(reduce_rows(values[here], metric, part[here] if part is not None else None))
    return times, np.array(out)


@styled
def timeline(spec: Figure, measured: Measurements) -> MplFigure:
    """The figure ``spec`` (kind ``timeline``) from the runs in ``measured``."""
    study = measured.study
    colour = colours([name for group in spec.panels for name in group])
    fig = figure(len(spec.panels))
    axes = panels(fig, len(spec.panels))
    for number, (axis, group) in enumerate(zip(axes, spec.panels, strict=True)):
        units = []
        for name in group:
            metric = study.metrics[name]
            times, values = intervals(spec, measured, name)
            sparse = len(times) < SPARSE
            (line,) = axis.plot(
                times,
                values,
                label=metric.label,
                color=colour[name],
                linewidth=1,
                marker="o" if sparse else None,
                markersize=3,
            )
            tag(line, f"{spec.name}-{number}", len(axis.lines))
            if metric.unit not in units:
                units.append(metric.unit)
        axis.set_ylabel(", ".join(u for u in units if u) or "value")
        if spec.log:
            axis.set_yscale("symlog", linthresh=1.0)
        axis.legend(loc="upper left", fontsize="small")
    low = min(axis.get_xlim()[0] for axis in axes)
    high = max(axis.get_xlim()[1] for axis in axes)
    for axis in axes:
        axis.set_xlim(low, high)
    if spec.clock is not None:
        hours, minutes = (int(part) for part in spec.clock.split(":"))
        origin = hours * 3600 + minutes * 60
        for axis in axes:
            axis.xaxis.set_major_formatter(FuncFormatter(lambda s, _: _clock(origin + s)))
        axes[-1].set_xlabel(f"time of day (the run starts at {spec.clock})")
    else:
        axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"{spec.title} — replication 0")
    return fig


def _clock(seconds: float) -> str:
    whole = round(seconds) % 86400
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}"
