"""Result folders: a safe default name, and replacing a whole folder in one step.

A run's files are written into a fresh staging folder beside the destination, each file
flushed to disk, and the staging folder then takes the destination's place in one rename.
Where the destination already exists, Linux's ``renameat2(2)`` with ``RENAME_EXCHANGE``
swaps the two folders atomically, so a reader, or a run killed at any moment, sees either
the old complete folder or the new complete one. Elsewhere (no ``renameat2``, or a file
system without the exchange) the old folder is first renamed aside, so a run killed between
the two renames leaves no folder at the destination. The staging folder, which afterwards
holds the old files, is then emptied and removed; staging folders left behind by killed
runs are removed by the next write into the same parent folder.

A destination is only replaced when it holds nothing but files a run writes: a folder with
other entries is refused rather than swapped away, and only files of a run's names are ever
deleted.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import secrets
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

STAGING_PREFIX = ".qoslab-partial-"
"""Start of the staging folders' names: ``.qoslab-partial-<pid>-<random hex>``."""

MAX_NAME_CHARS = 60
"""Longest default folder name, in characters: 60 four-byte characters stay within the
255-byte name limit of common file systems."""

FALLBACK_NAME = "scenario"
"""The default folder name of a scenario whose name keeps no usable character."""

NAME_PUNCTUATION = "-_."
"""Characters besides letters and digits that a default folder name keeps."""

AT_FDCWD = -100
RENAME_EXCHANGE = 2
"""``renameat2`` arguments, from ``<fcntl.h>`` and ``<linux/fs.h>``."""

NO_EXCHANGE = {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP}
"""``renameat2`` errors meaning the kernel or file system cannot exchange."""


class OutputError(ValueError):
    """A destination that qoslab refuses to write results into."""


def folder_name(name: str) -> str:
    """A single safe folder name for a scenario called ``name``.

    Letters, digits, ``-``, ``_`` and ``.`` are kept; every run of other characters
    (separators, spaces, control characters) becomes one ``-``; leading and trailing ``.``
    and ``-`` are dropped (no hidden folder, no ``..``, nothing that reads as an option); the
    name is cut to :data:`MAX_NAME_CHARS` characters; an empty result is ``scenario``.
    """
    kept = []
    for char in name:
        if char.isalnum() or char in NAME_PUNCTUATION:
            kept.append(char)
        elif not kept or kept[-1] != "-":
            kept.append("-")
    safe = "".join(kept).strip(".-")[:MAX_NAME_CHARS].rstrip(".-")
    return safe or FALLBACK_NAME


def check_folder(directory: str | os.PathLike[str], names: Iterable[str]) -> Path:
    """The destination ``directory`` as a real path, if a folder of the files ``names`` may
    replace it; raise :class:`OutputError` otherwise."""
    given = Path(directory)
    target = given.resolve()
    cwd = Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise OutputError(
            f"{given}: is the current folder or holds it. Results replace their folder as a "
            "whole: give a folder of their own, e.g. results/NAME"
        )
    if not target.exists():
        existing = next(parent for parent in target.parents if parent.exists())
        if not existing.is_dir():
            raise OutputError(
                f"{given}: {existing} is a file, not a folder. Give a path of folders"
            )
        return target
    if not target.is_dir():
        raise OutputError(f"{given}: is a file, not a folder. Give a folder for the results")
    foreign = _foreign_entry(target, names)
    if foreign is not None:
        raise OutputError(
            f"{given}: holds {foreign!r}, which is not a result file. Results replace their "
            "folder as a whole and never remove other files: give a new or empty folder, or "
            "one holding only earlier results"
        )
    return target


def replace_folder(
    directory: str | os.PathLike[str],
    files: Mapping[str, Callable[[Path], None]],
    *,
    known: Iterable[str] = (),
) -> list[Path]:
    """Make ``directory`` hold exactly ``files`` (name → function writing that file), in one
    step, in the order given; return the paths of the files at their destination. The
    folder replaced may also hold files named in ``known`` (those a write may or may not
    produce), which go with it."""
    names = {*files, *known}
    target = check_folder(directory, names)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target.parent, names)
    staging = _staging(target.parent)
    old: Path | None = None
    try:
        for name, write in files.items():
            write(staging / name)
            _sync_file(staging / name)
        _sync_folder(staging)
        check_folder(directory, names)
        old = _swap_in(staging, target)
        _sync_folder(target.parent)
    finally:
        for leftover in (staging, old):
            if leftover is not None:
                _remove(leftover, names)
    return [target / name for name in files]


def replace_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold ``data`` in one step: the data is written to a staging file beside
    it (named like a staging folder), flushed to disk and renamed over ``path``, so a reader
    or a process killed at any moment sees the old file or the new one, never a part."""
    while True:
        staging = path.with_name(f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}")
        try:
            descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        break
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        staging.replace(path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


def remove_stale_files(folder: Path) -> None:
    """Remove the staging files in ``folder`` left by :func:`replace_file` in processes that
    have ended."""
    for path in _stale(folder, folders=False):
        path.unlink(missing_ok=True)


def _staging(parent: Path) -> Path:
    """A new, empty staging folder in ``parent``, named after this process."""
    while True:
        path = parent / f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path


def _swap_in(staging: Path, target: Path) -> Path | None:
    """Put ``staging`` in the place of ``target``; return where the old folder went."""
    if not target.exists():
        staging.rename(target)
        return None
    if _exchange(staging, target):
        return staging
    aside = _staging(target.parent)
    target.rename(aside)
    staging.rename(target)
    return aside


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders atomically with ``renameat2``; False where that is unavailable."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    if renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE):
        code = ctypes.get_errno()
        if code in NO_EXCHANGE:
            return False
        raise OSError(code, os.strerror(code), os.fspath(second))
    return True


def _sync_file(path: Path) -> None:
    """Write a file's data through to the disk."""
    _sync(path, os.O_RDWR)


def _sync_folder(path: Path) -> None:
    """Write a folder's entries through to the disk, where the system allows it."""
    with contextlib.suppress(OSError):
        _sync(path, os.O_RDONLY)


def _sync(path: Path, flags: int) -> None:
    descriptor = os.open(path, flags)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _remove(folder: Path, names: Iterable[str]) -> None:
    """Delete the files ``names`` in ``folder``, then the folder if that emptied it."""
    with contextlib.suppress(OSError):
        for name in names:
            (folder / name).unlink(missing_ok=True)
        folder.rmdir()


def _remove_stale(parent: Path, names: Iterable[str]) -> None:
    """Remove the staging folders in ``parent`` whose process has ended (see
    :func:`_remove`)."""
    for folder in _stale(parent, folders=True):
        _remove(folder, names)


def _stale(parent: Path, *, folders: bool) -> list[Path]:
    """The staging folders (or, with ``folders`` false, files) in ``parent`` whose process
    has ended; none where processes cannot be asked about (not POSIX)."""
    if os.name != "posix":
        return []
    with os.scandir(parent) as entries:
        return [
            Path(entry.path)
            for entry in entries
            if (entry.is_dir if folders else entry.is_file)(follow_symlinks=False)
            and _ended(_staging_pid(entry.name))
        ]


def _foreign_entry(folder: Path, names: Iterable[str]) -> str | None:
    """The name of an entry of ``folder`` that is not a regular file named in ``names``."""
    allowed = set(names)
    with os.scandir(folder) as entries:
        for entry in entries:
            if not (entry.name in allowed and entry.is_file(follow_symlinks=False)):
                return entry.name
    return None


def _staging_pid(name: str) -> int | None:
    """The process id in a staging folder's name, or None for any other name."""
    if not name.startswith(STAGING_PREFIX):
        return None
    pid, _, token = name.removeprefix(STAGING_PREFIX).partition("-")
    return int(pid) if pid.isdigit() and token else None


def _ended(pid: int | None) -> bool:
    """Whether process ``pid`` has ended (signal 0 asks without sending anything)."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
