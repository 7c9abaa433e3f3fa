"""The data of a sweep's interactive page: every point of the grid with its flows' main
metrics (mean and half-width of the 95 % confidence interval over the replications) and its
applications' verdicts, so that the page switches among points with no server.

Values are numbers for the charts and text for the tables, the text formatted as the static
report formats it (:mod:`qoslab.report.tables`), so the two pages show the same figures.
Missing values are ``null``.
"""

from __future__ import annotations

import math

import pandas as pd

from qoslab.analysis.answer import Answer
from qoslab.analysis.labels import short_headings
from qoslab.experiment.sweep import Sweep
from qoslab.plot.source import palette
from qoslab.report.tables import BPS_PER_KBPS, DECIMALS, MISSING, SWEEP_METRICS, heading

FLOW_METRICS = SWEEP_METRICS["flows"]


def sweep_data(sweep: Sweep, answer: Answer) -> dict:
    """Everything the page's script needs, as plain JSON values."""
    keys = answer.parameters
    summary = sweep.summary.flows if "flows" in sweep.summary else None
    flows = _flows(summary)
    colour = palette(sweep)
    by_point = _by_point(summary, keys)
    points = [
        {
            "values": row.values,
            "every": row.every,
            "cheapest": row.cheapest,
            "flows": by_point.get(tuple(row.values), {}),
            "apps": {
                app: {
                    "low": float(verdict["low_pct"]),
                    "mean": float(verdict["mean_pct"]),
                    "n": int(verdict["n"]),
                    "in": bool(verdict["in_contract"]),
                }
                for app, verdict in zip(answer.apps, row.verdicts, strict=True)
                if verdict is not None
            },
        }
        for row in answer.rows()
    ]
    return {
        "keys": [
            {"key": key, "short": short, "values": _values(answer.points[key])}
            for key, short in zip(keys, short_headings(keys), strict=True)
        ],
        "metrics": [_metric(metric) for metric in FLOW_METRICS],
        "flows": flows,
        "colours": {flow: colour.get(flow, "#555555") for flow in flows},
        "apps": answer.apps,
        "target_pct": answer.target_pct,
        "confidence_pct": answer.confidence * 100,
        "points": points,
    }


def _values(column: pd.Series) -> list[str]:
    return [str(value) for value in dict.fromkeys(column)]


def _metric(metric: str) -> dict:
    shown = heading(metric, numeric=True)
    return {"name": metric, "label": shown.label, "unit": shown.unit}


def _flows(summary: pd.DataFrame | None) -> list[str]:
    if summary is None:
        return []
    return [str(flow) for flow in dict.fromkeys(summary["flow"])]


def _by_point(summary: pd.DataFrame | None, keys: list[str]) -> dict[tuple, dict]:
    """Per point (its values as text): per flow, per metric, ``[mean, half-width, text]``."""
    if summary is None:
        return {}
    rows = summary[summary["metric"].isin(FLOW_METRICS)]
    found: dict[tuple, dict] = {}
    for record in rows.to_dict("records"):
        point = tuple(str(record[key]) for key in keys)
        flows = found.setdefault(point, {})
        flows.setdefault(str(record["flow"]), {})[record["metric"]] = _estimate(
            record["metric"], record["mean"], record["ci_half_width"]
        )
    return found


def _estimate(metric: str, mean: float, half: float) -> list:
    """``[mean, half-width, text]`` in the shown unit (bit rates in kbit/s)."""
    if metric.endswith("_bps"):
        mean, half = mean / BPS_PER_KBPS, half / BPS_PER_KBPS
    if _missing(mean):
        return [None, None, MISSING]
    half_shown = None if _missing(half) else float(half)
    text = f"{mean:.{DECIMALS}f}" + ("" if half_shown is None else f" ± {half:.{DECIMALS}f}")
    return [float(mean), half_shown, text]


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
