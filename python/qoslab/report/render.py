"""``qoslab.report.render``: a run or a sweep as one self-contained HTML page.

The page is made from the Jinja2 templates in ``templates/`` with autoescaping on, so every
name, note, path and value taken from a scenario or a command line is shown as text, never
read as markup; the only markup inserted whole is the SVG the plots module draws. Style and
figures are inline and nothing is fetched, so the page can be mailed, archived or printed as
it is. The page holds no time or host name: the same results give the same bytes.
"""

from __future__ import annotations

from jinja2 import Environment

from qoslab.experiment.sweep import Sweep
from qoslab.report import provenance
from qoslab.report.answer import view
from qoslab.report.figures import figures
from qoslab.report.pages import html_environment
from qoslab.report.tables import run_tables, sweep_tables
from qoslab.results import Results

TEMPLATE = "report.html.j2"


def environment() -> Environment:
    """The Jinja2 environment of the report templates: every value escaped."""
    return html_environment("qoslab.report", trim_blocks=True, lstrip_blocks=True)


def render(results_or_sweep: Results | Sweep, *, target_pct: float = 95.0) -> str:
    """The report of a run (:class:`qoslab.Results`) or a sweep (:class:`qoslab.Sweep`) as
    the text of one HTML file. The scenario and IOS configurations it shows are the texts
    the run recorded having read (for a sweep, its first finished run), never a file read
    now. A sweep's page leads with the points that keep every budgeted application in
    contract in ``target_pct`` % of intervals or more (:meth:`qoslab.Sweep.answer`)."""
    answer = None
    if isinstance(results_or_sweep, Sweep):
        answer = view(results_or_sweep.answer(target_pct=target_pct))
        about = provenance.of_sweep(results_or_sweep)
        tables = sweep_tables(results_or_sweep)
        notes = _sweep_notes(results_or_sweep)
        kind = "sweep"
    elif isinstance(results_or_sweep, Results):
        about = provenance.of_results(results_or_sweep)
        tables = run_tables(results_or_sweep)
        notes = [str(note) for note in results_or_sweep.run.get("notes") or []]
        kind = "run"
    else:
        raise TypeError(
            f"a report is made of a qoslab.Results or a qoslab.Sweep, not "
            f"{type(results_or_sweep).__name__}"
        )
    return (
        environment()
        .get_template(TEMPLATE)
        .render(
            kind=kind,
            about=about,
            answer=answer,
            notes=notes,
            tables=tables,
            figures=figures(results_or_sweep),
        )
    )


def _sweep_notes(sweep: Sweep) -> list[str]:
    """One note per run of the sweep that did not finish, naming its point and error."""
    notes = []
    for record in sweep.failures.to_dict("records"):
        point = ", ".join(f"{column}={record[column]}" for column in sweep.parameters)
        notes.append(
            f"Run {record['run']} ({point or 'the scenario as written'}, replication "
            f"{record['replication']}) {record['status']}: {record['error']}"
        )
    return notes
