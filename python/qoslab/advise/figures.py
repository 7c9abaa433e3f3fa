"""The advice's two pictures: each budgeted application's in-contract share against the link
speed under the recommended settings, and against the offered load in the overload check."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from qoslab.advise.evaluate import Score
from qoslab.plot.style import colours, figure, legend, styled


@styled
def speed_figure(
    curve: Sequence[tuple[int, Score]], chosen_bps: int, target_pct: float, noun: str = "link speed"
) -> Figure:
    """In-contract share (lower confidence bound) per application against link speed (or
    ``noun``: the contract, on a handoff), for the policy scored at each speed."""
    fig = figure(1)
    axis = fig.subplots()
    apps = sorted({app for _, score in curve for app in score.low_pct})
    colour = colours(apps)
    speeds_kbps = [speed / 1000 for speed, _ in curve]
    for app in apps:
        axis.plot(
            speeds_kbps,
            [score.low_pct.get(app, float("nan")) for _, score in curve],
            marker="o",
            color=colour[app],
            label=app,
        )
    _target(axis, target_pct)
    axis.axvline(chosen_bps / 1000, color="grey", linestyle=":", label="recommended")
    axis.set_xscale("log")
    axis.set_xticks(speeds_kbps, [f"{s:g}" for s in speeds_kbps])
    axis.minorticks_off()
    axis.set_xlabel(f"{noun} (kbit/s)")
    axis.set_ylabel("in contract, lower bound (%)")
    axis.set_title(f"In-contract share against {noun}, best policy at each")
    legend(fig, axis)
    return fig


@styled
def overload_figure(shares: pd.DataFrame, target_pct: float) -> Figure:
    """In-contract share per application against the offered load's factor."""
    fig = figure(1)
    axis = fig.subplots()
    apps = list(dict.fromkeys(shares["app"]))
    colour = colours(apps)
    for app in apps:
        rows = shares[shares["app"] == app]
        axis.plot(
            rows["load_factor"], rows["in_contract_pct"], marker="o", color=colour[app], label=app
        )
    _target(axis, target_pct)
    axis.set_xlabel("offered load (x the recommended link's)")
    axis.set_ylabel("in contract (%)")
    point, interval = shares["point"].iloc[0], shares["interval_ms"].iloc[0]
    axis.set_title(f"Overload: in-contract share at {point}, {interval:g} ms intervals")
    legend(fig, axis)
    return fig


def _target(axis: Axes, target_pct: float) -> None:
    axis.axhline(target_pct, color="black", linewidth=0.8, linestyle="--", label="target")
    axis.set_ylim(-2, 102)
