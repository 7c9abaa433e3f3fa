"""The per-packet trace: ``trace.parquet`` in the results folder, its columns and types, its
rows against the flow table, the row cap's note, and the options that ask for it."""

from __future__ import annotations

import pandas as pd
import pytest

import qoslab
from conftest import small_scenario
from qoslab.cli import main
from qoslab.output.ledger import NAME as LEDGER
from qoslab.results import RESULT_FILES
from qoslab.trace import SCHEMA, TRACE_PARQUET

COLUMNS = [
    "time_ns",
    "event",
    "node",
    "port",
    "flow",
    "packet_id",
    "size_bytes",
    "dscp",
    "ecn",
    "class",
    "queue_packets",
    "delay_ns",
    "reason",
    "tcp_seq",
    "tcp_ack",
]

DTYPES = {
    "time_ns": "uint64",
    "event": "category",
    "node": "category",
    "port": "category",
    "flow": "category",
    "packet_id": "uint64",
    "size_bytes": "uint32",
    "dscp": "uint8",
    "ecn": "uint8",
    "class": "category",
    "queue_packets": "float64",
    "delay_ns": "uint64",
    "reason": "category",
    "tcp_seq": "float64",
    "tcp_ack": "float64",
}
"""How pandas reads the columns (a whole-number column with missing values as float)."""


def congested(make_scenario) -> dict:
    """The small scenario with its 1 Mbit/s port offered 1.6 Mbit/s: tail drops."""
    scenario = make_scenario(pattern={"kind": "poisson", "rate_pps": 400, "size": "500B"})
    scenario["traffic"].append(
        {
            "name": "voice",
            "from": "a",
            "to": "b",
            "dscp": "ef",
            "pattern": {"kind": "cbr", "rate_pps": 50, "size": "200B"},
        }
    )
    return scenario


@pytest.fixture(scope="module")
def traced():
    return qoslab.run(congested(small_scenario), trace=True)


def test_the_trace_is_written_with_its_columns_and_types(traced, tmp_path):
    written = traced.write(tmp_path / "out")
    assert [path.name for path in written] == [*RESULT_FILES[:-1], TRACE_PARQUET, "results.json"]
    trace = pd.read_parquet(tmp_path / "out" / TRACE_PARQUET)
    assert list(trace.columns) == COLUMNS == SCHEMA.names
    assert {column: str(dtype) for column, dtype in trace.dtypes.items()} == DTYPES
    assert set(trace["event"].unique()) == {"arrival", "drop", "dequeue", "transmit", "delivery"}
    assert set(trace["port"].dropna().unique()) == {"a->r", "r->b"}
    deliveries = trace[trace["event"] == "delivery"]
    assert deliveries["port"].isna().all()
    assert deliveries["queue_packets"].isna().all()
    assert (deliveries["node"] == "b").all()
    drops = trace[trace["event"] == "drop"]
    assert (drops["reason"] == "tail").all()
    assert (drops["port"] == "r->b").all()
    assert trace["reason"].isna().sum() == len(trace) - len(drops)
    assert (trace[trace["flow"] == "voice"]["dscp"] == 46).all()
    assert trace["tcp_seq"].isna().all()
    assert trace["tcp_ack"].isna().all()
    assert trace["time_ns"].is_monotonic_increasing
    pd.testing.assert_frame_equal(traced.trace(), trace)


def test_the_rows_match_the_flow_table(traced):
    trace = traced.trace()
    for flow in traced.flows.to_dict("records"):
        rows = trace[trace["flow"] == flow["flow"]]
        count = rows.groupby(["event", "port"], observed=True, dropna=False).size()
        assert count[("arrival", "a->r")] == flow["sent_packets"]
        assert (rows["event"] == "delivery").sum() == flow["received_packets"]
        assert (rows["event"] == "drop").sum() == flow["dropped_packets"]
        for port in ("a->r", "r->b"):
            arrived = count.get(("arrival", port), 0)
            left = count.get(("drop", port), 0) + count.get(("dequeue", port), 0)
            assert 0 <= arrived - left <= 10  # still in the queue of ten at the end
    assert (trace["event"] == "drop").sum() > 0


def test_no_trace_unless_asked(make_scenario, tmp_path):
    results = qoslab.run(make_scenario())
    assert results.trace_path is None
    with pytest.raises(LookupError, match="--trace"):
        results.trace()
    assert TRACE_PARQUET not in [path.name for path in results.write(tmp_path / "out")]


def test_the_scenario_key_narrows_the_trace_and_the_cap_leaves_a_note(make_scenario):
    scenario = congested(make_scenario)
    scenario["measure"] = {"trace": {"points": ["r->b"], "flows": ["voice"], "max_rows": 100}}
    results = qoslab.run(scenario)
    trace = results.trace()
    assert len(trace) == 100
    assert set(trace["flow"].unique()) == {"voice"}
    assert set(trace["port"].unique()) == {"r->b"}
    note = (
        "trace stopped at 100 rows: raise measure.trace.max_rows or narrow "
        "measure.trace.points/flows"
    )
    assert note in results.run["notes"]
    assert qoslab.run(scenario, trace=False).trace_path is None


def test_unknown_names_are_scenario_errors_at_their_key(make_scenario):
    scenario = make_scenario()
    scenario["measure"] = {"trace": {"points": ["r->c"]}}
    with pytest.raises(qoslab.ScenarioError, match=r"measure\.trace\.points\[0\].*r->b"):
        qoslab.run(scenario)


def test_cli_trace_option_and_a_later_run_without_it(voice_vs_flood, tmp_path):
    out = tmp_path / "out"
    args = ["run", str(voice_vs_flood), "--set", "run.duration=1s", "-o", str(out)]
    assert main([*args, "--trace"]) == 0
    trace = pd.read_parquet(out / TRACE_PARQUET)
    assert len(trace) > 0
    pd.testing.assert_frame_equal(qoslab.load(out).trace(), trace)  # read back with the run
    assert main(args) == 0
    assert sorted(path.name for path in out.iterdir()) == sorted([*RESULT_FILES, LEDGER])
    with pytest.raises(LookupError, match="recorded no per-packet trace"):
        qoslab.load(out).trace()


def test_tcp_segments_carry_their_sequence_and_acknowledgement_numbers(make_scenario):
    scenario = make_scenario(pattern={"kind": "cbr", "rate_pps": 10, "size": "100B"})
    scenario["traffic"] = [
        {
            "name": "ftp",
            "from": "a",
            "to": "b",
            "start": "600ms",
            "app": {"kind": "bulk", "size": "30kB"},
        }
    ]
    trace = qoslab.run(scenario, trace=True).trace()
    sent = trace[
        (trace["flow"] == "ftp") & (trace["event"] == "arrival") & (trace["port"] == "a->r")
    ]
    data = sent[sent["size_bytes"] > 40]
    # Data from sequence 1 (the SYN is 0), each segment after the previous one's bytes.
    assert sent["tcp_seq"].iloc[0] == 0
    assert list(data["tcp_seq"].iloc[:3]) == [1, 1461, 2921]
    acks = trace[(trace["flow"] == "ftp.reverse") & (trace["event"] == "delivery")]["tcp_ack"]
    assert acks.is_monotonic_increasing
    assert acks.iloc[-1] == 30_002
