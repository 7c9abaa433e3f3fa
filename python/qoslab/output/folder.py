"""A folder opened for writing that never follows a symbolic link and never replaces or
deletes a file it did not write.

The folder is opened once, as a descriptor, without following a link at its last component,
and everything in it is then reached by name from that descriptor (``openat``, ``renameat``,
``unlinkat``) with links refused: a link put in the folder, or in place of one of its
sub-folders, never leads a write, a rename or a deletion elsewhere. The path up to the folder
is the user's and is taken as the system resolves it.

Each file is written whole under a staging name (``staging``) and renamed over its
destination, so a reader or a process killed at any moment sees the old file or the new one.
An entry already at the destination is replaced only when it is the writer's own: a regular
file the folder's ledger (``ledger``) records with its present contents, or, in a folder
written before ledgers were kept, a regular file whose name ``legacy`` accepts. Anything else
is refused with an :class:`OutputError` naming it.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from qoslab.output import staging
from qoslab.output.errors import OutputError
from qoslab.output.ledger import NAME as LEDGER_NAME
from qoslab.output.ledger import Ledger, file_sha256

DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
"""Open a folder, not a link to one."""

FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
"""Create a new file, never through a link and never over an existing entry."""

PROC_FDS = Path("/proc/self/fd")
"""Where Linux shows this process's open descriptors as paths."""

MIB = 1 << 20


def _never(_name: str) -> bool:
    return False


class Folder:
    """A folder open for writing (see the module's description).

    ``path`` is the folder as the user named it (for messages); ``prefix`` is the folder's
    path relative to the folder whose ledger it shares (empty at the top)."""

    def __init__(
        self,
        descriptor: int,
        path: Path,
        ledger: Ledger | None,
        *,
        prefix: str = "",
        legacy: Callable[[str], bool] = _never,
    ) -> None:
        self.fd = descriptor
        self.path = path
        self.ledger = ledger
        self.prefix = prefix
        self._legacy = legacy

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        ledger: bool = True,
        legacy: Callable[[str], bool] = _never,
    ) -> Folder:
        """The folder at ``path``, created (with its parents) when missing and ``create``.
        With ``ledger`` its files are known by the folder's ledger; ``legacy`` accepts the
        names of the files the writer owns in a folder that has none. Raises
        :class:`OutputError` for a link, a file, a missing folder not to be created, or a
        folder that cannot be opened."""
        given = Path(path)
        parent_path = given.parent if given.name not in ("", ".", "..") else given
        entry = given.name if given.name not in ("", ".", "..") else "."
        parent = _open_parent(given, parent_path, create=create)
        try:
            if create and entry != ".":
                with contextlib.suppress(FileExistsError):
                    os.mkdir(entry, 0o777, dir_fd=parent)
            descriptor = _open_folder(parent, entry, given)
        finally:
            os.close(parent)
        try:
            known = Ledger(descriptor) if ledger else None
        except OSError as error:
            os.close(descriptor)
            raise refused(given / LEDGER_NAME, error) from None
        return cls(descriptor, given, known, legacy=legacy)

    def folder(
        self,
        name: str,
        *,
        create: bool = True,
        own_ledger: bool = False,
        legacy: Callable[[str], bool] | None = None,
    ) -> Folder:
        """The sub-folder ``name``, created when missing and ``create``. It shares this
        folder's ledger, or with ``own_ledger`` has its own (a folder replaced as a whole);
        ``legacy`` replaces the names accepted in a folder without a ledger."""
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=self.fd)
        descriptor = _open_folder(self.fd, name, self.path / name)
        ledger: Ledger | None
        if own_ledger:
            try:
                ledger, prefix = Ledger(descriptor), ""
            except OSError as error:
                os.close(descriptor)
                raise refused(self.path / name / LEDGER_NAME, error) from None
        else:
            ledger, prefix = self.ledger, f"{self.prefix}{name}/"
        accepted = legacy if legacy is not None else self._legacy
        return Folder(descriptor, self.path / name, ledger, prefix=prefix, legacy=accepted)

    def close(self) -> None:
        """Close the folder; at the top of a ledger, once its writer is done, compact the
        ledger (``Ledger.compact``)."""
        if self.fd < 0:
            return
        try:
            if self.ledger is not None and not self.prefix:
                self.ledger.compact()
        finally:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # What the folder holds.

    def names(self) -> list[str]:
        """The names of its entries (the ledger and staging entries included)."""
        return staging.names(self.fd)

    def mode(self, name: str) -> int | None:
        """The type and permission bits of entry ``name`` itself (a link's, not its
        target's), or None when there is none."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None

    def owns(self, name: str) -> bool:
        """Whether ``name`` is a file the writer may replace or delete: recorded in the
        ledger with its present contents, or in a folder that had no ledger when it was
        opened, a regular file of a name ``legacy`` accepts."""
        if self.ledger is not None and self.ledger.records(self.prefix + name):
            return self.ledger.owns(self.fd, name, self.prefix + name)
        if self.ledger is not None and self.ledger.existed:
            return False
        mode = self.mode(name)
        return mode is not None and stat.S_ISREG(mode) and self._legacy(self.prefix + name)

    # Writing.

    def write(self, name: str, data: bytes) -> Path:
        """Make ``name`` hold ``data``, in one step; return its path."""
        self.check_replaceable(name)
        staged = staging.name()
        try:
            descriptor = os.open(staged, FILE_FLAGS, 0o644, dir_fd=self.fd)
        except OSError as error:
            raise refused(self.path, error) from None
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            self._note(name, len(data), hashlib.sha256(data).hexdigest())
            os.replace(staged, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(staged, dir_fd=self.fd)
            raise
        return self.path / name

    def write_with(self, name: str, writer: Callable[[Path], object]) -> Path:
        """Make ``name`` hold what ``writer`` writes when given a path, in one step; the
        path is in a private staging folder of this one. Return the file's path."""
        self.check_replaceable(name)
        with self.staging_folder() as private:
            writer(private.writable_path(name))
            self.adopt(private, name)
        return self.path / name

    def adopt(self, source: Folder, name: str) -> None:
        """Move the regular file ``name`` of the folder ``source`` (on the same file
        system) here under the same name, recording it in the ledger."""
        self.check_replaceable(name)
        self._note(name, *_fingerprint(source, name))
        os.replace(name, name, src_dir_fd=source.fd, dst_dir_fd=self.fd)

    def record(self, name: str) -> None:
        """Record in the ledger the regular file ``name`` that another writer made here."""
        self._note(name, *_fingerprint(self, name))

    def remove(self, name: str) -> bool:
        """Delete ``name`` if it is the writer's own file; return whether it was."""
        if not self.owns(name):
            return False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self.fd)
        return True

    def staging_folder(self) -> Folder:
        """A new private staging folder inside this one (readable by this user only),
        without a ledger; close it, or use it in a ``with`` block, which removes it with
        the files left in it."""
        try:
            entry = staging.make_folder(self.fd, 0o700)
        except OSError as error:
            raise refused(self.path, error) from None
        descriptor = _open_folder(self.fd, entry, self.path / entry)
        return _Staging(descriptor, self.path / entry, self, entry)

    def writable_path(self, name: str) -> Path:
        """A path by which an outside writer (pyarrow, matplotlib, the simulator core) can
        create ``name`` in this folder: through this process's descriptor where the system
        shows one (so no link on the way can redirect it), else the folder's path."""
        through_descriptor = PROC_FDS / str(self.fd)
        return (through_descriptor if through_descriptor.is_dir() else self.path) / name

    def remove_stale(self, removable: Callable[[str], bool]) -> None:
        """Remove the staging entries of ended processes (``staging.remove_stale``)."""
        staging.remove_stale(self.fd, removable)

    def check_room(self, size_bytes: int, what: str) -> None:
        """Refuse, before anything is written, a folder that cannot be written or has less
        than ``size_bytes`` bytes free for ``what``."""
        probe = staging.name()
        try:
            os.close(os.open(probe, FILE_FLAGS, 0o644, dir_fd=self.fd))
            os.unlink(probe, dir_fd=self.fd)
        except OSError as error:
            raise refused(self.path, error) from None
        facts = os.fstatvfs(self.fd)
        free_bytes = facts.f_bavail * facts.f_frsize
        if free_bytes < size_bytes:
            raise OutputError(
                f"{self.path}: {free_bytes / MIB:,.0f} MiB free, and {what} may need up to "
                f"{size_bytes / MIB:,.0f} MiB. Free some space or give a folder on another disk"
            )

    def _note(self, name: str, size_bytes: int, sha256: str) -> None:
        if self.ledger is not None:
            self.ledger.note(self.prefix + name, size_bytes, sha256)

    def check_replaceable(self, name: str) -> None:
        """Refuse with an :class:`OutputError` an entry ``name`` that a write would not
        replace: one that is not the writer's own file."""
        mode = self.mode(name)
        if mode is None or self.owns(name):
            return
        raise OutputError(foreign_message(self.path / name, mode))


class _Staging(Folder):
    """A staging folder: on close, the regular files still in it and the folder go. It
    holds its own descriptor of the folder it is in, which may be closed before it."""

    def __init__(self, descriptor: int, path: Path, parent: Folder, entry: str) -> None:
        super().__init__(descriptor, path, None)
        self._parent_fd = os.dup(parent.fd)
        self._entry = entry

    def close(self) -> None:
        if self.fd < 0:
            return
        for name in staging.names(self.fd):
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode):
                    os.unlink(name, dir_fd=self.fd)
        super().close()
        with contextlib.suppress(OSError):
            os.rmdir(self._entry, dir_fd=self._parent_fd)
        os.close(self._parent_fd)


def _fingerprint(folder: Folder, name: str) -> tuple[int, str]:
    """The size and SHA-256 of the regular file ``name`` of ``folder``, flushed to disk."""
    descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder.fd)
    with os.fdopen(descriptor, "rb") as file:
        facts = os.fstat(file.fileno())
        if not stat.S_ISREG(facts.st_mode):
            raise OutputError(f"{folder.path / name}: is not a regular file")
        os.fsync(file.fileno())
        return facts.st_size, file_sha256(file)


def foreign_message(path: Path, mode: int) -> str:
    """Why the entry at ``path`` (of type ``mode``) is not replaced."""
    if stat.S_ISLNK(mode):
        what = f"is a symbolic link (to {_link_target(path)})"
    elif stat.S_ISDIR(mode):
        what = "is a folder"
    elif not stat.S_ISREG(mode):
        what = "is not a regular file"
    else:
        what = "is a file qoslab did not write (or one changed since)"
    return (
        f"{path}: {what}. qoslab never writes through a link nor replaces what it did not "
        "write: move it away, or give another folder"
    )


def _link_target(path: Path) -> str:
    try:
        return str(path.readlink())
    except OSError:
        return "somewhere"


def _open_parent(given: Path, parent_path: Path, *, create: bool) -> int:
    """The folder holding ``given``, as the system resolves its path, created if missing
    and ``create``."""
    try:
        if create:
            parent_path.mkdir(parents=True, exist_ok=True)
        return os.open(parent_path, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise OutputError(f"{given}: {parent_path} does not exist") from None
    except (NotADirectoryError, FileExistsError):
        raise OutputError(
            f"{given}: a part of {parent_path} is a file, not a folder. Give a path of folders"
        ) from None
    except OSError as error:
        raise refused(given, error) from None


def _open_folder(parent: int, entry: str, shown: Path) -> int:
    """The folder ``entry`` of the folder open as ``parent``, not through a link."""
    try:
        return os.open(entry, DIRECTORY_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        raise OutputError(f"{shown}: no such folder") from None
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            mode = os.stat(entry, dir_fd=parent, follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                raise OutputError(
                    f"{shown}: is a symbolic link (to {_link_target(shown)}). qoslab never "
                    "writes through a link: give the folder itself, or another name"
                ) from None
            raise OutputError(f"{shown}: is a file, not a folder. Give a folder") from None
        raise refused(shown, error) from None


def refused(path: Path, error: OSError) -> OutputError:
    """An OS error met writing at ``path``, said with the user's path and the fix."""
    reasons = {
        errno.EACCES: "cannot be written: permission denied. Give a folder you can write",
        errno.EPERM: "cannot be written: not permitted. Give a folder you can write",
        errno.EROFS: "is on a read-only file system. Give a folder on a writable disk",
        errno.ENOSPC: "has no space left. Free some space or give a folder on another disk",
        errno.EDQUOT: "is over its disk quota. Free some space or give another folder",
    }
    reason = reasons.get(error.errno or 0, f"cannot be written: {error.strerror or error}")
    return OutputError(f"{path}: {reason}")
