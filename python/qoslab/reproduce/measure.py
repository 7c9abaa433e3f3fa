"""Reading a study's metrics from the sweeps of its experiments.

A metric's value at a point of an experiment is, for each replication, the reduction
(``per_run``) of the matching rows of one result table — the voice flow's loss, the largest
one-second mean delay of its series, an expression over a row's columns — and its estimate
is the mean over the replications with a confidence interval (Student t or the normal
approximation, as the study reports its own; :mod:`qoslab.analysis.interval`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from qoslab.analysis.interval import group_statistics
from qoslab.analysis.verdict import Claim, Estimate
from qoslab.experiment.sweep import Sweep
from qoslab.reproduce.located import StudyError
from qoslab.reproduce.study import Experiment, Metric, Study

CONFIDENCE = 0.95
REPLICATION = "replication"
VARIANT = "variant"


class Measurements:
    """The sweeps of a study's experiments, and the metrics read from them."""

    def __init__(self, study: Study, sweeps: Mapping[str, Sweep]) -> None:
        self.study = study
        self.sweeps = dict(sweeps)
        self._cache: dict[tuple[str, tuple[tuple[str, str], ...]], np.ndarray] = {}

    def trials(self, metric_name: str, at: Mapping[str, str]) -> np.ndarray:
        """The metric's value in each replication at the point ``at``, in replication
        order (NaN where a run has no matching row)."""
        key = (metric_name, tuple(sorted(at.items())))
        if key not in self._cache:
            metric = self.study.metrics[metric_name]
            experiment = self.study.experiments[metric.experiment]
            self._cache[key] = _trials(self.sweeps[experiment.name], experiment, metric, at)
        return self._cache[key]

    def estimate(self, metric_name: str, at: Mapping[str, str]) -> Estimate:
        """The metric's mean over the replications at ``at``, with its interval."""
        return estimate(self.trials(metric_name, at), self.study.interval)

    def estimates(
        self, claim: Claim, metric_name: str, at: Mapping[str, str]
    ) -> dict[str | None, Estimate]:
        """What ``claim`` is judged on: the estimate at ``at`` (keyed ``None``), or, for a
        rule over an axis, at each of its points."""
        if not claim.over_points:
            return {None: self.estimate(metric_name, at)}
        points = [point for group in claim.order for point in group]
        base = {k: v for k, v in at.items() if k != claim.over}
        return {
            point: self.estimate(metric_name, {**base, str(claim.over): point}) for point in points
        }


def estimate(values: np.ndarray, interval: str) -> Estimate:
    """The mean of ``values`` (NaN ignored) and its ``interval`` (``t`` or ``normal``)."""
    values = np.asarray(values, dtype=np.float64)
    stats = group_statistics(values, np.zeros(len(values), dtype=np.int64), 1, CONFIDENCE, interval)
    mean = float(stats.mean[0])
    half = float(stats.ci_half_width[0])
    if np.isnan(half):
        half = 0.0 if not np.isnan(mean) else np.nan
    return Estimate(mean, mean - half, mean + half, int(stats.n[0]))


def _trials(
    sweep: Sweep, experiment: Experiment, metric: Metric, at: Mapping[str, str]
) -> np.ndarray:
    frame = sweep.runs[metric.table]
    mask = point_mask(frame, experiment, at)
    for column, value in metric.where.items():
        if column not in frame.columns:
            raise StudyError(
                f"metric `{metric.name}`: table {metric.table} has no column `{column}` "
                f"(columns: {', '.join(map(str, frame.columns))})"
            )
        mask &= frame[column].astype(str).to_numpy() == str(value)
    rows = frame[mask]
    if metric.column is not None:
        if metric.column not in rows.columns:
            raise StudyError(
                f"metric `{metric.name}`: table {metric.table} has no column `{metric.column}`"
            )
        values = pd.to_numeric(rows[metric.column], errors="coerce")
    else:
        try:
            values = pd.to_numeric(rows.eval(metric.expr, engine="python"), errors="coerce")
        except Exception as error:  # pandas raises many kinds for a bad expression
            raise StudyError(
                f"metric `{metric.name}`: cannot evaluate `{metric.expr}`: {error}"
            ) from error
    replications = rows[REPLICATION].to_numpy()
    runs = sweep.index
    run_mask = point_mask(runs, experiment, at)
    wanted = sorted(int(r) for r in runs[run_mask][REPLICATION].unique())
    if len(runs[run_mask]) != len(wanted):
        raise StudyError(
            f"metric `{metric.name}` at {dict(at)}: the point is not one configuration of "
            f"experiment `{experiment.name}` (give every axis)"
        )
    out = np.full(len(wanted), np.nan)
    for position, replication in enumerate(wanted):
        chosen = values[replications == replication].to_numpy(dtype=np.float64, na_value=np.nan)
        out[position] = _reduce(chosen, metric)
    return out


def point_mask(frame: pd.DataFrame, experiment: Experiment, at: Mapping[str, str]) -> np.ndarray:
    """The rows of a sweep's table (or index) at the point ``at`` of ``experiment``."""
    mask = np.ones(len(frame), dtype=bool)
    for name, value in at.items():
        if name == VARIANT:
            column, setting = VARIANT, value
        else:
            axis = experiment.axis(name)
            column, setting = axis.key, axis.setting(value)
        mask &= frame[column].astype(str).to_numpy() == setting
    return mask


def _reduce(values: np.ndarray, metric: Metric) -> float:
    if metric.per_run == "count":
        return float(len(values))
    present = values[~np.isnan(values)]
    if metric.per_run == "one":
        if len(values) > 1:
            raise StudyError(
                f"metric `{metric.name}`: {len(values)} rows of {metric.table} match one run; "
                "narrow `where`, or reduce them with `per_run`"
            )
        return float(present[0]) if len(present) else np.nan
    if not len(present):
        return 0.0 if metric.per_run == "sum" else np.nan
    return float(
        {"max": np.max, "min": np.min, "mean": np.mean, "sum": np.sum}[metric.per_run](present)
    )
