"""Helpers shared by several sub-commands."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

EXIT_RUN_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

EXIT_STATUS_HELP = (
    "exit status: 0 done; 1 the run failed or its result files could not be written;\n"
    "2 bad input (a scenario, file, option or output folder refused); 130 interrupted"
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


def stdout_console() -> Console:
    """A console for results on stdout: terminal width on a terminal, wide otherwise."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else WIDE_OUTPUT)
