"""The figures of the reference pages (``docs/scenario.md``, the disciplines' algorithm
sections), measured again in runs of the engine and found in the pages as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import qoslab
from conftest import small_scenario

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


def plain(value: float) -> str:
    """A figure to the last digit that is not zero (at most two decimals)."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


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
    assert rate == f"{plain(flow['offered_l3_bps'] / 1e3)} kbit/s"


def test_the_cbwfq_pages_three_classes():
    """Three saturated classes of 50, 30 and 20 % of a 1 Mbit/s interface, then two."""
    page = " ".join((DOCS / "qdisc" / "cbwfq.md").read_text(encoding="utf-8").split())
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
