"""A scenario as the core takes it: its text and origin from a file or a dict, the
overrides as (key path, YAML value) pairs, and the limits a run may use.

``qoslab.run`` and ``qoslab.sweep`` both read their scenario and overrides through this
module, so a scenario given either way is read and checked the same.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from qoslab._core import MAX_SCENARIO_BYTES, parse_override
from qoslab._core import ScenarioError as ScenarioError
from qoslab.textfile import input_error, read_text


@dataclass(frozen=True)
class ScenarioText:
    """A scenario's YAML text read as if it were the file ``origin``: the files it names
    (IOS configurations, traces) are found from that file's folder, and its errors name
    that file with the line and column in ``text`` — an editor's text not yet saved."""

    text: str
    origin: str


Scenario = str | os.PathLike[str] | Mapping[str, object] | ScenarioText
"""A scenario: the path of a YAML file, the scenario document as a dict, or its text read
as a file (:class:`ScenarioText`)."""

Assignments = Mapping[str, object] | Iterable[str] | None
"""Overrides: ``{"key.path": value}`` or ``["key.path=value", ...]``."""

BASE = "base"
"""The variant name meaning the scenario as written."""

MAX_SEED = 2**64 - 1


def check_limits(seed: int | None, max_memory: int | None, max_events: int | None) -> None:
    """Raise ``ScenarioError`` for a seed or limit out of the range the core takes."""
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise input_error(f"seed {seed}: out of range. Use a whole number from 0 to {MAX_SEED}")
    for name, value in (("max_memory", max_memory), ("max_events", max_events)):
        if value is not None and not 1 <= value <= MAX_SEED:
            raise input_error(
                f"{name} {value}: out of range. Use a whole number from 1 to {MAX_SEED}"
            )


def pairs(assignments: Assignments, keywords: Mapping[str, object]) -> list[tuple[str, str]]:
    """All overrides as (key path, YAML value) pairs: ``set=`` first, then keywords."""
    return _assignments(assignments) + [
        (key.replace("__", "."), yaml_scalar(value)) for key, value in keywords.items()
    ]


def _assignments(assignments: Assignments) -> list[tuple[str, str]]:
    if assignments is None:
        return []
    if isinstance(assignments, str):
        return [parse_override(assignments)]
    if isinstance(assignments, Mapping):
        return [(str(key), yaml_scalar(value)) for key, value in assignments.items()]
    return [parse_override(text) for text in assignments]


def yaml_scalar(value: object) -> str:
    """A Python value written as the YAML text the core reads back: JSON for lists and
    dicts (JSON is YAML's flow style), ``null``, ``true``/``false``, else ``str``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value)
    return str(value)


def scenario_text(scenario: Scenario) -> tuple[str, str]:
    """The scenario's text and the origin named in its error messages."""
    if isinstance(scenario, ScenarioText):
        if len(scenario.text.encode("utf-8")) > MAX_SCENARIO_BYTES:
            raise input_error(
                f"{scenario.origin}: the scenario's text is over {MAX_SCENARIO_BYTES:,} bytes, "
                "more than any scenario needs. Shorten it",
                "limit",
                scenario.origin,
            )
        return scenario.text, scenario.origin
    if isinstance(scenario, Mapping):
        try:
            return json.dumps(scenario), "<dict>"
        except (TypeError, ValueError) as error:
            raise input_error(
                f"<dict>: {error}. Use only dicts, lists, strings, numbers, booleans and None",
                "wrong_type",
                "<dict>",
            ) from None
        except RecursionError:
            raise input_error(
                "<dict>: nested too deeply to be a scenario, which nests a few levels. Check "
                "how the dict was built",
                "limit",
                "<dict>",
            ) from None
    return read_text(Path(scenario), limit_bytes=MAX_SCENARIO_BYTES), os.fspath(scenario)
