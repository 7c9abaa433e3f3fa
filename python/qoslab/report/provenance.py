"""What a report says was run: the scenario file and its IOS configurations, the run's
identity (version, seed, replication, variant, overrides) and the command that runs it again.

A results document records the scenario's hash but not its file, so the file is named by the
caller (``source``) or, for a sweep, taken from its manifest. A run's file is checked against
the run: it is loaded with the run's variant, overrides, seed and replication and its hash
compared with the recorded one, so a report never presents a scenario edited since as the
one that ran.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from qoslab._core import MAX_SCENARIO_BYTES, ScenarioError, Simulation, parse_override
from qoslab.experiment.sweep import REPLICATION, VARIANT, Sweep
from qoslab.experiment.task import DONE
from qoslab.results import Results
from qoslab.scenario import BASE
from qoslab.textfile import read_text

DICT_ORIGIN = "<"
"""Start of the origin of a scenario given as a dict (``<dict>``), which has no file."""

IOS_OVERRIDE_SUFFIX = ".ios"
"""End of the ``--set`` key path that replaces a node's IOS configuration file."""


@dataclass(frozen=True)
class Configuration:
    """One router's IOS configuration file, as the report shows it."""

    node: str
    path: str
    text: str


@dataclass
class Provenance:
    """Everything a report says about where its numbers come from."""

    name: str
    description: str = ""
    scenario_path: str = ""
    scenario_text: str = ""
    configurations: list[Configuration] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    command: str = ""
    warnings: list[str] = field(default_factory=list)


def of_results(results: Results, source: str | os.PathLike[str] | None) -> Provenance:
    """What produced one run; ``source`` is the scenario file it ran, when known."""
    run = results.run
    overrides = [str(text) for text in run.get("overrides") or []]
    provenance = Provenance(name=str(run.get("scenario", "")), overrides=overrides)
    provenance.facts = [
        ("qoslab version", str(run.get("qoslab_version", ""))),
        ("variant", str(run.get("variant") or "base")),
        ("seed", str(run.get("seed", ""))),
        ("replication", str(run.get("replication", ""))),
        ("measured", f"{run.get('duration_s', 0):g} s after {run.get('warmup_s', 0):g} s warm-up"),
        ("scenario SHA-256", str(run.get("scenario_sha256", ""))),
    ]
    if source is not None:
        _read_scenario(provenance, Path(source), overrides)
        if provenance.scenario_text:
            _check_hash(provenance, run, overrides)
    provenance.command = _run_command(run, provenance.scenario_path or "SCENARIO.yaml")
    return provenance


def of_sweep(sweep: Sweep, source: str | os.PathLike[str] | None) -> Provenance:
    """What produced a sweep; ``source`` replaces the scenario file its manifest names."""
    manifest = sweep.manifest
    plan = manifest["plan"]
    provenance = Provenance(name=str(manifest.get("scenario_name", "")))
    provenance.overrides = _common_overrides(sweep)
    grid = "; ".join(
        f"{axis['key']} = {', '.join(map(str, axis['values']))}" for axis in plan["vary"]
    )
    provenance.facts = [
        ("qoslab version", str(manifest.get("qoslab_version", ""))),
        ("grid", grid or "one point"),
        ("variants", ", ".join(sweep.variants)),
        ("replications per point", str(plan.get("replications", ""))),
        ("seed", "the scenario's" if plan.get("seed") is None else str(plan["seed"])),
        ("runs", f"{len(sweep.index)}, of which {len(sweep.failures)} did not finish"),
    ]
    origin = str(manifest.get("scenario") or "")
    has_file = bool(origin) and not origin.startswith(DICT_ORIGIN)
    if source is not None or has_file:
        _read_scenario(provenance, Path(source if source is not None else origin), [])
    command = manifest.get("command")
    if command:
        provenance.command = shlex.join(command)
    else:
        scenario = provenance.scenario_path or (origin if has_file else "SCENARIO.yaml")
        provenance.command = _sweep_command(sweep, scenario, provenance.overrides)
    return provenance


def _common_overrides(sweep: Sweep) -> list[str]:
    """The overrides every run of the sweep had besides its point's (``--set``), read from
    its first finished run."""
    finished = sweep.index[sweep.index["status"] == DONE]
    if finished.empty:
        return []
    first = finished.iloc[0]
    results = sweep.results(
        {key: first[key] for key in sweep.keys},
        variant=first[VARIANT] if VARIANT in sweep.parameters else BASE,
        replication=int(first[REPLICATION]),
    )
    varied = set(sweep.keys)
    return [
        str(text)
        for text in results.run.get("overrides") or []
        if parse_override(str(text))[0] not in varied
    ]


def _read_scenario(provenance: Provenance, path: Path, overrides: list[str]) -> None:
    """Fill in the scenario's text, description and IOS configurations from ``path``, or
    say why they are missing."""
    try:
        text = read_text(path, limit_bytes=MAX_SCENARIO_BYTES)
    except ScenarioError as error:
        provenance.warnings.append(f"The scenario file is not shown: {error}")
        return
    provenance.scenario_path = os.fspath(path)
    provenance.scenario_text = text
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return
    if not isinstance(document, dict):
        return
    description = document.get("description")
    if isinstance(description, str):
        provenance.description = description
    provenance.configurations = _configurations(provenance, document, path, overrides)


def _configurations(
    provenance: Provenance, document: dict, path: Path, overrides: list[str]
) -> list[Configuration]:
    """The IOS configuration of every node that names one (``ios:``), after the overrides;
    paths are relative to the scenario's folder, as the simulator reads them."""
    nodes = (document.get("topology") or {}).get("nodes") or {}
    if not isinstance(nodes, dict):
        return []
    files = {
        str(node): str(entry["ios"])
        for node, entry in nodes.items()
        if isinstance(entry, dict) and entry.get("ios") is not None
    }
    for text in overrides:
        key, value = parse_override(text)
        head = "topology.nodes."
        if key.startswith(head) and key.endswith(IOS_OVERRIDE_SUFFIX):
            files[key[len(head) : -len(IOS_OVERRIDE_SUFFIX)]] = value
    configurations = []
    for node, name in files.items():
        file = path.parent / name
        try:
            text = read_text(file, limit_bytes=MAX_SCENARIO_BYTES)
        except ScenarioError as error:
            provenance.warnings.append(f"The IOS configuration of {node} is not shown: {error}")
            continue
        configurations.append(Configuration(node, os.fspath(file), text))
    return configurations


def _check_hash(provenance: Provenance, run: dict, overrides: list[str]) -> None:
    """Warn when the scenario file, loaded as the run loaded it, is not what ran."""
    try:
        simulation = Simulation(
            provenance.scenario_text,
            provenance.scenario_path,
            [parse_override(text) for text in overrides],
            seed=run.get("seed"),
            variant=run.get("variant"),
            replication=run.get("replication"),
        )
    except ScenarioError as error:
        provenance.warnings.append(
            f"The scenario file no longer loads as this run loaded it ({error}); it may have "
            "been edited since the run"
        )
        return
    if simulation.scenario_sha256 != run.get("scenario_sha256"):
        provenance.warnings.append(
            f"{provenance.scenario_path} (or a file it names) is not the scenario this run "
            "used: its hash differs from the recorded scenario SHA-256. It has been edited "
            "since the run, or is another file; the text shown is today's"
        )


def _run_command(run: dict, scenario: str) -> str:
    """The ``qoslab run`` command that gives this run's results again."""
    words = ["qoslab", "run", scenario]
    if run.get("variant"):
        words += ["--variant", str(run["variant"])]
    for text in run.get("overrides") or []:
        words += ["--set", str(text)]
    words += ["--seed", str(run.get("seed")), "--replication", str(run.get("replication"))]
    return shlex.join(words)


def _sweep_command(sweep: Sweep, scenario: str, overrides: list[str]) -> str:
    """A ``qoslab sweep`` command for a sweep started from Python, from its plan and the
    overrides every run had."""
    plan = sweep.manifest["plan"]
    words = ["qoslab", "sweep", scenario]
    for axis in plan["vary"]:
        words += ["--vary", f"{axis['key']}={','.join(map(str, axis['values']))}"]
    if plan.get("zip"):
        words.append("--zip")
    for variant in plan["variants"]:
        if variant is not None:
            words += ["--variant", variant]
    words += ["--reps", str(plan["replications"])]
    if plan.get("seed") is not None:
        words += ["--seed", str(plan["seed"])]
    for text in overrides:
        words += ["--set", text]
    return shlex.join(words)
