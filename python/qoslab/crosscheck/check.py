"""``qoslab crosscheck``: a scenario's prediction held against the Linux kernel.

The scenario's nodes become network namespaces joined by veth pairs, each interface whose
output policy tc can express gets it (``qoslab tc export``), and the scenario's open-loop
packets are replayed at their instants (:mod:`qoslab.crosscheck.replay`). The kernel runs
the replay twice, for its run-to-run spread, and once with every discipline removed and a
thin stream per flow, for the noise floor: what the namespaces, the sender's timing and the
receiver's clock add to a delay by themselves. Per flow it then compares packets, losses and
the mean, 99th-percentile and largest one-way delay, each with a verdict:

* losses agree when qoslab's lie within the kernel's two runs widened by
  ``LOSS_SLACK`` (at least ``MIN_LOSS_SLACK_PACKETS``) of the packets sent;
* a mean or 99th-percentile delay agrees when it lies within the kernel's runs widened by
  ``DELAY_TOLERANCE_MS``, the noise floor's 99th percentile and the 99th percentile of how
  late the sender handed packets to the kernel (the kernel's figures are no finer than what
  the path adds by itself, and a late packet moves the queue it joins); the largest delay is
  shown, not judged (one packet decides it).

Both rules take the kernel's own spread as the measure of what a replay can tell apart: where
packets of several flows share a queue, which of them the tail drops depends on their order
to the microsecond, and that differs between two runs of the kernel as much as between the
kernel and qoslab.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from qoslab._core import ScenarioError, parse_rate_bps, tc_from_yaml
from qoslab.crosscheck.namespaces import Network, NetworkError, missing_tools
from qoslab.crosscheck.replay import DRAIN_NS, Flow, Packets, flows_of, replay, schedules
from qoslab.run import run
from qoslab.scenario import scenario_text

DELAY_TOLERANCE_MS = 1.0
"""How far a mean or 99th-percentile delay may be from the kernel's."""

LOSS_SLACK = 0.005
"""Share of the packets sent by which the kernel's range of losses is widened."""

MIN_LOSS_SLACK_PACKETS = 2
"""The least that widening is, packets."""

IDLE_PACKETS = 50
"""Packets per flow in the idle run, ``IDLE_SPACING_NS`` apart."""

IDLE_SPACING_NS = 20_000_000


class CrosscheckError(Exception):
    """The cross-check cannot run here or on this scenario; the message says why."""


@dataclass
class FlowCheck:
    """One flow: qoslab's figures, the kernel's in each run, and the verdicts."""

    flow: str
    qoslab: dict[str, float]
    kernel: list[dict[str, float]]
    verdicts: dict[str, str]


@dataclass
class Report:
    """What a cross-check found: a line per flow, the ports set up (and those left with the
    kernel's default because tc cannot express their policy, with the reason), the noise
    floor and the sender's timing."""

    flows: list[FlowCheck]
    applied: list[str]
    skipped: dict[str, str] = field(default_factory=dict)
    not_replayed: list[str] = field(default_factory=list)
    """The flows of the run that the replay does not send: applications over TCP, copies."""
    warnings: list[str] = field(default_factory=list)
    """Where the namespaces differ from the scenario's links (their rate, their framing)."""
    noise_floor_ms: dict[str, float] = field(default_factory=dict)
    sender_late_us: dict[str, float] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return all(v != "differs" for check in self.flows for v in check.verdicts.values())


def addresses_of(spec: dict) -> dict[str, str]:
    """Every node's address: as written, or qoslab's default (node number i in the byte
    order of the names gets 10.0.⌊i/250⌋.(i mod 250 + 1))."""
    nodes = spec["topology"]["nodes"]
    out = {}
    for i, name in enumerate(sorted(nodes, key=lambda n: n.encode())):
        written = (nodes[name] or {}).get("address")
        out[name] = written or f"10.0.{i // 250}.{i % 250 + 1}"
    return out


FAST_LINK_BPS = 1_000_000_000
"""A link this fast or faster is taken to be as unlimited as a veth pair."""

ETHERNET = (None, "ethernet", "ethernet-wire")
"""The framings a veth pair carries (the scenario's default is Ethernet)."""


def link_warnings(spec: dict) -> list[str]:
    """What the namespaces do not reproduce of the scenario's links: a veth pair has no rate
    (only shapers and HTB classes limit the kernel) and carries Ethernet frames (the kernel
    charges their 14-byte header)."""
    out = []
    for link in spec["topology"]["links"]:
        a, b = link["between"]
        rate = link.get("rate")
        if rate is not None and parse_rate_bps(str(rate)) < FAST_LINK_BPS:
            out.append(
                f"link {a}-{b} runs at {rate} in the scenario, its veth pair unlimited: "
                "where the link and not a shaper is the bottleneck, the kernel does not queue"
            )
        if link.get("l2") not in ETHERNET:
            out.append(
                f"link {a}-{b} is `l2: {link['l2']}` in the scenario, its veth pair Ethernet: "
                "the kernel charges 14 bytes a packet more than qoslab does there"
            )
    return out


def figures(packets: Packets) -> dict[str, float]:
    """Sent, received and lost packets, and the mean, 99th-percentile and largest delay."""
    delays = packets.delays_ms
    empty = len(delays) == 0
    return {
        "sent": packets.sent,
        "received": packets.received,
        "lost": packets.lost,
        "delay_mean_ms": float("nan") if empty else float(delays.mean()),
        "delay_p99_ms": float("nan") if empty else float(np.percentile(delays, 99)),
        "delay_max_ms": float("nan") if empty else float(delays.max()),
    }


def verdicts(
    ours: dict[str, float], kernel: list[dict[str, float]], timing_ms: float
) -> dict[str, str]:
    """``agrees`` or ``differs`` for the losses and the mean and 99th-percentile delays: each
    within the kernel's runs, widened as the module says (``timing_ms``: the noise floor's and
    the sender's lateness's 99th percentiles together)."""
    losses = [k["lost"] for k in kernel]
    slack = max(MIN_LOSS_SLACK_PACKETS, LOSS_SLACK * ours["sent"])
    out = {
        "lost": "agrees"
        if min(losses) - slack <= ours["lost"] <= max(losses) + slack
        else "differs"
    }
    for name in ("delay_mean_ms", "delay_p99_ms"):
        theirs = [k[name] for k in kernel]
        if np.isnan(ours[name]) or any(np.isnan(theirs)):
            both_empty = np.isnan(ours[name]) and all(np.isnan(theirs))
            out[name] = "agrees" if both_empty else "differs"
            continue
        slack_ms = DELAY_TOLERANCE_MS + timing_ms
        low, high = min(theirs) - slack_ms, max(theirs) + slack_ms
        out[name] = "agrees" if low <= ours[name] <= high else "differs"
    return out


def crosscheck(scenario: str | Path, runs: int = 2) -> Report:
    """Holds the scenario's prediction against the running kernel (see the module)."""
    why = missing_tools()
    if why is not None:
        raise CrosscheckError(why)
    text, origin = scenario_text(scenario)
    spec = yaml.safe_load(text)
    traced = run(str(scenario), set={"run.warmup": "0s"}, trace=True)
    trace = traced.trace()
    flows = flows_of(trace, spec)
    if not flows:
        raise CrosscheckError(
            f"{origin}: no open-loop flow to replay (applications over TCP are not replayed)"
        )
    # qoslab's figures from a run that goes on until the queues have drained, as the
    # receivers wait for the last packets, with the flows stopped where the replay stops.
    window_ns = round(traced.run["duration_s"] * 1e9)
    drained = {"run.warmup": "0s", "run.duration": f"{window_ns + DRAIN_NS}ns"}
    drained.update({f"traffic.{flow.name}.stop": f"{window_ns}ns" for flow in flows})
    results = run(str(scenario), set=drained)
    addresses = addresses_of(spec)
    links = [tuple(link["between"]) for link in spec["topology"]["links"]]
    network = Network(tag=uuid.uuid4().hex[:6], addresses=addresses)
    try:
        network.build(links)
        for flow in flows:
            network.route(list(flow.path), flow.destination)
        scripts, skipped = _apply_policies(network, text, origin, links)
        applied = list(scripts)
        plan = schedules(trace, flows, addresses)
        kernel_runs = []
        late_ns: list[int] = []
        for _ in range(runs):
            # Every replay starts from fresh disciplines: full buckets, empty queues.
            for port, script in scripts.items():
                network.apply(port.split(".")[0], script)
            got, late = replay(network, flows, plan)
            kernel_runs.append(got)
            late_ns.extend(late)
        noise = _idle(network, flows, plan, applied)
    except NetworkError as error:
        raise CrosscheckError(f"the kernel's side of the cross-check failed: {error}") from error
    finally:
        network.close()
    ours = {row["flow"]: row for row in results.rows("flows")}
    late_us = np.array(late_ns, dtype=np.float64) / 1e3
    slack_ms = noise["p99"] + float(np.percentile(late_us, 99)) / 1e3
    checks = []
    for flow in flows:
        row = ours[flow.name]
        mine = {
            "sent": row["sent_packets"],
            "received": row["received_packets"],
            "lost": row["dropped_packets"],
            "delay_mean_ms": row["delay_mean_ms"],
            "delay_p99_ms": row["delay_p99_ms"],
            "delay_max_ms": row["delay_max_ms"],
        }
        theirs = [figures(kernel_run[flow.name]) for kernel_run in kernel_runs]
        checks.append(FlowCheck(flow.name, mine, theirs, verdicts(mine, theirs, slack_ms)))
    replayed = {flow.name for flow in flows}
    return Report(
        flows=checks,
        applied=applied,
        skipped=skipped,
        not_replayed=sorted(str(name) for name in set(trace["flow"].unique()) - replayed),
        warnings=link_warnings(spec),
        noise_floor_ms=noise,
        sender_late_us={
            "mean": float(late_us.mean()),
            "p99": float(np.percentile(late_us, 99)),
            "max": float(late_us.max()),
        },
    )


def _apply_policies(
    network: Network, text: str, origin: str, links: list[tuple[str, ...]]
) -> tuple[dict[str, str], dict[str, str]]:
    """The ports whose policy tc expresses and the kernel applies, with their scripts; the
    others, with why."""
    applied: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for a, b in links:
        for node, peer in ((a, b), (b, a)):
            port = f"{node}.{peer}"
            try:
                script = tc_from_yaml(text, origin, port, network.devices[(node, peer)])
            except ScenarioError as error:
                skipped[port] = str(error)
                continue
            done = network.apply(node, script)
            if done.returncode != 0:
                refusal = done.stderr.strip()
                skipped[port] = (
                    f"the kernel refused it: {refusal} (a discipline's module, sch_<kind>, "
                    "may be missing)"
                )
                network.clear(node, peer)
                continue
            applied[port] = script
    return applied, skipped


def _idle(
    network: Network, flows: list[Flow], plan: dict[str, list[dict]], applied: list[str]
) -> dict[str, float]:
    """The noise floor: one-way delays of a thin stream per flow with every discipline
    removed (ms: mean, 99th percentile, largest)."""
    for port in applied:
        node, peer = port.split(".")
        network.clear(node, peer)
    thin: dict[str, list[dict]] = {}
    for source, packets in plan.items():
        by_flow: dict[int, dict] = {}
        for packet in packets:
            by_flow.setdefault(packet["flow"], packet)
        thin[source] = sorted(
            (
                {**packet, "offset_ns": k * IDLE_SPACING_NS + packet["flow"] * 1000}
                for packet in by_flow.values()
                for k in range(IDLE_PACKETS)
            ),
            key=lambda p: p["offset_ns"],
        )
    got, _ = replay(network, flows, thin)
    delays = np.concatenate([packets.delays_ms for packets in got.values()])
    return {
        "mean": float(delays.mean()),
        "p99": float(np.percentile(delays, 99)),
        "max": float(delays.max()),
    }
