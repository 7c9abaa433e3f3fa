"""The rows of the ``contracts`` table a ΔQ plot shows: one observation point and one
interval length (docs/quality.md)."""

from __future__ import annotations

import pandas as pd

from qoslab.plot.errors import PlotError

FIX = "give the scenario a measure section with budgets (docs/quality.md)"
END_TO_END = "end_to_end"


def at_point(
    frame: pd.DataFrame, point: str | None, interval_ms: float | None, kind: str
) -> tuple[pd.DataFrame, str, float]:
    """The rows at ``point`` (default: the first in the table) and ``interval_ms`` (default:
    the first interval length), with the point and length chosen."""
    points = list(dict.fromkeys(frame["point"]))
    if point is None:
        point = points[0]
    elif point not in points:
        raise PlotError(f"{kind}: no observation point {point!r} (points: {', '.join(points)})")
    lengths = list(dict.fromkeys(frame["interval_ms"]))
    if interval_ms is None:
        interval_ms = lengths[0]
    elif float(interval_ms) not in {float(length) for length in lengths}:
        known = ", ".join(f"{length:g}" for length in lengths)
        raise PlotError(f"{kind}: no ΔQ interval of {interval_ms:g} ms (intervals: {known})")
    chosen = (frame["point"] == point) & (frame["interval_ms"].astype(float) == float(interval_ms))
    return frame[chosen], point, float(interval_ms)
