"""The time-sequence graph of a TCP flow, from a run's per-packet trace: what tcptrace draws
from a capture (S. Ostermann, tcptrace; the DiffServ measurements' "TCP sequence number"
figure of an FTP connection during congestion).

For each flow of a simulated TCP application the graph marks every segment the sender
offers to a port (its own interface by default) at the time and sequence number it carried
(``tcp_seq``, docs/results.md#trace), every segment of the flow dropped anywhere with a
cross, and the acknowledgement number the sender has received (``tcp_ack`` of the reverse
flow's deliveries) as a step line. Retransmissions show as marks below the sequence already
reached; a stall as a flat stretch. Successive connections of one flow (an FTP client's
transfers, each from sequence 0) are drawn one after another: each connection's numbers are
raised by the highest sequence number of the connections before it, so the graph reads as
the flow's bytes in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from qoslab.plot.errors import PlotError
from qoslab.plot.source import need_run, scenario
from qoslab.plot.style import figure, legend, panels, styled, tag, title

KIND = "tcp_sequence"
HEADERS_BYTES = 40
"""A segment without payload: IP and TCP headers only (a SYN, a FIN, a pure ACK)."""
NS_PER_S = 1e9
SENT, DROPPED, ACKED = "#1f5fa8", "#c0392b", "#2e8540"


@styled
def tcp_sequence(
    results: object, flows: Sequence[str] | None = None, port: str | None = None
) -> Figure:
    """The time-sequence graph of each TCP flow in the run's trace (or of ``flows``): its
    segments where they enter ``port`` (default: the first port each reaches, the sender's
    interface), its drops, and the acknowledgements that reached the sender."""
    run = need_run(results, KIND)
    try:
        trace = run.trace()
    except LookupError as error:
        raise PlotError(f"{KIND} draws a run's per-packet trace: {error}") from None
    trace = trace.assign(flow=trace["flow"].astype(str), port=trace["port"].astype(str))
    segments = trace[trace["tcp_seq"].notna()]
    known = [f for f in dict.fromkeys(segments["flow"]) if not f.endswith(".reverse")]
    if not known:
        raise PlotError(
            f"{KIND}: the trace holds no TCP segment (trace an application's flows, "
            "measure.trace.flows)"
        )
    chosen = list(flows) if flows else known
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise PlotError(
            f"{KIND}: no TCP flow {', '.join(map(repr, unknown))} in the trace "
            f"(TCP flows: {', '.join(known)})"
        )
    fig = figure(len(chosen))
    axes = panels(fig, len(chosen))
    numbers = count()
    for axis, name in zip(axes, chosen, strict=True):
        mine = segments[segments["flow"] == name]
        arrivals = mine[mine["event"] == "arrival"]
        where = port if port is not None else str(arrivals["port"].iloc[0])
        if where not in set(arrivals["port"]):
            ports = ", ".join(dict.fromkeys(arrivals["port"]))
            raise PlotError(f"{KIND}: flow {name!r} is not traced at port {where!r} ({ports})")
        sent = arrivals[arrivals["port"] == where]
        offsets = _offsets(sent)
        x = sent["time_ns"].to_numpy(dtype=float) / NS_PER_S
        y = (sent["tcp_seq"].to_numpy(dtype=float) + offsets) / 1000
        (points,) = axis.plot(x, y, ".", color=SENT, markersize=2.5, label=f"sent at {where}")
        tag(points, "points", next(numbers))
        drops = mine[mine["event"].isin(["drop", "input_drop"])]
        if not drops.empty:
            shift = _shift_at(sent, offsets, drops["time_ns"].to_numpy())
            (crosses,) = axis.plot(
                drops["time_ns"].to_numpy(dtype=float) / NS_PER_S,
                (drops["tcp_seq"].to_numpy(dtype=float) + shift) / 1000,
                "x",
                color=DROPPED,
                markersize=4,
                label="dropped",
            )
            tag(crosses, "marks", next(numbers))
        acks = trace[(trace["flow"] == f"{name}.reverse") & (trace["event"] == "delivery")]
        acks = acks[acks["tcp_ack"].notna()]
        if not acks.empty:
            shift = _shift_at(sent, offsets, acks["time_ns"].to_numpy())
            (line,) = axis.step(
                acks["time_ns"].to_numpy(dtype=float) / NS_PER_S,
                (acks["tcp_ack"].to_numpy(dtype=float) + shift) / 1000,
                where="post",
                color=ACKED,
                linewidth=1,
                label="acknowledged",
            )
            tag(line, "line", next(numbers))
        axis.set_title(name, fontsize="medium")
        axis.set_xlabel("time (s)")
        axis.set_ylabel("sequence number (kB)")
    legend(fig, axes[0])
    title(fig, scenario(run), "TCP time-sequence graph")
    return fig


def _offsets(sent: pd.DataFrame) -> np.ndarray:
    """For each segment, what its connection's numbers are raised by: the highest sequence
    number of the flow's earlier connections. A connection starts with a SYN, a segment
    without payload at sequence 0; its repetitions belong to the same connection."""
    seq = sent["tcp_seq"].to_numpy(dtype=float)
    syn = (sent["size_bytes"].to_numpy() == HEADERS_BYTES) & (seq == 0)
    offsets = np.zeros(len(seq))
    base = highest = 0.0
    for i, (number, opens) in enumerate(zip(seq, syn, strict=True)):
        if opens and highest > 0:
            base += highest
            highest = 0.0
        highest = max(highest, number)
        offsets[i] = base
    return offsets


def _shift_at(sent: pd.DataFrame, offsets: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The offset in force at each of ``times``: that of the last segment sent before."""
    index = np.searchsorted(sent["time_ns"].to_numpy(), times, side="right") - 1
    return offsets[np.clip(index, 0, len(offsets) - 1)] if len(offsets) else np.zeros(len(times))
