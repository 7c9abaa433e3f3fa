"""Queue length and drops over time at each port and class, from the ``class_series``
table: per interval of ``measure.series``, each class's backlog and the packets it dropped.

For each port two panels share the time axis: the backlog of every class (at each
interval's end, and its largest within the interval dashed), and the packets each class
dropped in the interval, as steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from qoslab.plot.errors import PlotError
from qoslab.plot.source import need_run, scenario, table
from qoslab.plot.style import colours, figure, legend, styled, tag, title

KIND = "queue"
TABLE = "class_series"
QUEUE_COLUMNS = ("queue_packets", "queue_max_packets")
"""The backlog columns drawn: at the interval's end (solid) and its largest (dashed)."""
DROP_COLUMN = "dropped_packets"
DASHES = ("-", "--")


@styled
def queue(results: object, port: str | None = None) -> Figure:
    """The backlog and drops of every class over time, a pair of panels per port (or only
    ``port``)."""
    run = need_run(results, KIND)
    frame = table(run, TABLE)
    if frame is None or frame.empty:
        raise PlotError(
            f"{KIND}: the results have no {TABLE} table; ask for per-interval series with "
            "measure.series in the scenario (e.g. measure: {series: 1s})"
        )
    backlog = [column for column in QUEUE_COLUMNS if column in frame]
    missing = [c for c in ("port", "class", "start_s", "interval_s", DROP_COLUMN) if c not in frame]
    if not backlog or missing:
        raise PlotError(f"{KIND}: the {TABLE} table lacks {', '.join(missing or QUEUE_COLUMNS)}")
    ports = list(dict.fromkeys(frame["port"]))
    if port is not None:
        if port not in ports:
            raise PlotError(f"{KIND}: no port {port!r} in {TABLE} (ports: {', '.join(ports)})")
        ports = [port]
    colour = colours(str(name) for name in frame["class"])

    fig = figure(2 * len(ports), height_in=2.4 * 2 * len(ports) + 0.6)
    grid = fig.subplots(2 * len(ports), 1, squeeze=False, sharex=True)
    numbers = count()
    for i, name in enumerate(ports):
        above, below = grid[2 * i][0], grid[2 * i + 1][0]
        at_port = frame[frame["port"] == name]
        for class_name, rows in at_port.groupby("class", sort=False):
            _draw_class(
                above,
                below,
                rows,
                backlog,
                colour[str(class_name)],
                str(class_name) if i == 0 else None,
                numbers,
            )
        above.set_title(f"port {name}")
        above.set_ylabel("backlog (packets)")
        below.set_ylabel("dropped (packets)")
    grid[-1][0].set_xlabel("time since the run began (s)")
    legend(fig, grid[0][0])
    title(fig, scenario(run), "queue length and drops per class")
    return fig


def _draw_class(
    above: Axes,
    below: Axes,
    rows: pd.DataFrame,
    backlog: Sequence[str],
    colour: str,
    label: str | None,
    numbers: count,
) -> None:
    rows = rows.sort_values("start_s")
    middle_s = rows["start_s"].to_numpy(dtype=float) + rows["interval_s"].to_numpy(dtype=float) / 2
    for dash, column in zip(DASHES, backlog, strict=False):
        (line,) = above.plot(
            middle_s,
            rows[column].to_numpy(dtype=float),
            dash,
            color=colour,
            label=label if dash == DASHES[0] else None,
        )
        tag(line, "line", next(numbers))
    (steps,) = below.step(
        rows["start_s"].to_numpy(dtype=float),
        rows[DROP_COLUMN].to_numpy(dtype=float),
        where="post",
        color=colour,
    )
    tag(steps, "line", next(numbers))
