"""Every published value of a study beside qoslab's estimate, with its verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from qoslab.analysis.estimate import Estimate
from qoslab.analysis.verdict import (
    INPUT_CONFIRMED,
    NOT_MODELLED,
    REPRODUCED,
    RESULT,
    Pair,
    judge,
    outcome,
)
from qoslab.reproduce.measure import Measurements
from qoslab.reproduce.model import Published, Reading


@dataclass(frozen=True)
class Judged:
    """A published value, what qoslab gave for it, and the verdict."""

    row: Published
    estimates: dict[str | None, Estimate]
    verdict: str
    pairs: tuple[Pair, ...] = ()
    """For an ordering, each pair of points it needs in order with its paired difference."""

    @property
    def outcome(self) -> str:
        """The verdict, or what a value that is not a result counts as (an input check,
        the study's inconsistency)."""
        return outcome(self.row.role, self.verdict)

    @property
    def counted(self) -> bool:
        """Whether the value is counted among the verdicts (a result, not an input, an
        inconsistency, a derived value or a duplicate)."""
        return self.row.role == RESULT

    @property
    def agrees(self) -> bool:
        """Whether the value is reproduced, or the input check confirmed."""
        return self.outcome in (REPRODUCED, INPUT_CONFIRMED)

    @property
    def explained(self) -> bool:
        """Whether a value that does not agree says why."""
        return self.agrees or self.row.why is not None

    def outcome_text(self) -> str:
        """The outcome as the tables show it: with the kind of reason when the value does
        not agree, and what a derived value or a duplicate comes from."""
        text = self.outcome
        if not self.agrees and self.row.why is not None:
            text += f" ({self.row.why.kind})"
        if self.row.of:
            text += f"; {self.row.role} of {', '.join(self.row.of)}"
        return text

    @property
    def weakest(self) -> Pair | None:
        """The pair of an ordering whose paired interval comes nearest to zero (below the
        margin, or through zero, when the ordering fails)."""
        known = [p for p in self.pairs if not math.isnan(p.difference.low)]
        if not known:
            return self.pairs[0] if self.pairs else None
        return min(known, key=lambda p: p.difference.low)

    def published_text(self) -> str:
        """The published value or claim, in words."""
        if self.row.shown is not None:
            return self.row.shown
        if self.row.claim is None:
            return "—"
        return self.row.claim.describe(self.row.unit)

    def qoslab_text(self) -> str:
        """qoslab's estimate: mean ± half-width at one point (with how many runs meet a rule
        judged in every run), or the means at each point of an ordering and its weakest
        pair's paired difference."""
        text = estimates_text(self.estimates, self.row.unit)
        claim = self.row.claim
        if claim is not None and claim.runs != "mean" and None in self.estimates:
            values = self.estimates[None].values
            meet = sum(1 for v in values if claim.accepts(v))
            text += f" ({meet} of {len(values)} runs meet it)"
        pair = self.weakest
        if pair is not None:
            text += "; " + pair_text(pair, self.row.unit, claim.margin if claim else 0.0)
        return text


def pair_text(pair: Pair, unit: str, margin: float) -> str:
    """A pair's paired difference as the tables show it, and whether the replications tell
    the points apart: ``wfq - pq +0.31 ± 0.12 ms`` or ``..., a tie``."""
    d = pair.difference
    if math.isnan(d.mean):
        return f"{pair.upper} - {pair.lower} n/a"
    shown = value_text(d, unit)
    sign = "+" if d.mean > 0 else ""
    text = f"{pair.upper} - {pair.lower} {sign}{shown}"
    if pair.ordered(margin):
        return text
    if d.low <= 0 <= d.high:
        return text + ", a tie"
    if d.high < 0:
        return text + ", the other way"
    return text + f", within the margin {margin:g}"


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


def judge_reading(measured: Measurements, row: Published, reading: Reading) -> Judged | None:
    """The verdict on ``row`` under another reading of its table (``reading``: another point
    of the experiment, or other metrics for the same quantity) — e.g. the load as the
    study's table counts it rather than as its text describes it; None for a value not
    judged."""
    if row.claim is None or row.metric is None:
        return None
    unit = measured.study.metrics[reading.metrics.get(row.metric, row.metric)].unit
    return _judged(measured, replace(row, unit=unit), reading.metrics, {**row.at, **reading.at})


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
        out.append(_judged(measured, row, {}, row.at))
    return out


def _judged(
    measured: Measurements, row: Published, metrics: dict[str, str], at: dict[str, str]
) -> Judged:
    """The verdict on the judged value ``row`` at the point ``at``, its metrics replaced as
    ``metrics`` says."""
    claim = row.claim
    # A judged value names its metric (checked when the study is read).
    assert claim is not None
    assert row.metric is not None
    estimates = measured.estimates(claim, metrics.get(row.metric, row.metric), at)
    conclusion_estimates = None
    if row.conclusion is not None and row.conclusion_metric is not None:
        conclusion_metric = metrics.get(row.conclusion_metric, row.conclusion_metric)
        conclusion_estimates = measured.estimates(row.conclusion, conclusion_metric, at)
    interval = measured.study.interval
    verdict = judge(claim, estimates, row.conclusion, conclusion_estimates, interval)
    pairs = tuple(claim.pairs(estimates, interval)) if claim.ordering else ()
    return Judged(row, estimates, verdict, pairs)
