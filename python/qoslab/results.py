"""The measurements of one run as pandas DataFrames, and their files.

pandas loads with the first DataFrame asked for: a run whose tables are only written and
printed never loads it (``qoslab.tablefiles`` writes them as pandas would)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qoslab import display
from qoslab._core import ResultsDocument, table_schemas
from qoslab.coretables import CoreTables
from qoslab.output import check_folder, replace_folder
from qoslab.readback import DAMAGED, ReadError, parse_json
from qoslab.resultsdoc import check_document
from qoslab.tablefiles import Writers, column_writers, writers
from qoslab.trace import TRACE_PARQUET

if TYPE_CHECKING:
    import pandas as pd

    from qoslab._core import ColumnSchema
    from qoslab.runfile import TableBuffers

SCHEMAS: dict[str, list[ColumnSchema]] = table_schemas()
"""The schema of every table of a results document, ``run`` first, from the simulator core:
each table's columns in order, with their type, whether a value may be missing, their unit and
a description (``docs/results.md`` lists them)."""

TABLES = tuple(table for table in SCHEMAS if table != "run")
"""The tables of a results document, each a list of flat records."""

RESULTS_JSON = "results.json"

REPORT_HTML = "report.html"
"""The report ``qoslab run --report`` writes beside the results (``qoslab.report``)."""

RESULT_FILES = (
    *(f"{table}.{kind}" for table in TABLES for kind in ("csv", "parquet")),
    RESULTS_JSON,
)
"""The names of the files every results folder holds."""

FOLDER_FILES = (*RESULT_FILES, TRACE_PARQUET, REPORT_HTML)
"""Every name a results folder may hold: also the trace of a run that recorded one and the
report."""


class Results:
    """The measurements of one run.

    Built from the JSON document the simulator returns. ``run`` holds the run's own facts
    (scenario name, seed, simulated time, event and packet counts, qoslab version);
    ``flows``, ``classes`` (one row per queue class of each port), ``ports``, ``apps`` (one
    row per application over TCP: transfers, completion times, goodput, fairness, TCP
    counters), ``users`` (one row per user of each application), ``probes`` (one row per
    flow with ``echo``: round-trip times and loss), ``spurts`` (one row per talk spurt of
    each push-to-talk application), ``hops`` (one row per flow at each observed hop),
    ``changes`` (one row per replacement of an interface's discipline during the run),
    ``contracts`` (one row per application, observation point and ΔQ interval length:
    budget consumption, time in contract, offered/transported/in-contract loads),
    ``dq_intervals`` (each ΔQ interval, when asked for), ``voice`` and ``voice_spurts``
    (E-model rating and MOS per voice flow and per talk spurt), ``series`` (per flow and
    interval, when asked for), ``class_series`` (per class of each port and interval,
    when asked for: queue length, departures, drops) and ``delay_distribution`` (each flow's
    delay at every hundredth and the tail quantiles) are DataFrames with one column per
    measurement, each name ending in its unit (``_ms``, ``_s``, ``_bps``, ``_pct``,
    ``_packets``, ``_bytes``).

    Each DataFrame is made when first asked for; :meth:`rows` gives a table's rows without
    pandas. ``trace_path`` is the per-packet trace file of a run that recorded one (else
    None).
    """

    flows: pd.DataFrame
    classes: pd.DataFrame
    ports: pd.DataFrame
    apps: pd.DataFrame
    users: pd.DataFrame
    probes: pd.DataFrame
    spurts: pd.DataFrame
    hops: pd.DataFrame
    changes: pd.DataFrame
    contracts: pd.DataFrame
    dq_intervals: pd.DataFrame
    voice: pd.DataFrame
    voice_spurts: pd.DataFrame
    series: pd.DataFrame
    class_series: pd.DataFrame
    delay_distribution: pd.DataFrame

    def __init__(
        self,
        json_text: str | None,
        *,
        trace_path: Path | None = None,
        _document: Mapping[str, Any] | None = None,
        _core_document: ResultsDocument | None = None,
    ) -> None:
        if _document is None:
            assert json_text is not None, "a document or its text"
            _document = json.loads(json_text)
        self._document = _document
        self._json_text = json_text
        self._core_document = _core_document
        self.trace_path = trace_path
        self.run: dict[str, Any] = self._document["run"]
        self.inputs: list[dict[str, str]] = self._document.get("inputs", [])
        """The texts the run read, as read: the scenario (``kind`` ``scenario``), then each
        IOS configuration file (``ios``), each with its ``path`` and ``text``."""

    @classmethod
    def read(cls, json_text: str, shown: Path, *, trace_path: Path | None = None) -> Results:
        """The results document ``json_text`` read back from the file ``shown``, checked
        against the core's schemas first: ``qoslab.readback.ReadError`` names the file and
        what in it is wrong."""
        document = check_document(parse_json(json_text, shown), shown)
        return cls(json_text, trace_path=trace_path, _document=document)

    @classmethod
    def from_core(
        cls,
        finished: tuple[str, list[TableBuffers], ResultsDocument],
        *,
        trace_path: Path | None = None,
    ) -> Results:
        """The results of a run as the core finished it (``Simulation.finish_document``):
        tables read from its columns, the document (JSON) made by the core when asked for."""
        header, tables, document = finished
        tables_read = CoreTables(header, tables)
        return cls(None, trace_path=trace_path, _document=tables_read, _core_document=document)

    @classmethod
    def from_document(cls, document: dict) -> Results:
        """The results of a results document already read and checked (a sweep's run
        file, ``qoslab.runfile``)."""
        return cls(None, _document=document)

    def __getattr__(self, name: str) -> pd.DataFrame:
        """A table, made a DataFrame when first asked for (and kept)."""
        if name not in TABLES or "_document" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        frame = _table(self._document, name)
        setattr(self, name, frame)
        return frame

    def __reduce__(self) -> tuple[Callable[..., Results], tuple[str, Path | None]]:
        """Pickled as the results document's text (and the trace's path)."""
        return _from_text, (self.to_json(), self.trace_path)

    def __repr__(self) -> str:
        return (
            f"<Results {self.run.get('scenario')!r} seed={self.run.get('seed')} "
            f"flows={len(self.rows('flows'))} ports={len(self.rows('ports'))}>"
        )

    def rows(self, table: str) -> list[dict[str, Any]]:
        """The rows of ``table`` as the simulator wrote them, each a dict of column to value
        (``None`` where the DataFrame holds a missing value), without loading pandas."""
        if table not in TABLES:
            raise KeyError(f"no table named {table!r} (tables: {', '.join(TABLES)})")
        return self._document[table]

    def _repr_html_(self) -> str | None:
        """What a notebook shows: the flows table and the key plot (``qoslab.report``)."""
        return display.html(self)

    def to_json(self) -> str:
        """The results document exactly as the simulator wrote it; for results read from a
        sweep's run file, the same document written by Python (the same values; numbers
        may be spelled differently, ``1e-05`` for ``1e-5``)."""
        if self._json_text is None:
            if self._core_document is not None:
                self._json_text = self._core_document.text()
            else:
                self._json_text = json.dumps(self._document, indent=2, ensure_ascii=False)
        return self._json_text

    @cached_property
    def _flow_records(self) -> dict[str, dict[str, Any]]:
        return {record["flow"]: record for record in self._document["flows"]}

    def flow(self, name: str) -> dict[str, object]:
        """The measurements of the flow called ``name``, as a dict of column to value."""
        try:
            return dict(self._flow_records[name])
        except KeyError:
            known = ", ".join(self._flow_records) or "none"
            raise KeyError(f"no flow named {name!r} (flows: {known})") from None

    def trace(self) -> pd.DataFrame:
        """The per-packet trace as a DataFrame (one row per packet event); raises
        ``LookupError`` for a run that recorded none."""
        if self.trace_path is None:
            raise LookupError(
                "this run recorded no per-packet trace: run with trace=True (--trace) or "
                "give the scenario a measure.trace section"
            )
        import pandas as pd
        import pyarrow

        try:
            return pd.read_parquet(self.trace_path)
        except (OSError, pyarrow.ArrowException) as error:
            raise ReadError(
                self.trace_path, f"is not a readable trace ({error})", DAMAGED
            ) from None

    def write(self, directory: str | os.PathLike[str], *, report: str | None = None) -> list[Path]:
        """Write each table as CSV and Parquet, the per-packet trace (``trace.parquet``,
        when the run recorded one), then ``results.json``, into ``directory``; with
        ``report`` (the HTML of ``qoslab.report.render``), ``report.html`` too.

        The folder is replaced as a whole, in one step: wherever the writing is interrupted, it
        holds either the earlier results complete or these complete, never a mix (a report of
        earlier results is not kept beside new ones). The parent folders are created if
        needed. Raises ``qoslab.output.OutputError`` when ``directory`` is a file, the current
        folder or a folder holding anything but result files (which are never removed).
        Returns the paths written.
        """
        return replace_folder(directory, self._files(report), known=FOLDER_FILES)

    def _files(self, report: str | None) -> dict[str, Callable[[Path], object]]:
        """Each result file's name and the function writing it, ``results.json`` last."""
        files: dict[str, Callable[[Path], object]] = {}
        for table in TABLES:
            # A table changed through its DataFrame is written as it now is.
            written = None if table in self.__dict__ else self._writers(table)
            if written is None:
                frame: pd.DataFrame = getattr(self, table)
                written = partial(frame.to_csv, index=False), partial(frame.to_parquet, index=False)
            files[f"{table}.csv"], files[f"{table}.parquet"] = written
        if self.trace_path is not None:
            files[TRACE_PARQUET] = partial(_place, self.trace_path)
        if report is not None:
            files[REPORT_HTML] = partial(Path.write_text, data=report, encoding="utf-8")
        core_document = self._core_document
        if core_document is not None and self._json_text is None:
            files[RESULTS_JSON] = core_document.write
        else:
            files[RESULTS_JSON] = lambda path: path.write_text(self.to_json(), encoding="utf-8")
        return files

    def _writers(self, table: str) -> Writers | None:
        """The CSV and Parquet writers of ``table`` as read (from the core's columns where
        the run gave them, else from its rows); ``None`` where pandas has to write it."""
        document = self._document
        if isinstance(document, CoreTables):
            arrays = document.columns(table)
            values = {name: array.to_pylist() for name, array in arrays.items()}
            return column_writers(values, SCHEMAS[table], arrays)
        return writers(self.rows(table), SCHEMAS[table])


def _from_text(json_text: str, trace_path: Path | None) -> Results:
    """Results unpickled (:meth:`Results.__reduce__`)."""
    return Results(json_text, trace_path=trace_path)


def _place(source: Path, path: Path) -> None:
    """Put the file ``source`` at ``path``: a hard link where the two share a file
    system, else a copy."""
    try:
        os.link(source, path)
    except OSError:
        shutil.copyfile(source, path)


def check_destination(directory: str | os.PathLike[str]) -> None:
    """Raise ``qoslab.output.OutputError`` if :meth:`Results.write` would refuse
    ``directory``, so that a run can be refused before it starts."""
    check_folder(directory, FOLDER_FILES)


def columns(table: str) -> list[str]:
    """The columns of ``table``, in order."""
    return [column["name"] for column in SCHEMAS[table]]


def with_dtypes(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """``frame``, rows of ``table``, with its integer columns that may be missing (such as
    the count of intervals the total rows of ``contracts`` leave empty) as pandas' nullable
    ``Int64`` rather than floats."""
    for column in SCHEMAS[table]:
        if column["type"] == "int" and column["nullable"] and column["name"] in frame:
            frame[column["name"]] = frame[column["name"]].astype("Int64")
    return frame


def _table(document: Mapping[str, Any], table: str) -> pd.DataFrame:
    """A table of the document as a DataFrame; a table that may be empty (a run without
    applications, probes, budgets ...) keeps its columns when it is."""
    import pandas as pd

    records = document[table]
    frame = pd.DataFrame.from_records(records, columns=None if records else columns(table))
    return with_dtypes(frame, table)
