"""A sweep's run file: the run's results as one columnar file, equal to its results document,
read table by table, and refused with its name when it is not one."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pytest

from qoslab import runfile
from qoslab._core import Simulation
from qoslab.readback import ReadError

SHOWN = Path("runs/run.arrow")


def _both(path: Path, overrides: list[tuple[str, str]]) -> tuple[dict, bytes]:
    """The results document of a run of ``path`` and the run file of the same run."""
    text = path.read_text()
    document = json.loads(Simulation(text, str(path), overrides).finish())
    header, tables = Simulation(text, str(path), overrides).finish_columns()
    return document, runfile.encode(header, tables)


@pytest.mark.parametrize(
    ("example", "overrides"),
    [
        ("congestion-lab.yaml", []),  # series and class series
        ("adhoc-annex-mix.yaml", [("measure.interval_table", "true")]),  # apps, ΔQ, voice
        ("adhoc-step-down.yaml", []),  # changes
        ("lmr-push-to-talk.yaml", []),  # talk spurts
    ],
)
def test_a_run_file_holds_the_results_document(examples_dir, example, overrides):
    document, data = _both(examples_dir / example, overrides)
    read = runfile.RunFile(data, SHOWN)
    assert read.document() == document
    assert read.run == document["run"]
    # Any Arrow reader opens it; a table is a list of rows per run.
    table = feather.read_table(pa.BufferReader(data), columns=["flows"])
    assert table.column("flows")[0].as_py() == document["flows"]


def test_a_table_read_alone_is_the_same_and_others_are_not_read(examples_dir):
    document, data = _both(examples_dir / "congestion-lab.yaml", [])
    alone = runfile.RunFile(data, SHOWN, ("class_series",))
    assert alone.table("class_series").to_pylist() == document["class_series"]
    assert alone.rows() == len(document["class_series"])
    with pytest.raises(KeyError, match="'flows' was not read"):
        alone.table("flows")
    assert runfile.RunFile(data, SHOWN, ()).rows() == 0
    with pytest.raises(KeyError, match="no table 'floes'"):
        runfile.RunFile(data, SHOWN, ("floes",))


def test_a_run_file_is_under_a_tenth_of_its_document(examples_dir):
    path = examples_dir / "congestion-lab.yaml"
    text = path.read_text()
    size_json = len(Simulation(text, str(path), []).finish())
    _, data = _both(path, [])
    assert len(data) * 10 < size_json, (len(data), size_json)


def _other_schema_file() -> bytes:
    """An Arrow IPC file whose schema is not a run file's, with a run file's metadata."""
    schema = pa.schema([pa.field("flows", pa.int64())]).with_metadata(
        {runfile.HEADER_KEY: b'{"run": {}}', runfile.FORMAT_KEY: runfile.FORMAT}
    )
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, schema) as writer:
        writer.write_batch(pa.record_batch([pa.array([1])], schema=schema))
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda data: data[:300], "is not a run file"),
        (lambda data: b"{}", "is not a run file"),
        (lambda data: data[:-1000], "is not a run file"),
        (lambda data: _other_schema_file(), "is not a run file"),
    ],
    ids=["truncated", "JSON", "tail cut", "another schema"],
)
def test_a_damaged_run_file_is_one_error_naming_it(examples_dir, damage, said):
    _, data = _both(examples_dir / "voice-vs-flood.yaml", [("run.duration", "1s")])
    with pytest.raises(ReadError, match=said) as caught:
        runfile.RunFile(damage(data), SHOWN)
    assert str(caught.value).startswith(f"{SHOWN}: ")


def test_a_file_of_another_schema_is_named_as_such_when_only_checked():
    with pytest.raises(ReadError, match="has tables or columns other than this version's"):
        runfile.RunFile(_other_schema_file(), SHOWN, ())
