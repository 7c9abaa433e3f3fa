"""``qoslab tc export``: the script on the command line, its refusals at their place, and
every example interface's script applied by the running kernel's ``tc`` in a network
namespace (as root; skipped elsewhere, and per discipline the kernel lacks, naming its
module)."""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from qoslab._core import ScenarioError, tc_from_yaml
from qoslab.cli import main
from qoslab.crosscheck.namespaces import missing_tools

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

HTB = """\
name: htb-two-classes
run: {duration: 10s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 1Gbps}]
policies:
  htb:
    kind: htb
    classes:
      - {name: root, rate: 1Mbps}
      - {name: voice, parent: root, rate: 300kbps, ceil: 1Mbps, limit: 40, match: {dscp: EF}}
      - {name: flood, parent: root, rate: 700kbps, ceil: 1Mbps, prio: 1, limit: 40}
interfaces:
  a: {b: {output: htb}}
traffic:
  - {name: voice, from: a, to: b, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
  - {name: flood, from: a, to: b, pattern: {kind: cbr, rate_pps: 125, size: 1500B}}
"""


def test_the_script_is_printed_or_written(tmp_path, capsys):
    scenario = tmp_path / "htb.yaml"
    scenario.write_text(HTB)
    assert main(["tc", "export", str(scenario), "--interface", "a.b", "--dev", "va"]) == 0
    script = capsys.readouterr().out
    assert script.startswith("#!/bin/sh\n")
    assert "tc qdisc add dev va root handle 1: htb default 3 r2q 10\n" in script
    assert "u32 match ip dsfield 0xb8 0xfc flowid 1:2\n" in script
    out = tmp_path / "htb.sh"
    assert main(["tc", "export", str(scenario), "--interface", "a.b", "-o", str(out)]) == 0
    assert out.read_text().count("dev eth0") == script.count("dev va")


def test_a_policy_tc_cannot_express_is_refused_at_its_line(tmp_path, capsys):
    scenario = tmp_path / "llq.yaml"
    scenario.write_text(
        HTB.replace(
            "    kind: htb\n",
            "    kind: cbwfq\n    classes: [{name: v, match: {dscp: EF}, priority: 100kbps}]\n"
            "  unused:\n    kind: htb\n",
        )
    )
    assert main(["tc", "export", str(scenario), "--interface", "a.b"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"llq\.yaml:8:5: policies\.htb\.kind: the Linux kernel has no discipline", err)
    assert "Traceback" not in err
    with pytest.raises(ScenarioError, match="no link joins `a` and `z`"):
        tc_from_yaml(HTB, "htb.yaml", "a.z")


def _example_scripts() -> list[tuple[str, str, str]]:
    """(example, interface, script) for every example interface tc export writes."""
    import yaml

    out = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        text = path.read_text()
        doc = yaml.safe_load(text)
        for link in doc.get("topology", {}).get("links", []):
            a, b = link["between"]
            for interface in (f"{a}.{b}", f"{b}.{a}"):
                try:
                    script = tc_from_yaml(text, str(path), interface, "qv0")
                except ScenarioError as error:
                    refused = error
                else:
                    out.append((path.name, interface, script))
                    continue
                assert refused.key_path, f"{path.name} {interface}: {refused}"
    return out


def in_namespace(namespace: str) -> list[str]:
    """The prefix that runs a command in network namespace ``namespace``."""
    return ["ip", "netns", "exec", namespace]


KIND = r"handle \S+ (?:stab overhead \S+ mpu \S+ linklayer \S+ )?(\w+)"
"""A discipline's kind in a script's line, after its handle and any size table."""

SMALLEST = {"tbf": ["tbf", "rate", "1mbit", "burst", "10kb", "limit", "10kb"]}
"""Arguments that make a discipline whose defaults need some (tbf has none)."""


def _missing_kind(namespace: str, script: str) -> str | None:
    """The first discipline of ``script`` the running kernel lacks (tried on the veth's
    other end), or None."""
    for kind in dict.fromkeys(re.findall(KIND, script)):
        subprocess.run(
            ["ip", "netns", "exec", namespace, "tc", "qdisc", "del", "dev", "qv1", "root"],
            capture_output=True,
        )
        command = [*in_namespace(namespace), "tc", "qdisc", "add", "dev", "qv1", "root"]
        tried = subprocess.run(
            [*command, *SMALLEST.get(kind, [kind])], capture_output=True, text=True
        )
        if tried.returncode != 0:
            return kind
    return None


@pytest.fixture
def namespace():
    why = missing_tools()
    if why is not None:
        pytest.skip(why)
    name = f"qoslab-tc-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(
            [
                *in_namespace(name),
                "ip",
                "link",
                "add",
                "qv0",
                "type",
                "veth",
                "peer",
                "name",
                "qv1",
            ],
            check=True,
        )
        subprocess.run(["ip", "netns", "exec", name, "ip", "link", "set", "qv0", "up"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def test_every_example_script_is_applied_by_the_kernel(namespace):
    applied, missing = [], {}
    scripts = _example_scripts()
    assert len(scripts) > 20
    for example, interface, script in scripts:
        done = subprocess.run(
            ["ip", "netns", "exec", namespace, "sh", "-c", script],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            kind = _missing_kind(namespace, script)
            assert kind is not None, f"{example} {interface}: tc refused:\n{done.stderr}\n{script}"
            missing.setdefault(kind, []).append(f"{example} {interface}")
            continue
        shown = subprocess.run(
            ["ip", "netns", "exec", namespace, "tc", "-j", "qdisc", "show", "dev", "qv0"],
            capture_output=True,
            text=True,
            check=True,
        )
        root = next(q for q in json.loads(shown.stdout) if q.get("root"))
        first = re.search("root " + KIND, script)
        assert first is not None, script
        assert root["kind"] == first.group(1), (example, interface, root)
        applied.append(f"{example} {interface}")
    assert len(applied) > 10, applied
    if missing:
        print(
            "kernel lacks: "
            + "; ".join(f"sch_{kind} ({len(where)} scripts)" for kind, where in missing.items())
        )
