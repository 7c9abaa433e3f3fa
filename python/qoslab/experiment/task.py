"""One run of a sweep: what a worker needs to do it, its name, and what came of it.

A task carries everything a run depends on — the scenario's text, the overrides, the
variant, the seed and the replication — so that it can be done in another thread or on a
remote worker of a Dask cluster, where only ``qoslab`` needs to be installed. Its key, the
name of its result file, is a SHA-256 over a canonical JSON of (the core's hash of the
effective scenario, overrides, variant, seed, replication, qoslab version): the same run
always gets the same key, and any change to what determines its results gives another.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass

from qoslab import runfile
from qoslab._core import RunError, ScenarioError, Simulation, __version__

PIECE_S = 0.05
"""Wall time of the pieces a run is advanced in: a cancelled sweep stops a run within about
this long. The pieces start at 1/1024 of the run and double or halve to stay near it."""

FIRST_PIECES = 1024

DONE = "done"
SCENARIO_ERROR = "scenario_error"
RUN_ERROR = "run_error"
CRASHED = "crashed"
CANCELLED = "cancelled"

VERDICTS = (SCENARIO_ERROR, RUN_ERROR)
"""Failures that the same run would meet again (the simulator is deterministic), so a
resumed sweep keeps them rather than running them again; a crash (a worker lost, memory
exhausted) is retried."""


Override = tuple[str, str] | tuple[str, str, str]
"""A ``(key, value)`` pair, or ``(key, value, source)`` naming where the value was written."""


@dataclass(frozen=True)
class Task:
    """One run: the scenario, its changes, and the run's identity."""

    key: str
    text: str
    origin: str
    overrides: tuple[Override, ...]
    """``(key, value)`` pairs, or ``(key, value, source)`` naming where a value was written."""
    variant: str | None
    seed: int | None
    replication: int
    max_memory: int | None
    max_events: int | None


@dataclass(frozen=True)
class Outcome:
    """What came of a task: ``status`` (``done`` or a failure), the error message when it
    failed, and when done the run file (``qoslab.runfile``) and the random numbers the run
    drew."""

    key: str
    status: str
    text: str = ""
    data: bytes | None = None
    random_draws: int | None = None


def run_key(
    scenario_sha256: str,
    overrides: tuple[tuple[str, str], ...],
    variant: str | None,
    seed: int | None,
    replication: int,
) -> str:
    """The key of a run: a SHA-256 in hex over its canonical identity."""
    identity = {
        "scenario_sha256": scenario_sha256,
        "overrides": [[key, value] for key, value in overrides],
        "variant": variant,
        "seed": seed,
        "replication": replication,
        "qoslab_version": __version__,
    }
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def run_task(task: Task, cancel: threading.Event | None = None) -> Outcome:
    """Do ``task`` and say what came of it; never raises for a failed run.

    ``cancel``, when set, stops the run between two of its pieces (see :data:`PIECE_S`).
    """
    try:
        simulation = Simulation(
            task.text,
            task.origin,
            list(task.overrides),
            task.seed,
            task.max_memory,
            task.max_events,
            variant=task.variant,
            replication=task.replication,
            trace=False,
        )
        end_ns = simulation.end_ns
        piece_ns = max(end_ns // FIRST_PIECES, 1)
        now_ns = 0
        while now_ns < end_ns:
            if cancel is not None and cancel.is_set():
                return Outcome(task.key, CANCELLED, "cancelled")
            started_s = time.perf_counter()
            now_ns = min(now_ns + piece_ns, end_ns)
            simulation.advance(now_ns)
            took_s = time.perf_counter() - started_s
            if took_s < PIECE_S / 2:
                piece_ns *= 2
            elif took_s > 2 * PIECE_S:
                piece_ns = max(piece_ns // 2, 1)
        header, tables = simulation.finish_columns()
        draws = json.loads(header)["run"]["random_draws"]
        return Outcome(task.key, DONE, data=runfile.encode(header, tables), random_draws=draws)
    except ScenarioError as error:
        return Outcome(task.key, SCENARIO_ERROR, str(error))
    except RunError as error:
        return Outcome(task.key, RUN_ERROR, str(error))
    except MemoryError:
        return Outcome(task.key, CRASHED, "the worker ran out of memory")
