"""What a plot is drawn from: one run's :class:`~qoslab.Results` or a :class:`~qoslab.Sweep`,
its tables, the names its colours are given to, and the points of a sweep's grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import pandas as pd

from qoslab.experiment.sweep import REPLICATION, Sweep
from qoslab.plot.errors import PlotError
from qoslab.plot.style import colours
from qoslab.results import Results

Source = Results | Sweep
"""What every plot accepts: one run, or a sweep."""

NAMED_TABLES = ("flows", "apps", "series", "contracts", "voice")
"""Tables whose ``flow`` and ``app`` columns name what gets a colour."""

TOTALS = ("all", "quality")
"""The total rows of the contracts table, not applications."""


def check_source(source: object, kind: str) -> Source:
    """``source`` if it is a Results or a Sweep, else a :class:`PlotError`."""
    if not isinstance(source, (Results, Sweep)):
        raise PlotError(
            f"{kind}: expected the Results of a run or a Sweep, got {type(source).__name__}"
        )
    return source


def need_run(source: object, kind: str) -> Results:
    """``source`` if it is one run; a sweep is refused with how to pick one of its runs."""
    if isinstance(check_source(source, kind), Sweep):
        raise PlotError(
            f"{kind} plots one run, not a sweep: pick a run with "
            "sweep.results({key: value, ...}, replication=N), or give a run's results folder"
        )
    return source  # type: ignore[return-value]


def need_sweep(source: object, kind: str) -> Sweep:
    """``source`` if it is a sweep; one run is refused."""
    if isinstance(check_source(source, kind), Results):
        raise PlotError(
            f"{kind} compares the points of a sweep and needs a Sweep (qoslab.sweep, or the "
            "folder qoslab sweep wrote), not the results of one run"
        )
    return source  # type: ignore[return-value]


def scenario(source: Source) -> str:
    """The scenario's name."""
    if isinstance(source, Sweep):
        return str(source.manifest.get("scenario_name", "sweep"))
    return str(source.run.get("scenario", "run"))


def table(source: Source, name: str) -> pd.DataFrame | None:
    """The table ``name`` of one run, or every run's rows of it in a sweep (with the
    parameter and replication columns); None when the results have no such table."""
    if isinstance(source, Sweep):
        try:
            return source.runs[name]
        except KeyError:
            return None
    frame = getattr(source, name, None)
    return frame if isinstance(frame, pd.DataFrame) else None


def rows(source: Source, name: str, kind: str, fix: str) -> pd.DataFrame:
    """The table ``name``, refused with ``fix`` when it is missing or has no rows."""
    frame = table(source, name)
    if frame is None or frame.empty:
        raise PlotError(f"{kind}: the results have no rows in the {name} table; {fix}")
    return frame


def palette(source: Source) -> dict[str, str]:
    """The colour of every flow and application of ``source``, the same in every plot."""
    names: set[str] = set()
    for name in NAMED_TABLES:
        frame = table(source, name)
        if frame is None or frame.empty:
            continue
        for column in ("flow", "app"):
            if column in frame:
                names.update(str(value) for value in frame[column].dropna().unique())
    return colours(names - set(TOTALS))


def parameters(source: Source) -> list[str]:
    """The columns naming a point of the grid (none for one run)."""
    return source.parameters if isinstance(source, Sweep) else []


def points(frame: pd.DataFrame, columns: Sequence[str]) -> list[tuple[tuple, pd.DataFrame]]:
    """The rows of ``frame`` for each combination of ``columns`` present, in grid order
    (categorical parameter columns keep the order the values were given in)."""
    if not columns:
        return [((), frame)]
    groups = frame.groupby(list(columns), observed=True, sort=True, dropna=False)
    return [(key if isinstance(key, tuple) else (key,), rows) for key, rows in groups]


def point_label(columns: Sequence[str], values: Sequence[object]) -> str:
    """``key=value`` for each parameter, each key shortened to its last path component
    when that leaves the keys distinct."""
    short = [str(column).rsplit(".", 1)[-1] for column in columns]
    names = short if len(set(short)) == len(short) else [str(c) for c in columns]
    return ", ".join(f"{name}={value}" for name, value in zip(names, values, strict=True))


def point_tick(columns: Sequence[str], values: Sequence[object]) -> str:
    """A tick label for a point of the grid: its values, one per line, in the order of
    ``columns`` (the axis' label names them)."""
    return "\n".join(str(value) for value in values)


def where(frame: pd.DataFrame, selection: Mapping[str, object] | None, kind: str) -> pd.DataFrame:
    """The rows of ``frame`` whose columns have the values in ``selection`` (compared as
    text, so ``{"interval_ms": 250}`` finds 250.0)."""
    if not selection:
        return frame
    for column, value in selection.items():
        if column not in frame:
            listed = ", ".join(map(str, frame.columns))
            raise PlotError(f"{kind}: no column {column!r} to select on (columns: {listed})")
        wanted = _text(value)
        chosen = frame[column].map(_text) == wanted
        if not chosen.any():
            present = ", ".join(sorted({_text(v) for v in frame[column].dropna()}))
            raise PlotError(f"{kind}: no row with {column} = {wanted} (values: {present})")
        frame = frame[chosen]
    return frame


def replications(frame: pd.DataFrame) -> list[tuple[int, pd.DataFrame]]:
    """The rows of each replication (one group, replication 0, for a run's table)."""
    if REPLICATION not in frame:
        return [(0, frame)]
    return [(int(cast(int, key)), rows) for key, rows in frame.groupby(REPLICATION, sort=True)]


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
