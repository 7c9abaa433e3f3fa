"""The search: link speeds from the cheapest up, and at each speed the template's grid by
successive halving, in two stages.

The first stage searches the principal settings (priority rate, bandwidth, transmit ring,
LFI) with IOS's default queue limits and no WRED; the second tries queue limits and WRED on
the three best of them. In each stage every candidate is run with one replication; the best
third (at least three) go on with three times the replications, and so on until they have
all the replications asked for, where a candidate meets the target only if every budgeted
application's lower confidence bound does (:mod:`qoslab.advise.evaluate`). Successive
halving (Jamieson and Talwalkar, "Non-stochastic best arm identification and hyperparameter
optimization", AISTATS 2016) spends the replications on the candidates that may win; it is
deterministic, as every run is seeded by the scenario's seed and its replication number.
The scan stops at the first speed where a candidate meets the target: feasibility grows
with the speed, and the cheapest link is the one asked for. A speed that arithmetic already
rules out (the priority traffic, or all the budgeted UDP traffic, above the link's rate) is
not run.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from qoslab.advise.evaluate import Evaluator, Score, ranked
from qoslab.advise.problem import Problem
from qoslab.advise.template import Candidate, Class, candidates, infeasible

ETA = 3
"""Replications grow, and candidates shrink, by this factor per round."""

KEPT_AT_LEAST = 3
"""Candidates that go on to every round (when there are that many)."""


@dataclass
class SpeedResult:
    """What the search found at one link speed."""

    speed_bps: int
    reason: str | None
    """Why nothing works at this speed; None when a candidate meets the target."""
    scores: list[Score]
    """Every candidate's last score, best first."""

    @property
    def best(self) -> Score | None:
        """The best candidate, if any was run."""
        return self.scores[0] if self.scores else None

    @property
    def feasible(self) -> bool:
        """Whether a candidate meets the target here."""
        return self.reason is None


def search_speed(
    problem: Problem, made: list[Class], speed_bps: int, base: dict, evaluator: Evaluator
) -> SpeedResult:
    """The template's grid at ``speed_bps``, judged by successive halving."""
    reason = infeasible(problem, made, speed_bps)
    if reason is not None:
        return SpeedResult(speed_bps, reason, [])
    pool = candidates(problem, made, speed_bps, base)
    if not pool:
        return SpeedResult(
            speed_bps,
            "no policy of the template fits IOS's limits: the classes need more than the "
            "interface bandwidth at IOS's smallest rate of 8 kbit/s each",
            [],
        )
    last: dict[int, Score] = {}
    principal = [c for c in pool if c.queue_limit == "default" and not c.wred]
    _halve(principal, evaluator, last)
    leaders = {s.candidate.principal for s in ranked(list(last.values()))[:KEPT_AT_LEAST]}
    refined = [c for c in pool if c.principal in leaders and id(c) not in last]
    _halve(refined, evaluator, last)
    scores = ranked(list(last.values()))
    best = scores[0]
    if best.meets_target:
        return SpeedResult(speed_bps, None, scores)
    return SpeedResult(speed_bps, _shortfall(best, problem), scores)


def estimate_runs(
    problem: Problem, made: list[Class], speed_bps: int, base: dict, full_reps: int
) -> int:
    """The runs :func:`search_speed` makes at ``speed_bps``: none at a speed arithmetic rules
    out; else the halving of the principal settings, then of the other variants of the three
    best of them (as many as the three largest families have)."""
    if infeasible(problem, made, speed_bps) is not None:
        return 0
    pool = candidates(problem, made, speed_bps, base)
    principal = [c for c in pool if c.queue_limit == "default" and not c.wred]
    families = sorted(Counter(c.principal for c in pool).values(), reverse=True)
    refined = sum(size - 1 for size in families[:KEPT_AT_LEAST])
    return halving_runs(len(principal), full_reps) + halving_runs(refined, full_reps)


def halving_runs(count: int, full_reps: int) -> int:
    """The runs successive halving makes on ``count`` candidates up to ``full_reps``
    replications, each (candidate, replication) run once: 9 candidates brought to 5
    replications make 9 runs, then 6 (the best 3 to 3), then 6 more (to 5): 21."""
    runs, reps, done = 0, 1, 0
    while count:
        runs += count * (reps - done)
        if reps >= full_reps:
            return runs
        done = reps
        count = min(count, max(KEPT_AT_LEAST, math.ceil(count / ETA)))
        reps = min(full_reps, reps * ETA)
    return runs


def _halve(pool: list[Candidate], evaluator: Evaluator, last: dict[int, Score]) -> None:
    """Successive halving of ``pool``; each candidate's last score goes into ``last``."""
    reps = 1
    while pool:
        scored = ranked(evaluator.scores(pool, reps))
        for score in scored:
            last[id(score.candidate)] = score
        if reps >= evaluator.full_reps:
            return
        keep = max(KEPT_AT_LEAST, math.ceil(len(scored) / ETA))
        pool = [score.candidate for score in scored[:keep]]
        reps = min(evaluator.full_reps, reps * ETA)


def _shortfall(best: Score, problem: Problem) -> str:
    if best.failed is not None:
        return f"the runs failed: {best.failed}"
    app = best.weakest
    return (
        f"at best `{app}` is in contract in {best.low_pct[app]:.1f} % of intervals (lower "
        f"{problem.confidence:.0%} bound over {best.reps} replications), short of "
        f"{problem.target_pct:g} %"
    )


def same_settings(candidate: Candidate, pool: list[Candidate]) -> Candidate | None:
    """The candidate of ``pool`` made with the same grid settings as ``candidate``."""
    return next((other for other in pool if other.grid_point == candidate.grid_point), None)
