"""The shared table of bad scenarios, through the Python API and the CLI.

The same cases (``crates/qoslab-core/tests/config_cases/bad_inputs.yaml``) run in the Rust
tests, so every front door names the same place and suggests the same fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import qoslab
from qoslab.cli import main

CASES_FILE = (
    Path(__file__).resolve().parent.parent
    / "crates"
    / "qoslab-core"
    / "tests"
    / "config_cases"
    / "bad_inputs.yaml"
)
CASES = yaml.safe_load(CASES_FILE.read_text())["cases"]


def expected_prefix(case: dict[str, object], file_name: str) -> str:
    """How the message must start: the file, and the line when the case gives one."""
    line = case.get("line")
    return f"{file_name}:{line}:" if line is not None else file_name


@pytest.fixture(params=CASES, ids=[case["id"] for case in CASES])
def case(request, tmp_path):
    """One case, written to a file named after it."""
    path = tmp_path / f"{request.param['id']}.yaml"
    path.write_text(request.param["scenario"])
    return request.param, path


def test_api_raises_the_intended_error(case):
    spec, path = case
    with pytest.raises(qoslab.ScenarioError) as raised:
        qoslab.run(path)
    message = str(raised.value)
    assert message.startswith(expected_prefix(spec, str(path))), message
    error = raised.value
    assert (error.kind, error.key_path, error.line) == (
        spec["kind"],
        spec["path"],
        spec.get("line"),
    )
    assert error.origin == str(path)
    assert error.message in message
    assert error.hint is None or error.hint[1:] in message
    if spec["path"]:
        assert f": {spec['path']}: " in message, message
    for fragment in spec["contains"]:
        assert fragment in message, message


def test_cli_exits_2_with_the_intended_error(case, capsys):
    spec, path = case
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert expected_prefix(spec, str(path)) in err, err
    for fragment in spec["contains"]:
        assert fragment in " ".join(err.split()), err
