"""Order of failure: which application first exceeds its budget as the network degrades,
compared with the order the scenario declares (``measure.order_of_failure``).

The ad-hoc report asks that, as load rises or link speed falls, applications fail to meet
their quality budgets in a prescribed order (best effort first, the alarm last). Given the
runs of a sweep ordered from the mildest to the harshest condition, this module finds the
first step at which each application with a budget fails and lists every pair that fails
out of order. An application fails at a step when its mean ΔQ budget consumption exceeds 1
(the report's scatter points right of the budget mark), or, with ``min_in_contract_pct``,
when its share of intervals in contract falls below that percentage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from qoslab.experiment.sweep import Sweep
from qoslab.results import Results

FAILURE_COLUMNS = (
    "app",
    "declared_rank",
    "first_failure_step",
    "first_failure_at",
    "observed_rank",
    "fails_before",
)
"""Columns of the order-of-failure table, in order."""


def order_of_failure(
    sweep: Sweep | Sequence[tuple[object, Any]],
    *,
    point: str | None = None,
    interval_ms: float | None = None,
    min_in_contract_pct: float | None = None,
    declared: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The order in which the applications of ``sweep`` fail, against the declared one.

    ``sweep`` is a :class:`Sweep` of one varied key whose values go from the mildest
    condition to the harshest (link rates falling, loads rising; its first replication of
    the scenario as written is used), or a sequence of ``(value, results)`` pairs in that
    order; ``value`` labels the step. ``point`` and
    ``interval_ms`` choose the observation point and ΔQ interval length (default: the first
    of each in the results). ``declared`` is the intended order, first to fail first
    (default: the scenario's ``measure.order_of_failure``); applications in it without a
    budget are left out, as nothing can be out of their contract.

    Returns one row per declared application with a budget: ``declared_rank`` (1 fails
    first), ``first_failure_step`` (index into ``sweep``, or ``None`` if it never fails),
    ``first_failure_at`` (that step's value), ``observed_rank`` (1 fails first; equal steps
    share a rank; applications that never fail come last) and ``fails_before``: the
    applications declared to fail earlier than this one that failed strictly later or not
    at all — the inversions, empty when the order holds.
    """
    if isinstance(sweep, Sweep):
        sweep = _steps(sweep)
    if not sweep:
        raise ValueError("the sweep has no runs")
    first = sweep[0][1]
    if first.contracts.empty:
        raise ValueError("the runs have no contracts table: give the scenario measure.budgets")
    point = point if point is not None else str(first.contracts["point"].iloc[0])
    interval_ms = (
        interval_ms if interval_ms is not None else float(first.contracts["interval_ms"].iloc[0])
    )
    order = list(declared if declared is not None else first.run.get("order_of_failure", []))
    if not order:
        raise ValueError("no declared order: set measure.order_of_failure or pass declared=")

    failed_at: dict[str, int | None] = {}
    budgeted: list[str] = []
    for step, (_, results) in enumerate(sweep):
        table = results.contracts
        rows = table[(table["point"] == point) & (table["interval_ms"] == interval_ms)]
        if rows.empty:
            raise ValueError(f"step {step}: no contract rows at {point!r}, {interval_ms:g} ms")
        by_app = {row["app"]: row for row in rows.to_dict("records")}
        for app in order:
            row = by_app.get(app)
            if row is None:
                raise ValueError(f"step {step}: no application {app!r} in the contracts table")
            if _missing(row["consumption_mean"]):
                continue
            if app not in budgeted:
                budgeted.append(app)
                failed_at.setdefault(app, None)
            if failed_at[app] is None and _fails(row, min_in_contract_pct):
                failed_at[app] = step

    ranked = sorted({s for s in failed_at.values() if s is not None})
    records = []
    for rank, app in enumerate((a for a in order if a in budgeted), start=1):
        failed = failed_at[app]
        earlier = [a for a in order[: order.index(app)] if a in budgeted]
        late = [a for a in earlier if _later(failed_at[a], failed)]
        records.append(
            {
                "app": app,
                "declared_rank": rank,
                "first_failure_step": failed,
                "first_failure_at": None if failed is None else sweep[failed][0],
                "observed_rank": len(ranked) + 1 if failed is None else ranked.index(failed) + 1,
                "fails_before": ", ".join(late),
            }
        )
    return pd.DataFrame.from_records(records, columns=list(FAILURE_COLUMNS))


def _steps(sweep: Sweep) -> list[tuple[object, Results]]:
    """The runs of a one-key sweep as ``(value, results)`` pairs, in the order given."""
    if len(sweep.keys) != 1:
        raise ValueError(
            f"the sweep varies {len(sweep.keys)} keys: order of failure needs exactly one"
        )
    (key,) = sweep.keys
    return [
        (value, sweep.results({key: value}))
        for value in sweep.manifest["plan"]["vary"][0]["values"]
    ]


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _fails(row: dict, min_in_contract_pct: float | None) -> bool:
    if min_in_contract_pct is None:
        return row["consumption_mean"] > 1.0
    return row["in_contract_pct"] < min_in_contract_pct


def _later(step: int | None, than: int | None) -> bool:
    """Whether an application failing at ``step`` failed strictly after one failing at
    ``than`` (``None``: never)."""
    if than is None:
        return False
    return step is None or step > than
