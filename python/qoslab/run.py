"""Running a scenario (``qoslab.run``), checking one without running it (``qoslab.validate``)
and the JSON Schema of the scenario format (``qoslab.schema``)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qoslab._core import ScenarioError, Simulation, json_schema, scenario_counts
from qoslab.memory import default_max_memory
from qoslab.scenario import (
    BASE,
    MAX_SEED,
    Assignments,
    Scenario,
    check_limits,
    pairs,
    scenario_text,
)

if TYPE_CHECKING:
    from rich.progress import Progress

    from qoslab._core import ResultsDocument
    from qoslab.output import NewFolder
    from qoslab.results import Results
    from qoslab.runfile import TableBuffers
    from qoslab.trace import TraceWriter

PROGRESS_STEPS = 200
"""How many pieces a run is advanced in, so it can show progress."""

PROGRESS_DELAY_S = 1.0
"""Wall time a run may take before its progress bar appears."""

NS_PER_S = 1_000_000_000

TRACE_ROW_BYTES = 64
"""Disk a row of the per-packet trace may take at most, bytes: its columns uncompressed
(Parquet's compression makes them far smaller)."""


def run(
    scenario: Scenario,
    *,
    seed: int | None = None,
    replication: int | None = None,
    variant: str | None = None,
    set: Assignments = None,
    progress: bool = False,
    max_memory: int | None = None,
    max_events: int | None = None,
    pcap: str | os.PathLike[str] | None = None,
    trace: bool | None = None,
    **overrides: object,
) -> Results:
    """Run a scenario to the end and return its measurements.

    ``scenario`` is the path of a YAML scenario file or the scenario document as a dict (as
    loaded from YAML or JSON).

    Overrides change the document before it is validated, exactly like ``--set`` on the
    command line. Key paths separate keys with ``.`` and address list elements by index
    (``traffic.0.dscp``); each value is read as a YAML scalar, so ``"pq"``, ``"128kbps"``,
    ``2`` and ``True`` all work. Give them as ``set={"key.path": value}``, as
    ``set=["key.path=value", ...]``, or as keyword arguments, where ``__`` stands for ``.``
    (``run__seed=2``) and any key path can be passed by unpacking a dict::

        qoslab.run("examples/voice-vs-flood.yaml", **{"interfaces.r1.r2.output": "pq"})

    ``seed`` replaces the scenario's master seed and ``replication`` its replication number
    (``run.replication``); ``variant`` applies one of the scenario's ``variants:`` overlays
    before the overrides (``"base"`` or ``None``: the scenario as written). With
    ``progress=True`` a progress bar is drawn on stderr once a run has taken more than a
    second of wall time. Interrupting a run
    (Ctrl-C) raises ``KeyboardInterrupt`` within a fraction of a second.

    ``max_memory`` (bytes; default: half the memory this process can get, the least of the
    physical memory, its address-space limit and its control group's limit) and ``max_events``
    bound what a run may take: a scenario whose structures or estimated events exceed them
    is refused with a ``ScenarioError`` naming the entry responsible, and a run whose
    packets in flight outgrow the memory stops with a ``RunError``.

    ``pcap`` names a folder that receives a packet capture: one pcap file per port
    ``measure.pcap`` names (every port without it), ``node-to-peer.pcap``, with a record per
    frame as it starts on the wire (docs/pcap.md). The capture replaces the folder as a whole
    at the end of the run; ``qoslab.output.OutputError`` is raised before the run for a
    folder that cannot take it (a link, other files, no room).

    ``trace`` asks for the per-packet trace: ``None`` records the one the scenario's
    ``measure.trace`` describes (none without it), ``True`` records one — every flow at every
    port, up to 10 million rows, unless ``measure.trace`` narrows it — and ``False`` none.
    The trace is written while the run goes, to a temporary folder, and becomes
    ``trace.parquet`` of the results folder when the results are written; read it with
    :meth:`Results.trace`.

    Raises ``ScenarioError`` for a scenario that cannot be loaded (a missing file, a bad key
    or value, too big a scenario) and ``RunError`` if the simulator finds one of its
    invariants broken or stops the run at its memory guard.
    """
    # Imported here, so that importing qoslab does not load pandas and pyarrow.
    from qoslab.results import Results

    text, origin = scenario_text(scenario)
    simulation = _build(
        text,
        origin,
        pairs(set, overrides),
        seed=seed,
        replication=replication,
        variant=variant,
        max_memory=max_memory,
        max_events=max_events,
        trace=trace,
    )
    with contextlib.ExitStack() as cleanup:
        capture = None
        if pcap is not None:
            capture = cleanup.enter_context(_capture_folder(pcap, simulation))
            simulation.capture_pcap(capture.path())
        if not simulation.traces:
            results = Results.from_core(_drive(simulation, progress=progress))
        else:
            results = _traced(simulation, progress=progress)
        if capture is not None:
            capture.commit()
        return results


def _capture_folder(pcap: str | os.PathLike[str], simulation: Simulation) -> NewFolder:
    """The folder the packet capture is written into, to take the place of ``pcap`` as a
    whole at the end of the run; refused before the run when it cannot be written or the
    capture could outgrow its disk."""
    from qoslab.output import NewFolder, check_folder

    check_folder(pcap, _pcap_file, size_bytes=simulation.capture_bytes_bound)
    return NewFolder(pcap, _pcap_file)


def _pcap_file(name: str) -> bool:
    return name.endswith(".pcap")


def _traced(simulation: Simulation, *, progress: bool) -> Results:
    """Run ``simulation``, writing its per-packet trace into a staging folder of the
    temporary folder, which the results keep until they are gone. Staging folders of
    traced runs whose process ended (killed, even by SIGKILL) are removed first."""
    from qoslab.output import Folder
    from qoslab.results import Results
    from qoslab.trace import TRACE_PARQUET, TraceWriter

    with Folder.open(tempfile.gettempdir(), create=False, ledger=False) as temporary:
        temporary.remove_stale(lambda name: name == TRACE_PARQUET)
        rows = simulation.trace_rows_bound
        temporary.check_room(rows * TRACE_ROW_BYTES, "the per-packet trace")
        folder = temporary.staging_folder()
    try:
        path = folder.writable_path(TRACE_PARQUET)
        writer = TraceWriter(path, simulation.trace_dictionaries())
        try:
            finished = _drive(simulation, progress=progress, trace_sink=writer)
        finally:
            writer.close()
    except BaseException:
        folder.close()
        raise
    results = Results.from_core(finished, trace_path=folder.path / TRACE_PARQUET)
    weakref.finalize(results, folder.close)
    return results


@dataclass(frozen=True)
class Summary:
    """What a valid scenario contains."""

    name: str
    nodes: int
    links: int
    flows: int
    simulated_s: float
    """Simulated time of a run: warm-up plus duration."""


def validate(
    scenario: Scenario,
    *,
    variant: str | None = None,
    set: Assignments = None,
    max_memory: int | None = None,
    max_events: int | None = None,
    **overrides: object,
) -> Summary:
    """Check a scenario without running it and say what it contains.

    Takes the same scenario, override and limit arguments as :func:`run` and raises
    ``ScenarioError`` with a message naming the file, line, column and key path of the first
    problem found, including a scenario that would need more memory or events than allowed.
    """
    text, origin = scenario_text(scenario)
    changes = pairs(set, overrides)
    simulation = _build(
        text, origin, changes, variant=variant, max_memory=max_memory, max_events=max_events
    )
    name, nodes, links, flows = scenario_counts(text, origin, changes)
    return Summary(name, nodes, links, flows, simulation.end_ns / NS_PER_S)


def schema() -> dict[str, object]:
    """The JSON Schema of the scenario format, as a dict."""
    return json.loads(json_schema())


def _build(
    text: str,
    origin: str,
    changes: list[tuple[str, str]],
    *,
    seed: int | None = None,
    replication: int | None = None,
    variant: str | None = None,
    max_memory: int | None,
    max_events: int | None,
    trace: bool | None = False,
) -> Simulation:
    check_limits(seed, max_memory, max_events)
    if replication is not None and not 0 <= replication <= MAX_SEED:
        raise ScenarioError(
            f"replication {replication}: out of range. Use a whole number from 0 to {MAX_SEED}"
        )
    memory = default_max_memory() if max_memory is None else max_memory
    return Simulation(
        text,
        origin,
        changes,
        seed,
        memory,
        max_events,
        variant=None if variant == BASE else variant,
        replication=replication,
        trace=trace,
    )


def _drive(
    simulation: Simulation, *, progress: bool, trace_sink: TraceWriter | None = None
) -> tuple[str, list[TableBuffers], ResultsDocument]:
    """Advance the simulation to its end in steps and return its results as the core
    finishes them (``Simulation.finish_document``); the per-packet trace, if recorded, goes
    to ``trace_sink`` chunk by chunk."""
    end_ns = simulation.end_ns
    started_s = time.perf_counter()
    bar: Progress | None = None
    try:
        for step in range(1, PROGRESS_STEPS + 1):
            until_ns = end_ns * step // PROGRESS_STEPS
            simulation.advance(until_ns, trace_sink)
            if progress and bar is None and time.perf_counter() - started_s > PROGRESS_DELAY_S:
                bar = _progress_bar()
                bar.add_task("simulating", total=end_ns / NS_PER_S)
            if bar is not None:
                bar.update(bar.task_ids[0], completed=until_ns / NS_PER_S)
        return simulation.finish_document(trace_sink)
    finally:
        if bar is not None:
            bar.stop()


def _progress_bar() -> Progress:
    from rich.console import Console  # rich only for a run that takes long enough
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.completed:.1f} of {task.total:.1f} s simulated"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    bar.start()
    return bar
