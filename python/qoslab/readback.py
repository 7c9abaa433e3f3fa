"""Reading back what qoslab wrote — a run's results folder, a sweep's store — and the files
that point at a cluster, with one error for everything that can be wrong with them.

A results folder or store may have been edited, truncated, damaged on disk or put together
by someone else: every file is opened from its folder's descriptor without following a
symbolic link (so a folder cannot carry another file of the machine into a report), must be
a regular file within a size limit, UTF-8 and, for JSON, well formed and of the expected
shape. Whatever is wrong raises :class:`ReadError`, whose message names the file, what is
wrong with it and what to do; the command line prints it and exits with status 2.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

MIB = 1 << 20

MAX_JSON_BYTES = 1 << 30
"""Largest JSON document read back (1 GiB: a results document with per-interval series of
thousands of flows is a few hundred megabytes)."""


class ReadError(ValueError):
    """A file or folder qoslab reads back that is missing, of the wrong kind, too large, not
    UTF-8 or malformed. ``path`` is the file; the message names it and the fix."""

    def __init__(self, path: str | os.PathLike[str], problem: str, fix: str) -> None:
        self.path = Path(path)
        super().__init__(f"{self.path}: {problem}. {fix}")


DAMAGED = "The folder is damaged or not one qoslab wrote: write it again"
"""The fix for a file of a folder qoslab wrote that no longer reads as written."""


def open_folder(path: str | os.PathLike[str]) -> int:
    """The folder at ``path`` as a descriptor (the caller closes it); not through a link at
    its last component."""
    given = Path(path)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(given, flags)
    except FileNotFoundError:
        raise ReadError(given, "no such folder", "Give the folder a run or a sweep wrote") from None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            if given.is_symlink():
                raise ReadError(
                    given, "is a symbolic link", "Give the folder itself, not a link to it"
                ) from None
            raise ReadError(given, "is a file, not a folder", "Give a results folder") from None
        raise ReadError(
            given, f"cannot be read: {error.strerror or error}", "Check its permissions"
        ) from None


def exists(folder: int, name: str) -> bool:
    """Whether the folder open as ``folder`` has an entry ``name`` (of any kind)."""
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def read_bytes(folder: int, name: str, shown: Path, *, limit_bytes: int) -> bytes:
    """The contents of the regular file ``name`` of the folder open as ``folder`` (``shown``
    is its path, for messages)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(name, flags, dir_fd=folder)
    except FileNotFoundError:
        raise ReadError(shown, "is missing", DAMAGED) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ReadError(
                shown, "is a symbolic link", "qoslab reads only the files a folder holds itself"
            ) from None
        raise ReadError(
            shown, f"cannot be read: {error.strerror or error}", "Check its permissions"
        ) from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise ReadError(shown, f"is {kind}", DAMAGED)
    with os.fdopen(descriptor, "rb") as file:
        try:
            data = file.read(limit_bytes + 1)
        except OSError as error:
            raise ReadError(
                shown, f"cannot be read: {error.strerror or error}", "Check the disk"
            ) from None
    if len(data) > limit_bytes:
        raise ReadError(shown, f"is larger than {limit_bytes / MIB:g} MiB", DAMAGED)
    return data


def read_text(folder: int, name: str, shown: Path, *, limit_bytes: int = MAX_JSON_BYTES) -> str:
    """The UTF-8 text of the regular file ``name`` of the folder open as ``folder``."""
    data = read_bytes(folder, name, shown, limit_bytes=limit_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ReadError(
            shown, f"is not UTF-8 text (byte {error.start}, line {line})", DAMAGED
        ) from None


def parse_json(text: str, shown: Path, *, fix: str = DAMAGED) -> object:
    """The JSON document ``text`` of the file ``shown``; ``fix`` says what to do if it is
    not one."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ReadError(
            shown,
            f"is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})",
            fix,
        ) from None
    except RecursionError:
        raise ReadError(shown, "is JSON nested too deeply", fix) from None


def read_json(
    folder: int, name: str, shown: Path, *, limit_bytes: int = MAX_JSON_BYTES, fix: str = DAMAGED
) -> object:
    """The JSON document in the regular file ``name`` of the folder open as ``folder``."""
    return parse_json(read_text(folder, name, shown, limit_bytes=limit_bytes), shown, fix=fix)


def expect(condition: bool, shown: Path, problem: str) -> None:
    """Raise a :class:`ReadError` saying ``problem`` of ``shown`` unless ``condition``."""
    if not condition:
        raise ReadError(shown, problem, DAMAGED)
