"""``qoslab bench --sweep``: how a sweep's throughput grows with its jobs, and what the
sweep machinery costs per run.

The runs are the headline benchmark with FIFO, shortened or lengthened by ``--seconds``,
one per replication. First the runs are done one after another straight through the core
(no sweep): the core's own time. Then the same runs as a sweep into a fresh folder with 1,
2, ... jobs up to the cores available. The overhead per run is the one-job sweep's wall time
less the core's, divided by the runs: planning, checking each point, the threads, writing
each run's file, the index and the summary.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rich.table import Table

import qoslab
from qoslab._core import BENCH_CASES, Simulation, parse_override
from qoslab.experiment.local import default_jobs

NS_PER_S = 1_000_000_000
DEFAULT_RUNS = 24


def sweep_table(seconds: float | None, runs: int | None) -> Table:
    """The measurements as a table for the terminal."""
    name, scenario, changes = BENCH_CASES[0]
    runs = runs or DEFAULT_RUNS
    overrides = [parse_override(change) for change in changes]
    if seconds is not None:
        overrides.append(("run.duration", f"{round(seconds * NS_PER_S)}ns"))
    with tempfile.TemporaryDirectory(prefix="qoslab-bench-") as folder:
        path = Path(folder) / f"{name}.yaml"
        path.write_text(scenario, encoding="utf-8")
        started_s = time.perf_counter()
        for replication in range(runs):
            Simulation(scenario, str(path), overrides, replication=replication).finish()
        core_s = time.perf_counter() - started_s

        table = Table(
            title=f"qoslab bench --sweep: {runs} runs of {name}, "
            f"{core_s / runs:.3f} s each in the core alone",
            title_justify="left",
        )
        for heading in ("jobs", "wall s", "runs/s", "speed-up", "overhead ms/run"):
            table.add_column(heading, justify="right")
        one_job_s = None
        for jobs in range(1, default_jobs() + 1):
            started_s = time.perf_counter()
            qoslab.sweep(
                path,
                set=[f"{key}={value}" for key, value in overrides],
                reps=runs,
                jobs=jobs,
                out=Path(folder) / f"jobs{jobs}",
                progress=False,
                warn=lambda _message: None,
            )
            wall_s = time.perf_counter() - started_s
            one_job_s = one_job_s or wall_s
            overhead = f"{(wall_s - core_s) / runs * 1000:.1f}" if jobs == 1 else ""
            table.add_row(
                str(jobs),
                f"{wall_s:.2f}",
                f"{runs / wall_s:.2f}",
                f"{one_job_s / wall_s:.2f}",
                overhead,
            )
    return table
