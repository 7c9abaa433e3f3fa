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

import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from qoslab import display
from qoslab.analysis import summarize, thesis_table
from qoslab.experiment.store import RESULT_SUFFIX, RUNS, Store
from qoslab.experiment.task import DONE
from qoslab.readback import DAMAGED, ReadError, parse_json
from qoslab.results import TABLES, Results, with_dtypes
from qoslab.results import columns as result_columns
from qoslab.resultsdoc import check_rows
from qoslab.scenario import BASE

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


_DECODER = json.JSONDecoder()


def table_rows(text: str, table: str, shown: Path) -> list[dict]:
    """The rows of the table ``table`` of a run's results document (read from the file
    ``shown``), checked against the table's schema. The core writes the document with each
    top-level key on its own line, indented by two spaces (a JSON string holds no line
    break, so only a top-level key can match): the table is found by its key and decoded
    alone, a fraction of the document. A document laid out otherwise is decoded whole."""
    marker = f'\n  "{table}": '
    at = text.find(marker)
    rows: object = None
    if at >= 0:
        try:
            rows, _ = _DECODER.raw_decode(text, at + len(marker))
        except (ValueError, RecursionError):
            rows = None
    if not isinstance(rows, list):
        document = parse_json(text, shown)
        if not isinstance(document, dict) or table not in document:
            raise ReadError(shown, f"has no table {table!r}", DAMAGED)
        rows = document[table]
    return check_rows(rows, table, shown)


class Sweep:
    """The runs of a sweep: its manifest (plan and runs in grid order) and a way to read
    each run's results document and failure record by key."""

    def __init__(
        self,
        manifest: dict,
        read_result: Callable[[str], str | None],
        read_failure: Callable[[str], dict | None],
        directory: Path | None = None,
    ) -> None:
        self.manifest = manifest
        self.directory = directory
        self._read_result = read_result
        self._read_failure = read_failure

    @classmethod
    def load(cls, directory: str | Path) -> Sweep:
        """The sweep written in ``directory``; ``qoslab.readback.ReadError`` names the file
        of it that does not read."""
        store = Store.open(directory)
        sweep = cls(store.manifest(), store.result_text, store.failure, Path(directory))
        weakref.finalize(sweep, store.close)
        return sweep

    def _shown(self, key: str) -> Path:
        """Where the run ``key``'s results are, for messages."""
        where = self.directory if self.directory is not None else Path("<sweep in memory>")
        return where / RUNS / f"{key}{RESULT_SUFFIX}"

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
        return Sweep(manifest, self._read_result, self._read_failure, self.directory)

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
                status = DONE if self._read_result(run["key"]) is not None else "missing"
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
        """Every finished run's rows of ``table``."""
        rows: list[dict] = []
        counts: list[int] = []
        columns: list[str] | None = None
        prefixes = []
        for run in self.manifest["runs"]:
            text = self._read_result(run["key"])
            if text is None:
                continue
            records = table_rows(text, table, self._shown(run["key"]))
            prefixes.append(self._prefix(run))
            if records and columns is None:
                columns = list(records[0])
            rows.extend(records)
            counts.append(len(records))
        frame = pd.DataFrame.from_records(rows, columns=columns or result_columns(table))
        # Each run's parameters repeated over its rows, rather than copied into every
        # record: a sweep's series tables hold millions of rows.
        for position, column in enumerate([*self.parameters, REPLICATION]):
            values = [prefix[column] for prefix in prefixes]
            frame.insert(position, column, np.repeat(np.array(values, dtype=object), counts))
        frame[REPLICATION] = frame[REPLICATION].astype("int64")
        return self._ordered(with_dtypes(frame, table))

    @cached_property
    def summary(self) -> Tables:
        """Per table with rows: the statistics over replications of every row and metric at
        each point of the grid (see :func:`qoslab.analysis.summarize`)."""

        def load(table: str) -> pd.DataFrame | None:
            if table not in self.runs:
                return None
            return summarize(self.runs[table], by=self.parameters, table=table)

        return Tables(load=load, known=TABLES)

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
                text = self._read_result(run["key"])
                if text is None:
                    raise KeyError(f"the run {run['key']} did not finish (see Sweep.failures)")
                return Results.read(text, self._shown(run["key"]))
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

    def _ordered(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with each parameter column an ordered categorical in the grid's order."""
        # A zipped key may repeat a value (1 Mbit/s with two configurations): each value
        # is one category, at its first place.
        orders = {VARIANT: self.variants} | {
            axis["key"]: list(dict.fromkeys(axis["values"]))
            for axis in self.manifest["plan"]["vary"]
        }
        for column in self.parameters:
            frame[column] = pd.Categorical(frame[column], categories=orders[column], ordered=True)
        return frame
