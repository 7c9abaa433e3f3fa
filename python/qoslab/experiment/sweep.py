"""A sweep's runs and their summary, as DataFrames.

``Sweep.runs`` holds every run's rows of each result table, prefixed with the columns that
say which run they came from: the variant (when the sweep has variants), each varied key
path with its value as given, and the replication. ``Sweep.summary`` holds, per table, the
statistics over replications of each row and metric at each point of the grid
(:func:`qoslab.analysis.summarize`: n, mean, SD, 95 % confidence interval, min, max).
Parameter columns are ordered categoricals in the order the values were given, so tables
sort by the grid rather than alphabetically.
"""

from __future__ import annotations

import io
import weakref
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from qoslab import display
from qoslab.analysis import summarize, thesis_table
from qoslab.analysis.answer import Answer, answer
from qoslab.experiment.store import Store
from qoslab.experiment.task import DONE
from qoslab.results import TABLES, Results, with_dtypes
from qoslab.runfile import RunFile, table_type_empty
from qoslab.scenario import BASE

if TYPE_CHECKING:
    import pyarrow as pa

VARIANT = "variant"
REPLICATION = "replication"
RUN = "run"


class Tables:
    """One DataFrame per result table, as attributes (``tables.flows``) or by name
    (``tables["flows"]``); tables without rows are absent from ``names`` (and ``in`` says
    whether a table has rows). The frames are given, or made by ``load`` when a table of
    ``known`` is first asked for (``load`` gives None for a table that has no frame), so
    that reading one table of a large sweep does not build the others."""

    def __init__(
        self,
        frames: Mapping[str, pd.DataFrame] | None = None,
        *,
        load: Callable[[str], pd.DataFrame | None] | None = None,
        known: Sequence[str] = (),
    ) -> None:
        self._frames: dict[str, pd.DataFrame | None] = dict(frames or {})
        self._load = load
        self._known = list(known) if load is not None else list(self._frames)

    @property
    def names(self) -> list[str]:
        """The tables that have rows."""
        return [name for name in self._known if name in self]

    def __contains__(self, name: object) -> bool:
        frame = self._frame(name) if name in self._known else None
        return frame is not None and not frame.empty

    def _frame(self, name: object) -> pd.DataFrame | None:
        if name not in self._frames and self._load is not None:
            self._frames[str(name)] = self._load(str(name))
        return self._frames.get(str(name))

    def __getitem__(self, name: str) -> pd.DataFrame:
        frame = self._frame(name) if name in self._known else None
        if frame is None:
            raise KeyError(f"no table {name!r} (tables: {', '.join(self._known)})")
        return frame

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(str(error)) from None

    def __repr__(self) -> str:
        return f"<Tables {', '.join(self.names)}>"

    def keep(self, name: str, frame: pd.DataFrame) -> None:
        """Holds ``frame`` as table ``name``, made elsewhere (and equal to what ``load``
        would make)."""
        self._frames[name] = frame


ROWS_PER_BATCH = 400_000
"""Rows (of all tables) of the runs a summary holds at once, in whole points of the grid."""

SERIES_TABLES = ("series", "class_series", "dq_intervals")
"""The per-interval tables: a sweep's folder has their summaries only when asked for."""

SERIES_FORMS = ("parquet", "csv")
"""The forms of the per-interval tables' summaries a sweep's folder may have."""


def check_series_summary(form: str | None) -> None:
    """Raise ``ValueError`` unless ``form`` is a form of the per-interval summaries or None."""
    if form not in (None, *SERIES_FORMS):
        raise ValueError(f"series_summary {form!r}: use one of {', '.join(SERIES_FORMS)} (or None)")


class Sweep:
    """The runs of a sweep: its manifest (plan and runs in grid order) and a way to read
    each run's file and failure record by key."""

    def __init__(
        self,
        manifest: dict,
        read_result: Callable[[str, Sequence[str] | None], RunFile | None],
        read_failure: Callable[[str], dict | None],
        directory: Path | None = None,
        has_result: Callable[[str], bool] | None = None,
    ) -> None:
        self.manifest = manifest
        self.directory = directory
        self._read_result = read_result
        self._read_failure = read_failure
        self._has_result = has_result or (lambda key: read_result(key, ()) is not None)

    @classmethod
    def load(cls, directory: str | Path) -> Sweep:
        """The sweep written in ``directory``; ``qoslab.readback.ReadError`` names the file
        of it that does not read."""
        store = Store.open(directory)
        sweep = cls(
            store.manifest(), store.result, store.failure, Path(directory), store.has_result
        )
        weakref.finalize(sweep, store.close)
        return sweep

    def __repr__(self) -> str:
        done = int((self.index["status"] == DONE).sum())
        return (
            f"<Sweep {self.manifest['scenario_name']!r} {len(self.index)} runs, {done} done, "
            f"parameters {', '.join(self.parameters) or 'none'}>"
        )

    def _repr_html_(self) -> str | None:
        """What a notebook shows: each point's flows as mean ± half-width and the key plot
        (``qoslab.report``)."""
        return display.html(self)

    def view(self, manifest: dict) -> Sweep:
        """The same stored runs seen through another ``manifest``: some of the runs, or the
        parameters under other names (each run in it keeps its ``key``, by which its results
        are read)."""
        return Sweep(
            manifest, self._read_result, self._read_failure, self.directory, self._has_result
        )

    @property
    def keys(self) -> list[str]:
        """The varied key paths, in order."""
        return [axis["key"] for axis in self.manifest["plan"]["vary"]]

    @property
    def variants(self) -> list[str]:
        """The variants run (``base``: the scenario as written)."""
        return [BASE if name is None else name for name in self.manifest["plan"]["variants"]]

    @property
    def parameters(self) -> list[str]:
        """The columns naming a point of the grid: ``variant`` (when the sweep has
        variants) and the varied key paths."""
        with_variants = self.manifest["plan"]["variants"] != [None]
        return [VARIANT] * with_variants + self.keys

    @cached_property
    def index(self) -> pd.DataFrame:
        """One row per run, in grid order: its key (``run``), parameters, replication,
        ``status`` (``done``, ``scenario_error``, ``run_error``, ``crashed`` or ``missing``)
        and ``error``."""
        records = []
        for run in self.manifest["runs"]:
            failure = self._read_failure(run["key"])
            if failure is not None:
                status, error = failure["status"], failure["error"]
            else:
                status = DONE if self._has_result(run["key"]) else "missing"
                error = ""
            records.append({**self._prefix(run), RUN: run["key"], "status": status, "error": error})
        columns = [*self.parameters, REPLICATION, RUN, "status", "error"]
        return self._ordered(pd.DataFrame.from_records(records, columns=columns))

    @property
    def failures(self) -> pd.DataFrame:
        """The rows of :attr:`index` whose run did not finish."""
        return self.index[self.index["status"] != DONE].reset_index(drop=True)

    @cached_property
    def runs(self) -> Tables:
        """Every finished run's rows of each result table, with the parameter columns and
        the replication first, in grid order. Each table is read from the runs when it is
        first asked for."""
        return Tables(load=self._table, known=TABLES)

    def _table(self, table: str) -> pd.DataFrame:
        """Every finished run's rows of ``table``. Only the table's rows are kept from each
        run file read, not the file: a study's thousands of runs read at once would hold
        every file in memory."""
        done = []
        for run in self.manifest["runs"]:
            result = self._read_result(run["key"], (table,))
            if result is not None:
                done.append((run, result.table(table)))
        return self._frame(table, done)

    def _frame(self, table: str, done: Sequence[tuple[dict, pa.Table]]) -> pd.DataFrame:
        """The rows of ``table`` of the runs ``done`` (each run's manifest entry with its
        rows), prefixed with their parameters and replication."""
        import pyarrow as pa

        pieces = [rows for _, rows in done]
        combined = pa.concat_tables(pieces) if pieces else table_type_empty(table)
        frame = combined.to_pandas()
        # Each run's parameters repeated over its rows, rather than copied into every
        # record: a sweep's series tables hold millions of rows.
        counts = [piece.num_rows for piece in pieces]
        prefixes = [self._prefix(run) for run, _ in done]
        for position, column in enumerate([*self.parameters, REPLICATION]):
            values = [prefix[column] for prefix in prefixes]
            frame.insert(position, column, np.repeat(np.array(values, dtype=object), counts))
        frame[REPLICATION] = frame[REPLICATION].astype("int64")
        return self._ordered(with_dtypes(frame, table))

    def summary_files(self, series: str | None = None) -> dict[str, bytes]:
        """The summary of every table with rows as files, by name: ``<table>.csv``; the
        per-interval tables (:data:`SERIES_TABLES`, whose summaries have a row per interval,
        point and metric) only when ``series`` names a form, ``"parquet"`` or ``"csv"``.
        Equal to :attr:`summary`, but made a few points at a time — whole points of the
        grid, each run read once, about :data:`ROWS_PER_BATCH` rows at once — so that
        memory does not grow with the number of runs."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        check_series_summary(series)
        tables = [t for t in TABLES if series is not None or t not in SERIES_TABLES]
        frames: dict[str, list[pd.DataFrame]] = {}
        sinks: dict[str, tuple[io.BytesIO, pq.ParquetWriter]] = {}

        def summarize_batch(batch: list[tuple[dict, RunFile]]) -> None:
            for table in tables:
                if not any(result.count(table) for _, result in batch):
                    continue
                rows = [(run, result.table(table)) for run, result in batch]
                summary = summarize(self._frame(table, rows), by=self.parameters, table=table)
                if table in SERIES_TABLES and series == "parquet":
                    chunk = pa.Table.from_pandas(summary, preserve_index=False)
                    if table not in sinks:
                        sink = io.BytesIO()
                        sinks[table] = (
                            sink,
                            pq.ParquetWriter(sink, chunk.schema, compression="zstd"),
                        )
                    sinks[table][1].write_table(chunk)
                else:
                    frames.setdefault(table, []).append(summary)

        batch: list[tuple[dict, RunFile]] = []
        rows = 0
        for runs in self._points():
            for run in runs:
                result = self._read_result(run["key"], tables)
                if result is not None:
                    batch.append((run, result))
                    rows += result.rows()
            if rows >= ROWS_PER_BATCH:
                summarize_batch(batch)
                batch, rows = [], 0
        summarize_batch(batch)
        files = {}
        for table in TABLES:
            if table in frames:
                whole = pd.concat(frames[table], ignore_index=True)
                self.summary.keep(table, whole)
                files[f"{table}.csv"] = whole.to_csv(index=False).encode()
            elif table in sinks:
                sink, writer = sinks[table]
                writer.close()
                files[f"{table}.parquet"] = sink.getvalue()
        return files

    def _points(self) -> list[list[dict]]:
        """The runs grouped by point of the grid (variant and settings), the points in the
        summary's order: by variant, then each varied key, each in the order its values
        were given."""
        orders = self._orders()
        points: dict[tuple, list[dict]] = {}
        for run in self.manifest["runs"]:
            prefix = self._prefix(run)
            place = tuple(orders[column].index(prefix[column]) for column in self.parameters)
            points.setdefault(place, []).append(run)
        return [points[place] for place in sorted(points)]

    @cached_property
    def summary(self) -> Tables:
        """Per table with rows: the statistics over replications of every row and metric at
        each point of the grid (see :func:`qoslab.analysis.summarize`)."""

        def load(table: str) -> pd.DataFrame | None:
            if table not in self.runs:
                return None
            return summarize(self.runs[table], by=self.parameters, table=table)

        return Tables(load=load, known=TABLES)

    def answer(self, target_pct: float = 95.0, confidence: float = 0.95) -> Answer:
        """Per point and budgeted application, whether it is in contract (the lower
        ``confidence`` bound of its share of intervals in contract at least ``target_pct``),
        the points that keep every application in contract and the cheapest of them
        (:mod:`qoslab.analysis.answer`)."""
        contracts = self.runs.contracts if "contracts" in self.runs else None
        points = self.index[self.parameters].drop_duplicates().reset_index(drop=True)
        return answer(contracts, points, target_pct=target_pct, confidence=confidence)

    def results(
        self,
        settings: Mapping[str, object] | None = None,
        *,
        variant: str = BASE,
        replication: int = 0,
    ) -> Results:
        """The results of one run: the point where each varied key has the value in
        ``settings`` (as given to the sweep), of ``variant``, replication ``replication``."""
        wanted = {str(key): str(value) for key, value in (settings or {}).items()}
        unknown = set(wanted) - set(self.keys)
        if unknown:
            raise KeyError(f"not a varied key: {', '.join(sorted(unknown))} (varied: {self.keys})")
        missing = [key for key in self.keys if key not in wanted]
        if missing:
            raise KeyError(f"give a value for every varied key; missing: {', '.join(missing)}")
        for run in self.manifest["runs"]:
            values = dict(run["settings"])
            if (
                (run["variant"] or BASE) == variant
                and run[REPLICATION] == replication
                and all(values[key] == value for key, value in wanted.items())
            ):
                result = self._read_result(run["key"], None)
                if result is None:
                    raise KeyError(f"the run {run['key']} did not finish (see Sweep.failures)")
                return Results.from_document(result.document())
        raise KeyError(
            f"no run with {wanted or 'no settings'}, variant {variant}, replication {replication}"
        )

    def thesis(
        self,
        table: str,
        metrics: Sequence[str],
        where: Mapping[str, object],
        *,
        interval: str = "t",
    ) -> pd.DataFrame:
        """The layout of the LMR VoIP thesis' tables for one point and one row: T1..Tn (one
        row per replication), M, SD, M-X, M+X, Max, one column per metric. ``where`` picks
        the point (a value for each parameter) and the row (its identity columns, e.g.
        ``{"flow": "voice"}``)."""
        frame = self.runs[table]
        for column, value in where.items():
            if column not in frame.columns:
                raise KeyError(f"table {table} has no column {column!r}")
            frame = frame[frame[column].astype(str) == str(value)]
        return thesis_table(frame, metrics, replication=REPLICATION, interval=interval)

    def _prefix(self, run: dict) -> dict[str, object]:
        prefix: dict[str, object] = {}
        if VARIANT in self.parameters:
            prefix[VARIANT] = run["variant"] or BASE
        prefix.update(dict(run["settings"]))
        prefix[REPLICATION] = run[REPLICATION]
        return prefix

    def _orders(self) -> dict[str, list]:
        """Each parameter's values in the grid's order."""
        # A zipped key may repeat a value (1 Mbit/s with two configurations): each value
        # is one category, at its first place.
        return {VARIANT: self.variants} | {
            axis["key"]: list(dict.fromkeys(axis["values"]))
            for axis in self.manifest["plan"]["vary"]
        }

    def _ordered(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with each parameter column an ordered categorical in the grid's order."""
        orders = self._orders()
        for column in self.parameters:
            frame[column] = pd.Categorical(frame[column], categories=orders[column], ordered=True)
        return frame
