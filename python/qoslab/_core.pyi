"""The simulator core, compiled from Rust. Use the ``qoslab`` package rather than this module."""

__version__: str
"""Version of the simulator core."""

"""The headline benchmark scenario (FIFO on its bottleneck), as YAML text."""

BENCH_CASES: list[tuple[str, str, list[str]]]
"""The benchmark's variants: a name and the ``key.path=value`` overrides that select it."""

MAX_SCENARIO_BYTES: int
"""Longest scenario text the core reads (16 MiB); a longer file is refused unread."""

class ScenarioError(ValueError):
    """A scenario that cannot be loaded.

    The message is one paragraph: ``file:line:column: key.path: what is wrong. How to fix
    it.``
    """

class RunError(RuntimeError):
    """A run that broke one of the simulator's invariants, such as packet conservation, or
    that was stopped because its packets in flight outgrew the memory allowed."""

def json_schema() -> str:
    """The JSON Schema of the scenario format, as pretty-printed JSON text."""

def parse_override(text: str) -> tuple[str, str]:
    """Split one ``key.path=value`` override; raise ``ScenarioError`` if it has no ``=``."""

def scenario_counts(
    text: str, origin: str, overrides: list[tuple[str, str]] = ...
) -> tuple[int, int, int]:
    """The numbers of nodes, links and flows in a scenario document (read, not built)."""

def ios_read(path: str) -> str:
    """The text of a configuration file. Raises ``ScenarioError`` for a missing file, a
    folder, a file above 16 MiB or text that is not UTF-8 (naming the byte offset)."""

def ios_check(text: str) -> list[tuple[str, int, int, str, str | None]]:
    """Every finding of a Cisco IOS configuration, each interface resolved and built as a
    run builds it: ``(severity, line, column, message, hint)``, severity ``"warning"`` (a
    line not modelled) or ``"error"``."""

def ios_interfaces(text: str) -> list[str]:
    """The configuration's interfaces, by their canonical names (``Serial0/1/1``)."""

def ios_explain(text: str, interface: str, rate: str | None = None, origin: str = "<text>") -> str:
    """What the interface's configuration does, in words and bit rates; ``rate`` is the
    link's physical rate (``"128kbps"``). Raises ``ScenarioError`` naming
    ``origin:line:column`` if a run would refuse the interface."""

def ios_to_yaml(text: str, interface: str, origin: str = "<text>") -> str:
    """The interface as the YAML of a scenario's ``interfaces.NODE.PEER`` entry. Raises
    ``ScenarioError`` naming ``origin:line:column`` if a run would refuse the interface."""

class Simulation:
    """A scenario parsed, validated and built, ready to run.

    Raises ``ScenarioError`` if the scenario cannot be loaded. ``origin`` names the scenario
    in error messages (a file name, or ``"<dict>"``). ``overrides`` are ``(key.path, value)``
    pairs applied to the document before validation, each value read as a YAML scalar.
    ``seed``, when given, replaces the scenario's master seed. ``max_memory_bytes`` and
    ``max_events`` bound what the run may take (the core's defaults, 4 GiB and 10^10
    events, when not given): a scenario beyond them raises ``ScenarioError``.
    """

    def __init__(
        self,
        text: str,
        origin: str,
        overrides: list[tuple[str, str]] = ...,
        seed: int | None = None,
        max_memory_bytes: int | None = None,
        max_events: int | None = None,
    ) -> None: ...
    @property
    def now_ns(self) -> int:
        """Simulated time reached so far, in nanoseconds."""

    @property
    def end_ns(self) -> int:
        """Simulated time at which the run ends (warm-up plus duration), in nanoseconds."""

    def advance(self, until_ns: int) -> None:
        """Process every event before ``until_ns`` (at most to ``end_ns``), releasing the GIL.

        Afterwards ``now_ns`` is ``until_ns``, or ``end_ns`` if that comes first. Pending
        signals are handled every few tens of milliseconds (Ctrl-C raises
        ``KeyboardInterrupt``); raises ``RunError`` if the run was stopped at its memory guard.
        """

    def finish(self) -> str:
        """Run to the end, check the invariants and return the results as JSON text.

        Raises ``RunError`` if an invariant is broken. The simulation is spent afterwards:
        any further call raises ``RuntimeError``.
        """
