"""A run's results as one compact columnar file: what a sweep stores per run.

The file is an Apache Arrow IPC file (Arrow's "Feather v2"), its buffers compressed with
LZ4 (frame format), holding one record batch of one row: a column per result table, each a list of
the table's rows as structs of its schema's columns (``int`` → int64, ``float`` → float64,
``str`` → large string, ``bool`` → boolean; a missing value is null). The ``run`` record and
the inputs the run read are JSON text in the schema's metadata (key ``qoslab.header``), with
the layout's version (``qoslab.format``). The columns come from the core as Arrow buffers
(``Simulation.finish_columns``), so writing a run parses nothing, and reading one table
decompresses that table's buffers only.

A run of the congestion lab's sweep takes about 160 kB, under a tenth of its results
document as JSON (``tests/test_runfile.py``). LZ4 rather than Zstandard: it writes and reads
a run about three times as fast for a third more bytes, and a sweep writes each run once and
reads it once for the summary.
Any Arrow reader opens the file (``pyarrow.feather.read_table``, DuckDB, Polars); a run's
tables flatten to rows with ``pyarrow.compute.list_flatten``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qoslab.readback import DAMAGED, ReadError, expect
from qoslab.resultsdoc import INPUTS, RUN, check_rows, schemas

if TYPE_CHECKING:
    import pyarrow as pa

SUFFIX = ".arrow"
"""The name ending of a run file."""

FORMAT = b"1"
"""The layout's version, in the file's metadata."""

HEADER_KEY = b"qoslab.header"
FORMAT_KEY = b"qoslab.format"

ColumnBuffers = tuple[str, bytes | None, bytes, bytes | None]
"""A column from the core: name, validity bitmap, values, text bytes."""

TableBuffers = tuple[str, int, list[ColumnBuffers]]
"""A table from the core: name, rows, columns."""


@cache
def _types() -> dict[str, pa.DataType]:
    import pyarrow as pa

    return {"int": pa.int64(), "float": pa.float64(), "str": pa.large_string(), "bool": pa.bool_()}


@cache
def table_type(table: str) -> pa.StructType:
    """The Arrow struct of one row of ``table``."""
    import pyarrow as pa

    types = _types()
    return pa.struct([pa.field(c["name"], types[c["type"]]) for c in schemas()[table]])


@cache
def run_schema() -> pa.Schema:
    """The schema of a run file (without its metadata): a list of rows per table."""
    import pyarrow as pa

    return pa.schema(
        [pa.field(table, pa.large_list(table_type(table))) for table in schemas() if table != RUN]
    )


@cache
def _no_rows(table: str) -> pa.LargeListArray:
    """The column of a run whose table ``table`` has no rows."""
    import pyarrow as pa

    empty = pa.array([], table_type(table))
    return pa.LargeListArray.from_arrays(pa.array([0, 0], pa.int64()), empty)


def column_array(kind: pa.DataType, rows: int, column: ColumnBuffers) -> pa.Array:
    """The column ``column`` of ``rows`` rows, as the core gave it, as an Arrow array of
    type ``kind`` (its buffers are not copied)."""
    import pyarrow as pa

    _, validity, values, text = column
    buffers = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(values)]
    if text is not None:
        buffers.append(pa.py_buffer(text))
    return pa.Array.from_buffers(kind, rows, buffers)


def encode(header: str, tables: list[TableBuffers]) -> bytes:
    """The run file of a run whose results the core gave as ``header`` (the ``run`` record
    and inputs as JSON) and ``tables`` (``Simulation.finish_columns``)."""
    import pyarrow as pa

    schema = run_schema()
    lists = []
    for (name, rows, columns), field in zip(tables, schema, strict=True):
        row_type = field.type.value_type
        assert name == field.name, f"table {name} where the schema has {field.name}"
        if rows == 0:
            lists.append(_no_rows(name))
            continue
        fields = [column_array(row_type.field(i).type, rows, c) for i, c in enumerate(columns)]
        rows_array = pa.StructArray.from_arrays(fields, fields=list(row_type))
        offsets = pa.array([0, rows], pa.int64())
        lists.append(pa.LargeListArray.from_arrays(offsets, rows_array))
    metadata = {HEADER_KEY: header.encode(), FORMAT_KEY: FORMAT}
    batch = pa.record_batch(lists, schema=schema.with_metadata(metadata))
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression="lz4", use_threads=False)
    with pa.ipc.new_file(sink, batch.schema, options=options) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


class RunFile:
    """A run file read back: its header and the tables asked for, decompressed once."""

    def __init__(
        self, data: bytes | pa.Buffer, shown: Path, tables: Sequence[str] | None = None
    ) -> None:
        """Reads the run file ``data`` (read from ``shown``, named in errors): its header,
        and the tables ``tables`` (default: all); only their buffers are decompressed."""
        import pyarrow as pa

        self.shown = shown
        wanted = [t for t in schemas() if t != RUN] if tables is None else list(tables)
        fields = [run_schema().get_field_index(table) for table in wanted]
        if -1 in fields:
            raise KeyError(f"no table {wanted[fields.index(-1)]!r} in a run file")
        # An empty projection is read as none at all: then only the footer is read.
        options = pa.ipc.IpcReadOptions(included_fields=fields or None, use_threads=False)
        source = pa.BufferReader(pa.py_buffer(data) if isinstance(data, bytes) else data)
        try:
            reader = pa.ipc.open_file(source, options=options)
            schema, batches = reader.schema, reader.num_record_batches
        except (pa.ArrowInvalid, OSError, ValueError) as error:
            raise ReadError(shown, f"is not a run file ({error})", DAMAGED) from None
        expect(batches == 1, shown, "holds other than one run")
        self._check(schema, _read_schema(tuple(fields)))
        self._batch: pa.RecordBatch | None = None
        try:
            if fields:
                self._batch = reader.get_batch(0)
        except (pa.ArrowInvalid, OSError, ValueError) as error:
            raise ReadError(shown, f"does not read ({error})", DAMAGED) from None
        self._tables: dict[str, pa.Table] = {}

    def _check(self, schema: pa.Schema, expected: pa.Schema) -> None:
        """Raises a ``ReadError`` unless the file whose schema, as read, is ``schema`` is a
        run file of this layout (its tables read being ``expected``); keeps its header's
        text, read when first asked for (:attr:`header`)."""
        shown = self.shown
        metadata = schema.metadata or {}
        expect(
            metadata.get(FORMAT_KEY) == FORMAT and HEADER_KEY in metadata,
            shown,
            "is not a run file of this version of qoslab",
        )
        expect(
            schema.equals(expected, check_metadata=False),
            shown,
            "has tables or columns other than this version's",
        )
        self._header_text: bytes = metadata[HEADER_KEY]

    @cached_property
    def header(self) -> dict[str, Any]:
        """The ``run`` record and the inputs, checked against the core's schema of ``run``."""
        try:
            header = json.loads(self._header_text)
        except ValueError:
            header = None
        expect(isinstance(header, dict) and RUN in header, self.shown, "has no run record")
        assert isinstance(header, dict)
        check_rows([header[RUN]], RUN, self.shown)
        return header

    @property
    def run(self) -> dict[str, Any]:
        """The ``run`` record."""
        run: dict[str, Any] = self.header[RUN]
        return run

    def table(self, name: str) -> pa.Table:
        """The rows of table ``name`` (one of those read)."""
        import pyarrow as pa

        if name in self._tables:
            return self._tables[name]
        if self._batch is None or name not in self._batch.schema.names:
            raise KeyError(f"table {name!r} was not read from {self.shown}")
        column = _list_column(self._batch.column(name))
        expect(len(column) == 1, self.shown, f"table {name!r} is not one list of rows")
        rows = column.values
        assert isinstance(rows, pa.StructArray), "a checked run file's rows are structs"
        table = pa.Table.from_struct_array(rows) if len(rows) else table_type_empty(name)
        self._tables[name] = table
        return table

    def count(self, name: str) -> int:
        """The rows of table ``name`` (one of those read), without making its table."""
        if self._batch is None or name not in self._batch.schema.names:
            raise KeyError(f"table {name!r} was not read from {self.shown}")
        return len(_list_column(self._batch.column(name)).values)

    def rows(self) -> int:
        """The rows of the tables read."""
        columns = self._batch.columns if self._batch is not None else []
        return sum(len(_list_column(column).values) for column in columns)

    def document(self) -> dict[str, Any]:
        """The run's results document, as the core's JSON would read (every table read)."""
        document: dict[str, Any] = {RUN: self.run}
        for table in schemas():
            if table != RUN:
                document[table] = self.table(table).to_pylist()
        document[INPUTS] = self.header.get(INPUTS, [])
        return document


@cache
def _read_schema(fields: tuple[int, ...]) -> pa.Schema:
    """The schema of a run file read with the projection ``fields`` (none: all)."""
    import pyarrow as pa

    return pa.schema([run_schema().field(i) for i in fields]) if fields else run_schema()


def _list_column(column: pa.Array) -> pa.LargeListArray:
    """A run file's table column, as the list array it is (its schema checked)."""
    import pyarrow as pa

    assert isinstance(column, pa.LargeListArray), "a checked run file's table is a list"
    return column


@cache
def table_type_empty(table: str) -> pa.Table:
    """A table of ``table``'s columns without rows (``Schema.empty_table`` would import
    pandas)."""
    import pyarrow as pa

    fields = list(table_type(table))
    empty = [pa.nulls(0, field.type) for field in fields]
    return pa.Table.from_arrays(empty, schema=pa.schema(fields))
