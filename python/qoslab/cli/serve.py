"""``qoslab serve``: a local web page on which to edit a scenario, paste IOS configuration
for one of its interfaces and compare its named policies, with the results redrawn at each
edit."""

from __future__ import annotations

import argparse
import contextlib
import errno
import socket
import sys
from pathlib import Path

from qoslab.cli.commands import summary
from qoslab.cli.common import EXIT_BAD_INPUT
from qoslab.cli.text import visible

DEFAULT_PORT = 8050
EXIT_HELP = (
    "exit status: 0 stopped (Ctrl-C); 2 bad input (a scenario that cannot be read, a port "
    "that cannot be used)"
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    command = commands.add_parser(
        "serve",
        help=summary("serve"),
        description="Serve a page on http://127.0.0.1:PORT/ (this machine only; no accounts) "
        "that shows SCENARIO in an editor and runs it at every edit, under each of the "
        "configurations ticked: the interface as written, each of the scenario's named "
        "policies, and IOS configuration pasted for the chosen interface, side by side. "
        "Errors are marked at their line. The file itself is never changed.",
        epilog=EXIT_HELP,
    )
    command.add_argument("scenario", type=Path, metavar="SCENARIO", help="scenario file (YAML)")
    command.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        metavar="N",
        help=f"the port to listen on, on 127.0.0.1 (default: {DEFAULT_PORT}; 0: any free one)",
    )
    command.set_defaults(main=main)


def main(args: argparse.Namespace) -> int:
    import uvicorn  # the web server only for this command

    from qoslab.serve.app import LOOPBACK, make_app

    if not 0 <= args.port <= 65535:
        print(f"error: --port {args.port}: give a port from 1 to 65535, or 0", file=sys.stderr)
        return EXIT_BAD_INPUT
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind((LOOPBACK, args.port))
        # Listening before the address is printed: a client told it may connect at once.
        listener.listen()
    except OSError as error:
        listener.close()
        why = (
            "is in use" if error.errno == errno.EADDRINUSE else f"cannot be used ({error.strerror})"
        )
        print(
            f"error: port {args.port} on {LOOPBACK} {why}: choose another with --port "
            "(0 takes any free one)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    with listener:
        port = listener.getsockname()[1]
        app = make_app(args.scenario, port)
        print(f"qoslab serve: {visible(args.scenario)} on http://{LOOPBACK}:{port}/ (Ctrl-C stops)")
        sys.stdout.flush()
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        # Ctrl-C, or a termination, is the way a server is stopped.
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config).run(sockets=[listener])
    print("qoslab serve: stopped")
    return 0
