"""Every published value of a study beside qoslab's estimate, with its verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass

from qoslab.analysis.verdict import NOT_MODELLED, REPRODUCED, Estimate, judge
from qoslab.reproduce.measure import Measurements
from qoslab.reproduce.model import Published


@dataclass(frozen=True)
class Judged:
    """A published value, what qoslab gave for it, and the verdict."""

    row: Published
    estimates: dict[str | None, Estimate]
    verdict: str

    @property
    def explained(self) -> bool:
        """Whether a value that is not reproduced says why."""
        return self.verdict == REPRODUCED or self.row.why is not None

    def published_text(self) -> str:
        """The published value or claim, in words."""
        if self.row.shown is not None:
            return self.row.shown
        if self.row.claim is None:
            return "—"
        return self.row.claim.describe(self.row.unit)

    def qoslab_text(self) -> str:
        """qoslab's estimate: mean ± half-width at one point, or the means at each point of
        an ordering."""
        return estimates_text(self.estimates, self.row.unit)


def estimates_text(estimates: dict[str | None, Estimate], unit: str) -> str:
    """Estimates as the tables show them: mean ± half-width at one point, or the means at
    each point of a rule over an axis."""
    if not estimates:
        return "—"
    if list(estimates) == [None]:
        return value_text(estimates[None], unit)
    return ", ".join(f"{point} {number(e.mean)}" for point, e in estimates.items()) + (
        f" {unit}" if unit else ""
    )


def decimals(x: float) -> int:
    """Decimals that show ``x`` to three significant figures (none for 100 and above)."""
    if math.isnan(x) or x == 0:
        return 0
    return max(0, 2 - math.floor(math.log10(abs(x))))


def number(x: float, places: int | None = None) -> str:
    """A number as the tables show it: three significant figures (or ``places`` decimals),
    thousands separated."""
    if math.isnan(x):
        return "n/a"
    return f"{x:,.{decimals(x) if places is None else places}f}"


def value_text(e: Estimate, unit: str) -> str:
    """``mean ± half-width unit``, the half-width to the mean's decimals and left out when it
    rounds to zero there."""
    u = f" {unit}" if unit else ""
    if math.isnan(e.mean):
        return "n/a"
    places = decimals(e.mean) if e.mean != 0 else max(decimals(e.half_width), 0)
    half = f"{e.half_width:,.{places}f}" if e.half_width > 0 else ""
    if half and float(half.replace(",", "")) > 0:
        return f"{number(e.mean, places)} ± {half}{u}"
    return f"{number(e.mean, places)}{u}"


def judge_all(measured: Measurements) -> list[Judged]:
    """The verdict on every published value of the study, in the order of published.yaml."""
    out = []
    for row in measured.study.published.values():
        if row.claim is None:
            # Not modelled; a metric named with it is shown beside it, unjudged (the E-model
            # MOS of calls whose published score is PSQM).
            shown: dict[str | None, Estimate] = (
                {None: measured.estimate(row.metric, row.at)} if row.metric else {}
            )
            out.append(Judged(row, shown, NOT_MODELLED))
            continue
        assert row.metric is not None  # a judged value names its metric (checked on load)
        estimates = measured.estimates(row.claim, row.metric, row.at)
        conclusion_estimates = None
        if row.conclusion is not None and row.conclusion_metric is not None:
            conclusion_estimates = measured.estimates(row.conclusion, row.conclusion_metric, row.at)
        verdict = judge(row.claim, estimates, row.conclusion, conclusion_estimates)
        out.append(Judged(row, estimates, verdict))
    return out
