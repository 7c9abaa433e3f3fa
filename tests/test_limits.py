"""What a run may take: the memory and event limits through the API and the CLI, the memory
guard, and Ctrl-C acting at once, with no partial output."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import qoslab
from conftest import default_sigint
from qoslab.cli import main
from qoslab.cli.common import event_count, memory_size

LONG_RUN = "run.duration=1000000s"
"""The voice-versus-flood example for 11 simulated days: tens of seconds of wall time."""

FAST_LINKS = [f"topology.links.{i}.rate=10000000000000000bps" for i in (1, 2, 4)]
"""The flood's path at 10^16 bit/s: a flood at 150 % of it is years of events."""


def test_memory_sizes_and_event_counts_read_as_people_write_them():
    assert memory_size("8GB") == 8 * 10**9
    assert memory_size("512MiB") == 512 * 2**20
    assert memory_size("1000") == 1000
    assert memory_size("1.5 GiB") == 3 * 2**29
    assert event_count("2e10") == 20_000_000_000
    for bad in ("lots", "-1GB", "8XB", "0"):
        with pytest.raises(Exception, match="not a memory size"):
            memory_size(bad)
    with pytest.raises(Exception, match="not a number of events"):
        event_count("0")


def test_an_impossible_workload_is_refused_and_can_be_allowed(voice_vs_flood):
    with pytest.raises(qoslab.ScenarioError, match=r"traffic\[1\]: the run would take about"):
        qoslab.validate(voice_vs_flood, set=FAST_LINKS)
    summary = qoslab.validate(voice_vs_flood, set=FAST_LINKS, max_events=2**64 - 1)
    assert summary.flows == 2


def test_the_cli_refuses_with_exit_2_and_names_the_option(voice_vs_flood, capsys):
    args = ["validate", str(voice_vs_flood)] + [f"--set={change}" for change in FAST_LINKS]
    assert main(args) == 2
    assert "--max-events" in capsys.readouterr().err
    assert main([*args, "--max-events", "1e19"]) == 0


def test_a_queue_without_limit_stops_the_run_with_exit_1(voice_vs_flood, tmp_path, capsys):
    unbounded = ["policies.fifo.limit=unlimited", "traffic.1.pattern.rate=5000%"]
    with pytest.raises(qoslab.RunError, match="port r1->r2 holds") as raised:
        qoslab.run(voice_vs_flood, set=unbounded, max_memory=4_000_000)
    assert raised.value.kind == "stopped"
    assert raised.value.message.startswith("run stopped at")
    args = ["run", str(voice_vs_flood), "--max-memory", "4MB", "-o", str(tmp_path / "out")]
    assert main(args + [f"--set={change}" for change in unbounded]) == 1
    assert "run stopped at" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _interrupted(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs the Python ``script``, which prints ``ready`` once its imports are done, and
    sends it SIGINT a second after that."""
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=cwd,
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline() == "ready\n"
    time.sleep(1.0)
    assert process.poll() is None, "the run ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_ctrl_c_stops_a_long_run_and_writes_nothing(voice_vs_flood, tmp_path):
    out = tmp_path / "out"
    args = ["run", str(voice_vs_flood), "--set", LONG_RUN, "-o", str(out)]
    script = (
        f"import sys, qoslab.cli\nprint('ready', flush=True)\nsys.exit(qoslab.cli.main({args!r}))\n"
    )
    finished = _interrupted(script, tmp_path)
    assert finished.returncode == 130, finished.stderr
    assert "interrupted" in finished.stderr
    assert "Traceback" not in finished.stderr
    assert not out.exists()


def test_ctrl_c_raises_keyboard_interrupt_in_the_api(voice_vs_flood, tmp_path):
    script = (
        "import qoslab\n"
        "print('ready', flush=True)\n"
        "try:\n"
        f"    qoslab.run({str(voice_vs_flood)!r}, set=[{LONG_RUN!r}])\n"
        "except KeyboardInterrupt:\n"
        "    print('caught')\n"
    )
    finished = _interrupted(script, tmp_path)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "caught"
