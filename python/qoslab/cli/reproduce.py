"""``qoslab reproduce``: run a source study again and set qoslab beside what it published."""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_RUN_FAILED,
    add_executor_options,
    check_executor_options,
    stdout_console,
)
from qoslab.cli.text import counted, plain, visible

EXIT_HELP = (
    "exit status: 0 done; 1 a run failed, a published value has no explanation of why it is "
    "not reproduced (not judged with --quick), or files could not be written; 2 bad input (an "
    "unknown study, a study file refused, an option); 130 interrupted"
)

DEFAULT_OUTPUT = Path("reproductions")


if TYPE_CHECKING:
    from qoslab.reproduce import Reproduction


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "reproduce",
        help=summary("reproduce"),
        description="Run the experiments of one of the studies qoslab is built from, on local "
        "cores or a Dask cluster, and write the study's tables in its own layout with "
        "qoslab's values beside the published ones, a verdict on every published value and "
        "claim (reproduced; same conclusion, different magnitude; differs; not modelled), "
        "the study's figures redrawn, and the reason for every value not reproduced: "
        "DIR/STUDY.md, DIR/STUDY.html and DIR/STUDY/ (figures, verdicts.csv). The index "
        "DIR/README.md is written with --all, and updated when DIR already holds one that a "
        "reproduction wrote (a README.md of any other kind is never replaced).",
        epilog=EXIT_HELP,
    )
    command.add_argument("study", nargs="?", metavar="STUDY", help="short name of the study")
    command.add_argument("--list", action="store_true", help="list the studies and exit")
    command.add_argument(
        "--all", action="store_true", help="reproduce every study and write the index README.md"
    )
    command.add_argument(
        "--reps", type=int, metavar="N", help="replications instead of the study's"
    )
    command.add_argument(
        "--quick",
        action="store_true",
        help="fewer replications and shorter runs, to check that everything works",
    )
    add_executor_options(command)
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        metavar="DIR",
        help=f"folder of the documents (default: {DEFAULT_OUTPUT})",
    )
    command.add_argument(
        "--runs",
        type=Path,
        metavar="DIR",
        help="keep every run in this folder, one sweep per experiment (default: a private "
        "temporary folder, removed at the end); "
        "a second call with the same folder reuses the runs done",
    )
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    # Loaded here, not with the module: they bring matplotlib and pandas, which the
    # command's help does not need.
    from qoslab.experiment.release import release
    from qoslab.reproduce import (
        Setting,
        StudyError,
        catalogue,
        has_index,
        names,
        reproduce,
        write_index,
    )

    console = stdout_console()
    if args.list:
        installed = set(names())
        # Each description under its study's name, indented; `plain` would escape a line
        # break, so each wrapped line is printed on its own.
        wrap = textwrap.TextWrapper(
            width=max(min(console.width, 100), 40), initial_indent="    ", subsequent_indent="    "
        )
        for name, what in catalogue().items():
            state = "" if name in installed else "  (not reproduced yet)"
            console.print(plain(f"{name}{state}"))
            for line in wrap.wrap(" ".join(what.split())):
                console.print(plain(line), soft_wrap=True)
        return 0
    if args.all == (args.study is not None):
        print("error: give one STUDY, or --all (see --list)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.reps is not None and args.reps < 1:
        print(f"error: --reps {args.reps}: give at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        check_executor_options(args)
    except ValueError as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    studies = names() if args.all else [args.study]
    command = _command(args)
    # The index is written with --all, and kept up to date in a folder that holds one a
    # reproduction wrote: a README.md of another kind is left alone.
    index = args.all or has_index(args.output)
    done = {}
    status = 0
    for name in studies:
        setting = Setting(
            quick=args.quick,
            replications=args.reps,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            runs=args.runs / name if args.runs is not None else None,
            progress=False if args.quiet else None,
        )
        try:
            result = reproduce(name, args.output, setting, command, index=index)
        except (StudyError, ValueError) as error:
            print(f"error: {visible(error)}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        done[name] = result.written
        console.print(_summary(result))
        failed = sum(len(s.failures) for s in result.ran.sweeps.values())
        if failed:
            print(
                f"error: {counted(failed, 'run')} of {name} failed; their values are missing",
                file=sys.stderr,
            )
            status = EXIT_RUN_FAILED
        if result.written.unexplained and args.quick:
            # A quick run checks that everything works; its shorter runs and fewer
            # replications move verdicts, which only the full reproduction judges.
            print(
                f"note: {name}: {counted(len(result.written.unexplained), 'value')} not "
                "reproduced by these quick runs; run without --quick to judge them",
                file=sys.stderr,
            )
        elif result.written.unexplained:
            print(
                f"error: {name}: not reproduced and not explained: "
                f"{', '.join(result.written.unexplained)} (add `why` in published.yaml)",
                file=sys.stderr,
            )
            status = EXIT_RUN_FAILED
        console.print(plain(f"written: {result.written.markdown}, {result.written.html}"))
        # The study's runs and tables go before the next study runs: with --all, five
        # studies' would otherwise be held at once, and their freed memory is given back,
        # so that the next study's peak does not sit on top of this one's.
        del result
        release()
    if index:
        # One study reproduced into a folder that holds the index (docs/studies): its line
        # is brought up to date, the others' read from their verdicts there.
        console.print(plain(f"index: {write_index(done, args.output, command)}"))
    return status


def _command(args: argparse.Namespace) -> str:
    """The command line that does what ``args`` asks, for the top of the documents."""
    words = ["qoslab", "reproduce", args.study or "--all"]
    if args.quick:
        words.append("--quick")
    if args.reps is not None:
        words += ["--reps", str(args.reps)]
    if args.output != DEFAULT_OUTPUT:
        words += ["-o", str(args.output)]
    return " ".join(shlex.quote(word) for word in words)


def _summary(result: Reproduction) -> Table:
    from qoslab.analysis.verdict import VERDICTS

    study = result.study
    tally = result.written.tally
    results = sum(tally.counts.values())
    aside = ", ".join(f"{n} {name}" for name, n in tally.apart.items() if n)
    table = Table(
        box=box.SIMPLE_HEAD,
        title=plain(
            f"{study.name}: {results} results"
            + (f" ({aside} apart)" if aside else "")
            + (f", robust {tally.robust_text()}" if tally.robust else "")
            + f", {result.ran.took} of runs"
        ),
    )
    for verdict in VERDICTS:
        table.add_column(verdict, justify="right")
    table.add_row(*(str(tally.counts[v]) for v in VERDICTS))
    return table
