"""The receiver of a cross-check: takes the datagrams of a replay in one network namespace.

    python -m qoslab.crosscheck.receiver PORTS UNTIL_NS RESULT.json

It listens on each UDP port of ``PORTS`` (comma-separated) until the real-time instant
``UNTIL_NS``, and notes for every datagram its flow, sequence number and send instant (from
the payload, :mod:`qoslab.crosscheck.sender`) and the instant the kernel received it
(``SO_TIMESTAMPNS``), so that the one-way delay does not include the receiver's own
scheduling. The result file holds one ``[flow, seq, sent_ns, received_ns]`` per datagram.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import sys
import time
from pathlib import Path

from qoslab.crosscheck.sender import HEADER

TIMESPEC = struct.Struct("@qq")
"""The kernel's ``struct timespec`` of an ``SCM_TIMESTAMPNS`` message."""

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
"""The socket option (and control message) of receive times in nanoseconds: 35 in
``include/uapi/asm-generic/socket.h``, which x86-64 and arm64 use; Python's ``socket`` does
not name it."""


def receive(ports: list[int], until_ns: int) -> list[list[int]]:
    """The datagrams arriving on ``ports`` before ``until_ns``."""
    sockets = []
    for port in ports:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        sock.bind(("0.0.0.0", port))
        sock.setblocking(False)
        sockets.append(sock)
    got: list[list[int]] = []
    while (left := until_ns - time.clock_gettime_ns(time.CLOCK_REALTIME)) > 0:
        ready, _, _ = select.select(sockets, [], [], min(left / 1e9, 0.2))
        for sock in ready:
            while True:
                try:
                    data, ancillary, _, _ = sock.recvmsg(65_535, 64)
                except BlockingIOError:
                    break
                received_ns = next(
                    (
                        seconds * 1_000_000_000 + nanoseconds
                        for level, kind, value in ancillary
                        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS
                        for seconds, nanoseconds in [TIMESPEC.unpack(value[: TIMESPEC.size])]
                    ),
                    time.clock_gettime_ns(time.CLOCK_REALTIME),
                )
                flow, seq, sent_ns = HEADER.unpack(data[: HEADER.size])
                got.append([flow, seq, sent_ns, received_ns])
    return got


def main(argv: list[str]) -> int:
    ports, until_ns, result_path = argv
    got = receive([int(p) for p in ports.split(",")], int(until_ns))
    Path(result_path).write_text(json.dumps(got))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
