"""The sender of a cross-check: replays a schedule of UDP packets from one network namespace.

    python -m qoslab.crosscheck.sender SCHEDULE.json RESULT.json

The schedule (written by :mod:`qoslab.crosscheck.replay`) gives the start instant on the
real-time clock and, for each packet, its offset from it, flow number, source and
destination address and port, IP size and DSCP. Each packet leaves as a UDP datagram whose
payload begins with the flow number, the packet's sequence number in its flow and the
real-time instant it was handed to the kernel, so that the receiver can tell its one-way
delay (both ends read the same host's clock). The sender sleeps until shortly before each
instant and spins for the rest, and records how late each packet left; the result file holds
the packets sent per flow and that lateness.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import time
from pathlib import Path

HEADER = struct.Struct("!HIq")
"""The payload's start: flow number, sequence number in the flow, send instant (ns)."""

IP_UDP_HEADER_BYTES = 28
"""An IPv4 header without options and a UDP header."""

SPIN_NS = 300_000
"""How long before a packet's instant the sender stops sleeping and spins."""


def send(schedule: dict) -> dict:
    """Sends the packets of ``schedule``; returns the packets sent per flow and how late
    they left (ns)."""
    sockets: dict[tuple[str, int, int], socket.socket] = {}
    for packet in schedule["packets"]:
        key = (packet["src"], packet["src_port"], packet["dscp"])
        if key not in sockets:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, packet["dscp"] << 2)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            sock.bind((packet["src"], packet["src_port"]))
            sockets[key] = sock
    sent: dict[str, int] = {}
    late_ns: list[int] = []
    start_ns = schedule["start_ns"]
    padding = bytes(65_535)
    for packet in schedule["packets"]:
        due_ns = start_ns + packet["offset_ns"]
        while (wait := due_ns - time.clock_gettime_ns(time.CLOCK_REALTIME)) > SPIN_NS:
            time.sleep((wait - SPIN_NS) / 1e9)
        while (now := time.clock_gettime_ns(time.CLOCK_REALTIME)) < due_ns:
            pass
        flow = packet["flow"]
        seq = sent.get(str(flow), 0)
        payload = HEADER.pack(flow, seq, now)
        body = payload + padding[: packet["size"] - IP_UDP_HEADER_BYTES - len(payload)]
        sockets[(packet["src"], packet["src_port"], packet["dscp"])].sendto(
            body, (packet["dst"], packet["dst_port"])
        )
        sent[str(flow)] = seq + 1
        late_ns.append(now - due_ns)
    return {"sent": sent, "late_ns": late_ns}


def main(argv: list[str]) -> int:
    schedule_path, result_path = argv
    schedule = json.loads(Path(schedule_path).read_text())
    result = send(schedule)
    Path(result_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
