"""A run's tables written without pandas are byte for byte the files pandas writes of their
DataFrames, in every example; a column of a form not known there falls back to pandas."""

from __future__ import annotations

import pandas as pd
import pytest

import qoslab
from conftest import EXAMPLES
from qoslab.results import SCHEMAS, TABLES
from qoslab.tablefiles import kind, writers


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda path: path.stem)
def test_tables_are_written_as_pandas_writes_them(example, tmp_path):
    """From the core's columns (what ``Results.write`` writes after ``qoslab.run``) and from
    rows (what it writes of results read back from JSON)."""
    results = qoslab.run(example)
    results.write(tmp_path / "columns")
    for table in TABLES:
        written = writers(results.rows(table), SCHEMAS[table])
        assert written is not None, f"{table}: a column of a form tablefiles does not know"
        write_csv, write_parquet = written
        write_csv(tmp_path / "rows.csv")
        write_parquet(tmp_path / "rows.parquet")
        frame = getattr(results, table)
        frame.to_csv(tmp_path / "frame.csv", index=False)
        frame.to_parquet(tmp_path / "frame.parquet", index=False)
        for suffix in ("csv", "parquet"):
            pandas = (tmp_path / f"frame.{suffix}").read_bytes()
            for made in (tmp_path / f"rows.{suffix}", tmp_path / "columns" / f"{table}.{suffix}"):
                assert made.read_bytes() == pandas, f"{example.stem}: {made}"


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ({"type": "bool", "nullable": False}, [True, False]),
        ({"type": "list[str]", "nullable": False}, [["a"], []]),
        ({"type": "float", "nullable": False}, [1.5, 2]),
        ({"type": "int", "nullable": False}, [2**63]),
        ({"type": "int", "nullable": True}, [None, None]),
    ],
)
def test_a_column_of_another_form_is_left_to_pandas(column, values):
    assert kind(column, values) is None


def test_a_table_changed_through_its_dataframe_is_written_as_changed(voice_vs_flood, tmp_path):
    results = qoslab.run(voice_vs_flood)
    results.flows["note"] = "changed"
    results.write(tmp_path / "out")
    assert (tmp_path / "out" / "flows.csv").read_text().splitlines()[0].endswith(",note")


def test_numbers_and_text_of_every_shape_are_written_as_pandas_writes_them(tmp_path):
    schema = [
        {"name": "number", "type": "float", "nullable": True},
        {"name": "count", "type": "int", "nullable": False},
        {"name": "name", "type": "str", "nullable": True},
    ]
    numbers = [0.1, 1e16, 1e-05, 0.0001, -0.0, 123456789.125, 5e-324, 1.7976931348623157e308]
    names = ["plain", "a,b", 'say "hi"', "two\nlines", "", "ünï", " space", None]
    rows = [
        {"number": number, "count": -(2**63) + index, "name": name}
        for index, (number, name) in enumerate(zip([*numbers, None], [*names, "x"], strict=True))
    ]
    write_csv, write_parquet = writers(rows, schema)
    write_csv(tmp_path / "rows.csv")
    write_parquet(tmp_path / "rows.parquet")
    frame = pd.DataFrame.from_records(rows)
    frame.to_csv(tmp_path / "frame.csv", index=False)
    frame.to_parquet(tmp_path / "frame.parquet", index=False)
    for suffix in ("csv", "parquet"):
        rows_file, frame_file = (tmp_path / f"{name}.{suffix}" for name in ("rows", "frame"))
        assert rows_file.read_bytes() == frame_file.read_bytes(), suffix
