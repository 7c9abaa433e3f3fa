"""The run files of a sweep given no folder, kept out of memory.

A sweep without ``out`` (the default of ``qoslab.sweep`` and of ``qoslab reproduce``) holding
every run's file in memory would grow with the number of runs: the ad-hoc study's 6,240
runs of about 110 kB each take 700 MB. The files go to a private folder in the temporary
folder (readable by this user only, named as a staging folder of this process:
``qoslab.output.staging``) and are read back when a table is asked for; the operating
system's page cache keeps the recent ones in memory while memory is free. The folder and the
files written there are removed when the sweep is no longer referenced, or when the
interpreter exits. A process killed before that (SIGKILL) leaves them: the next sweep without
a folder removes the run files of such folders whose process has ended, and the folders
emptied that way (``staging.remove_stale``); any other file stays.
"""

from __future__ import annotations

import contextlib
import tempfile
import weakref
from pathlib import Path

from qoslab.experiment.store import KEY
from qoslab.output import staging
from qoslab.output.errors import OutputError
from qoslab.output.folder import Folder, refused
from qoslab.runfile import SUFFIX


class Spill:
    """Run files by key, each written once to a private temporary folder."""

    def __init__(self) -> None:
        temporary = Path(tempfile.gettempdir())
        try:
            with Folder.open(temporary, create=False, ledger=False) as parent:
                parent.remove_stale(_is_run_file)
                entry = staging.make_folder(parent.fd, 0o700)
        except (OSError, OutputError) as error:
            raise _refused(temporary, error) from None
        self.folder = temporary / entry
        self._keys: set[str] = set()
        weakref.finalize(self, _remove, self.folder, self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def put(self, key: str, data: bytes) -> None:
        """Keeps ``data``, the file of the run ``key`` (written once per key)."""
        assert key not in self._keys, f"run {key} kept twice"
        self._keys.add(key)  # first: a file left half written is removed with the others
        try:
            with self._path(key).open("xb") as file:
                file.write(data)
        except OSError as error:
            raise _refused(self.folder, error) from None

    def get(self, key: str) -> bytes | None:
        """The file of the run ``key``, or ``None`` when it has none."""
        if key not in self._keys:
            return None
        return self._path(key).read_bytes()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}{SUFFIX}"


def _is_run_file(name: str) -> bool:
    """Whether ``name`` is the name a run file is given here."""
    return name.endswith(SUFFIX) and KEY.fullmatch(name.removesuffix(SUFFIX)) is not None


def _refused(folder: Path, error: OSError | OutputError) -> OutputError:
    """The sweep's runs could not be kept in ``folder``: said with the way out."""
    message = str(refused(folder, error)) if isinstance(error, OSError) else str(error)
    return OutputError(
        f"{message} (a sweep without a folder keeps its runs there: set TMPDIR to another "
        "folder, or give the sweep one of its own: out= in Python, --runs with qoslab "
        "reproduce)"
    )


def _remove(folder: Path, keys: set[str]) -> None:
    """Removes the files ``keys`` written to ``folder``, then the folder if nothing else is
    in it."""
    for key in keys:
        with contextlib.suppress(FileNotFoundError):
            (folder / f"{key}{SUFFIX}").unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
