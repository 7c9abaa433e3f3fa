"""The figures the disciplines' pages give in their prose, around the tables
``scripts/make_doc_outputs.py`` writes: each one a run gives is computed again from that run
and found in the page as written; each one that is arithmetic is worked out again here. A
page whose run has moved fails here, naming the sentence."""

from __future__ import annotations

from pathlib import Path

import qoslab
from conftest import TIMES, plain, spaced, words

ROOT = Path(__file__).resolve().parent.parent
QDISC = ROOT / "docs" / "qdisc"


def run(example: str, **settings: object) -> qoslab.Results:
    return qoslab.run(ROOT / "examples" / example, set={k: str(v) for k, v in settings.items()})


def rows(results: qoslab.Results, table: str, key: str) -> dict[str, dict]:
    return {row[key]: row for row in results.rows(table)}


def frame_ms(frame_bytes: int, rate_bps: int) -> float:
    return frame_bytes * 8 / rate_bps * 1e3


def test_fifo_page():
    page = words(QDISC / "fifo.md")
    port = rows(run("voice-vs-flood.yaml"), "ports", "port")["r1->r2"]
    assert f"The link is {port['utilisation_pct']:.0f} % busy" in page
    assert f"its queue holds {port['queue_mean_packets']:.1f} packets on average" in page
    flows = rows(run("voice-vs-flood.yaml"), "flows", "flow")
    offered = [flows[name]["offered_l2_bps"] / 1e3 for name in ("voice", "flood")]
    assert (
        f"In frames, {offered[0]:.1f} + {offered[1]:.1f} kbit/s are offered to 128 kbit/s" in page
    )


def test_prio_page():
    page = words(QDISC / "prio.md")
    pq = {"interfaces.r1.r2.output": "pq"}
    results = run("voice-vs-flood.yaml", **pq)
    voice = rows(results, "flows", "flow")["voice"]
    access_ms = frame_ms(150 + 38, 100_000_000)
    bound_ms = frame_ms(157, 128_000) + 2 * frame_ms(1507, 128_000) + 1 + 2 * access_ms
    assert f"two {access_ms * 1e3:.2f} µs Ethernet access hops, {bound_ms:.5f} ms in all" in page
    assert round(voice["delay_max_ms"], 5) == round(bound_ms, 5)
    normal = rows(results, "classes", "class")["normal"]
    assert (
        f"waits behind a `normal` band that stays at its {normal['queue_max_packets']}-packet limit"
        in page
    )
    ring = rows(
        run("voice-vs-flood.yaml", **pq, **{"topology.links.2.tx_ring": 1}), "flows", "flow"
    )
    one_frame = frame_ms(1507, 128_000) + frame_ms(157, 128_000)
    assert (
        f"the maximum voice delay becomes {ring['voice']['delay_max_ms']:.2f} ms "
        f"({one_frame:.1f} ms on the serial link" in page
    )


def test_custom_page():
    page = words(QDISC / "custom.md")
    flows = rows(run("custom-queuing.yaml"), "flows", "flow")
    # Ten 157-byte voice frames, one 1507-byte video frame and two 1441-byte FTP frames a
    # round (IP sizes plus HDLC's 7 bytes).
    voice, video, ftp = 10 * 157, 1507, 2 * 1441
    total = voice + video + ftp
    round_ms = frame_ms(total, 128_000)
    assert f"that is {voice} + {video} + {ftp} = {total} B, a round of {round_ms:.0f} ms" in page
    shares = [128 * part / total for part in (voice, video, ftp)]
    assert f"{shares[0]:.1f}, {shares[1]:.1f} and {shares[2]:.1f} kbit/s of frames" in page
    worst = max(
        abs(flows[name]["delivered_l2_bps"] / 1e3 - share) / share
        for name, share in zip(("voice", "video", "ftp"), shares, strict=True)
    )
    assert worst * 100 <= 0.07, "the run delivers the split within 0.07 %"


def test_cbwfq_page():
    page = words(QDISC / "cbwfq.md")
    llq = run("llq-voice-video-data.yaml")
    flows = rows(llq, "flows", "flow")
    assert (
        f"at most {flows['voice-1']['delay_max_ms']:.1f} ms (G.711) and "
        f"{flows['voice-2']['delay_max_ms']:.1f} ms (G.729) in this run" in page
    )
    assert (
        f"it gets the {flows['best-effort']['delivered_l3_bps'] / 1e3:.0f} kbit/s the others leave"
        in page
    )
    default = next(
        row
        for row in llq.rows("classes")
        if row["class"] == "class-default" and row["port"] == "edge->wan"
    )
    tail = f"{default['dropped_tail_packets']:,}".replace(",", " ")
    assert f"(`class-default` row: {tail} tail drops)" in page
    fifo = rows(
        run("llq-voice-video-data.yaml", **{"interfaces.edge.wan.output": "fifo"}), "flows", "flow"
    )
    losses = [row["loss_pct"] for row in fifo.values()]
    assert f"loses {min(losses):.0f} to {max(losses):.0f} % of its packets" in page
    assert f"{frame_ms(1507, 512_000):.1f} ms at 512 kbit/s" in page


def test_wfq_page():
    page = words(QDISC / "wfq.md")
    voice = rows(run("wfq-precedence.yaml"), "flows", "flow")["voice"]
    flood_ms, voice_ms = frame_ms(1507, 38_400), frame_ms(80, 38_400)
    assert f"a 1507-byte flood frame takes {flood_ms:.0f} ms at 38.4 kbit/s" in page
    assert (
        f"before its own {voice_ms:.1f} ms frame: at most {2 * flood_ms + voice_ms:.0f} ms, and "
        f"{voice['delay_max_ms']:.0f} ms in this run" in page
    )
    assert f"6/7 of the link, {38.4 * 6 / 7:.1f} kbit/s" in page


def test_tbf_page():
    page = words(QDISC / "tbf.md")
    hqos = run("hierarchical-shaping.yaml")
    delivered = sum(row["delivered_l3_bps"] for row in hqos.rows("flows")) / 1e3
    assert f"Under `hqos` the five flows deliver {delivered:.1f} kbit/s together" in page
    short = rows(run("hierarchical-shaping.yaml", **{"policies.hqos.bc": "2500B"}), "flows", "flow")
    worst = max(short[name]["delay_max_ms"] for name in ("voice-1", "voice-2"))
    assert f"its worst delay falls to {worst:.1f} ms" in page
    llq = run("hierarchical-shaping.yaml", **{"interfaces.branch.provider.output": "llq"})
    policed = rows(llq, "ports", "port")["branch->provider"]
    drops = sum(
        row["input_dropped_packets"]
        for row in llq.rows("ports")
        if row["port"] == "provider->branch"
    )
    assert f"whose policer drops {drops} packets whatever their class" in page
    assert f"({policed['utilisation_pct']:.0f} % of the link, framing included)" in page


def test_conditioning_page():
    page = words(ROOT / "docs" / "conditioning.md")
    results = run("policing-at-the-edge.yaml")
    ports = rows(results, "ports", "port")
    video = ports["bar1->vc-a"]
    assert video["input_dropped_packets"] == video["input_dropped_policer_violate_packets"]
    assert f"({video['input_dropped_packets']} input drops on `bar1->vc-a`, all red" in page
    remarked = ports["bar2->phone-c"]["input_remarked_packets"]
    voice = rows(results, "flows", "flow")["voice-c"]
    assert voice["sent_packets"] == remarked
    assert f"`bar2->phone-c` re-marks all {remarked} voice-c packets" in page
    assert round(voice["loss_pct"] / 100 * 3) == 1, "a third"
    assert round(voice["delay_mean_ms"] / 1000, 1) == 0.4, "about 0.4 s"


def test_red_page():
    page = words(ROOT / "docs" / "random-early-detection.md")
    lbe = rows(run("janet-access-router.yaml"), "flows", "flow")["lbe"]
    assert f"LBE loses {lbe['loss_pct']:.1f} % of its traffic, mostly to forced drops" in page
    assert lbe["dropped_red_forced_packets"] > lbe["dropped_packets"] / 2


def test_htb_page():
    page = words(QDISC / "htb.md")
    htb = rows(run("htb-borrowing.yaml"), "flows", "flow")
    voice, web, bulk = (htb[name] for name in ("voice", "web", "bulk"))
    assert voice["loss_pct"] == 0
    assert (
        f"voice {voice['delivered_l3_bps'] / 1e3:.1f} kbit/s, no loss, "
        f"{voice['delay_mean_ms']:.1f} ms mean delay; web {web['delivered_l3_bps'] / 1e3:.0f} "
        f"kbit/s (the tenant's 1 Mbit/s minus voice); bulk {bulk['delivered_l3_bps'] / 1e3:.0f} "
        "kbit/s (its rate)" in page
    )
    fifo = rows(run("htb-borrowing.yaml", **{"interfaces.tx.rx.output": "fifo"}), "flows", "flow")
    assert (
        f"Under `fifo` voice loses {fifo['voice']['loss_pct']:.0f} % and waits "
        f"{fifo['voice']['delay_mean_ms']:.0f} ms" in page
    )


def test_drr_page():
    page = words(QDISC / "drr.md")
    names = ("gold", "silver", "bronze")

    def kbps(flows: dict[str, dict], decimals: int) -> list[str]:
        return [f"{flows[name]['delivered_l3_bps'] / 1e3:.{decimals}f}" for name in names]

    drr = kbps(rows(run("drr-shares.yaml"), "flows", "flow"), 1)
    assert f"With seed 1 over 30 s: {drr[0]}, {drr[1]} and {drr[2]} kbit/s (3 : 2 : 1)" in page
    fifo = kbps(
        rows(run("drr-shares.yaml", **{"interfaces.tx.rx.output": "fifo"}), "flows", "flow"), 0
    )
    assert f"Under `fifo` the same floods get {fifo[0]}, {fifo[1]} and {fifo[2]} kbit/s" in page


def test_fq_codel_page():
    page = words(QDISC / "fq_codel.md")
    flows = rows(run("fq-codel-vs-fifo.yaml"), "flows", "flow")
    flood, sparse = flows["flood"], flows["sparse"]
    assert sparse["loss_pct"] == 0
    assert flood["dropped_packets"] == flood["dropped_codel_packets"]
    own_ms = frame_ms(200, 10_000_000)
    assert (
        f"the flood's mean delay is {flood['delay_mean_ms']:.1f} ms ({flood['loss_pct']:.1f} % "
        f"CoDel drops) and the sparse flow's {sparse['delay_mean_ms']:.2f} ms (its "
        f"{own_ms:.2f} ms plus the frames already in the transmit ring), no loss" in page
    )
    fifo = rows(
        run("fq-codel-vs-fifo.yaml", **{"interfaces.tx.rx.output": "fifo"}), "flows", "flow"
    )
    waits = {round(row["delay_mean_ms"], -1) for row in fifo.values()}
    (wait,) = waits
    assert f"Under a 10 000-packet `fifo` both wait {wait:.0f} ms on average" in page
    settled = {}
    for rate in (105, 120, 150):
        long = {"run.seed": 5, "run.warmup": "10s", "run.duration": "30s"}
        flows = rows(
            run("fq-codel-vs-fifo.yaml", **long, **{"traffic.0.pattern.rate": f"{rate}%"}),
            "flows",
            "flow",
        )
        settled[rate] = flows["flood"]["delay_mean_ms"]
    assert (
        f"a UDP flood at 105 % settles near an {settled[105]:.0f} ms mean delay, at 120 % near "
        f"{settled[120]:.0f} ms, at 150 % several hundred ms" in page
    )
    assert 200 < settled[150] < 1000


def test_mdrr_and_cbq_arithmetic():
    """The quanta of MDRR weights (MTU + 512 bytes per unit of weight above one) and ALTQ's
    buffer time in packets, as the pages work them."""
    mdrr = words(QDISC / "mdrr.md")
    premium, lbe = (1500 + 512 * (weight - 1) for weight in (99, 1))
    assert f"quanta of {spaced(premium)} and {spaced(lbe)} bytes" in mdrr
    total = premium + lbe
    assert f"{lbe} / {spaced(total)} = {lbe / total * 100:.1f} %" in mdrr
    cbq = words(QDISC / "cbq.md")
    packet_ms = frame_ms(1500, 5_000_000)
    buffer_bytes = 20e-3 * 5_000_000 / 8
    assert (
        f"20 ms at 50 % of 10 Mbit/s, is 20 / {plain(packet_ms)} = {int(20 / packet_ms)} packets, "
        f"whatever their size, where `buffer: 20ms` is {spaced(int(buffer_bytes))} bytes, "
        f"{int(buffer_bytes // 200)} of its 200-byte voice packets" in cbq
    )


def test_the_layer_two_byte_counts_the_pages_give():
    """The arithmetic of what IOS's shapers and policers count and of Ethernet on the wire,
    as the pages print it; the runs that hold to it are checked by the core's tests
    (`ios_counts_the_layer_two_header`, `remarking_at_the_trust_boundary_…`)."""
    tbf = words(QDISC / "tbf.md")
    hdlc, ethernet = 1e3 * 1000 / 1004, 1e3 * 1000 / 1014
    assert f"passes {hdlc:.1f} kbit/s of 1000-byte IP packets on HDLC and {ethernet:.1f}" in tbf
    cbwfq = words(QDISC / "cbwfq.md")
    assert f"64 kbit/s passes {64 * 100 / 104:.1f} kbit/s of 100-byte packets" in cbwfq
    conditioning = words(ROOT / "docs" / "conditioning.md")
    assert f"512 {TIMES} 1000 / 1014 = {512 * 1000 / 1014:.1f} kbit/s" in conditioning
    egress = words(ROOT / "docs" / "concepts" / "egress-port.md")
    wire_kbps = (160 + 40 + 38) * 8 * 50 / 1e3
    assert f"(160 + 40 + 38) B {TIMES} 8 {TIMES} 50 /s = {wire_kbps:.1f} kbit/s" in egress
    readiness = words(ROOT / "docs" / "readiness.md")
    g729_bps, g711_bps = (60 + 14) * 8 * 50, (200 + 14) * 8 * 50
    g729_calls, g711_calls = 400_000 // g729_bps, 400_000 // g711_bps
    assert (
        f"the policer passes {g729_calls} G.729 calls ({g729_calls * g729_bps / 1e3:.1f} kbit/s) "
        f"or {g711_calls} G.711 calls ({g711_calls * g711_bps / 1e3:.1f} kbit/s)" in readiness
    )
