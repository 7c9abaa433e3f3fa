"""Shared fixtures: the example scenarios, a small scenario built as a dict, the command
line, how the documentation pages write figures, and a network namespace with a veth pair."""

from __future__ import annotations

import signal
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from qoslab.crosscheck.namespaces import missing_tools

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TIMES = "\u00d7"  # the multiplication sign of the pages
DASH = "\u2013"  # the en dash of the pages' ranges


def words(path: Path) -> str:
    """A document's text with every run of white space one space, so that a sentence is
    found however its lines are broken."""
    return " ".join(path.read_text(encoding="utf-8").split())


def spaced(number: int) -> str:
    """``94187500`` as the pages write it: ``94 187 500``."""
    return f"{number:,}".replace(",", " ")


def plain(value: float, decimals: int = 6) -> str:
    """``198.1875``, ``104`` or ``13.44``: a figure as the pages write it, to the last digit
    that is not zero (at most ``decimals`` decimals)."""
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".")


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture(scope="session")
def voice_vs_flood(examples_dir: Path) -> Path:
    """The voice-versus-flood example: FIFO on a 128 kbit/s link, PQ one override away."""
    return examples_dir / "voice-vs-flood.yaml"


def small_scenario(*, pattern: dict[str, object] | None = None) -> dict[str, object]:
    """Two hosts through one router, one flow from ``a`` to ``b``; 2 s after 0.5 s warm-up."""
    return {
        "name": "small",
        "run": {"duration": "2s", "warmup": "500ms", "seed": 1},
        "topology": {
            "nodes": {"a": {"kind": "host"}, "r": {"kind": "router"}, "b": {"kind": "host"}},
            "links": [
                {"between": ["a", "r"], "rate": "10Mbps", "l2": "ethernet"},
                {"between": ["r", "b"], "rate": "1Mbps", "l2": "hdlc", "delay": "2ms"},
            ],
        },
        "policies": {"short": {"kind": "fifo", "limit": 10}},
        "interfaces": {"r": {"b": {"output": "short"}}},
        "traffic": [
            {
                "name": "data",
                "from": "a",
                "to": "b",
                "protocol": "udp",
                "dst_port": 9000,
                "pattern": pattern or {"kind": "cbr", "rate_pps": 100, "size": "500B"},
            }
        ],
    }


@pytest.fixture
def make_scenario():
    """The small-scenario builder (see :func:`small_scenario`); each call gives a fresh dict."""
    return small_scenario


@pytest.fixture
def pq() -> dict[str, str]:
    """The override that puts priority queuing on the bottleneck of voice-vs-flood."""
    return {"interfaces.r1.r2.output": "pq"}


MISSPELT_KEY = """\
name: typo
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links:
    - {between: [a, b], rat: 1Mbps}
traffic: []
"""
"""A scenario whose one link says `rat` for `rate` (line 6, column 25)."""


def default_sigint() -> None:
    """For ``preexec_fn``: the child takes SIGINT as a terminal's Ctrl-C, even when the
    tests run with it ignored (a shell's background job ignores it, and children inherit
    that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def script_check(name: str) -> subprocess.CompletedProcess[str]:
    """``scripts/NAME --check`` run to its end: exit status 0 when what it writes is current."""
    script = Path(__file__).resolve().parent.parent / "scripts" / name
    return subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )


def qoslab_command(*args: object) -> list[str]:
    """The ``qoslab`` command line as this interpreter runs it."""
    return [sys.executable, "-m", "qoslab", *map(str, args)]


def qoslab_process(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m qoslab ARGS...`` run in ``cwd``, its output captured as text."""
    return subprocess.run(
        qoslab_command(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def run_qoslab() -> Callable[..., subprocess.CompletedProcess[str]]:
    """The ``qoslab`` command as a separate process (see :func:`qoslab_process`)."""
    return qoslab_process


# The test files of the full gate only: each runs many simulations, a whole sweep, a browser
# or the linters (pytest --durations on a 2-core machine: 17 to 204 s each, 632 s together).
# `scripts/fast-tests` leaves them out; `pytest` alone runs them.
SLOW_FILES = {
    "test_advise.py",
    "test_advise_handoff.py",
    "test_advise_linux.py",
    "test_code_is_clean.py",
    "test_docs_outputs.py",
    "test_examples.py",
    "test_hostile_input.py",
    "test_hostile_writes.py",
    "test_interactive.py",
    "test_serve.py",
    "test_pages_in_a_browser.py",
    "test_readiness.py",
    "test_reproduce.py",
    "test_sweep.py",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the tests of :data:`SLOW_FILES` ``slow``."""
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


def ended_pid() -> int:
    """The process id of a process that has ended (a short Python run, waited for)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def in_namespace(namespace: str) -> list[str]:
    """The prefix that runs a command in network namespace ``namespace``."""
    return ["ip", "netns", "exec", namespace]


@pytest.fixture
def namespace():
    """A network namespace holding a veth pair qv0 (up) and qv1, deleted afterwards;
    skipped, naming what is missing, without root or iproute2."""
    why = missing_tools()
    if why is not None:
        pytest.skip(why)
    name = f"qoslab-tc-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(
            [
                *in_namespace(name),
                "ip",
                "link",
                "add",
                "qv0",
                "type",
                "veth",
                "peer",
                "name",
                "qv1",
            ],
            check=True,
        )
        subprocess.run(["ip", "netns", "exec", name, "ip", "link", "set", "qv0", "up"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)
