"""Mean, sample standard deviation and confidence interval of a metric over replications.

Replications of a scenario differ only in their random streams, so a metric's values over
``n`` replications are independent draws from one distribution. Their mean ``m`` estimates
its expectation, the sample standard deviation ``s`` (divisor ``n - 1``) its spread, and

    m ± q · s / √n

is a two-sided confidence interval for the expectation at level ``confidence``, where ``q``
is the ``(1 + confidence) / 2`` quantile of

- Student's t distribution with ``n - 1`` degrees of freedom (``interval="t"``): exact when
  the values are normally distributed, and the right choice for the handful of replications
  a study runs (Student, "The probable error of a mean", Biometrika 6(1), 1908; A. M. Law,
  *Simulation Modeling and Analysis*, 5th ed., 2015, chapters 4 and 9); or
- the standard normal distribution (``interval="normal"``, z = 1.960 at 95 %): the
  large-sample approximation, narrower than t for small ``n`` (4.303 against 1.960 at
  ``n = 3``). Some published studies computed their intervals so; it is offered to
  reproduce them.

Quantiles come from SciPy's special functions ``scipy.special.stdtrit`` (Student's t) and
``scipy.special.ndtri`` (normal), the functions ``scipy.stats.t.ppf`` and
``scipy.stats.norm.ppf`` evaluate, so the values are the same bit for bit without importing
``scipy.stats``, which takes about a second.

Missing values are left out, so ``n`` counts the values present. With ``n = 1`` the spread
and the interval are undefined (NaN); with all values equal the spread and half-width are
exactly 0. Values are added in ascending order within each group, so the result does not
depend on the order the rows arrived in, down to the last bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

INTERVALS = ("t", "normal")
"""The interval kinds: Student t with n - 1 degrees of freedom, or the normal approximation."""


@dataclass(frozen=True)
class GroupStatistics:
    """The statistics of one metric in each of a number of groups (arrays, one per group)."""

    n: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    ci_half_width: np.ndarray
    min: np.ndarray
    max: np.ndarray

    @property
    def ci_low(self) -> np.ndarray:
        return self.mean - self.ci_half_width

    @property
    def ci_high(self) -> np.ndarray:
        return self.mean + self.ci_half_width


def check_interval(confidence: float, interval: str) -> None:
    """Raise ``ValueError`` unless ``confidence`` is in (0, 1) and ``interval`` is a kind."""
    if interval not in INTERVALS:
        raise ValueError(f"interval must be 't' or 'normal', not {interval!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ValueError(f"confidence must be a number between 0 and 1, not {confidence!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(
            f"confidence must be strictly between 0 and 1 (0.95 for 95 %), not {confidence!r}"
        )


def quantile(n: np.ndarray, confidence: float, interval: str) -> np.ndarray:
    """The factor ``q`` of the half-width for groups of ``n`` values (NaN below 2 values)."""
    # Imported here: a run never needs it.
    from scipy import special

    level = (1.0 + confidence) / 2.0
    n = np.asarray(n, dtype=np.float64)
    enough = n >= 2
    factor = np.full(n.shape, np.nan)
    if interval == "t":
        factor[enough] = special.stdtrit(n[enough] - 1.0, level)
    else:
        factor[enough] = special.ndtri(level)
    return factor


def group_statistics(
    values: np.ndarray, groups: np.ndarray, group_count: int, confidence: float, interval: str
) -> GroupStatistics:
    """The statistics of ``values`` (floats, NaN for missing) in each group.

    ``groups[i]`` is the group of ``values[i]``, a number below ``group_count``.
    """
    # +0.0 turns -0.0 into 0.0, so that a minimum cannot depend on which of the two came first.
    values = np.asarray(values, dtype=np.float64) + 0.0
    order = np.lexsort((values, groups))
    present = ~np.isnan(values[order])
    sorted_values = values[order][present]
    sorted_groups = groups[order][present]
    group_ids = np.arange(group_count)
    first = np.searchsorted(sorted_groups, group_ids, side="left")
    n = np.searchsorted(sorted_groups, group_ids, side="right") - first
    some = n > 0
    minimum = np.full(group_count, np.nan)
    maximum = np.full(group_count, np.nan)
    minimum[some] = sorted_values[first[some]]
    maximum[some] = sorted_values[first[some] + n[some] - 1]
    total = np.bincount(sorted_groups, weights=sorted_values, minlength=group_count)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(some, total / n, np.nan)
        deviation = sorted_values - mean[sorted_groups]
        squares = np.bincount(sorted_groups, weights=deviation * deviation, minlength=group_count)
        sd = np.where(n >= 2, np.sqrt(squares / (n - 1)), np.nan)
    # Equal values: the mean is that value and there is no spread, whatever the rounding.
    constant = some & (minimum == maximum)
    mean[constant] = minimum[constant]
    sd[constant & (n >= 2)] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        half_width = quantile(n, confidence, interval) * sd / np.sqrt(n)
    return GroupStatistics(n, mean, sd, half_width, minimum, maximum)
