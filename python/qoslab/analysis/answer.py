"""The answer a sweep is run for: at which points is every budgeted application in
contract, and which of those is the cheapest?

An application's evidence at a point is its share of ΔQ intervals in contract (the
``contracts`` table, ``in_contract_pct``) over the replications: the lower bound of its
two-sided confidence interval (Student's t, :mod:`qoslab.analysis.interval`), the worst over
the observation points and interval lengths the scenario measures. The application is **in
contract** at the point when that bound reaches the target share; with one replication
there is no interval, and its mean is judged. This is the rule ``qoslab advise`` judges its
candidates by, so a point the answer accepts is one the advisor would.

A point **meets every budget** when each budgeted application is in contract there (a point
whose runs all failed meets none). The **cheapest** such point is the one whose rate-valued
varied keys — any key each of whose values reads as a bit rate: a link's ``rate``, a
shaper's contract — add up to the least, the grid's order breaking ties. A sweep that
varies no rate has no cost to rank by, and names no cheapest point.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from qoslab._core import parse_rate_bps
from qoslab.analysis.labels import point_label
from qoslab.analysis.summary import summarize

SHARE = "in_contract_pct"
BUDGET_COLUMNS = ("delay_budget_ms", "loss_budget_pct")
"""A ``contracts`` row is an application's budget when one of these has a value."""

ROW_KEYS = ["point", "app", "interval_ms"]


@dataclass(frozen=True)
class PointVerdicts:
    """One point of the grid as the answer's tables show it."""

    values: list[str]
    """The point's value of each parameter, as text."""
    verdicts: list[dict[Any, Any] | None]
    """Per budgeted application, in order: its row of :attr:`Answer.verdicts` (``n``,
    ``mean_pct``, ``low_pct``, ``in_contract``), or None when it has no result there."""
    every: bool
    cheapest: bool


@dataclass(frozen=True)
class Answer:
    """Per point and budgeted application, in contract or not, and the points meeting
    every budget."""

    parameters: list[str]
    """The columns naming a point (``variant`` and the varied keys), in order."""
    apps: list[str]
    """The budgeted applications, in the order the scenario declares them."""
    target_pct: float
    confidence: float
    verdicts: pd.DataFrame
    """One row per point and application: the parameters, ``app``, ``n`` (replications
    judged), ``mean_pct`` and ``low_pct`` (the worst mean and lower bound of its share in
    contract, %) and ``in_contract``."""
    points: pd.DataFrame
    """One row per point of the grid, in its order: the parameters, ``every_app`` (each
    budgeted application in contract there), ``weakest`` (the application with the lowest
    bound), ``weakest_low_pct`` and ``cost_bps`` (the sum of its rate-valued keys, or NaN)."""
    cost_keys: list[str] = field(default_factory=list)
    """The varied keys whose values are rates, which the cost adds up."""

    @property
    def meeting(self) -> pd.DataFrame:
        """The points that meet every budget, in the grid's order."""
        return self.points[self.points["every_app"]]

    @property
    def cheapest(self) -> dict[str, object] | None:
        """The cheapest point that meets every budget (parameter: value), or None when none
        does or no varied key is a rate."""
        meeting = self.meeting
        if meeting.empty or not self.cost_keys:
            return None
        row = meeting.iloc[int(meeting["cost_bps"].to_numpy().argmin())]
        return {column: row[column] for column in self.parameters}

    def rows(self) -> list[PointVerdicts]:
        """Every point in the grid's order with each application's verdict."""
        keys = self.parameters
        cheapest = self.cheapest
        cheapest_values = [str(cheapest[key]) for key in keys] if cheapest is not None else None
        verdicts = {
            (*(str(record[key]) for key in keys), str(record["app"])): record
            for record in self.verdicts.to_dict("records")
        }
        rows = []
        for point in self.points.to_dict("records"):
            values = [str(point[key]) for key in keys]
            rows.append(
                PointVerdicts(
                    values=values,
                    verdicts=[verdicts.get((*values, app)) for app in self.apps],
                    every=bool(point["every_app"]),
                    cheapest=values == cheapest_values,
                )
            )
        return rows

    def label(self, point: Mapping[Any, object]) -> str:
        """``point`` in words (``output llq, rate 768kbps``)."""
        return point_label(point, self.parameters)

    def sentence(self) -> str:
        """The answer in one paragraph of plain text: the finding, then the rule."""
        return f"{self.finding()} {self.rule()}".strip()

    def finding(self) -> str:
        """Which points keep every budgeted application in contract, and the cheapest."""
        if not self.apps:
            return (
                "The scenario declares no quality budgets (measure.budgets), so no point "
                "is judged in or out of contract."
            )
        meeting = self.meeting
        if meeting.empty:
            found = f"No point of the {len(self.points)} keeps every application in contract."
        elif len(meeting) == len(self.points):
            found = f"Every point of the {len(self.points)} keeps every application in contract."
        else:
            names = "; ".join(
                self.label(point) for point in meeting[self.parameters].to_dict("records")
            )
            found = (
                f"{len(meeting)} of the {len(self.points)} points keep every application in "
                f"contract: {names}."
            )
        cheapest = self.cheapest
        if cheapest is not None:
            found += f" The cheapest: {self.label(cheapest)}."
        elif not meeting.empty and not self.cost_keys and self.parameters:
            found += " No varied key is a rate, so none is named the cheapest."
        return found

    def rule(self) -> str:
        """Which applications are judged, and how."""
        if not self.apps:
            return ""
        return (
            f"Budgeted applications: {', '.join(self.apps)}. An application is in contract "
            f"at a point when the lower bound of the {self.confidence * 100:g} % confidence "
            f"interval of its share of intervals in contract is at least "
            f"{self.target_pct:g} %."
        )


def answer(
    contracts: pd.DataFrame | None,
    points: pd.DataFrame,
    *,
    target_pct: float = 95.0,
    confidence: float = 0.95,
) -> Answer:
    """The answer of a sweep from its runs' ``contracts`` rows (parameters, ``replication``
    and the table's columns; None when no run measured budgets) and its ``points`` (one row
    per point of the grid, the parameter columns, in the grid's order)."""
    if not 0 <= target_pct <= 100:
        raise ValueError(f"target {target_pct:g} %: give a share between 0 and 100 %")
    parameters = [str(column) for column in points.columns]
    rows = _budget_rows(contracts)
    apps = list(dict.fromkeys(rows["app"].astype(str))) if rows is not None else []
    verdicts = _verdicts(rows, parameters, target_pct, confidence)
    return Answer(
        parameters=parameters,
        apps=apps,
        target_pct=target_pct,
        confidence=confidence,
        verdicts=verdicts,
        points=_points(points.reset_index(drop=True), verdicts, apps),
        cost_keys=rate_keys(points),
    )


def _budget_rows(contracts: pd.DataFrame | None) -> pd.DataFrame | None:
    """The rows of budgeted applications that measured a share in contract."""
    if contracts is None or contracts.empty or SHARE not in contracts.columns:
        return None
    budgeted = contracts[SHARE].notna()
    present = [column for column in BUDGET_COLUMNS if column in contracts.columns]
    if present:
        budgeted &= contracts[present].notna().any(axis=1)
    rows = contracts[budgeted]
    return rows if not rows.empty else None


def _verdicts(
    rows: pd.DataFrame | None, parameters: list[str], target_pct: float, confidence: float
) -> pd.DataFrame:
    columns = [*parameters, "app", "n", "mean_pct", "low_pct", "in_contract"]
    if rows is None:
        return pd.DataFrame(columns=columns)
    verdicts = share_bounds(rows, parameters, confidence)
    # A share is never below 0 %, whatever the interval's arithmetic gives.
    verdicts["low_pct"] = verdicts["low_pct"].clip(lower=0.0)
    verdicts["in_contract"] = verdicts["low_pct"] >= target_pct
    return verdicts[columns]


def share_bounds(rows: pd.DataFrame, by: list[str], confidence: float) -> pd.DataFrame:
    """Per configuration (``by``) and application, from ``contracts`` rows of several
    replications: ``n`` (replications judged), ``mean_pct`` and ``low_pct`` — the worst over
    observation points and interval lengths of the mean and of the lower ``confidence``
    bound of its share of intervals in contract (the mean itself with one replication)."""
    stats = summarize(rows, by=by, keys=ROW_KEYS, metrics=[SHARE], confidence=confidence)
    stats["low_pct"] = stats["ci_low"].where(stats["n"] > 1, stats["mean"])
    grouped = stats.groupby([*by, "app"], observed=True, sort=False)
    return grouped.agg(
        n=("n", "min"), mean_pct=("mean", "min"), low_pct=("low_pct", "min")
    ).reset_index()


def _points(points: pd.DataFrame, verdicts: pd.DataFrame, apps: list[str]) -> pd.DataFrame:
    """Each point with whether every application is in contract there, its weakest
    application and its cost."""
    parameters = list(points.columns)
    every, weakest, weakest_low = [], [], []
    by_point = {
        _point_key(key, parameters): group
        for key, group in (
            verdicts.groupby(parameters, observed=True, sort=False)
            if parameters
            else [((), verdicts)]
        )
    }
    for record in points.to_dict("records"):
        group = by_point.get(tuple(str(record[column]) for column in parameters))
        if group is None or group.empty or not apps:
            every.append(False)
            weakest.append("")
            weakest_low.append(math.nan)
            continue
        worst = group.iloc[int(group["low_pct"].to_numpy().argmin())]
        every.append(bool(group["in_contract"].all()) and len(group) == len(apps))
        weakest.append(str(worst["app"]))
        weakest_low.append(float(worst["low_pct"]))
    laid_out = points.copy()
    laid_out["every_app"] = every
    laid_out["weakest"] = weakest
    laid_out["weakest_low_pct"] = weakest_low
    laid_out["cost_bps"] = _costs(points, rate_keys(points))
    return laid_out


def _point_key(key: object, parameters: list[str]) -> tuple[str, ...]:
    values = key if isinstance(key, tuple) else (key,)
    return tuple(str(value) for value in values[: len(parameters)])


def rate_keys(points: pd.DataFrame) -> list[str]:
    """The columns of ``points`` each of whose values reads as a bit rate."""
    return [
        str(column)
        for column in points.columns
        if len(points) and all(_rate_bps(value) is not None for value in points[column])
    ]


def _rate_bps(value: object) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        return parse_rate_bps(value)
    except ValueError:
        return None


def _costs(points: pd.DataFrame, keys: Sequence[str]) -> list[float]:
    if not keys:
        return [math.nan] * len(points)
    return [
        float(sum(_rate_bps(record[key]) or 0 for key in keys))
        for record in points.to_dict("records")
    ]
