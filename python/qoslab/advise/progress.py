"""The advisor's progress on stderr: the runs done of the estimate made before the first,
the link speed being tried and the best found so far. Drawn only on a terminal: piped or
redirected, the advisor says nothing until its answer."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class AdviceProgress:
    """A bar over about ``estimate`` runs, after the line ``heading``; draws nothing when
    ``shown`` is false."""

    def __init__(self, estimate: int, heading: str, *, shown: bool) -> None:
        self.done = 0
        self.estimate = estimate
        self.console = Console(stderr=True)
        self._fields: dict[str, Any] = {"speed": "the first speed", "best": "none yet"}
        self._bar: Progress | None = None
        if shown:
            self.console.print(heading, markup=False, highlight=False)
            self._bar = Progress(
                TextColumn("advise"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs · trying {task.fields[speed]} · best so far: {task.fields[best]}"),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.add_task("advise", total=estimate, completed=0, **self._fields)
            self._bar.start()

    def _show(self) -> None:
        if self._bar is not None:
            total = max(self.estimate, self.done)
            task = self._bar.task_ids[0]
            self._bar.update(task, total=total, completed=self.done, refresh=True, **self._fields)

    def expect(self, estimate: int) -> None:
        """Estimate again the runs in all."""
        self.estimate = estimate
        self._show()

    def ran(self, runs: int) -> None:
        """Count ``runs`` more runs finished."""
        self.done += runs
        self._show()

    def trying(self, what: str) -> None:
        """Say what is being tried now (a link speed, the overload check)."""
        self._fields["speed"] = what
        self._show()

    def best(self, what: str) -> None:
        """Say what is the best found so far."""
        self._fields["best"] = what
        self._show()

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
