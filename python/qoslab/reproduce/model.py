"""What a study is, as qoslab reproduces it: the experiments, metrics, published values,
tables and figures of a study folder, and the names its files may use.

:mod:`qoslab.reproduce.study` reads a folder into these (and checks it); the rest of
:mod:`qoslab.reproduce` runs, judges and writes from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from qoslab.analysis.verdict import Claim

STUDIES = Path(__file__).resolve().parent.parent / "studies"
"""The studies installed with qoslab."""

PER_RUN = ("one", "max", "min", "mean", "sum", "count", "range", "share")
"""How a metric reduces the rows one run has at its point: the value of the single row, or
their largest, smallest, mean, sum, or how many there are; ``range``, the largest less the
smallest (a rise over a window of a series); ``share``, the rows matching the metric's
``part`` as a percentage of all its rows (one class's share of a port)."""

BOUNDS = ("min", "max", "above", "below")
"""The bounds a ``where`` condition on a numeric column may give: ``min`` ≤ value ≤ ``max``,
``above`` < value < ``below``."""

WHY_KINDS = {
    "testbed": "a testbed parameter the study does not give",
    "study": "the study's own inconsistency",
    "model": "a gap in qoslab's model",
    "definition": "a metric the study does not define",
    "spread": "a difference the replications cannot resolve",
}
"""The kinds of reason a value is not reproduced, and how the documents name them."""

VARIANT = "variant"
"""The name by which ``at``, rules and figures refer to an experiment's variants."""

LAYOUTS = ("findings", "trials", "grid")
FIGURE_KINDS = ("series", "bars", "plot", "timeline")
TRIAL_ROWS = ("M", "SD", "M-X", "M+X", "Max")


@dataclass(frozen=True)
class Axis:
    """A named dimension of an experiment: a scenario key, the values it takes (``settings``)
    and the name each is shown and referred to by (``values``). An axis may set further keys
    together with the first (``also``: each key with its setting at every value), as a
    sweep's zipped keys: a link's rate and the configuration written for that rate."""

    name: str
    key: str
    values: tuple[str, ...]
    settings: tuple[str, ...]
    also: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """Every scenario key the axis sets, the first being ``key``."""
        return (self.key, *(key for key, _ in self.also))

    def setting(self, value: str) -> str:
        """The scenario value of the point called ``value`` (of the first key)."""
        return self.settings[self.values.index(value)]

    def settings_at(self, value: str) -> dict[str, str]:
        """Every key the axis sets, with its scenario value at the point called ``value``."""
        k = self.values.index(value)
        return {self.key: self.settings[k], **{key: column[k] for key, column in self.also}}


@dataclass(frozen=True)
class Experiment:
    """One sweep: ``scenario`` (a file of the folder) over the product of ``axes``, in each
    of ``variants`` (None: the scenario as written), with ``overrides`` applied to every
    run, ``replications`` times."""

    name: str
    scenario: Path
    about: str
    axes: tuple[Axis, ...]
    variants: tuple[str, ...] | None
    overrides: dict[str, str]
    replications: int | None
    quick_overrides: dict[str, str] = field(default_factory=dict)
    """What ``--quick`` sets in this experiment's runs, on top of the study's quick
    overrides (a run of a long timeline made cheaper)."""
    quick_variants: tuple[str, ...] | None = None
    """The variants ``--quick`` runs (None: all of them)."""

    def axis(self, name: str) -> Axis | None:
        return next((axis for axis in self.axes if axis.name == name), None)

    def points(self, name: str) -> tuple[str, ...] | None:
        """The points a rule or a figure can run along: the values of the axis ``name``,
        or the experiment's variants for ``variant`` (None when there is no such
        dimension)."""
        if name == VARIANT:
            return self.variants
        axis = self.axis(name)
        return axis.values if axis is not None else None

    def dimensions(self) -> str:
        """The names a rule or a figure can run along, for messages."""
        names_ = [axis.name for axis in self.axes]
        if self.variants is not None:
            names_.append(VARIANT)
        return ", ".join(names_) or "none"


@dataclass(frozen=True)
class Metric:
    """A quantity read from the runs of ``experiment``: in result table ``table``, the rows
    matching ``where``; the value ``column`` (or the expression ``expr`` over the table's
    columns) of each, reduced per run by ``per_run``; summed up over replications."""

    name: str
    experiment: str
    table: str
    where: dict[str, object]
    column: str | None
    expr: str | None
    per_run: str
    unit: str
    label: str
    part: dict[str, object] = field(default_factory=dict)
    """With ``per_run: share``, the rows (among those matching ``where``) whose share is
    taken."""
    failure: dict[str, object] = field(default_factory=dict)
    """An order of failure (``over``: the axis whose values go from the mildest condition to
    the harshest; ``min_in_contract_pct``: the failure criterion, else a mean budget
    consumption above 1): the metric is, in each replication, the number of applications
    that fail before one declared to fail earlier (:func:`qoslab.order_of_failure` over the
    ``contracts`` rows matching ``where`` at each value of the axis)."""

    @property
    def failure_over(self) -> str | None:
        """The axis an order-of-failure metric runs along (None for other metrics)."""
        return str(self.failure["over"]) if self.failure else None


@dataclass(frozen=True)
class Why:
    """Why a value is not reproduced: its kind (:data:`WHY_KINDS`) and the explanation,
    with the arithmetic where there is some."""

    kind: str
    text: str


@dataclass(frozen=True)
class Published:
    """One published value or claim and the rule that judges it."""

    id: str
    cite: str
    says: str
    metric: str | None
    at: dict[str, str]
    claim: Claim | None
    unit: str
    conclusion: Claim | None
    conclusion_metric: str | None
    why: Why | None
    printed: dict[str, float] = field(default_factory=dict)
    shown: str | None = None
    role: str = "result"
    """What the value is (:data:`qoslab.analysis.verdict.ROLES`): a result, counted among
    the verdicts; an input the study configured; a value its own data contradict; derived
    from other published values, or a duplicate of one (``of``)."""
    of: tuple[str, ...] = ()

    @property
    def modelled(self) -> bool:
        return self.claim is not None


@dataclass(frozen=True)
class Block:
    """One block of a table in the trials layout: a label, and the published value of each
    of its columns."""

    label: str
    columns: dict[str, str]


@dataclass(frozen=True)
class Reading:
    """Another reading of a findings table's rows, shown beside qoslab's value with its own
    verdict: the point (``variant``, axis values) that replaces the row's own in ``at``,
    and the metrics that replace the rows' (``metrics``: metric → metric), e.g. another
    definition of the same quantity."""

    label: str
    at: dict[str, str]
    metrics: dict[str, str]


@dataclass(frozen=True)
class Table:
    """A table of the study in its layout: ``findings`` (one published value per row),
    ``trials`` (per block, the trials T1..Tn and their statistics, published beside
    qoslab's) or ``grid`` (the study's own rows and columns, each cell a published value
    beside qoslab's with its verdict)."""

    name: str
    title: str
    layout: str
    rows: tuple[str, ...] = ()
    blocks: tuple[Block, ...] = ()
    also: tuple[Reading, ...] = ()
    """Findings layout: further readings shown beside qoslab's value, each judged by the
    same rules (:func:`qoslab.reproduce.judged.judge_reading`)."""
    notes: tuple[str, ...] = ()
    """Notes printed under the table: how its published numbers were read (repairs of
    the text, the study's own arithmetic)."""
    columns: tuple[str, ...] = ()
    """Grid layout: the column headings."""
    grid: tuple[tuple[str, tuple[str | None, ...]], ...] = ()
    """Grid layout: each row's label and, per column, the published value in that cell
    (None for a cell the study left empty)."""


@dataclass(frozen=True)
class Figure:
    """A figure of the study, redrawn from qoslab's runs: a ``series`` or ``bars`` figure of
    the study's metrics along the axis ``over``, or a ``plot`` — one of qoslab's own plots
    (``qoslab.plot``, named by ``plot``, with ``args``) of an experiment's sweep, or of one
    run of it when ``replication`` is given (at the point ``at``)."""

    name: str
    title: str
    cite: str
    kind: str
    metrics: tuple[str, ...] = ()
    over: str | None = None
    points: tuple[str, ...] | None = None
    group: str | None = None
    at: dict[str, str] = field(default_factory=dict)
    log: bool = False
    plot: str | None = None
    experiment: str | None = None
    args: dict[str, object] = field(default_factory=dict)
    replication: int | None = None
    panels: tuple[tuple[str, ...], ...] = ()
    """A ``timeline``: the metrics of each panel, one line each."""
    clock: str | None = None
    """A ``timeline``: the time of day at the run's start (``07:54``), to label the time
    axis with times of day."""
    trace: dict[str, object] | bool | None = None
    """A ``plot`` of one run: run it once more with a per-packet trace (a ``measure.trace``
    section, or ``True`` for every flow at every port) for a plot drawn from the trace."""


@dataclass(frozen=True)
class Quick:
    """What ``--quick`` changes: fewer replications and overrides (a shorter run)."""

    replications: int
    overrides: dict[str, str]


@dataclass(frozen=True)
class Sensitivity:
    """An assumption a study folder makes for a parameter the study does not give, as a
    range: the scenario key(s) it sets and the settings at the two ends of the plausible
    range (``ends``, an axis of two labelled values), why that range (``about``, cited),
    and the experiments it concerns. Every verdict is judged again at each end."""

    name: str
    about: str
    ends: Axis
    experiments: tuple[str, ...]
    own: str | None = None
    """The end at which the study folder's own runs already are (its label), not run
    again: every outcome there is the study's own. None when neither end is the folder's
    value."""
    variants: tuple[str, ...] | None = None
    """The variants run at the ends: each experiment runs those of its variants named here
    (None: all of them); every value judged on the range's experiments is read at a variant
    it runs (checked when the study is read)."""

    def scope(self) -> str:
        """What the range is run on, in words: ``experiments: march-16; variants: base; the
        folder's own runs are at 60 s``."""
        text = f"experiments: {', '.join(self.experiments)}"
        if self.variants is not None:
            text += f"; variants: {', '.join(self.variants)}"
        if self.own is not None:
            text += f"; the folder's own runs are at {self.own}"
        return text

    @property
    def run_ends(self) -> tuple[str, ...]:
        """The ends whose runs are made: both, less the folder's own."""
        return tuple(end for end in self.ends.values if end != self.own)


@dataclass(frozen=True)
class Study:
    """A study folder, read and checked."""

    name: str
    title: str
    source: str
    about: str
    folder: Path
    replications: int
    interval: str
    quick: Quick
    experiments: dict[str, Experiment]
    metrics: dict[str, Metric]
    published: dict[str, Published]
    tables: tuple[Table, ...]
    figures: tuple[Figure, ...]
    assumptions: tuple[str, ...]
    sensitivity: tuple[Sensitivity, ...] = ()
