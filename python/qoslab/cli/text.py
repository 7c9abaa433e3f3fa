"""User-provided text made safe to print on a terminal.

Names, notes and error messages come from scenario files and may hold anything. Printed raw,
an escape sequence in a flow name could recolour the terminal, set its title or plant a
hyperlink (OSC 8), and rich would read ``[link=...]`` or ``[bold]`` as markup. Every such
string is therefore printed through :func:`visible`, which writes each control character
as an escape (``\\x1b``, ``\\u202e``), and as a :class:`rich.text.Text`, which rich does not
parse for markup.
"""

from __future__ import annotations

import re

from rich.text import Text

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 control characters, DEL, and the Unicode marks that reorder text
(bidirectional overrides, embeddings, isolates and direction marks)."""


def visible(text: object) -> str:
    """``text`` with every control character written as a Python escape, e.g. ``\\x1b``."""
    return CONTROL.sub(_escape, str(text))


def plain(text: object) -> Text:
    """``text`` as a rich ``Text``: its control characters escaped, no markup read."""
    return Text(visible(text))


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless the number is one: ``1 error``, ``2 errors``,
    ``1,977 packets`` (thousands separated, as the tables print them)."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
