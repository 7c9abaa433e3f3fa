"""A study's figures, redrawn from qoslab's runs.

Two kinds cover the five studies' figures:

* ``series`` — a quantity against time, one line per point of an axis (a queuing scheme),
  from the per-interval ``series`` table of replication 0: the congestion lab's per-second
  voice loss, delay and jitter;
* ``bars`` — a metric's mean at each point of an axis (or of the variants) with its
  confidence interval as the error bar, bars grouped by a second axis (a traffic mode) or
  by the variants: the LMR thesis' bar charts.

A ``timeline`` (:mod:`qoslab.reproduce.timeline`) draws several metrics of one run against
time, a panel per group: the JANET trial's SAA graph with its load. A ``plot`` is one of
qoslab's own plots of an experiment's sweep or of one run, which may be run once more with
a per-packet trace for a plot drawn from it (:func:`traced`: the DiffServ measurements' TCP
sequence graph).
"""

from __future__ import annotations

import json
from typing import cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as MplFigure

from qoslab.experiment.sweep import Sweep
from qoslab.plot import KINDS
from qoslab.plot.style import category_ticks, colours, figure, legend, panels, styled, tag
from qoslab.reproduce.measure import REPLICATION, VARIANT, Measurements, point_mask, where_mask
from qoslab.reproduce.model import Axis, Experiment, Figure
from qoslab.reproduce.timeline import timeline
from qoslab.results import Results
from qoslab.run import run as run_scenario
from qoslab.scenario import BASE


def draw(spec: Figure, measured: Measurements) -> MplFigure:
    """The figure ``spec`` from the runs in ``measured``."""
    if spec.kind == "plot":
        return _plot(spec, measured)
    if spec.kind == "timeline":
        return timeline(spec, measured)
    return _series(spec, measured) if spec.kind == "series" else _bars(spec, measured)


def _plot(spec: Figure, measured: Measurements) -> MplFigure:
    """One of qoslab's plots of an experiment's sweep (its runs at ``at``), or of one of its
    runs. The plot sees each axis the point leaves free as one parameter, under the axis's
    name with the values' labels (``speed=512k``), so that an axis of several scenario keys
    is one parameter and the plot's ``by`` names the axis."""
    experiment = measured.study.experiments[str(spec.experiment)]
    sweep = labelled(measured.sweeps[experiment.name], experiment, spec.at)
    source: Sweep | Results = sweep
    if spec.replication is not None:
        source = sweep.results(replication=spec.replication)
        if spec.trace is not None:
            source = traced(experiment, source, spec.trace)
    fig = KINDS[str(spec.plot)](source, **spec.args)
    fig.suptitle(spec.title)
    return fig


def traced(experiment: Experiment, done: Results, section: dict[str, object] | bool) -> Results:
    """The run ``done`` of ``experiment`` once more, with a per-packet trace (``section``, a
    ``measure.trace`` section, or ``True`` for every flow at every port): the same scenario,
    variant, overrides, seed and replication give the same run (the simulator is
    deterministic), now traced. The sweep engine keeps no traces."""
    record = done.run
    overrides = list(record["overrides"])
    if isinstance(section, dict):
        overrides.append(f"measure.trace={json.dumps(section)}")
    return run_scenario(
        str(experiment.scenario),
        variant=record["variant"] or None,
        seed=record["seed"],
        replication=record["replication"],
        set=overrides,
        trace=True,
    )


def labelled(sweep: Sweep, experiment: Experiment, at: dict[str, str]) -> Sweep:
    """The runs of ``sweep`` at the point ``at`` (some axes and perhaps the variant), seen
    with each other axis of ``experiment`` as one parameter named after the axis, its values
    the axis's labels; the variant stays a parameter unless ``at`` gives it."""

    def label(settings: dict[str, str], axis: Axis) -> str | None:
        """The label of the axis's value whose settings the run has."""
        for value in axis.values:
            if all(settings.get(k) == s for k, s in axis.settings_at(value).items()):
                return value
        return None

    free = [axis for axis in experiment.axes if axis.name not in at]
    variant = at.get(VARIANT)
    runs = []
    for run in sweep.manifest["runs"]:
        settings = dict(run["settings"])
        if variant is not None and (run["variant"] or BASE) != variant:
            continue
        if any(
            label(settings, cast(Axis, experiment.axis(name))) != value
            for name, value in at.items()
            if name != VARIANT
        ):
            continue
        runs.append(
            {
                **run,
                "variant": None if variant is not None else run["variant"],
                "settings": [[axis.name, label(settings, axis)] for axis in free],
            }
        )
    plan = sweep.manifest["plan"]
    view = {
        "vary": [{"key": axis.name, "values": list(axis.values)} for axis in free],
        "zip": [],
        "variants": [None] if variant is not None else plan["variants"],
    }
    return sweep.view({**sweep.manifest, "plan": {**plan, **view}, "runs": runs})


def _points(spec: Figure, measured: Measurements) -> tuple[str, ...]:
    experiment = measured.study.experiments[measured.study.metrics[spec.metrics[0]].experiment]
    return spec.points or experiment.points(str(spec.over)) or ()


@styled
def _series(spec: Figure, measured: Measurements) -> MplFigure:
    study = measured.study
    points = _points(spec, measured)
    experiment = study.experiments[study.metrics[spec.metrics[0]].experiment]
    # Colours from every value of the axis, so a point keeps its colour in every figure.
    colour = colours(experiment.points(str(spec.over)) or ())
    fig = figure(len(spec.metrics))
    axes = panels(fig, len(spec.metrics))
    for number, (axis, name) in enumerate(zip(axes, spec.metrics, strict=True)):
        metric = study.metrics[name]
        experiment = study.experiments[metric.experiment]
        frame = measured.sweeps[experiment.name].runs[metric.table]
        for point in points:
            rows = _select(frame, measured, experiment.name, {**spec.at, str(spec.over): point})
            rows = rows[where_mask(rows, metric, metric.where)]
            rows = rows[rows[REPLICATION] == 0].sort_values("start_s")
            values = (
                rows[metric.column]
                if metric.column
                else rows.eval(str(metric.expr), engine="python")
            )
            (line,) = axis.plot(
                rows["start_s"],
                cast(pd.Series, values),
                label=point,
                color=colour[point],
                linewidth=1,
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
        groups = experiment.points(spec.group) or ()
    colour = colours([str(g) for g in groups])
    fig = figure(len(spec.metrics), columns=2 if len(spec.metrics) > 1 else 1)
    axes = panels(fig, len(spec.metrics), columns=2 if len(spec.metrics) > 1 else 1)
    width = 0.8 / len(groups)
    positions = np.arange(len(points))
    for number, (axis, name) in enumerate(zip(axes, spec.metrics, strict=True)):
        metric = study.metrics[name]
        for k, group in enumerate(groups):
            at_group = {} if group is None else {str(spec.group): group}
            estimates = [
                measured.estimate(name, {**spec.at, **at_group, str(spec.over): p}) for p in points
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
        category_ticks(axis, positions.tolist(), points)
    if spec.group is not None:
        legend(fig, axes[0], title=spec.group)
    interval = "Student t" if study.interval == "t" else "normal approximation"
    fig.suptitle(f"{spec.title} — mean and 95 % interval ({interval})")
    return fig


def _select(
    frame: pd.DataFrame, measured: Measurements, experiment: str, at: dict[str, str]
) -> pd.DataFrame:
    return frame[point_mask(frame, measured.study.experiments[experiment], at)]
