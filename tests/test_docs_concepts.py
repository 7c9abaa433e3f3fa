"""The figures of the concept pages (``docs/concepts/``), measured again in runs of the
engine and found in the pages as written. A page whose figures no longer match what the
engine does fails here, naming the sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

import qoslab
from conftest import TIMES, plain, small_scenario, spaced, words

ROOT = Path(__file__).resolve().parent.parent
CONCEPTS = ROOT / "docs" / "concepts"


def wire_ns(*, size_bytes: int, l2: str, rate: str) -> int:
    """How long the engine keeps one packet of ``size_bytes`` on a link of ``rate`` with
    framing ``l2``: from the moment it starts on the wire to its delivery, the link having
    no propagation delay."""
    scenario = small_scenario(pattern={"kind": "cbr", "rate_pps": 1, "size": f"{size_bytes}B"})
    scenario["run"] = {"duration": "100s", "seed": 1}
    link = scenario["topology"]["links"][1]
    link.update(rate=rate, l2=l2, delay="0s")
    events = qoslab.run(scenario, trace=True).trace()
    events = events[events.packet_id == events.packet_id.iloc[0]]
    sent = events[(events.event == "transmit") & (events.node == "r")].time_ns.iloc[0]
    delivered = events[events.event == "delivery"].time_ns.iloc[0]
    return int(delivered - sent)


def test_time_and_units_serialization_cases():
    page = words(CONCEPTS / "time-and-units.md")
    hdlc_ns = wire_ns(size_bytes=1500, l2="hdlc", rate="128kbps")
    assert f"| 1500 B IP + 7 B HDLC at 128 kbit/s (12 056 bits) | {spaced(hdlc_ns)} ns |" in page
    fast_ns = wire_ns(size_bytes=1500, l2="none", rate="10Gbps")
    assert f"| 12 000 bits at 10 Gbit/s | {spaced(fast_ns)} ns | {spaced(fast_ns)} ns" in page
    # Below a byte, only the formula: 10**9 / 3 ns, rounded up.
    assert f"| 1 bit at 3 bit/s | 333 333 333.3 ns | {spaced(-(-(10**9) // 3))} ns" in page
    # A whole packet rounds up as the formula says: the smallest, 224 bits, at 3 bit/s.
    assert wire_ns(size_bytes=28, l2="none", rate="3bps") == -(-224 * 10**9 // 3)


def test_time_and_units_emission_times():
    page = words(CONCEPTS / "time-and-units.md")
    scenario = small_scenario(pattern={"kind": "cbr", "rate_pps": 3, "size": "100B"})
    scenario["run"] = {"duration": "1100ms", "seed": 1}
    events = qoslab.run(scenario, trace=True).trace()
    sent = events[(events.event == "arrival") & (events.node == "a")].time_ns.tolist()
    times = ", ".join(spaced(t) for t in sent[:3]) + f" and {spaced(sent[3])} ns"
    assert f"at 3 packets/s the packets leave at {times}" in page


@pytest.mark.parametrize(
    ("l2", "row"),
    [
        ("hdlc", "| `hdlc`, `ppp` |"),
        ("ethernet", "| `ethernet` (default), `ethernet-wire` |"),
        ("ethernet-wire", "| `ethernet` (default), `ethernet-wire` |"),
        ("ethernet-frame", "| `ethernet-frame` |"),
    ],
)
def test_egress_port_layer_two_bytes(l2, row):
    page = words(CONCEPTS / "egress-port.md")
    frame_bytes = wire_ns(size_bytes=100, l2=l2, rate="8Mbps") // 1000
    assert f"{row} {frame_bytes - 100} |" in page


def test_egress_port_worked_example():
    page = words(CONCEPTS / "egress-port.md")
    flood_ns = wire_ns(size_bytes=1500, l2="hdlc", rate="128kbps")
    voice_ns = wire_ns(size_bytes=150, l2="hdlc", rate="128kbps")
    flood_ms, voice_ms = flood_ns / 1e6, voice_ns / 1e6
    assert (
        f"| flood: 1500 B + 7 B | 12 056 | 12 056 / 128 000 s = **{plain(flood_ms)} ms** |" in page
    )
    assert f"| voice: 150 B + 7 B | 1 256 | 1 256 / 128 000 s = **{plain(voice_ms)} ms** |" in page
    assert f"| 1 | {plain(flood_ms)} ms (the frame on the wire) | {plain(voice_ms)} ms | " in page
    assert f"{flood_ms + voice_ms:.1f} ms |" in page
    for ring in (2, 3):
        assert f"| {ring} | {ring} {TIMES} {plain(flood_ms)} ms" in page
        assert f"| {plain(voice_ms)} ms | {plain(ring * flood_ms + voice_ms)} ms |" in page
    access_us = (150 + 38) * 8 / 100e6 * 1e6
    pq = {"interfaces.r1.r2.output": "pq"}
    voice = qoslab.run(ROOT / "examples" / "voice-vs-flood.yaml", set=pq).flow("voice")
    worst_ms = 2 * flood_ms + voice_ms + 1 + 2 * access_us / 1e3
    assert round(voice["delay_max_ms"], 5) == round(worst_ms, 5)
    assert (
        f"the maximum voice delay under priority queuing is {voice['delay_max_ms']:.5f} ms: "
        f"{plain(2 * flood_ms + voice_ms)} ms on the serial link, its 1 ms propagation delay, and "
        f"{plain(access_us)} µs on each of the two 100 Mbit/s Ethernet access links" in page
    )
    assert f"waits half a flood frame for the frame on the wire ({flood_ms / 2:.1f} ms)" in page


def test_egress_port_cisco_voice_bandwidths():
    page = words(CONCEPTS / "egress-port.md")
    for l2, bytes_ in (("hdlc", 7), ("ethernet-frame", 18), ("ethernet", 38)):
        per_frame_ns = wire_ns(size_bytes=200, l2=l2, rate="8Mbps")
        frame_bytes = per_frame_ns // 1000
        assert frame_bytes == 200 + bytes_
        kbps = frame_bytes * 8 * 50 / 1e3
        assert f"(160 + 40 + {bytes_}) B {TIMES} 8 {TIMES} 50 /s = {kbps:.1f} kbit/s" in page


def test_statistics_backlog_examples():
    page = words(CONCEPTS / "statistics.md")
    fifo = qoslab.run(ROOT / "examples" / "voice-vs-flood.yaml")
    (row,) = (row for row in fifo.rows("classes") if row["port"] == "r1->r2")
    held = row["dequeued_packets"] - row["enqueued_packets"]
    assert held == 2
    assert (
        f"port `r1->r2` shows {spaced(row['dequeued_packets'])} dequeued for "
        f"{spaced(row['enqueued_packets'])} enqueued, because its queue held two packets more"
        in page
    )
    wfq = {"interfaces.r1.r2.output": "wfq", "policies.wfq.cdt_policy": "highest-sn"}
    lab = qoslab.run(ROOT / "examples" / "congestion-lab.yaml", set=wfq)
    (ftp,) = (
        row
        for row in lab.rows("classes")
        if row["port"] == "r1->r2" and row["class"] == "precedence-0"
    )
    enqueued, sent, removed = (
        ftp[f"{what}_packets"] for what in ("enqueued", "dequeued", "dropped_cdt")
    )
    assert (
        f"accepts all {spaced(enqueued)} FTP packets of the window, sends {sent} of them and "
        f"later removes {spaced(removed)} from the queue, so `enqueued + dropped` is "
        f"{spaced(enqueued + ftp['dropped_packets'])} for {spaced(enqueued)} arrivals" in page
    )


def test_ordering_steps_of_the_python_front_end():
    from qoslab.run import PROGRESS_STEPS

    page = words(CONCEPTS / "ordering.md")
    assert f"the Python front end advances it in {PROGRESS_STEPS} pieces" in page
