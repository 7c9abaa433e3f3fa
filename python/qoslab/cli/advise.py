"""``qoslab advise``: the cheapest link and the policy that keep every application in its
budget, checked under overload, as IOS configuration."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from qoslab.advise import (
    DEFAULT_SPEEDS_BPS,
    TEMPLATES,
    Advice,
    AdviceError,
    advise,
    parse_speeds,
    rate_text,
    rate_words,
)
from qoslab.advise.document import FILES, check_command, write
from qoslab.advise.problem import SCHEDULERS
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
from qoslab.output import check_folder, folder_name

EXIT_HELP = (
    "exit status: 0 a link and policy meet the target; 1 none of the candidates does (the "
    "reasons are in the advice), or files could not be written; 2 bad input (a scenario without "
    "budgets, a template that cannot tell its applications apart, candidate speeds below what the "
    "traffic needs, an option); 130 interrupted"
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "advise",
        help=summary("advise"),
        description="Search candidate link speeds, cheapest first, and a template family's "
        "policies at each (priority rate and burst, bandwidth per class, queue limits, WRED, "
        "transmit ring, LFI) — on an interface shaped, or policed by its peer, below its line's "
        "rate, candidate contracts instead, each a shaper at the contract over the policy — for "
        "the first that keeps every budgeted application of SCENARIO in contract in at least "
        "the target share of intervals (lower confidence bound over the replications); "
        "slow the line in steps under the same policy, so that the offered load rises against "
        "it, and compare the order of failure with the declared "
        "one; write the policy as IOS configuration. Files: DIR/advice.md, advice.html, "
        "policy.ios (or policy.tc with --target-os linux), policy.yaml, candidates.csv, "
        "speeds.csv, overload.csv and the figures.",
        epilog=EXIT_HELP,
    )
    command.add_argument("scenario", type=Path, help="scenario YAML file with measure.budgets")
    command.add_argument(
        "--links",
        metavar="RATES",
        help="candidate link speeds, e.g. 256kbps,512kbps,1Mbps (default: "
        + ",".join(rate_text(s) for s in DEFAULT_SPEEDS_BPS)
        + ")",
    )
    command.add_argument(
        "--template", choices=TEMPLATES, default="llq", help="policy family (default: llq)"
    )
    command.add_argument(
        "--interface",
        metavar="NODE.PEER",
        help="the egress to configure (default: the one interface the scenario configures)",
    )
    add_judgement_options(command, "share of intervals each application must be in contract")
    command.add_argument(
        "--router",
        choices=SCHEDULERS,
        help="the IOS class scheduler to write the policy for: pre-HQF IOS, HQF (classic IOS "
        "15) or IOS XE (default: the one the scenario's policy runs under, else pre-hqf)",
    )
    command.add_argument(
        "--target-os",
        choices=("ios", "linux"),
        default="ios",
        help="the router the policy is written for: Cisco IOS (CBWFQ/LLQ, policy.ios; the "
        "default) or Linux (an HTB tree, policy.tc as qoslab tc export writes it)",
    )
    command.add_argument(
        "--dev",
        metavar="DEVICE",
        help="with --target-os linux: the Linux device the tc commands configure (default eth0)",
    )
    command.add_argument(
        "--ios-name",
        metavar="NAME",
        help="the interface's IOS name (default: Serial0/0/0 on serial links, "
        "GigabitEthernet0/0 otherwise)",
    )
    add_override_options(command)
    add_executor_options(command)
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        help="folder of the advice (default: advice/NAME)",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    # The folder is checked before the runs, which may take minutes.
    folder = args.output or Path("advice") / folder_name(scenario_name(args))
    check_folder(folder, FILES)
    try:
        check_executor_options(args)
        speeds = parse_speeds(args.links) if args.links else DEFAULT_SPEEDS_BPS
        advice = advise(
            args.scenario,
            speeds=speeds,
            template=args.template,
            interface=args.interface,
            ios_interface=args.ios_name,
            target_os=args.target_os,
            device=args.dev,
            scheduler=args.router,
            **judgement_arguments(args),
        )
    except (AdviceError, ValueError) as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    command = shlex.join(["qoslab", *sys.argv[1:]]) if sys.argv[1:] else "qoslab advise"
    written = write(advice, folder, command)
    _print(advice, folder.resolve())
    print(f"advice written to {visible(written[0].parent)}")
    return 0 if advice.feasible else EXIT_RUN_FAILED


def _print(advice: Advice, folder: Path) -> None:
    for speed in advice.speeds:
        verdict = "meets the target" if speed.feasible else f"no: {speed.reason}"
        print(f"{rate_words(speed.speed_bps):>13}  {visible(verdict)}")
    rec = advice.recommended
    if rec is None:
        print("no candidate link and policy meet the target (see the reasons above)")
        return
    noun = "contract" if advice.problem.handoff is not None else "link"
    print(
        f"\nrecommended: {rate_words(rec.candidate.speed_bps)} {noun}, {rec.candidate.label}; "
        f"headroom {rec.headroom:.2f}"
    )
    for app in advice.problem.budgeted:
        print(
            f"  {app.name:<16} in contract {rec.mean_pct.get(app.name, float('nan')):6.2f} % "
            f"(lower bound {rec.low_pct.get(app.name, float('nan')):6.2f} %)"
        )
    if advice.order_holds is not None:
        held = "holds" if advice.order_holds else "does NOT hold"
        print(f"order of failure under overload: {held}")
    print(f"\n{advice.config}")
    print(f"check it with:\n  {check_command(advice, folder)}")
    print(f"{advice.runs} runs in {advice.elapsed_s:.1f} s")
