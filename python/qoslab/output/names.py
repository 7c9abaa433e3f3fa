"""The default name of a scenario's output folder: one safe path component."""

from __future__ import annotations

MAX_NAME_CHARS = 60
"""Longest default folder name, in characters: 60 four-byte characters stay within the
255-byte name limit of common file systems."""

FALLBACK_NAME = "scenario"
"""The default folder name of a scenario whose name keeps no usable character."""

NAME_PUNCTUATION = "-_."
"""Characters besides letters and digits that a default folder name keeps."""


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
