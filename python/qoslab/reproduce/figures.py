"""A study's figures, redrawn from qoslab's runs.

Two kinds cover the five studies' figures:

* ``series`` — a quantity against time, one line per point of an axis (a queuing scheme),
  from the per-interval ``series`` table of replication 0: the congestion lab's per-second
  voice loss, delay and jitter;
* ``bars`` — a metric's mean at each point of an axis with its confidence interval as the
  error bar, bars grouped by a second axis (a traffic mode): the LMR thesis' bar charts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from qoslab.plot import KINDS
from qoslab.plot.style import category_ticks, colours, figure, legend, panels, styled, tag
from qoslab.reproduce.measure import REPLICATION, VARIANT, Measurements, point_mask
from qoslab.reproduce.study import Figure


def draw(spec: Figure, measured: Measurements) -> MplFigure:
    """The figure ``spec`` from the runs in ``measured``."""
    if spec.kind == "plot":
        return _plot(spec, measured)
    return _series(spec, measured) if spec.kind == "series" else _bars(spec, measured)


def _plot(spec: Figure, measured: Measurements) -> MplFigure:
    """One of qoslab's plots of an experiment's sweep, or of one of its runs."""
    experiment = measured.study.experiments[str(spec.experiment)]
    sweep = measured.sweeps[experiment.name]
    source: object = sweep
    if spec.replication is not None:
        settings = {
            experiment.axis(name).key: experiment.axis(name).setting(value)
            for name, value in spec.at.items()
            if name != VARIANT
        }
        variant = spec.at.get(VARIANT, "base")
        source = sweep.results(settings, variant=variant, replication=spec.replication)
    fig = KINDS[str(spec.plot)](source, **spec.args)
    fig.suptitle(spec.title)
    return fig


def _points(spec: Figure, measured: Measurements) -> tuple[str, ...]:
    experiment = measured.study.experiments[measured.study.metrics[spec.metrics[0]].experiment]
    return spec.points or experiment.axis(spec.over).values


@styled
def _series(spec: Figure, measured: Measurements) -> MplFigure:
    study = measured.study
    points = _points(spec, measured)
    experiment = study.experiments[study.metrics[spec.metrics[0]].experiment]
    # Colours from every value of the axis, so a point keeps its colour in every figure.
    colour = colours(experiment.axis(spec.over).values)
    fig = figure(len(spec.metrics))
    axes = panels(fig, len(spec.metrics))
    for number, (axis, name) in enumerate(zip(axes, spec.metrics, strict=True)):
        metric = study.metrics[name]
        experiment = study.experiments[metric.experiment]
        frame = measured.sweeps[experiment.name].runs[metric.table]
        for point in points:
            rows = _select(frame, measured, experiment.name, {**spec.at, spec.over: point})
            for column, value in metric.where.items():
                rows = rows[rows[column].astype(str) == str(value)]
            rows = rows[rows[REPLICATION] == 0].sort_values("start_s")
            values = (
                rows[metric.column] if metric.column else rows.eval(metric.expr, engine="python")
            )
            (line,) = axis.plot(
                rows["start_s"], values, label=point, color=colour[point], linewidth=1
            )
            tag(line, f"{spec.name}-{number}", len(axis.lines))
        axis.set_ylabel(f"{metric.label} ({metric.unit})" if metric.unit else metric.label)
        axis.set_xlabel("time (s)")
        if spec.log:
            axis.set_yscale("symlog", linthresh=1.0)
    legend(fig, axes[0], title=spec.over)
    fig.suptitle(f"{spec.title} — replication 0")
    return fig


@styled
def _bars(spec: Figure, measured: Measurements) -> MplFigure:
    study = measured.study
    points = _points(spec, measured)
    experiment = study.experiments[study.metrics[spec.metrics[0]].experiment]
    groups: tuple[str | None, ...] = (None,)
    if spec.group is not None:
        groups = (
            tuple(experiment.variants or ())
            if spec.group == VARIANT
            else experiment.axis(spec.group).values
        )
    colour = colours([str(g) for g in groups])
    fig = figure(len(spec.metrics), columns=2 if len(spec.metrics) > 1 else 1)
    axes = panels(fig, len(spec.metrics), columns=2 if len(spec.metrics) > 1 else 1)
    width = 0.8 / len(groups)
    positions = np.arange(len(points))
    for number, (axis, name) in enumerate(zip(axes, spec.metrics, strict=True)):
        metric = study.metrics[name]
        for k, group in enumerate(groups):
            at_group = {} if group is None else {spec.group: group}
            estimates = [
                measured.estimate(name, {**spec.at, **at_group, spec.over: p}) for p in points
            ]
            means = np.array([e.mean for e in estimates])
            errors = np.array([e.half_width for e in estimates])
            bars = axis.bar(
                positions + (k - (len(groups) - 1) / 2) * width,
                means,
                width,
                yerr=errors,
                capsize=3,
                label=str(group) if group is not None else metric.label,
                color=colour[str(group)],
            )
            tag(bars.patches, f"{spec.name}-{number}", k)
        axis.set_ylabel(f"{metric.label} ({metric.unit})" if metric.unit else metric.label)
        category_ticks(axis, positions, points)
    if spec.group is not None:
        legend(fig, axes[0], title=spec.group)
    interval = "Student t" if study.interval == "t" else "normal approximation"
    fig.suptitle(f"{spec.title} — mean and 95 % interval ({interval})")
    return fig


def _select(
    frame: pd.DataFrame, measured: Measurements, experiment: str, at: dict[str, str]
) -> pd.DataFrame:
    return frame[point_mask(frame, measured.study.experiments[experiment], at)]
