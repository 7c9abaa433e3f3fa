"""Verdicts of a reproduction: does qoslab's estimate agree with what a study published?

Each published value comes with the rule that judges it:

* a **number** (``value``), judged by a tolerance band around it (``tolerance``: a share of
  the value, or an absolute amount) or, when the study printed its own confidence interval
  (``ci``), by whether qoslab's interval and the study's overlap: two estimates of one
  quantity agree when their intervals meet;
* a **threshold** (``below`` or ``above``) or a **range** (``between``), judged on qoslab's
  mean;
* an **ordering** of points (``order``, smallest first; points in one group are equal
  within the tolerance), an **equality** of points (``equal``), or one point being the
  **largest** or **smallest** of all (``largest``, ``smallest``), judged on the means.

When the rule fails, an optional weaker ``conclusion`` (a threshold or an ordering, the
study's qualitative claim behind the number) decides between "same conclusion, different
magnitude" and "differs". A value the model cannot produce is "not modelled".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

REPRODUCED = "reproduced"
SAME_CONCLUSION = "same conclusion, different magnitude"
DIFFERS = "differs"
NOT_MODELLED = "not modelled"
VERDICTS = (REPRODUCED, SAME_CONCLUSION, DIFFERS, NOT_MODELLED)
"""Every verdict, best first."""

DEFAULT_TOLERANCE = 0.15
"""The relative band of a number without a tolerance of its own: ±15 %."""


@dataclass(frozen=True)
class Estimate:
    """qoslab's estimate of a quantity over the replications: the mean and the bounds of
    its confidence interval (equal to the mean for one replication or a constant)."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Tolerance:
    """How far from a published number qoslab may be and still reproduce it: a share of the
    number (``relative``) or an amount in its unit (``absolute``)."""

    relative: float | None = DEFAULT_TOLERANCE
    absolute: float | None = None

    def allows(self, published: float, estimate: float) -> bool:
        """Whether ``estimate`` is within the band around ``published``."""
        if self.absolute is not None:
            return abs(estimate - published) <= self.absolute + 1e-12
        return abs(estimate - published) <= (self.relative or 0.0) * abs(published) + 1e-12

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
class Claim:
    """A rule about one quantity or about several points of it.

    ``kind`` is ``value``, ``below``, ``above``, ``between``, ``order``, ``equal``,
    ``largest`` or ``smallest``; ``number`` the published number or threshold; ``ci`` the
    study's interval, if printed, or the range of ``between``; ``order`` the points (values
    of the parameter ``over``) smallest first, each a group of points equal within
    ``tolerance`` — for ``largest`` and ``smallest``, the point first and the others after,
    which are all the other points unless ``among`` (then only those the study compared).
    """

    kind: str
    number: float | None = None
    ci: tuple[float, float] | None = None
    order: tuple[tuple[str, ...], ...] = ()
    over: str | None = None
    tolerance: Tolerance = Tolerance()
    among: bool = False

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

    def holds(self, estimates: Mapping[str | None, Estimate]) -> bool:
        """Whether the rule holds for ``estimates`` (by point; ``None`` for the one point
        of a single-quantity rule)."""
        if self.kind in ("largest", "smallest"):
            return self._extreme_holds(estimates)
        if self.kind in ("order", "equal"):
            return self._order_holds(estimates)
        estimate = estimates[None]
        if any(math.isnan(x) for x in (estimate.mean, estimate.low, estimate.high)):
            return False
        number = float(self.number if self.number is not None else math.nan)
        if self.kind == "below":
            return estimate.mean < number
        if self.kind == "above":
            return estimate.mean > number
        if self.kind == "between" and self.ci is not None:
            return self.ci[0] <= estimate.mean <= self.ci[1]
        if self.ci is not None:
            low, high = self.ci
            return estimate.low <= high + 1e-12 and estimate.high >= low - 1e-12
        return self.tolerance.allows(number, estimate.mean)

    @property
    def over_points(self) -> bool:
        """Whether the rule compares points along a parameter."""
        return self.kind in ("order", "equal", "largest", "smallest")

    def _extreme_holds(self, estimates: Mapping[str | None, Estimate]) -> bool:
        point = self.order[0][0]
        chosen = estimates[point].mean
        others = [e.mean for p, e in estimates.items() if p != point]
        if math.isnan(chosen) or any(math.isnan(m) for m in others):
            return False
        if self.kind == "largest":
            return all(chosen > m for m in others)
        return all(chosen < m for m in others)

    def _order_holds(self, estimates: Mapping[str | None, Estimate]) -> bool:
        means = [[estimates[point].mean for point in group] for group in self.order]
        if any(math.isnan(m) for group in means for m in group):
            return False
        for group in means:
            if not all(self.tolerance.equal(group[0], m) for m in group):
                return False
        if self.kind == "equal":
            return all(self.tolerance.equal(means[0][0], group[0]) for group in means)
        return all(max(lower) < min(upper) for lower, upper in pairwise(means))


def judge(
    claim: Claim,
    estimates: Mapping[str | None, Estimate],
    conclusion: Claim | None = None,
    conclusion_estimates: Mapping[str | None, Estimate] | None = None,
) -> str:
    """The verdict on ``claim`` given qoslab's ``estimates``; ``conclusion`` (judged on
    ``conclusion_estimates``, default the same) is the weaker claim that still holds when
    only the magnitude differs."""
    if claim.holds(estimates):
        return REPRODUCED
    if conclusion is not None and conclusion.holds(conclusion_estimates or estimates):
        return SAME_CONCLUSION
    return DIFFERS


def counts(verdicts: Sequence[str]) -> dict[str, int]:
    """How many of each verdict, in the order of :data:`VERDICTS`."""
    return {verdict: sum(1 for v in verdicts if v == verdict) for verdict in VERDICTS}
