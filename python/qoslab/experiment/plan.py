"""The plan of a sweep: the values to vary, the variants and the replications, and the
grid of runs they make.

A sweep runs one scenario at every point of a grid. Each varied setting is a ``--set`` key
path with a list of values (an axis); the grid is the cartesian product of the axes, the
first axis outermost, except that the axes of a ``zip`` group advance together (their lists
have equal length and give one axis of tuples). Each point is run once per variant (a named
overlay in the scenario's ``variants:`` section; ``base`` is the scenario as written) and
once per replication ``0 .. replications - 1``.

A plan comes from the scenario's ``sweep:`` section, which the core reads and checks, with
the caller's choices laid over it: a key varied by the caller replaces the section's list
for that key, given variants replace the section's, a given count of replications replaces
the section's.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qoslab._core import sweep_plan
from qoslab.scenario import BASE, yaml_scalar

MAX_REPLICATIONS = 10_000
"""Most replications a sweep may ask for (as the scenario's ``sweep.replications``)."""


@dataclass(frozen=True)
class Axis:
    """One varied setting: its key path, its values as YAML text, and where each value was
    written (``None`` for a value given on the command line or through the API)."""

    key: str
    values: tuple[str, ...]
    sources: tuple[str | None, ...]


@dataclass(frozen=True)
class Point:
    """One point of the grid: a variant (``None`` for the scenario as written) and the
    value of each varied key."""

    variant: str | None
    assignments: tuple[tuple[str, str], ...]
    sources: tuple[str | None, ...]

    def overrides(self) -> tuple[tuple[str, str, str | None], ...]:
        """The point's settings as ``(key, value, source)`` overrides for the core."""
        return tuple(
            (key, value, source)
            for (key, value), source in zip(self.assignments, self.sources, strict=True)
        )


@dataclass(frozen=True)
class Plan:
    """What a sweep runs: axes, zip groups, variants, replications and the seed."""

    axes: tuple[Axis, ...]
    zip_groups: tuple[tuple[str, ...], ...]
    variants: tuple[str | None, ...]
    replications: int
    seed: int | None

    def points(self) -> list[Point]:
        """Every point of the grid: variants outermost, then the axes in order."""
        # Each: a list of steps, a step being ((key, value, source), ...).
        columns: list[list[tuple[tuple[str, Any, Any], ...]]] = []
        grouped = {key: group for group in self.zip_groups for key in group}
        placed: set[tuple[str, ...]] = set()
        by_key = {axis.key: axis for axis in self.axes}
        for axis in self.axes:
            group = grouped.get(axis.key)
            if group is None:
                columns.append([((axis.key, v, s),) for v, s in _pairs(axis)])
            elif group not in placed:
                placed.add(group)
                members = [list(_pairs(by_key[key])) for key in group]
                columns.append(
                    [
                        tuple((key, v, s) for key, (v, s) in zip(group, step, strict=True))
                        for step in zip(*members, strict=True)
                    ]
                )
        points = []
        for variant in self.variants:
            for combination in itertools.product(*columns):
                settings = [setting for step in combination for setting in step]
                points.append(
                    Point(
                        variant,
                        tuple((key, value) for key, value, _ in settings),
                        tuple(source for _, _, source in settings),
                    )
                )
        return points


def make_plan(
    text: str,
    origin: str,
    *,
    vary: Mapping[str, Sequence[object]] | None = None,
    zip_keys: bool | Sequence[Sequence[str]] = False,
    variants: Sequence[str] | None = None,
    reps: int | None = None,
    seed: int | None = None,
    use_section: bool = True,
) -> Plan:
    """The plan of a sweep of the scenario ``text`` (named ``origin`` in errors): its
    ``sweep:`` section (unless ``use_section`` is false; it is checked all the same) with the
    given ``vary``, ``zip_keys`` (``True``: every varied key, given or from the section,
    advances together; or groups of keys), ``variants`` and ``reps`` laid over it.

    Raises ``ScenarioError`` for a sweep section the core refuses, and ``ValueError`` for a
    bad argument (an empty list of values, zipped lists of unequal length, too few or too
    many replications, an unknown variant).
    """
    section = json.loads(sweep_plan(text, origin))
    if not use_section:
        section |= {"vary": [], "zip": [], "variants": [], "replications": None}
    axes = {
        entry["key"]: Axis(
            entry["key"],
            tuple(value["value"] for value in entry["values"]),
            tuple(value["source"] for value in entry["values"]),
        )
        for entry in sorted(section["vary"], key=_written_at)
    }
    zip_groups = [tuple(group) for group in section["zip"]]
    given = dict(vary or {})
    for key, values in given.items():
        texts = tuple(yaml_scalar(value) for value in _as_list(key, values))
        axes[key] = Axis(key, texts, (None,) * len(texts))
        zip_groups = [group for group in zip_groups if key not in group]
    if zip_keys is True:
        zip_groups = [tuple(axes)]
    elif zip_keys:
        zip_groups.extend(tuple(group) for group in zip_keys)
    zip_groups = [group for group in zip_groups if len(group) > 1]
    _check_zip(zip_groups, axes)

    defined = list(section["defined_variants"])
    chosen = list(variants) if variants else list(section["variants"] or [BASE])
    for name in chosen:
        if name != BASE and name not in defined:
            known = ", ".join([BASE, *defined])
            raise ValueError(f"no variant named {name!r}: the scenario defines {known}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"variants {', '.join(chosen)}: each may be named once")

    replications = reps if reps is not None else section["replications"] or 1
    if not 1 <= replications <= MAX_REPLICATIONS:
        raise ValueError(
            f"{replications} replications: give a whole number from 1 to {MAX_REPLICATIONS}"
        )
    plan = Plan(
        axes=tuple(axes.values()),
        zip_groups=tuple(zip_groups),
        variants=tuple(None if name == BASE else name for name in chosen),
        replications=replications,
        seed=seed,
    )
    _check_distinct(plan)
    return plan


def _check_distinct(plan: Plan) -> None:
    """Refuse, before any run, a grid with two points alike: they would be the same runs
    twice, and their rows could not be told apart in the summary."""
    seen: set[tuple] = set()
    for point in plan.points():
        identity = (point.variant, point.assignments)
        if identity in seen:
            repeated = ", ".join(f"{key}={value}" for key, value in point.assignments)
            axis = next((a for a in plan.axes if len(set(a.values)) < len(a.values)), None)
            where = (
                f"{axis.key}: the value {_first_repeat(axis.values)!r} is given twice"
                if axis is not None and not any(axis.key in g for g in plan.zip_groups)
                else f"the point {repeated or 'of the scenario as written'} comes twice"
            )
            raise ValueError(
                f"{where}, so two points of the grid would be the same runs. Give each value "
                "(or, for zipped keys, each combination) once"
            )
        seen.add(identity)


def _first_repeat(values: tuple[str, ...]) -> str:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return ""


def parse_vary(text: str) -> tuple[str, list[str]]:
    """``KEY.PATH=V1,V2,...`` from the command line as the key and its values.

    Values are split at commas outside brackets, braces and quotes, so that a value may be
    a flow collection such as ``{kind: fifo, limit: 20}``.
    """
    key, sep, rest = text.partition("=")
    values = [value.strip() for value in _split_top_level(rest)]
    if not sep or not key.strip() or not values or any(not value for value in values):
        raise ValueError(
            f"--vary {text!r}: write KEY.PATH=V1,V2,... with no empty value, "
            "e.g. --vary topology.links.1.rate=64kbps,128kbps"
        )
    return key.strip(), values


def _as_list(key: str, values: object) -> list[object]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f'vary {key!r}: give a list of values, e.g. ["fifo", "pq"]')
    listed = list(values)
    if not listed:
        raise ValueError(f"vary {key!r}: the list of values is empty; give at least one value")
    return listed


def _written_at(entry: dict) -> tuple[int, int]:
    """Where the first value of a ``sweep.vary`` entry is written (``origin:line:column``),
    to keep the keys in the order written."""
    *_, line, column = entry["values"][0]["location"].rsplit(":", 2)
    return int(line), int(column)


def _check_zip(groups: list[tuple[str, ...]], axes: Mapping[str, Axis]) -> None:
    seen: set[str] = set()
    for group in groups:
        for key in group:
            if key not in axes:
                raise ValueError(f"zip: {key!r} is not a varied key; vary it first")
            if key in seen:
                raise ValueError(f"zip: {key!r} is in two zip groups; put it in one")
            seen.add(key)
        lengths = {key: len(axes[key].values) for key in group}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{key} has {n}" for key, n in lengths.items())
            raise ValueError(f"zip: zipped keys need lists of equal length ({shown})")


def _pairs(axis: Axis) -> Iterable[tuple[str, str | None]]:
    return zip(axis.values, axis.sources, strict=True)


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts
