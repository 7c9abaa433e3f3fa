"""The figures of the reference pages (``docs/scenario.md``, the disciplines' algorithm
sections), measured again in runs of the engine and found in the pages as written."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import qoslab
from conftest import DASH, TIMES, plain, small_scenario, words

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def table_rows(path: Path, header: str) -> list[list[str]]:
    """The cells of the rows of the table whose header line starts with ``header``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


CODECS = table_rows(DOCS / "scenario.md", "| `codec` | codec | frame |")


@pytest.mark.parametrize("row", CODECS, ids=[row[0] for row in CODECS])
def test_the_codec_table_is_what_the_codecs_send(row):
    codec, _, _, _, interval, size, rate = row
    scenario = small_scenario(pattern={"kind": "codec", "codec": codec.strip("`")})
    scenario["run"] = {"duration": "3s", "seed": 1}
    (flow,) = qoslab.run(scenario).rows("flows")
    interval_ms = float(interval.removesuffix(" ms"))
    sent_bytes = flow["offered_l3_bps"] / 8 * interval_ms / 1e3
    assert size == f"{sent_bytes:.0f} B"
    assert rate == f"{plain(flow['offered_l3_bps'] / 1e3, 2)} kbit/s"


def test_the_cbwfq_pages_three_classes():
    """Three saturated classes of 50, 30 and 20 % of a 1 Mbit/s interface, then two."""
    page = words(DOCS / "qdisc" / "cbwfq.md")
    weights = [int(64 * 100 / share) for share in (50, 30, 20)]
    assert (
        f"Three saturated classes of 50, 30 and 20 % on a 1 Mbit/s interface have weights "
        f"{weights[0]}, {weights[1]} and {weights[2]}" in page
    )

    def shares(classes: list[int]) -> list[float]:
        scenario = small_scenario()
        scenario["topology"]["links"][1]["rate"] = "1Mbps"
        scenario["topology"]["links"][0]["rate"] = "100Mbps"
        scenario["traffic"] = [
            {
                "name": f"c{share}",
                "from": "a",
                "to": "b",
                "protocol": "udp",
                "dst_port": 9000 + share,
                "pattern": {"kind": "cbr", "rate": "2Mbps", "size": "500B"},
            }
            for share in classes
        ]
        scenario["policies"] = {
            "cb": {
                "kind": "cbwfq",
                "max_reserved": "100%",
                "classes": [
                    {
                        "name": f"c{share}",
                        "match": {"dst_port": 9000 + share},
                        "bandwidth": f"{share}%",
                    }
                    for share in classes
                ],
            }
        }
        scenario["interfaces"] = {"r": {"b": {"output": "cb"}}}
        flows = {row["flow"]: row for row in qoslab.run(scenario).rows("flows")}
        total = sum(row["delivered_l3_bps"] for row in flows.values())
        return [flows[f"c{share}"]["delivered_l3_bps"] / total * 100 for share in classes]

    three = shares([50, 30, 20])
    assert [round(share) for share in three] == [50, 30, 20]
    assert "receive 50, 30 and 20 % of the link" in page
    two = shares([50, 30])
    quoted = re.search(r"split the link 50 : 30, ([\d.]+) % and ([\d.]+) %", page)
    assert quoted, "the page gives the split of two classes"
    assert [float(quoted[1]), float(quoted[2])] == pytest.approx(two, abs=0.5)


def lone_tcp_flow(congestion_control: str, buffer_bdp: int, *, warmup: bool, sack: bool) -> dict:
    """docs/tcp.md's lone flow: one endless transfer through a FIFO of ``buffer_bdp``
    bandwidth-delay products (25 kB) on 10 Mbit/s with 10 ms each way, measured over 60 s,
    after a 5 s warm-up or from the start."""
    scenario = {
        "name": "lone-flow",
        "run": {"duration": "65s" if warmup else "60s", "warmup": "5s" if warmup else "0s"},
        "topology": {
            "nodes": {"tx": {"kind": "host"}, "rx": {"kind": "host"}},
            "links": [{"between": ["tx", "rx"], "rate": "10Mbps", "delay": "10ms", "l2": "none"}],
        },
        "policies": {"q": {"kind": "fifo", "limit": f"{buffer_bdp * 25_000}B"}},
        "interfaces": {"tx": {"rx": {"output": "q"}}},
        "traffic": [
            {
                "name": "ftp",
                "from": "tx",
                "to": "rx",
                "app": {"kind": "bulk"},
                "tcp": {
                    "congestion_control": congestion_control,
                    "receive_window": "4MB",
                    "sack": sack,
                },
            }
        ],
    }
    (app,) = qoslab.run(scenario).rows("apps")
    return app


def test_the_tcp_pages_lone_flows_from_the_start_and_with_sack():
    """The table itself is checked by the core's tests (``tests/it/tcp_recovery.rs``); the
    sentences under it are checked here."""
    page = words(DOCS / "tcp.md")
    cases = [(cc, bdp) for cc in ("newreno", "cubic") for bdp in (1, 2, 5, 10)]
    from_start = [lone_tcp_flow(cc, bdp, warmup=False, sack=False) for cc, bdp in cases]
    sack = [lone_tcp_flow(cc, bdp, warmup=True, sack=True) for cc, bdp in cases]
    lowest = min(app["goodput_bps"] for app in from_start) / 1e5
    assert f"Measured from the start, the 60 s goodput is {lowest:.1f} % or more" in page
    most_timeouts = max(app["timeouts"] for app in from_start)
    assert most_timeouts == 2
    assert "may end in one or two timeouts" in page
    shares = [app["goodput_bps"] / 1e5 for app in sack]
    assert all(app["timeouts"] == 0 for app in sack)
    assert f"With SACK the same flows get {min(shares):.1f}{DASH}{max(shares):.1f} %" in page


def fragmented(rate: str, fragment_delay: str) -> tuple[int, int]:
    """One 1500-byte packet on an idle PPP link of ``rate`` with LFI fragments of
    ``fragment_delay``: the nanoseconds from the port taking it to its delivery, and from
    its last fragment starting on the wire to its delivery."""
    scenario = small_scenario(pattern={"kind": "cbr", "rate_pps": 1, "size": "1500B"})
    scenario["run"] = {"duration": "1s", "seed": 1}
    scenario["topology"]["links"][1].update(rate=rate, l2="ppp", delay="0s")
    scenario["interfaces"]["r"]["b"]["lfi"] = {"fragment_delay": fragment_delay}
    events = qoslab.run(scenario, trace=True).trace()
    at_r = events[events.node == "r"].set_index("event").time_ns
    delivered = events[events.event == "delivery"].time_ns.iloc[0]
    return int(delivered - at_r["dequeue"]), int(delivered - at_r["transmit"])


def test_the_lfi_pages_fragments():
    page = words(DOCS / "lfi.md")
    payload, header, ppp = 1502, 4, 7

    def frame_bytes(ns: int, rate_bps: int) -> int:
        return ns * rate_bps // (8 * 10**9)

    total_ns, last_ns = fragmented("128kbps", "10ms")
    total, last = frame_bytes(total_ns, 128_000), frame_bytes(last_ns, 128_000)
    fragment = payload - (last - header - ppp)
    full = (payload - (last - header - ppp)) // 160
    assert (full, (total - last) % (160 + header + ppp)) == (9, 0)
    whole_ms = 1507 * 8 / 128
    assert (
        f"{payload} bytes of payload make {full} fragments of 160 B and one of "
        f"{last - header - ppp} B" in page
    )
    assert (
        f"{full} {TIMES} {160 + header + ppp} + {last} = {total} bytes on the wire "
        f"({plain(total_ns / 1e6)} ms) instead of 1507 ({whole_ms:.2f} ms), "
        f"{(total / 1507 - 1) * 100:.0f} % more" in page
    )
    assert fragment == full * 160
    assert f"a 1500-byte packet holds the wire for {whole_ms:.0f} ms" in page
    _, last_ns = fragmented("256kbps", "30ms")
    fragment = payload - (frame_bytes(last_ns, 256_000) - header - ppp)
    assert f"160 B at 128 kbit/s and 10 ms, {fragment} B at 256 kbit/s and 30 ms" in page


def tunnelled_bytes(size_bytes: int, tunnel: dict) -> float:
    """The size of a ``size_bytes`` packet of a flow through ``tunnel`` as the link inside
    the tunnel carries it (port counters count outer sizes)."""
    scenario = small_scenario(pattern={"kind": "cbr", "rate_pps": 10, "size": f"{size_bytes}B"})
    scenario["topology"]["tunnels"] = [{"between": ["a", "b"], **tunnel}]
    (port,) = (row for row in qoslab.run(scenario).rows("ports") if row["port"] == "r->b")
    return port["sent_bytes"] / port["sent_packets"] - size_bytes


def test_the_tunnel_pages_overheads():
    path = DOCS / "tunnels.md"
    page = words(path)
    kinds = {row[0]: row[1] for row in table_rows(path, "| `kind` | bytes added |")}
    for kind in ("gre", "pptp"):
        assert kinds[f"`{kind}`"] == f"{tunnelled_bytes(60, {'kind': kind}):.0f}"
    icv = {name: int(bytes_) for name, bytes_ in re.findall(r"`(sha1|sha256|md5)` (\d+)", page)}
    for cipher, iv, block, _ in table_rows(path, "| `cipher` | IV | block |"):
        name = cipher.strip("`")
        block_bytes = int(block.split()[0])
        checks = [("ICV 16", 16)] if "ICV" in block else list(icv.items())
        for integrity, icv_bytes in checks:
            tunnel = {"kind": "ipsec", "cipher": name}
            if "ICV" not in block:
                tunnel["integrity"] = integrity
            for inner in (60, 1400):
                padded = -(-(inner + 2) // block_bytes) * block_bytes
                expected = 20 + 8 + int(iv) + padded - inner + icv_bytes
                assert tunnelled_bytes(inner, tunnel) == expected, (tunnel, inner)
    voice = tunnelled_bytes(60, {"kind": "ipsec"})
    assert f"a 60-byte voice packet in ESP with AES-CBC and SHA-1 grows by {voice:.0f}" in page
    assert f"a 1400-byte packet by {tunnelled_bytes(1400, {'kind': 'ipsec'}):.0f}" in page


def test_the_quality_pages_share_of_one_hop():
    """A budget without ``per_hop`` gives each hop its share; the page works the loss."""
    page = words(DOCS / "quality.md")
    scenario = small_scenario()
    budget = {"delay": "150ms", "loss": "5%", "jitter": "30ms"}
    scenario["measure"] = {
        "at": ["r->b", "end_to_end"],
        "budgets": [{"app": "data", "hops": 3, "end_to_end": budget}],
    }
    (hop,) = (
        row
        for row in qoslab.run(scenario).rows("contracts")
        if row["point"] == "r->b" and row["app"] == "data"
    )
    assert (hop["delay_budget_ms"], hop["jitter_budget_ms"]) == (50, 10)
    assert (1 - hop["loss_budget_pct"] / 100) ** 3 == pytest.approx(0.95)
    assert f"(5 % over 3 hops gives {hop['loss_budget_pct']:.2f} %; the report rounds" in page


def test_the_quality_pages_mos_floor():
    """MOS is held at 1 where G.107's polynomial (B-4) dips below it."""
    page = words(DOCS / "quality.md")

    # 1 + 0.035 R + R (R - 60)(100 - R) 7e-6 = 1 where R^2 - 160 R + 1000 = 0.
    crossing = 80 - math.sqrt(80**2 - 1000)
    mos = 1 + 0.035 * crossing + crossing * (crossing - 60) * (100 - crossing) * 7e-6
    assert mos == pytest.approx(1)
    assert f"for R under about {crossing:.1f})" in page


def test_the_plot_pages_voice_bands_are_the_plots():
    """The voice plot's bands (G.109 Table 1) as the page gives them."""
    from qoslab.plot.voice import BANDS

    page = words(DOCS / "plots-and-reports.md")
    ranges = ", ".join(f"{low:.0f}{DASH}{high:.0f} {name}" for low, high, _, _, name, _ in BANDS)
    limits = [f"{low_mos:.2f}" for _, _, low_mos, _, _, _ in BANDS]
    told = ", ".join(limits[:-1]) + f" and {limits[-1]}"
    assert f"R {ranges}, with the MOS at each category's lower limit {told}" in page
