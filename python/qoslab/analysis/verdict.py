"""Verdicts of a reproduction: does qoslab's estimate agree with what a study published?

Each published value comes with the rule that judges it:

* a **number** (``value``), judged by a tolerance band around it (``tolerance``: a share of
  the value, or an absolute amount): qoslab's mean must lie in the band, which is widened
  to cover the study's own confidence interval (``ci``) where it printed one. qoslab's
  interval plays no part: a wide interval that touches the study's is not agreement, and a
  zero-width one is not disagreement;
* a **threshold** (``below`` or ``above``) or a **range** (``between``), judged on qoslab's
  mean — or, where the study states its own criterion, on the replications (``runs``:
  ``every`` — a configuration works only when each run is within its budget — or
  ``some`` — it fails when any run is over);
* an **ordering** of points (``order``, smallest first; points in one group are equal
  within the tolerance) or one point being the **largest** or **smallest** of all
  (``largest``, ``smallest``), judged pair by pair on the paired differences of the same
  replications (:func:`qoslab.analysis.estimate.paired_difference`): each difference's
  interval must lie above zero, or above the practical ``margin`` the entry states. A pair
  whose interval contains zero is a tie, and the ordering is not reproduced;
* an **equality** of points (``equal``), judged on the means within the tolerance.

When the rule fails, an optional weaker ``conclusion`` (a threshold or an ordering, the
study's qualitative claim behind the number) decides between "same conclusion, different
magnitude" and "differs". A value the model cannot produce is "not modelled".

Not every published number is a result. A value the study configured and reports back (the
load it offered) is an **input check**, confirmed or not; a value its own data contradict is
**study inconsistent**, with the arithmetic. Both are counted apart from the verdicts, and so
are values derived from other published values and duplicates of them (:data:`ROLES`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from qoslab.analysis.estimate import Estimate, paired_difference

REPRODUCED = "reproduced"
SAME_CONCLUSION = "same conclusion, different magnitude"
DIFFERS = "differs"
NOT_MODELLED = "not modelled"
VERDICTS = (REPRODUCED, SAME_CONCLUSION, DIFFERS, NOT_MODELLED)
"""Every verdict, best first."""

INPUT_CONFIRMED = "input confirmed"
INPUT_DIFFERS = "input differs"
STUDY_INCONSISTENT = "study inconsistent"
APART = (INPUT_CONFIRMED, INPUT_DIFFERS, STUDY_INCONSISTENT)
"""The outcomes of values that are not results, counted apart from the verdicts."""

RUNS = ("mean", "every", "some")
"""What a rule on one quantity is judged on: the mean over the replications, or the study's
criterion on them — every replication, or some replication."""

RESULT = "result"
INPUT = "input"
INCONSISTENT = "inconsistent"
DERIVED = "derived"
DUPLICATE = "duplicate"
ROLES = (RESULT, INPUT, INCONSISTENT, DERIVED, DUPLICATE)
"""What a published value is: a result of the study (counted), an input it configured and
reports back, a value its own data contradict, or a value derived from other published
values or a duplicate of one (judged and shown, not counted)."""

DEFAULT_TOLERANCE = 0.15
"""The relative band of a number without a tolerance of its own: ±15 %."""


@dataclass(frozen=True)
class Tolerance:
    """How far from a published number qoslab may be and still reproduce it: a share of the
    number (``relative``) or an amount in its unit (``absolute``)."""

    relative: float | None = DEFAULT_TOLERANCE
    absolute: float | None = None

    def amount(self, published: float) -> float:
        """The band's half-width around ``published``, in its unit."""
        if self.absolute is not None:
            return self.absolute
        return (self.relative or 0.0) * abs(published)

    def equal(self, a: float, b: float) -> bool:
        """Whether two estimates of one quantity count as equal: within the absolute amount,
        or the relative share of the larger."""
        if self.absolute is not None:
            return abs(a - b) <= self.absolute + 1e-12
        return abs(a - b) <= (self.relative or 0.0) * max(abs(a), abs(b)) + 1e-12

    def describe(self) -> str:
        if self.absolute is not None:
            return f"±{self.absolute:g}"
        return f"±{100 * (self.relative or 0.0):g} %"


@dataclass(frozen=True)
class Pair:
    """Two points a rule over points needs in order: ``lower`` below ``upper``, and the
    paired difference ``upper - lower`` of their replications."""

    lower: str
    upper: str
    difference: Estimate

    def ordered(self, margin: float) -> bool:
        """Whether the difference's interval lies above ``margin`` (zero: it excludes zero)."""
        return not math.isnan(self.difference.low) and self.difference.low > margin


@dataclass(frozen=True)
class Claim:
    """A rule about one quantity or about several points of it.

    ``kind`` is ``value``, ``below``, ``above``, ``between``, ``order``, ``equal``,
    ``largest`` or ``smallest``; ``number`` the published number or threshold; ``ci`` the
    study's interval, if printed, or the range of ``between``; ``order`` the points (values
    of the parameter ``over``) smallest first, each a group of points equal within
    ``tolerance`` — for ``largest`` and ``smallest``, the point first and the others after,
    which are all the other points unless ``among`` (then only those the study compared);
    ``margin`` the practical difference an ordering's paired interval must clear (default
    0); ``runs`` what a threshold, range or number is judged on: the ``mean`` (default), or,
    the study's own criterion, ``every`` replication or ``some`` replication.
    """

    kind: str
    number: float | None = None
    ci: tuple[float, float] | None = None
    order: tuple[tuple[str, ...], ...] = ()
    over: str | None = None
    tolerance: Tolerance = Tolerance()
    among: bool = False
    margin: float = 0.0
    runs: str = "mean"

    def describe(self, unit: str = "") -> str:
        """The rule in words, for the documents."""
        u = f" {unit}" if unit else ""
        if self.kind == "value":
            if self.ci is not None:
                return f"{self.number:g}{u} (study's CI {self.ci[0]:g} to {self.ci[1]:g})"
            return f"{self.number:g}{u}"
        if self.kind == "below":
            return f"< {self.number:g}{u}"
        if self.kind == "above":
            return f"> {self.number:g}{u}"
        if self.kind == "between" and self.ci is not None:
            return f"{self.ci[0]:g} to {self.ci[1]:g}{u}"
        if self.kind in ("largest", "smallest"):
            if self.among:
                pool = ", ".join(point for group in self.order for point in group)
                return f"{self.order[0][0]} the {self.kind} of {pool}"
            return f"{self.order[0][0]} the {self.kind} of all"
        groups = [" = ".join(group) for group in self.order]
        return " < ".join(groups) if self.kind == "order" else " = ".join(groups)

    def band(self) -> tuple[float, float]:
        """The numbers a ``value`` rule accepts: the tolerance band around the published
        number, widened to the study's interval where it printed one."""
        number = float(self.number if self.number is not None else math.nan)
        tolerance = self.tolerance.amount(number)
        low, high = (number, number) if self.ci is None else self.ci
        return min(low, number) - tolerance - 1e-12, max(high, number) + tolerance + 1e-12

    def holds(self, estimates: Mapping[str | None, Estimate], interval: str = "t") -> bool:
        """Whether the rule holds for ``estimates`` (by point; ``None`` for the one point
        of a single-quantity rule); ``interval`` is the kind of the paired differences'
        intervals (``t`` or ``normal``)."""
        if self.kind in ("largest", "smallest", "order"):
            return self._groups_equal(estimates) and all(
                pair.ordered(self.margin) for pair in self.pairs(estimates, interval)
            )
        if self.kind == "equal":
            return self._groups_equal(estimates)
        estimate = estimates[None]
        if self.runs == "every":
            return bool(estimate.values) and all(self.accepts(v) for v in estimate.values)
        if self.runs == "some":
            return any(self.accepts(v) for v in estimate.values)
        if any(math.isnan(x) for x in (estimate.mean, estimate.low, estimate.high)):
            return False
        return self.accepts(estimate.mean)

    def accepts(self, x: float) -> bool:
        """Whether one number (a mean, or one replication's value) meets a threshold, range
        or number rule."""
        if math.isnan(x):
            return False
        number = float(self.number if self.number is not None else math.nan)
        if self.kind == "below":
            return x < number
        if self.kind == "above":
            return x > number
        if self.kind == "between" and self.ci is not None:
            return self.ci[0] <= x <= self.ci[1]
        low, high = self.band()
        return low <= x <= high

    @property
    def over_points(self) -> bool:
        """Whether the rule compares points along a parameter."""
        return self.kind in ("order", "equal", "largest", "smallest")

    @property
    def ordering(self) -> bool:
        """Whether the rule puts points in order (judged on paired differences)."""
        return self.kind in ("order", "largest", "smallest")

    def pairs(self, estimates: Mapping[str | None, Estimate], interval: str = "t") -> list[Pair]:
        """The pairs of points an ordering needs in order, each with its paired difference:
        every point of a group below every point of the next, or the extreme point beyond
        every other."""
        return [
            Pair(lower, upper, paired_difference(estimates[lower], estimates[upper], interval))
            for lower, upper in self._pair_points()
        ]

    def _pair_points(self) -> Iterator[tuple[str, str]]:
        if self.kind == "largest":
            point = self.order[0][0]
            yield from ((other, point) for group in self.order[1:] for other in group)
        elif self.kind == "smallest":
            point = self.order[0][0]
            yield from ((point, other) for group in self.order[1:] for other in group)
        else:
            for lower, upper in pairwise(self.order):
                yield from ((a, b) for a in lower for b in upper)

    def _groups_equal(self, estimates: Mapping[str | None, Estimate]) -> bool:
        """Whether every point has a mean and the points of each group (all the points, for
        ``equal``) are equal within the tolerance. An extreme's groups are not claimed
        equal."""
        means = [[estimates[point].mean for point in group] for group in self.order]
        if any(math.isnan(m) for group in means for m in group):
            return False
        if self.kind in ("largest", "smallest"):
            return True
        if self.kind == "equal":
            means = [[m for group in means for m in group]]
        return all(all(self.tolerance.equal(group[0], m) for m in group) for group in means)


def judge(
    claim: Claim,
    estimates: Mapping[str | None, Estimate],
    conclusion: Claim | None = None,
    conclusion_estimates: Mapping[str | None, Estimate] | None = None,
    interval: str = "t",
) -> str:
    """The verdict on ``claim`` given qoslab's ``estimates``; ``conclusion`` (judged on
    ``conclusion_estimates``, default the same) is the weaker claim that still holds when
    only the magnitude differs; ``interval`` the kind of the paired differences' intervals."""
    if claim.holds(estimates, interval):
        return REPRODUCED
    if conclusion is not None and conclusion.holds(conclusion_estimates or estimates, interval):
        return SAME_CONCLUSION
    return DIFFERS


def outcome(role: str, verdict: str) -> str:
    """What a judged value counts as: its verdict for a result, a derived value or a
    duplicate; an input check's confirmation; or the study's inconsistency."""
    if role == INPUT:
        return INPUT_CONFIRMED if verdict == REPRODUCED else INPUT_DIFFERS
    if role == INCONSISTENT:
        return STUDY_INCONSISTENT
    return verdict


def counts(verdicts: Sequence[str]) -> dict[str, int]:
    """How many of each verdict, in the order of :data:`VERDICTS`."""
    return {verdict: sum(1 for v in verdicts if v == verdict) for verdict in VERDICTS}


def apart(rows: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Of ``(role, outcome)`` pairs, how many values are counted apart: each outcome of
    :data:`APART`, then the derived values and the duplicates."""
    tally = {name: sum(1 for _, o in rows if o == name) for name in APART}
    tally[DERIVED] = sum(1 for role, _ in rows if role == DERIVED)
    tally[DUPLICATE] = sum(1 for role, _ in rows if role == DUPLICATE)
    return tally
