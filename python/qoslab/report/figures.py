"""The figures of a report: the plots that fit the data (:func:`qoslab.plot.suggested`), each
as inline SVG.

The SVG is placed in the page as markup, so it is cut to its ``<svg>`` element: an XML
declaration or a document type before it has no place inside an HTML body.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from qoslab.experiment.sweep import Sweep
from qoslab.results import Results

SVG_START = "<svg"


@dataclass(frozen=True)
class Figure:
    """One figure of a report: its title and its SVG markup."""

    anchor: str
    title: str
    svg: Markup


def figures(results_or_sweep: Results | Sweep, *, limit: int | None = None) -> list[Figure]:
    """The suggested plots of a run or a sweep as inline SVG, at most ``limit`` of them."""
    from qoslab import plot

    drawn = plot.suggested(results_or_sweep, limit=limit)
    shown = []
    for number, (title, figure) in enumerate(drawn, start=1):
        svg = plot.to_svg(figure)
        shown.append(Figure(f"figure-{number}", title, Markup(svg[svg.index(SVG_START) :])))
    return shown
