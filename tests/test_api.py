"""The Python API: running scenarios from files and dicts, overrides, results and files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import qoslab
from qoslab._core import Simulation

POISSON = {"kind": "poisson", "rate_pps": 100, "size": "500B"}


@pytest.fixture(scope="module")
def fifo_results(voice_vs_flood) -> qoslab.Results:
    return qoslab.run(voice_vs_flood)


@pytest.fixture(scope="module")
def pq_results(voice_vs_flood) -> qoslab.Results:
    return qoslab.run(voice_vs_flood, **{"interfaces.r1.r2.output": "pq"})


def test_run_from_path_reports_every_flow(fifo_results):
    assert fifo_results.run["scenario"] == "voice-vs-flood"
    assert list(fifo_results.flows["flow"]) == ["voice", "flood"]
    assert fifo_results.run["qoslab_version"] == qoslab.__version__


def test_run_accepts_a_string_path(voice_vs_flood, fifo_results):
    assert qoslab.run(str(voice_vs_flood)).to_json() == fifo_results.to_json()


def test_run_from_dict(make_scenario):
    results = qoslab.run(make_scenario())
    data = results.flow("data")
    assert results.run["scenario"] == "small"
    assert data["sent_packets"] == 200  # 100 packets/s over the 2 s measured
    assert data["received_packets"] > 0


def test_fifo_lets_the_flood_crowd_out_voice(fifo_results):
    assert fifo_results.flow("voice")["loss_pct"] > 20.0


def test_priority_queuing_protects_voice(pq_results):
    voice = pq_results.flow("voice")
    assert voice["loss_pct"] == 0.0
    assert voice["delay_p99_ms"] < 300.0
    assert pq_results.flow("flood")["loss_pct"] > 20.0


def test_override_forms_agree(voice_vs_flood, pq, pq_results):
    as_mapping = qoslab.run(voice_vs_flood, set=pq)
    as_assignments = qoslab.run(voice_vs_flood, set=[f"{k}={v}" for k, v in pq.items()])
    assert as_mapping.to_json() == pq_results.to_json()
    assert as_assignments.to_json() == pq_results.to_json()
    assert as_mapping.to_json() != qoslab.run(voice_vs_flood).to_json()


def test_keyword_override_uses_double_underscore_for_dots(make_scenario):
    results = qoslab.run(make_scenario(), run__seed=7)
    assert results.run["seed"] == 7


def test_python_values_become_yaml_scalars(make_scenario):
    results = qoslab.run(make_scenario(), set={"run.replication": 3})
    assert results.run["replication"] == 3


def test_seed_argument_replaces_the_scenario_seed(voice_vs_flood):
    assert qoslab.run(voice_vs_flood, seed=5).run["seed"] == 5


def test_same_seed_gives_identical_results(make_scenario):
    scenario = make_scenario(pattern=POISSON)
    assert qoslab.run(scenario, seed=3).to_json() == qoslab.run(scenario, seed=3).to_json()


@pytest.mark.parametrize(("pattern", "varies"), [(POISSON, True), (None, False)])
def test_the_seed_drives_random_traffic_only(make_scenario, pattern, varies):
    scenario = make_scenario(pattern=pattern)
    first = qoslab.run(scenario, seed=1).flows.to_dict("records")
    second = qoslab.run(scenario, seed=2).flows.to_dict("records")
    assert (first != second) is varies


def test_stepping_does_not_change_the_results(voice_vs_flood, fifo_results):
    simulation = Simulation(voice_vs_flood.read_text(), str(voice_vs_flood))
    assert json.loads(simulation.finish()) == json.loads(fifo_results.to_json())


def test_a_finished_simulation_cannot_be_used_again(make_scenario):
    simulation = Simulation(json.dumps(make_scenario()), "<dict>")
    simulation.advance(simulation.end_ns // 2)
    assert simulation.now_ns == simulation.end_ns // 2
    simulation.finish()
    with pytest.raises(RuntimeError, match="already finished"):
        simulation.finish()
    with pytest.raises(RuntimeError, match="already finished"):
        simulation.advance(1)


def test_packets_are_conserved(fifo_results):
    run = fifo_results.run
    assert run["created_packets"] == (
        run["delivered_packets"] + run["dropped_packets"] + run["in_flight_packets"]
    )


def test_tables_have_one_row_per_flow_port_and_class(fifo_results, pq_results):
    assert {"flow", "sent_packets", "loss_pct", "delay_p99_ms", "delivered_l3_bps"} <= set(
        fifo_results.flows.columns
    )
    # Five full-duplex links: ten ports, each with one FIFO class.
    assert len(fifo_results.ports) == 10
    assert len(fifo_results.classes) == 10
    bottleneck = pq_results.ports.set_index("port").loc["r1->r2"]
    assert bottleneck["rate_bps"] == 128_000
    assert bottleneck["qdisc"] == "prio"
    classes = pq_results.classes[pq_results.classes["port"] == "r1->r2"]
    assert list(classes["class"]) == ["high", "medium", "normal", "low"]


def test_flow_lookup_names_the_known_flows(fifo_results):
    with pytest.raises(KeyError, match="voice, flood"):
        fifo_results.flow("video")


def test_rows_are_the_tables_records_with_none_for_a_missing_value(fifo_results):
    rows = fifo_results.rows("flows")
    assert [row["flow"] for row in rows] == ["voice", "flood"]
    assert rows[0] == fifo_results.flow("voice")
    assert fifo_results.rows("apps") == []
    with pytest.raises(KeyError, match="no table named 'run'"):
        fifo_results.rows("run")


EXPECTED_TABLES = (
    "flows",
    "classes",
    "ports",
    "apps",
    "users",
    "probes",
    "spurts",
    "hops",
    "changes",
    "contracts",
    "dq_intervals",
    "voice",
    "voice_spurts",
    "series",
    "class_series",
    "delay_distribution",
)
"""The tables a results document has, written out here so the test does not trust TABLES."""


def test_write_creates_the_json_and_both_formats_of_each_table(fifo_results, tmp_path):
    written = fifo_results.write(tmp_path / "out")
    names = sorted(path.name for path in written)
    assert names == sorted(
        ["results.json"] + [f"{t}.{ext}" for t in EXPECTED_TABLES for ext in ("csv", "parquet")]
    )
    assert all(path.is_file() for path in written)
    assert qoslab.results.TABLES == EXPECTED_TABLES
    assert (tmp_path / "out" / "results.json").read_text() == fifo_results.to_json()
    for table in EXPECTED_TABLES:
        frame = getattr(fifo_results, table)
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "out" / f"{table}.parquet"), frame)
        csv = pd.read_csv(tmp_path / "out" / f"{table}.csv")
        assert list(csv.columns) == list(frame.columns)
        assert len(csv) == len(frame)


def test_schema_describes_the_top_level_keys():
    properties = qoslab.schema()["properties"]
    assert {"name", "run", "topology", "policies", "interfaces", "traffic"} <= set(properties)


def test_validate_counts_nodes_links_and_flows(voice_vs_flood):
    summary = qoslab.validate(voice_vs_flood)
    assert (summary.nodes, summary.links, summary.flows) == (6, 5, 2)
    assert summary.simulated_s == 65.0


def test_exceptions_fit_the_builtin_hierarchy():
    assert issubclass(qoslab.ScenarioError, ValueError)
    assert issubclass(qoslab.RunError, RuntimeError)
