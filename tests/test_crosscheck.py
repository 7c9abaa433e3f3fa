"""``qoslab crosscheck`` against the running kernel, as root in network namespaces: an HTB
tree (the 1 Mbit/s root, EF voice in a 300 kbit/s class, a flood in a 700 kbit/s one, both
borrowing up to the root, 40-packet pfifo leaves), a continuous token bucket (1 Mbit/s,
3000-byte bucket) over a 30-packet pfifo or its own 45,000-byte limit (a bfifo), and that
shaper on a router between two hosts,
each under a 1.5 Mbit/s flood. qoslab's flood losses must fall within the kernel's two runs
(widened by 0.5 % of the packets sent), its mean and 99th-percentile delays within them
widened by 1 ms, the noise floor and the sender's lateness (99th percentiles), which stay a
small part of the delays judged. Skipped, with the reason, without root or iproute2. Without root,
the qoslab figures docs/linux.md shows are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

import qoslab
from qoslab.cli import main
from qoslab.crosscheck.check import crosscheck, link_warnings
from qoslab.crosscheck.namespaces import missing_tools

ROOT = Path(__file__).resolve().parent.parent

TWO_HOSTS = """\
name: {name}
run: {{duration: 10s}}
topology:
  nodes: {{a: {{kind: host}}, b: {{kind: host}}}}
  links: [{{between: [a, b], rate: 1Gbps}}]
policies:
  p: {policy}
interfaces:
  a: {{b: {{output: p}}}}
traffic:
  - {{name: flood, from: a, to: b, pattern: {{kind: cbr, rate_pps: 125, size: 1500B}}}}
{more}"""

VOICE = (
    "  - {name: voice, from: a, to: b, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 200B}}\n"
)

HTB = (
    "{kind: htb, classes: [{name: root, rate: 1Mbps},"
    " {name: voice, parent: root, rate: 300kbps, ceil: 1Mbps, limit: 40, match: {dscp: EF}},"
    " {name: flood, parent: root, rate: 700kbps, ceil: 1Mbps, prio: 1, limit: 40}]}"
)
TBF = "{kind: tbf, rate: 1Mbps, bc: 3000B, be: 0B, mode: continuous, limit: 30}"
TBF_BYTES = "{kind: tbf, rate: 1Mbps, bc: 3000B, be: 0B, mode: continuous, limit: 45000B}"


@pytest.fixture
def needs_namespaces():
    why = missing_tools()
    if why is not None:
        pytest.skip(why)


def drained_figures(scenario: Path) -> dict:
    """qoslab's flood figures as the cross-check reads them: no warm-up, the flows stopped
    after the 10 s window, the run going on until the queues have drained."""
    flows = ["flood", "voice"] if "name: voice" in scenario.read_text() else ["flood"]
    stops = {f"traffic.{flow}.stop": "10s" for flow in flows}
    results = qoslab.run(str(scenario), set={"run.warmup": "0s", "run.duration": "13s", **stops})
    return results.flow("flood")


def test_the_documented_qoslab_figures(tmp_path):
    page = (ROOT / "docs" / "linux.md").read_text()
    cases = [
        ("htb", HTB, VOICE, "454", "487.8 / 535.8 ms"),
        ("tbf", TBF, "", "394", "339.6 / 363.4 ms"),
        ("tbf-bytes", TBF_BYTES, "", "395", "328.8 / 351.3 ms"),
    ]
    for name, policy, more, lost, delays in cases:
        scenario = tmp_path / f"{name}.yaml"
        scenario.write_text(TWO_HOSTS.format(name=name, policy=policy, more=more))
        flood = drained_figures(scenario)
        assert str(flood["dropped_packets"]) == lost
        assert f"{flood['delay_mean_ms']:.1f} / {flood['delay_p99_ms']:.1f} ms" == delays
        assert f"| {lost} |" in page
        assert f"| {delays} |" in page
    # Charging IP bytes only (the header taken off again) gives the earlier prediction.
    scenario = tmp_path / "ip-bytes.yaml"
    ip_bytes = HTB.replace("{kind: htb,", "{kind: htb, stab: {overhead: -14},")
    scenario.write_text(TWO_HOSTS.format(name="ip-bytes", policy=ip_bytes, more=VOICE))
    flood = drained_figures(scenario)
    lost, mean = flood["dropped_packets"], flood["delay_mean_ms"]
    assert f"it lost {lost} packets of\nthe flood at a mean of {mean:.1f} ms" in page


@pytest.mark.parametrize(
    ("name", "policy", "more"),
    [("htb-two-classes", HTB, VOICE), ("tbf-pfifo", TBF, ""), ("tbf-bfifo", TBF_BYTES, "")],
)
@pytest.mark.usefixtures("needs_namespaces")
def test_the_kernel_agrees(tmp_path, name, policy, more):
    scenario = tmp_path / f"{name}.yaml"
    scenario.write_text(TWO_HOSTS.format(name=name, policy=policy, more=more))
    report = crosscheck(scenario)
    assert report.applied == ["a.b", "b.a"]
    assert report.warnings == []  # an Ethernet link at 1 Gbit/s: as a veth pair is
    flood = next(check for check in report.flows if check.flow == "flood")
    # The replay resolves what it judges: its noise is a small part of the flood's delays.
    assert 0 <= report.noise_floor_ms["p99"] < flood.qoslab["delay_mean_ms"] / 20
    assert 0 <= report.sender_late_us["p99"] / 1000 < flood.qoslab["delay_mean_ms"] / 20
    # The flood overflows the 1 Mbit/s: hundreds of packets lost, in both.
    assert flood.qoslab["lost"] > 300
    assert all(run["lost"] > 300 for run in flood.kernel)
    assert flood.verdicts == {"lost": "agrees", "delay_mean_ms": "agrees", "delay_p99_ms": "agrees"}
    assert report.agrees, [(c.flow, c.qoslab, c.kernel, c.verdicts) for c in report.flows]


@pytest.mark.usefixtures("needs_namespaces")
def test_the_command_prints_a_verdict_per_figure(tmp_path, capsys):
    scenario = tmp_path / "tbf.yaml"
    scenario.write_text(TWO_HOSTS.format(name="tbf", policy=TBF, more=""))
    assert main(["crosscheck", str(scenario), "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "noise floor (idle run)" in out
    assert "flood  lost" in out
    assert "agrees" in out


CHAIN = """\
name: chain
run: {duration: 5s}
topology:
  nodes: {a: {kind: host}, r: {kind: router}, b: {kind: host}}
  links: [{between: [a, r], rate: 1Gbps}, {between: [r, b], rate: 1Gbps}]
policies:
  p: {kind: tbf, rate: 1Mbps, bc: 3000B, be: 0B, mode: continuous, limit: 30}
interfaces:
  r: {b: {output: p}}
traffic:
  - {name: flood, from: a, to: b, pattern: {kind: cbr, rate_pps: 125, size: 1500B}}
"""


@pytest.mark.usefixtures("needs_namespaces")
def test_a_router_forwards_between_two_namespaces(tmp_path):
    # The shaper is on the router's port towards b: the packets cross a namespace that
    # forwards them, along the route the trace shows.
    scenario = tmp_path / "chain.yaml"
    scenario.write_text(CHAIN)
    report = crosscheck(scenario)
    assert "r.b" in report.applied
    (flood,) = report.flows
    assert flood.qoslab["lost"] > 100
    assert flood.verdicts == {"lost": "agrees", "delay_mean_ms": "agrees", "delay_p99_ms": "agrees"}


def test_what_a_veth_pair_does_not_reproduce_is_noted():
    spec = {
        "topology": {
            "links": [
                {"between": ["a", "b"], "rate": "1Gbps"},
                {"between": ["b", "c"], "rate": "2Mbps", "l2": "none"},
            ]
        }
    }
    notes = link_warnings(spec)
    assert len(notes) == 2
    assert notes[0].startswith("link b-c runs at 2Mbps in the scenario, its veth pair unlimited")
    assert "`l2: none`" in notes[1]


def test_without_root_the_command_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    scenario = tmp_path / "tbf.yaml"
    scenario.write_text(TWO_HOSTS.format(name="tbf", policy=TBF, more=""))
    assert main(["crosscheck", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert "needs root (run it with sudo)" in err
    assert "Traceback" not in err
