"""Fuzz target of the readers of result folders and sweep stores (atheris, libFuzzer).

    python fuzz/readers.py corpus/readers -runs=1000000 -max_len=262144

A run's results folder and a sweep's folder are written once, as qoslab writes them. Each
input then tampers with one entry of one of them — its first byte chooses the entry, its
second what is done to it (its contents replaced by the rest of the input, cut, made a
link, made a folder, removed) — and the folder is read back as a user would: ``qoslab.load``,
every table of the run, the flows as a DataFrame, the trace; the sweep's index, the flows
and series of every run, one run's results. What must hold: the reading succeeds, or
fails with ``qoslab.readback.ReadError`` and a message naming a file of the folder. Any other
exception is a finding, and so is a hang (libFuzzer's ``-timeout``). The entry is put back
after each input, so every input starts from the folders as written.

``--seed DIR`` writes a starting corpus into DIR instead: for every entry, an input that
replaces it with its own contents, so that mutations start from what qoslab writes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["qoslab"]):
    import qoslab
    import qoslab.experiment.store
    import qoslab.experiment.sweep
    import qoslab.load
    import qoslab.resultsdoc
    from qoslab.readback import ReadError
    from qoslab.results import TABLES

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "examples" / "voice-vs-flood.yaml"
SETTINGS = {"run.duration": "1s", "measure": "{series: 500ms}"}

ACTIONS = ("replace", "cut", "link", "folder", "remove")


def _folders(scratch: Path) -> tuple[Path, Path]:
    """The run's folder and the sweep's, written into ``scratch``."""
    run = scratch / "run"
    qoslab.run(SCENARIO, set=SETTINGS, trace=True).write(run)
    sweep = scratch / "sweep"
    qoslab.sweep(
        SCENARIO,
        vary={"interfaces.r1.r2.output": ["fifo", "pq"]},
        set=SETTINGS,
        out=sweep,
        progress=False,
    )
    return run, sweep


def _entries(run: Path, sweep: Path) -> list[Path]:
    """Every file of the two folders, in a fixed order."""
    return sorted(path for folder in (run, sweep) for path in folder.rglob("*") if path.is_file())


def _read(folder: Path) -> None:
    """Read ``folder`` back as a user would."""
    loaded = qoslab.load(folder)
    if isinstance(loaded, qoslab.Results):
        for table in TABLES:
            loaded.rows(table)
        loaded.flows  # noqa: B018 - a DataFrame made
        if loaded.trace_path is not None:
            loaded.trace()
        return
    loaded.index  # noqa: B018
    loaded.runs.flows  # noqa: B018
    loaded.runs.series  # noqa: B018
    done = loaded.index[loaded.index["status"] == "done"]
    if not done.empty:
        first = done.iloc[0]
        loaded.results(
            {key: first[key] for key in loaded.keys}, replication=int(first["replication"])
        )


class Target:
    """The folders, their entries and the bytes of each as written."""

    def __init__(self, scratch: Path) -> None:
        self.run, self.sweep = _folders(scratch)
        self.entries = _entries(self.run, self.sweep)
        self.written = {path: path.read_bytes() for path in self.entries}

    def one(self, data: bytes) -> None:
        if len(data) < 2:
            return
        path = self.entries[data[0] % len(self.entries)]
        action = ACTIONS[data[1] % len(ACTIONS)]
        content = data[2:]
        folder = self.run if path.is_relative_to(self.run) else self.sweep
        try:
            self._tamper(path, action, content)
            try:
                _read(folder)
            except ReadError as error:
                if str(folder) not in str(error):
                    raise AssertionError(
                        f"a ReadError that names no file of {folder}: {error}"
                    ) from error
        finally:
            self._restore(path)

    def _tamper(self, path: Path, action: str, content: bytes) -> None:
        if action == "replace":
            path.write_bytes(content)
        elif action == "cut":
            path.write_bytes(self.written[path][: int.from_bytes(content[:4] or b"\0", "little")])
        elif action == "link":
            path.unlink()
            path.symlink_to("/etc/hostname" if content[:1] != b"0" else path.parent)
        elif action == "folder":
            path.unlink()
            path.mkdir()
        else:
            path.unlink()

    def _restore(self, path: Path) -> None:
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.write_bytes(self.written[path])


def seed(target: Target, corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    for number, path in enumerate(target.entries):
        contents = target.written[path]
        if len(contents) <= 1 << 18:
            (corpus / f"entry-{number:03d}").write_bytes(bytes([number, 0]) + contents)


def main() -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seed", type=Path)
    known, rest = parser.parse_known_args()
    scratch = Path(tempfile.mkdtemp(prefix="qoslab-fuzz-readers-"))
    try:
        target = Target(scratch)
        if known.seed is not None:
            seed(target, known.seed)
            return
        atheris.Setup([sys.argv[0], *rest], target.one)
        atheris.Fuzz()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
