"""``qoslab sweep``: run a scenario over a grid of settings, variants and replications,
store every run, and print each flow's mean and 95 % confidence interval per point."""

from __future__ import annotations

import argparse
import sys
from difflib import get_close_matches
from pathlib import Path

import pandas as pd
from rich import box
from rich.table import Table

import qoslab
from qoslab._core import table_schemas
from qoslab.analysis import wide
from qoslab.analysis.answer import Answer
from qoslab.analysis.labels import short_headings, spelled_out
from qoslab.cli.commands import summary
from qoslab.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_RUN_FAILED,
    add_executor_options,
    add_limit_options,
    add_override_options,
    check_executor_options,
    percent,
    stdout_console,
)
from qoslab.cli.text import counted, plain, visible
from qoslab.experiment.plan import parse_vary
from qoslab.experiment.sweep import SERIES_FORMS
from qoslab.output import folder_name

SHOWN_METRICS = ("loss_pct", "delay_mean_ms", "delay_p99_ms", "jitter_rfc3550_ms")
"""The flow metrics printed by default."""

EXIT_HELP = (
    "exit status: 0 every run done; 1 one or more runs failed (recorded in runs.csv, the "
    "others done) or files could not be written; 2 bad input (a scenario, grid point, "
    "option or output folder refused, an unreachable cluster); 130 interrupted (finished "
    "runs are kept: --resume goes on)"
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "sweep",
        help=summary("sweep"),
        description="Run the scenario at every point of a grid — the cartesian product of "
        "the --vary lists (or, with --zip, the lists side by side), for every --variant and "
        "each of --reps replications — on local cores or a Dask cluster. Each run is stored "
        "in the output folder as it finishes; --resume runs only what is missing. Prints "
        "each flow's mean and 95 % confidence interval per point; the folder holds the "
        "summary of every table but the per-interval ones (summary/*.csv), "
        "the index of runs (runs.csv) and each run's results (runs/*.arrow, Arrow IPC "
        "files). Settings not given here come from the scenario's "
        "sweep: section.",
        epilog=EXIT_HELP,
    )
    command.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    command.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY.PATH=V1,V2,...",
        help="a setting and its values, e.g. --vary interfaces.r1.r2.output=fifo,wfq,llq "
        "(repeatable: the grid is the product)",
    )
    command.add_argument(
        "--zip",
        action="store_true",
        help="advance all varied lists together instead of combining them",
    )
    command.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="a variant of the scenario's variants: section to run (repeatable; base is "
        "the scenario as written)",
    )
    command.add_argument("--reps", type=int, metavar="N", help="replications per point")
    command.add_argument("--seed", type=int, metavar="N", help="master seed of every run")
    add_override_options(command)
    add_executor_options(command)
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        help="folder of the sweep (default: results/<scenario name>-sweep)",
    )
    command.add_argument(
        "--resume", action="store_true", help="keep the runs the folder has and do the rest"
    )
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    command.add_argument(
        "--series-summary",
        choices=SERIES_FORMS,
        metavar="FORM",
        help="also summarize the per-interval tables (series, class_series, dq_intervals) "
        "into summary/, as parquet or csv (large: a row per interval, point and metric); "
        "each run's file has them in any case",
    )
    command.add_argument(
        "--show",
        default=",".join(SHOWN_METRICS),
        metavar="COLUMN,...",
        help="summary columns to print: a flow metric such as loss_pct, or TABLE.COLUMN of "
        "another results table, e.g. contracts.in_contract_pct (default: "
        f"{','.join(SHOWN_METRICS)})",
    )
    command.add_argument(
        "--target",
        type=percent,
        default=95.0,
        metavar="P%",
        help="share of intervals each budgeted application must be in contract (lower bound "
        "of the 95 %% confidence interval) for a point to meet its budget (default: 95%%)",
    )
    add_limit_options(command)
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    output = args.output
    try:
        shown = shown_columns(args.show)
        if not 0 <= args.target <= 100:
            raise ValueError(f"--target {args.target:g}%: give a share from 0 to 100 %")
        vary = dict(parse_vary(text) for text in args.vary)
        check_executor_options(args)
        if output is None:
            name = qoslab.validate(args.scenario, set=args.set).name
            output = Path("results") / f"{folder_name(name)}-sweep"
        console = stdout_console()
        sweep = qoslab.sweep(
            args.scenario,
            vary=vary,
            zip=args.zip,
            variants=args.variant or None,
            reps=args.reps,
            seed=args.seed,
            set=args.set,
            jobs=args.jobs,
            executor=args.executor,
            scheduler=args.scheduler,
            out=output,
            resume=args.resume,
            progress=False if args.quiet else None,
            max_memory=args.max_memory,
            max_events=args.max_events,
            warn=lambda message: print(f"warning: {visible(message)}", file=sys.stderr),
            command=["qoslab", *sys.argv[1:]],
            series_summary=args.series_summary,
        )
    except ValueError as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(
            f"interrupted: the finished runs are kept in {visible(output)}; run the same "
            "command with --resume to go on",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED

    index = sweep.index
    done = int((index["status"] == "done").sum())
    replications = sweep.manifest["plan"]["replications"]
    console.print(
        plain(
            f"{sweep.manifest['scenario_name']}: {done} of {len(index)} runs done "
            f"({counted(len(index) // replications, 'point')}, "
            f"{counted(replications, 'replication')} each)"
        )
    )
    verdicts = sweep.answer(target_pct=args.target)
    if verdicts.apps:
        console.print(answer_table(verdicts))
        console.print(plain(verdicts.finding()))
        console.print(plain(verdicts.rule()))
    for table, columns in shown.items():
        if table in sweep.summary:
            console.print(summary_table(getattr(sweep.summary, table), columns, table))
    for row in sweep.failures.to_dict("records"):
        where = ", ".join(f"{key}={row[key]}" for key in sweep.parameters)
        console.print(
            plain(f"failed: {where or 'run'} replication {row['replication']}: {row['error']}")
        )
    console.print(plain(f"sweep written to {output}"))
    return EXIT_RUN_FAILED if len(sweep.failures) else 0


def shown_columns(text: str) -> dict[str, list[str]]:
    """The summary columns ``--show`` names, by results table: a bare name is a flows
    column, ``TABLE.COLUMN`` another table's. Raises ``ValueError`` for a table or column
    that is not one, or a column that is not measured (a key, a setting, a text)."""
    schemas = table_schemas()
    shown: dict[str, list[str]] = {}
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        table, _, column = name.rpartition(".") if "." in name else ("flows", "", name)
        if table not in schemas or table == "run":
            tables = ", ".join(t for t in schemas if t != "run")
            raise ValueError(
                f"--show {name}: there is no results table `{table}`; tables: {tables}"
            )
        measured = [
            c["name"]
            for c in schemas[table]
            if c["key"] is None and not c["descriptive"] and c["type"] in ("int", "float")
        ]
        if column not in measured:
            near = get_close_matches(column, measured, n=3)
            hint = (
                f"did you mean {', '.join(near)}?" if near else f"{table} has {', '.join(measured)}"
            )
            raise ValueError(
                f"--show {name}: `{column}` is not a measured column of {table}; {hint}"
            )
        shown.setdefault(table, []).append(column)
    return shown


def summary_table(summary: pd.DataFrame, metrics: list[str], name: str) -> Table:
    """The ``metrics`` of results table ``name`` per point and row as ``mean ± half-width``
    of the 95 % interval; rows with none of them (an application without a budget) left
    out."""
    shown = wide(summary[summary["metric"].isin(metrics)])
    shown = shown[(shown != "").any(axis=1)]
    title = f"{name}: mean ± half-width of the 95 % confidence interval"
    keys = [str(column) for column in shown.index.names]
    headings = short_headings(keys)
    caption = spelled_out(keys) or None
    table = Table(box=box.SIMPLE_HEAD, title=title, caption=caption)
    for heading in headings:
        table.add_column(heading, no_wrap=True)
    for metric in shown.columns:
        table.add_column(metric, justify="right")
    for keys, cells in zip(shown.index, shown.itertuples(index=False), strict=True):
        labels = keys if isinstance(keys, tuple) else (keys,)
        table.add_row(*(plain(str(label)) for label in labels), *(cell or "-" for cell in cells))
    return table


PASS = "✓"
FAIL = "✗"


def mark(verdict: dict) -> str:
    """An application's mark at a point: in contract or not."""
    return PASS if verdict["in_contract"] else FAIL


def answer_table(answer: Answer) -> Table:
    """Per point, each budgeted application's lower bound of its share in contract, marked
    in or out of contract, and whether every application is."""
    keys = answer.parameters
    title = (
        f"in contract: lower {answer.confidence * 100:g} % bound, % (target "
        f"{answer.target_pct:g} %)"
    )
    table = Table(box=box.SIMPLE_HEAD, title=title, caption=spelled_out(keys) or None)
    for heading in short_headings(keys):
        table.add_column(heading, no_wrap=True)
    for app in answer.apps:
        table.add_column(plain(app), justify="right")
    table.add_column("every budget", justify="center")
    for row in answer.rows():
        cells = [
            "-" if verdict is None else f"{mark(verdict)} {verdict['low_pct']:.1f}"
            for verdict in row.verdicts
        ]
        every = "yes" if row.every else "no"
        table.add_row(*(plain(value) for value in row.values), *cells, every)
    return table
