"""``qoslab ios migrate``: what changes when a classic IOS router is replaced by an IOS XE
one (``--to xe``, the default), or the other way (``--to hqf``).

The scenario's interface ``NODE.PEER`` is configured from IOS text
(``interfaces.NODE.PEER.ios: {config: FILE, interface: NAME}``). The command runs the
scenario with the same traffic: the configuration under its own scheduler, the same text
under the target's (when the target's syntax accepts it), and the text rewritten for the
target by ``ios_migrate`` (Cisco's migration advice: shares as ``bandwidth remaining ratio``
on IOS XE, as ``bandwidth percent`` on classic IOS). It prints each flow's throughput, mean
delay, loss and, for voice, MOS side by side, then whether the rewrite gives every flow the
share of what left the router that it had before (within 2 percentage points), the changes
line by line, and the rewritten text (or writes it to ``-o FILE``).
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import yaml

from qoslab._core import ScenarioError, ios_flavour, ios_migrate, ios_read
from qoslab.cli.common import EXIT_BAD_INPUT
from qoslab.cli.text import visible
from qoslab.output import write_file
from qoslab.results import Results
from qoslab.run import run, validate
from qoslab.scenario import scenario_text

TOLERANCE_PP = 2.0
"""How far, in percentage points of the link, a flow's share under the rewrite may be from
its share before for the rewrite to count as restoring the split."""


def add_migrate_parser(actions: argparse._SubParsersAction, epilog: str) -> None:
    migrate = actions.add_parser(
        "migrate",
        epilog=epilog,
        help="run an interface configured from IOS as it is, on the other family of "
        "routers, and rewritten for it; print the flows side by side and the rewrite",
    )
    migrate.add_argument(
        "--to",
        choices=("xe", "hqf"),
        default="xe",
        help="the target: IOS XE (default) or classic IOS 15 with HQF",
    )
    migrate.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    migrate.add_argument(
        "--interface",
        required=True,
        metavar="NODE.PEER",
        help="the interface, configured in the scenario from IOS text (`ios:`)",
    )
    migrate.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write the rewritten configuration here"
    )
    migrate.set_defaults(main=main_migrate)


def main_migrate(args: argparse.Namespace) -> int:
    text, origin = scenario_text(args.scenario)
    validate(args.scenario)
    node, _, peer = args.interface.partition(".")
    document = yaml.safe_load(text)
    entry = ((document.get("interfaces") or {}).get(node) or {}).get(peer) or {}
    ios = entry.get("ios") if isinstance(entry, dict) else None
    if not isinstance(ios, dict):
        raise ScenarioError(
            f"{origin}: interfaces.{args.interface}.ios: the interface is not configured from "
            "IOS text. Give it `ios: {config: FILE, interface: NAME}`"
        )
    config_path = Path(ios["config"])
    if "\n" in ios["config"]:
        raise ScenarioError(
            f"{origin}: interfaces.{args.interface}.ios.config: migrate rewrites a file. "
            "Put the configuration in a file and name it here"
        )
    if not config_path.is_absolute():
        config_path = Path(args.scenario).parent / config_path
    config = ios_read(str(config_path))
    flavour = ios_flavour(config, ios.get("scheduler"))
    family = {"xe": "IOS XE", "hqf": "HQF"}[args.to]
    if flavour is None or (flavour[0] == "xe") == (args.to == "xe"):
        print(
            f"{visible(str(config_path))}: already for {family} (or contradicting itself: "
            "`qoslab ios check` says which); nothing to migrate"
        )
        return EXIT_BAD_INPUT
    rewritten, changes = ios_migrate(
        config, ios["interface"], _link_rate(document, node, peer), str(config_path), args.to
    )
    key = f"interfaces.{args.interface}.ios"
    with tempfile.TemporaryDirectory() as scratch:
        written = Path(scratch) / "migrated.txt"
        written.write_text(rewritten, encoding="utf-8")
        runs = [(f"{flavour[0]}, as configured", run(args.scenario))]
        try:
            same = run(args.scenario, set={f"{key}.scheduler": args.to})
            runs.append((f"{family}, the same text", same))
        except ScenarioError as refused:
            print(f"The same text on {family}: refused ({visible(str(refused))})\n")
        rewrite = {f"{key}.config": str(written), f"{key}.scheduler": args.to}
        runs.append((f"{family}, rewritten", run(args.scenario, set=rewrite)))
    _print_table(runs)
    worst = _worst_share_difference(runs[0][1], runs[-1][1])
    verdict = "restores" if worst <= TOLERANCE_PP else "does not restore"
    print(
        f"\nThe rewrite {verdict} the {flavour[0]} split: every flow's share of what left the "
        f"router is within {worst:.2f} percentage points of before (tolerance {TOLERANCE_PP:g})."
    )
    print("\nChanges:")
    for change in changes:
        print(f"  {visible(change)}")
    if args.output is None:
        print(f"\nThe configuration for {family}:\n")
        print(rewritten, end="" if rewritten.endswith("\n") else "\n")
    else:
        write_file(args.output, rewritten.encode())
        print(f"\nThe configuration for {family} written to {visible(str(args.output))}")
    return 0


def _link_rate(document: dict, node: str, peer: str) -> str | None:
    """The rate of the link between ``node`` and ``peer``, as written."""
    for link in (document.get("topology") or {}).get("links") or []:
        if sorted(link.get("between") or []) == sorted([node, peer]):
            return str(link.get("rate"))
    return None


def _mos(results: Results) -> dict[str, float]:
    return {row["flow"]: row["mos"] for row in results.rows("voice")}


def _print_table(runs: list[tuple[str, Results]]) -> None:
    names = [label for label, _ in runs]
    print("  ".join(f"[{i + 1}] {name}" for i, name in enumerate(names)))
    header = f"{'flow':<20}" + "".join(
        f"{f'{what} [{i + 1}]':>14}"
        for what in ("kbit/s", "delay ms", "loss %", "MOS")
        for i in range(len(runs))
    )
    print(header)
    tables = [r.flows.set_index("flow") for _, r in runs]
    scores = [_mos(r) for _, r in runs]
    for flow in tables[0].index:
        cells = []
        for column, scale, digits in (
            ("delivered_l3_bps", 1e-3, 1),
            ("delay_mean_ms", 1, 2),
            ("loss_pct", 1, 2),
        ):
            for table in tables:
                value = table.loc[flow, column] * scale
                cells.append("-" if _missing(value) else f"{value:.{digits}f}")
        cells += [f"{s[flow]:.2f}" if flow in s else "-" for s in scores]
        print(f"{visible(flow):<20}" + "".join(f"{c:>14}" for c in cells))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _worst_share_difference(before: Results, after: Results) -> float:
    """The largest difference between a flow's share of all delivered bits in ``before`` and
    in ``after``, percentage points."""
    shares = []
    for results in (before, after):
        delivered = results.flows.set_index("flow")["delivered_l3_bps"]
        shares.append(100 * delivered / delivered.sum())
    return float((shares[0] - shares[1]).abs().max())
