"""Reading a study's metrics from the sweeps of its experiments.

A metric's value at a point of an experiment is, for each replication, the reduction
(``per_run``) of the matching rows of one result table — the voice flow's loss, the largest
one-second mean delay of its series, an expression over a row's columns — and its estimate
is the mean over the replications with a confidence interval (Student t or the normal
approximation, as the study reports its own; :mod:`qoslab.analysis.interval`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pandas as pd

from qoslab.analysis.estimate import Estimate, estimate
from qoslab.analysis.verdict import Claim
from qoslab.experiment.failure import order_of_failure
from qoslab.experiment.sweep import RUN, Sweep
from qoslab.experiment.task import DONE
from qoslab.reproduce.located import StudyError
from qoslab.reproduce.model import Experiment, Metric, Study

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


def _trials(
    sweep: Sweep, experiment: Experiment, metric: Metric, at: Mapping[str, str]
) -> np.ndarray:
    if metric.failure:
        return _failures(sweep, experiment, metric, at)
    frame = _where_rows(sweep, metric)
    rows = frame[point_mask(frame, experiment, at)]
    if metric.column is not None:
        if metric.column not in rows.columns:
            raise StudyError(
                f"metric `{metric.name}`: table {metric.table} has no column `{metric.column}`"
            )
        values = pd.to_numeric(rows[metric.column], errors="coerce")
    else:
        try:
            evaluated = rows.eval(str(metric.expr), engine="python")
            values = pd.to_numeric(cast(pd.Series, evaluated), errors="coerce")
        except Exception as error:  # pandas raises many kinds for a bad expression
            raise StudyError(
                f"metric `{metric.name}`: cannot evaluate `{metric.expr}`: {error}"
            ) from error
    replications = rows[REPLICATION].to_numpy()
    part = where_mask(rows, metric, metric.part) if metric.per_run == "share" else None
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
        mine = replications == replication
        chosen = values[mine].to_numpy(dtype=np.float64, na_value=np.nan)
        out[position] = reduce_rows(chosen, metric, part[mine] if part is not None else None)
    return out


_WHERE_ROWS: weakref.WeakKeyDictionary[Sweep, dict[tuple[str, str], pd.DataFrame]] = (
    weakref.WeakKeyDictionary()
)


def _where_rows(sweep: Sweep, metric: Metric) -> pd.DataFrame:
    """The rows of the metric's table that meet its ``where``, found once for each sweep
    and condition: a study reads many points of one metric, and its figures many more."""
    known = _WHERE_ROWS.setdefault(sweep, {})
    key = (metric.table, repr(sorted(metric.where.items())))
    if key not in known:
        frame = sweep.runs[metric.table]
        known[key] = frame[where_mask(frame, metric, metric.where)]
    return known[key]


def _failures(
    sweep: Sweep, experiment: Experiment, metric: Metric, at: Mapping[str, str]
) -> np.ndarray:
    """An order-of-failure metric in each replication: the inversions of the order the
    scenario declares, along the axis ``metric.failure["over"]`` at the point ``at``."""
    over = experiment.axis(str(metric.failure["over"]))
    frame = sweep.runs["contracts"]
    here = frame[point_mask(frame, experiment, at) & where_mask(frame, metric, metric.where)]
    first = next((run for run in sweep.manifest["runs"] if not _failed(sweep, run)), None)
    if first is None or here.empty:
        return np.full(0, np.nan)
    settings, variant = dict(first["settings"]), first["variant"] or "base"
    declared = sweep.results(settings, variant=variant, replication=first["replication"]).run.get(
        "order_of_failure", []
    )
    if not declared:
        raise StudyError(f"metric `{metric.name}`: the scenario declares no order of failure")
    out = []
    for replication in sorted(int(r) for r in here[REPLICATION].unique()):
        mine = here[here[REPLICATION] == replication]
        steps = []
        assert over is not None, "checked when the study was read"
        for value in over.values:
            rows = mine[point_mask(mine, experiment, {over.name: value})]
            rows = rows[["point", "app", "interval_ms", "consumption_mean", "in_contract_pct"]]
            steps.append((value, SimpleNamespace(contracts=rows, run={})))
        table = order_of_failure(
            steps,
            declared=declared,
            min_in_contract_pct=cast(float | None, metric.failure.get("min_in_contract_pct")),
        )
        out.append(sum(len(late.split(", ")) for late in table["fails_before"] if late))
    return np.array(out, dtype=np.float64)


def _failed(sweep: Sweep, run: dict) -> bool:
    index = sweep.index
    return bool((index.loc[index[RUN] == run["key"], "status"] != DONE).any())


def where_mask(frame: pd.DataFrame, metric: Metric, where: Mapping[str, object]) -> np.ndarray:
    """The rows of ``frame`` that meet every condition of ``where`` (a metric's ``where`` or
    ``part``): a column equal to a value, equal to one of a list of values, or within
    bounds (``min``, ``max``, ``above``, ``below``). A value with ``*`` is a shell-style
    pattern (``voip-ab.*``: the copies of an entry); names never hold a ``*``."""
    mask = np.ones(len(frame), dtype=bool)
    for column, condition in where.items():
        if column not in frame.columns:
            raise StudyError(
                f"metric `{metric.name}`: table {metric.table} has no column `{column}` "
                f"(columns: {', '.join(map(str, frame.columns))})"
            )
        if isinstance(condition, dict):
            values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
            with np.errstate(invalid="ignore"):
                for bound, limit in condition.items():
                    mask &= {
                        "min": values >= limit,
                        "max": values <= limit,
                        "above": values > limit,
                        "below": values < limit,
                    }[bound]
        else:
            wanted = [str(v) for v in (condition if isinstance(condition, list) else [condition])]
            hit = text_in(frame[column], [w for w in wanted if "*" not in w])
            patterns = [w for w in wanted if "*" in w]
            if patterns:
                cells = frame[column].astype(str)
                for pattern in patterns:
                    hit |= cells.map(lambda cell, p=pattern: fnmatchcase(cell, p)).to_numpy(
                        dtype=bool
                    )
            mask &= hit
    return mask


def text_in(column: pd.Series, wanted: list[str]) -> np.ndarray:
    """The rows of ``column`` whose value, written as text, is one of ``wanted`` — as
    ``column.astype(str).isin(wanted)``, but read from the distinct values (a categorical's
    categories, a number column's values), so that a large table is not turned into text
    at every look-up."""
    if not wanted:
        return np.zeros(len(column), dtype=bool)
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = [i for i, value in enumerate(dtype.categories) if str(value) in wanted]
        return np.isin(column.cat.codes.to_numpy(), codes)
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        distinct = pd.unique(column.to_numpy())
        hits = [value for value in distinct if str(value) in wanted]
        if not hits:
            return np.zeros(len(column), dtype=bool)
        return column.isin(hits).to_numpy(dtype=bool, na_value=False)
    return column.astype(str).isin(wanted).to_numpy(dtype=bool, copy=True)


def point_mask(frame: pd.DataFrame, experiment: Experiment, at: Mapping[str, str]) -> np.ndarray:
    """The rows of a sweep's table (or index) at the point ``at`` of ``experiment``."""
    mask = np.ones(len(frame), dtype=bool)
    for name, value in at.items():
        # Every key of the axis, or the variant.
        axis = experiment.axis(name) if name != VARIANT else None
        settings = axis.settings_at(value) if axis is not None else {VARIANT: value}
        for column, setting in settings.items():
            if column == VARIANT and column not in frame.columns:
                # A sweep of the scenario as written alone (a quick run of `base`) has no
                # variant column: all its rows are of `base`.
                mask &= setting == "base"
                continue
            mask &= text_in(frame[column], [setting])
    return mask


def reduce_rows(values: np.ndarray, metric: Metric, part: np.ndarray | None = None) -> float:
    """The metric's value from the values of the rows one run (or one interval) has at its
    point, by its ``per_run``; ``part`` marks the rows of a ``share``."""
    if metric.per_run == "count":
        return float(len(values))
    if metric.per_run == "share":
        present = ~np.isnan(values)
        total = float(np.sum(values[present]))
        if part is None or not present.any() or total == 0:
            return np.nan
        return 100.0 * float(np.sum(values[present & part])) / total
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
    if metric.per_run == "range":
        return float(np.max(present) - np.min(present))
    reduce: dict[str, Callable[[np.ndarray], Any]] = {
        "max": np.max,
        "min": np.min,
        "mean": np.mean,
        "sum": np.sum,
    }
    return float(reduce[metric.per_run](present))
