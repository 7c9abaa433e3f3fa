"""The measurements of one run as pandas DataFrames, and their files."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pandas as pd

from qoslab import display
from qoslab.output import check_folder, replace_folder
from qoslab.trace import TRACE_PARQUET

TABLES = (
    "flows",
    "classes",
    "ports",
    "apps",
    "users",
    "probes",
    "spurts",
    "hops",
    "changes",
    "contracts",
    "dq_intervals",
    "voice",
    "voice_spurts",
    "series",
    "class_series",
    "delay_distribution",
)
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

    ``trace_path`` is the per-packet trace file of a run that recorded one (else None).
    """

    def __init__(self, json_text: str, *, trace_path: Path | None = None) -> None:
        document = json.loads(json_text)
        self._json_text = json_text
        self.trace_path = trace_path
        self._flow_records = {record["flow"]: record for record in document["flows"]}
        self.run: dict[str, object] = document["run"]
        self.flows = _table(document, "flows")
        self.classes = _table(document, "classes")
        self.ports = _table(document, "ports")
        self.apps = _table(document, "apps")
        self.users = _table(document, "users")
        self.probes = _table(document, "probes")
        self.spurts = _table(document, "spurts")
        self.hops = _table(document, "hops")
        self.changes = _table(document, "changes")
        self.contracts = _table(document, "contracts")
        # A count that the total rows leave empty: integers that may be missing.
        self.contracts["intervals"] = self.contracts["intervals"].astype("Int64")
        self.dq_intervals = _table(document, "dq_intervals")
        self.voice = _table(document, "voice")
        self.voice_spurts = _table(document, "voice_spurts")
        self.series = _table(document, "series")
        self.class_series = _table(document, "class_series")
        self.delay_distribution = _table(document, "delay_distribution")

    def __repr__(self) -> str:
        return (
            f"<Results {self.run.get('scenario')!r} seed={self.run.get('seed')} "
            f"flows={len(self.flows)} ports={len(self.ports)}>"
        )

    def _repr_html_(self) -> str | None:
        """What a notebook shows: the flows table and the key plot (``qoslab.report``)."""
        return display.html(self)

    def to_json(self) -> str:
        """The results document exactly as the simulator wrote it."""
        return self._json_text

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
        return pd.read_parquet(self.trace_path)

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

    def _files(self, report: str | None) -> dict[str, Callable[[Path], None]]:
        """Each result file's name and the function writing it, ``results.json`` last."""
        files: dict[str, Callable[[Path], None]] = {}
        for table in TABLES:
            frame: pd.DataFrame = getattr(self, table)
            files[f"{table}.csv"] = partial(frame.to_csv, index=False)
            files[f"{table}.parquet"] = partial(frame.to_parquet, index=False)
        if self.trace_path is not None:
            files[TRACE_PARQUET] = partial(_place, self.trace_path)
        if report is not None:
            files[REPORT_HTML] = partial(Path.write_text, data=report, encoding="utf-8")
        files[RESULTS_JSON] = lambda path: path.write_text(self._json_text, encoding="utf-8")
        return files


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


def _table(document: dict, table: str) -> pd.DataFrame:
    """A table of the document as a DataFrame; a table that may be empty (a run without
    applications, probes, budgets ...) keeps its columns when it is."""
    columns = EMPTY_TABLE_COLUMNS.get(table)
    if document[table] or columns is None:
        return pd.DataFrame.from_records(document[table])
    return pd.DataFrame.from_records(document[table], columns=list(columns))


APP_COLUMNS = (
    "app",
    "kind",
    "from",
    "to",
    "users",
    "transfers_started",
    "transfers_completed",
    "completion_mean_s",
    "completion_p50_s",
    "completion_p95_s",
    "delivered_bytes",
    "goodput_bps",
    "jain_index",
    "segments",
    "retransmitted_segments",
    "timeouts",
    "fast_retransmits",
    "control_segments",
)
"""Columns of the apps table, in order."""

USER_COLUMNS = (
    "app",
    "user",
    "transfers_completed",
    "completion_mean_s",
    "delivered_bytes",
    "goodput_bps",
)
"""Columns of the users table, in order."""

PROBE_COLUMNS = (
    "probe",
    "from",
    "to",
    "dscp",
    "sent_packets",
    "returned_packets",
    "loss_pct",
    "rtt_min_ms",
    "rtt_mean_ms",
    "rtt_p50_ms",
    "rtt_p95_ms",
    "rtt_max_ms",
)
"""Columns of the probes table, in order."""

SPURT_COLUMNS = (
    "app",
    "spurt",
    "start_s",
    "duration_s",
    "sent_packets",
    "received_packets",
    "loss_pct",
    "delay_mean_ms",
    "delay_max_ms",
)
"""Columns of the spurts table, in order."""

HOP_COLUMNS = (
    "port",
    "flow",
    "arrived_packets",
    "departed_packets",
    "dropped_packets",
    "delay_min_ms",
    "delay_mean_ms",
    "delay_p50_ms",
    "delay_p95_ms",
    "delay_p99_ms",
    "delay_max_ms",
)
"""Columns of the hops table, in order."""

CHANGE_COLUMNS = (
    "port",
    "at_s",
    "qdisc",
    "cause",
    "handed_over_packets",
    "refused_packets",
)
"""Columns of the changes table, in order."""

CONTRACT_COLUMNS = (
    "point",
    "app",
    "interval_ms",
    "delay_budget_ms",
    "loss_budget_pct",
    "jitter_budget_ms",
    "intervals",
    "consumption_mean",
    "end_to_end_consumption_mean",
    "loss_consumption_mean",
    "delay_consumption_mean",
    "jitter_consumption_mean",
    "in_contract_pct",
    "in_loss_contract_pct",
    "in_delay_contract_pct",
    "in_jitter_contract_pct",
    "offered_packets",
    "transported_packets",
    "discarded_packets",
    "in_flight_packets",
    "in_contract_packets",
    "offered_bps",
    "transported_bps",
    "in_contract_bps",
    "discarded_bps",
    "out_of_contract_bps",
    "link_bps",
    "offered_link_pct",
    "transported_link_pct",
    "in_contract_link_pct",
    "discarded_link_pct",
)
"""Columns of the contracts table, in order."""

DQ_INTERVAL_COLUMNS = (
    "point",
    "app",
    "interval_ms",
    "start_s",
    "packets",
    "lost_packets",
    "loss_pct",
    "delay_mean_ms",
    "delay_variation_ms",
    "consumption",
    "loss_consumption",
    "delay_consumption",
    "jitter_consumption",
    "in_contract",
)
"""Columns of the dq_intervals table, in order."""

VOICE_COLUMNS = (
    "flow",
    "codec",
    "ie",
    "bpl",
    "playout",
    "playout_buffer_ms",
    "spurts",
    "sent_packets",
    "lost_packets",
    "late_packets",
    "played_packets",
    "network_loss_pct",
    "late_pct",
    "effective_loss_pct",
    "burst_ratio",
    "playout_delay_mean_ms",
    "packetization_ms",
    "codec_delay_ms",
    "mouth_to_ear_ms",
    "r",
    "mos",
    "jitter_rfc3550_ms",
    "ipdv_pairs",
    "ipdv_min_ms",
    "ipdv_p50_ms",
    "ipdv_p95_ms",
    "ipdv_p99_ms",
    "ipdv_max_ms",
)
"""Columns of the voice table, in order."""

VOICE_SPURT_COLUMNS = (
    "flow",
    "spurt",
    "start_s",
    "sent_packets",
    "lost_packets",
    "late_packets",
    "played_packets",
    "effective_loss_pct",
    "playout_delay_mean_ms",
    "mouth_to_ear_ms",
    "r",
    "mos",
)
"""Columns of the voice_spurts table, in order."""

SERIES_COLUMNS = (
    "flow",
    "app",
    "start_s",
    "interval_s",
    "delivered_packets",
    "delivered_bps",
    "lost_packets",
    "loss_pct",
    "delay_mean_ms",
    "delay_max_ms",
    "jitter_rfc3550_ms",
)
"""Columns of the series table, in order."""

DROP_REASONS = (
    "tail",
    "cdt",
    "policed",
    "red_early",
    "red_forced",
    "policer_exceed",
    "policer_violate",
    "codel",
    "overlimit",
    "link_loss",
)
"""The drop reasons of the ``dropped_<reason>_packets`` columns, which results list in
alphabetical order."""

CLASS_SERIES_COLUMNS = (
    "port",
    "qdisc",
    "class",
    "since_s",
    "start_s",
    "interval_s",
    "queue_packets",
    "queue_bytes",
    "queue_max_packets",
    "queue_max_bytes",
    "dequeued_packets",
    "dequeued_bytes",
    "dequeued_bps",
    "dropped_packets",
    "dropped_bytes",
    *(f"dropped_{reason}_packets" for reason in sorted(DROP_REASONS)),
)
"""Columns of the class_series table, in order."""

DELAY_DISTRIBUTION_COLUMNS = ("flow", "quantile", "delay_ms")
"""Columns of the delay_distribution table, in order."""

EMPTY_TABLE_COLUMNS = {
    "apps": APP_COLUMNS,
    "users": USER_COLUMNS,
    "probes": PROBE_COLUMNS,
    "spurts": SPURT_COLUMNS,
    "hops": HOP_COLUMNS,
    "changes": CHANGE_COLUMNS,
    "contracts": CONTRACT_COLUMNS,
    "dq_intervals": DQ_INTERVAL_COLUMNS,
    "voice": VOICE_COLUMNS,
    "voice_spurts": VOICE_SPURT_COLUMNS,
    "series": SERIES_COLUMNS,
    "class_series": CLASS_SERIES_COLUMNS,
    "delay_distribution": DELAY_DISTRIBUTION_COLUMNS,
}
"""The columns of each table that a run may leave empty, so an empty table keeps them."""
