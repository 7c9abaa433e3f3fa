"""The core's variants, sweep plan and run identity, as the bindings expose them."""

from __future__ import annotations

import json

import pytest

from qoslab._core import ScenarioError, Simulation, scenario_counts, sweep_plan

SCENARIO = """\
name: bound
run: {duration: 1s, seed: 1}
topology:
  nodes: {a: {kind: host}, r: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r], rate: 10Mbps}
    - {between: [r, b], rate: 256kbps}
policies:
  fifo: {kind: fifo, limit: 40}
interfaces:
  r: {b: {output: fifo}}
traffic:
  - {name: voice, from: a, to: b, pattern: {kind: cbr, rate_pps: 50, size: 150B}}
  - {name: data, from: a, to: b, pattern: {kind: cbr, rate: 100kbps, size: 1000B}}
variants:
  quiet:
    remove: [traffic.data]
sweep:
  vary:
    topology.links.1.rate: [128kbps, 512kbps]
  variants: [base, quiet]
  replications: 2
"""


def test_sweep_plan_is_json_with_places():
    plan = json.loads(sweep_plan(SCENARIO, "s.yaml"))
    assert plan["defined_variants"] == ["quiet"]
    assert plan["variants"] == ["base", "quiet"]
    assert plan["replications"] == 2
    assert plan["zip"] == []
    [rate] = plan["vary"]
    assert rate["key"] == "topology.links.1.rate"
    assert [v["value"] for v in rate["values"]] == ["128kbps", "512kbps"]
    assert rate["values"][1]["location"] == "s.yaml:20:38"
    assert rate["values"][1]["key_path"] == "sweep.vary.topology.links.1.rate[1]"
    assert rate["values"][1]["source"] == "s.yaml:20:38: sweep.vary.topology.links.1.rate[1]"


def test_sweep_plan_errors_are_located():
    bad = SCENARIO.replace("replications: 2", "replications: 0")
    with pytest.raises(ScenarioError, match=r"^s\.yaml:22:3: sweep\.replications: "):
        sweep_plan(bad, "s.yaml")


def test_variant_and_replication_reach_the_run():
    assert scenario_counts(SCENARIO, "s.yaml", variant="quiet") == ("bound", 3, 2, 1)
    simulation = Simulation(SCENARIO, "s.yaml", variant="quiet", replication=3, seed=5)
    run = json.loads(simulation.finish())["run"]
    assert (run["variant"], run["replication"], run["seed"]) == ("quiet", 3, 5)
    base = json.loads(Simulation(SCENARIO, "s.yaml").finish())["run"]
    assert (base["variant"], base["replication"]) == (None, 0)


def test_scenario_sha256_identifies_the_run():
    base = Simulation(SCENARIO, "s.yaml")
    assert len(base.scenario_sha256) == 64
    assert Simulation(SCENARIO, "other.yaml").scenario_sha256 == base.scenario_sha256
    assert Simulation(SCENARIO, "s.yaml", variant="quiet").scenario_sha256 != base.scenario_sha256
    changed = Simulation(SCENARIO, "s.yaml", [("topology.links.1.rate", "512kbps")])
    assert changed.scenario_sha256 != base.scenario_sha256
    assert json.loads(changed.finish())["run"]["overrides"] == ["topology.links.1.rate=512kbps"]


def test_an_override_with_a_source_is_reported_there():
    source = "s.yaml:20:38: sweep.vary.topology.links.1.rate[1]"
    with pytest.raises(ScenarioError) as raised:
        Simulation(SCENARIO, "s.yaml", [("topology.links.1.rate", "0kbps", source)])
    expected = f"{source}: topology.links[1].rate: a link rate must be above zero"
    assert str(raised.value).startswith(expected)
    with pytest.raises(ScenarioError, match=r"^s\.yaml \(--set topology\.links\.1\.rate=0kbps\): "):
        Simulation(SCENARIO, "s.yaml", [("topology.links.1.rate", "0kbps")])


def test_an_unknown_variant_is_refused():
    with pytest.raises(ScenarioError, match=r"unknown variant `quite`\. Did you mean `quiet`\?"):
        Simulation(SCENARIO, "s.yaml", variant="quite")
