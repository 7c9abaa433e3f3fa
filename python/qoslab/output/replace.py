"""A folder replaced as a whole, in one step: a run's results, an advice, a packet capture.

The new files are written into a staging folder beside the destination, each flushed to disk
and recorded in the staging folder's own ledger; the staging folder then takes the
destination's place in one rename. Where the destination exists, Linux's ``renameat2(2)`` with
``RENAME_EXCHANGE`` swaps the two folders atomically, so a reader, or a process killed at any
moment, sees either the old complete folder or the new complete one. Elsewhere (no
``renameat2``, or a file system without the exchange) the old folder is first renamed aside, so
a process killed between the two renames leaves no folder at the destination. The old folder
is then emptied of its writer's files and removed; staging folders left behind by killed
processes are removed by the next write into the same parent folder.

A destination is replaced only when it is a folder (not a link to one) holding nothing but
its writer's files (``folder.Folder.owns``): a folder with other entries is refused rather
than swapped away. All renames are made relative to the parent folder's descriptor.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from qoslab.output import staging
from qoslab.output.errors import OutputError
from qoslab.output.folder import Folder, foreign_message, refused
from qoslab.output.ledger import NAME as LEDGER_NAME

RENAME_EXCHANGE = 2
"""``renameat2``'s flag, from ``<linux/fs.h>``."""

NO_EXCHANGE = {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP}
"""``renameat2`` errors meaning the kernel or file system cannot exchange."""

SWAP_ATTEMPTS = 8
"""How many times a folder is swapped in while other writers race for its place."""

ROOM_MARGIN_BYTES = 16 << 20
"""Free space asked for beyond a write's own estimate: what the file system and the ledger
need, and the files too small to estimate."""


def check_folder(
    directory: str | os.PathLike[str],
    names: Iterable[str] | Callable[[str], bool],
    *,
    size_bytes: int = 0,
) -> Path:
    """Refuse, with an :class:`OutputError`, a destination that a folder of the files
    ``names`` (or of the names it accepts) could not replace, or whose disk cannot take
    ``size_bytes`` more; return it as given. Called before a long piece of work, so that
    nothing is lost at its end."""
    given = Path(directory)
    _refuse_current_folder(given)
    with Folder.open(given.parent, create=True, ledger=False) as parent:
        _check_destination(parent, given, _accepting(names))
        parent.check_room(size_bytes + ROOM_MARGIN_BYTES, f"{given}")
    return given


class NewFolder:
    """A folder being made to take the place of ``directory`` as a whole (see the module's
    description): write into :attr:`folder`, or let another writer (the simulator's packet
    capture) write into :meth:`path`, then :meth:`commit`; leaving a ``with`` block on an
    exception, or :meth:`abandon`, removes it. ``names`` are the names its writer gives,
    taken as the writer's in a folder written before ledgers were kept."""

    def __init__(
        self, directory: str | os.PathLike[str], names: Iterable[str] | Callable[[str], bool]
    ) -> None:
        self.given = Path(directory)
        _refuse_current_folder(self.given)
        self._legacy = _accepting(names)
        self._parent = Folder.open(self.given.parent, create=True, ledger=False)
        try:
            self._parent.remove_stale(lambda name: name == LEDGER_NAME or self._legacy(name))
            _check_destination(self._parent, self.given, self._legacy)
            self._entry = _new_folder(self._parent)
            self.folder = self._parent.folder(self._entry, create=False, own_ledger=True)
        except BaseException:
            self._parent.close()
            raise

    def __enter__(self) -> NewFolder:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.abandon()

    def path(self) -> Path:
        """A path by which another writer can create files in the new folder."""
        return self.folder.writable_path("")

    def commit(self) -> list[str]:
        """Record the files another writer put in the folder, put it in the destination's
        place and remove the old folder; return the names of its files."""
        try:
            for name in sorted(self.folder.names()):
                if name != LEDGER_NAME and not self.folder.owns(name):
                    self.folder.record(name)
            names = sorted(name for name in self.folder.names() if name != LEDGER_NAME)
            self.folder.close()
            old = self._swap_in()
        except BaseException:
            self.abandon()
            raise
        try:
            if old is not None:
                _remove_folder(self._parent, old, self._legacy)
            with contextlib.suppress(OSError):
                os.fsync(self._parent.fd)
        finally:
            self._parent.close()
        return names

    def _swap_in(self) -> str | None:
        """Check the destination and put the new folder in its place; when another writer
        puts a folder there in between, check that one and swap again."""
        for _ in range(SWAP_ATTEMPTS):
            _check_destination(self._parent, self.given, self._legacy)
            try:
                return _swap_in(self._parent, self._entry, self.given.name)
            except FileExistsError:
                continue
        raise OutputError(f"{self.given}: other writers keep replacing it. Give another folder")

    def abandon(self) -> None:
        """Remove the new folder and what was written into it."""
        if self._parent.fd < 0:
            return
        self.folder.close()
        _remove_folder(self._parent, self._entry, lambda _name: True, ledger=False)
        self._parent.close()


def replace_folder(
    directory: str | os.PathLike[str],
    files: Mapping[str, Callable[[Path], object]],
    *,
    known: Iterable[str] = (),
) -> list[Path]:
    """Make ``directory`` hold exactly ``files`` (name → function writing that file at the
    path it is given), in one step, in the order given; return the paths of the files at
    their destination. In a folder written before ledgers were kept, files named in ``known``
    (those a write may or may not produce) are taken as the writer's."""
    with NewFolder(directory, {*files, *known}) as new:
        for name, write in files.items():
            new.folder.write_with(name, write)
        new.commit()
    return [new.given / name for name in files]


def _accepting(names: Iterable[str] | Callable[[str], bool]) -> Callable[[str], bool]:
    return names if callable(names) else set(names).__contains__


def _new_folder(parent: Folder) -> str:
    """The name of a new staging folder made in ``parent``."""
    try:
        return staging.make_folder(parent.fd, 0o777)
    except OSError as error:
        raise refused(parent.path, error) from None


def _check_destination(parent: Folder, given: Path, legacy: Callable[[str], bool]) -> None:
    """Refuse a destination that is not absent or a folder of its writer's files alone. A
    file gone by the time it is looked at is no obstacle: another writer that just replaced
    the folder is removing the old one's files."""
    mode = parent.mode(given.name)
    if mode is None:
        return
    if stat.S_ISLNK(mode) or not stat.S_ISDIR(mode):
        if stat.S_ISREG(mode):
            raise OutputError(f"{given}: is a file, not a folder. Give a folder")
        raise OutputError(foreign_message(given, mode))
    with parent.folder(given.name, create=False, own_ledger=True, legacy=legacy) as existing:
        for name in sorted(existing.names()):
            if name == LEDGER_NAME or existing.owns(name):
                continue
            if existing.mode(name) is None:
                continue  # removed since listed: another writer emptying the folder it replaced
            raise OutputError(
                f"{given}: holds {name!r}, which is not a result file qoslab wrote. Results "
                "replace their folder as a whole and never remove other files: give a new or "
                "empty folder, or one holding only earlier results"
            )


def _swap_in(parent: Folder, new: str, target: str) -> str | None:
    """Put the folder ``new`` in the place of ``target``, both in ``parent``; return where
    the old folder went. Raises ``FileExistsError`` when another writer put a folder at
    ``target`` since it was found absent (the caller checks it and tries again)."""
    if parent.mode(target) is None:
        try:
            os.rename(new, target, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
        except OSError as error:
            if error.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise FileExistsError(error.errno, error.strerror, target) from None
            raise
        return None
    if _exchange(parent.fd, new, target):
        return new
    aside = staging.name()
    os.rename(target, aside, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
    os.rename(new, target, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
    return aside


def _exchange(parent: int, first: str, second: str) -> bool:
    """Swap two entries of the folder open as ``parent`` atomically with ``renameat2``;
    False where that is unavailable."""
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
    if renameat2(parent, os.fsencode(first), parent, os.fsencode(second), RENAME_EXCHANGE):
        code = ctypes.get_errno()
        if code in NO_EXCHANGE:
            return False
        raise OSError(code, os.strerror(code), second)
    return True


def _remove_folder(
    parent: Folder, entry: str, legacy: Callable[[str], bool], *, ledger: bool = True
) -> None:
    """Delete the writer's files in the folder ``entry`` of ``parent`` (with ``ledger``
    false, every regular file: a staging folder of this process), then the ledger and the
    folder if that emptied it."""
    with contextlib.suppress(OSError):
        with parent.folder(entry, create=False, own_ledger=ledger, legacy=legacy) as folder:
            for name in folder.names():
                if name != LEDGER_NAME:
                    folder.remove(name)
            if folder.names() == [LEDGER_NAME]:
                os.unlink(LEDGER_NAME, dir_fd=folder.fd)
        os.rmdir(entry, dir_fd=parent.fd)


def _refuse_current_folder(given: Path) -> None:
    target = given.resolve()
    cwd = Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise OutputError(
            f"{given}: is the current folder or holds it. Results replace their folder as a "
            "whole: give a folder of their own, e.g. results/NAME"
        )
