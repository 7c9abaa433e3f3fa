"""The per-packet trace file: chunks of rows from the simulator, written as they come to
``trace.parquet`` with ``pyarrow.parquet.ParquetWriter``.

The simulator hands each chunk as the little-endian bytes of its columns (see
``Simulation.advance``); they become Arrow arrays without a copy. Names — events, drop
reasons, nodes, ports, flows, classes — arrive as indices and are written as dictionary
columns, which pandas reads as categoricals. An index of all ones bits marks a missing
value (no port for a delivery, no class, no queue length, no drop reason, no TCP sequence
or acknowledgement number).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

TRACE_PARQUET = "trace.parquet"
"""The trace's file name in a results folder."""

_NAMES = pa.dictionary(pa.int32(), pa.string())
_CODES = pa.dictionary(pa.int8(), pa.string())

SCHEMA = pa.schema(
    [
        ("time_ns", pa.uint64()),
        ("event", _CODES),
        ("node", _NAMES),
        ("port", _NAMES),
        ("flow", _NAMES),
        ("packet_id", pa.uint64()),
        ("size_bytes", pa.uint32()),
        ("dscp", pa.uint8()),
        ("ecn", pa.uint8()),
        ("class", _NAMES),
        ("queue_packets", pa.uint32()),
        ("delay_ns", pa.uint64()),
        ("reason", _CODES),
        ("tcp_seq", pa.uint64()),
        ("tcp_ack", pa.uint64()),
    ]
)
"""The columns of ``trace.parquet``, in order."""

_NUMBERS = {
    "time_ns": np.uint64,
    "packet_id": np.uint64,
    "size_bytes": np.uint32,
    "dscp": np.uint8,
    "ecn": np.uint8,
    "delay_ns": np.uint64,
}
_INDICES = {"event": np.int8, "node": np.int32, "port": np.int32, "flow": np.int32}
_OPTIONAL_INDICES = {"class": np.int32, "reason": np.int8}


class TraceWriter:
    """Writes the chunks it is called with to ``path``; :meth:`close` ends the file."""

    def __init__(self, path: str | os.PathLike[str], dictionaries: dict[str, list[str]]) -> None:
        self.path = Path(path)
        self.rows = 0
        self._names = {
            column: pa.array(names, pa.string()) for column, names in dictionaries.items()
        }
        # Dictionary pages only for the name columns, statistics only for the time: building
        # them for every number column took a third of the writing time.
        self._writer = pq.ParquetWriter(
            self.path,
            SCHEMA,
            # A list of columns, as pyarrow documents it; its stubs type only a bool.
            use_dictionary=[*_INDICES, *_OPTIONAL_INDICES],  # type: ignore[arg-type]
            write_statistics=["time_ns"],
        )

    def __call__(self, chunk: dict[str, Any]) -> None:
        names = dict(self._names, **{"class": pa.array(chunk["class_names"], pa.string())})
        columns: dict[str, pa.Array] = {}
        for column, kind in _NUMBERS.items():
            columns[column] = pa.array(np.frombuffer(chunk[column], kind))
        for column, kind in (_INDICES | _OPTIONAL_INDICES).items():
            # Unsigned indices read as signed: all ones bits (the missing marker) become -1.
            indices = np.frombuffer(chunk[column], kind)
            mask = indices < 0 if column in _OPTIONAL_INDICES or column == "port" else None
            columns[column] = pa.DictionaryArray.from_arrays(
                pa.array(indices, mask=mask), names[column]
            )
        queue = np.frombuffer(chunk["queue_packets"], np.uint32)
        columns["queue_packets"] = pa.array(queue, mask=queue == np.iinfo(np.uint32).max)
        for column in ("tcp_seq", "tcp_ack"):
            numbers = np.frombuffer(chunk[column], np.uint64)
            columns[column] = pa.array(numbers, mask=numbers == np.iinfo(np.uint64).max)
        table = pa.Table.from_arrays([columns[field.name] for field in SCHEMA], schema=SCHEMA)
        self._writer.write_table(table)
        self.rows += table.num_rows

    def close(self) -> None:
        """Write the file's footer."""
        self._writer.close()
