"""Candidates run and judged: every run on the sweep engine (local cores or Dask), each
(candidate, replication) pair run once and kept.

A candidate is judged on the ``contracts`` table at every observation point and ΔQ interval
length the scenario measures. For each budgeted application the evidence is the lower
bound of the confidence interval (Student's t over the replications) of its share of
intervals in contract, the worst over points and lengths. Its **margin** is the smallest of
those bounds less the target; the candidate meets the target when the margin is not
negative with every replication asked for. Its **headroom** is one less the largest mean
budget consumption of any budgeted application at any point and length: how much of its
budget the worst-served application leaves unused on average (1 when nothing is consumed,
0 at the budget, negative beyond it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import pandas as pd

from qoslab.advise.error import AdviceError
from qoslab.advise.problem import Problem
from qoslab.advise.template import Candidate
from qoslab.analysis.answer import ROW_KEYS, share_bounds
from qoslab.analysis.summary import summarize
from qoslab.experiment.engine import sweep
from qoslab.experiment.sweep import Sweep
from qoslab.scenario import Scenario, ScenarioError

JUDGED_COLUMNS = ("point", "app", "interval_ms", "in_contract_pct", "consumption_mean")


@dataclass(frozen=True)
class Executor:
    """Where the runs go, as for ``qoslab sweep``."""

    jobs: int | None = None
    executor: str = "local"
    scheduler: object = None

    def sweep(self, scenario: Scenario, **options: Any) -> Sweep:
        """:func:`~qoslab.experiment.engine.sweep` of ``scenario`` with ``options``, on these
        cores or this cluster, quietly: no bar, no warnings, the scenario's ``sweep:``
        section ignored."""
        return sweep(
            scenario,
            jobs=self.jobs,
            executor=self.executor,
            scheduler=self.scheduler,
            progress=False,
            use_section=False,
            warn=lambda _: None,
            **options,
        )


@dataclass
class Score:
    """A candidate judged on its first ``reps`` replications."""

    candidate: Candidate
    reps: int
    low_pct: dict[str, float]
    """Per application: the lower confidence bound of its in-contract share, %."""
    mean_pct: dict[str, float]
    """Per application: the mean of its in-contract share, %."""
    consumption: dict[str, float]
    """Per application: its largest mean budget consumption."""
    margin_pct: float
    headroom: float
    meets_target: bool
    failed: str | None = None

    @property
    def rank_key(self) -> tuple:
        """Higher is better: how far short of the target (0 once it is met), headroom, and
        the reservation, smaller first."""
        return (min(self.margin_pct, 0.0), self.headroom, -self.candidate.reserved_kbps)

    @property
    def weakest(self) -> str:
        """The application with the smallest lower bound."""
        return min(self.low_pct, key=lambda app: (self.low_pct[app], app))


class Evaluator:
    """Runs candidates' replications on demand and scores them."""

    def __init__(
        self,
        problem: Problem,
        executor: Executor,
        full_reps: int,
        on_runs: Callable[[int], None] = lambda _: None,
    ) -> None:
        self.problem = problem
        self.executor = executor
        self.full_reps = full_reps
        self.on_runs = on_runs
        """Told of each batch of runs finished, with their number."""
        self._rows: dict[tuple, pd.DataFrame] = {}
        self._failed: dict[tuple[str, ...], str] = {}
        self.runs = 0

    def scores(self, pool: list[Candidate], reps: int) -> list[Score]:
        """Each candidate of ``pool`` scored on replications 0 to ``reps`` - 1."""
        self._run([(c, r) for c in pool for r in range(reps) if not self._has(c, r)])
        return [self._score(c, reps) for c in pool]

    def _key(self, candidate: Candidate) -> tuple[str, ...]:
        """The values the candidate's runs are varied by, and found again by: its line's
        rate, its interface settings and, on a handoff the provider polices, the policer's
        settings."""
        return tuple(value for _, value in candidate.changes)

    def _has(self, candidate: Candidate, replication: int) -> bool:
        key = self._key(candidate)
        return (*key, replication) in self._rows or key in self._failed

    def _run(self, pairs: list[tuple[Candidate, int]]) -> None:
        if not pairs:
            return
        problem = self.problem
        names = [key for key, _ in pairs[0][0].changes]
        keys = [self._key(c) for c, _ in pairs]
        vary: dict[str, list] = {name: [key[i] for key in keys] for i, name in enumerate(names)}
        vary["run.replication"] = [r for _, r in pairs]
        try:
            done = self.executor.sweep(
                problem.scenario, vary=vary, zip=True, set=problem.assignments()
            )
        except ScenarioError as error:
            raise AdviceError(f"a candidate policy was refused: {error}") from None
        self.runs += len(pairs)
        self.on_runs(len(pairs))
        for failure in done.failures.to_dict("records"):
            key = tuple(str(failure[name]) for name in names)
            self._failed[key] = f"{failure['status']}: {failure['error']}"
        contracts = done.runs.contracts
        budgeted = contracts["delay_budget_ms"].notna() | contracts["loss_budget_pct"].notna()
        contracts = contracts[budgeted & contracts["app"].isin({a.name for a in problem.budgeted})]
        for (*values, replication), rows in contracts.groupby(
            [*names, "run.replication"], sort=False
        ):
            key = tuple(str(value) for value in values)
            self._rows[(*key, int(cast(int, replication)))] = rows[list(JUDGED_COLUMNS)]

    def _score(self, candidate: Candidate, reps: int) -> Score:
        key = self._key(candidate)
        failed = self._failed.get(key)
        if failed is not None:
            return _failed_score(candidate, reps, failed, self.problem)
        frame = pd.concat(
            [self._rows[(*key, r)].assign(replication=r) for r in range(reps)], ignore_index=True
        )
        low_pct, mean_pct, consumption = contract_bounds(frame, self.problem.confidence)
        target = self.problem.target_pct
        margin = min((v - target for v in low_pct.values()), default=math.inf)
        headroom = 1.0 - max(consumption.values(), default=0.0)
        meets = margin >= 0 and reps >= self.full_reps
        return Score(
            candidate=candidate,
            reps=reps,
            low_pct={a: float(v) for a, v in low_pct.items()},
            mean_pct={a: float(v) for a, v in mean_pct.items()},
            consumption={a: float(v) for a, v in consumption.items()},
            margin_pct=float(margin),
            headroom=float(headroom),
            meets_target=meets,
        )


def contract_bounds(
    frame: pd.DataFrame, confidence: float
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Per application, from ``contracts`` rows of several replications (``replication``
    column): the lower confidence bound of its in-contract share and its mean, each the
    worst over points and interval lengths, and its largest mean budget consumption."""
    shares = share_bounds(frame, [], confidence).set_index("app")
    used = (
        summarize(frame, keys=ROW_KEYS, metrics=["consumption_mean"], confidence=confidence)
        .groupby("app")["mean"]
        .max()
    )
    return (
        _by_app(shares["low_pct"].dropna()),
        _by_app(shares["mean_pct"].dropna()),
        _by_app(used.dropna()),
    )


def _by_app(values: pd.Series) -> dict[str, float]:
    """``values``, indexed by application, as a plain mapping."""
    return {str(app): float(value) for app, value in values.items()}


def _failed_score(candidate: Candidate, reps: int, message: str, problem: Problem) -> Score:
    apps = {app.name: 0.0 for app in problem.budgeted}
    return Score(
        candidate=candidate,
        reps=reps,
        low_pct=apps,
        mean_pct=apps,
        consumption={},
        margin_pct=-problem.target_pct,
        headroom=-math.inf,
        meets_target=False,
        failed=message,
    )


def ranked(scores: list[Score]) -> list[Score]:
    """Best first: candidates that meet the target (then most headroom, then the smallest
    reservation), then the others, those judged on more replications first, by how near
    they come. Ties keep the grid's order."""
    return sorted(scores, key=lambda s: (not s.meets_target, -s.reps, *(-v for v in s.rank_key)))
