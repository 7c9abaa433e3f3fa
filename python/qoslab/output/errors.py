"""The error of a destination qoslab refuses to write into."""

from __future__ import annotations


class OutputError(ValueError):
    """A destination that qoslab refuses to write results into, or cannot write: the message
    names the path as the user gave it, what is wrong and what to do."""
