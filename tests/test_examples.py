"""Every example scenario loads and runs, and every policy it defines runs on its
bottleneck interface, so the commands quoted in the examples' comments work."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import qoslab

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml"))


def variants():
    """(example, override) for the example as written and for each policy it defines."""
    for path in EXAMPLES:
        yield pytest.param(path, {}, id=path.stem)
        document = yaml.safe_load(path.read_text())
        interfaces = document.get("interfaces", {})
        for node, by_peer in interfaces.items():
            for peer in by_peer:
                for policy in document.get("policies", {}):
                    key = f"interfaces.{node}.{peer}.output"
                    name = f"{path.stem}-{node}-{peer}-{policy}"
                    yield pytest.param(path, {key: policy}, id=name)


@pytest.mark.parametrize(("path", "overrides"), list(variants()))
def test_example_runs(path, overrides):
    results = qoslab.run(path, set=overrides)
    traffic = yaml.safe_load(path.read_text())["traffic"]
    # Each entry has its row; an application adds `.reverse` (what the receiver sends back)
    # and an echoed flow `.echo` (the replies).
    rows = [entry["name"] for entry in traffic]
    rows += [f"{entry['name']}.reverse" for entry in traffic if "app" in entry]
    rows += [f"{entry['name']}.echo" for entry in traffic if entry.get("echo")]
    assert sorted(results.flows["flow"]) == sorted(rows)
    sent = results.flows.set_index("flow")["sent_packets"]
    assert (sent[[entry["name"] for entry in traffic]] > 0).all()
    run = results.run
    assert run["created_packets"] == (
        run["delivered_packets"] + run["dropped_packets"] + run["in_flight_packets"]
    )
