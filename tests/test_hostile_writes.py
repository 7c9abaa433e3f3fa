"""Every write under hostile conditions: links planted in a folder qoslab writes, files of
its names that it did not write, two writers at once, folders without room, runs killed
while they write. Nothing may be written or deleted outside the folder named, nothing that
qoslab did not write may be replaced, and a folder that cannot take the results is refused
before the runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

import qoslab
from conftest import qoslab_command
from qoslab.cli import main
from qoslab.output import STAGING_PREFIX, OutputError, check_folder

SWEEP = ["--vary", "interfaces.r1.r2.output=fifo,pq", "--set", "run.duration=1s", "--quiet"]
"""A small sweep of the voice-versus-flood example: two points of one short run."""


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (not following links) with its bytes."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            files[str(path.relative_to(folder))] = path.read_bytes()
    return files


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder outside the one qoslab is told to write, holding a user's CSV files."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "budget.csv").write_text("year,amount\n2026,1\n")
    (folder / "flows.csv").write_text("mine\n")
    return folder


@pytest.mark.parametrize("entry", ["summary", "runs", ".lock"])
def test_a_link_in_a_sweep_folder_stops_the_sweep_before_any_run(
    entry, voice_vs_flood, tmp_path, elsewhere, capsys
):
    out = tmp_path / "sweep"
    assert main(["sweep", str(voice_vs_flood), "-o", str(out), *SWEEP]) == 0
    before = _snapshot(elsewhere)
    target = elsewhere if entry != ".lock" else elsewhere / "budget.csv"
    link = out / entry
    if link.is_dir():
        for path in sorted(link.iterdir()):
            path.unlink()
        link.rmdir()
    else:
        link.unlink()
    link.symlink_to(target)
    status = main(["sweep", str(voice_vs_flood), "-o", str(out), "--resume", *SWEEP])
    assert status == 2
    err = capsys.readouterr().err
    assert f"{link}" in err
    assert "Traceback" not in err
    assert _snapshot(elsewhere) == before
    assert link.is_symlink()


def test_reproduce_runs_folder_with_a_link_is_refused(tmp_path, elsewhere, capsys):
    runs = tmp_path / "runs"
    command = ["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "--runs", str(runs)]
    command += ["-o", str(tmp_path / "docs")]
    assert main(command) == 0
    summary = runs / "congestion-mgmt-lab" / "schemes" / "summary"
    for path in summary.iterdir():
        path.unlink()
    summary.rmdir()
    summary.symlink_to(elsewhere)
    before = _snapshot(elsewhere)
    capsys.readouterr()
    assert main(command) == 2
    assert f"{summary}: is a symbolic link" in capsys.readouterr().err
    assert _snapshot(elsewhere) == before


def test_a_summary_table_qoslab_did_not_write_is_kept(voice_vs_flood, tmp_path):
    out = tmp_path / "sweep"
    qoslab.sweep(
        voice_vs_flood,
        vary={"interfaces.r1.r2.output": ["fifo"]},
        out=out,
        set={"run.duration": "1s"},
        progress=False,
    )
    (out / "summary" / "notes.csv").write_text("mine\n")
    (out / "summary" / "series.csv").write_text("a table of mine named like one of qoslab's\n")
    qoslab.sweep(
        voice_vs_flood,
        vary={"interfaces.r1.r2.output": ["pq"]},
        out=out,
        resume=True,
        set={"run.duration": "1s"},
        progress=False,
    )
    assert (out / "summary" / "notes.csv").read_text() == "mine\n"
    assert (out / "summary" / "series.csv").read_text().startswith("a table of mine")


def test_reproduce_never_replaces_a_readme_it_did_not_write(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# My project\n")
    status = main(["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "-o", str(tmp_path)])
    assert status == 0
    assert readme.read_text() == "# My project\n"
    assert (tmp_path / "congestion-mgmt-lab.md").is_file()
    capsys.readouterr()
    # With --all the index is asked for: the folder is refused before any run.
    status = main(["reproduce", "--all", "--quick", "--quiet", "-o", str(tmp_path)])
    assert status == 2
    assert f"{readme}: is a file qoslab did not write" in capsys.readouterr().err
    assert readme.read_text() == "# My project\n"


def test_a_page_of_a_study_edited_by_hand_is_not_replaced(tmp_path, capsys):
    assert (
        main(["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "-o", str(tmp_path)]) == 0
    )
    page = tmp_path / "congestion-mgmt-lab.md"
    page.write_text(page.read_text() + "\nMy own notes.\n")
    edited = page.read_text()
    status = main(["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "-o", str(tmp_path)])
    assert status == 2
    assert "changed since" in capsys.readouterr().err
    assert page.read_text() == edited


def test_a_capture_never_writes_through_a_link(voice_vs_flood, tmp_path, elsewhere, capsys):
    capture = tmp_path / "capture"
    capture.mkdir()
    (capture / "r1-to-r2.pcap").symlink_to(elsewhere / "budget.csv")
    before = _snapshot(elsewhere)
    args = ["run", str(voice_vs_flood), "--set", "run.duration=1s", "-o", str(tmp_path / "out")]
    assert main([*args, "--pcap", str(capture)]) == 2
    assert "r1-to-r2.pcap" in capsys.readouterr().err
    assert _snapshot(elsewhere) == before
    assert not (tmp_path / "out").exists(), "refused before the run"


def test_two_captures_into_one_folder_never_mix(voice_vs_flood, tmp_path):
    capture = tmp_path / "capture"
    solo = {}
    for seed in (1, 2):
        qoslab.run(
            voice_vs_flood,
            seed=seed,
            pcap=tmp_path / f"solo{seed}",
            set={"run.duration": "3s", "run.phase": "random"},
        )
        solo[seed] = _snapshot(tmp_path / f"solo{seed}")
    assert solo[1] != solo[2]
    command = qoslab_command(
        "run", voice_vs_flood, "--set", "run.duration=3s", "--set", "run.phase=random"
    )
    for _ in range(3):
        processes = [
            subprocess.Popen(
                [
                    *command,
                    "--seed",
                    str(seed),
                    "-o",
                    str(tmp_path / f"out{seed}"),
                    "--pcap",
                    str(capture),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for seed in (1, 2)
        ]
        for process in processes:
            assert process.wait() == 0, process.stderr.read().decode()
            process.stderr.close()
        from qoslab.output.ledger import NAME as LEDGER

        found = _snapshot(capture)
        found.pop(LEDGER)
        assert found in ({k: v for k, v in solo[s].items() if k != LEDGER} for s in (1, 2))


def test_a_capture_is_bounded_in_bytes_with_a_note(voice_vs_flood, tmp_path):
    results = qoslab.run(
        voice_vs_flood,
        pcap=tmp_path / "capture",
        set={"run.duration": "10s", "measure": '{pcap: {points: ["r1->r2"], max_bytes: 20000B}}'},
    )
    size = (tmp_path / "capture" / "r1-to-r2.pcap").stat().st_size
    assert size <= 20_000
    assert size > 20_000 - (16 + 128)
    assert any(
        note.startswith("the packet capture of r1->r2 stopped at") for note in results.run["notes"]
    )


def free_blocks(monkeypatch, count: int) -> None:
    """Make every file system look as if it had ``count`` blocks free."""
    real = os.fstatvfs

    class Full:
        def __init__(self, facts):
            self.f_frsize = facts.f_frsize
            self.f_bavail = count

    monkeypatch.setattr(os, "fstatvfs", lambda fd: Full(real(fd)))


def test_a_capture_larger_than_the_disk_can_hold_is_refused_before_the_run(
    voice_vs_flood, tmp_path, monkeypatch, capsys
):
    free_blocks(monkeypatch, 1)
    monkeypatch.setattr(
        qoslab._core.Simulation, "advance", lambda *a, **k: pytest.fail("the run started")
    )
    status = main(
        [
            "run",
            str(voice_vs_flood),
            "-o",
            str(tmp_path / "out"),
            "--pcap",
            str(tmp_path / "capture"),
        ]
    )
    assert status == 2
    err = capsys.readouterr().err
    assert "MiB free" in err
    assert STAGING_PREFIX not in err


def test_a_full_or_unwritable_output_folder_is_refused_before_the_run(
    voice_vs_flood, tmp_path, monkeypatch, capsys
):
    free_blocks(monkeypatch, 0)
    monkeypatch.setattr(qoslab, "run", lambda *a, **k: pytest.fail("the run started"))
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(voice_vs_flood)]) == 2
    err = capsys.readouterr().err
    assert f"error: {Path('results')}: 0 MiB free" in err
    assert STAGING_PREFIX not in err


def test_an_unwritable_folder_is_named_as_given(tmp_path, monkeypatch):
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):
        if str(path).startswith(STAGING_PREFIX):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(OutputError, match=r"^.*/out: cannot be written: permission denied"):
        check_folder(tmp_path / "out" / "run", ["results.json"])


def test_advise_checks_its_folder_before_the_runs(tmp_path, capsys, monkeypatch):
    from qoslab.advise import evaluate

    monkeypatch.setattr(evaluate.Evaluator, "_run", lambda *a, **k: pytest.fail("a run"))
    folder = tmp_path / "advice"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    scenario = Path(__file__).parent / "advise" / "calls-and-data.yaml"
    assert main(["advise", str(scenario), "--reps", "2", "-o", str(folder)]) == 2
    assert "notes.txt" in capsys.readouterr().err


def test_a_duplicate_grid_value_is_refused_before_any_run(voice_vs_flood, tmp_path, capsys):
    out = tmp_path / "sweep"
    args = ["sweep", str(voice_vs_flood), "--vary", "interfaces.r1.r2.output=fifo,fifo"]
    assert main([*args, "-o", str(out), "--quiet"]) == 2
    assert "the value 'fifo' is given twice" in capsys.readouterr().err
    assert not out.exists()


class TracedRun:
    """``qoslab run --trace`` of a 600 s scenario as a process, with a temporary folder of
    its own (``TMPDIR``), started and waited on until its trace is being written."""

    def __init__(self, make_scenario, tmp_path: Path) -> None:
        self.temporary = tmp_path / "tmp"
        self.temporary.mkdir()
        self.scenario = make_scenario()
        self.scenario["run"]["duration"] = "600s"
        self.path = tmp_path / "long.yaml"
        self.path.write_text(yaml.safe_dump(self.scenario))
        self.env = {**os.environ, "TMPDIR": str(self.temporary)}
        self.out = tmp_path / "out"
        self.command = qoslab_command("run", self.path, "--trace", "-o", self.out)
        self.process = subprocess.Popen(
            self.command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self.writing():
            time.sleep(0.01)

    def writing(self) -> bool:
        """Whether the trace file is in a staging folder of the temporary folder. (Any entry
        would not do: ``tempfile.gettempdir`` first proves the folder writable with a file of
        its own, which a kill at that moment leaves behind, Python's and not qoslab's.)"""
        return any(self.temporary.glob(".qoslab-partial-*/trace.parquet"))

    def left(self) -> list[Path]:
        """What is in its temporary folder."""
        return list(self.temporary.iterdir())


def test_a_killed_traced_run_leaves_nothing_in_the_temporary_folder(make_scenario, tmp_path):
    traced = TracedRun(make_scenario, tmp_path)
    traced.process.kill()
    traced.process.wait()
    traced.process.stderr.close()
    assert traced.writing(), "the trace was being written"
    traced.scenario["run"]["duration"] = "1s"
    traced.path.write_text(yaml.safe_dump(traced.scenario))
    subprocess.run(traced.command, env=traced.env, check=True, capture_output=True)
    assert traced.left() == []


def test_sigterm_stops_a_run_as_ctrl_c_does_and_removes_what_it_was_writing(
    make_scenario, tmp_path
):
    traced = TracedRun(make_scenario, tmp_path)
    traced.process.send_signal(signal.SIGTERM)
    assert traced.process.wait(timeout=60) == 130
    assert traced.process.stderr.read().decode() == "interrupted\n"
    traced.process.stderr.close()
    assert traced.left() == []
    assert not traced.out.exists()


def test_a_folder_written_again_keeps_a_ledger_of_its_files_not_a_history(tmp_path):
    from qoslab.output import Folder
    from qoslab.output.ledger import NAME as LEDGER

    for round_ in range(3):
        with Folder.open(tmp_path / "docs") as folder, folder.folder("figures") as figures:
            folder.write("page.md", f"round {round_}\n".encode())
            figures.write("a.svg", b"<svg/>")
    lines = (tmp_path / "docs" / LEDGER).read_text().splitlines()
    assert sorted(json.loads(line)["name"] for line in lines) == ["figures/a.svg", "page.md"]
    with Folder.open(tmp_path / "docs") as folder:
        assert folder.owns("page.md")
        (tmp_path / "docs" / "page.md").write_text("edited by hand\n")
        assert not folder.owns("page.md")
