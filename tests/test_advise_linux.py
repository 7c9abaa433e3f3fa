"""qoslab advise --target-os linux: the same search over an HTB tree, written as the tc
commands ``qoslab tc export`` writes; the answer checked by arithmetic and the script applied
by the running kernel (as root). The options of the other router are refused with the other
bad requests (test_advise).

The scenario is test_advise's: three G.729 calls (26.8 kbit/s each with HDLC's 7 B), a
64 kbit/s UDP stream (64.9 kbit/s with HDLC) and an unbudgeted 400 kbit/s flood.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import in_namespace
from qoslab.advise import Executor, advise, parse_speeds
from qoslab.advise.document import write

HERE = Path(__file__).parent
SCENARIO = HERE / "advise" / "calls-and-data.yaml"
SPEEDS = parse_speeds("128kbps,192kbps,256kbps")
CALL_L2_BPS = 50 * 67 * 8
DATA_L2_BPS = 64_000 * 507 / 500


@pytest.fixture(scope="module")
def advice():
    return advise(
        SCENARIO, speeds=SPEEDS, reps=3, executor=Executor(jobs=2), target_os="linux", device="ve0"
    )


def _qoslab(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "qoslab", *arguments], capture_output=True, text=True, check=False
    )


def _bps(text: str) -> int:
    return int(text.removesuffix("kbps")) * 1000


def test_the_answer_is_an_htb_tree_within_one_step_of_the_arithmetic(advice):
    assert advice.feasible
    assert advice.template == "htb"
    # 145.3 kbit/s of budgeted traffic: 128 kbit/s is ruled out by arithmetic.
    assert advice.recommended.candidate.speed_bps == 192_000
    policy = advice.recommended.candidate.policy
    assert (policy["kind"], policy["default"]) == ("htb", "class-default")
    classes = {c["name"]: c for c in policy["classes"]}
    assert classes["link"] == {"name": "link", "rate": "192kbps"}
    calls, data, rest = classes["calls"], classes["data"], classes["class-default"]
    # The calls are a prio 0 leaf at their rate, the data a prio 1 leaf at its bandwidth,
    # class-default what they leave; all borrow up to the link.
    assert calls["prio"] == 0
    assert 3 * CALL_L2_BPS <= _bps(calls["rate"]) < 3 * CALL_L2_BPS + 1000
    assert data["prio"] == 1
    assert abs(_bps(data["rate"]) - DATA_L2_BPS) <= 0.05 * DATA_L2_BPS
    left = 192_000 - _bps(calls["rate"]) - _bps(data["rate"])
    assert rest["prio"] == 1
    assert _bps(rest["rate"]) == max(8000, left)
    assert {c["ceil"] for c in (calls, data, rest)} == {"192kbps"}
    assert all(v >= 95.0 for v in advice.recommended.low_pct.values())


def test_the_policy_is_written_as_tc_commands(advice, tmp_path):
    script = advice.config
    assert (advice.config_file, advice.identical) == ("policy.tc", None)
    assert script.startswith("#!/bin/sh\n")
    assert "tc qdisc add dev ve0 root handle 1: htb default 4 r2q 10\n" in script
    assert "classid 1:1 htb rate 192000bit ceil 192000bit" in script
    assert "u32 match ip dsfield 0xb8 0xfc flowid 1:2\n" in script
    written = {p.name for p in write(advice, tmp_path / "out", "qoslab advise test")}
    assert "policy.tc" in written
    assert "policy.ios" not in written
    page = (tmp_path / "out" / "advice.md").read_text()
    assert "# Advice for `calls-and-data`: 192 kbit/s with HTB" in page
    assert "As tc commands for device `ve0` (`policy.tc`" in page
    assert "| calls |" in page
    assert "HTB prio 0, rate" in page
    assert (tmp_path / "out" / "policy.tc").read_text() == script


def test_the_command_line_writes_the_script_and_a_command_that_runs_it(tmp_path):
    out = tmp_path / "advice"
    arguments = ["advise", str(SCENARIO), "--links", "128kbps,192kbps", "--reps", "2"]
    done = _qoslab(*arguments, "--target-os", "linux", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "tc qdisc add dev eth0 root handle 1: htb" in done.stdout
    check = next(line.strip() for line in done.stdout.splitlines() if "qoslab run" in line)
    run = _qoslab(*shlex.split(check)[1:], "-o", str(tmp_path / "run"))
    assert run.returncode == 0, run.stderr
    assert (out / "policy.tc").exists()
    assert not (out / "policy.ios").exists()


def test_the_kernel_applies_the_advised_script(namespace, tmp_path):
    linux = advise(
        SCENARIO,
        speeds=parse_speeds("192kbps"),
        reps=2,
        executor=Executor(jobs=2),
        target_os="linux",
        device="qv0",
    )
    applied = subprocess.run(
        [*in_namespace(namespace), "sh", "-c", linux.config], capture_output=True, text=True
    )
    assert applied.returncode == 0, applied.stderr
    shown = subprocess.run(
        [*in_namespace(namespace), "tc", "class", "show", "dev", "qv0"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.count("class htb") == 4, shown.stdout
