"""The ``qoslab`` command: one module per sub-command, each with ``add_parser`` and ``main``."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from qoslab import RunError, ScenarioError, __version__
from qoslab.cli.commands import BY_NAME, COMMANDS
from qoslab.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_RUN_FAILED,
    EXIT_STATUS_HELP,
)
from qoslab.cli.text import visible
from qoslab.output import OutputError
from qoslab.readback import ReadError


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``qoslab`` command; given the name of a sub-command, a
    parser of that sub-command alone, so that only its module (and what it imports) is
    loaded. Otherwise (the top-level help, no command or an unknown one) every sub-command
    is listed with its summary, and none is loaded."""
    top = argparse.ArgumentParser(
        prog="qoslab",
        description="A deterministic packet-level laboratory for network queuing and QoS.",
        epilog=EXIT_STATUS_HELP,
    )
    top.add_argument("--version", action="version", version=f"qoslab {__version__}")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = BY_NAME.get(command or "")
    if chosen is not None:
        importlib.import_module(f"qoslab.cli.{chosen.module}").add_parser(commands)
    else:
        for listed in COMMANDS:
            commands.add_parser(listed.name, help=listed.summary)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``qoslab`` command with ``argv`` (default: the process arguments).

    Returns the exit status: 0 on success, 1 if a run failed or its files could not be
    written, 2 for bad input (a scenario error, a missing file, a malformed ``--set``, an
    output folder refused; argparse exits with 2 itself for bad options), 130 when
    interrupted. Messages quoting user text are printed with control characters escaped.
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments == ["--version"]:
        # Answered before the parser is built: building it loads every sub-command.
        print(f"qoslab {__version__}")
        return 0
    args = parser(arguments[0] if arguments else None).parse_args(arguments)
    terminate = _terminate_as_interrupt()
    try:
        return args.main(args)
    except (ScenarioError, OutputError, ReadError) as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RunError as error:
        print(f"run failed: {visible(error)}", file=sys.stderr)
        return EXIT_RUN_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout has gone (as in `qoslab schema | head`): stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_RUN_FAILED
    except OSError as error:
        print(f"error: {visible(error)}", file=sys.stderr)
        return EXIT_RUN_FAILED
    finally:
        terminate()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it stops as it stops on Ctrl-C: every
    ``finally`` runs and removes the staging files and folders of what was being written."""


def _terminate_as_interrupt():
    """Make SIGTERM stop the command as Ctrl-C does, in the main thread of the process's
    own command (not when ``main`` is called from a program with its own handler); return
    the function that restores the handler there was."""
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return lambda: None

    def raise_interrupt(signum: int, frame: object) -> None:
        raise Terminated

    try:
        signal.signal(signal.SIGTERM, raise_interrupt)
    except ValueError:  # not the main thread
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL)
