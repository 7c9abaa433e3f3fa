"""The folder of a sweep: a manifest, one file per run, and the summary.

    DIR/manifest.json         the plan, the runs in grid order, versions, the command line
    DIR/runs/<key>.arrow      a finished run's results, one compact columnar file
                              (``qoslab.runfile``: Arrow IPC, compressed)
    DIR/runs/<key>.error.json a failed run: its status and error message
    DIR/runs.csv              one row per run: its settings, status and error
    DIR/summary/<table>.csv   per table, row and metric: n, mean, SD, 95 % CI, min, max;
                              the per-interval tables (``series``, ``class_series``,
                              ``dq_intervals``) only when asked for, as CSV or as
                              DIR/summary/<table>.parquet
    DIR/.qoslab-written       the ledger of the files the sweeps wrote here
    DIR/.lock                 held by the sweep writing the folder

The folder is written through the guarded writer (``qoslab.output``): no symbolic link in it
is followed (a ``runs``, ``summary`` or ``.lock`` entry that is a link stops the sweep before
any run), every file is written whole through a staging file and a rename, so a sweep killed
at any moment leaves each run's file complete or absent, and a file is replaced or deleted
only when the folder's ledger records it as the sweeps wrote it (in a folder written before
ledgers were kept: a regular file of a sweep's names). Staging files of ended processes are
removed when the folder is next opened. A run's file is named by its key
(``task.run_key``), so a resumed sweep finds the runs it has and does the others; a run file
that no longer reads as a run file is run again when it is the sweep's own, and stops the
sweep with its name otherwise. A folder of the earlier layout, a results document per run
(``runs/<key>.json``, manifest format 1), is refused for reading and, resumed, has its runs
done again in this one (its documents removed as each run is replaced). One sweep at a
time may write a folder: the writer holds an exclusive ``flock`` on ``DIR/.lock``, which the
system releases when the process ends however it ends.

Reading goes through ``qoslab.readback``: every file is opened without following a link and
checked, and whatever is wrong raises its ``ReadError`` naming the file.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from qoslab.experiment.task import DONE, VERDICTS, Outcome
from qoslab.output import Folder, OutputError
from qoslab.output.ledger import NAME as LEDGER
from qoslab.output.staging import is_staging
from qoslab.readback import (
    DAMAGED,
    ReadError,
    exists,
    expect,
    open_folder,
    read_bytes,
    read_json,
)
from qoslab.resultsdoc import schemas
from qoslab.runfile import SUFFIX as RESULT_SUFFIX
from qoslab.runfile import RunFile

MANIFEST = "manifest.json"
RUNS = "runs"
INDEX = "runs.csv"
SUMMARY = "summary"
LOCK = ".lock"
ERROR_SUFFIX = ".error.json"
LEGACY_SUFFIX = ".json"
"""A run's results document in folders of format 1."""

SUMMARY_SUFFIXES = (".csv", ".parquet")

MAX_RUN_BYTES = 1 << 30
"""Largest run file read back."""

OWN_ENTRIES = (MANIFEST, RUNS, INDEX, SUMMARY, LOCK, LEDGER)
"""What a sweep's folder may hold."""

FORMAT = 2
"""Version of the folder's layout, recorded in the manifest: 2 stores runs as run files,
1 (earlier) as results documents."""

KEY = re.compile(r"[0-9a-f]{64}")
"""A run's key: 64 hex digits (``task.run_key``)."""

MAX_FAILURE_BYTES = 1 << 20
"""Largest failure record read back: a status and one error message."""


def _sweep_file(name: str) -> bool:
    """Whether ``name`` (relative to the folder) is named as a sweep's file: what a folder
    written before ledgers were kept may have its sweeps replace or delete."""
    if name in (MANIFEST, INDEX):
        return True
    folder, _, file = name.partition("/")
    if folder == SUMMARY:
        table, dot, suffix = file.rpartition(".")
        return f"{dot}{suffix}" in SUMMARY_SUFFIXES and table in schemas()
    if folder == RUNS:
        key = file.removesuffix(ERROR_SUFFIX).removesuffix(RESULT_SUFFIX)
        return KEY.fullmatch(key.removesuffix(LEGACY_SUFFIX)) is not None
    return False


class Store:
    """A sweep's folder, opened for writing (:meth:`create`) or reading (:meth:`open`)."""

    def __init__(self, directory: Path, descriptor: int, folder: Folder | None = None) -> None:
        self.directory = directory
        self._fd = descriptor
        self._folder = folder
        self._runs_fd: int | None = None
        self._runs: Folder | None = None
        self._summary: Folder | None = None
        self._lock: int | None = None

    @classmethod
    def create(cls, directory: str | os.PathLike[str], *, resume: bool) -> Store:
        """Open ``directory`` to write a sweep into, creating it if needed.

        Without ``resume`` the folder must be new or hold no sweep yet; with it, it may also
        hold an earlier sweep, whose finished runs are kept. Raises ``OutputError`` for a
        file, a link, a folder holding anything but a sweep's files, a folder that cannot be
        written, or a folder another sweep is writing.
        """
        path = Path(directory)
        folder = Folder.open(path, create=True, legacy=_sweep_file)
        try:
            foreign = sorted(
                name for name in folder.names() if name not in OWN_ENTRIES and not is_staging(name)
            )
            if foreign:
                raise OutputError(
                    f"{path}: holds {foreign[0]!r}, which is not part of a sweep. Give a new "
                    "or empty folder for the sweep"
                )
            store = cls(path, folder.fd, folder)
            store._take_lock()
        except BaseException:
            folder.close()
            raise
        try:
            if exists(folder.fd, MANIFEST) and not resume:
                raise OutputError(
                    f"{path}: holds a sweep already. Add --resume to finish it with its runs "
                    "kept, or give another folder (or remove this one to start again)"
                )
            folder.check_room(0, "the sweep")
            store._runs = folder.folder(RUNS)
            store._summary = folder.folder(SUMMARY)
            store._runs_fd = store._runs.fd
            for part in (folder, store._runs, store._summary):
                part.remove_stale(lambda _name: False)  # its files are written whole, by name
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, directory: str | os.PathLike[str]) -> Store:
        """Open the sweep in ``directory`` to read it; ``ReadError`` if it holds none or
        its manifest does not read as one."""
        path = Path(directory)
        descriptor = open_folder(path)
        store = cls(path, descriptor)
        try:
            if not exists(descriptor, MANIFEST):
                raise ReadError(path, f"holds no sweep (no {MANIFEST})", "Give a sweep's folder")
            layout = store.manifest().get("format")
            if layout != FORMAT:
                raise ReadError(
                    path / MANIFEST,
                    f"is a sweep of layout {layout}, which this qoslab (layout {FORMAT}) does "
                    "not read",
                    "Run the same sweep again into this folder with --resume: its runs are "
                    "done again and stored in this layout",
                )
            if exists(descriptor, RUNS):
                store._runs_fd = _open_runs(descriptor, path)
        except BaseException:
            store.close()
            raise
        return store

    def reading(self) -> Store:
        """The same folder opened again for reading, to outlive this writer: closing the
        writer releases the folder, and the reader keeps its own descriptors of it."""
        descriptor = os.dup(self._fd)
        store = Store(self.directory, descriptor)
        try:
            store._runs_fd = _open_runs(descriptor, self.directory)
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        """Release the folder for other sweeps."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
        for part in (self._runs, self._summary, self._folder):
            if part is not None:
                part.close()
        if self._folder is None:
            for descriptor in (self._runs_fd, self._fd):
                if descriptor is not None and descriptor >= 0:
                    os.close(descriptor)
        self._runs_fd = None
        self._fd = -1

    def _take_lock(self) -> None:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            descriptor = os.open(LOCK, flags, 0o644, dir_fd=self._fd)
        except OSError as error:
            raise OutputError(
                f"{self.directory / LOCK}: cannot be opened ({error.strerror or error}); a "
                "sweep's lock must be a plain file of its own: move it away"
            ) from None
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
        """The manifest, as written (checked to hold a plan and runs)."""
        shown = self.directory / MANIFEST
        manifest = read_json(self._fd, MANIFEST, shown)
        check_manifest(manifest, shown)
        return manifest  # type: ignore[return-value]

    def write_manifest(self, manifest: dict) -> None:
        self._writer().write(MANIFEST, _json_bytes(manifest))

    def kept(self, keys: list[str]) -> set[str]:
        """Those of ``keys`` that need not run again: finished, or failed with a verdict
        the simulator would give again. A run file that no longer reads as one is removed
        to be run again when it is the sweep's own; otherwise a ``ReadError`` names it."""
        kept = set()
        runs = self._runs
        assert runs is not None, "open for writing"
        for key in keys:
            name = f"{key}{RESULT_SUFFIX}"
            if exists(runs.fd, name):
                try:
                    result = self.result(key, ())
                    assert result is not None, "the file was there"
                    result.run  # noqa: B018 - reads and checks the header
                except ReadError as error:
                    if not runs.remove(name):
                        raise ReadError(
                            error.path,
                            str(error).removeprefix(f"{error.path}: ").rstrip("."),
                            "It is not a file this sweep wrote, so it is not replaced: move it "
                            "away and resume again to run it once more",
                        ) from None
                    continue
                kept.add(key)
                continue
            failure = self.failure(key, tolerant=True)
            if failure is not None and failure["status"] in VERDICTS:
                kept.add(key)
        return kept

    def save(self, outcome: Outcome, identity: dict) -> None:
        """Record what came of a run: its results, or its failure with ``identity`` (the
        run's variant, settings, seed and replication)."""
        runs = self._runs
        assert runs is not None, "open for writing"
        if outcome.status == DONE:
            assert outcome.data is not None, "a finished run has its file"
            runs.write(f"{outcome.key}{RESULT_SUFFIX}", outcome.data)
            runs.remove(f"{outcome.key}{ERROR_SUFFIX}")
            runs.remove(f"{outcome.key}{LEGACY_SUFFIX}")
        else:
            record = {"status": outcome.status, "error": outcome.text, **identity}
            runs.write(f"{outcome.key}{ERROR_SUFFIX}", _json_bytes(record))

    def result_path(self, key: str) -> Path:
        return self.directory / RUNS / f"{key}{RESULT_SUFFIX}"

    def has_result(self, key: str) -> bool:
        """Whether the run ``key`` has its file (not read: see :meth:`result`)."""
        return self._runs_fd is not None and exists(self._runs_fd, f"{key}{RESULT_SUFFIX}")

    def result(self, key: str, tables: Sequence[str] | None = None) -> RunFile | None:
        """A finished run's file with its tables ``tables`` read (default: all), its header
        checked against the core's schemas; or ``None``."""
        name = f"{key}{RESULT_SUFFIX}"
        if self._runs_fd is None or not exists(self._runs_fd, name):
            return None
        shown = self.result_path(key)
        data = read_bytes(self._runs_fd, name, shown, limit_bytes=MAX_RUN_BYTES)
        return RunFile(data, shown, tables)

    def failure(self, key: str, *, tolerant: bool = False) -> dict | None:
        """A failed run's record, or ``None``. A record that does not read is a
        ``ReadError``, or with ``tolerant`` taken as no record (the run is done again)."""
        name = f"{key}{ERROR_SUFFIX}"
        if self._runs_fd is None or not exists(self._runs_fd, name):
            return None
        shown = self.directory / RUNS / name
        try:
            record = read_json(self._runs_fd, name, shown, limit_bytes=MAX_FAILURE_BYTES)
            expect(isinstance(record, dict), shown, "is not a failure record")
            assert isinstance(record, dict)
            expect(
                isinstance(record.get("status"), str) and isinstance(record.get("error"), str),
                shown,
                "has no status and error",
            )
        except ReadError:
            if tolerant:
                return None
            raise
        return record

    def write_index(self, frame: pd.DataFrame) -> None:
        self._writer().write(INDEX, frame.to_csv(index=False).encode())

    def write_summary(self, files: dict[str, bytes]) -> None:
        """Make ``summary/`` hold ``files`` (by name): an earlier grid's summary file that
        this one has not is removed when it is the sweep's own; any other file stays."""
        summary = self._summary
        assert summary is not None, "open for writing"
        for name, data in files.items():
            summary.write(name, data)
        for name in summary.names():
            if name.endswith(SUMMARY_SUFFIXES) and name not in files:
                summary.remove(name)

    def _writer(self) -> Folder:
        assert self._folder is not None, "open for writing"
        return self._folder


def check_manifest(manifest: object, shown: Path) -> None:
    """Raise a ``ReadError`` unless ``manifest`` has what reading a sweep needs: a plan
    with its varied keys, variants and replications, runs each with a key, and a variant,
    settings and a replication among the plan's, and the scenario's name and qoslab's
    version as text."""
    expect(isinstance(manifest, dict), shown, "is not a sweep's manifest (no JSON object)")
    assert isinstance(manifest, dict)
    plan = manifest.get("plan")
    expect(isinstance(plan, dict), shown, "has no plan")
    assert isinstance(plan, dict)
    vary = plan.get("vary")
    expect(
        isinstance(vary, list)
        and all(
            isinstance(axis, dict)
            and isinstance(axis.get("key"), str)
            and isinstance(axis.get("values"), list)
            for axis in vary
        ),
        shown,
        "plan.vary is not a list of keys with values",
    )
    expect(
        isinstance(plan.get("variants"), list)
        and all(v is None or isinstance(v, str) for v in plan["variants"]),
        shown,
        "plan.variants is not a list of names",
    )
    expect(type(plan.get("replications")) is int, shown, "plan.replications is not a number")
    assert isinstance(vary, list)
    keys = [axis["key"] for axis in vary]
    # The index orders each parameter by the plan's values: a run's value must be one.
    values = {
        axis["key"]: set(axis["values"])
        for axis in vary
        if all(isinstance(v, str) for v in axis["values"])
    }
    runs = manifest.get("runs")
    expect(isinstance(runs, list), shown, "has no list of runs")
    for number, run in enumerate(runs):  # type: ignore[arg-type]
        ok = (
            isinstance(run, dict)
            and isinstance(run.get("key"), str)
            and KEY.fullmatch(run["key"]) is not None
            and "variant" in run
            and (run["variant"] is None or isinstance(run["variant"], str))
            and type(run.get("replication")) is int
            and isinstance(run.get("settings"), list)
            and [
                pair[0] if isinstance(pair, list) and len(pair) == 2 else None
                for pair in run["settings"]
            ]
            == keys
            and all(isinstance(pair[1], str) for pair in run["settings"])
        )
        expect(ok, shown, f"run {number} lacks a key, variant, replication or the plan's settings")
        expect(
            run["variant"] in plan["variants"]
            and 0 <= run["replication"] < plan["replications"]
            and all(pair[1] in values.get(pair[0], {pair[1]}) for pair in run["settings"]),
            shown,
            f"run {number} has a variant, a replication or a setting the plan does not have",
        )
    for field in ("scenario_name", "qoslab_version"):
        expect(isinstance(manifest.get(field), str), shown, f"{field} is missing or not text")


def _open_runs(descriptor: int, path: Path) -> int:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(RUNS, flags, dir_fd=descriptor)
    except OSError:
        raise ReadError(path / RUNS, "is not a folder (a link or a file)", DAMAGED) from None


def _json_bytes(document: dict) -> bytes:
    return (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode()
