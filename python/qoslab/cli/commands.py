"""The sub-commands of ``qoslab``: the name each is called by, the module implementing it
(with ``add_parser`` and ``main``) and the line the top-level help shows for it.

The top-level help and the error for an unknown command are made from this table alone, so
that listing the commands loads none of their modules (which bring pandas, matplotlib and
the advisor: about two seconds); a command's own module is loaded when it is called.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """A sub-command: its name, its module in ``qoslab.cli`` and its one-line summary."""

    name: str
    module: str
    summary: str


COMMANDS = (
    Command("run", "run", "run a scenario and report per-flow delay, jitter and loss"),
    Command("sweep", "sweep", "run a scenario over a grid of settings, variants and replications"),
    Command("report", "report", "write a run's or a sweep's results as one HTML page"),
    Command("plot", "plot", "draw a plot of a run's or a sweep's results as SVG or PNG"),
    Command(
        "reproduce", "reproduce", "run a source study again and compare with what it published"
    ),
    Command(
        "advise",
        "advise",
        "find the cheapest link and a policy that keep every application in its budget",
    ),
    Command(
        "readiness",
        "readiness",
        "find how many calls each policy and link carry, or the cheapest link for N calls",
    ),
    Command(
        "serve",
        "serve",
        "edit a scenario or paste IOS configuration in a local web page and watch the results",
    ),
    Command("validate", "validate", "check a scenario file without running it"),
    Command("schema", "schema", "print the JSON Schema of the scenario format"),
    Command(
        "bench",
        "bench",
        "measure simulation speed (packet-hops per second) on the benchmark scenarios",
    ),
    Command(
        "ios", "ios", "check, explain, convert or migrate a Cisco IOS configuration, or write one"
    ),
    Command(
        "tc",
        "tc",
        "write a scenario interface's output policy as Linux tc commands, or read a Linux "
        "device's policy back",
    ),
    Command(
        "crosscheck",
        "crosscheck",
        "hold a scenario's losses and delays against the Linux kernel in network namespaces",
    ),
    Command(
        "order-of-failure",
        "failure",
        "check over a sweep that applications fail in the declared order",
    ),
)
"""The sub-commands in the order the help lists them."""

BY_NAME = {command.name: command for command in COMMANDS}


def summary(name: str) -> str:
    """The one-line summary of the sub-command ``name``."""
    return BY_NAME[name].summary
