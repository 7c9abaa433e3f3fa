"""Shared by the plots of a sweep's summary: which rows of a summary table a bar or line
stands for, and the facet of each point of the grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from qoslab.plot.errors import PlotError
from qoslab.plot.style import colours

GROUP_PREFERENCE = ("app", "flow")
"""Identity columns preferred as the series of a plot, in order."""


def summary_rows(
    summaries: object, name: str, metric: str, kind: str
) -> tuple[pd.DataFrame, list[str]]:
    """The rows of the summary table ``name`` for ``metric``, and the table's identity
    columns; a missing table or metric is refused with what there is."""
    if name not in summaries:  # type: ignore[operator]
        known = ", ".join(summaries.names) or "none"  # type: ignore[attr-defined]
        raise PlotError(f"{kind}: the sweep has no rows in the {name} table (tables: {known})")
    frame: pd.DataFrame = summaries[name]  # type: ignore[index]
    if metric not in set(frame["metric"]):
        known = ", ".join(dict.fromkeys(frame["metric"]))
        raise PlotError(f"{kind}: no metric {metric!r} in the {name} table (metrics: {known})")
    position = list(frame.columns).index("metric")
    return frame[frame["metric"] == metric], list(frame.columns[:position])


def choose_by(by: str | None, parameters: Sequence[str], kind: str) -> str | None:
    """The parameter along the x axis: ``by``, else the first parameter of the grid."""
    if by is None:
        return parameters[0] if parameters else None
    if by not in parameters:
        known = ", ".join(parameters) or "none: the sweep varies nothing"
        raise PlotError(f"{kind}: {by!r} is not a parameter of the sweep (parameters: {known})")
    return by


def choose_group(group: str | None, keys: Sequence[str], kind: str) -> str | None:
    """The identity column whose values are the series: ``group``, else ``app`` or
    ``flow`` when the table has one, else its last identity column."""
    if group is None:
        preferred = [key for key in GROUP_PREFERENCE if key in keys]
        return preferred[0] if preferred else (keys[-1] if keys else None)
    if group not in keys:
        raise PlotError(
            f"{kind}: {group!r} does not name the rows of this table (use one of: "
            f"{', '.join(keys) or 'none'})"
        )
    return group


def series_labels(frame: pd.DataFrame, group: str | None, keys: Sequence[str]) -> pd.Series:
    """A label per row naming its series: the value of ``group``, followed in brackets by
    the other identity columns that take several values."""
    if group is None:
        return pd.Series("all", index=frame.index)
    labels = frame[group].astype(str)
    varying = [key for key in keys if key != group and frame[key].nunique(dropna=False) > 1]
    if varying:
        rest = frame[varying].astype(str).agg(", ".join, axis=1)
        labels = labels + " (" + rest + ")"
    return labels


def series_colours(labels: Sequence[str], names: Mapping[str, str]) -> dict[str, str]:
    """The colour of each series: its flow's or application's colour when the label names
    one, else a colour from the sorted labels."""
    fallback = colours(labels)
    return {
        label: names.get(label, names.get(label.split(" (", 1)[0], fallback[label]))
        for label in labels
    }


def axis_name(parameter: str | None) -> str:
    """The x axis' name for a parameter: its key path (``variant`` for variants)."""
    return "" if parameter is None else str(parameter)
