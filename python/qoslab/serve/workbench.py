"""What ``qoslab serve`` computes: a scenario as edited, run under each configuration asked
for — its interface as written, each of its named policies, IOS configuration pasted for
that interface — and laid out side by side, or the errors that stop it, each placed at its
line in the scenario or in the pasted configuration.

The edited text is read as the scenario's own file (:class:`qoslab.scenario.ScenarioText`):
the files it names are found from the file's folder and its errors carry the file's name
with the line and column in the text. A configuration is the edited scenario with one
override of the chosen interface: ``interfaces.NODE.PEER.output=NAME``, or the whole entry
replaced by an ``ios`` of the pasted text and interface name, which set everything else.
Each application is judged as a sweep's answer judges it (:mod:`qoslab.analysis.answer`)
on the one run: in contract when its share of intervals in contract reaches the target.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from qoslab._core import RunError
from qoslab.analysis.answer import answer
from qoslab.report.tables import Part, Table, cell, heading
from qoslab.run import run
from qoslab.scenario import ScenarioError, ScenarioText, scenario_text

AS_WRITTEN = "as written"
PASTED = "pasted IOS"

MAX_EVENTS = 200_000_000
"""The most events a run started from the page may take: about ten seconds of the engine.
A scenario that needs more is refused with the entry responsible (``max_events``)."""

FLOW_COLUMNS = ("flow", "loss_pct", "delay_mean_ms", "delay_p99_ms")
"""The flows' columns each configuration shows."""

CHARTED = ("delay_p99_ms", "loss_pct")
"""The flows' metrics the page charts, configurations side by side."""

IOS_LINE = re.compile(r"line (\d+), column (\d+)")
INTERFACE_LINE = re.compile(r"^\s*int(?:erface)?\s+(\S+)", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Located:
    """An error, and where it is: ``editor`` ``scenario`` or ``ios``, line and column
    (1-based; 0 when the error has no place in the text)."""

    editor: str
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class AppVerdict:
    """One application under one configuration: its share of intervals in contract, %, and
    whether that reaches the target (``in`` or ``out``)."""

    app: str
    share_pct: float
    state: str


@dataclass
class Column:
    """One configuration's results, or its error."""

    name: str
    apps: list[AppVerdict] = field(default_factory=list)
    every: bool = False
    flows: Table | None = None
    charted: dict[str, dict[str, float | None]] = field(default_factory=dict)
    """Per metric of :data:`CHARTED`, per flow: its value, for the page's charts."""
    error: str = ""


@dataclass
class Outcome:
    """What one evaluation gives the page."""

    columns: list[Column] = field(default_factory=list)
    errors: list[Located] = field(default_factory=list)
    elapsed_ms: float = 0.0

    def chart(self) -> dict:
        """The charts' data: per metric, the flows and each configuration's values."""
        shown = [column for column in self.columns if not column.error]
        flows = list(dict.fromkeys(f for c in shown for f in c.charted.get(CHARTED[0], {})))
        return {
            "flows": flows,
            "metrics": {
                metric: [
                    {"name": c.name, "values": [c.charted[metric].get(f) for f in flows]}
                    for c in shown
                ]
                for metric in CHARTED
            },
        }


@dataclass(frozen=True)
class Request:
    """What the page asks for: the scenario's text, the interface and the configurations to
    compare, IOS text to paste on that interface (with its IOS name, else the last
    ``interface`` line's), and the target share in contract."""

    scenario: str
    interface: str = ""
    compare: tuple[str, ...] = (AS_WRITTEN,)
    ios: str = ""
    ios_interface: str = ""
    target_pct: float = 95.0


class Workbench:
    """A scenario file opened for editing: its text, the interfaces its policies can be
    put on and its named policies, as the file holds them when it is opened."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.text = scenario_text(path)[0]
        try:
            document = yaml.safe_load(self.text)
        except yaml.YAMLError:
            # Opened all the same: the page shows the error at its line, to be mended there.
            document = None
        document = document if isinstance(document, dict) else {}
        self.policies = [str(name) for name in document.get("policies") or {}]
        self.interfaces = _interfaces(document)

    def evaluate(self, request: Request) -> Outcome:
        """Run every configuration ``request`` asks for and lay them out, or say what stops
        them."""
        started = time.perf_counter()
        outcome = Outcome()
        scenario = ScenarioText(request.scenario, str(self.path))
        configurations = list(request.compare)
        if request.ios.strip():
            configurations.append(PASTED)
        for name in configurations:
            try:
                changes = self._changes(request, name)
            except ValueError as error:
                outcome.errors.append(
                    Located("ios" if name == PASTED else "scenario", 0, 0, str(error))
                )
                continue
            try:
                results = run(scenario, set=changes, max_events=MAX_EVENTS)
            except ScenarioError as error:
                located = _locate(error)
                if located not in outcome.errors:
                    outcome.errors.append(located)
                outcome.columns.append(Column(name, error=located.message))
                continue
            except RunError as error:
                outcome.columns.append(Column(name, error=str(error)))
                continue
            outcome.columns.append(_column(name, results, request.target_pct))
        outcome.elapsed_ms = (time.perf_counter() - started) * 1000
        return outcome

    def _changes(self, request: Request, name: str) -> dict[str, object]:
        """The override that makes configuration ``name`` of the chosen interface."""
        if name == AS_WRITTEN:
            return {}
        key = _interface_key(request.interface, self.interfaces)
        if name == PASTED:
            ios_name = request.ios_interface.strip() or _last_interface(request.ios)
            if not ios_name:
                raise ValueError(
                    "the pasted configuration has no `interface` line: name the IOS "
                    "interface its policy is on"
                )
            # The interface's whole entry: its IOS configuration sets everything else.
            return {key: {"ios": {"config": request.ios, "interface": ios_name}}}
        if name not in self.policies:
            raise ValueError(f"no policy `{name}` in the scenario's policies")
        return {f"{key}.output": name}


def _interfaces(document: dict) -> list[str]:
    """The interfaces the scenario configures, as ``NODE.PEER``."""
    found = []
    for node, peers in (document.get("interfaces") or {}).items():
        if isinstance(peers, dict):
            found += [f"{node}.{peer}" for peer in peers]
    return found


def _interface_key(interface: str, known: list[str]) -> str:
    chosen = interface or (known[0] if len(known) == 1 else "")
    if not chosen:
        raise ValueError(
            "choose the interface to configure (NODE.PEER): the scenario configures "
            f"{', '.join(known) or 'none'}"
        )
    node, _, peer = chosen.partition(".")
    if not node or not peer:
        raise ValueError(f"interface {chosen!r}: write it NODE.PEER, e.g. r1.r2")
    return f"interfaces.{node}.{peer}"


def _last_interface(text: str) -> str:
    names = INTERFACE_LINE.findall(text)
    return names[-1] if names else ""


def _locate(error: ScenarioError) -> Located:
    """Where the error is: the scenario's line and column, or for an error in the pasted
    configuration its line there."""
    key_path = str(getattr(error, "key_path", "") or "")
    message = str(getattr(error, "message", "") or error)
    hint = getattr(error, "hint", None)
    if hint:
        message = f"{message}. {hint[:1].upper()}{hint[1:]}"
    if key_path.endswith(".ios.config") or key_path.endswith(".ios"):
        place = IOS_LINE.search(message)
        if place is not None:
            return Located("ios", int(place[1]), int(place[2]), message)
        return Located("ios", 0, 0, message)
    line = getattr(error, "line", None)
    column = getattr(error, "column", None)
    text = f"{key_path}: {message}" if key_path else message
    return Located("scenario", int(line or 0), int(column or 0), text)


def _column(name: str, results: object, target_pct: float) -> Column:
    """One configuration's answer and flows table."""
    contracts = results.contracts  # type: ignore[attr-defined]
    judged = answer(
        contracts.assign(replication=0) if not contracts.empty else None,
        pd.DataFrame(index=[0]),
        target_pct=target_pct,
    )
    flows: pd.DataFrame = results.flows  # type: ignore[attr-defined]
    columns = [column for column in FLOW_COLUMNS if column in flows.columns]
    headings = [heading(column, pd.api.types.is_numeric_dtype(flows[column])) for column in columns]
    rows = [
        [cell(column, record[column]) for column in columns]
        for record in flows[columns].to_dict("records")
    ]
    table = Table("flows", "Flows", headings, [Part("", rows)])
    row = judged.rows()[0]
    apps = [
        AppVerdict(app, float(verdict["mean_pct"]), "in" if verdict["in_contract"] else "out")
        for app, verdict in zip(judged.apps, row.verdicts, strict=True)
        if verdict is not None
    ]
    charted = {
        metric: {
            str(flow): None if pd.isna(value) else float(value)
            for flow, value in zip(flows["flow"], flows[metric], strict=True)
        }
        for metric in CHARTED
    }
    return Column(name, apps=apps, every=row.every, flows=table, charted=charted)
