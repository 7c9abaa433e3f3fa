"""A file the user named on the command line (``-o report.html``), written in one step.

The user chose this exact path, so a regular file already there is replaced (as any tool
writing to ``-o`` does); a symbolic link, a folder or any other kind of entry at that name is
refused, and the file is reached from its folder's descriptor, so nothing is written through
a link.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from qoslab.output.errors import OutputError
from qoslab.output.folder import Folder, foreign_message


def check_file(path: str | os.PathLike[str]) -> None:
    """Refuse, before the work that fills it, a path :func:`write_file` would refuse."""
    given = Path(path)
    with _folder(given) as folder:
        _check(folder, given)
        folder.check_room(0, "the file")


def write_file(path: str | os.PathLike[str], content: bytes | Callable[[Path], object]) -> Path:
    """Make the file at ``path`` hold ``content`` (bytes, or a function writing the file at
    the path it is given), in one step; return ``path``. Its folder must exist."""
    given = Path(path)
    if given.name in ("", ".", ".."):
        raise OutputError(f"{given}: names a folder. Give a file name")
    with _folder(given) as folder:
        _check(folder, given)
        if isinstance(content, bytes):
            folder.write(given.name, content)
        else:
            folder.write_with(given.name, content)
    return given


def _folder(given: Path) -> Folder:
    """The folder the file ``given`` goes into, which must exist."""
    if not given.parent.is_dir():
        raise OutputError(
            f"{given}: the folder {given.parent} does not exist. Create it or give another file"
        )
    return Folder.open(given.parent, create=False, ledger=False, legacy=lambda _: True)


def _check(folder: Folder, given: Path) -> None:
    mode = folder.mode(given.name)
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise OutputError(f"{given}: is a folder. Give a file name")
        raise OutputError(foreign_message(given, mode))
