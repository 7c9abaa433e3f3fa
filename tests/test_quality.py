"""What the applications experienced, through the Python API: the contracts, voice and
series DataFrames, and the order of failure over a sweep of link rates."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import qoslab
from qoslab.cli import main


def two_classes(rate: str) -> dict[str, object]:
    """Voice in the high band and bulk UDP data in the low band of a priority queue on a
    link of ``rate``; framed for HDLC, the three calls offer 248 kbit/s (207-byte frames, 50
    a second each) and the data 302 kbit/s."""
    return {
        "name": "two-classes",
        "run": {"duration": "5s", "warmup": "1s", "seed": 1},
        "topology": {
            "nodes": {"a": {"kind": "host"}, "r": {"kind": "router"}, "b": {"kind": "host"}},
            "links": [
                {"between": ["a", "r"], "rate": "100Mbps"},
                {"between": ["r", "b"], "rate": rate, "l2": "hdlc"},
            ],
        },
        "policies": {
            "pq": {
                "kind": "prio",
                "bands": [{"name": "high", "limit": 20}, {"name": "low", "limit": 20}],
                "default": "low",
                "classify": [{"match": {"dscp": "EF"}, "band": "high"}],
            }
        },
        "interfaces": {"r": {"b": {"output": "pq"}}},
        "traffic": [
            {
                "name": "voice",
                "copies": 3,
                "from": "a",
                "to": "b",
                "dscp": "EF",
                "pattern": {"kind": "codec", "codec": "g711"},
            },
            {
                "name": "data",
                "from": "a",
                "to": "b",
                "pattern": {"kind": "cbr", "rate": "300kbps", "size": "1000B"},
            },
        ],
        "measure": {
            "at": ["r->b"],
            "budgets": [
                {"app": "voice", "end_to_end": {"delay": "30ms", "loss": "1%"}},
                {"app": "data", "end_to_end": {"delay": "200ms", "loss": "2%"}},
            ],
            "order_of_failure": ["data", "voice"],
        },
    }


RATES = ("2Mbps", "600kbps", "400kbps", "200kbps")
"""From the mildest to the harshest: the data fails below about 600 kbit/s (the two offer
that much together), the voice only below its own 248 kbit/s."""


@pytest.fixture(scope="module")
def sweep() -> list[tuple[str, qoslab.Results]]:
    return [(rate, qoslab.run(two_classes(rate))) for rate in RATES]


def test_contracts_are_a_dataframe_with_units_in_the_names(sweep):
    contracts = sweep[0][1].contracts
    assert list(contracts["app"]) == ["voice", "data", "all", "quality"]
    assert {"consumption_mean", "in_contract_pct", "offered_bps", "in_contract_bps"} <= set(
        contracts.columns
    )
    mild = contracts.set_index("app")
    assert mild.loc["voice", "in_contract_pct"] == 100.0
    assert mild.loc["data", "in_contract_pct"] == 100.0


def test_the_declared_order_holds_when_the_low_band_breaks_first(sweep):
    table = qoslab.order_of_failure(sweep)
    rows = table.set_index("app")
    assert list(table["app"]) == ["data", "voice"]
    assert rows.loc["data", "first_failure_at"] == "400kbps"
    assert rows.loc["voice", "first_failure_at"] == "200kbps"
    assert list(rows["observed_rank"]) == [1, 2]
    assert list(rows["fails_before"]) == ["", ""]


def test_an_order_the_sweep_contradicts_is_reported(sweep):
    table = qoslab.order_of_failure(sweep, declared=["voice", "data"]).set_index("app")
    assert table.loc["data", "fails_before"] == "voice"
    assert table.loc["voice", "fails_before"] == ""


def test_in_contract_share_as_the_failure_criterion(sweep):
    table = qoslab.order_of_failure(sweep, min_in_contract_pct=99.0).set_index("app")
    # A share criterion can only fail as early as the mean consumption does, or earlier.
    by_mean = qoslab.order_of_failure(sweep).set_index("app")
    for app in ("data", "voice"):
        assert table.loc[app, "first_failure_step"] <= by_mean.loc[app, "first_failure_step"]


def test_order_of_failure_needs_budgets(make_scenario):
    with pytest.raises(ValueError, match=r"measure\.budgets"):
        qoslab.order_of_failure([(1, qoslab.run(make_scenario()))])


def test_voice_and_series_tables(make_scenario):
    scenario = make_scenario(pattern={"kind": "codec", "codec": "g729"})
    scenario["measure"] = {"series": "500ms"}
    results = qoslab.run(scenario)
    voice = results.voice.iloc[0]
    assert voice["codec"] == "g729"
    assert voice["late_packets"] == 0
    assert 3.0 < voice["mos"] < 4.5
    assert voice["codec_delay_ms"] == 5.0, "G.729's look-ahead"
    assert len(results.voice_spurts) == 1
    series = results.series
    assert set(series["interval_s"]) == {0.5}
    assert series["delivered_packets"].sum() == results.flow("data")["received_packets"]


def test_class_series_table(make_scenario):
    """Per class and interval: its columns in order, empty without ``measure.series``, and
    departures and drops adding up to the classes table's."""
    assert list(qoslab.run(make_scenario()).class_series.columns) == qoslab.results.columns(
        "class_series"
    )
    scenario = make_scenario()
    scenario["measure"] = {"series": "500ms"}
    results = qoslab.run(scenario)
    table = results.class_series
    assert list(table.columns) == qoslab.results.columns("class_series")
    assert set(table["interval_s"]) == {0.5}
    keys = ["port", "since_s", "class"]
    totals = table.groupby(keys)[["dequeued_packets", "dropped_packets"]].sum()
    classes = results.classes.set_index(keys)[["dequeued_packets", "dropped_packets"]]
    pd.testing.assert_frame_equal(totals.sort_index(), classes.sort_index(), check_dtype=False)


def test_series_rows_name_their_application():
    scenario = two_classes("600kbps")
    scenario["measure"]["series"] = "1s"
    series = qoslab.run(scenario).series
    assert set(series["app"]) == {"voice", "data"}
    per_app = series.groupby(["app", "start_s"])["delivered_packets"].sum()
    # Three G.711 calls deliver 150 packets in every whole second of the window.
    assert (per_app.loc["voice"].iloc[1:-1] == 150).all()


def test_order_of_failure_command(tmp_path, capsys):
    scenario = tmp_path / "two-classes.yaml"
    scenario.write_text(json.dumps(two_classes("2Mbps")))  # JSON is YAML
    vary = "topology.links.1.rate=" + ",".join(RATES)
    assert main(["order-of-failure", str(scenario), "--vary", vary]) == 0
    out = capsys.readouterr().out
    assert "order of failure as topology.links.1.rate goes 2Mbps → 600kbps" in out
    assert "the declared order holds" in out
    assert "400kbps" in out


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        ("rate", "write KEY.PATH=V1,V2,..."),
        ("topology.links.1.rate=1Mbps", "at least two values"),
    ],
)
def test_order_of_failure_command_rejects_a_bad_vary(tmp_path, capsys, vary, message):
    scenario = tmp_path / "two-classes.yaml"
    scenario.write_text(json.dumps(two_classes("2Mbps")))
    assert main(["order-of-failure", str(scenario), "--vary", vary]) == 2
    assert message in capsys.readouterr().err


def test_order_of_failure_command_needs_budgets(voice_vs_flood, capsys):
    vary = "topology.links.1.rate=1Mbps,128kbps"
    assert main(["order-of-failure", str(voice_vs_flood), "--vary", vary]) == 2
    assert "give the scenario measure.budgets" in capsys.readouterr().err
