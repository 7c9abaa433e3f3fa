"""The answer a sweep's page leads with: per point, each budgeted application in contract or
not, the points that meet every budget and the cheapest (:mod:`qoslab.analysis.answer`),
laid out as a table whose cells carry their verdict for colouring."""

from __future__ import annotations

from dataclasses import dataclass

from qoslab.analysis.answer import Answer
from qoslab.analysis.labels import short_headings, spelled_out

IN = "in"
OUT = "out"
NONE = "none"
"""A cell's verdict: in contract, out of contract, no result."""


@dataclass(frozen=True)
class Verdict:
    """One cell: the lower bound of an application's share in contract and its verdict."""

    text: str
    state: str


@dataclass(frozen=True)
class PointRow:
    """One point of the grid: its values, each application's cell, and whether it meets
    every budget and is the cheapest that does."""

    values: list[str]
    cells: list[Verdict]
    every: bool
    cheapest: bool


@dataclass(frozen=True)
class AnswerView:
    """What the page shows of the answer."""

    found: str
    rule: str
    headings: list[str]
    apps: list[str]
    rows: list[PointRow]
    caption: str


def view(answer: Answer) -> AnswerView:
    """The answer laid out for a page."""
    keys = answer.parameters
    rows = [
        PointRow(
            row.values,
            [
                Verdict("-", NONE)
                if verdict is None
                else Verdict(f"{verdict['low_pct']:.1f}", IN if verdict["in_contract"] else OUT)
                for verdict in row.verdicts
            ],
            row.every,
            row.cheapest,
        )
        for row in answer.rows()
    ]
    caption = (
        f"Each cell: the lower bound of the {answer.confidence * 100:g} % confidence interval "
        f"of the application's share of intervals in contract, %, the worst over its "
        f"observation points and interval lengths; in contract at {answer.target_pct:g} % or "
        "more."
    )
    if spelled_out(keys):
        caption = f"{caption} {spelled_out(keys)}."
    return AnswerView(
        found=answer.finding(),
        rule=answer.rule(),
        headings=short_headings(keys),
        apps=answer.apps,
        rows=rows,
        caption=caption,
    )
