"""Reading a user's text file: a regular file only, of bounded size, in UTF-8.

The file is opened without blocking (a named pipe would otherwise wait for a writer),
checked to be a regular file on the open descriptor, and read up to one byte past the limit,
so a device such as ``/dev/zero`` or a file that keeps growing is never read whole.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from qoslab._core import ScenarioError

MIB = 1024 * 1024

READ_CHUNK_BYTES = MIB
"""Bytes asked for per read."""

OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
"""Open for reading without waiting on a pipe and without taking a terminal."""


FoundKind = Literal["invalid", "wrong_type", "limit", "file"]
"""The kinds of the problems found in Python, before the core reads a scenario."""


def input_error(text: str, kind: FoundKind = "invalid", origin: str | None = None) -> ScenarioError:
    """A ``ScenarioError`` found in Python, with the attributes the core's carry: ``kind``,
    ``origin`` and ``message`` (the whole ``text``); it has no key path, line or column."""
    error = ScenarioError(text)
    error.kind = kind
    error.origin, error.key_path, error.line, error.column = origin, "", None, None
    error.message, error.hint = text, None
    return error


def file_error(path: Path, text: str, kind: FoundKind = "file") -> ScenarioError:
    """A ``ScenarioError`` about the file ``path``: one that cannot be read as asked (kind
    ``file``), or one too large to read (``limit``)."""
    return input_error(text, kind, str(path))


def read_text(path: Path, *, limit_bytes: int) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limit_bytes`` long.

    Raises ``ScenarioError`` naming the file for a missing, unreadable, non-regular, too
    large or non-UTF-8 file.
    """
    try:
        descriptor = os.open(path, OPEN_FLAGS)
    except FileNotFoundError:
        raise file_error(
            path,
            f"{path}: no such file. Check the name; a relative path is read from the "
            f"current directory, {Path.cwd()}",
        ) from None
    except OSError as error:
        raise _unreadable(path, error) from None
    except ValueError:
        raise file_error(path, f"{str(path)!r}: a path cannot hold a NUL character") from None
    try:
        data = _read_regular(path, descriptor, limit_bytes + 1)
    finally:
        os.close(descriptor)
    if len(data) > limit_bytes:
        raise file_error(
            path,
            f"{path}: larger than {limit_bytes / MIB:g} MiB, the most qoslab reads. Check that "
            "this is the file meant; a scenario is far smaller",
            "limit",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise file_error(
            path,
            f"{path}: not UTF-8 text (byte {error.start}, line {line}). Save the file as UTF-8",
        ) from None


def _read_regular(path: Path, descriptor: int, size_bytes: int) -> bytes:
    """At most ``size_bytes`` of the open file, if it is a regular file."""
    mode = os.fstat(descriptor).st_mode
    if stat.S_ISDIR(mode):
        raise file_error(path, f"{path}: is a directory. Give the path of a .yaml file")
    if not stat.S_ISREG(mode):
        raise file_error(
            path,
            f"{path}: is not a regular file (a device, pipe or socket). Give the path of a "
            ".yaml file",
        )
    chunks = []
    remaining = size_bytes
    try:
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, READ_CHUNK_BYTES))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as error:
        raise _unreadable(path, error) from None
    return b"".join(chunks)


def _unreadable(path: Path, error: OSError) -> ScenarioError:
    return file_error(path, f"{path}: cannot be read: {error.strerror or error}")
