"""The data of a queue animation: every packet that passed one port in a window of a run,
from the run's per-packet trace, with the times at which it arrived, left the discipline,
started on the wire or was dropped.

Each packet at the port is one record built from its trace rows there (docs/results.md,
"trace"): ``arrival`` (offered to the discipline), ``dequeue`` (left it for the transmit
ring, with the class that held it), ``transmit`` (its frame started on the wire) and
``drop`` (refused or discarded, with the class and the reason). At any time ``t`` the page's
script places a packet in its class's queue while ``arrival <= t <`` its dequeue or drop, in
the transmit ring until it is transmitted, and on the wire from its transmission until the
frame's last bit: the next transmission at the port when the link is busy, else the
frame's IP size over the port's rate (the link's layer-2 bytes are not in the trace, so an
idle link's last frame ends a few bytes early). A packet still queued at the end of the run
stays in its queue; its class is not recorded (the discipline had not let it go), so it is
shown in the class its flow was seen in last, or ``unclassified``.

Only packets that are at the port during the window are kept — those queued at its start and
those arriving in it — and the window is cut short so that at most ``max_packets`` of them are
kept: the page stays a few hundred kilobytes whatever the run's length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from qoslab.results import Results

NS_PER_S = 1_000_000_000
UNCLASSIFIED = "unclassified"
DEFAULT_SPAN_S = 2.0
DEFAULT_MAX_PACKETS = 4000
COLUMNS = [
    "time_ns",
    "event",
    "port",
    "flow",
    "packet_id",
    "size_bytes",
    "class",
    "delay_ns",
    "reason",
]


class QueueDataError(ValueError):
    """The run cannot be animated as asked: no trace, an unknown port, an empty window."""


@dataclass(frozen=True)
class Window:
    """The stretch of the run shown: from ``start_ns`` to ``end_ns``, and whether it was cut
    short of the span asked for to keep the page small."""

    start_ns: int
    end_ns: int
    cut: bool


def queue_data(
    results: Results,
    port: str | None = None,
    *,
    start_s: float | None = None,
    span_s: float = DEFAULT_SPAN_S,
    max_packets: int = DEFAULT_MAX_PACKETS,
) -> dict:
    """The animation's data for ``port`` (``node->peer``; default: the port that dropped the
    most packets, else the one that sent the most) from ``start_s`` (default: the end of
    the warm-up) for ``span_s`` seconds."""
    if results.trace_path is None or not results.trace_path.exists():
        raise QueueDataError(
            "the run has no per-packet trace: run it with --trace (qoslab run SCENARIO "
            "--trace -o DIR) to animate its queues"
        )
    if span_s <= 0:
        raise QueueDataError(f"span {span_s:g} s: give a window longer than 0 s")
    if max_packets < 1:
        raise QueueDataError(f"max packets {max_packets}: give at least 1")
    port = port if port is not None else busiest_port(results)
    ports = results.ports
    if port not in set(ports["port"]):
        known = ", ".join(map(str, ports["port"]))
        raise QueueDataError(f"no port {port!r} in this run (ports: {known})")
    row = ports[ports["port"] == port].iloc[0]
    warmup_ns = round(float(results.run.get("warmup_s", 0.0)) * NS_PER_S)
    start_ns = warmup_ns if start_s is None else round(start_s * NS_PER_S)
    end_ns = start_ns + round(span_s * NS_PER_S)
    rows = _rows(results, port, end_ns)
    if rows.empty:
        raise QueueDataError(f"the trace has no packet at {port} before {end_ns / NS_PER_S:g} s")
    packets = _packets(rows)
    packets["shown_class"] = _shown_classes(packets)
    packets["wire_end"] = _wire_end(
        packets["transmit"].to_numpy(dtype=float),
        packets["size_bytes"].to_numpy(dtype=float),
        int(row["rate_bps"]),
    )
    # A packet is at the port from its arrival until it leaves the queue, or until its
    # frame's last bit when it was sent.
    packets["gone"] = packets["wire_end"].fillna(packets["left"])
    window = _window(packets, start_ns, end_ns, max_packets)
    kept = _present(packets, window.start_ns, window.end_ns)
    classes = _classes(results, port, kept)
    flows = [str(flow) for flow in dict.fromkeys(kept["flow"])]
    return {
        "port": port,
        "qdisc": str(row["qdisc"]),
        "rate_bps": int(row["rate_bps"]),
        "start_ns": window.start_ns,
        "end_ns": window.end_ns,
        "cut": window.cut,
        "classes": classes,
        "flows": flows,
        "reasons": sorted({str(r) for r in kept["reason"].dropna()}),
        "packets": _columns(kept, classes, flows),
    }


def busiest_port(results: Results) -> str:
    """The port that dropped the most packets, else the one that sent the most."""
    ports = results.ports.sort_values(
        ["dropped_packets", "sent_packets"], ascending=False, kind="stable"
    )
    return str(ports.iloc[0]["port"])


def _rows(results: Results, port: str, end_ns: int) -> pd.DataFrame:
    """The trace's rows at ``port`` up to ``end_ns``."""
    assert results.trace_path is not None
    table = pq.read_table(
        results.trace_path,
        columns=COLUMNS,
        filters=[("port", "=", port), ("time_ns", "<=", end_ns)],
    )
    frame = table.to_pandas()
    for column in ("event", "flow", "class", "reason"):
        frame[column] = frame[column].astype(object)
    return frame


def _packets(rows: pd.DataFrame) -> pd.DataFrame:
    """One record per packet: its flow, size, class and the time of each event."""
    by_event = {str(event): part for event, part in rows.groupby("event", sort=False)}
    arrivals = by_event.get("arrival", rows.iloc[:0])
    packets = arrivals.set_index("packet_id")[["time_ns", "flow", "size_bytes"]].rename(
        columns={"time_ns": "arrival"}
    )
    packets = packets[~packets.index.duplicated()]
    for event, name in (("dequeue", "dequeue"), ("transmit", "transmit"), ("drop", "drop")):
        part = by_event.get(event, rows.iloc[:0]).drop_duplicates("packet_id")
        packets[name] = part.set_index("packet_id")["time_ns"].reindex(packets.index)
    dequeued = by_event.get("dequeue", rows.iloc[:0]).drop_duplicates("packet_id")
    dropped = by_event.get("drop", rows.iloc[:0]).drop_duplicates("packet_id")
    classes = pd.concat([dequeued, dropped]).drop_duplicates("packet_id").set_index("packet_id")
    packets["class"] = classes["class"].reindex(packets.index)
    packets["reason"] = dropped.set_index("packet_id")["reason"].reindex(packets.index)
    sent = by_event.get("transmit", rows.iloc[:0]).drop_duplicates("packet_id")
    packets["delay_ns"] = sent.set_index("packet_id")["delay_ns"].reindex(packets.index)
    packets["left"] = packets["dequeue"].fillna(packets["drop"])
    packets = packets.reset_index().sort_values(["arrival", "packet_id"], kind="stable")
    return packets.reset_index(drop=True)


def _window(packets: pd.DataFrame, start_ns: int, end_ns: int, max_packets: int) -> Window:
    """The window, cut short when more than ``max_packets`` packets would be kept."""
    present = _present(packets, start_ns, end_ns)
    if len(present) <= max_packets:
        return Window(start_ns, end_ns, False)
    # Those queued at the start are kept whatever the window; the arrivals after it fill
    # the rest, and the window ends at the last of them.
    waiting = int((present["arrival"] < start_ns).sum())
    arriving = present[present["arrival"] >= start_ns]["arrival"].to_numpy()
    room = max(max_packets - waiting, 1)
    if len(arriving) == 0:
        return Window(start_ns, end_ns, False)
    last = int(arriving[min(room, len(arriving)) - 1])
    return Window(start_ns, max(last, start_ns + 1), True)


def _present(packets: pd.DataFrame, start_ns: int, end_ns: int) -> pd.DataFrame:
    """The packets at the port at some time from ``start_ns`` to ``end_ns``."""
    return packets[
        (packets["arrival"] <= end_ns) & (packets["gone"].isna() | (packets["gone"] >= start_ns))
    ]


def _shown_classes(packets: pd.DataFrame) -> pd.Series:
    """The class each packet is shown in: the one that let it go or dropped it, else (still
    queued at the end) the last class its flow was seen in, else ``unclassified``."""
    classified = packets.dropna(subset=["class"])
    last = classified.groupby("flow", sort=False)["class"].last()
    return packets["class"].fillna(packets["flow"].map(last)).fillna(UNCLASSIFIED)


def _classes(results: Results, port: str, packets: pd.DataFrame) -> list[str]:
    """The port's classes in the order the classes table lists them, then any other a
    packet is shown in (``unclassified``)."""
    listed = [str(name) for name in results.classes.loc[results.classes["port"] == port, "class"]]
    seen = [str(name) for name in dict.fromkeys(packets["shown_class"])]
    return listed + [name for name in seen if name not in listed]


def _columns(packets: pd.DataFrame, classes: list[str], flows: list[str]) -> dict:
    """The packets as columns of plain numbers (times in ns; null where an event did not
    happen), flows, classes and reasons as indices."""
    reasons = sorted({str(r) for r in packets["reason"].dropna()})
    return {
        "id": [int(v) for v in packets["packet_id"]],
        "flow": [flows.index(str(flow)) for flow in packets["flow"]],
        "class": [classes.index(str(name)) for name in packets["shown_class"]],
        "size": [int(v) for v in packets["size_bytes"]],
        "arrival": [int(v) for v in packets["arrival"]],
        "dequeue": _times(packets["dequeue"]),
        "transmit": _times(packets["transmit"]),
        "wire_end": _times(packets["wire_end"]),
        "drop": _times(packets["drop"]),
        "reason": [
            reasons.index(str(r)) if isinstance(r, str) else None for r in packets["reason"]
        ],
        "delay_ns": _times(packets["delay_ns"]),
    }


def _wire_end(transmit: np.ndarray, size_bytes: np.ndarray, rate_bps: int) -> np.ndarray:
    """When each frame's last bit leaves: the next transmission when it comes sooner than
    the frame's IP size over the rate (a busy link), else that time."""
    end = transmit + size_bytes * 8 * NS_PER_S / rate_bps
    order = np.argsort(np.where(np.isnan(transmit), np.inf, transmit), kind="stable")
    sent = order[~np.isnan(transmit[order])]
    following = np.full(len(transmit), np.nan)
    following[sent[:-1]] = transmit[sent[1:]]
    sooner = ~np.isnan(following) & (following < end)
    end[sooner] = following[sooner]
    return np.floor(end)


def _times(column: pd.Series) -> list[int | None]:
    return [None if pd.isna(v) else int(v) for v in column]
