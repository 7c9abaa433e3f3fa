"""What a report says was run: the scenario and its IOS configurations, the run's identity
(version, seed, replication, variant, overrides) and the command that runs it again.

The scenario's text and each IOS configuration are taken from the run's own record of the
texts it read (``inputs`` of its results document), never from a file named by the results
folder or its manifest: a report shows what the run used and nothing else of the machine it
is made on. A sweep's report shows the inputs of its first finished run, and says when other
runs read other configurations.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import yaml

from qoslab._core import parse_override
from qoslab.experiment.sweep import REPLICATION, VARIANT, Sweep
from qoslab.experiment.task import DONE
from qoslab.results import Results
from qoslab.scenario import BASE

DICT_ORIGIN = "<"
"""Start of the origin of a scenario given as text or a dict (``<dict>``), which has no
file."""

SCENARIO = "scenario"
IOS = "ios"
"""The kinds of text a run records having read."""


@dataclass(frozen=True)
class Configuration:
    """One IOS configuration file the run read, as the report shows it."""

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


def of_results(results: Results) -> Provenance:
    """What produced one run, from its own record."""
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
    _read_inputs(provenance, results.inputs)
    provenance.command = _run_command(run, _scenario_file(provenance))
    return provenance


def of_sweep(sweep: Sweep) -> Provenance:
    """What produced a sweep: its manifest's plan, and the inputs its first finished run
    recorded."""
    manifest = sweep.manifest
    plan = manifest["plan"]
    provenance = Provenance(name=str(manifest.get("scenario_name", "")))
    first = _first_finished(sweep)
    provenance.overrides = _common_overrides(sweep, first)
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
    if first is not None:
        _read_inputs(provenance, first.inputs)
        if _other_configurations(sweep):
            provenance.warnings.append(
                "The runs of this sweep read different IOS configurations (a varied key names "
                "them): the scenario and configurations shown are those of its first "
                "finished run"
            )
    command = manifest.get("command")
    if command and isinstance(command, list) and all(isinstance(word, str) for word in command):
        provenance.command = shlex.join(command)
    else:
        provenance.command = _sweep_command(sweep, _scenario_file(provenance), provenance.overrides)
    return provenance


def _first_finished(sweep: Sweep) -> Results | None:
    """The results of the sweep's first finished run, if any."""
    finished = sweep.index[sweep.index["status"] == DONE]
    if finished.empty:
        return None
    first = finished.iloc[0]
    return sweep.results(
        {key: first[key] for key in sweep.keys},
        variant=first[VARIANT] if VARIANT in sweep.parameters else BASE,
        replication=int(first[REPLICATION]),
    )


def _other_configurations(sweep: Sweep) -> bool:
    """Whether a varied key replaces a configuration file, so that runs read other ones."""
    return any(key.endswith(f".{IOS}") or f".{IOS}." in key for key in sweep.keys)


def _scenario_file(provenance: Provenance) -> str:
    """The scenario's file for a command line: its path when it came from one."""
    path = provenance.scenario_path
    return path if path and not path.startswith(DICT_ORIGIN) else "SCENARIO.yaml"


def _common_overrides(sweep: Sweep, first: Results | None) -> list[str]:
    """The overrides every run of the sweep had besides its point's (``--set``), read from
    its first finished run."""
    if first is None:
        return []
    varied = set(sweep.keys)
    return [
        str(text)
        for text in first.run.get("overrides") or []
        if parse_override(str(text))[0] not in varied
    ]


def _read_inputs(provenance: Provenance, inputs: list[dict]) -> None:
    """Fill in the scenario's text, description and IOS configurations from the texts the
    run recorded having read, or say that it recorded none."""
    scenario = next((item for item in inputs if item["kind"] == SCENARIO), None)
    if scenario is None:
        provenance.warnings.append(
            "These results record no inputs (they were written by an earlier version of "
            "qoslab): the scenario and its configurations are not shown"
        )
        return
    provenance.scenario_path = scenario["path"]
    provenance.scenario_text = scenario["text"]
    provenance.configurations = [
        Configuration(item["path"], item["text"]) for item in inputs if item["kind"] == IOS
    ]
    try:
        document = yaml.safe_load(scenario["text"])
    except yaml.YAMLError:
        return
    if isinstance(document, dict) and isinstance(document.get("description"), str):
        provenance.description = document["description"]


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
