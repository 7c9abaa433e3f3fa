"""``qoslab bench --sweep``: what the sweep machinery costs beside the runs it does, and how
its throughput grows with its jobs.

The runs are a scenario's grid (``--grid SCENARIO``: its ``sweep:`` section), or replications
of the headline benchmark with FIFO, shortened or lengthened by ``--seconds``. First every
run is done straight through the core, one after another, each built, run and finished
(``Simulation.finish_columns``, what a sweep's worker calls): the core's own CPU time. Then
the same runs as a sweep into a fresh folder with 1, 2, ... jobs up to the cores available,
each measured in wall time and in the CPU time of this process (every thread): the ratio
of the one-job sweep's CPU time to the core's is what the sweep costs on top of its runs —
planning and checking the grid, the worker threads, each run's file written through a
staging file with ``fsync``, and the index and the summary read back and computed.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rich.table import Table

import qoslab
from qoslab._core import Simulation, bench_cases, parse_override
from qoslab.experiment.local import default_jobs
from qoslab.experiment.plan import make_plan
from qoslab.scenario import scenario_text

NS_PER_S = 1_000_000_000
DEFAULT_RUNS = 24


def sweep_table(seconds: float | None, runs: int | None, grid: Path | None) -> Table:
    """The measurements as a table for the terminal."""
    with tempfile.TemporaryDirectory(prefix="qoslab-bench-") as folder:
        if grid is not None:
            path, fixed = grid, []
            text, _ = scenario_text(grid)
            name = grid.name
        else:
            name, text, changes = bench_cases()[0]
            fixed = [parse_override(change) for change in changes]
            if seconds is not None:
                fixed.append(("run.duration", f"{round(seconds * NS_PER_S)}ns"))
            path = Path(folder) / f"{name}.yaml"
            path.write_text(text, encoding="utf-8")
        reps = None if grid is not None else runs or DEFAULT_RUNS
        plan = make_plan(text, str(path), reps=reps, use_section=grid is not None)
        every = [
            (point, replication)
            for replication in range(plan.replications)
            for point in plan.points()
        ]
        started_cpu_s = time.process_time()
        for point, replication in every:
            overrides = [*fixed, *((key, value) for key, value, _ in point.overrides())]
            simulation = Simulation(
                text, str(path), overrides, variant=point.variant, replication=replication
            )
            simulation.finish_columns()
        core_cpu_s = time.process_time() - started_cpu_s
        count = len(every)

        table = Table(
            title=f"qoslab bench --sweep: {count} runs of {name}, "
            f"{core_cpu_s / count * 1000:.1f} ms of CPU each in the core alone",
            title_justify="left",
        )
        headings = ("jobs", "wall s", "runs/s", "speed-up", "CPU s", "CPU ÷ core's")
        for heading in headings:
            table.add_column(heading, justify="right")
        one_job_s = None
        for jobs in range(1, default_jobs() + 1):
            started_s, started_cpu_s = time.perf_counter(), time.process_time()
            qoslab.sweep(
                path,
                set=[f"{key}={value}" for key, value in fixed],
                reps=reps,
                jobs=jobs,
                out=Path(folder) / f"jobs{jobs}",
                progress=False,
                warn=lambda _message: None,
                use_section=grid is not None,
            )
            wall_s = time.perf_counter() - started_s
            cpu_s = time.process_time() - started_cpu_s
            one_job_s = one_job_s or wall_s
            table.add_row(
                str(jobs),
                f"{wall_s:.2f}",
                f"{count / wall_s:.1f}",
                f"{one_job_s / wall_s:.2f}",
                f"{cpu_s:.2f}",
                f"{cpu_s / core_cpu_s:.2f}",
            )
    return table
