"""The short form of a report that a notebook shows for a :class:`qoslab.Results` or a
:class:`qoslab.Sweep` (their ``_repr_html_``): a headline, for a sweep the points that keep
every budgeted application in contract (:meth:`qoslab.Sweep.answer`, at the default target),
the flows table (for a sweep, folded: the mean ± half-width of each point, a table per flow)
and the first suggested plot, the only one drawn."""

from __future__ import annotations

from qoslab.experiment.sweep import Sweep
from qoslab.report.answer import view
from qoslab.report.figures import figures
from qoslab.report.render import environment
from qoslab.report.tables import run_tables, sweep_tables
from qoslab.results import Results

TEMPLATE = "notebook.html.j2"

KEY_FIGURES = 1
"""How many of the suggested plots a notebook shows."""


def repr_html(results_or_sweep: Results | Sweep) -> str:
    """The HTML a notebook shows for a run or a sweep."""
    answer = None
    if isinstance(results_or_sweep, Sweep):
        manifest = results_or_sweep.manifest
        name = str(manifest.get("scenario_name", ""))
        failed = len(results_or_sweep.failures)
        headline = (
            f"sweep of {len(results_or_sweep.index)} runs over "
            f"{', '.join(results_or_sweep.parameters) or 'no parameter'}"
            + (f", {failed} did not finish" if failed else "")
        )
        tables = sweep_tables(results_or_sweep)
        answer = view(results_or_sweep.answer())
    else:
        run = results_or_sweep.run
        name = str(run.get("scenario", ""))
        headline = (
            f"seed {run.get('seed')}, replication {run.get('replication')}, "
            f"{run.get('duration_s', 0):g} s measured after {run.get('warmup_s', 0):g} s warm-up"
        )
        tables = run_tables(results_or_sweep)
    flows = [table for table in tables if table.anchor == "flows"]
    return (
        environment()
        .get_template(TEMPLATE)
        .render(
            name=name,
            headline=headline,
            answer=answer,
            tables=flows,
            figures=figures(results_or_sweep, limit=KEY_FIGURES),
        )
    )
