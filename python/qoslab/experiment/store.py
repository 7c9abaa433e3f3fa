"""The folder of a sweep: a manifest, one file per run, and the summary.

    DIR/manifest.json         the plan, the runs in grid order, versions, the command line
    DIR/runs/<key>.json       a finished run's results document (as ``qoslab run`` writes)
    DIR/runs/<key>.error.json a failed run: its status and error message
    DIR/runs.csv              one row per run: its settings, status and error
    DIR/summary/<table>.csv   per table, row and metric: n, mean, SD, 95 % CI, min, max

Every file is written whole through a staging file and a rename (``output.replace_file``),
so a sweep killed at any moment leaves each run's file complete or absent; staging files of
ended processes are removed when the folder is next opened. A run's file is named by its key
(``task.run_key``), so a resumed sweep finds the runs it has and does the others. One sweep at
a time may write a folder: the writer holds an exclusive ``flock`` on ``DIR/.lock``, which
the system releases when the process ends however it ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

import pandas as pd

from qoslab.experiment.task import DONE, VERDICTS, Outcome
from qoslab.output import OutputError, remove_stale_files, replace_file

MANIFEST = "manifest.json"
RUNS = "runs"
INDEX = "runs.csv"
SUMMARY = "summary"
LOCK = ".lock"
RESULT_SUFFIX = ".json"
ERROR_SUFFIX = ".error.json"

OWN_ENTRIES = (MANIFEST, RUNS, INDEX, SUMMARY, LOCK)
"""What a sweep's folder may hold."""

FORMAT = 1
"""Version of the folder's layout, recorded in the manifest."""


class Store:
    """A sweep's folder, opened for writing (:meth:`create`) or reading (:meth:`open`)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock: int | None = None

    @classmethod
    def create(cls, directory: str | os.PathLike[str], *, resume: bool) -> Store:
        """Open ``directory`` to write a sweep into, creating it if needed.

        Without ``resume`` the folder must be new or hold no sweep yet; with it, it may also
        hold an earlier sweep, whose finished runs are kept. Raises ``OutputError`` for a
        file, a folder holding anything but a sweep's files, or a folder another sweep is
        writing.
        """
        path = Path(directory)
        if path.exists() and not path.is_dir():
            raise OutputError(f"{path}: is a file, not a folder. Give a folder for the sweep")
        if path.is_dir():
            foreign = sorted({entry.name for entry in path.iterdir()} - set(OWN_ENTRIES))
            if foreign:
                raise OutputError(
                    f"{path}: holds {foreign[0]!r}, which is not part of a sweep. Give a new "
                    "or empty folder for the sweep"
                )
        path.mkdir(parents=True, exist_ok=True)
        store = cls(path)
        store._take_lock()
        try:
            if (path / MANIFEST).exists() and not resume:
                raise OutputError(
                    f"{path}: holds a sweep already. Add --resume to finish it with its runs "
                    "kept, or give another folder (or remove this one to start again)"
                )
            for folder in (path / RUNS, path / SUMMARY):
                folder.mkdir(exist_ok=True)
            for folder in (path, path / RUNS, path / SUMMARY):
                remove_stale_files(folder)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, directory: str | os.PathLike[str]) -> Store:
        """Open the sweep in ``directory`` to read it; ``OutputError`` if there is none."""
        path = Path(directory)
        if not (path / MANIFEST).is_file():
            raise OutputError(f"{path}: holds no sweep (no {MANIFEST}). Give a sweep's folder")
        return cls(path)

    def close(self) -> None:
        """Release the folder for other sweeps."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _take_lock(self) -> None:
        descriptor = os.open(self.directory / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise OutputError(
                f"{self.directory}: another sweep is writing this folder. Wait for it to end "
                "or give another folder"
            ) from None
        self._lock = descriptor

    def manifest(self) -> dict:
        """The manifest, as written."""
        return json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))

    def write_manifest(self, manifest: dict) -> None:
        replace_file(self.directory / MANIFEST, _json_bytes(manifest))

    def kept(self, keys: list[str]) -> set[str]:
        """Those of ``keys`` that need not run again: finished, or failed with a verdict
        the simulator would give again."""
        kept = set()
        for key in keys:
            if self.result_path(key).is_file():
                kept.add(key)
                continue
            failure = self.failure(key)
            if failure is not None and failure["status"] in VERDICTS:
                kept.add(key)
        return kept

    def save(self, outcome: Outcome, identity: dict) -> None:
        """Record what came of a run: its results, or its failure with ``identity`` (the
        run's variant, settings, seed and replication)."""
        error_path = self.directory / RUNS / f"{outcome.key}{ERROR_SUFFIX}"
        if outcome.status == DONE:
            replace_file(self.result_path(outcome.key), outcome.text.encode())
            error_path.unlink(missing_ok=True)
        else:
            record = {"status": outcome.status, "error": outcome.text, **identity}
            replace_file(error_path, _json_bytes(record))

    def result_path(self, key: str) -> Path:
        return self.directory / RUNS / f"{key}{RESULT_SUFFIX}"

    def result_text(self, key: str) -> str | None:
        """A finished run's results document, or ``None``."""
        with contextlib.suppress(FileNotFoundError):
            return self.result_path(key).read_text(encoding="utf-8")
        return None

    def failure(self, key: str) -> dict | None:
        """A failed run's record, or ``None``."""
        path = self.directory / RUNS / f"{key}{ERROR_SUFFIX}"
        with contextlib.suppress(FileNotFoundError):
            return json.loads(path.read_text(encoding="utf-8"))
        return None

    def write_index(self, frame: pd.DataFrame) -> None:
        replace_file(self.directory / INDEX, frame.to_csv(index=False).encode())

    def write_summary(self, tables: dict[str, pd.DataFrame]) -> None:
        """Make ``summary/`` hold one CSV file per table of ``tables`` and nothing else (a
        table an earlier grid had but this one has not is removed)."""
        folder = self.directory / SUMMARY
        for table, frame in tables.items():
            replace_file(folder / f"{table}.csv", frame.to_csv(index=False).encode())
        for path in folder.glob("*.csv"):
            if path.stem not in tables:
                path.unlink()


def _json_bytes(document: dict) -> bytes:
    return (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode()
