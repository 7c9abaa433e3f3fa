"""Running a sweep's tasks on an existing Dask cluster, through ``distributed``'s own
scheduler.

Each task is submitted as a call of :func:`run_on_worker`, which the workers import from
their own ``qoslab`` installation; the task carries the scenario's text, so only files the
scenario names (IOS configurations, traces) must be reachable by the workers, at the same
absolute path.

**Versions.** A worker of another qoslab version would give other results under this
version's keys. Every worker is asked for its version when the sweep starts, and every run
checks it again on the worker that takes it, before it starts — so a worker that joins
later is checked too. A run refused for its worker's version stops the sweep with the
worker named; a worker whose qoslab is too old to know :func:`run_on_worker` fails to load
the call, which stops the sweep the same way. Nothing a refused worker computes is stored.

**Workers gone.** When the cluster has had no worker for :data:`NO_WORKER_S` seconds while
runs remain, the sweep stops and says so (the runs done are kept; ``--resume`` does the
rest), instead of waiting for workers that may never come.

**The scheduler** is an address (``tcp://HOST:PORT``; ``tls://`` with the TLS settings of
Dask's configuration), a scheduler file (``dask scheduler --scheduler-file``), or an
existing ``distributed.Client``; anything else is refused with the reason, a scheduler file
that does not read as one with a ``ReadError`` naming it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from qoslab._core import __version__
from qoslab.experiment.task import CRASHED, Outcome, Task, run_task
from qoslab.readback import ReadError, open_folder, read_json

CONNECT_TIMEOUT_S = 10
"""How long to wait for the scheduler to answer."""

NO_WORKER_S = 30.0
"""How long a sweep waits with runs left and no worker before it stops."""

POLL_S = 1.0
"""How often a waiting sweep looks at the cluster's workers."""

SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")
"""Address schemes ``distributed`` connects to."""

MAX_SCHEDULER_FILE_BYTES = 1 << 20
"""Largest scheduler file read (a scheduler writes a few hundred bytes)."""

SCHEDULER_FILE_FIX = "Give the file `dask scheduler --scheduler-file` writes"

VERSION_REFUSED = "version_refused"
"""The status of a run a worker refused because its qoslab version is not the sweep's."""


class ExecutorError(ValueError):
    """A cluster that cannot run the sweep: unreachable, workers unfit, or gone."""


def worker_version() -> str:
    """The qoslab version of the process it runs in (asked of every worker)."""
    return __version__


def run_on_worker(task: Task, version: str) -> Outcome:
    """Do ``task`` on this worker if its qoslab is ``version``, the sweep's; otherwise
    refuse it without running, naming the worker."""
    if __version__ != version:
        return Outcome(task.key, VERSION_REFUSED, f"{_worker_address()} has qoslab {__version__}")
    return run_task(task)


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return "a worker"


class DaskExecutor:
    """Runs tasks on the Dask cluster whose scheduler is at ``scheduler`` (see the module's
    description)."""

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
            target = _target(scheduler)
            try:
                self.client = Client(**target, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError, ValueError, TypeError, KeyError) as error:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler at {scheduler}: "
                    f"{type(error).__name__}: {error}. Check the address, or start one with "
                    "`dask scheduler`"
                ) from None
            self._own_client = True
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._own_client:
            self.client.close()

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
            raise ExecutorError(_version_message(f"worker {worker} has qoslab {version}"))

    def slots(self) -> int:
        """How many runs go at once: the workers' threads."""
        return max(sum(self.client.nthreads().values()), 1)

    def run(self, tasks: Sequence[Task]) -> Iterator[Outcome]:
        """The outcome of each task, as the runs finish. Raises :class:`ExecutorError` when
        a worker refuses a run for its version, or when the cluster has had no worker for
        :data:`NO_WORKER_S` seconds."""
        from distributed import wait

        futures = {
            self.client.submit(run_on_worker, task, __version__, pure=False): task for task in tasks
        }
        pending = set(futures)
        alone_since: float | None = None
        try:
            while pending:
                try:
                    done, pending = wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                for future in done:
                    yield self._outcome(future, futures[future])
                if done or self.client.nthreads():
                    alone_since = None
                    continue
                alone_since = alone_since or time.monotonic()
                if time.monotonic() - alone_since >= NO_WORKER_S:
                    raise ExecutorError(
                        f"the Dask cluster has had no worker for {NO_WORKER_S:g} s with "
                        f"{len(pending)} runs left: start workers (`dask worker`) and resume "
                        "the sweep (--resume keeps the runs done)"
                    )
        finally:
            self.client.cancel(list(futures))
            self.close()

    def _outcome(self, future: object, task: Task) -> Outcome:
        try:
            outcome = future.result()  # type: ignore[attr-defined]
        except (AttributeError, ImportError) as error:
            # The worker's qoslab cannot load run_on_worker: an older installation.
            raise ExecutorError(
                _version_message(f"a worker cannot load the run ({type(error).__name__}: {error})")
            ) from None
        except Exception as error:  # the worker died or the cluster went away
            return Outcome(task.key, CRASHED, f"{type(error).__name__}: {error}")
        if outcome.status == VERSION_REFUSED:
            raise ExecutorError(_version_message(outcome.text))
        return outcome


def _version_message(what: str) -> str:
    return (
        f"{what}, this sweep {__version__}: its runs would be stored as this version's. "
        f"Install qoslab=={__version__} on every worker, then resume the sweep"
    )


def _target(scheduler: object) -> dict[str, str]:
    """The ``Client`` arguments for ``scheduler``: an address, or a scheduler file checked
    to be one."""
    if not scheduler or not isinstance(scheduler, str | Path):
        raise ExecutorError(
            "the dask executor needs the scheduler's address, e.g. "
            "--scheduler tcp://10.0.0.5:8786, or the path of its scheduler file"
        )
    where = str(scheduler)
    if where.startswith(SCHEMES):
        return {"address": where}
    path = Path(where)
    if not path.exists():
        raise ExecutorError(
            f"{where}: neither an address (tcp://HOST:PORT) nor an existing scheduler file"
        )
    folder = open_folder(path.parent)
    try:
        document = read_json(
            folder, path.name, path, limit_bytes=MAX_SCHEDULER_FILE_BYTES, fix=SCHEDULER_FILE_FIX
        )
    finally:
        os.close(folder)
    address = document.get("address") if isinstance(document, dict) else None
    if not isinstance(address, str) or not address.startswith(SCHEMES):
        raise ReadError(
            path, "is not a scheduler file: it holds no scheduler address", SCHEDULER_FILE_FIX
        )
    return {"scheduler_file": where}
