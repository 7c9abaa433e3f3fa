"""``qoslab.sweep``: run a scenario at every point of a grid, in every variant and
replication, locally or on a Dask cluster, into a folder that a later call can resume.

The order of work: the plan is made and every point of the grid is loaded and checked
before any run starts (a bad key or value stops the sweep with its place named); the runs
are then handed to the executor replication by replication, so that the first results cover
the whole grid; each outcome is stored as it comes; at the end the index of runs and the
summary tables are written. Runs are independent and each is deterministic, so the order in
which they finish changes nothing in what is written.
"""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence, Set
from functools import partial
from pathlib import Path

from qoslab._core import Simulation, __version__, scenario_counts
from qoslab.experiment.cluster import DaskExecutor
from qoslab.experiment.local import LocalExecutor
from qoslab.experiment.plan import Plan, Point, make_plan
from qoslab.experiment.progress import SweepProgress
from qoslab.experiment.spill import Spill
from qoslab.experiment.store import FORMAT, Store
from qoslab.experiment.sweep import Sweep, check_series_summary
from qoslab.experiment.task import DONE, Override, Task, run_key
from qoslab.memory import default_max_memory
from qoslab.runfile import SUFFIX, RunFile
from qoslab.scenario import Assignments, Scenario, check_limits, scenario_text
from qoslab.scenario import pairs as override_pairs

EXECUTORS = ("local", "dask")

IDENTICAL_REPLICATIONS = (
    "{point}: the run drew no random number, so its {replications} replications are "
    "identical and their confidence intervals zero wide. Give periodic flows a random start "
    "phase (run.phase: random, or phase: random on a flow) or a random pattern (poisson, "
    "onoff), or run one replication"
)


def sweep(
    scenario: Scenario,
    *,
    vary: Mapping[str, Sequence[object]] | None = None,
    zip: bool | Sequence[Sequence[str]] = False,
    variants: Sequence[str] | None = None,
    reps: int | None = None,
    seed: int | None = None,
    set: Assignments = None,
    jobs: int | None = None,
    executor: str = "local",
    scheduler: object = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool | None = None,
    max_memory: int | None = None,
    max_events: int | None = None,
    warn: Callable[[str], None] | None = None,
    command: Sequence[str] | None = None,
    use_section: bool = True,
    series_summary: str | None = None,
) -> Sweep:
    """Run ``scenario`` at every point of a grid and return the :class:`Sweep`.

    ``vary`` maps ``--set`` key paths to lists of values (the grid is their cartesian
    product, the first key outermost); ``zip=True`` advances all varied keys together
    instead, or ``zip`` lists the groups of keys that advance together. ``variants`` names the
    scenario's variants to run (``"base"`` is the scenario as written); ``reps`` is the
    number of replications (``run.replication`` 0, 1, ...). Each of these, when not given,
    comes from the scenario's ``sweep:`` section. ``set`` holds overrides applied to every
    run, ``seed`` replaces the scenario's seed.

    ``executor="local"`` runs ``jobs`` runs at once (default: every core);
    ``executor="dask"`` runs them on the cluster whose scheduler is at ``scheduler`` (an
    address, or a ``distributed.Client``). With ``out``, every run is stored in that folder
    as it finishes, and ``resume=True`` keeps the runs an earlier sweep there finished;
    without it the runs are kept in a private temporary folder, removed with the sweep
    (``qoslab.experiment.spill``). ``progress`` draws a bar on stderr (default:
    when stderr is a terminal). ``max_memory`` is the memory of one run (default: half the
    memory this process can get, ``qoslab.memory``, shared among the local jobs); ``warn``
    receives warnings (default: printed to stderr); ``command`` is recorded in the manifest.
    ``use_section=False`` ignores the scenario's ``sweep:`` section. The folder holds a
    summary of the per-interval tables (``series``, ``class_series``, ``dq_intervals``) when
    ``series_summary`` is ``"parquet"`` or ``"csv"``.

    Raises ``ScenarioError`` (with the place) for a grid point that cannot be loaded,
    ``ValueError`` for a bad argument, ``OutputError`` for a folder refused; runs that fail
    are recorded in the sweep (``Sweep.failures``) and the others go on.
    """
    text, origin = scenario_text(scenario)
    check_limits(seed, max_memory, max_events)
    check_series_summary(series_summary)
    plan = make_plan(
        text,
        origin,
        vary=vary,
        zip_keys=zip,
        variants=variants,
        reps=reps,
        seed=seed,
        use_section=use_section,
    )
    fixed = override_pairs(set, {})
    runner = _executor(executor, jobs, scheduler)
    if max_memory is None and isinstance(runner, LocalExecutor):
        max_memory = max(default_max_memory() // runner.slots(), 1)
    # Remote workers read the files a scenario names relative to its absolute path.
    remote = executor != "local" and not origin.startswith("<")
    task_origin = str(Path(origin).resolve()) if remote else origin
    tasks, identities = _tasks(plan, text, task_origin, origin, fixed, max_memory, max_events)
    manifest = _manifest(plan, tasks, identities, text, origin, command)

    store = Store.create(out, resume=resume) if out is not None else None
    results = Spill() if store is None else None
    failures: dict[str, dict] = {}
    try:
        if store is not None:
            store.write_manifest(manifest)
            kept: Set[str] = store.kept([task.key for task in tasks])
        else:
            kept = frozenset()
        todo = [task for task in tasks if task.key not in kept]
        shown = sys.stderr.isatty() if progress is None else progress
        bar = SweepProgress(len(tasks), len(tasks) - len(todo), runner.slots(), shown=shown)
        say = warn or bar.say
        warned = False
        try:
            for outcome in runner.run(todo):
                identity = identities[outcome.key]
                if store is not None:
                    store.save(outcome, identity)
                if outcome.status == DONE:
                    if results is not None:
                        assert outcome.data is not None, "a finished run has its file"
                        results.put(outcome.key, outcome.data)
                    if not warned and plan.replications > 1 and outcome.random_draws == 0:
                        say(
                            IDENTICAL_REPLICATIONS.format(
                                point=_label(identity), replications=plan.replications
                            )
                        )
                        warned = True
                else:
                    failures[outcome.key] = {"status": outcome.status, "error": outcome.text}
                bar.advance(failed=outcome.status != DONE)
        finally:
            bar.stop()
        if store is not None:
            return _finished(store, manifest, series_summary)
        assert results is not None, "a sweep without a folder spills its runs"
        return Sweep(
            manifest,
            partial(_spilled, results),
            failures.get,
            has_result=results.__contains__,
        )
    finally:
        if store is not None:
            store.close()


def _finished(store: Store, manifest: dict, series_summary: str | None) -> Sweep:
    """The sweep stored in ``store``, its index and summary written: read through a reader
    of its own, which outlives the writer."""
    reader = store.reading()
    finished = Sweep(manifest, reader.result, reader.failure, store.directory, reader.has_result)
    weakref.finalize(finished, reader.close)
    store.write_index(finished.index)
    store.write_summary(finished.summary_files(series_summary))
    return finished


def _spilled(results: Spill, key: str, tables: Sequence[str] | None = None) -> RunFile | None:
    """The run file of the run ``key`` of a sweep given no folder, with its tables
    ``tables`` read (default: all), or ``None``."""
    data = results.get(key)
    if data is None:
        return None
    return RunFile(data, results.folder / f"{key}{SUFFIX}", tables)


def _executor(executor: str, jobs: int | None, scheduler: object) -> LocalExecutor | DaskExecutor:
    if executor == "local":
        return LocalExecutor(jobs)
    if executor == "dask":
        return DaskExecutor(scheduler)
    raise ValueError(f"executor {executor!r}: use one of {', '.join(EXECUTORS)}")


def _tasks(
    plan: Plan,
    text: str,
    task_origin: str,
    origin: str,
    fixed: list[tuple[str, str]],
    max_memory: int | None,
    max_events: int | None,
) -> tuple[list[Task], dict[str, dict]]:
    """Every run of the plan, replication by replication, each point checked first; and
    each run's identity by key."""
    checked: list[tuple[Point, tuple[Override, ...], str]] = []
    for point in plan.points():
        overrides: tuple[Override, ...] = (*fixed, *_sourced(point, origin))
        simulation = Simulation(
            text,
            origin,
            list(overrides),
            plan.seed,
            max_memory,
            max_events,
            variant=point.variant,
            replication=0,
        )
        checked.append((point, overrides, simulation.scenario_sha256))
    tasks, identities = [], {}
    for replication_index in range(plan.replications):
        for point, overrides, scenario_sha256 in checked:
            pairs = tuple((key, value) for key, value, *_ in overrides)
            replication = _replication(pairs, replication_index, plan.replications)
            key = run_key(scenario_sha256, pairs, point.variant, plan.seed, replication)
            tasks.append(
                Task(
                    key,
                    text,
                    task_origin,
                    overrides,
                    point.variant,
                    plan.seed,
                    replication,
                    max_memory,
                    max_events,
                )
            )
            identities[key] = {
                "key": key,
                "variant": point.variant,
                "settings": [list(pair) for pair in point.assignments],
                "replication": replication,
                "seed": plan.seed,
            }
    return tasks, identities


def _replication(pairs: tuple[tuple[str, str], ...], index: int, replications: int) -> int:
    """The replication a run is: ``index``, or the one ``run.replication`` sets (varied or
    fixed), which is the run's replication only when the plan makes one of each point."""
    given = [value for key, value in pairs if key == "run.replication"]
    if not given:
        return index
    if replications > 1:
        raise ValueError(
            f"run.replication is set to {given[-1]} and {replications} replications are asked "
            "for: set the replication of each run, or ask for replications, not both"
        )
    return int(given[-1])


def _sourced(point: Point, origin: str) -> list[tuple[str, str, str]]:
    """The point's settings as overrides, each naming where its value was written: its
    place in the ``sweep:`` section, or the ``--vary`` that gave it."""
    return [
        (key, value, source if source is not None else f"{origin} (--vary {key}={value})")
        for (key, value, source) in point.overrides()
    ]


def _manifest(
    plan: Plan,
    tasks: list[Task],
    identities: dict[str, dict],
    text: str,
    origin: str,
    command: Sequence[str] | None,
) -> dict:
    return {
        "format": FORMAT,
        "qoslab_version": __version__,
        "python_version": sys.version.split()[0],
        "scenario": origin,
        "scenario_name": scenario_counts(text, origin)[0],
        "command": list(command) if command is not None else None,
        "plan": {
            "vary": [{"key": axis.key, "values": list(axis.values)} for axis in plan.axes],
            "zip": [list(group) for group in plan.zip_groups],
            "variants": list(plan.variants),
            "replications": plan.replications,
            "seed": plan.seed,
        },
        "runs": [identities[task.key] for task in tasks],
    }


def _label(identity: dict) -> str:
    """A run's point in words: ``variant quiet, topology.links.1.rate=64kbps``."""
    parts = [f"variant {identity['variant']}"] if identity["variant"] is not None else []
    parts += [f"{key}={value}" for key, value in identity["settings"]]
    return ", ".join(parts) or "the scenario as written"
