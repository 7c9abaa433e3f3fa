"""A scenario's open-loop traffic as the kernel sees it: the packets qoslab created, replayed
at the same instants from the same nodes, and what each flow experienced in the kernel.

qoslab runs the scenario once without warm-up and with a per-packet trace; each packet's
first trace row (its arrival at its source's port) gives its creation instant, size and DSCP,
and the ports it crossed give its flow's path. The replay sends those packets, by the
scenario's clock, from the sender in each source's namespace to a receiver in each
destination's (:mod:`qoslab.crosscheck.sender`, :mod:`qoslab.crosscheck.receiver`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qoslab.crosscheck.namespaces import Network, NetworkError

START_DELAY_NS = 1_500_000_000
"""How long after the replay is set up its first packet leaves: time for the receivers to
open their sockets."""

DRAIN_NS = 3_000_000_000
"""How long the receivers wait after the last packet was due."""

FIRST_PORT = 40_000
"""The UDP port of the first flow that gives none (each flow a port of its own)."""


@dataclass(frozen=True)
class Flow:
    """An open-loop flow of the scenario: its number in the replay, endpoints, ports and the
    nodes of its path."""

    number: int
    name: str
    source: str
    destination: str
    src_port: int
    dst_port: int
    path: tuple[str, ...]


@dataclass(frozen=True)
class Packets:
    """What one replay gave a flow: packets sent and received, and the one-way delays of
    those received (ms)."""

    sent: int
    delays_ms: np.ndarray

    @property
    def received(self) -> int:
        return len(self.delays_ms)

    @property
    def lost(self) -> int:
        return self.sent - self.received


def flows_of(trace: pd.DataFrame, spec: dict) -> list[Flow]:
    """The scenario's open-loop flows that the trace shows, with their paths; ``spec`` is
    the scenario document. Applications and the copies of an entry (``copies``) are left
    out: the replay sends what a traffic entry names."""
    entries = {entry["name"]: entry for entry in spec.get("traffic", []) if "app" not in entry}
    out = []
    for number, name in enumerate(sorted(entries)):
        rows = trace[(trace["flow"] == name) & (trace["event"] == "arrival")]
        if rows.empty:
            continue
        first = rows[rows["packet_id"] == rows["packet_id"].min()].sort_values("time_ns")
        path = [str(port).split("->")[0] for port in first["port"]]
        path.append(str(first["port"].iloc[-1]).split("->")[1])
        entry = entries[name]
        out.append(
            Flow(
                number=number,
                name=name,
                source=entry["from"],
                destination=entry["to"],
                src_port=int(entry.get("src_port", FIRST_PORT + number)),
                dst_port=int(entry.get("dst_port", FIRST_PORT + number)),
                path=tuple(path),
            )
        )
    return out


def schedules(
    trace: pd.DataFrame, flows: list[Flow], addresses: dict[str, str]
) -> dict[str, list[dict]]:
    """The packets each source node sends, in time order: offset from the start (ns), flow
    number, addresses, ports, IP size and DSCP."""
    by_name = {flow.name: flow for flow in flows}
    arrivals = trace[(trace["event"] == "arrival") & trace["flow"].isin(list(by_name))]
    first = arrivals.sort_values("time_ns").drop_duplicates("packet_id")
    out: dict[str, list[dict]] = {}
    columns = ["flow", "time_ns", "delay_ns", "size_bytes", "dscp"]
    for name, time_ns, delay_ns, size_bytes, dscp in first[columns].itertuples(index=False):
        flow = by_name[str(name)]
        out.setdefault(flow.source, []).append(
            {
                "offset_ns": int(time_ns) - int(delay_ns),
                "flow": flow.number,
                "src": addresses[flow.source],
                "src_port": flow.src_port,
                "dst": addresses[flow.destination],
                "dst_port": flow.dst_port,
                "size": int(size_bytes),
                "dscp": int(dscp),
            }
        )
    for packets in out.values():
        packets.sort(key=lambda p: p["offset_ns"])
    return out


def replay(
    network: Network, flows: list[Flow], plan: dict[str, list[dict]]
) -> tuple[dict[str, Packets], list[int]]:
    """Sends the packets of ``plan`` through ``network``; what each flow experienced, and how
    late (ns) each packet left its sender."""
    last_ns = max((p["offset_ns"] for packets in plan.values() for p in packets), default=0)
    start_ns = time.clock_gettime_ns(time.CLOCK_REALTIME) + START_DELAY_NS
    until_ns = start_ns + last_ns + DRAIN_NS
    python = [sys.executable, "-m"]
    with tempfile.TemporaryDirectory(prefix="qoslab-crosscheck-") as folder:
        work = Path(folder)
        receivers = []
        for destination in sorted({flow.destination for flow in flows}):
            ports = sorted({flow.dst_port for flow in flows if flow.destination == destination})
            out = work / f"received-{destination}.json"
            command = [
                *python,
                "qoslab.crosscheck.receiver",
                ",".join(map(str, ports)),
                str(until_ns),
                str(out),
            ]
            receivers.append((out, _start(network, destination, command)))
        senders = []
        for source, packets in plan.items():
            schedule = work / f"schedule-{source}.json"
            schedule.write_text(json.dumps({"start_ns": start_ns, "packets": packets}))
            out = work / f"sent-{source}.json"
            senders.append(
                (
                    out,
                    _start(
                        network,
                        source,
                        [*python, "qoslab.crosscheck.sender", str(schedule), str(out)],
                    ),
                )
            )
        for _, process in senders + receivers:
            _, err = process.communicate()
            if process.returncode != 0:
                raise NetworkError(f"a replay process failed: {err.strip()}")
        sent: dict[int, int] = {}
        late_ns: list[int] = []
        for out, _ in senders:
            result = json.loads(out.read_text())
            sent.update({int(k): v for k, v in result["sent"].items()})
            late_ns.extend(result["late_ns"])
        received: dict[int, dict[int, float]] = {}
        for out, _ in receivers:
            for flow, seq, sent_ns, received_ns in json.loads(out.read_text()):
                received.setdefault(flow, {})[seq] = (received_ns - sent_ns) / 1e6
    figures = {
        flow.name: Packets(
            sent.get(flow.number, 0), np.array(sorted(received.get(flow.number, {}).values()))
        )
        for flow in flows
    }
    return figures, late_ns


def _start(network: Network, node: str, command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["ip", "netns", "exec", network.names[node], *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
