"""Short names for a sweep's varied keys and its points, for headings and sentences.

A varied key is a dotted path into the scenario (``interfaces.r1.r2.output``,
``topology.links.1.rate``); shown whole, two of them fill a heading and truncate to the same
text. Each is shown instead by the shortest tail of its dotted parts that no other key ends
with (``output``, ``rate``; ``r2.output`` beside ``r3.output``), and the full keys are spelled
out once beneath.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def short_headings(keys: Sequence[str]) -> list[str]:
    """Each of ``keys`` as the shortest tail of its dotted parts that tells it from the
    others (``interfaces.r1.r2.output`` beside ``topology.links.1.rate``: ``output`` and
    ``rate``), so that two varied keys never show the same truncated heading."""
    headings = []
    for key in keys:
        parts = key.split(".")
        others = [other for other in keys if other != key]
        for n in range(1, len(parts) + 1):
            tail = ".".join(parts[-n:])
            if not any(other == tail or other.endswith("." + tail) for other in others):
                headings.append(tail)
                break
        else:
            headings.append(key)
    return headings


def spelled_out(keys: Sequence[str]) -> str:
    """What each short heading stands for (``output = interfaces.r1.r2.output; ...``), for
    the keys whose heading is not the key itself; empty when there are none."""
    pairs = zip(short_headings(keys), keys, strict=True)
    return "; ".join(f"{short} = {key}" for short, key in pairs if short != key)


def point_label(point: Mapping[str, object], keys: Sequence[str]) -> str:
    """A point of the grid in words: each key's short heading and value
    (``output llq, rate 768kbps``); ``the scenario as written`` without keys."""
    if not keys:
        return "the scenario as written"
    return ", ".join(
        f"{short} {point[key]}" for short, key in zip(short_headings(keys), keys, strict=True)
    )
