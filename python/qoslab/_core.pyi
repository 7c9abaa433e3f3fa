"""The simulator core, compiled from Rust. Use the ``qoslab`` package rather than this module."""

import os
import pathlib
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypedDict, final

__all__ = [
    "MAX_SCENARIO_BYTES",
    "ResultsDocument",
    "RunError",
    "ScenarioError",
    "Simulation",
    "__version__",
    "bench_cases",
    "interface_output",
    "ios_check",
    "ios_explain",
    "ios_flavour",
    "ios_from_yaml",
    "ios_interfaces",
    "ios_migrate",
    "ios_read",
    "ios_to_yaml",
    "json_schema",
    "parse_override",
    "parse_rate_bps",
    "parse_size_bytes",
    "scenario_counts",
    "sweep_plan",
    "table_schemas",
    "tc_from_yaml",
    "tc_import",
]

__version__: str
"""Version of the simulator core."""

MAX_SCENARIO_BYTES: int
"""Longest scenario text the core reads (16 MiB); a longer file is refused unread."""

class ScenarioError(ValueError):
    """A scenario that cannot be loaded.

    The message is one paragraph: ``file:line:column: key.path: what is wrong. How to fix
    it.`` The same parts are attributes, ``kind`` first: a stable name for what kind of
    problem it is.
    """

    kind: Literal[
        "syntax",
        "unknown_key",
        "unknown_value",
        "unknown_name",
        "missing_key",
        "wrong_type",
        "invalid",
        "limit",
        "file",
    ]
    origin: str | None
    key_path: str
    line: int | None
    column: int | None
    message: str
    hint: str | None

class RunError(RuntimeError):
    """A run that broke one of the simulator's invariants, such as packet conservation
    (``kind`` ``invariant``), that was stopped because its packets in flight outgrew the
    memory allowed (``stopped``), or whose packet capture could not be written
    (``capture``)."""

    kind: Literal["invariant", "stopped", "capture"]
    message: str

def bench_cases() -> list[tuple[str, str, list[str]]]:
    """The benchmark cases: name, scenario YAML and overrides of each."""

def json_schema() -> str:
    """The JSON Schema of the scenario format, as pretty-printed JSON text."""

class ColumnSchema(TypedDict):
    """One column of a result table: ``key`` is its place (1 first) in the columns that name
    a row within one run, ``None`` when it is not one of them; ``descriptive`` whether it
    describes the row from the scenario rather than measures it."""

    name: str
    type: Literal["int", "float", "str", "bool", "list[str]"]
    nullable: bool
    unit: str
    key: int | None
    descriptive: bool
    description: str

def table_schemas() -> dict[str, list[ColumnSchema]]:
    """The schema of every result table, ``run`` first, in the order of the results
    document: each table's columns in order, with their type as written to JSON and CSV,
    whether a value may be missing, their unit (``""`` for none) and a description."""

def parse_rate_bps(text: str) -> int:
    """A bit rate as a scenario writes it (``512kbps``, ``2 Mbit/s``) in bit/s; raise
    ``ValueError`` naming what is wrong and how to write it."""

def parse_size_bytes(text: str) -> int:
    """A size as a scenario writes it (``12000B``, ``12.5kB``) in bytes; raise
    ``ValueError`` naming what is wrong and how to write it."""

def parse_override(text: str) -> tuple[str, str]:
    """Split one ``key.path=value`` override; raise ``ScenarioError`` if it has no ``=``."""

Override = tuple[str, str] | tuple[str, str, str]
"""``(key.path, value)``, or ``(key.path, value, source)`` where ``source`` names the place
the value was written (``"s.yaml:14:31: sweep.vary.topology.links.1.rate[1]"``): an error in
the value is reported there instead of at ``origin (--set key.path=value)``."""

def scenario_counts(
    text: str, origin: str, overrides: Sequence[Override] = ..., variant: str | None = None
) -> tuple[str, int, int, int]:
    """The name of a scenario and its numbers of nodes, links and flows (read, not built),
    or of its variant ``variant``."""

def interface_output(
    text: str,
    origin: str,
    interface: str,
    overrides: Sequence[Override] = ...,
    variant: str | None = None,
) -> str:
    """Interface ``interface`` (``NODE.PEER``) of the scenario (or of its variant
    ``variant``) as JSON text: ``output``, its
    output policy as scenario data (``null`` for the default FIFO; from the IOS configuration
    that sets it, in the form ``qoslab ios yaml`` writes), ``from_ios``, ``line_rate_bps``
    (its link's physical rate at the start of the run), ``shaper_rate_bps`` (the rate of a
    shaper at its root; ``null`` without one) and ``peer_input`` (the input policy written
    for the peer's interface from the node; ``null`` without one). Raises
    ``ScenarioError`` where a run would refuse the scenario."""

def sweep_plan(text: str, origin: str) -> str:
    """The scenario's ``sweep:`` section and variants as JSON text, after checking the whole
    scenario (raises ``ScenarioError`` with a located message).

    The object has ``vary`` (a list of ``{"key", "values"}``, each value
    ``{"value", "location", "key_path", "source"}``: the value as YAML text for an override,
    ``origin:line:column``, ``sweep.vary.KEY[i]``, and the label to pass as an override's
    source), ``zip`` (lists of keys), ``variants`` (names, ``"base"`` for the scenario as
    written, or ``None``), ``replications`` (an int or ``None``) and ``defined_variants``
    (every variant's name)."""

def ios_read(path: str) -> str:
    """The text of a configuration file. Raises ``ScenarioError`` for a missing file, a
    folder, a file above 16 MiB or text that is not UTF-8 (naming the byte offset)."""

def ios_check(
    text: str, scheduler: str | None = None
) -> list[tuple[str, int, int, str, str | None]]:
    """Every finding of a Cisco IOS configuration, each interface resolved and built as a
    run builds it: ``(severity, line, column, message, hint)``, severity ``"warning"`` (a
    line not modelled) or ``"error"``. ``scheduler`` (``"pre-hqf"``, ``"hqf"``, ``"xe"``)
    names the router's class scheduler; by default it is read from the configuration."""

def ios_flavour(text: str, scheduler: str | None = None) -> tuple[str, str] | None:
    """The class scheduler the configuration runs under and why: ``(name, reason)``, or
    ``None`` when its syntax contradicts itself or ``scheduler`` (``ios_check`` says where)."""

def ios_interfaces(text: str) -> list[str]:
    """The configuration's interfaces, by their canonical names (``Serial0/1/1``)."""

def ios_migrate(
    text: str,
    interface: str,
    rate: str | None = None,
    origin: str = "<text>",
    to: str = "xe",
) -> tuple[str, list[str]]:
    """The configuration rewritten so that the interface's policy shares a congested link
    under the ``to`` scheduler (``"xe"``, or ``"hqf"``: classic IOS 15) as under its own, and
    each change with its line. Raises ``ScenarioError`` naming ``origin:line:column`` for
    what cannot be migrated."""

def ios_explain(
    text: str,
    interface: str,
    rate: str | None = None,
    origin: str = "<text>",
    scheduler: str | None = None,
) -> str:
    """What the interface's configuration does, in words and bit rates; ``rate`` is the
    link's physical rate (``"128kbps"``). Raises ``ScenarioError`` naming
    ``origin:line:column`` if a run would refuse the interface."""

def ios_to_yaml(
    text: str, interface: str, origin: str = "<text>", scheduler: str | None = None
) -> str:
    """The interface as the YAML of a scenario's ``interfaces.NODE.PEER`` entry. Raises
    ``ScenarioError`` naming ``origin:line:column`` if a run would refuse the interface."""

def ios_from_yaml(
    text: str,
    origin: str,
    interface: str,
    name: str | None = None,
    overrides: Sequence[Override] = ...,
    variant: str | None = None,
) -> str:
    """Interface ``interface`` (``"NODE.PEER"``) of the scenario ``text`` as Cisco IOS
    configuration text: access lists, class maps, policy maps, priority or queue list and
    the interface, under IOS name ``name`` (default ``Serial0/0/0`` on HDLC and PPP links,
    ``GigabitEthernet0/0`` on others). ``origin`` names the scenario in errors, and relative
    file names are read from its folder; ``overrides`` and ``variant`` choose the form of
    the scenario as for a run. Raises ``ScenarioError`` naming the scenario's place and key
    path when a run would refuse the scenario, or IOS cannot express the interface."""

def tc_from_yaml(
    text: str,
    origin: str,
    interface: str,
    device: str | None = None,
    overrides: Sequence[Override] = ...,
    variant: str | None = None,
) -> str:
    """The output policy of interface ``interface`` (``"NODE.PEER"``) of the scenario
    ``text`` as a shell script of ``tc`` commands for Linux device ``device`` (default
    ``eth0``): qdiscs, classes and u32 filters. ``origin`` names the scenario in errors, and
    relative file names are read from its folder; ``overrides`` and ``variant`` choose the
    form of the scenario as for a run. Raises ``ScenarioError`` naming the scenario's place
    and key path when a run would refuse the scenario, or tc cannot express the policy."""

def tc_import(
    qdiscs: tuple[str, str],
    classes: tuple[str, str],
    filters: Sequence[tuple[tuple[str, str], str | None]],
) -> str:
    """A Linux device's output policy from what tc shows of it, as the YAML of a scenario
    interface entry: ``qdiscs`` the output of ``tc -j -d -r qdisc show`` and ``classes`` of
    ``tc -d -r class show`` (or ``tc -j -d class show``), each with the name errors give it;
    ``filters`` the outputs of ``tc -j filter show ... parent H:``, each with its name and the
    parent handle (or None when its entries say). Raises ``ScenarioError`` naming the output
    and the entry that cannot be read."""

@final
class Simulation:
    """A scenario parsed, validated and built, ready to run.

    Raises ``ScenarioError`` if the scenario cannot be loaded. ``origin`` names the scenario
    in error messages (a file name, or ``"<dict>"``). ``variant`` selects one of the
    scenario's ``variants`` (``None`` or ``"base"``: the scenario as written); it is applied
    before the overrides. ``overrides`` are ``(key.path, value)`` pairs or
    ``(key.path, value, source)`` triples applied to the document before validation, each
    value read as YAML. ``seed`` and ``replication``, when given, replace the scenario's
    ``run.seed`` and ``run.replication``. ``max_memory_bytes`` and ``max_events`` bound what
    the run may take (the core's defaults, 4 GiB and 10^10 events, when not given): a
    scenario beyond them raises ``ScenarioError``. ``trace``: ``None`` records the per-packet
    trace the scenario's ``measure.trace`` asks for, ``True`` records one (every flow at every
    port unless ``measure.trace`` narrows it), ``False`` none.
    """

    def __new__(
        cls,
        text: str,
        origin: str,
        overrides: Sequence[Override] = ...,
        seed: int | None = None,
        max_memory_bytes: int | None = None,
        max_events: int | None = None,
        variant: str | None = None,
        replication: int | None = None,
        trace: bool | None = None,
    ) -> Simulation: ...
    @property
    def scenario_sha256(self) -> str:
        """SHA-256 (64 hex digits) of the effective scenario (after the variant and the
        overrides, with the seed and replication the run uses) and of the files its build
        read; equal hashes and versions give equal results."""

    @property
    def now_ns(self) -> int:
        """Simulated time reached so far, in nanoseconds."""

    @property
    def end_ns(self) -> int:
        """Simulated time at which the run ends (warm-up plus duration), in nanoseconds."""

    def capture_pcap(self, folder: str | os.PathLike[str]) -> list[pathlib.Path]:
        """Capture the frames of the ports ``measure.pcap`` names (every port without it)
        into one pcap file per port in ``folder``, created if need be; return the files'
        paths. Raises ``OSError`` when the folder or a file cannot be created and
        ``RuntimeError`` once the run has advanced."""

    @property
    def traces(self) -> bool:
        """Whether the run records a per-packet trace."""

    @property
    def capture_bytes_bound(self) -> int:
        """The most the packet capture can write, bytes (the traffic's estimate per port,
        within ``measure.pcap.max_bytes``)."""

    @property
    def trace_rows_bound(self) -> int:
        """The most rows the per-packet trace can record (0 without a trace)."""

    def trace_dictionaries(self) -> dict[str, list[str]]:
        """The names the trace's index columns ``event``, ``reason``, ``node``, ``port`` and
        ``flow`` stand for, each a list in index order."""

    def advance(
        self, until_ns: int, trace_sink: Callable[[dict[str, Any]], object] | None = None
    ) -> None:
        """Process every event before ``until_ns`` (at most to ``end_ns``), releasing the GIL.

        Afterwards ``now_ns`` is ``until_ns``, or ``end_ns`` if that comes first. Pending
        signals are handled every few tens of milliseconds (Ctrl-C raises
        ``KeyboardInterrupt``); raises ``RunError`` if the run was stopped at its memory guard.
        Full chunks of the per-packet trace (up to 65,536 rows) go to ``trace_sink`` as they
        fill: a dict of column name to the column's little-endian bytes, with ``rows`` and
        ``class_names``; without a sink they are discarded.
        """

    def finish(self, trace_sink: Callable[[dict[str, Any]], object] | None = None) -> str:
        """Run to the end, hand the rest of the trace to ``trace_sink``, check the invariants
        and return the results as JSON text.

        Raises ``RunError`` if an invariant is broken. The simulation is spent afterwards:
        any further call raises ``RuntimeError``.
        """

    def finish_columns(
        self, trace_sink: Callable[[dict[str, Any]], object] | None = None
    ) -> tuple[str, list[tuple[str, int, list[tuple[str, bytes | None, bytes, bytes | None]]]]]:
        """``finish``, with the results as columns: the ``run`` record and the inputs as JSON
        text (``{"run": ..., "inputs": ...}``), then every other table in the document's
        order as ``(name, rows, columns)``, each column ``(name, validity, values, text)`` in
        Apache Arrow's memory layout: the validity bitmap (``None`` when every row has a
        value), the values (little-endian 64-bit integers or floats, bit-packed booleans, or
        a text column's 64-bit offsets) and a text column's UTF-8 bytes (else ``None``).
        """

    def finish_document(
        self, trace_sink: Callable[[dict[str, Any]], object] | None = None
    ) -> tuple[
        str,
        list[tuple[str, int, list[tuple[str, bytes | None, bytes, bytes | None]]]],
        ResultsDocument,
    ]:
        """``finish_columns``, and the results kept for their JSON document, which is made
        only when asked for (``ResultsDocument``)."""

@final
class ResultsDocument:
    """A finished run's results, held until their JSON document is asked for."""

    def text(self) -> str:
        """The results document as JSON text, byte for byte what ``finish`` returns."""

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the document to a new file at ``path``, as it is made; raises ``OSError``
        (``FileExistsError`` when anything, a link included, is already there)."""
