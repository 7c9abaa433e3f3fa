"""``qoslab bench --build``: what building a scenario costs per flow, from a thousand flows
to a hundred thousand.

The scenario is the flows-scaling benchmark's network (``flows-1``: the headline's 10 Mbit/s
bottleneck with FIFO) with its traffic replaced by entries of up to 10,000 ``copies`` of a
1500-byte flood, 15 Mbit/s in total as in that benchmark. Loading, checking and building it
is what ``qoslab validate`` and every run do before the first event. Each size is built
``repeat`` times; the least CPU time is reported, with the time per flow, which stays flat
when the build is linear in flows.
"""

from __future__ import annotations

import time

from rich.table import Table

from qoslab._core import Simulation, bench_cases

FLOWS = (1_000, 10_000, 100_000)
TOTAL_BPS = 15_000_000
"""What the floods offer together, bit/s."""
MEMORY_BYTES = 1 << 40
"""The memory the builds are allowed: the check of a scenario's memory counts every flow's
delay histogram at its largest, which puts 100,000 flows above the core's default; the
build itself is what is measured."""
COPIES_PER_ENTRY = 10_000
"""The most copies one traffic entry may have (``MAX_COPIES`` in the core)."""


def scenario(flows: int) -> str:
    """The flows benchmark with ``flows`` flood flows, in entries of at most 10,000 copies."""
    text = next(text for name, text, _ in bench_cases() if name == "flows-1")
    network, _, _ = text.partition("\ntraffic:\n")
    entries = []
    for number, start in enumerate(range(0, flows, COPIES_PER_ENTRY)):
        copies = min(COPIES_PER_ENTRY, flows - start)
        entries.append(
            f"  - {{name: floods{number}, from: senders, to: receivers, phase: random, "
            f"copies: {copies}, pattern: {{kind: flood, rate: {TOTAL_BPS // flows}bps}}}}\n"
        )
    return f"{network}\ntraffic:\n{''.join(entries)}"


def build_table(repeat: int) -> Table:
    """The measurements as a table for the terminal."""
    table = Table(title="qoslab bench --build: loading and building flows", title_justify="left")
    for heading in ("flows", "build s (CPU)", "µs per flow"):
        table.add_column(heading, justify="right")
    for flows in FLOWS:
        text = scenario(flows)
        best_s = float("inf")
        for _ in range(repeat):
            started_s = time.process_time()
            Simulation(text, f"<flows-{flows}>", [], None, MEMORY_BYTES)
            best_s = min(best_s, time.process_time() - started_s)
        table.add_row(f"{flows:,}", f"{best_s:.3f}", f"{best_s / flows * 1e6:.1f}")
    return table
