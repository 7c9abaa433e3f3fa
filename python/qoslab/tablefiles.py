"""A results table's CSV and Parquet files written from its columns or rows, without pandas.

Loading pandas takes longer than a whole run of most scenarios, so ``Results.write`` writes
each table from its columns (the core's, after ``qoslab.run``) or from the rows of the
results document (results read back), byte for byte as pandas'
``DataFrame.to_csv`` and ``DataFrame.to_parquet`` (through pyarrow) write the DataFrame
``Results`` makes of it: the same column types (a column without a value is pandas' empty
``object`` column, Arrow's ``null``), the same CSV number formatting and quoting, the same
``pandas`` metadata in the Parquet schema. A table holding a column that this module does not
know pandas' form of (booleans, lists, a number of another type than its schema's) gets no
writers here, and the caller writes it with pandas.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

    from qoslab._core import ColumnSchema

INT64 = range(-(2**63), 2**63)

CSV_ROWS_AT_ONCE = 8192
"""Rows written in one go: a table's CSV text is never held whole."""


@dataclass(frozen=True)
class Kind:
    """A column's form in pandas and Arrow. In CSV every form is written by the ``csv``
    module as it is: a float by its ``repr`` (the shortest text that reads back the same,
    as pandas writes it), a missing value as an empty cell."""

    arrow: str
    """The name of the ``pyarrow`` type factory."""
    pandas_type: str
    numpy_type: str
    numbers: str | None = None
    """The NumPy type of the values' Arrow buffer; ``None`` for text and for a column of
    missing values only."""


EMPTY = Kind("null", "empty", "object")
FLOAT = Kind("float64", "float64", "float64", "float64")
INT = Kind("int64", "int64", "int64", "int64")
NULLABLE_INT = Kind("int64", "int64", "Int64", "int64")
STR = Kind("large_string", "object", "str")


def _is_int64(value: object) -> bool:
    return type(value) is int and value in INT64


def kind(column: ColumnSchema, values: Sequence[object]) -> Kind | None:
    """The form pandas gives the column ``column`` holding ``values``, if this module knows
    it (``qoslab.results.with_dtypes`` makes a nullable integer column ``Int64``)."""
    if column["type"] == "int" and column["nullable"]:
        if not values or (
            any(value is not None for value in values)
            and all(value is None or _is_int64(value) for value in values)
        ):
            return NULLABLE_INT
        return None
    if all(value is None for value in values):
        return EMPTY
    if column["type"] == "float" and all(value is None or type(value) is float for value in values):
        return FLOAT
    if column["type"] == "int" and all(_is_int64(value) for value in values):
        return INT
    if column["type"] == "str" and all(value is None or type(value) is str for value in values):
        return STR
    return None


Writers = tuple[Callable[[Path], object], Callable[[Path], object]]
"""The functions writing a table as CSV and as Parquet, each given the file's path."""


def writers(rows: list[dict[str, object]], schema: list[ColumnSchema]) -> Writers | None:
    """The functions writing a table of ``rows`` (each holding every column of ``schema``)
    as CSV and as Parquet; ``None`` when a column's form is not known here."""
    names = [column["name"] for column in schema]
    if any(list(row) != names for row in rows):
        return None
    return column_writers({name: [row[name] for row in rows] for name in names}, schema)


def column_writers(
    values_of: Mapping[str, list[object]],
    schema: list[ColumnSchema],
    arrays: Mapping[str, pa.Array] | None = None,
) -> Writers | None:
    """The functions writing a table whose columns (every one of ``schema``) hold
    ``values_of[name]`` as CSV and as Parquet; ``None`` when a column's form is not known
    here. ``arrays``, the same columns as Arrow arrays (the core's), go to the Parquet file
    as they are where their type is the one pandas would give the column."""
    columns = {}
    for column in schema:
        values = values_of[column["name"]]
        found = kind(column, values)
        if found is None:
            return None
        columns[column["name"]] = (found, values)

    def write_csv(path: Path) -> None:
        with path.open("w", encoding="utf-8", newline="") as file:
            writer = csv.writer(file, lineterminator=os.linesep)
            writer.writerow(columns)
            rows = len(next(iter(columns.values()))[1]) if columns else 0
            for start in range(0, rows, CSV_ROWS_AT_ONCE):
                part = slice(start, start + CSV_ROWS_AT_ONCE)
                writer.writerows(
                    zip(*(values[part] for _, values in columns.values()), strict=True)
                )

    def write_parquet(path: Path) -> None:
        import pyarrow.parquet as pq

        pq.write_table(_arrow_table(columns, arrays or {}), path, compression="snappy")

    return write_csv, write_parquet


def _arrow_table(
    columns: dict[str, tuple[Kind, list[object]]], arrays: Mapping[str, pa.Array]
) -> pa.Table:
    """The table as ``pyarrow.Table.from_pandas`` makes it of pandas' DataFrame, taking the
    columns of ``arrays`` whose type is pandas' as they are."""
    import pyarrow as pa

    metadata = {
        "index_columns": [],
        "column_indexes": [],
        "columns": [
            {
                "name": name,
                "field_name": name,
                "pandas_type": found.pandas_type,
                "numpy_type": found.numpy_type,
                "metadata": None,
            }
            for name, (found, _) in columns.items()
        ],
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": version("pandas"),
    }
    types = {name: getattr(pa, found.arrow)() for name, (found, _) in columns.items()}
    schema = pa.schema(types.items(), metadata={"pandas": json.dumps(metadata)})
    made = [
        arrays[name]
        if name in arrays and arrays[name].type == types[name]
        else _arrow_array(found, values, types[name])
        for name, (found, values) in columns.items()
    ]
    return pa.Table.from_arrays(made, schema=schema)


def _arrow_array(found: Kind, values: list[object], arrow_type: pa.DataType) -> pa.Array:
    """The column's values as an Arrow array, built from its buffers: ``pyarrow.array`` would
    import pandas to ask whether the values are one of its arrays."""
    import numpy as np
    import pyarrow as pa

    if found is EMPTY:
        return pa.nulls(len(values))
    missing = [value is None for value in values]
    validity = None
    if any(missing):
        bits = np.packbits(np.logical_not(missing), bitorder="little")
        validity = pa.py_buffer(bits.tobytes())
    if found.numbers is None:
        text = [b"" if value is None else str(value).encode() for value in values]
        offsets = np.cumsum([0, *map(len, text)], dtype=np.int64)
        buffers = [validity, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(text))]
    else:
        numbers = [0 if value is None else value for value in values]  # 0 under a missing one
        buffers = [validity, pa.py_buffer(np.array(numbers, dtype=found.numbers).tobytes())]
    return pa.Array.from_buffers(arrow_type, len(values), buffers, null_count=sum(missing))
