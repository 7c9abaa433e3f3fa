"""``qoslab readiness``: how many calls a policy and a link carry with every call's MOS and
every other budget kept; or, given the calls, the cheapest link that carries them."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

from qoslab.advise import AdviceError, parse_speeds
from qoslab.advise.readiness import DEFAULT_MOS, MAX_CALLS, Readiness, link_words, readiness
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_RUN_FAILED,
    add_executor_options,
    add_judgement_options,
    add_override_options,
    check_executor_options,
    judgement_arguments,
    scenario_name,
)
from qoslab.cli.text import visible
from qoslab.output import check_folder, folder_name, replace_folder

FILES = ("readiness.csv", "counts.csv")
"""Every file a readiness folder holds."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "readiness",
        help=summary("readiness"),
        description="Count the copies of a traffic entry (the calls of a codec) that each "
        "policy — the scenario as written and its variants — carries on each link (on a "
        "sub-rate handoff, each contract) with the worst call's MOS and every other budgeted "
        "application's share in contract at their targets (lower confidence bounds over the "
        "replications): the largest count, found by bisection, with the runs at N (carried) "
        "and N+1 (not, and why). Given one count, say which links carry it. Files: "
        "DIR/readiness.csv and counts.csv.",
        epilog="exit status: 0 answered; 1 no policy carries the smallest count on any link, "
        "or files could not be written; 2 bad input; 130 interrupted",
    )
    command.add_argument("scenario", type=Path, help="scenario YAML file with measure.budgets")
    command.add_argument(
        "--flow", required=True, metavar="NAME", help="the traffic entry whose copies are counted"
    )
    command.add_argument(
        "--calls",
        default=f"1..{MAX_CALLS // 10}",
        metavar="LOW..HIGH|N",
        help=f"counts to search (default: 1..{MAX_CALLS // 10}); one count N asks which links "
        "carry N",
    )
    command.add_argument(
        "--codecs", metavar="CODECS", help="codecs of the calls, e.g. g729,g711 (default: its own)"
    )
    command.add_argument(
        "--variants",
        metavar="NAMES",
        help="policies to compare, as variants of the scenario (default: base and every variant)",
    )
    command.add_argument(
        "--links",
        metavar="RATES",
        help="link speeds, or contracts on a handoff, e.g. 1Mbps,1536kbps (default: as written)",
    )
    command.add_argument(
        "--interface",
        metavar="NODE.PEER",
        help="the egress whose link is varied (default: the one the scenario configures)",
    )
    command.add_argument(
        "--mos",
        type=float,
        default=DEFAULT_MOS,
        metavar="MOS",
        help=f"the worst call's MOS target (default: {DEFAULT_MOS:g}, R = 70)",
    )
    add_judgement_options(
        command, "share of intervals every other budgeted application must be in contract"
    )
    add_override_options(command)
    add_executor_options(command)
    command.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="folder (default: readiness/NAME)"
    )
    command.set_defaults(main=main)


def calls_range(text: str) -> tuple[int, int]:
    """``1..40`` or ``12`` as (smallest, largest)."""
    low, dots, high = text.strip().partition("..")
    try:
        return (int(low), int(high)) if dots else (int(low), int(low))
    except ValueError:
        raise AdviceError(
            f"--calls {text}: give a range of counts such as 1..40, or one count such as 12"
        ) from None


def main(args: argparse.Namespace) -> int:
    folder = args.output or Path("readiness") / folder_name(scenario_name(args))
    check_folder(folder, FILES)
    try:
        check_executor_options(args)
        found = readiness(
            args.scenario,
            flow=args.flow,
            calls=calls_range(args.calls),
            codecs=_names(args.codecs),
            variants=_names(args.variants),
            links=parse_speeds(args.links) if args.links else None,
            interface=args.interface,
            mos_target=args.mos,
            **judgement_arguments(args),
        )
    except (AdviceError, ValueError) as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for line in table_lines(found):
        print(visible(line))
    written = replace_folder(
        folder,
        {
            "readiness.csv": lambda path: path.write_text(answers_csv(found), encoding="utf-8"),
            "counts.csv": lambda path: path.write_text(counts_csv(found), encoding="utf-8"),
        },
    )
    print(f"{found.runs} runs; written to {visible(written[0].parent)}")
    carried = any(v.most(found.calls[0]) >= found.calls[0] for v in found.verdicts)
    return 0 if carried else EXIT_RUN_FAILED


def _names(text: str | None) -> tuple[str, ...] | None:
    return tuple(part.strip() for part in text.split(",") if part.strip()) if text else None


def table_lines(found: Readiness) -> list[str]:
    """The answer as a table for the terminal."""
    link = "contract" if found.handoff else "link"
    smallest = found.calls[0]
    if found.reverse:
        lines = [f"{'policy':<18} {'codec':<8} {link:<13} carries {smallest}   why not"]
        for verdict in found.verdicts:
            s = verdict.setting
            count = verdict.counts[smallest]
            why = "-" if count.carried else count.shortfall
            lines.append(
                f"{s.variant:<18} {s.codec or '-':<8} {link_words(s.link_bps):<13} "
                f"{'yes' if count.carried else 'no':<10} {why}"
            )
        for variant, codec in dict.fromkeys(
            (v.setting.variant, v.setting.codec) for v in found.verdicts
        ):
            best = found.cheapest(variant, codec)
            answer = link_words(best.setting.link_bps) if best else f"none of the {link}s listed"
            lines.append(f"cheapest {link} for {smallest} calls, {variant} {codec or ''}: {answer}")
        return lines
    lines = [f"{'policy':<18} {link:<13} {'codec':<8} {'calls':>5}  worst MOS   why not one more"]
    for verdict in found.verdicts:
        s = verdict.setting
        most = verdict.most(smallest)
        at = verdict.counts.get(most)
        beyond = verdict.counts.get(most + 1)
        mos = f"{at.mos_low:.2f}" if at is not None and at.mos_low is not None else "-"
        if beyond is None:
            why = f"carries the largest count asked for, {found.calls[1]}"
        else:
            why = f"{most + 1}: {beyond.shortfall}"
        shown = str(most) if most >= smallest else f"<{smallest}"
        lines.append(
            f"{s.variant:<18} {link_words(s.link_bps):<13} {s.codec or '-':<8} {shown:>5}  "
            f"{mos:<9}   {why}"
        )
    return lines


def answers_csv(found: Readiness) -> str:
    """One row per policy, link and codec: the largest count carried, and why not one more."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["variant", "link_bps", "codec", "calls", "worst_mos_low", "next_calls", "next_shortfall"]
    )
    for verdict in found.verdicts:
        s = verdict.setting
        most = verdict.most(found.calls[0])
        at = verdict.counts.get(most)
        beyond = verdict.counts.get(most + 1)
        writer.writerow(
            [
                s.variant,
                s.link_bps or "",
                s.codec or "",
                most,
                f"{at.mos_low:.6g}" if at is not None and at.mos_low is not None else "",
                most + 1 if beyond is not None else "",
                beyond.shortfall if beyond is not None else "",
            ]
        )
    return out.getvalue()


def counts_csv(found: Readiness) -> str:
    """Every count run: its setting, whether it was carried, and the evidence."""
    apps = sorted({app for v in found.verdicts for c in v.counts.values() for app in c.low_pct})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["variant", "link_bps", "codec", "calls", "carried", "worst_mos_low"]
        + [f"low_pct_{app}" for app in apps]
        + ["shortfall"]
    )
    for verdict in found.verdicts:
        s = verdict.setting
        for calls in sorted(verdict.counts):
            count = verdict.counts[calls]
            writer.writerow(
                [s.variant, s.link_bps or "", s.codec or "", calls, count.carried]
                + [f"{count.mos_low:.6g}" if count.mos_low is not None else ""]
                + [f"{count.low_pct[a]:.6g}" if a in count.low_pct else "" for a in apps]
                + [count.shortfall]
            )
    return out.getvalue()
