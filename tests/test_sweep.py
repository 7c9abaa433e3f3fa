"""Sweeps: the grid, the store, resuming after a kill, Dask, variants, replications."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import qoslab
import qoslab.experiment.sweep as sweep_module
from conftest import default_sigint, ended_pid, qoslab_command
from qoslab.analysis.labels import short_headings
from qoslab.cli import main
from qoslab.experiment.plan import make_plan, parse_vary
from qoslab.experiment.store import Store
from qoslab.output import OutputError
from qoslab.output.ledger import NAME as LEDGER
from qoslab.readback import ReadError
from qoslab.results import TABLES

SWEEP_YAML = """\
name: swept
run: {duration: 2s, warmup: 200ms, seed: 3, phase: random}
topology:
  nodes: {a: {kind: host}, r: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r], rate: 10Mbps, l2: ethernet}
    - {between: [r, b], rate: 256kbps, l2: hdlc}
policies:
  short: {kind: fifo, limit: 10}
  fair: {kind: wfq}
interfaces: {r: {b: {output: short}}}
traffic:
  - {name: voice, from: a, to: b, protocol: udp, dst_port: 5004, dscp: EF,
     pattern: {kind: cbr, rate_pps: 50, size: 200B}}
  - {name: data, from: a, to: b, protocol: udp, dst_port: 9000,
     pattern: {kind: cbr, rate_pps: 30, size: 1000B}}
variants:
  quiet: {remove: [traffic.data]}
  twice:
    add:
      traffic:
        - {name: data2, from: a, to: b, protocol: udp, dst_port: 9001,
           pattern: {kind: cbr, rate_pps: 10, size: 1000B}}
  fair: {replace: {interfaces.r.b.output: fair}}
sweep:
  vary:
    topology.links.1.rate: [256kbps, 512kbps]
  replications: 3
"""


@pytest.fixture
def swept(tmp_path: Path) -> Path:
    path = tmp_path / "swept.yaml"
    path.write_text(SWEEP_YAML, encoding="utf-8")
    return path


def test_the_grid_is_the_product_of_the_lists_or_zipped(swept):
    text = swept.read_text()
    plan = make_plan(text, str(swept), vary={"interfaces.r.b.output": ["short", "fair"]})
    points = [dict(point.assignments) for point in plan.points()]
    assert points == [
        {"topology.links.1.rate": rate, "interfaces.r.b.output": policy}
        for rate in ("256kbps", "512kbps")
        for policy in ("short", "fair")
    ]
    assert plan.replications == 3
    zipped = make_plan(
        text,
        str(swept),
        vary={
            "interfaces.r.b.output": ["short", "fair"],
            "topology.links.1.rate": ["1Mbps", "2Mbps"],
        },
        zip_keys=True,
    )
    assert [dict(p.assignments) for p in zipped.points()] == [
        {"interfaces.r.b.output": "short", "topology.links.1.rate": "1Mbps"},
        {"interfaces.r.b.output": "fair", "topology.links.1.rate": "2Mbps"},
    ]
    with pytest.raises(ValueError, match="equal length"):
        make_plan(text, str(swept), vary={"interfaces.r.b.output": ["short"]}, zip_keys=True)
    with pytest.raises(ValueError, match="no variant named 'nope'"):
        make_plan(text, str(swept), variants=["nope"])
    assert parse_vary("policies.x={kind: fifo, limit: 5},{kind: wfq}") == (
        "policies.x",
        ["{kind: fifo, limit: 5}", "{kind: wfq}"],
    )


def test_a_zipped_key_may_repeat_a_value_and_a_view_shows_some_runs(swept):
    # Two points share the rate and differ in the policy: the rate's column has each value
    # once among its categories, and every run keeps its own row.
    sweep = qoslab.sweep(
        swept,
        vary={
            "topology.links.1.rate": ["256kbps", "512kbps", "512kbps"],
            "interfaces.r.b.output": ["short", "short", "fair"],
        },
        zip=True,
        reps=1,
        progress=False,
    )
    rates = sweep.index["topology.links.1.rate"]
    assert list(rates.cat.categories) == ["256kbps", "512kbps"]
    assert list(rates) == ["256kbps", "512kbps", "512kbps"]
    assert len(sweep.runs["flows"]) == 3 * 2
    manifest = sweep.manifest
    fair = [
        run for run in manifest["runs"] if dict(run["settings"])["interfaces.r.b.output"] == "fair"
    ]
    view = sweep.view({**manifest, "runs": fair})
    assert len(view.index) == 1
    assert view.results(dict(fair[0]["settings"])).to_json() == (
        sweep.results(dict(fair[0]["settings"])).to_json()
    )


def test_a_table_is_read_alone_and_only_when_asked_for(swept):
    sweep = qoslab.sweep(swept, reps=1, progress=False)
    runs = sweep.runs
    assert "flows" in runs
    assert "voice" not in runs
    assert "nothing" not in runs
    assert set(runs._frames) == {"flows", "voice"}  # the others are not built
    assert runs.names == [name for name in TABLES if not runs[name].empty]


def test_a_sweep_without_a_folder_keeps_its_runs_on_disk_until_it_goes(
    swept, tmp_path, monkeypatch
):
    import gc
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sweep = qoslab.sweep(swept, reps=2, progress=False)
    spill = sweep._read_result.args[0]
    folder = spill.folder
    assert folder.parent == tmp_path
    # Private to this user, one file per finished run, read back on demand.
    assert folder.stat().st_mode & 0o777 == 0o700
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"{run['key']}.arrow" for run in sweep.manifest["runs"]
    )
    assert len(sweep.runs["flows"]) == 2 * 2 * 2
    # A file someone else left there is not ours to remove; ours go with the sweep.
    (folder / "theirs.txt").write_text("kept", encoding="utf-8")
    del sweep, spill
    gc.collect()
    assert [p.name for p in folder.iterdir()] == ["theirs.txt"]


def test_run_files_left_by_a_killed_sweep_are_removed_by_the_next(swept, tmp_path, monkeypatch):
    import tempfile

    from qoslab.output.staging import PREFIX

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = ended_pid()
    run_file = f"{'0' * 64}.arrow"
    left = tmp_path / f"{PREFIX}{ended}-0a1b2c3d"  # only run files: it goes
    left.mkdir()
    (left / run_file).write_bytes(b"run")
    shared = tmp_path / f"{PREFIX}{ended}-ffffffff"  # and something else: that stays
    shared.mkdir()
    (shared / run_file).write_bytes(b"run")
    (shared / "theirs.arrow").write_bytes(b"not a run file's name")
    alive = tmp_path / f"{PREFIX}{os.getpid()}-01234567"  # a live process's: untouched
    alive.mkdir()
    (alive / run_file).write_bytes(b"run")
    sweep = qoslab.sweep(swept, reps=1, progress=False)
    assert not left.exists()
    assert [p.name for p in shared.iterdir()] == ["theirs.arrow"]
    assert [p.name for p in alive.iterdir()] == [run_file]
    assert sweep._read_result.args[0].folder.name.startswith(f"{PREFIX}{os.getpid()}-")


def test_a_sweep_that_cannot_keep_its_runs_says_where_and_what_to_do(swept, tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    with pytest.raises(OutputError, match=r"gone.*set TMPDIR to another folder"):
        qoslab.sweep(swept, reps=1, progress=False)


def test_a_bad_value_is_refused_before_any_run_at_its_place(swept, tmp_path):
    bad = swept.read_text().replace("[256kbps, 512kbps]", "[256kbps, fast]")
    swept.write_text(bad)
    with pytest.raises(qoslab.ScenarioError) as caught:
        qoslab.sweep(swept, out=tmp_path / "out")
    line = next(i for i, text in enumerate(bad.splitlines(), 1) if "fast" in text)
    assert f"{swept}:{line}:" in str(caught.value)
    assert not (tmp_path / "out").exists()
    with pytest.raises(qoslab.ScenarioError, match=r"--vary topology.links.1.rate=slow"):
        qoslab.sweep(swept, vary={"topology.links.1.rate": ["slow"]})


def test_a_run_of_a_sweep_equals_the_same_run_alone(swept):
    sweep = qoslab.sweep(swept, reps=2, progress=False)
    alone = qoslab.run(swept, set={"topology.links.1.rate": "512kbps"}, replication=1)
    stored = sweep.results({"topology.links.1.rate": "512kbps"}, replication=1)
    assert json.loads(stored.to_json()) == json.loads(alone.to_json())
    run = alone.run
    assert run["replication"] == 1
    assert run["overrides"] == ["topology.links.1.rate=512kbps"]
    assert run["variant"] is None
    assert len(run["scenario_sha256"]) == 64


def test_a_varied_replication_is_the_run_of_that_replication(voice_vs_flood):
    """`run.replication` varied (as the advisor runs candidates, replication by replication)
    makes each run that replication: the same run as alone, not replication 0 again."""
    fixed = {"run.phase": "random", "run.duration": "5s"}
    varied = qoslab.sweep(
        voice_vs_flood,
        vary={"run.replication": ["0", "2"]},
        set=fixed,
        progress=False,
        use_section=False,
    )
    flows = varied.runs.flows
    delays = {}
    for replication in (0, 2):
        alone = qoslab.run(voice_vs_flood, replication=replication, set=fixed)
        mine = flows[flows["run.replication"] == str(replication)]
        assert list(mine["replication"].unique()) == [replication]
        delays[replication] = mine["delay_mean_ms"].tolist()
        assert delays[replication] == alone.flows["delay_mean_ms"].tolist()
    assert delays[0] != delays[2]
    with pytest.raises(ValueError, match=r"run\.replication is set to 1 and 2 replications"):
        qoslab.sweep(voice_vs_flood, set={"run.replication": "1"}, reps=2, progress=False)


def test_the_summary_has_t_intervals_per_point_and_row(swept):
    sweep = qoslab.sweep(swept, reps=3, progress=False)
    runs = sweep.runs.flows
    assert len(runs) == 2 * 3 * 2  # points x replications x flows
    summary = sweep.summary.flows
    row = summary[
        (summary["topology.links.1.rate"] == "256kbps")
        & (summary["flow"] == "voice")
        & (summary["metric"] == "delay_mean_ms")
    ].iloc[0]
    values = runs[(runs["topology.links.1.rate"] == "256kbps") & (runs["flow"] == "voice")][
        "delay_mean_ms"
    ]
    assert row["n"] == 3
    assert row["mean"] == pytest.approx(values.mean())
    # Student t with 2 degrees of freedom: t(0.975, 2) = 4.303 (any t table).
    assert row["ci_half_width"] == pytest.approx(4.303 * values.std() / 3**0.5, rel=1e-3)
    assert row["sd"] > 0, "random phases make the replications differ"
    thesis = sweep.thesis(
        "flows", ["delay_mean_ms"], {"topology.links.1.rate": "256kbps", "flow": "voice"}
    )
    assert list(thesis.index) == ["T1", "T2", "T3", "M", "SD", "M-X", "M+X", "Max"]


def test_identical_replications_are_warned_of_and_random_phases_end_them(swept):
    constant = swept.read_text().replace(", phase: random", "")
    swept.write_text(constant)
    said: list[str] = []
    sweep = qoslab.sweep(swept, reps=3, progress=False, warn=said.append)
    assert len(said) == 1
    assert re.match(r"topology\.links\.1\.rate=(256|512)kbps: the run drew no random", said[0])
    assert "phase: random" in said[0]
    assert (sweep.summary.flows["sd"].dropna() == 0).all()
    said.clear()
    qoslab.sweep(swept, reps=3, set=["run.phase=random"], progress=False, warn=said.append)
    assert said == []
    said.clear()
    qoslab.sweep(swept, reps=1, progress=False, warn=said.append)
    assert said == [], "one replication is not a waste"


def test_variants_add_remove_and_replace(swept):
    sweep = qoslab.sweep(swept, variants=["base", "quiet", "twice", "fair"], reps=1, progress=False)
    flows = sweep.runs.flows
    by_variant = {
        variant: sorted(flows[flows["variant"] == variant]["flow"].unique())
        for variant in sweep.variants
    }
    assert by_variant["base"] == ["data", "voice"]
    assert by_variant["quiet"] == ["voice"]
    assert by_variant["twice"] == ["data", "data2", "voice"]
    egress = sweep.runs.ports[sweep.runs.ports["port"] == "r->b"]
    qdiscs = dict(zip(egress["variant"], egress["qdisc"], strict=True))
    assert qdiscs["fair"] == "wfq"
    assert qdiscs["base"] == "fifo"


def test_a_bad_overlay_is_an_error_in_the_overlay(swept):
    bad = swept.read_text().replace("rate_pps: 10, size: 1000B", "rate_pps: 10, size: huge")
    swept.write_text(bad)
    line = next(i for i, text in enumerate(bad.splitlines(), 1) if "size: huge" in text)
    with pytest.raises(qoslab.ScenarioError) as caught:
        qoslab.validate(swept)
    message = str(caught.value)
    assert f"{swept}:{line}:" in message
    assert "variants.twice.add.traffic[0]" in message


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(voice_vs_flood, tmp_path, capsys):
    out = tmp_path / "out"
    args = [
        "sweep",
        str(voice_vs_flood),
        "--set=policies.fifo.limit=unlimited",
        "--vary=traffic.1.pattern.rate=50%,5000%",
        "--max-memory=4MB",
        "--quiet",
        "-o",
        str(out),
    ]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "failed: traffic.1.pattern.rate=5000% replication 0: run stopped at" in captured.out
    sweep = qoslab.load(out)
    assert list(sweep.index["status"]) == ["done", "run_error"]
    assert "port r1->r2 holds" in sweep.failures["error"].iloc[0]
    # A resumed sweep keeps the verdict rather than running it again.
    before = {path.name: path.stat().st_mtime_ns for path in (out / "runs").iterdir()}
    assert main([*args, "--resume"]) == 1
    after = {path.name: path.stat().st_mtime_ns for path in (out / "runs").iterdir()}
    assert before == after


def test_the_folder_of_a_sweep_is_not_taken_lightly(swept, tmp_path):
    out = tmp_path / "out"
    qoslab.sweep(swept, reps=1, out=out, progress=False)
    with pytest.raises(OutputError, match="--resume"):
        qoslab.sweep(swept, reps=1, out=out, progress=False)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"notes\.txt.*not part of a sweep"):
        qoslab.sweep(swept, reps=1, out=foreign, progress=False)
    assert isinstance(qoslab.load(out), qoslab.Sweep)
    with pytest.raises(ReadError, match="neither"):
        qoslab.load(foreign)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name not in ("manifest.json", ".lock", LEDGER)
    }


def test_a_killed_sweep_resumes_to_the_same_summary(swept, tmp_path):
    whole = tmp_path / "whole"
    cut = tmp_path / "cut"
    # 2 rates times 25 replications: runs of a few milliseconds each, so many that the kill,
    # sent once 3 are stored, lands well before the last (with 12 runs, a busy machine's
    # delay in seeing the third sometimes let the sweep end first).
    reps = 25
    runs = 2 * reps
    command = [
        sys.executable,
        "-m",
        "qoslab",
        "sweep",
        str(swept),
        "--reps",
        str(reps),
        "--jobs",
        "2",
    ]
    subprocess.run([*command, "-o", str(whole), "--quiet"], check=True, capture_output=True)

    process = subprocess.Popen(
        [*command, "-o", str(cut), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        finished = list((cut / "runs").glob("*.arrow")) if (cut / "runs").is_dir() else []
        if len(finished) >= 3:
            break
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    kept = len(list((cut / "runs").glob("*.arrow")))
    assert 3 <= kept < runs, f"the kill came at {kept} of {runs} runs"
    assert not (cut / "summary").exists() or not list((cut / "summary").iterdir())

    subprocess.run([*command, "-o", str(cut), "--quiet", "--resume"], check=True)
    assert _files(cut) == _files(whole)
    assert not [path for path in cut.rglob("*") if path.name.startswith(".qoslab-partial")]


def test_a_dask_cluster_gives_the_local_result(swept, tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs distributed (qoslab[dask])")
    local = tmp_path / "local"
    qoslab.sweep(swept, reps=2, out=local, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        remote = tmp_path / "remote"
        sweep = qoslab.sweep(
            swept,
            reps=2,
            executor="dask",
            scheduler=cluster.scheduler_address,
            out=remote,
            progress=False,
        )
    assert list(sweep.index["status"]) == ["done"] * 4
    assert _files(remote) == _files(local)


def test_an_unreachable_scheduler_is_bad_input(swept, capsys):
    pytest.importorskip("distributed", reason="needs distributed (qoslab[dask])")
    code = main(
        ["sweep", str(swept), "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--quiet"]
    )
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_the_cli_prints_intervals_and_writes_the_folder(swept, tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(["sweep", str(swept), "--vary", "interfaces.r.b.output=short,fair", "-o", str(out)])
        == 0
    )
    captured = capsys.readouterr()
    assert "±" in captured.out
    assert "\x1b" not in captured.err, "no progress bar when stderr is not a terminal"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["plan"]["vary"][1] == {
        "key": "interfaces.r.b.output",
        "values": ["short", "fair"],
    }
    assert len(manifest["runs"]) == 2 * 2 * 3
    assert (out / "summary" / "flows.csv").is_file()
    assert (out / "runs.csv").read_text().count("\n") == 13


def test_ctrl_c_keeps_the_finished_runs_and_says_how_to_go_on(swept, tmp_path):
    out = tmp_path / "out"
    process = subprocess.Popen(
        qoslab_command("sweep", swept, "--reps", "3000", "-o", out),
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(out.glob("runs/*.arrow"))) < 5:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "--resume" in stderr
    assert "Traceback" not in stderr
    kept = len(list(out.glob("runs/*.arrow")))
    assert 5 <= kept < 6000


def test_one_sweep_at_a_time_writes_a_folder(tmp_path):
    first = Store.create(tmp_path / "out", resume=False)
    try:
        with pytest.raises(OutputError, match="another sweep is writing"):
            Store.create(tmp_path / "out", resume=True)
    finally:
        first.close()
    Store.create(tmp_path / "out", resume=True).close()


def test_run_takes_a_variant_and_a_replication(swept, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", str(swept), "--variant", "quiet", "--replication", "2", "-o", str(out)])
    assert code == 0
    results = qoslab.load(out)
    assert list(results.flows["flow"]) == ["voice"]
    assert (results.run["variant"], results.run["replication"]) == ("quiet", 2)
    assert main(["validate", str(swept), "--variant", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_order_of_failure_reads_a_one_key_sweep(examples_dir):
    scenario = examples_dir / "adhoc-annex-mix.yaml"
    sweep = qoslab.sweep(
        scenario,
        vary={"topology.links.1.rate": ["2Mbps", "256kbps"]},
        reps=1,
        use_section=False,
        progress=False,
    )
    table = qoslab.order_of_failure(sweep)
    pairs = [
        (value, sweep.results({"topology.links.1.rate": value})) for value in ("2Mbps", "256kbps")
    ]
    assert table.equals(qoslab.order_of_failure(pairs))
    assert set(table["app"]) <= set(pairs[0][1].contracts["app"])


@pytest.mark.parametrize("rows_per_batch", [1, 10**9], ids=["a batch a point", "one batch"])
def test_the_folder_summary_is_made_point_by_point_and_equals_the_whole(
    swept, tmp_path, monkeypatch, rows_per_batch
):
    """The summary files are made a few points at a time (here one point, or all at once),
    variants and two varied keys included, and each equals the summary of the whole table
    that a freshly loaded sweep computes, byte for byte as CSV."""
    monkeypatch.setattr(sweep_module, "ROWS_PER_BATCH", rows_per_batch)
    out = tmp_path / "out"
    qoslab.sweep(
        swept,
        vary={"topology.links.1.rate": ["512kbps", "256kbps"], "run.duration": ["1s", "2s"]},
        variants=["base", "quiet"],
        reps=2,
        set={"measure.series": "500ms"},
        out=out,
        progress=False,
        series_summary="csv",
    )
    files = sorted((out / "summary").iterdir())
    assert {path.stem for path in files} >= {"flows", "classes", "ports", "series", "class_series"}
    whole = qoslab.load(out)
    for path in files:
        assert path.read_bytes() == whole.summary[path.stem].to_csv(index=False).encode(), path


def test_the_per_interval_summaries_are_written_only_when_asked(swept, tmp_path):
    options = {"reps": 2, "set": {"measure.series": "500ms"}, "progress": False}
    qoslab.sweep(swept, out=tmp_path / "plain", **options)
    assert not list((tmp_path / "plain" / "summary").glob("*series*"))
    qoslab.sweep(swept, out=tmp_path / "parquet", series_summary="parquet", **options)
    stored = pd.read_parquet(tmp_path / "parquet" / "summary" / "class_series.parquet")
    computed = qoslab.load(tmp_path / "parquet").summary["class_series"]
    assert stored.to_csv(index=False) == computed.to_csv(index=False)
    with pytest.raises(ValueError, match="series_summary 'xml': use one of parquet, csv"):
        qoslab.sweep(swept, series_summary="xml", **options)


def test_show_prints_any_tables_measured_columns_and_refuses_others_before_running(
    examples_dir, tmp_path, capsys
):
    lab = str(examples_dir / "congestion-lab.yaml")
    out = tmp_path / "lab"
    grid = ["--vary", "interfaces.r1.r2.output=fifo,llq", "--set", "run.duration=20s"]
    show = ["--show", "loss_pct,contracts.in_contract_pct"]
    assert main(["sweep", lab, *grid, "--reps", "2", *show, "-o", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "flows: mean ± half-width" in printed
    assert "contracts: mean ± half-width" in printed
    # The varied keys head their columns by the tails that tell them apart, spelled out below.
    assert "output = interfaces.r1.r2.output; rate = topology.links.1.rate" in printed
    # Voice is the application with a budget; the rows without one are left out.
    rows = [line.split() for line in printed.splitlines() if "end_to_end" in line]
    assert {row[3] for row in rows} == {"voice"}
    llq = [row for row in rows if row[0] == "llq" and row[1] == "256kbps"]
    assert llq[0][-3:] == ["100.000", "±", "0.000"]
    for shown, message in (
        ("contracts.in_contrct_pct", "did you mean in_contract_pct"),
        ("contract.x", "there is no results table `contract`"),
        ("flows.flow", "`flow` is not a measured column of flows"),
    ):
        assert main(["sweep", lab, "--show", shown, "-o", str(tmp_path / "no")]) == 2
        assert message in capsys.readouterr().err
        assert not (tmp_path / "no").exists()


def test_a_varied_keys_heading_is_the_shortest_tail_that_tells_it_apart():
    keys = ["interfaces.r1.r2.output", "interfaces.r1.r3.output", "topology.links.1.rate", "flow"]
    assert short_headings(keys) == ["r2.output", "r3.output", "rate", "flow"]
    assert short_headings(["a.rate", "rate"]) == ["a.rate", "rate"]
