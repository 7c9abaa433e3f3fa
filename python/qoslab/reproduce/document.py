"""A reproduction's documents: the study's tables in its own layout with qoslab beside the
published values and a verdict on each, the figures redrawn, the reasons for every value
not reproduced, and the assumptions made — as Markdown (for the repository) and as one
self-contained HTML page (figures inline), plus the verdicts as CSV.

Written into a folder as ``<study>.md``, ``<study>.html`` and ``<study>/`` (the figures as
SVG and ``verdicts.csv``), with the index ``README.md``, through the guarded writer
(``qoslab.output``): every file is replaced in one step, and only when the folder's ledger
records it as a reproduction wrote it, so a ``README.md`` or a page of the same name that is
not a reproduction's is never replaced. The folder is checked before the runs start.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from jinja2 import Environment

from qoslab.analysis.estimate import estimate
from qoslab.analysis.verdict import (
    APART,
    DERIVED,
    DIFFERS,
    DUPLICATE,
    INPUT_CONFIRMED,
    INPUT_DIFFERS,
    NOT_MODELLED,
    REPRODUCED,
    RESULT,
    SAME_CONCLUSION,
    STUDY_INCONSISTENT,
    VERDICTS,
    apart,
    counts,
)
from qoslab.output import Folder, OutputError
from qoslab.plot.to_svg import to_svg
from qoslab.readback import ReadError, exists, read_text
from qoslab.report.pages import html_environment, markdown_environment
from qoslab.reproduce.figures import draw
from qoslab.reproduce.judged import Judged, judge_reading, number
from qoslab.reproduce.measure import Measurements
from qoslab.reproduce.model import TRIAL_ROWS, WHY_KINDS, Study, Table
from qoslab.reproduce.run import Ran
from qoslab.reproduce.sensitivity import Robustness


@dataclass(frozen=True)
class Tally:
    """A reproduction's verdict counts (of its results), what it counted apart
    (:func:`qoslab.analysis.verdict.apart`) and, where the study declares ranges, how many
    of its judged results are robust over them: ``(robust, judged)``."""

    counts: dict[str, int]
    apart: dict[str, int]
    robust: tuple[int, int] | None

    def robust_text(self) -> str:
        """The robust share in words: ``17 of 20``, or ``no ranges``."""
        if self.robust is None:
            return "no ranges"
        return f"{self.robust[0]} of {self.robust[1]}"


@dataclass(frozen=True)
class Written:
    """What a reproduction wrote and its tally."""

    markdown: Path
    html: Path
    verdicts: Path
    tally: Tally
    unexplained: list[str]


def environments() -> tuple[Environment, Environment]:
    """The Markdown and the HTML environment of the reproduction templates, each with the
    ``cell`` filter."""
    markdown = markdown_environment("qoslab.reproduce", trim_blocks=True, lstrip_blocks=True)
    html = html_environment("qoslab.reproduce", trim_blocks=True, lstrip_blocks=True)
    for environment in (markdown, html):
        environment.filters["cell"] = cell
    return markdown, html


def cell(text: object) -> str:
    """Text for a Markdown table cell: no line breaks, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


INDEX = "README.md"
"""The index of a folder of reproductions."""


def check(name: str, folder: Path, *, index: bool) -> None:
    """Refuse, before the runs, a ``folder`` that the documents of the study ``name`` (and
    the index, with ``index``) could not be written into."""
    with Folder.open(folder, create=True) as out:
        out.check_room(0, "the documents")
        names = [f"{name}.md", f"{name}.html", *([INDEX] if index else [])]
        for entry in names:
            out.check_replaceable(entry)
        if out.mode(name) is not None:
            with out.folder(name, create=False) as assets:
                assets.check_replaceable("verdicts.csv")


def has_index(folder: Path) -> bool:
    """Whether ``folder`` holds an index that a reproduction wrote (and may update)."""
    try:
        with Folder.open(folder, create=False) as out:
            return out.mode(INDEX) is not None and out.owns(INDEX)
    except OutputError:
        return False


def write(
    study: Study,
    measured: Measurements,
    judged: list[Judged],
    robustness: dict[str, Robustness],
    ran: Ran,
    folder: Path,
    command: str,
    version: str,
) -> Written:
    """Writes the documents of ``study`` into ``folder``."""
    with Folder.open(folder, create=True) as out, out.folder(study.name) as assets:
        return _write(study, measured, judged, robustness, ran, out, assets, command, version)


def _write(
    study: Study,
    measured: Measurements,
    judged: list[Judged],
    robustness: dict[str, Robustness],
    ran: Ran,
    out: Folder,
    assets: Folder,
    command: str,
    version: str,
) -> Written:
    by_id = {j.row.id: j for j in judged}
    figures = []
    for spec in study.figures:
        svg = to_svg(draw(spec, measured))
        assets.write(f"{spec.name}.svg", svg.encode())
        figures.append({"spec": spec, "file": f"{study.name}/{spec.name}.svg", "svg": svg})
    readings = _readings(study, by_id, measured)
    tally = counts([j.verdict for j in judged if j.counted])
    judged_results = [j for j in judged if j.counted and j.row.claim is not None]
    aside = apart([(j.row.role, j.outcome) for j in judged])
    unexplained = [j.row.id for j in judged if not j.explained]
    robust_results = sum(1 for j in judged_results if _robust(robustness, j))
    context = {
        "study": study,
        "command": command,
        "version": version,
        "replications": ran.replications,
        "counts": tally,
        "apart": aside,
        "total": len(judged),
        "results": sum(tally.values()),
        "tables": [_table(table, by_id, readings, robustness, measured) for table in study.tables],
        "sensitivity": study.sensitivity,
        "judged_results": len(judged_results),
        "robust_results": robust_results,
        "fragile": [(j, robustness[j.row.id]) for j in judged if not _robust(robustness, j)],
        "reading_counts": {
            label: counts([verdicts.get(j.row.id, j).verdict for j in judged if j.counted])
            for label, verdicts in readings.items()
        },
        "figures": figures,
        "reasons": _reasons(judged),
        "unexplained": [by_id[i] for i in unexplained],
        "warnings": ran.warnings,
        "interval": "Student t" if study.interval == "t" else "the normal approximation (z = 1.96)",
        "why_kinds": WHY_KINDS,
    }
    markdown_pages, html_pages = environments()
    markdown = out.write(
        f"{study.name}.md", markdown_pages.get_template("study.md.j2").render(context).encode()
    )
    html = out.write(
        f"{study.name}.html", html_pages.get_template("study.html.j2").render(context).encode()
    )
    verdicts = assets.write("verdicts.csv", _verdicts_csv(judged, robustness).encode())
    robust = (robust_results, len(judged_results)) if robustness else None
    return Written(markdown, html, verdicts, Tally(tally, aside, robust), unexplained)


def _robust(robustness: dict[str, Robustness], j: Judged) -> bool:
    """Whether ``j`` keeps its outcome over every assumption's range (true when the study
    declares none)."""
    return j.row.id not in robustness or robustness[j.row.id].robust


def _table(
    table: Table,
    by_id: dict[str, Judged],
    readings: dict[str, dict[str, Judged]],
    robustness: dict[str, Robustness],
    measured: Measurements,
) -> dict:
    if table.layout == "findings":
        rows = []
        for n, row_id in enumerate(table.rows, start=1):
            j = by_id[row_id]
            also = []
            for reading in table.also:
                other = readings[reading.label].get(row_id)
                also.append(
                    f"{other.qoslab_text()} ({MARKS[other.outcome]})" if other is not None else "—"
                )
            rows.append(
                {
                    "n": n,
                    "judged": j,
                    "published": j.published_text(),
                    "qoslab": j.qoslab_text(),
                    "also": also,
                    "robust": _robust_text(robustness, j),
                }
            )
        return {
            "spec": table,
            "rows": rows,
            "also": [reading.label for reading in table.also],
            "robustness": bool(robustness),
        }
    if table.layout == "grid":
        return {"spec": table, "grid": _grid(table, by_id)}
    blocks = []
    for block in table.blocks:
        columns = list(block.columns)
        judged = [by_id[block.columns[c]] for c in columns]
        trial_count = max(
            [len(measured.trials(j.row.metric, j.row.at)) for j in judged if j.row.metric] + [0]
        )
        printed_count = max(
            [sum(1 for k in j.row.printed if k.startswith("T")) for j in judged] + [0]
        )
        labels = [f"T{k}" for k in range(1, max(trial_count, printed_count) + 1)] + list(TRIAL_ROWS)
        lines = []
        for label in labels:
            cells = []
            for j in judged:
                printed = j.row.printed.get(label)
                cells.append(
                    {
                        "published": as_printed(printed) if printed is not None else "",
                        "qoslab": _trial_cell(j, label, measured),
                    }
                )
            lines.append({"label": label, "cells": cells})
        blocks.append(
            {
                "label": block.label,
                "columns": columns,
                "units": [j.row.unit for j in judged],
                "lines": lines,
                "judged": judged,
            }
        )
    return {"spec": table, "blocks": blocks}


def _robust_cells(robustness: dict[str, Robustness], j: Judged) -> tuple[str, str]:
    """Whether ``j`` is robust (``yes`` or ``no``) and what its outcome depends on; both
    empty when the study declares no ranges, or for a value not judged."""
    if j.row.id not in robustness or j.row.claim is None:
        return "", ""
    r = robustness[j.row.id]
    return ("yes", "") if r.robust else ("no", r.text())


def _robust_text(robustness: dict[str, Robustness], j: Judged) -> str:
    """A findings table's robustness cell: ``yes``, or ``no:`` and what the outcome depends
    on (empty when the study declares no ranges, or for a value not judged)."""
    robust, depends = _robust_cells(robustness, j)
    return f"{robust}: {depends}" if depends else robust


def _readings(
    study: Study, by_id: dict[str, Judged], measured: Measurements
) -> dict[str, dict[str, Judged]]:
    """For each other reading of the study's findings tables (by label), the verdict on each
    row of the tables that show it."""
    out: dict[str, dict[str, Judged]] = {}
    for table in study.tables:
        for reading in table.also:
            verdicts = out.setdefault(reading.label, {})
            for row_id in table.rows:
                other = judge_reading(measured, by_id[row_id].row, reading)
                if other is not None:
                    verdicts[row_id] = other
    return out


def as_printed(x: float) -> str:
    """A study's printed number with the digits it was printed with (``15.394``, ``13``),
    thousands separated."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,}"


MARKS = {
    REPRODUCED: "R",
    SAME_CONCLUSION: "S",
    DIFFERS: "D",
    NOT_MODELLED: "N",
    INPUT_CONFIRMED: "IC",
    INPUT_DIFFERS: "ID",
    STUDY_INCONSISTENT: "SI",
}
"""The outcome of a grid cell, in letters."""


def _grid(table: Table, by_id: dict[str, Judged]) -> list[dict]:
    """The rows of a grid table: per cell the published value, qoslab's and the verdict's
    letter (None for a cell the study left empty)."""
    rows = []
    for label, ids in table.grid:
        cells: list[dict[str, object] | None] = []
        for row_id in ids:
            if row_id is None:
                cells.append(None)
                continue
            j = by_id[row_id]
            cells.append(
                {
                    "judged": j,
                    "published": j.published_text(),
                    "qoslab": j.qoslab_text(),
                    "mark": MARKS[j.outcome],
                }
            )
        rows.append({"label": label, "cells": cells})
    return rows


def _trial_cell(j: Judged, label: str, measured: Measurements) -> str:
    if j.row.metric is None:
        return "—"
    trials = measured.trials(j.row.metric, j.row.at)
    if label.startswith("T"):
        k = int(label[1:]) - 1
        return number(trials[k]) if k < len(trials) else ""
    e = estimate(trials, measured.study.interval)
    present = trials[~np.isnan(trials)]
    sd = float(np.std(present, ddof=1)) if len(present) > 1 else math.nan
    if sd <= 1e-9 * abs(e.mean):  # equal trials, up to the last bits of a float
        sd = 0.0
    return {
        "M": number(e.mean),
        "SD": number(sd),
        "M-X": number(e.low),
        "M+X": number(e.high),
        "Max": number(float(np.max(present))) if len(present) else "n/a",
    }[label]


def _reasons(judged: list[Judged]) -> list[dict]:
    groups = []
    for kind, title in WHY_KINDS.items():
        rows = [j for j in judged if not j.agrees and j.row.why and j.row.why.kind == kind]
        if rows:
            groups.append({"kind": kind, "title": title, "rows": rows})
    return groups


CSV_COLUMNS = (
    "id",
    "cite",
    "says",
    "published",
    "qoslab",
    "verdict",
    "role",
    "of",
    "rule",
    "mean",
    "band_low",
    "band_high",
    "paired_low",
    "margin",
    "robust",
    "depends",
    "why_kind",
    "why",
)
"""The columns of ``verdicts.csv``: ``verdict`` is the outcome (a verdict, or an input
check's or the study's inconsistency); ``role`` what the value is; ``of`` the values a
derived one or a duplicate comes from; ``rule`` the rule's kind; for a rule on one
quantity, qoslab's ``mean``, and for a number the band it must be in (``band_low``,
``band_high``); for an ordering, ``paired_low`` the lowest lower end of its pairs' paired
intervals and ``margin`` what it must clear; ``robust`` (``yes``, ``no``, or empty when the
study declares no ranges) and ``depends``, the outcome at each end of an assumption's range
that changes it. Numbers are written in full (``repr``)."""


def _verdicts_csv(judged: list[Judged], robustness: dict[str, Robustness]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for j in judged:
        why = j.row.why
        claim = j.row.claim
        weakest = j.weakest
        single = j.estimates.get(None)
        band = claim.band() if claim and claim.kind == "value" else None
        robust, depends = _robust_cells(robustness, j)
        writer.writerow(
            [
                j.row.id,
                j.row.cite,
                j.row.says,
                j.published_text(),
                j.qoslab_text(),
                j.outcome,
                j.row.role,
                " ".join(j.row.of),
                claim.kind if claim else "",
                repr(single.mean) if single is not None else "",
                repr(band[0]) if band else "",
                repr(band[1]) if band else "",
                repr(weakest.difference.low) if weakest else "",
                f"{claim.margin:g}" if claim and claim.ordering else "",
                robust,
                depends,
                why.kind if why else "",
                " ".join(why.text.split()) if why else "",
            ]
        )
    return buffer.getvalue()


def counts_in(folder: Path, name: str) -> Tally | None:
    """The tally of the reproduction of ``name`` written in ``folder`` earlier, if there is
    one that reads."""
    try:
        with Folder.open(folder / name, create=False, ledger=False) as assets:
            if not exists(assets.fd, "verdicts.csv"):
                return None
            text = read_text(assets.fd, "verdicts.csv", folder / name / "verdicts.csv")
    except (OutputError, ReadError):
        return None
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    if not rows or not {"verdict", "role", "robust"} <= set(rows[0]):
        return None
    results = [row for row in rows if row["role"] == RESULT]
    judged = [row["robust"] for row in results if row["robust"]]
    return Tally(
        counts([row["verdict"] for row in results]),
        apart([(row["role"], row["verdict"]) for row in rows]),
        (judged.count("yes"), len(judged)) if judged else None,
    )


def index(
    catalogue: dict[str, str],
    done: dict[str, Tally],
    folder: Path,
    command: str,
    version: str,
) -> Path:
    """Writes ``README.md`` in ``folder``: each study of ``catalogue`` with its tally — from
    ``done`` (reproduced now), from the verdicts written in ``folder`` before, or none
    yet."""
    rows = [
        {"name": name, "what": what, "tally": done.get(name) or counts_in(folder, name)}
        for name, what in catalogue.items()
    ]
    markdown_pages, _ = environments()
    text = markdown_pages.get_template("index.md.j2").render(
        rows=rows,
        verdicts=VERDICTS,
        apart=(*APART, DERIVED, DUPLICATE),
        command=command,
        version=version,
    )
    with Folder.open(folder, create=True) as out:
        return out.write(INDEX, text.encode())
