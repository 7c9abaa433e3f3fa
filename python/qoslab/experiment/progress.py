"""The progress bar of a sweep, on stderr: runs done of the total, running, failed, and the
time left at the pace so far."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class SweepProgress:
    """A bar over ``total`` runs of which ``done`` are already finished; ``slots`` runs go
    at once. Draws nothing when ``shown`` is false."""

    def __init__(self, total: int, done: int, slots: int, *, shown: bool) -> None:
        self.total = total
        self.done = done
        self.failed = 0
        self.slots = slots
        self.console = Console(stderr=True)
        self._bar: Progress | None = None
        if shown:
            self._bar = Progress(
                TextColumn("sweep"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs · {task.fields[running]} running · {task.fields[failed]} failed"),
                TimeElapsedColumn(),
                TextColumn("elapsed ·"),
                TimeRemainingColumn(),
                TextColumn("left"),
                console=self.console,
                transient=True,
            )
            self._bar.add_task("sweep", total=total, completed=done, **self._fields())
            self._bar.start()

    def _fields(self) -> dict[str, Any]:
        return {"running": min(self.slots, self.total - self.done), "failed": self.failed}

    def advance(self, *, failed: bool) -> None:
        """Count one run finished (``failed`` if it failed)."""
        self.done += 1
        self.failed += failed
        if self._bar is not None:
            self._bar.update(self._bar.task_ids[0], completed=self.done, **self._fields())

    def say(self, message: str) -> None:
        """Print a line above the bar (or alone, when there is no bar)."""
        self.console.print(message, markup=False, highlight=False)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
