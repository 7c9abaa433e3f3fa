"""Packet capture read back by Wireshark's ``tshark``: the congestion-lab example's frames
decode as Ethernet and Cisco HDLC carrying IPv4, UDP and TCP, with the example's DSCP,
ports and sizes, and as many packets per flow as the simulator counted."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import qoslab
from qoslab.cli import main

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (Debian package `tshark`)"
)

FIELDS = [
    "frame.time_epoch",
    "ip.dsfield.dscp",
    "ip.proto",
    "ip.len",
    "udp.srcport",
    "udp.dstport",
    "tcp.srcport",
    "tcp.dstport",
    "ip.checksum.status",
    "udp.checksum.status",
    "tcp.checksum.status",
]
GOOD = "1"
"""Wireshark's checksum status "good" (0 bad, 2 unverified, 3 not present)."""


def tshark(path: Path) -> list[dict[str, str]]:
    """One dict of ``FIELDS`` per record of the capture at ``path``."""
    command = [TSHARK, "-r", str(path), "-T", "fields"]
    for protocol in ("ip", "udp", "tcp"):
        command += ["-o", f"{protocol}.check_checksum:TRUE"]
    for field in FIELDS:
        command += ["-e", field]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, line.split("\t"), strict=True)) for line in out.splitlines()]


def flow_of(row: dict[str, str]) -> str:
    """The congestion-lab flow a record belongs to, by its ports."""
    ports = (row["udp.srcport"] or row["tcp.srcport"], row["udp.dstport"] or row["tcp.dstport"])
    return {("44899", "5060"): "voice", ("21", "21"): "ftp", ("4249", "1720"): "video"}[ports]


@pytest.fixture(scope="module")
def congestion_lab(tmp_path_factory: pytest.TempPathFactory, examples_dir: Path):
    folder = tmp_path_factory.mktemp("pcap")
    results = qoslab.run(
        examples_dir / "congestion-lab.yaml",
        # Whole frames, so that tshark can verify the UDP and TCP checksums.
        set={"run.duration": "20s", "measure.pcap": {"snap_length": 1600}},
        pcap=folder,
    )
    return results, folder


@needs_tshark
def test_voice_is_udp_dscp_11_from_44899_to_5060(congestion_lab) -> None:
    _, folder = congestion_lab
    for port in ("trafgen-to-r1", "r1-to-r2"):
        voice = [row for row in tshark(folder / f"{port}.pcap") if row["udp.srcport"]]
        assert voice, port
        for row in voice:
            assert (row["ip.proto"], row["ip.dsfield.dscp"]) == ("17", "11")
            assert (row["udp.srcport"], row["udp.dstport"], row["ip.len"]) == (
                "44899",
                "5060",
                "150",
            )
            assert row["ip.checksum.status"] == GOOD
            assert row["udp.checksum.status"] == GOOD


@needs_tshark
def test_packets_per_flow_equal_the_simulators(congestion_lab) -> None:
    """On the first link (100 Mbit/s, never queued) every packet the generator created in
    the measured window starts on the wire in it."""
    results, folder = congestion_lab
    warmup_s = results.run["warmup_s"]
    rows = tshark(folder / "trafgen-to-r1.pcap")
    counted = Counter(flow_of(row) for row in rows if float(row["frame.time_epoch"]) >= warmup_s)
    assert all(row["tcp.checksum.status"] == GOOD for row in rows if row["tcp.srcport"])
    sent = dict(zip(results.flows["flow"], results.flows["sent_packets"], strict=True))
    assert counted == {flow: sent[flow] for flow in ("voice", "ftp", "video")}
    # The serial link's capture holds what its port sent in the window, in every flow.
    serial = tshark(folder / "r1-to-r2.pcap")
    in_window = sum(float(row["frame.time_epoch"]) >= warmup_s for row in serial)
    port = results.ports.set_index("port").loc["r1->r2"]
    assert abs(in_window - port["sent_packets"]) <= 1, "at most the frame on the wire at the end"


def test_cli_pcap_folder_that_cannot_be_made(voice_vs_flood: Path, tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    status = main(["run", str(voice_vs_flood), "-o", str(tmp_path / "out"), "--pcap", str(blocker)])
    assert status == 2
    assert f"error: {blocker}: is a file, not a folder. Give a folder" in capsys.readouterr().err
    assert blocker.read_text() == "not a folder"
    assert not (tmp_path / "out").exists(), "refused before the run"


def test_capture_asked_for_after_the_run_advanced(voice_vs_flood: Path, tmp_path: Path) -> None:
    simulation = qoslab._core.Simulation(voice_vs_flood.read_text(), str(voice_vs_flood))
    simulation.advance(simulation.end_ns // 10)
    with pytest.raises(RuntimeError, match="before the run advances"):
        simulation.capture_pcap(tmp_path / "late")
