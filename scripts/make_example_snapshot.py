#!/usr/bin/env python3
"""Write the headline results of every example as one table, or check that table.

    scripts/make_example_snapshot.py [--check]

Each example in ``examples/`` runs as written (its own seed and replication), and each of its
flow rows gives one line of ``tests/snapshots/example-headlines.csv``: packets sent,
received and dropped, and the one-way delay's mean, 99th percentile and maximum (ms, six
significant digits). A change that moves any example's results shows in that file's diff;
``tests/test_examples.py`` runs the check. With ``--check`` nothing is written and the exit
status is 1 when the table differs from what the examples give now.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

import qoslab

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "snapshots" / "example-headlines.csv"
COLUMNS = (
    "sent_packets",
    "received_packets",
    "dropped_packets",
    "delay_mean_ms",
    "delay_p99_ms",
    "delay_max_ms",
)


def _cell(value: object) -> str:
    """A count as is, a delay to six significant digits, a missing value empty."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def headlines() -> str:
    """The table's text: a header, then one line per example and flow row, in order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("example", "flow", *COLUMNS))
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        for row in qoslab.run(path).rows("flows"):
            writer.writerow((path.stem, row["flow"], *(_cell(row[c]) for c in COLUMNS)))
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    text = headlines()
    if args.check:
        current = SNAPSHOT.read_text(encoding="utf-8") if SNAPSHOT.exists() else ""
        if current != text:
            print(f"{SNAPSHOT.relative_to(ROOT)} differs: run scripts/make_example_snapshot.py")
            return 1
        return 0
    SNAPSHOT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
