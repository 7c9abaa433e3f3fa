"""Running a sweep's tasks on an existing Dask cluster, through ``distributed``'s own
scheduler.

Each task is submitted as a call of :func:`qoslab.experiment.task.run_task`, which the
workers import from their own ``qoslab`` installation; the task carries the scenario's text,
so only files the scenario names (IOS configurations, traces) must be reachable by the
workers, at the same absolute path. Before submitting, every worker is asked for its qoslab
version: a worker with another version would give other results under the same keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from qoslab._core import __version__
from qoslab.experiment.task import CRASHED, Outcome, Task, run_task

CONNECT_TIMEOUT_S = 10
"""How long to wait for the scheduler to answer."""


class ExecutorError(ValueError):
    """A cluster that cannot run the sweep: unreachable, or workers unfit."""


def worker_version() -> str:
    """The qoslab version of the process it runs in (asked of every worker)."""
    return __version__


class DaskExecutor:
    """Runs tasks on the Dask cluster whose scheduler is at ``scheduler``: an address such
    as ``tcp://10.0.0.5:8786``, the path of a scheduler file (``dask scheduler
    --scheduler-file``), or an existing ``distributed.Client``."""

    def __init__(self, scheduler: object) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError(
                "the dask executor needs the distributed package: pip install 'qoslab[dask]'"
            ) from None
        if isinstance(scheduler, Client):
            self.client, self._own_client = scheduler, False
        else:
            if not scheduler:
                raise ExecutorError(
                    "the dask executor needs the scheduler's address, e.g. "
                    "--scheduler tcp://10.0.0.5:8786"
                )
            where = str(scheduler)
            target = {"scheduler_file": where} if Path(where).is_file() else {"address": where}
            try:
                self.client = Client(**target, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as error:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler at {scheduler}: {error}. Check the "
                    "address, or start one with `dask scheduler`"
                ) from None
            self._own_client = True
        self._check_workers()

    def _check_workers(self) -> None:
        try:
            versions = self.client.run(worker_version)
        except Exception as error:  # a worker without qoslab fails to unpickle the call
            raise ExecutorError(
                f"the Dask workers cannot run qoslab ({type(error).__name__}: {error}). "
                f"Install it on every worker: pip install qoslab=={__version__}"
            ) from None
        if not versions:
            raise ExecutorError("the Dask cluster has no worker. Start some with `dask worker`")
        other = {worker: version for worker, version in versions.items() if version != __version__}
        if other:
            worker, version = next(iter(other.items()))
            raise ExecutorError(
                f"worker {worker} has qoslab {version}, this sweep {__version__}: install "
                f"qoslab=={__version__} on every worker"
            )

    def slots(self) -> int:
        """How many runs go at once: the workers' threads."""
        return max(sum(self.client.nthreads().values()), 1)

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        """The outcome of each task, as the runs finish."""
        from distributed import as_completed

        futures = {self.client.submit(run_task, task, pure=False): task for task in tasks}
        try:
            for future in as_completed(futures):
                task = futures[future]
                try:
                    yield future.result()
                except Exception as error:  # the worker died or the cluster went away
                    yield Outcome(task.key, CRASHED, f"{type(error).__name__}: {error}")
        finally:
            self.client.cancel(list(futures))
            if self._own_client:
                self.client.close()
