"""``qoslab tc export`` and ``tc import``: the script on the command line, its refusals at
their place; every example interface's script applied by the running kernel's ``tc`` in a
network namespace (as root; skipped elsewhere, and per discipline the kernel lacks, naming
its module), and read back by ``tc import`` into a run identical to the example's own; the
import from files and its refusals."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import in_namespace, words
from qoslab._core import ScenarioError, tc_from_yaml
from qoslab.cli import main

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


QDISCS = (
    '[{"kind":"htb","handle":"1:","root":true,"options":{"r2q":10,"default":"0x3"}},'
    '{"kind":"pfifo","handle":"2:","parent":"1:2","options":{"limit":40}},'
    '{"kind":"pfifo","handle":"3:","parent":"1:3","options":{"limit":40}}]'
)
CLASSES = "".join(
    f"class htb 1:{minor} {place} rate {rate} ceil 1Mbit burst {burst}b cburst 1600b "
    f"buffer [{ticks}] cbuffer [00030d40]\n"
    for minor, place, rate, burst, ticks in (
        (1, "root", "1Mbit", 1600, "00030d40"),
        (2, "parent 1:1 leaf 2: prio 0 quantum 3750", "300Kbit", 1599, "000a2c20"),
        (3, "parent 1:1 leaf 3: prio 1 quantum 8750", "700Kbit", 1599, "00045c07"),
    )
)
FILTERS = (
    '[{"protocol":"ip","pref":1,"kind":"u32","options":{"flowid":"1:2",'
    '"match":{"value":"b80000","mask":"fc0000","offmask":"","off":0}}}]'
)
"""What iproute2 6.1 shows of the HTB case's script (trimmed of what tc import passes over)."""


def test_import_reads_files_and_refuses_at_the_entry(tmp_path, capsys):
    for name, text in (("q.json", QDISCS), ("c.txt", CLASSES), ("f.json", FILTERS)):
        (tmp_path / name).write_text(text)
    given = ["tc", "import", "--qdiscs", str(tmp_path / "q.json"), "--classes"]
    assert main([*given, str(tmp_path / "c.txt"), "--filters", f"1:={tmp_path / 'f.json'}"]) == 0
    yaml = capsys.readouterr().out
    assert '{name: "1:2", match: {dscp: [46]}, burst: 1600B' in yaml, yaml
    assert 'default: "1:3"' in yaml
    # A filter file whose entries do not say their discipline, given without PARENT=.
    assert main([*given, str(tmp_path / "c.txt"), "--filters", str(tmp_path / "f.json")]) == 2
    err = capsys.readouterr().err
    assert "f.json: [0]: the filter does not say which discipline" in err, err
    (tmp_path / "c.txt").write_text(CLASSES.replace("prio 0", "prio zero"))
    assert main([*given, str(tmp_path / "c.txt")]) == 2
    assert "c.txt: line 2: `prio zero`: the value cannot be read" in capsys.readouterr().err
    assert main(["tc", "import", "--netns", "x", "--qdiscs", "q", "--classes", "c"]) == 2
    assert "--netns names where --dev is" in capsys.readouterr().err
    assert main(["tc", "import"]) == 2
    assert "give --dev DEVICE, or --qdiscs FILE and --classes FILE" in capsys.readouterr().err


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


def _output_overrides(text: str, interface: str, output: object) -> dict[str, object] | None:
    """Overrides giving interface ``interface`` of the scenario ``text`` the output policy
    ``output`` (its hold queue, which gave the old policy, removed); None where a router's
    IOS configuration sets the interface (it cannot be swapped without changing the
    router's other interfaces)."""
    import yaml

    doc = yaml.safe_load(text)
    node, peer = interface.split(".")
    if "ios" in (doc["topology"]["nodes"].get(node) or {}):
        return None
    entry = ((doc.get("interfaces") or {}).get(node) or {}).get(peer) or {}
    if "ios" in entry:
        return None
    key = "interfaces." + interface
    removed = {f"{key}.hold_queue": None} if "hold_queue" in entry else {}
    return {**removed, f"{key}.output": output}


def test_every_applied_example_reads_back_into_an_identical_run(namespace, tmp_path):
    """`tc import` of what the kernel shows after each script runs the example exactly as
    its own policy does: the same packets sent, lost and delayed, to the last digit."""
    from collections import Counter

    import pandas as pd
    import yaml

    import qoslab

    compared, skipped, own = [], [], {}
    for example, interface, script in _example_scripts():
        done = subprocess.run(
            [*in_namespace(namespace), "sh", "-c", script], capture_output=True, text=True
        )
        if done.returncode != 0:
            continue  # a discipline the kernel lacks: reported by the test above
        out = tmp_path / f"{example}-{interface}.yaml"
        assert main(["tc", "import", "--dev", "qv0", "--netns", namespace, "-o", str(out)]) == 0
        imported = yaml.safe_load(out.read_text())["output"]
        overrides = _output_overrides((EXAMPLES / example).read_text(), interface, imported)
        if overrides is None:
            skipped.append(f"{example} {interface}")
            continue
        if example not in own:
            own[example] = qoslab.run(EXAMPLES / example).flows
        read_back = qoslab.run(EXAMPLES / example, set=overrides)
        pd.testing.assert_frame_equal(own[example], read_back.flows, obj=f"{example} {interface}")
        compared.append(imported["kind"])
    assert len(compared) > 10, compared
    kinds = Counter(compared)
    documented = f"identical ({len(compared)} interfaces: {kinds['fifo']} fifo, {kinds['htb']} htb;"
    assert documented in words(ROOT / "docs" / "linux.md"), documented
    print(
        f"read back identically: {len(compared)} interfaces "
        f"({', '.join(f'{k} {n}' for k, n in Counter(compared).items())}); set by a router's IOS "
        f"configuration, not swapped: {', '.join(skipped)}"
    )
