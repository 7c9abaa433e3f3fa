"""A finished run's results as the core gives them for ``qoslab.run``: the ``run`` record
and inputs, and every table as Apache Arrow columns (``Simulation.finish_document``), with
each table's rows made only when first asked for.

Reading a run this way parses nothing: the core's buffers become Arrow arrays without a copy,
the CSV and Parquet writers take a table's columns (``columns``), and the results
document is written by the core straight into its file (``ResultsDocument.write``). A table
nobody reads row by row, such as a run's delay distributions (about a hundred rows per flow),
never becomes Python dicts. The rows made equal those of the results document as JSON
(``tests/test_runfile.py`` holds the columns to the document).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from qoslab.resultsdoc import INPUTS, RUN
from qoslab.runfile import TableBuffers, column_array, table_type, table_type_empty

if TYPE_CHECKING:
    import pyarrow as pa


class CoreTables(Mapping[str, Any]):
    """A results document read from the core's columns: ``run``, each table's rows (a list
    of dicts, made when first asked for), then ``inputs``, as the JSON document reads."""

    def __init__(self, header: str, tables: list[TableBuffers]) -> None:
        head = json.loads(header)
        self._buffers = {name: (rows, columns) for name, rows, columns in tables}
        self._keys = [RUN, *self._buffers, INPUTS]
        self._read: dict[str, Any] = {RUN: head[RUN], INPUTS: head[INPUTS]}
        self._arrow: dict[str, pa.Table] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._read:
            if key not in self._buffers:
                raise KeyError(key)
            self._read[key] = self.table(key).to_pylist()
        return self._read[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def table(self, name: str) -> pa.Table:
        """Table ``name`` as an Arrow table (over the core's buffers)."""
        import pyarrow as pa

        if name not in self._arrow:
            rows, columns = self._buffers[name]
            if rows == 0:
                self._arrow[name] = table_type_empty(name)
            else:
                fields = list(table_type(name))
                pairs = zip(fields, columns, strict=True)
                arrays = [column_array(field.type, rows, column) for field, column in pairs]
                self._arrow[name] = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
        return self._arrow[name]

    def columns(self, name: str) -> dict[str, pa.Array]:
        """Each column of table ``name`` as an Arrow array."""
        table = self.table(name)
        return {column: table.column(column).combine_chunks() for column in table.column_names}
