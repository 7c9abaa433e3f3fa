"""qoslab's estimate of a quantity over replications, and of the difference between two.

A quantity measured in ``n`` replications has the estimate ``m ± q · s / √n`` of
:mod:`qoslab.analysis.interval`. Two points of a sweep (two schemes, two link speeds) run
with the same seeds: replication ``r`` of each draws the same random streams, so the two
estimates are correlated and their difference is best judged pair by pair — the mean of the
``n`` differences ``b_r - a_r`` with its own interval, the paired comparison of common random
numbers (A. M. Law, *Simulation Modeling and Analysis*, 5th ed., 2015, §10.2). It is much
narrower than the two intervals side by side when both points move with the same random
draws, and an interval that contains zero says that the replications cannot tell the points
apart: a tie.

With one replication there is no interval; its half-width is taken as zero (the difference
as it is), which only ``--quick`` checks meet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qoslab.analysis.interval import group_statistics

CONFIDENCE = 0.95
"""The confidence level of every interval of a reproduction."""


@dataclass(frozen=True)
class Estimate:
    """qoslab's estimate of a quantity over the replications: the mean and the bounds of
    its confidence interval (equal to the mean for one replication or a constant), and the
    value in each replication, in replication order (NaN where a run gave none)."""

    mean: float
    low: float
    high: float
    n: int
    values: tuple[float, ...] = ()

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2


def estimate(values: np.ndarray, interval: str) -> Estimate:
    """The mean of ``values`` (NaN ignored) and its ``interval`` (``t`` or ``normal``)."""
    values = np.asarray(values, dtype=np.float64)
    stats = group_statistics(values, np.zeros(len(values), dtype=np.int64), 1, CONFIDENCE, interval)
    mean = float(stats.mean[0])
    half = float(stats.ci_half_width[0])
    if np.isnan(half):
        half = 0.0 if not np.isnan(mean) else np.nan
    return Estimate(mean, mean - half, mean + half, int(stats.n[0]), tuple(map(float, values)))


def paired_difference(lower: Estimate, upper: Estimate, interval: str) -> Estimate:
    """The estimate of ``upper - lower`` from the replications both have a value in (the
    same replication numbers, paired); NaN when none has both."""
    a = np.asarray(lower.values, dtype=np.float64)
    b = np.asarray(upper.values, dtype=np.float64)
    if len(a) != len(b):
        raise ValueError(
            f"a paired difference needs the same replications: {len(a)} against {len(b)}"
        )
    both = ~np.isnan(a) & ~np.isnan(b)
    return estimate(b[both] - a[both], interval)
