"""Reading back under hostile conditions — tampered result folders and stores, scheduler
files that are not, workers of another version or gone — and what reaches a page or a plot:
only what the run used, shown literally. Every problem is one documented error naming the
file, exit status 2, never a traceback."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from markupsafe import escape

import qoslab
from conftest import qoslab_command, words
from qoslab import report
from qoslab.cli import main

HERE = Path(__file__).parent


def read_error() -> type[Exception]:
    """The one error every reader raises (imported when a test needs it)."""
    from qoslab.readback import ReadError

    return ReadError


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    """A run's results folder with a per-packet trace."""
    folder = tmp_path_factory.mktemp("run") / "out"
    scenario = HERE.parent / "examples" / "voice-vs-flood.yaml"
    results = qoslab.run(scenario, set={"run.duration": "1s"}, trace=True)
    results.write(folder)
    return folder


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sweep") / "out"
    scenario = HERE.parent / "examples" / "voice-vs-flood.yaml"
    qoslab.sweep(
        scenario,
        vary={"interfaces.r1.r2.output": ["fifo", "pq"]},
        set={"run.duration": "1s"},
        out=folder,
        progress=False,
    )
    return folder


def test_a_report_shows_no_file_a_node_names_but_the_run_did_not_read(voice_vs_flood, tmp_path):
    scenario = yaml.safe_load(voice_vs_flood.read_text())
    secret = tmp_path / "secret.txt"
    secret.write_text("the password is swordfish\n")
    scenario["topology"]["nodes"]["r1"] = {"kind": "router", "ios": str(secret)}
    scenario["run"]["duration"] = "1s"
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(scenario))
    assert main(["run", str(path), "--report", "-o", str(tmp_path / "out")]) == 0
    assert "swordfish" not in (tmp_path / "out" / "report.html").read_text()


def test_a_sweep_report_shows_no_file_its_manifest_names(sweep_folder, tmp_path):
    copy = tmp_path / "sweep"
    shutil.copytree(sweep_folder, copy)
    secret = tmp_path / "secret.yaml"
    secret.write_text("name: the password is swordfish\n")
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["scenario"] = str(secret)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert main(["report", str(copy), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "swordfish" not in page
    assert "name: voice-vs-flood" in page  # the scenario the runs read


def test_names_with_dollars_are_shown_literally(voice_vs_flood, tmp_path):
    scenario = yaml.safe_load(voice_vs_flood.read_text())
    scenario["name"] = "cost $5 or $6"
    scenario["traffic"][0]["name"] = "rtp_$A_$B"
    scenario["run"]["duration"] = "2s"
    path = tmp_path / "dollars.yaml"
    path.write_text(yaml.safe_dump(scenario))
    out = tmp_path / "out"
    assert main(["run", str(path), "--report", "-o", str(out)]) == 0
    assert main(["plot", str(out), "delay_cdf", "-o", str(tmp_path / "d.png")]) == 0
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    figure = qoslab.plot.delay_cdf(qoslab.load(out))
    texts = [text.get_text() for text in figure.findobj(qoslab.plot.style.Text)]
    assert r"rtp_\$A_\$B" in texts  # escaped once: matplotlib shows rtp_$A_$B


def test_an_unlimited_queue_under_an_address_space_limit_stops_cleanly(voice_vs_flood, tmp_path):
    limit_bytes = 1_500_000_000

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    command = qoslab_command("run", voice_vs_flood, "-o", tmp_path / "out")
    command += ["--set", "policies.fifo.limit=4294967295", "--set", "run.duration=3000s"]
    command += ["--set", "traffic.1.pattern.rate=100Mbps"]
    done = subprocess.run(command, preexec_fn=limit, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert "packets in flight would need more than the memory allowed" in done.stderr
    assert "memory allocation" not in done.stderr


def test_a_corrupted_run_file_on_resume_names_the_file_and_the_way_forward(
    voice_vs_flood, tmp_path, capsys
):
    out = tmp_path / "sweep"
    args = ["sweep", str(voice_vs_flood), "-o", str(out), "--quiet", "--set", "run.duration=1s"]
    args += ["--vary", "interfaces.r1.r2.output=fifo,pq"]
    assert main(args) == 0
    damaged = sorted((out / "runs").glob("*.arrow"))[0]
    damaged.write_bytes(damaged.read_bytes()[:300])
    assert main([*args, "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"{damaged}: is not a run file" in err
    assert "move it away and resume again" in err
    damaged.rename(tmp_path / "aside.arrow")
    assert main([*args, "--resume"]) == 0
    assert damaged.is_file()


def test_a_run_file_of_an_older_store_is_run_again(voice_vs_flood, tmp_path):
    out = tmp_path / "sweep"
    options = {"vary": {"interfaces.r1.r2.output": ["fifo"]}, "set": {"run.duration": "1s"}}
    qoslab.sweep(voice_vs_flood, out=out, progress=False, **options)
    (out / ".qoslab-written").unlink()  # as a store written before ledgers were kept
    damaged = next((out / "runs").glob("*.arrow"))
    damaged.write_bytes(b"{")
    sweep = qoslab.sweep(voice_vs_flood, out=out, resume=True, progress=False, **options)
    assert list(sweep.index["status"]) == ["done"]
    assert sweep.results({"interfaces.r1.r2.output": "fifo"}).run["scenario"] == "voice-vs-flood"


def test_a_sweep_of_the_earlier_layout_is_refused_and_resumed_into_this_one(
    voice_vs_flood, tmp_path
):
    """A folder written when each run was a results document (manifest format 1): reading
    it says how to bring it to this layout, and resuming does the runs again, removing the
    documents they replace."""
    out = tmp_path / "sweep"
    options = {"vary": {"interfaces.r1.r2.output": ["fifo"]}, "set": {"run.duration": "1s"}}
    qoslab.sweep(voice_vs_flood, out=out, progress=False, **options)
    stored = next((out / "runs").glob("*.arrow"))
    fifo = {"interfaces.r1.r2.output": "fifo"}
    document = qoslab.load(out).results(fifo).to_json()
    stored.unlink()
    (out / "runs" / stored.name.replace(".arrow", ".json")).write_text(document)
    (out / ".qoslab-written").unlink()  # the document is not one this test's sweep wrote
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, "format": 1}))
    with pytest.raises(read_error(), match=r"layout 1, which this qoslab \(layout 2\) does not"):
        qoslab.load(out)
    qoslab.sweep(voice_vs_flood, out=out, resume=True, progress=False, **options)
    assert sorted(path.name for path in (out / "runs").iterdir()) == [stored.name]
    assert json.loads(qoslab.load(out).results(fifo).to_json()) == json.loads(document)


def _tamper(folder: Path, name: str, content: bytes | None) -> None:
    path = folder / name
    if content is None:
        path.unlink()
    else:
        path.write_bytes(content)


def _results_json(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text())


def _edited(folder: Path, change) -> bytes:
    document = _results_json(folder)
    change(document)
    return json.dumps(document).encode()


TAMPERED_RUNS = {
    "truncated": lambda f: _tamper(f, "results.json", (f / "results.json").read_bytes()[:1000]),
    "not UTF-8": lambda f: _tamper(f, "results.json", b'{"run": "\xff"}'),
    "empty": lambda f: _tamper(f, "results.json", b""),
    "a list": lambda f: _tamper(f, "results.json", b"[]"),
    "nested deep": lambda f: _tamper(f, "results.json", b"[" * 100_000),
    "no flows": lambda f: _tamper(f, "results.json", _edited(f, lambda d: d.pop("flows"))),
    "flows a dict": lambda f: _tamper(f, "results.json", _edited(f, lambda d: d.update(flows={}))),
    "a row lacks a column": lambda f: _tamper(
        f, "results.json", _edited(f, lambda d: d["flows"][0].pop("loss_pct"))
    ),
    "a number as text": lambda f: _tamper(
        f, "results.json", _edited(f, lambda d: d["flows"][0].update(loss_pct="12"))
    ),
    "a name as a number": lambda f: _tamper(
        f, "results.json", _edited(f, lambda d: d["flows"][0].update(flow=7))
    ),
    "run not a record": lambda f: _tamper(
        f, "results.json", _edited(f, lambda d: d.update(run=[]))
    ),
    "inputs not texts": lambda f: _tamper(
        f, "results.json", _edited(f, lambda d: d.update(inputs=[{"kind": 1}]))
    ),
    "results.json a link": lambda f: (
        (f / "results.json").unlink(),
        (f / "results.json").symlink_to("/etc/hostname"),
    ),
    "results.json a folder": lambda f: (
        (f / "results.json").unlink(),
        (f / "results.json").mkdir(),
    ),
    "trace a link": lambda f: (
        (f / "trace.parquet").unlink(),
        (f / "trace.parquet").symlink_to("/etc/hostname"),
    ),
}


@pytest.mark.parametrize("tamper", TAMPERED_RUNS, ids=list(TAMPERED_RUNS))
def test_a_tampered_run_folder_is_one_error_naming_the_file(tamper, run_folder, tmp_path, capsys):
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    TAMPERED_RUNS[tamper](folder)
    with pytest.raises(read_error()) as raised:
        qoslab.load(folder)
    assert str(raised.value).startswith(str(folder))
    for command in (
        ["plot", str(folder), "delay_cdf", "-o", str(tmp_path / "p.svg")],
        ["report", str(folder), "-o", str(tmp_path / "r.html")],
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {folder}"), err
        assert "Traceback" not in err
        assert len(err.splitlines()) == 1


def test_a_damaged_trace_is_a_read_error(run_folder, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    (folder / "trace.parquet").write_bytes(b"PAR1 not a parquet file")
    with pytest.raises(read_error(), match=r"trace\.parquet: is not a readable trace"):
        qoslab.load(folder).trace()


TAMPERED_SWEEPS = {
    "manifest not JSON": lambda f: _tamper(f, "manifest.json", b"{"),
    "manifest a list": lambda f: _tamper(f, "manifest.json", b"[]"),
    "manifest without runs": lambda f: _tamper(
        f,
        "manifest.json",
        json.dumps({"plan": {"vary": [], "variants": [None], "replications": 1}}).encode(),
    ),
    "a run's key not hex": lambda f: _tamper(
        f,
        "manifest.json",
        json.dumps(
            json.loads((f / "manifest.json").read_text())
            | {
                "runs": [
                    {"key": "../../etc/passwd", "variant": None, "settings": [], "replication": 0}
                ]
            }
        ).encode(),
    ),
    # Found by the readers' fuzz target: `Sweep.results` read the missing key.
    "a run without its variant": lambda f: _tamper(
        f,
        "manifest.json",
        (f / "manifest.json").read_bytes().replace(b'"variant":', b'"wariant":', 1),
    ),
    # Found by the readers' fuzz target: a run's setting outside the plan's values made the
    # index's value NaN, and `Sweep.results` found no run for it.
    "a run's setting the plan does not have": lambda f: _tamper(
        f,
        "manifest.json",
        json.dumps(
            _with_first_setting(json.loads((f / "manifest.json").read_text()), "ifof")
        ).encode(),
    ),
    # Found by the readers' fuzz target: a run numbered beyond the plan's replications was
    # in the index, and `Sweep.results` of its replication in the plan found no run.
    "a run's replication the plan does not have": lambda f: _tamper(
        f,
        "manifest.json",
        (f / "manifest.json").read_bytes().replace(b'"replication": 0', b'"replication": 1', 1),
    ),
    "manifest without the scenario's name": lambda f: _tamper(
        f,
        "manifest.json",
        (f / "manifest.json").read_bytes().replace(b'"scenario_name":', b'"scenario_nam":', 1),
    ),
    "a run file truncated": lambda f: _tamper(
        f, f"runs/{_first_run(f)}", (f / "runs" / _first_run(f)).read_bytes()[:500]
    ),
    "a run file a link": lambda f: _link_first_run(f),
    "runs a link": lambda f: (shutil.rmtree(f / "runs"), (f / "runs").symlink_to("/etc")),
}


def _with_first_setting(manifest: dict, value: str) -> dict:
    """``manifest`` with its first run's first setting set to ``value``."""
    manifest["runs"][0]["settings"][0][1] = value
    return manifest


def _read_every_run(folder: Path) -> None:
    """Load the sweep and summarize it, which reads every run."""
    qoslab.load(folder).summary.flows  # noqa: B018 - the reading is the point


def _link_first_run(folder: Path) -> None:
    path = folder / "runs" / _first_run(folder)
    path.unlink()
    path.symlink_to("/etc/hostname")


def _first_run(folder: Path) -> str:
    return sorted(path.name for path in (folder / "runs").glob("*.arrow"))[0]


@pytest.mark.parametrize("tamper", TAMPERED_SWEEPS, ids=list(TAMPERED_SWEEPS))
def test_a_tampered_sweep_is_one_error_naming_the_file(tamper, sweep_folder, tmp_path, capsys):
    folder = tmp_path / "sweep"
    shutil.copytree(sweep_folder, folder)
    TAMPERED_SWEEPS[tamper](folder)
    with pytest.raises(read_error()):
        _read_every_run(folder)
    for command in (
        ["plot", str(folder), "bars", "--metric", "loss_pct", "-o", str(tmp_path / "p.svg")],
        ["report", str(folder), "-o", str(tmp_path / "r.html")],
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {folder}"), err
        assert "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "is not valid JSON"),
        (b"{}", "is not a scheduler file: it holds no scheduler address"),
        (b"[1, 2]", "is not a scheduler file: it holds no scheduler address"),
        (
            b'{"address": "file:///etc/passwd"}',
            "is not a scheduler file: it holds no scheduler address",
        ),
    ],
)
def test_a_scheduler_file_that_is_not_one_is_refused(
    content, message, voice_vs_flood, tmp_path, capsys
):
    pytest.importorskip("distributed", reason="needs distributed (qoslab[dask])")
    file = tmp_path / "scheduler.json"
    file.write_bytes(content)
    command = ["sweep", str(voice_vs_flood), "--executor", "dask", "--scheduler", str(file)]
    assert main([*command, "--quiet", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"error: {file}: {message}" in err
    assert "Traceback" not in err


def test_a_tls_or_unknown_scheduler_address_is_refused(voice_vs_flood, tmp_path, capsys):
    pytest.importorskip("distributed", reason="needs distributed (qoslab[dask])")
    for address, message in (
        ("tls://127.0.0.1:9", "TLS expects"),
        ("udp://127.0.0.1:9", "neither an address"),
    ):
        command = ["sweep", str(voice_vs_flood), "--executor", "dask", "--scheduler", address]
        assert main([*command, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert message in err, err
        assert "Traceback" not in err


@pytest.fixture
def cluster():
    distributed = pytest.importorskip("distributed", reason="needs distributed (qoslab[dask])")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        yield local, client


def _tasks(voice_vs_flood: Path, tmp_path: Path) -> list:
    from qoslab.experiment.engine import _tasks as make_tasks
    from qoslab.experiment.plan import make_plan

    text = voice_vs_flood.read_text()
    plan = make_plan(text, str(voice_vs_flood), vary={"interfaces.r1.r2.output": ["fifo", "pq"]})
    tasks, _ = make_tasks(
        plan, text, str(voice_vs_flood), str(voice_vs_flood), [("run.duration", "1s")], None, None
    )
    return tasks


def _pretend_version() -> None:
    import qoslab.experiment.cluster

    qoslab.experiment.cluster.__version__ = "0.0.0-other"


def test_a_worker_of_another_version_that_joins_later_is_refused(cluster, voice_vs_flood, tmp_path):
    from qoslab.experiment.cluster import DaskExecutor, ExecutorError

    local, client = cluster
    executor = DaskExecutor(client)  # checks the one worker there is
    first = set(client.nthreads())
    local.scale(2)
    client.wait_for_workers(2, timeout=60)
    late = (set(client.nthreads()) - first).pop()
    client.run(_pretend_version, workers=[late])
    client.retire_workers(list(first))
    with pytest.raises(ExecutorError, match=rf"worker {late} has qoslab 0\.0\.0-other"):
        list(executor.run(_tasks(voice_vs_flood, tmp_path)))


def test_a_cluster_left_without_workers_stops_the_sweep(
    cluster, voice_vs_flood, tmp_path, monkeypatch
):
    from qoslab.experiment import cluster as module

    local, client = cluster
    monkeypatch.setattr(module, "NO_WORKER_S", 2.0)
    executor = module.DaskExecutor(client)
    client.retire_workers(list(client.nthreads()))
    local.scale(0)
    started = time.monotonic()
    with pytest.raises(module.ExecutorError, match="no worker for 2 s with 2 runs left"):
        list(executor.run(_tasks(voice_vs_flood, tmp_path)))
    assert time.monotonic() - started < 30


def test_the_experiments_page_states_the_wait_for_workers():
    from qoslab.experiment.cluster import NO_WORKER_S

    page = words(HERE.parent / "docs" / "experiments.md")
    assert (
        f"left with no worker while runs remain stops the sweep after {NO_WORKER_S:.0f} s" in page
    )


def test_advise_names_the_option_ios_refuses_before_any_run(tmp_path, capsys, monkeypatch):
    from qoslab.advise import evaluate

    monkeypatch.setattr(evaluate.Evaluator, "_run", lambda *a, **k: pytest.fail("a run"))
    scenario = HERE / "advise" / "calls-and-data.yaml"
    cases = [
        (["--ios-name", "Serial0/0/0;shutdown"], "--ios-name Serial0/0/0;shutdown:"),
        (["--ios-name", "Bogus0"], "--ios-name Bogus0:"),
        (["--links", "20Gbps"], "--links 20000Mbps:"),
    ]
    for options, start in cases:
        command = ["advise", str(scenario), "--reps", "2", "-o", str(tmp_path / "a"), *options]
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {start}"), err
        assert "--set" not in err


def test_advise_makes_ios_names_of_any_application_name(tmp_path):
    text = (HERE / "advise" / "calls-and-data.yaml").read_text().replace("data", "web video")
    scenario = tmp_path / "web.yaml"
    scenario.write_text(text)
    from qoslab.advise import Executor, advise, parse_speeds

    advice = advise(scenario, speeds=parse_speeds("192kbps"), reps=2, executor=Executor(jobs=2))
    assert advice.recommended is not None
    assert "class-map match-all web-video\n match ip dscp af21" in advice.config
    assert advice.identical


def test_a_quick_reproduction_exits_0_when_everything_works(tmp_path, capsys):
    status = main(["reproduce", "lmr-voip-thesis", "--quick", "--quiet", "-o", str(tmp_path)])
    assert status == 0
    err = capsys.readouterr().err
    assert "not reproduced by these quick runs; run without --quick to judge them" in err
    assert "error" not in err


def test_the_report_of_a_run_is_made_of_its_record_alone(voice_vs_flood, tmp_path):
    results = qoslab.run(voice_vs_flood, set={"run.duration": "1s"})
    os.chdir(tmp_path)  # nothing relative is read from anywhere
    assert str(escape(voice_vs_flood.read_text())) in report.render(results)
