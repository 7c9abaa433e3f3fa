"""Hostile input through every sub-command: refused with a clear message and the documented
exit status, never a traceback; user text printed with its control characters escaped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

import qoslab
from qoslab._core import MAX_SCENARIO_BYTES
from qoslab.cli import main
from qoslab.cli.text import visible

HOSTILE_NAMES = {
    "markup link": "[link=http://x]voice",
    "markup colour": "[red on white]red",
    "markup bold": "[bold]loud",
}
"""Names that rich would act on if printed as they are (the scenario accepts them)."""

CONTROL_NAMES = {
    "osc 8 link": "\x1b]8;;http://evil\x07flood\x1b]8;;\x07",
    "colour": "\x1b[31mred",
}
"""Names that a terminal would act on: the scenario refuses them."""

RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\x7f")


@pytest.fixture
def scenario_file(tmp_path, make_scenario):
    """Write a scenario dict as YAML and return its path."""

    def write(scenario: dict[str, object], name: str = "s.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(scenario, allow_unicode=True), encoding="utf-8")
        return path

    return write


# Input files


def test_a_device_is_refused_without_reading_it(capsys):
    assert main(["validate", "/dev/zero"]) == 2
    assert "/dev/zero: is not a regular file" in capsys.readouterr().err


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path, capsys):
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    assert main(["run", str(pipe), "-o", str(tmp_path / "out")]) == 2
    assert f"{pipe}: is not a regular file" in capsys.readouterr().err


def test_a_file_over_the_limit_is_refused_naming_the_file_and_the_limit(tmp_path, capsys):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as file:
        file.truncate(MAX_SCENARIO_BYTES + 1)
    assert main(["validate", str(huge)]) == 2
    assert f"{huge}: larger than 16 MiB" in capsys.readouterr().err


def test_a_file_at_the_limit_is_read(tmp_path, make_scenario):
    text = yaml.safe_dump(make_scenario())
    exact = tmp_path / "exact.yaml"
    exact.write_text(text + "#" * (MAX_SCENARIO_BYTES - len(text) - 1) + "\n")
    assert exact.stat().st_size == MAX_SCENARIO_BYTES
    assert qoslab.validate(exact).flows == 1


def test_non_utf8_names_the_byte_and_line(tmp_path, capsys):
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: ok\nrun: {}\ndescription: caf\xe9\n")
    assert main(["validate", str(latin)]) == 2
    assert "not UTF-8 text (byte 33, line 3)" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "validate", "order-of-failure"])
@pytest.mark.parametrize(
    ("make_input", "fragment"),
    [
        pytest.param(lambda d: d / "missing.yaml", "no such file", id="missing"),
        pytest.param(lambda d: d, "is a directory", id="directory"),
        pytest.param(lambda d: Path("/dev/null"), "is not a regular file", id="device"),
        pytest.param(lambda d: _written(d / "empty.yaml", b""), "empty", id="empty"),
        pytest.param(
            lambda d: _written(d / "binary.yaml", bytes(range(256))), "not UTF-8", id="binary"
        ),
    ],
)
def test_unusable_scenario_files_exit_2_without_a_traceback(
    run_qoslab, command, make_input, fragment, tmp_path
):
    path = make_input(tmp_path)
    extra = ["--vary", "run.duration=1s,2s"] if command == "order-of-failure" else []
    result = run_qoslab(command, path, *extra, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {path}: ")
    assert fragment in result.stderr


def _written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_dict_nested_beyond_any_scenario_is_a_scenario_error():
    deep: list[object] = []
    inner = deep
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]
    with pytest.raises(qoslab.ScenarioError, match="nested too deeply"):
        qoslab.validate({"name": deep})


# Options


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        pytest.param(["bench", "--seconds", "nan"], "--seconds", id="bench nan seconds"),
        pytest.param(["bench", "--seconds", "-1"], "--seconds", id="bench negative seconds"),
        pytest.param(["bench", "--seconds", "1e-12"], "--seconds", id="bench tiny seconds"),
        pytest.param(["schema", "extra"], "unrecognized arguments", id="schema extra argument"),
        pytest.param(
            ["order-of-failure", "{scenario}", "--vary", "run.duration"],
            "--vary",
            id="vary without values",
        ),
        pytest.param(
            ["order-of-failure", "{scenario}", "--vary", "run.duration=1s,2s"],
            "measure.budgets",
            id="sweep without budgets",
        ),
        pytest.param(["validate", "{scenario}", "--set", "=1"], "key.path=value", id="set =1"),
        pytest.param(
            ["validate", "{scenario}", "--set", "traffic.99999999999999999999.name=x"],
            "not a list index",
            id="set huge index",
        ),
        pytest.param(["run", "{scenario}", "-o", "{scenario}"], "is a file", id="output a file"),
        pytest.param(
            ["run", "{scenario}", "-o", "{scenario}/results"], "is a file", id="output under a file"
        ),
    ],
)
def test_bad_options_exit_2_without_a_traceback(
    run_qoslab, args, fragment, tmp_path, scenario_file, make_scenario
):
    scenario = scenario_file(make_scenario())
    result = run_qoslab(*(arg.format(scenario=scenario) for arg in args), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert fragment in result.stderr


# Names


def test_a_nul_in_the_scenario_name_is_refused_at_the_name(
    tmp_path, monkeypatch, scenario_file, make_scenario, capsys
):
    scenario = make_scenario()
    scenario["name"] = "a\x00b"
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(scenario_file(scenario))]) == 2
    error = capsys.readouterr().err
    assert ": name: the text holds the control character U+0000" in error
    assert "Traceback" not in error
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("../../escape", "escape"),
        ("..", "scenario"),
        ("C:\\Users\\x", "C-Users-x"),
        (".hidden", "hidden"),
        ("-rf", "rf"),
    ],
)
def test_the_default_folder_stays_under_results(
    name, folder, tmp_path, monkeypatch, scenario_file, make_scenario
):
    scenario = make_scenario()
    scenario["name"] = name
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["run", str(scenario_file(scenario))]) == 0
    assert [path.name for path in work.iterdir()] == ["results"]
    assert [path.name for path in (work / "results").iterdir()] == [folder]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["s.yaml", "work"]


def test_an_absolute_scenario_name_stays_under_results(
    tmp_path, monkeypatch, scenario_file, make_scenario
):
    scenario = make_scenario()
    target = tmp_path / "absolute"
    scenario["name"] = str(target)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["run", str(scenario_file(scenario))]) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["s.yaml", "work"]
    (folder,) = (work / "results").iterdir()
    assert (folder / "results.json").is_file()


# Terminal output


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\x00b\tc\nd\re", "a\\x00b\\x09c\\x0ad\\x0de"),
        ("del\x7f c1\x9b", "del\\x7f c1\\x9b"),
        ("\u202eevil\u2066", "\\u202eevil\\u2066"),
        ("Sprachqualität → ok [bold]", "Sprachqualität → ok [bold]"),
    ],
)
def test_visible_escapes_control_characters_only(text, shown):
    assert visible(text) == shown


@pytest.mark.parametrize(
    "command",
    ["run", "validate", "schema", "bench", "order-of-failure", "ios", "ios check", "ios to-yaml"],
)
def test_every_command_documents_its_exit_statuses(command, capsys):
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 done; 1 the run failed" in help_text
    assert "2 bad input" in help_text
    assert "130 interrupted" in help_text


@pytest.fixture
def hostile_scenario(make_scenario):
    """The small scenario with hostile scenario, flow and node names."""
    scenario = make_scenario()
    scenario["name"] = HOSTILE_NAMES["markup link"] + HOSTILE_NAMES["markup bold"]
    flow = scenario["traffic"][0]
    scenario["traffic"] = [
        {**flow, "name": name, "dst_port": 9000 + index}
        for index, name in enumerate(HOSTILE_NAMES.values())
    ]
    return scenario


def test_run_prints_hostile_names_escaped_and_without_markup(
    hostile_scenario, scenario_file, tmp_path, capsys
):
    path = scenario_file(hostile_scenario)
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    for control in RAW_CONTROLS:
        assert control not in out
    assert "[link=http://x]voice" in out
    assert "[red on white]red" in out
    assert "[bold]loud" in out
    assert out.startswith("[link=http://x]voice[bold]loud  seed 1")


@pytest.mark.parametrize("name", CONTROL_NAMES.values(), ids=CONTROL_NAMES)
def test_names_with_control_characters_are_refused_unprinted(
    name, make_scenario, scenario_file, capsys
):
    scenario = make_scenario()
    scenario["traffic"][0]["name"] = name
    assert main(["run", str(scenario_file(scenario))]) == 2
    err = capsys.readouterr().err
    assert ": traffic[0].name: the text holds the control character U+001B" in err
    for control in RAW_CONTROLS:
        assert control not in err


def test_a_terminal_gets_no_hyperlink_or_colour_from_names(
    hostile_scenario, scenario_file, tmp_path, monkeypatch, capsys
):
    """On a terminal rich emits styles; a name must still not become a link or markup."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    path = scenario_file(hostile_scenario)
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "\x1b]8;" not in out
    assert "http://x" in out
    assert "[link=http://x]voice" in out


def test_error_messages_escape_the_user_text_they_quote(tmp_path, capsys):
    name = tmp_path / "\x1b[31mred\x07.yaml"
    assert main(["validate", str(name)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "\x07" not in err
    assert "\\x1b[31mred\\x07.yaml: no such file" in err


def test_validate_escapes_the_file_name_it_prints(tmp_path, make_scenario, capsys):
    path = tmp_path / "\x1b]8;;evil\x07s.yaml"
    path.write_text(yaml.safe_dump(make_scenario()))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\\x1b]8;;evil\\x07s.yaml: valid" in out


def test_order_of_failure_escapes_application_names(tmp_path, make_scenario, capsys):
    hostile = "[bold][red]data"
    scenario = make_scenario()
    scenario["traffic"][0]["name"] = hostile
    scenario["measure"] = {
        "budgets": [{"app": hostile, "end_to_end": {"delay": "50ms", "loss": "1%"}}],
        "order_of_failure": [hostile],
    }
    path = tmp_path / "budget.yaml"
    path.write_text(json.dumps(scenario))
    args = ["order-of-failure", str(path), "--vary", "topology.links.1.rate=1Mbps,100kbps"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "[bold][red]data" in out
