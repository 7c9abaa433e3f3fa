"""Every example scenario loads and runs, and every policy it defines runs on its
bottleneck interface, so the commands quoted in the examples' comments work."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import qoslab
from conftest import script_check

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
    # `copies: N` makes flows NAME.1 ... NAME.N; a push-to-talk application's TCP rows are
    # NAME.signalling and NAME.signalling.reverse.
    flows, rows = [], []
    for entry in traffic:
        copies = entry.get("copies")
        names = [entry["name"]]
        if copies:
            names = [f"{entry['name']}.{k}" for k in range(1, copies + 1)]
        for name in names:
            flows.append(name)
            rows.append(name)
            if entry.get("app", {}).get("kind") == "ptt":
                rows += [f"{name}.signalling", f"{name}.signalling.reverse"]
            elif "app" in entry:
                rows.append(f"{name}.reverse")
            if entry.get("echo"):
                rows.append(f"{name}.echo")
    assert sorted(results.flows["flow"]) == sorted(rows)
    sent = results.flows.set_index("flow")["sent_packets"]
    assert (sent[flows] > 0).all()
    run = results.run
    assert run["created_packets"] == (
        run["delivered_packets"] + run["dropped_packets"] + run["in_flight_packets"]
    )


def test_every_examples_headline_results_are_the_snapshots():
    """``tests/snapshots/example-headlines.csv`` holds each example's flows as they come out
    now (``scripts/make_example_snapshot.py`` writes it): a change to any example's results
    is a diff of that file."""
    done = script_check("make_example_snapshot.py")
    assert done.returncode == 0, done.stdout + done.stderr
