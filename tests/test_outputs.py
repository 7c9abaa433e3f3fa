"""Result folders: the safe default name, replacement of a whole folder in one step, what is
refused, and the exit statuses of a failed or interrupted write."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

import qoslab
from conftest import ended_pid
from qoslab.cli import main
from qoslab.output import STAGING_PREFIX, OutputError, folder_name, replace
from qoslab.output.folder import Folder
from qoslab.output.ledger import NAME as LEDGER
from qoslab.results import RESULT_FILES

FOLDER = sorted([*RESULT_FILES, LEDGER])
"""What a results folder holds: the result files and the ledger of what was written."""

KILLS = 24
"""Runs killed with SIGKILL in the kill test: a third at any moment of the process, a third
once a given number of files is written, a third at any moment of the writing."""

KILL_SEED = 20261125


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("voice-vs-flood", "voice-vs-flood"),
        ("voice vs flood", "voice-vs-flood"),
        ("../../x", "x"),
        ("..", "scenario"),
        (".", "scenario"),
        ("", "scenario"),
        ("/etc/passwd", "etc-passwd"),
        ("a\\b", "a-b"),
        (".hidden", "hidden"),
        ("--force", "force"),
        ("a\x00b\x1b[31mc\n", "a-b-31mc"),
        ("v1.2_final", "v1.2_final"),
        ("Sprachqualität", "Sprachqualität"),
        ("a" * 200, "a" * 60),
        ("a" * 59 + ".b", "a" * 59),
        ("[link=http://x]", "link-http-x"),
    ],
)
def test_folder_name(name, folder):
    assert folder_name(name) == folder


def test_folder_name_is_one_bounded_safe_component():
    for name in ("\u202e/..\\\x7f\x9b" * 30, "名" * 100, "\U00020000" * 100):
        safe = folder_name(name)
        assert safe
        assert len(safe.encode()) <= 255
        assert "/" not in safe
        assert "\\" not in safe
        assert not safe.startswith((".", "-"))
        assert all(char.isalnum() or char in "-_." for char in safe)


@pytest.fixture(scope="module")
def results(voice_vs_flood) -> qoslab.Results:
    return qoslab.run(voice_vs_flood, run__duration="1s")


def test_write_gives_exactly_the_result_files_and_no_staging_folder(results, tmp_path):
    written = results.write(tmp_path / "out")
    assert [path.name for path in written] == list(RESULT_FILES)
    assert written[-1].name == "results.json"
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == FOLDER
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_write_replaces_earlier_results_as_a_whole(results, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("{}")
    (out / "flows.parquet").write_bytes(b"from an earlier run")
    results.write(out)
    assert (out / "results.json").read_text() == results.to_json()
    assert (out / "flows.parquet").read_bytes() != b"from an earlier run"
    assert sorted(path.name for path in out.iterdir()) == FOLDER
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_write_creates_missing_parents_and_refuses_a_symlinked_folder(results, tmp_path):
    real = tmp_path / "real"
    results.write(real)
    before = _snapshot(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(OutputError, match=r"link: is a symbolic link \(to .*real\)"):
        results.write(link)
    assert link.is_symlink()
    assert _snapshot(real) == before
    results.write(tmp_path / "a" / "b" / "c")
    assert (tmp_path / "a" / "b" / "c" / "results.json").is_file()


@pytest.mark.parametrize(
    "fill",
    [
        pytest.param(lambda d: (d / "notes.txt").write_text("mine"), id="foreign file"),
        pytest.param(lambda d: (d / "flows.csv").mkdir(), id="folder named like a table"),
        pytest.param(lambda d: (d / "sub").mkdir(), id="sub-folder"),
        pytest.param(lambda d: (d / "flows.csv").symlink_to(d / ".."), id="symlink"),
    ],
)
def test_write_refuses_a_folder_holding_anything_else(fill, results, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("{}")
    fill(out)
    before = sorted(path.name for path in out.iterdir())
    with pytest.raises(OutputError, match="not a result file"):
        results.write(out)
    assert sorted(path.name for path in out.iterdir()) == before
    assert (out / "results.json").read_text() == "{}"
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_a_file_added_to_the_destination_during_the_write_is_kept(results, tmp_path, monkeypatch):
    out = tmp_path / "out"
    results.write(out)
    earlier = _snapshot(out)

    def add_a_file_then_write(table, path, **options):
        (out / "notes.txt").write_text("mine")
        return write_table(table, path, **options)

    write_table = pq.write_table
    monkeypatch.setattr(pq, "write_table", add_a_file_then_write)
    with pytest.raises(OutputError, match=r"notes\.txt"):
        results.write(out)
    assert _snapshot(out) == {**earlier, "notes.txt": b"mine"}
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_a_file_removed_while_the_destination_is_checked_is_no_obstacle(
    results, tmp_path, monkeypatch
):
    """Another writer replacing the folder at the same moment removes the old folder's files
    after this writer listed them: a file gone is not a foreign file."""
    out = tmp_path / "out"
    results.write(out)
    owns = Folder.owns

    def removed_by_another_writer(folder, name):
        if folder.path == out and name != LEDGER:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=folder.fd)
        return owns(folder, name)

    monkeypatch.setattr(Folder, "owns", removed_by_another_writer)
    results.write(out)
    monkeypatch.undo()
    assert sorted(path.name for path in out.iterdir()) == FOLDER


def test_write_refuses_the_current_folder_and_its_parents(results, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for directory in (".", "..", work, "/"):
        with pytest.raises(OutputError, match="current folder"):
            results.write(directory)
    assert list(work.iterdir()) == []


def test_write_refuses_a_file_and_a_path_through_a_file(results, tmp_path):
    file = tmp_path / "file"
    file.write_text("mine")
    with pytest.raises(OutputError, match="is a file"):
        results.write(file)
    with pytest.raises(OutputError, match="is a file"):
        results.write(file / "out")
    assert file.read_text() == "mine"


def test_the_fallback_without_an_exchange_also_replaces_the_folder(results, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("{}")
    monkeypatch.setattr(replace, "_exchange", lambda parent, first, second: False)
    results.write(out)
    assert (out / "results.json").read_text() == results.to_json()
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_staging_folders_of_ended_processes_are_removed(results, tmp_path):
    ended = ended_pid()
    stale = tmp_path / f"{STAGING_PREFIX}{ended}-0a1b2c3d"
    stale.mkdir()
    (stale / "flows.csv").write_text("partial")
    live = tmp_path / f"{STAGING_PREFIX}{os.getpid()}-0a1b2c3d"
    live.mkdir()
    foreign = tmp_path / f"{STAGING_PREFIX}{ended}-ffffffff"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("not a result file")
    results.write(tmp_path / "out")
    assert not stale.exists()
    assert live.is_dir()
    assert (foreign / "mine.txt").is_file()


@pytest.mark.parametrize(
    ("failure", "status"),
    [
        pytest.param(KeyboardInterrupt(), 130, id="interrupted"),
        pytest.param(OSError(28, "No space left on device"), 1, id="disk full"),
        pytest.param(PermissionError(13, "Permission denied"), 1, id="no permission"),
    ],
)
def test_a_write_that_stops_midway_keeps_the_earlier_results(
    failure, status, voice_vs_flood, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "out"
    args = ["run", str(voice_vs_flood), "-o", str(out), "--set"]
    assert main([*args, "run.duration=2s"]) == 0
    earlier = _snapshot(out)

    def fail_on_ports(table, path, **options):
        if Path(path).name == "ports.parquet":
            raise failure
        return write_table(table, path, **options)

    write_table = pq.write_table
    monkeypatch.setattr(pq, "write_table", fail_on_ports)
    assert main([*args, "run.duration=1s"]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert _snapshot(out) == earlier
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_a_refused_output_folder_stops_the_run_before_it_starts(
    voice_vs_flood, tmp_path, monkeypatch, capsys
):
    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.setattr(qoslab, "run", lambda *args, **kwargs: pytest.fail("the run started"))
    assert main(["run", str(voice_vs_flood), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path}: holds 'notes.txt', which is not a result file" in err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_default_folder_holding_other_files_is_refused_after_the_run(
    voice_vs_flood, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "results" / "voice-vs-flood"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    assert main(["run", str(voice_vs_flood)]) == 2
    assert "not a result file" in capsys.readouterr().err
    assert [path.name for path in folder.iterdir()] == ["notes.txt"]


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of a folder by name, with its bytes."""
    if not folder.exists():
        return {}
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def _is_complete_run(folder: Path, seed: int, scratch: Path) -> bool:
    """Whether ``folder`` holds exactly the result files of one run with ``seed``, each
    identical to what that run's ``results.json`` gives."""
    files = _snapshot(folder)
    if sorted(files) != FOLDER:
        return False
    text = files["results.json"].decode()
    if json.loads(text)["run"]["seed"] != seed:
        return False
    qoslab.Results(text).write(scratch)
    return files == _snapshot(scratch)


def _qoslab_run(scenario: Path, out: Path, seed: int) -> tuple[subprocess.Popen[bytes], int]:
    """``qoslab run`` as a process, and the time it was started at, as file times count."""
    command = [sys.executable, "-m", "qoslab", "run", str(scenario), "--seed", str(seed)]
    started_ns = time.time_ns()
    process = subprocess.Popen(
        [*command, "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    return process, started_ns


def _staging_folders(parent: Path) -> list[Path]:
    return [path for path in parent.iterdir() if path.name.startswith(STAGING_PREFIX)]


def _files_written_since(parent: Path, since_ns: int) -> int:
    """How many files under ``parent`` were written at or after ``since_ns``."""
    count = 0
    for folder, _, names in os.walk(parent):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                count += (Path(folder) / name).stat().st_mtime_ns >= since_ns
    return count


def _wait_for_writes(
    process: subprocess.Popen[bytes], parent: Path, since_ns: int, files: int
) -> None:
    """Return once ``process`` has written ``files`` files under ``parent`` since
    ``since_ns``, wherever it writes them, or has ended."""
    while process.poll() is None and _files_written_since(parent, since_ns) < files:
        time.sleep(0.001)


def test_a_run_killed_at_any_moment_leaves_one_complete_run(make_scenario, tmp_path):
    scenario = make_scenario(pattern={"kind": "poisson", "rate_pps": 200, "size": "500B"})
    path = tmp_path / "poisson.yaml"
    path.write_text(yaml.safe_dump(scenario))
    parent = tmp_path / "results"
    parent.mkdir()
    out = parent / "poisson"
    scratch = tmp_path / "scratch"

    first, since_ns = _qoslab_run(path, out, seed=0)
    started_s = time.perf_counter()
    _wait_for_writes(first, parent, since_ns, files=1)
    writing_s = time.perf_counter()
    assert first.wait() == 0, first.stderr.read().decode()
    ended_s = time.perf_counter()
    assert _is_complete_run(out, 0, scratch)

    rng = random.Random(KILL_SEED)
    for attempt in range(1, KILLS + 1):
        earlier = _snapshot(out)
        process, since_ns = _qoslab_run(path, out, seed=attempt)
        if attempt % 3 == 0:
            time.sleep(rng.uniform(0.0, 1.2 * (ended_s - started_s)))
        elif attempt % 3 == 1:
            files = rng.randrange(1, len(RESULT_FILES) + 1)
            _wait_for_writes(process, parent, since_ns, files)
        else:
            _wait_for_writes(process, parent, since_ns, files=1)
            time.sleep(rng.uniform(0.0, 1.2 * (ended_s - writing_s)))
        process.kill()
        process.wait()
        process.stderr.close()
        if _snapshot(out) != earlier:
            assert _is_complete_run(out, attempt, scratch), f"attempt {attempt}"

    last, _ = _qoslab_run(path, out, seed=KILLS + 1)
    assert last.wait() == 0, last.stderr.read().decode()
    assert _is_complete_run(out, KILLS + 1, scratch)
    assert _staging_folders(parent) == []
