"""Helpers shared by several sub-commands."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

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
