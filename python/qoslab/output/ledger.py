"""The record a folder keeps of the files qoslab wrote into it, so that a writer replaces or
deletes only its own files.

The ledger is the file ``.qoslab-written`` at the top of the folder: one JSON line per file
written, ``{"name": ..., "size": ..., "sha256": ...}`` with the file's path relative to the
folder, its size in bytes and the SHA-256 of its contents. A line is appended before the file
is renamed into place, so a file in place always has its line (a line whose rename never
happened names contents no file has, and is harmless). A file is the writer's own when a line
names it with its present size and contents: a file of the same name that somebody else put
there, or edited since, is not, and is neither replaced nor deleted. Contents rather than
inode numbers identify a file, so a folder of documents kept in version control (the studies'
pages) is still known after a fresh clone, with its ledger committed beside it.

Lines that do not parse (the end of a line cut by a crash) are skipped. While a folder is
written its ledger only grows; once the writer is done, the lines of files it wrote again are
dropped but each one's last (:meth:`Ledger.compact`). A folder replaced as a whole starts a
new ledger.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
from io import BufferedReader

from qoslab.output import staging

NAME = ".qoslab-written"
"""The ledger's file name, at the top of the folder it describes."""

MAX_BYTES = 256 << 20
"""Largest ledger read: a line is about 120 bytes, so two million files."""


class Ledger:
    """The ledger of the folder open as descriptor ``folder`` (read when made)."""

    def __init__(self, folder: int) -> None:
        self._folder = folder
        self._known: dict[str, set[tuple[int, str]]] = {}
        self._lines: list[tuple[str, int, str]] = []
        self._noted: dict[str, tuple[int, str]] = {}
        self.existed = False
        """Whether the folder had a ledger when it was opened (a folder written before
        ledgers were kept has none)."""
        try:
            descriptor = os.open(NAME, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
        except FileNotFoundError:
            return
        self.existed = True
        with os.fdopen(descriptor, "rb") as file:
            facts = os.fstat(file.fileno())
            if not stat.S_ISREG(facts.st_mode) or facts.st_size > MAX_BYTES:
                raise OSError(
                    errno.EINVAL, "not a ledger (not a regular file, or larger than 256 MiB)"
                )
            for line in file:
                entry = _parse(line)
                if entry is not None:
                    self._known.setdefault(entry[0], set()).add(entry[1:])
                    self._lines.append(entry)

    def note(self, name: str, size_bytes: int, sha256: str) -> None:
        """Record that the file ``name`` (relative to the folder) will hold ``size_bytes``
        bytes with this SHA-256."""
        line = json.dumps({"name": name, "size": size_bytes, "sha256": sha256}) + "\n"
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
        descriptor = os.open(NAME, flags, 0o644, dir_fd=self._folder)
        try:
            os.write(descriptor, line.encode())
        finally:
            os.close(descriptor)
        self._known.setdefault(name, set()).add((size_bytes, sha256))
        self._lines.append((name, size_bytes, sha256))
        self._noted[name] = (size_bytes, sha256)

    def compact(self) -> None:
        """Drop the lines of files written again since the folder was opened, keeping each
        one's last: called once its writer is done, when every noted file is in place, so
        that a folder written again and again keeps a ledger of its files, not a history.
        The ledger is replaced in one step."""
        if not self._noted:
            return
        kept = [
            line
            for line in dict.fromkeys(self._lines)
            if line[0] not in self._noted or line[1:] == self._noted[line[0]]
        ]
        if len(kept) == len(self._lines):
            return
        text = "".join(
            json.dumps({"name": name, "size": size, "sha256": digest}) + "\n"
            for name, size, digest in kept
        )
        staged = staging.name()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        descriptor = os.open(staged, flags, 0o644, dir_fd=self._folder)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(text.encode())
                file.flush()
                os.fsync(file.fileno())
            os.replace(staged, NAME, src_dir_fd=self._folder, dst_dir_fd=self._folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(staged, dir_fd=self._folder)
            raise
        self._lines = kept
        self._known = {}
        for name, size, digest in kept:
            self._known.setdefault(name, set()).add((size, digest))

    def records(self, name: str) -> bool:
        """Whether a line names the file ``name``."""
        return name in self._known

    def owns(self, folder: int, entry: str, name: str) -> bool:
        """Whether ``entry`` of the folder open as ``folder`` is a regular file this ledger
        records under ``name`` with its present size and contents."""
        recorded = self._known.get(name)
        if not recorded:
            return False
        try:
            descriptor = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        except OSError:
            return False
        with os.fdopen(descriptor, "rb") as file:
            facts = os.fstat(file.fileno())
            if not stat.S_ISREG(facts.st_mode):
                return False
            if all(size != facts.st_size for size, _ in recorded):
                return False
            return (facts.st_size, file_sha256(file)) in recorded


def file_sha256(file: BufferedReader) -> str:
    """The SHA-256 of an open binary file, read from its start."""
    file.seek(0)
    return hashlib.file_digest(file, "sha256").hexdigest()


def _parse(line: bytes) -> tuple[str, int, str] | None:
    try:
        entry = json.loads(line)
        name, size, digest = entry["name"], entry["size"], entry["sha256"]
    except (ValueError, TypeError, KeyError):
        return None
    if isinstance(name, str) and isinstance(size, int) and isinstance(digest, str):
        return name, size, digest
    return None
