"""Running a sweep's tasks on this machine: a pool of threads.

The core releases the GIL while it simulates and while it writes a run's results, so
threads run simulations in parallel on all cores; what little Python a run does (building
the task, packing the tables the core hands over into the run's file) is small beside a
run. Threads, unlike processes, start instantly and pass the results without copying them
through a pipe (the measurements that led to threads are in ``docs/design/decisions.md``).

Stopping: when the caller stops reading outcomes (Ctrl-C, an error), a shared event tells
every running simulation to stop at its next piece and the tasks not yet started are
dropped.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from qoslab.experiment.task import Outcome, Task, run_task


def default_jobs() -> int:
    """Workers by default: the cores this process may use."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:
        return os.cpu_count() or 1


class LocalExecutor:
    """Runs tasks on ``jobs`` threads of this process."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = default_jobs() if jobs is None else jobs
        if self.jobs < 1:
            raise ValueError(f"{self.jobs} jobs: give at least 1")

    def slots(self) -> int:
        """How many runs go at once."""
        return self.jobs

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        """The outcome of each task, as the runs finish."""
        cancel = threading.Event()
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="qoslab-run")
        pending: set[Future[Outcome]] = set()
        try:
            queue = iter(tasks)
            for task in queue:
                pending.add(pool.submit(run_task, task, cancel))
                if len(pending) >= 2 * self.jobs:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    following = next(queue, None)
                    if following is not None:
                        pending.add(pool.submit(run_task, following, cancel))
                    yield future.result()
        finally:
            cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)
