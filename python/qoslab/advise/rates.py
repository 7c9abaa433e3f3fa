"""Link rates as the advice reads and writes them: ``--links`` lists, the scenario's link
rates, and rates for people."""

from __future__ import annotations

import math

from qoslab._core import parse_rate_bps
from qoslab.advise.error import AdviceError


def parse_rate(text: object) -> int | None:
    """A scenario's link rate (``512kbps``, ``2 Mbit/s``: the core's reading) as bit/s; None
    if ``text`` is not a rate."""
    try:
        return parse_rate_bps(str(text))
    except ValueError:
        return None


def parse_speeds(text: str) -> tuple[int, ...]:
    """``256kbps,512kbps,1Mbps`` as bit/s, smallest first."""
    speeds = []
    for part in text.split(","):
        try:
            bps = parse_rate_bps(part.strip())
        except ValueError as error:
            raise AdviceError(
                f"--links: `{part.strip()}` is not a rate ({error}); write rates with units, "
                "separated by commas, e.g. 256kbps,512kbps,1Mbps"
            ) from None
        if bps < 8_000:
            raise AdviceError(f"--links: `{part.strip()}` is below 8 kbit/s, IOS's smallest rate")
        speeds.append(bps)
    return tuple(sorted(set(speeds)))


def rate_text(bps: int) -> str:
    """A rate as the scenario writes it."""
    for unit, size in (("Mbps", 1_000_000), ("kbps", 1_000)):
        if bps % size == 0:
            return f"{bps // size}{unit}"
    return f"{bps}bps"


def rate_words(bps: int) -> str:
    """A rate for people: ``1024 kbit/s``, ``45 Mbit/s``, ``1 Gbit/s``."""
    if bps >= 1_000_000_000 and bps % 1_000_000_000 == 0:
        return f"{bps // 1_000_000_000} Gbit/s"
    if bps >= 10_000_000 and bps % 1_000_000 == 0:
        return f"{bps // 1_000_000} Mbit/s"
    return f"{bps / 1000:g} kbit/s"


def kbps_ceiling(bps: float) -> int:
    """``bps`` in whole kbit/s, rounded up (IOS rates are whole kbit/s)."""
    return max(1, math.ceil(bps / 1000 - 1e-9))
