"""``qoslab ios check|explain|to-yaml`` on input that is wrong: every problem is reported
at its place with a fix and exits with status 2, never with a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ACTIONS = ("check", "explain", "to-yaml")

CYCLE = """\
policy-map A
 class class-default
  shape average 64000
  service-policy B
policy-map B
 class class-default
  shape average 64000
  service-policy A
interface Serial0/0
 service-policy output A
"""

ZERO_RATE = """\
policy-map P
 class class-default
  shape average 0
interface Serial0/0
 service-policy output P
"""

MIXED_BANDWIDTH = """\
class-map A
 match ip dscp ef
policy-map P
 class A
  bandwidth percent 20
 class class-default
  bandwidth remaining percent 30
interface Serial0/0
 service-policy output P
"""

HUGE_QUEUE = """\
queue-list 1 queue 2 limit 4294967295
interface Serial0/0
 custom-queue-list 1
"""


def ios(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qoslab", "ios", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def write(tmp_path: Path, name: str, content: bytes) -> str:
    (tmp_path / name).write_bytes(content)
    return name


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("cycle.txt", CYCLE.encode(), "cycle.txt:8:18: "),
        ("zero.txt", ZERO_RATE.encode(), "zero.txt:3:17: "),
        ("mixed.txt", MIXED_BANDWIDTH.encode(), "mixed.txt:7:3: "),
        ("huge.txt", HUGE_QUEUE.encode(), "huge.txt:1:28: "),
        ("nul.txt", b"interface Serial0/0\n bandwidth 64\x00\n", "nul.txt:2:14: "),
        ("latin1.txt", b"interface Serial0/0\n description caf\xe9\n", "offset 36 (line 2)"),
    ],
)
def test_a_bad_configuration_is_an_error_at_its_place(tmp_path, action, name, content, expected):
    result = ios(action, write(tmp_path, name, content), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    # `check` lists its findings on stdout; the others report the first error on stderr.
    shown = result.stdout if action == "check" and name != "latin1.txt" else result.stderr
    assert expected in shown, shown
    assert "rate: 0bps" not in result.stdout


@pytest.mark.parametrize("action", ACTIONS)
def test_a_missing_file_or_a_folder_is_an_input_error(tmp_path, action):
    (tmp_path / "configs").mkdir()
    for path, words in [("none.txt", "`none.txt` does not exist"), ("configs", "is a folder")]:
        result = ios(action, path, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr
        assert words in result.stderr
        assert "Errno" not in result.stderr


def test_a_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.txt"
    with big.open("wb") as file:
        file.truncate(16 * 1024 * 1024 + 1)
    result = ios("check", big.name, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "more than the 16777216 bytes (16 MiB)" in result.stderr


def test_to_yaml_refuses_what_a_run_refuses_and_writes_what_it_accepts(tmp_path):
    refused = ios("to-yaml", write(tmp_path, "zero.txt", ZERO_RATE.encode()), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stdout == ""
    good = ZERO_RATE.replace("shape average 0", "shape average 64000")
    accepted = ios("to-yaml", write(tmp_path, "good.txt", good.encode()), cwd=tmp_path)
    assert accepted.returncode == 0, accepted.stderr
    assert "rate: 64000bps" in accepted.stdout


PORT_WITHOUT_PROTOCOL = """\
name: sip
run: {duration: 1s}
topology:
  nodes: {a: {kind: host}, b: {kind: host}}
  links: [{between: [a, b], rate: 128kbps, l2: hdlc}]
policies:
  llq:
    kind: cbwfq
    classes:
      - {name: sip, match: {dst_port: 5060}, priority: 32kbps}
interfaces:
  a: {b: {output: llq}}
traffic: []
"""


@pytest.mark.parametrize(
    ("interface", "extra", "expected"),
    [
        (
            "a.b",
            [],
            "sip.yaml:10:21: policies.llq.classes[0].match: IOS's access lists take ports only "
            "for TCP and UDP",
        ),
        ("a.c", [], "sip.yaml: interfaces.a.c: no link joins `a` and `c`"),
        ("a", [], "`a` does not name an interface"),
        ("a.b", ["--name", "Bogus0"], "--name: `Bogus0` is not an IOS interface name"),
        ("a.b", ["--set", "topology.links.0.rate=0kbps"], "a link rate must be above zero"),
    ],
)
def test_from_yaml_refuses_at_the_scenarios_place(tmp_path, interface, extra, expected):
    scenario = write(tmp_path, "sip.yaml", PORT_WITHOUT_PROTOCOL.encode())
    result = ios("from-yaml", scenario, "--interface", interface, *extra, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert expected in result.stderr, result.stderr


def test_from_yaml_refuses_a_missing_scenario_file(tmp_path):
    result = ios("from-yaml", "none.yaml", "--interface", "a.b", cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "none.yaml: no such file" in result.stderr
