"""A bit rate for people: in the largest unit that keeps it at least 1 (``128 kbit/s``,
``1.544 Mbit/s``), to four significant figures."""

from __future__ import annotations


def format_rate(rate_bps: float) -> str:
    """A bit rate in the largest unit that keeps it at least 1, e.g. ``128 kbit/s``."""
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if rate_bps >= scale:
            return f"{rate_bps / scale:.4g} {unit}"
    return f"{rate_bps:.4g} bit/s"
