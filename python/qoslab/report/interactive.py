"""``qoslab.report.interactive``: a sweep or a run as one interactive HTML page that works
from a file, offline.

- A **sweep's** page leads with the same answer as its report (which points keep every
  budgeted application in contract, the cheapest); below it a selector per varied key
  chooses a point, and the charts (the chosen metric per flow, the metric along one key,
  each application's share in contract against the target) and tables switch to it in the
  browser, from every point's figures carried in the page (:mod:`qoslab.report.sweep_data`).
- A **run's** page animates the queues of one port from the run's per-packet trace
  (:mod:`qoslab.report.queue_data`): each class's queue, the transmit ring, the frame on
  the wire, the drops with their reason and the delays of the packets leaving, with a time
  scrubber and play/pause.

Both are rendered from autoescaped templates; the data travels as inert JSON
(:mod:`qoslab.report.embed`) and the charts are drawn by the vendored Chart.js, inlined, so
the page fetches nothing.
"""

from __future__ import annotations

from qoslab.experiment.sweep import Sweep
from qoslab.plot.source import palette
from qoslab.ratetext import format_rate
from qoslab.report import provenance
from qoslab.report.answer import view
from qoslab.report.embed import script_file, script_json, vendored
from qoslab.report.queue_data import DEFAULT_MAX_PACKETS, DEFAULT_SPAN_S, NS_PER_S, queue_data
from qoslab.report.render import environment
from qoslab.report.sweep_data import sweep_data
from qoslab.report.tables import run_tables
from qoslab.results import Results

SWEEP_TEMPLATE = "interactive_sweep.html.j2"
RUN_TEMPLATE = "interactive_run.html.j2"


def render_interactive(
    results_or_sweep: Results | Sweep,
    *,
    target_pct: float = 95.0,
    port: str | None = None,
    start_s: float | None = None,
    span_s: float = DEFAULT_SPAN_S,
    max_packets: int = DEFAULT_MAX_PACKETS,
) -> str:
    """The interactive page of a sweep (selectors over its grid, judged at ``target_pct``)
    or of a run with a per-packet trace (the queue animation of ``port`` from ``start_s``
    for ``span_s`` seconds, at most ``max_packets`` packets), as the text of one HTML
    file. Raises :class:`qoslab.report.queue_data.QueueDataError` for a run that cannot be
    animated as asked."""
    if isinstance(results_or_sweep, Sweep):
        return _sweep_page(results_or_sweep, target_pct)
    if isinstance(results_or_sweep, Results):
        return _run_page(results_or_sweep, port, start_s, span_s, max_packets)
    raise TypeError(
        f"an interactive page is made of a qoslab.Results or a qoslab.Sweep, not "
        f"{type(results_or_sweep).__name__}"
    )


def _sweep_page(sweep: Sweep, target_pct: float) -> str:
    answer = sweep.answer(target_pct=target_pct)
    return (
        environment()
        .get_template(SWEEP_TEMPLATE)
        .render(
            about=provenance.of_sweep(sweep),
            answer=view(answer),
            data=script_json(sweep_data(sweep, answer)),
            chart_js=vendored("chart.js"),
            page_js=script_file("static", "sweep.js"),
        )
    )


def _run_page(
    results: Results, port: str | None, start_s: float | None, span_s: float, max_packets: int
) -> str:
    queue = queue_data(results, port, start_s=start_s, span_s=span_s, max_packets=max_packets)
    colour = palette(results)
    queue["colours"] = {flow: colour.get(flow, "#555555") for flow in queue["flows"]}
    start, end = queue["start_ns"] / NS_PER_S, queue["end_ns"] / NS_PER_S
    window = (
        f"From {start:g} s to {end:g} s of the run: {len(queue['packets']['id']):,} packets "
        f"passed the port."
    )
    notes = []
    if queue["cut"]:
        notes.append(
            f"The window was cut short of the {span_s:g} s asked for, to the first "
            f"{max_packets:,} packets (--max-packets), so that the page stays small."
        )
    warmup_s = float(results.run.get("warmup_s", 0.0))
    if warmup_s > 0:
        notes.append(
            f"The trace holds only packets created after the {warmup_s:g} s warm-up: packets "
            "of the warm-up still queued or on the wire are not shown. Run with --set "
            "run.warmup=0s to see every packet."
        )
    tables = [table for table in run_tables(results) if table.anchor == "flows"]
    return (
        environment()
        .get_template(RUN_TEMPLATE)
        .render(
            about=provenance.of_results(results),
            queue=queue,
            rate=format_rate(queue["rate_bps"]),
            window=window,
            queue_notes=notes,
            tables=tables,
            data=script_json(queue),
            page_js=script_file("static", "queue.js"),
        )
    )
