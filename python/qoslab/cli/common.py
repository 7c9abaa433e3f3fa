"""Helpers shared by several sub-commands."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from rich.console import Console

from qoslab.cli.text import visible
from qoslab.output import write_file

EXIT_RUN_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

EXIT_STATUS_HELP = (
    "exit status: 0 done; 1 the run failed or its result files could not be written;\n"
    "2 bad input (a scenario, file, option or output folder refused); 130 interrupted\n"
    "(Ctrl-C or SIGTERM)"
)
"""The exit statuses, shown at the end of every command's help."""

WIDE_OUTPUT = 160
"""Line width when stdout is a file or pipe, so that tables are not squeezed to 80 columns."""


def add_override_options(command: argparse.ArgumentParser) -> None:
    """Add ``--set key.path=value`` (repeatable) to a sub-command."""
    command.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="change one value of the scenario before it is checked, e.g. "
        "--set interfaces.r1.r2.output=pq or --set traffic.0.dscp=AF41 (repeatable)",
    )


def add_judgement_options(command: argparse.ArgumentParser, target_help: str) -> None:
    """Add ``--reps``, ``--target`` (``target_help`` says of what) and ``--confidence``: how
    the runs of a candidate are judged (``advise``, ``readiness``)."""
    command.add_argument(
        "--reps", type=int, default=5, metavar="N", help="replications (default: 5, at least 2)"
    )
    command.add_argument(
        "--target", type=percent, default=95.0, metavar="P%", help=f"{target_help} (default: 95%%)"
    )
    command.add_argument(
        "--confidence",
        type=percent,
        default=95.0,
        metavar="P%",
        help="confidence level of the lower bounds (default: 95%%)",
    )


def judgement_arguments(args: argparse.Namespace) -> dict:
    """The keyword arguments of ``advise`` and ``readiness`` their shared options give: the
    replications, the target and confidence, the overrides and where the runs go."""
    from qoslab.advise import Executor  # pandas only for the commands that judge runs
    from qoslab.scenario import pairs

    return {
        "reps": args.reps,
        "target_pct": args.target,
        "confidence": args.confidence / 100,
        "overrides": tuple(pairs(args.set, {})),
        "executor": Executor(args.jobs, args.executor, args.scheduler),
    }


def scenario_name(args: argparse.Namespace) -> str:
    """The name of ``args.scenario`` with its ``--set`` overrides, as a command reads it."""
    from qoslab._core import scenario_counts
    from qoslab.scenario import pairs, scenario_text

    text, origin = scenario_text(args.scenario)
    return scenario_counts(text, origin, pairs(args.set, {}))[0]


def percent(text: str) -> float:
    """An option's ``95%`` (or ``95``) as a number."""
    try:
        return float(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give a percentage, e.g. 95%") from None


def add_executor_options(command: argparse.ArgumentParser) -> None:
    """Add ``--jobs``, ``--executor`` and ``--scheduler``: where a command's runs go."""
    from qoslab.experiment.engine import EXECUTORS  # pandas only for the commands with runs

    command.add_argument(
        "--jobs", type=int, metavar="N", help="runs at once on this machine (default: all cores)"
    )
    command.add_argument(
        "--executor", choices=EXECUTORS, default="local", help="where runs go (default: local)"
    )
    command.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the Dask scheduler of --executor dask, e.g. tcp://10.0.0.5:8786",
    )


def check_executor_options(args: argparse.Namespace) -> None:
    """Raise ``ValueError`` for ``--jobs`` below 1 or ``--executor dask`` without a
    scheduler."""
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: give at least 1")
    if args.executor == "dask" and not args.scheduler:
        raise ValueError("--executor dask needs --scheduler ADDRESS")


def add_variant_option(command: argparse.ArgumentParser) -> None:
    """Add ``--variant NAME`` to a sub-command that loads one scenario."""
    command.add_argument(
        "--variant",
        metavar="NAME",
        help="apply this overlay of the scenario's variants: section first (default: the "
        "scenario as written)",
    )


MEMORY_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
MEMORY_UNITS |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def memory_size(text: str) -> int:
    """A memory size such as ``8GB``, ``512MiB`` or ``1000000`` (bytes), for argparse."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = match and MEMORY_UNITS.get(match.group(2).lower())
    if not match or unit is None or float(match.group(1)) * unit < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a memory size: write e.g. 8GB, 512MiB or a number of bytes"
        )
    return int(float(match.group(1)) * unit)


def event_count(text: str) -> int:
    """A number of events such as ``2e10`` or ``20000000000``, for argparse."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 1 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of events: write e.g. 2e10")
    return int(value)


def add_limit_options(command: argparse.ArgumentParser) -> None:
    """Add ``--max-memory`` and ``--max-events`` to a sub-command that loads a scenario."""
    command.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help="memory a run may take, e.g. 8GB (default: half the memory this process can get: "
        "physical memory, ulimit -v and its container's limit, whichever is least); a scenario "
        "that needs more is refused, a run whose queues outgrow it is stopped",
    )
    command.add_argument(
        "--max-events",
        type=event_count,
        metavar="N",
        help="events a run may take, e.g. 5e10 (default: 1e10, about ten minutes); a scenario "
        "estimated to need more is refused",
    )


def stdout_console() -> Console:
    """A console for results on stdout: terminal width on a terminal, wide otherwise."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else WIDE_OUTPUT)


def print_or_write(text: str, output: Path | None, what: str) -> int:
    """Print ``text`` on stdout, or write it to the file ``output`` and say so, naming it
    ``what`` (``tc script``); exit status 0."""
    if output is None:
        print(text, end="")
        return 0
    write_file(output, text.encode())
    print(f"{what} written to {visible(output)}")
    return 0
