"""Staging entries: the names a writer gives the files and folders it is still writing, and
the removal of those left by processes that ended.

A staging entry is named ``.qoslab-partial-<pid>-<random hex>``: hidden, never a name a
result takes, and carrying the process that made it. A process killed while writing (even by
SIGKILL, which it cannot see) leaves its staging entries behind; the next writer into the same
folder removes those whose process has ended. A live process's entries, entries of other
names and what a staging folder holds besides the files a writer makes are never touched.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable

PREFIX = ".qoslab-partial-"
"""Start of every staging entry's name."""


def name() -> str:
    """A new staging name of this process."""
    return f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"


def make_folder(parent: int, mode: int) -> str:
    """Make a new staging folder of this process in the folder open as ``parent``, with
    ``mode``; return its name. Raises the ``OSError`` of a folder that cannot be written."""
    while True:
        entry = name()
        try:
            os.mkdir(entry, mode, dir_fd=parent)
        except FileExistsError:
            continue
        return entry


def names(folder: int) -> list[str]:
    """The names of the entries of the folder open as descriptor ``folder``."""
    with os.scandir(folder) as entries:
        return [entry.name for entry in entries]


def is_staging(entry: str) -> bool:
    """Whether ``entry`` is named as a staging entry."""
    return _pid(entry) is not None


def remove_stale(folder: int, removable: Callable[[str], bool]) -> None:
    """Remove, in the folder open as descriptor ``folder``, the staging files and folders of
    processes that have ended. A staging folder is emptied of the regular files named in
    ``removable`` accepts (the names its writer gives) and of staging entries, then removed if that
    emptied it; what else it holds stays, and so does the folder."""
    if os.name != "posix":
        return
    for entry in _stale(folder):
        try:
            mode = os.stat(entry, dir_fd=folder, follow_symlinks=False).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISREG(mode):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry, dir_fd=folder)
        elif stat.S_ISDIR(mode):
            _empty_and_remove(folder, entry, removable)


def _empty_and_remove(parent: int, entry: str, removable: Callable[[str], bool]) -> None:
    """Delete in the folder ``entry`` of ``parent`` the regular files named in
    ``removable`` and the staging entries (a staging folder emptied the same way), then the
    folder if that emptied it."""
    try:
        inner = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    except OSError:
        return
    try:
        for child in names(inner):
            if not removable(child) and not is_staging(child):
                continue
            with contextlib.suppress(OSError):
                mode = os.stat(child, dir_fd=inner, follow_symlinks=False).st_mode
                if stat.S_ISREG(mode):
                    os.unlink(child, dir_fd=inner)
                elif stat.S_ISDIR(mode) and is_staging(child):
                    _empty_and_remove(inner, child, removable)
    finally:
        os.close(inner)
    with contextlib.suppress(OSError):
        os.rmdir(entry, dir_fd=parent)


def _stale(folder: int) -> list[str]:
    """The staging entries of ended processes in the folder open as ``folder``."""
    return [entry for entry in names(folder) if _ended(_pid(entry))]


def _pid(entry: str) -> int | None:
    """The process id in a staging entry's name, or None for any other name."""
    if not entry.startswith(PREFIX):
        return None
    pid, _, token = entry.removeprefix(PREFIX).partition("-")
    return int(pid) if pid.isdigit() and token else None


def _ended(pid: int | None) -> bool:
    """Whether process ``pid`` has ended (signal 0 asks without sending anything)."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False
