"""The command line, in-process through ``qoslab.cli.main`` and as ``python -m qoslab``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import qoslab
from conftest import MISSPELT_KEY, small_scenario
from qoslab.cli import main
from qoslab.cli.run import PRINTED_FLOWS, wall_time
from qoslab.cli.text import counted


@pytest.fixture
def bad_scenario(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text(MISSPELT_KEY)
    return path


def test_run_prints_the_flow_table_and_bottleneck(voice_vs_flood, tmp_path, capsys):
    assert main(["run", str(voice_vs_flood), "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "voice-vs-flood" in out
    table_rows = [line.split() for line in out.splitlines()]
    assert ["voice", "3,000"] in [row[:2] for row in table_rows]
    assert "flood" in [row[0] for row in table_rows if row]
    assert "port r1->r2 (fifo, 128 kbit/s)" in out
    headline = out.splitlines()[0]
    assert re.search(r"4,290 packets in (\d+\.\d ms|\d+\.\d\d s)$", headline), headline


def test_run_with_many_flows_prints_the_first_and_one_line_for_the_others(tmp_path, capsys):
    scenario = small_scenario(pattern={"kind": "cbr", "rate_pps": 2, "size": "100B"})
    scenario["traffic"][0]["copies"] = PRINTED_FLOWS + 15
    path = tmp_path / "many.yaml"
    path.write_text(json.dumps(scenario))
    out_dir = tmp_path / "out"
    assert main(["run", str(path), "-o", str(out_dir)]) == 0
    out = capsys.readouterr().out
    shown = [line.split()[0] for line in out.splitlines() if line.strip().startswith("data.")]
    assert shown == [f"data.{n}" for n in range(1, PRINTED_FLOWS + 1)]
    hidden = qoslab.load(out_dir).rows("flows")[PRINTED_FLOWS:]
    sent = sum(row["sent_packets"] for row in hidden)
    received = sum(row["received_packets"] for row in hidden)
    assert f"and 15 more flows: {sent:,} packets sent, {received:,} received" in out
    assert str(out_dir / "flows.csv") in out
    results_page = Path(__file__).resolve().parent.parent / "docs" / "results.md"
    told = " ".join(results_page.read_text(encoding="utf-8").split())
    assert f"shows a run's first {PRINTED_FLOWS} flows" in told, "docs/results.md"


@pytest.mark.parametrize(
    ("wall_s", "shown"),
    [(0.0042, "4.2 ms"), (0.9994, "999.4 ms"), (0.99996, "1.00 s"), (83.456, "83.46 s")],
)
def test_a_runs_wall_time_is_shown_in_milliseconds_under_a_second(wall_s, shown):
    assert wall_time(wall_s) == shown


@pytest.mark.parametrize(
    ("number", "shown"), [(0, "0 errors"), (1, "1 error"), (2, "2 errors"), (1977, "1,977 errors")]
)
def test_counts_are_singular_only_for_one(number, shown):
    assert counted(number, "error") == shown


def test_run_writes_the_result_files_to_the_output_directory(voice_vs_flood, tmp_path):
    out = tmp_path / "fifo"
    assert main(["run", str(voice_vs_flood), "-o", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == [
        ".qoslab-written",
        "apps.csv",
        "apps.parquet",
        "changes.csv",
        "changes.parquet",
        "class_series.csv",
        "class_series.parquet",
        "classes.csv",
        "classes.parquet",
        "contracts.csv",
        "contracts.parquet",
        "delay_distribution.csv",
        "delay_distribution.parquet",
        "dq_intervals.csv",
        "dq_intervals.parquet",
        "flows.csv",
        "flows.parquet",
        "hops.csv",
        "hops.parquet",
        "ports.csv",
        "ports.parquet",
        "probes.csv",
        "probes.parquet",
        "results.json",
        "series.csv",
        "series.parquet",
        "spurts.csv",
        "spurts.parquet",
        "users.csv",
        "users.parquet",
        "voice.csv",
        "voice.parquet",
        "voice_spurts.csv",
        "voice_spurts.parquet",
    ]
    assert json.loads((out / "results.json").read_text())["run"]["scenario"] == "voice-vs-flood"


def test_run_writes_under_results_by_default(voice_vs_flood, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(voice_vs_flood)]) == 0
    assert (tmp_path / "results" / "voice-vs-flood" / "flows.parquet").is_file()


def test_run_prints_contracts_and_voice_ratings(examples_dir, tmp_path, capsys):
    scenario = examples_dir / "adhoc-annex-mix.yaml"
    args = [
        "run",
        str(scenario),
        "-o",
        str(tmp_path),
        "--set",
        "interfaces.edge.core.output=strict",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "quality budgets at edge->core, 250 ms intervals:" in out
    assert "quality budgets at end_to_end, 250 ms intervals:" in out
    assert "voice voip (8 calls, g729, fixed playout, mean and worst): R " in out
    contracts = json.loads((tmp_path / "results.json").read_text())["contracts"]
    assert {row["app"] for row in contracts} >= {"alarm", "voip", "best-effort", "all", "quality"}


def test_calls_that_played_nothing_are_counted_in_the_voice_line(examples_dir, tmp_path, capsys):
    """Forty G.711 calls through a 400 kbit/s priority policer: most calls lose every packet
    and have no rating; the line says how many, beside the mean and worst of the others."""
    args = ["run", str(examples_dir / "metro-e-small-branch.yaml"), "-o", str(tmp_path)]
    args += ["--variant", "one-level", "--set", "traffic.voice.copies=40"]
    assert main(args) == 0
    out = capsys.readouterr().out
    voice = qoslab.load(tmp_path).voice
    silent = int(voice["mos"].isna().sum())
    assert 0 < silent < 40
    assert (
        f"voice voice (40 calls, {silent} of which played nothing; g711, fixed playout, mean "
        "and worst of the others): R "
    ) in out


def test_run_prints_one_voice_line_per_call(examples_dir, tmp_path, capsys):
    assert main(["run", str(examples_dir / "diffserv-af-cbq.yaml"), "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "voice voip (g711, fixed playout): R " in out
    assert "mouth-to-ear" in out


def test_set_switches_the_bottleneck_to_priority_queuing(voice_vs_flood, tmp_path, capsys):
    args = ["run", str(voice_vs_flood), "-o", str(tmp_path)]
    assert main([*args, "--set", "interfaces.r1.r2.output=pq"]) == 0
    assert "port r1->r2 (prio, 128 kbit/s)" in capsys.readouterr().out
    flows = json.loads((tmp_path / "results.json").read_text())["flows"]
    assert {flow["flow"]: flow["loss_pct"] for flow in flows}["voice"] == 0.0


def test_seed_option_reaches_the_results(voice_vs_flood, tmp_path):
    assert main(["run", str(voice_vs_flood), "--seed", "9", "-o", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "results.json").read_text())["run"]["seed"] == 9


def test_validate_summarises_a_good_scenario(voice_vs_flood, capsys):
    assert main(["validate", str(voice_vs_flood)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{voice_vs_flood}: valid (6 nodes, 5 links, 2 flows")


def test_validate_reports_where_a_bad_scenario_is_wrong(bad_scenario, capsys):
    assert main(["validate", str(bad_scenario)]) == 2
    err = capsys.readouterr().err
    assert f"{bad_scenario}:6:" in err
    assert "topology.links[0].rat" in err
    assert "did you mean `rate`" in err.lower()


def test_schema_is_json_with_properties(capsys):
    assert main(["schema"]) == 0
    assert "traffic" in json.loads(capsys.readouterr().out)["properties"]


def test_bench_runs_every_case(capsys):
    assert main(["bench", "--seconds", "1", "--repeat", "1"]) == 0
    rows = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if "│" in line}
    assert {"fifo", "pq", "wfq", "llq", "wred", "tcp100"} <= set(rows)
    assert {"flows-1", "flows-10", "flows-100", "flows-1000", "flows-10000"} <= set(rows)
    assert "network-200" in rows


def test_bench_runs_the_cases_asked_for(capsys):
    cases = ["--case", "wfq", "--case", "flows-10"]
    assert main(["bench", "--seconds", "1", "--repeat", "1", *cases]) == 0
    rows = [line.split()[1] for line in capsys.readouterr().out.splitlines() if "│" in line]
    assert rows == ["wfq", "flows-10"]


def test_bench_builds_each_size_of_flows(capsys):
    assert main(["bench", "--build", "--repeat", "1"]) == 0
    rows = [line.split("│")[1:-1] for line in capsys.readouterr().out.splitlines() if "│" in line]
    assert [row[0].strip() for row in rows] == ["1,000", "10,000", "100,000"]
    assert all(float(row[1]) > 0 for row in rows)


def test_the_build_bench_scenario_has_the_flows_it_says(tmp_path):
    from qoslab.cli.bench_build import scenario

    path = tmp_path / "flows.yaml"
    path.write_text(scenario(25_000), encoding="utf-8")
    assert qoslab.validate(path).flows == 25_000


def test_grid_without_sweep_is_bad_input(capsys):
    assert main(["bench", "--grid", "examples/congestion-lab.yaml"]) == 2
    assert "--grid measures a sweep: add --sweep" in capsys.readouterr().err


def test_module_entry_point_runs_a_scenario(run_qoslab, voice_vs_flood, tmp_path):
    result = run_qoslab("run", voice_vs_flood, "-o", tmp_path / "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "voice" in result.stdout
    assert (tmp_path / "out" / "results.json").is_file()


def test_version_option(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"qoslab {qoslab.__version__}"


def test_the_version_is_told_without_loading_the_sub_commands():
    """``qoslab --version`` answers before the parser loads every sub-command (and pandas,
    pyarrow and NumPy with them)."""
    probe = (
        "import sys; from qoslab.cli import main; main(['--version']); "
        "print(sorted(m for m in ('pandas', 'pyarrow', 'numpy', 'qoslab.cli.sweep') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.splitlines() == [f"qoslab {qoslab.__version__}", "[]"], done.stdout


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        pytest.param(["run", "missing.yaml"], ["missing.yaml", "no such file"], id="missing file"),
        pytest.param(
            ["validate", "{bad}"],
            ["topology.links[0].rat", "did you mean `rate`"],
            id="unknown key",
        ),
        pytest.param(
            ["run", "{example}", "--set", "topology.links.2.rate=128kbs"],
            ["topology.links[2].rate", "kbs", "kbps"],
            id="bad unit",
        ),
        pytest.param(
            ["run", "{example}", "--set", "interfaces.r1.r2.output"],
            ["--set", "key.path=value"],
            id="set without equals",
        ),
        pytest.param(
            ["run", "{example}", "--seed", "-1"], ["seed -1", "out of range"], id="negative seed"
        ),
    ],
)
def test_bad_input_exits_2_with_the_message_and_no_traceback(
    run_qoslab, args, fragments, voice_vs_flood, bad_scenario, tmp_path
):
    args = [arg.format(example=voice_vs_flood, bad=bad_scenario) for arg in args]
    result = run_qoslab(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    for fragment in fragments:
        assert fragment.lower() in result.stderr.lower()


IOS_DIR = Path(__file__).resolve().parent / "ios"


def test_ios_explain_shows_the_llq_rates_admission_and_the_physical_rate_warning(capsys):
    llq = IOS_DIR / "congestion-lab-llq.txt"
    assert main(["ios", "explain", str(llq), "--rate", "128kbps"]) == 0
    out = capsys.readouterr().out
    assert "class VOICE: priority 384kbps = 384 kbit/s" in out
    assert "class VIDEO: bandwidth 30% = 463.2 kbit/s" in out
    assert "IOS accepts the policy" in out
    assert "exceed the physical rate (128 kbit/s)" in out


def test_ios_check_lists_warnings_and_fails_on_errors(tmp_path, capsys):
    damaged = tmp_path / "router.txt"
    damaged.write_text("hostname R1\npolicy-map P\n class class-default\n  phonty percent 5\n")
    assert main(["ios", "check", str(damaged)]) == 2
    out = capsys.readouterr().out
    assert f"{damaged}:1:1: warning: `hostname R1` is not modelled" in out
    assert f"{damaged}:4:3: error: unknown command `phonty` (did you mean `priority`?)" in out
    assert out.endswith(f"{damaged}: 1 error, 1 line not modelled\n")
    assert main(["ios", "check", str(IOS_DIR / "congestion-lab-cq.txt")]) == 0


def test_ios_to_yaml_writes_an_interface_entry(capsys):
    assert main(["ios", "to-yaml", str(IOS_DIR / "congestion-lab-wfq.txt")]) == 0
    out = capsys.readouterr().out
    assert "bandwidth: 1544kbps" in out
    assert "output: {kind: wfq}" in out


def test_run_notes_the_configuration_lines_it_does_not_model(capsys, tmp_path):
    example = Path(__file__).resolve().parent.parent / "examples" / "lmr-ios.yaml"
    out_dir = tmp_path / "out"
    assert main(["run", str(example), "--set", "run.duration=5s", "-o", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "lmr-router-two.txt: 8 lines not modelled" in out
    assert "qoslab ios check" in out


def test_one_line_not_modelled_is_one_line(capsys, tmp_path):
    (tmp_path / "r1.txt").write_text("hostname R1\ninterface Serial0\n fair-queue\n")
    scenario = tmp_path / "one.yaml"
    scenario.write_text(
        "name: one\nrun: {duration: 1s}\ntopology:\n"
        "  nodes: {a: {kind: host}, r1: {kind: router}, b: {kind: host}}\n"
        "  links:\n"
        "    - {between: [a, r1], rate: 10Mbps}\n"
        "    - {between: [r1, b], rate: 128kbps, l2: hdlc}\n"
        "interfaces: {r1: {b: {ios: {config: r1.txt, interface: Serial0}}}}\n"
        "traffic:\n"
        "  - {name: f, from: a, to: b, pattern: {kind: cbr, rate_pps: 10, size: 100B}}\n"
    )
    assert main(["run", str(scenario), "-o", str(tmp_path / "out")]) == 0
    assert "r1.txt: 1 line not modelled (`qoslab ios check" in capsys.readouterr().out


def test_ios_from_yaml_writes_the_interface_and_it_runs_as_its_yaml(tmp_path, capsys):
    """`qoslab ios from-yaml` on the congestion lab's LLQ policy: access lists, class maps,
    the policy map and the serial interface with the lab's 1544 kbit/s bandwidth; the
    scenario configured from the written file (`interfaces.r1.r2.ios`) gives the same
    results, byte for byte, as the YAML policy."""
    lab = Path(__file__).resolve().parent.parent / "examples" / "congestion-lab.yaml"
    text = lab.read_text().replace("    r2: {output: fifo}", "    r2: {output: llq}")
    scenario = tmp_path / "lab.yaml"
    scenario.write_text(text)
    args = ["ios", "from-yaml", str(scenario), "--interface", "r1.r2"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for line in [
        "access-list 101 permit udp 172.16.10.0 0.0.0.255 172.16.20.0 0.0.0.255 eq 5060",
        "class-map match-all VOICE\n match access-group 101\n",
        "policy-map llq\n class VOICE\n  priority 384\n",
        "interface Serial0/0/0\n encapsulation hdlc\n bandwidth 1544\n",
        " service-policy output llq\n",
    ]:
        assert line in out
    config = tmp_path / "r1.txt"
    assert main([*args, "-o", str(config)]) == 0
    assert config.read_text() == out
    assert f"written to {config}" in capsys.readouterr().out
    configured = text.replace(
        "    r2: {output: llq}", "    r2: {ios: {config: r1.txt, interface: Serial0/0/0}}"
    )
    (tmp_path / "ios.yaml").write_text(configured)
    short = {"run.duration": "20s"}
    yaml_results = json.loads(qoslab.run(scenario, set=short).to_json())
    ios_results = json.loads(qoslab.run(tmp_path / "ios.yaml", set=short).to_json())
    for results in (yaml_results, ios_results):
        del results["run"]["scenario_sha256"]
        del results["inputs"]  # the texts each read: the YAML, or the YAML and the IOS file
    assert ios_results == yaml_results


def test_ios_from_yaml_takes_overrides_a_variant_and_a_name(capsys):
    lab = Path(__file__).resolve().parent.parent / "examples" / "congestion-lab.yaml"
    args = ["ios", "from-yaml", str(lab), "--interface", "r1.r2", "--name", "s0/1/1"]
    assert main([*args, "--set", "interfaces.r1.r2.output=pq"]) == 0
    out = capsys.readouterr().out
    assert "priority-list 1 default low\n" in out
    assert "interface Serial0/1/1\n" in out
    assert "priority-group 1\n" in out


def test_the_command_list_loads_no_command_and_each_command_is_its_module():
    from qoslab.cli import parser
    from qoslab.cli.commands import COMMANDS

    probe = (
        "import sys, contextlib, io\n"
        "from qoslab.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        main(['-h'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(out.getvalue())\n"
        "print(sorted(m for m in sys.modules if m.startswith(('qoslab.cli.', 'pandas', "
        "'matplotlib'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    help_text, loaded = done.stdout.rsplit("\n[", 1)
    assert "[" + loaded.strip() == str(
        ["qoslab.cli.commands", "qoslab.cli.common", "qoslab.cli.text"]
    )
    for command in COMMANDS:
        assert command.name in help_text
        assert " ".join(command.summary.split()[:4]) in " ".join(help_text.split())
        # The command's own parser takes its name, and its module says the same summary.
        chosen = parser(command.name)
        action = chosen._subparsers._group_actions[0]
        assert list(action.choices) == [command.name]
        assert action._choices_actions[0].help == command.summary


HELP_COMMANDS = ["", "run", "sweep", "report", "plot", "reproduce", "advise", "validate"]
HELP_COMMANDS += [
    "schema",
    "bench",
    "ios",
    "ios check",
    "ios explain",
    "ios to-yaml",
    "ios from-yaml",
]
HELP_COMMANDS += ["order-of-failure"]


@pytest.mark.parametrize("command", HELP_COMMANDS)
def test_every_help_is_wrapped_to_the_terminal_and_shows_its_percent_signs_once(
    command, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert not [line for line in lines if "%%" in line]
    assert not [line for line in lines if len(line) > 90]
