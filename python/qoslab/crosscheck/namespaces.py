"""A scenario's network as Linux network namespaces: one namespace per node, a veth pair per
link, each node's address on each of its devices, routes along the flows' paths, and an
interface's output policy applied with the script ``qoslab tc export`` writes.

Every command runs through ``ip`` and ``tc`` (iproute2) and needs root. The namespaces are
named after the run (``qx<run>-<node number>``) and removed by :meth:`Network.close`, also
when building them fails half-way.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from dataclasses import dataclass, field


class NetworkError(Exception):
    """A command that builds the namespaces failed; the message names it and its output."""


def run(command: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Runs ``command``; with ``check``, a failure raises :class:`NetworkError`."""
    done = subprocess.run(command, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise NetworkError(f"`{' '.join(command)}` failed: {(done.stderr or done.stdout).strip()}")
    return done


def missing_tools() -> str | None:
    """Why namespaces cannot be built here (not root, no iproute2), or None."""
    if os.geteuid() != 0:
        return "qoslab crosscheck builds network namespaces, which needs root (run it with sudo)"
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"no `{tool}` command: install iproute2 (Debian package iproute2)"
    return None


@dataclass
class Network:
    """The namespaces of a run: ``names`` by node, the device of each port
    (``devices[(node, peer)]``) and the addresses of the nodes."""

    tag: str
    addresses: dict[str, str]
    names: dict[str, str] = field(default_factory=dict)
    devices: dict[tuple[str, str], str] = field(default_factory=dict)

    def exec(
        self, node: str, command: list[str], *, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Runs ``command`` in the namespace of ``node``."""
        return run(["ip", "netns", "exec", self.names[node], *command], check=check)

    def build(self, links: list[tuple[str, str]]) -> None:
        """Namespaces for the nodes of ``links``, a veth pair per link, the nodes' addresses
        on their devices, forwarding on."""
        nodes = sorted({node for link in links for node in link})
        for number, node in enumerate(nodes):
            name = f"qx{self.tag}-{number}"
            run(["ip", "netns", "add", name])
            self.names[node] = name
            self.exec(node, ["ip", "link", "set", "lo", "up"])
            self.exec(node, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
            self.exec(node, ["sysctl", "-q", "-w", "net.ipv4.conf.all.rp_filter=0"])
        for number, (a, b) in enumerate(links):
            dev_a, dev_b = f"q{number}a", f"q{number}b"
            run(["ip", "link", "add", dev_a, "netns", self.names[a], "type", "veth",
                 "peer", "name", dev_b, "netns", self.names[b]])  # fmt: skip
            for node, dev in ((a, dev_a), (b, dev_b)):
                self.exec(node, ["ip", "addr", "add", f"{self.addresses[node]}/32", "dev", dev])
                self.exec(node, ["sysctl", "-q", "-w", f"net.ipv4.conf.{dev}.rp_filter=0"])
                self.exec(node, ["ip", "link", "set", dev, "up"])
            self.devices[(a, b)] = dev_a
            self.devices[(b, a)] = dev_b

    def route(self, path: list[str], destination: str) -> None:
        """Routes to ``destination``'s address along ``path`` (nodes, source first)."""
        address = self.addresses[destination]
        for node, nxt in itertools.pairwise(path):
            device = self.devices[(node, nxt)]
            via = self.addresses[nxt]
            self.exec(
                node,
                ["ip", "route", "replace", f"{address}/32", "via", via, "dev", device, "onlink"],
            )

    def apply(self, node: str, script: str) -> subprocess.CompletedProcess[str]:
        """Runs the tc ``script`` in ``node``'s namespace (its result, not checked)."""
        return self.exec(node, ["sh", "-c", script], check=False)

    def clear(self, node: str, peer: str) -> None:
        """Gives the port ``node->peer`` back its default discipline."""
        self.exec(
            node, ["tc", "qdisc", "del", "dev", self.devices[(node, peer)], "root"], check=False
        )

    def close(self) -> None:
        """Removes the namespaces (and with them their devices)."""
        for name in self.names.values():
            run(["ip", "netns", "del", name], check=False)
        self.names.clear()
