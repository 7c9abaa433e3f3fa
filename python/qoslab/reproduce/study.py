"""A study as qoslab reproduces it: the folder that holds it, read and checked.

A study folder (``qoslab/studies/<short-name>/``) holds:

* ``study.yaml`` — the manifest: what the study is and where it was published, the
  experiments (each a scenario of the folder swept over named axes, in variants, with a
  number of replications), the metrics (how a quantity is read from each run's result
  tables and summed up over the replications), the study's tables in its own layout, its
  figures, and the assumptions qoslab had to make;
* ``published.yaml`` — the published values, one entry each: its citation, what it says
  (in qoslab's words), the metric and point it concerns, the rule that judges it
  (:mod:`qoslab.analysis.verdict`), and for a value that is not reproduced, why (read by
  :mod:`qoslab.reproduce.published`);
* the scenarios the experiments run.

Every setting in a scenario comes from the study's text (cited in a comment) or is a stated
assumption in the manifest. :func:`load` checks the folder and names the place of each
problem (``file:line:column: key.path``) and how to fix it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import cast

from qoslab.plot import KINDS
from qoslab.reproduce.located import Located, StudyError, read
from qoslab.reproduce.model import (
    BOUNDS,
    FIGURE_KINDS,
    LAYOUTS,
    PER_RUN,
    STUDIES,
    VARIANT,
    Axis,
    Block,
    Experiment,
    Figure,
    Metric,
    Published,
    Quick,
    Reading,
    Sensitivity,
    Study,
    Table,
)
from qoslab.reproduce.points import axis_points, check_point, point_at, scalar
from qoslab.reproduce.published import published_value


def names() -> list[str]:
    """The short names of the studies installed with qoslab."""
    return sorted(p.name for p in STUDIES.iterdir() if (p / "study.yaml").is_file())


def load(name_or_folder: str | Path) -> Study:
    """The installed study called ``name_or_folder``, or the study in that folder (a path
    with a ``/``, such as ``./my-study``, is always a folder)."""
    text = str(name_or_folder)
    installed = STUDIES / text
    if "/" not in text and (installed / "study.yaml").is_file():
        folder = installed
    else:
        folder = Path(name_or_folder)
        if not (folder / "study.yaml").is_file():
            known = ", ".join(names()) or "none"
            raise StudyError(
                f"no study `{text}`: the installed studies are {known} "
                "(or give the folder of a study.yaml, e.g. ./my-study)"
            )
    manifest = read(folder / "study.yaml", f"{folder.name}/study.yaml")
    published = read(folder / "published.yaml", f"{folder.name}/published.yaml")
    return _study(folder, manifest, published)


def _study(folder: Path, doc: Located, pub: Located) -> Study:
    doc.keys(
        ("name", "title", "source", "about", "replications", "quick", "experiments", "metrics"),
        ("interval", "tables", "figures", "assumptions", "sensitivity"),
    )
    m = doc.mapping()
    if m["name"].text() != folder.name:
        raise m["name"].error(
            f"the study is called `{m['name'].value}` but its folder `{folder.name}`",
            "name the folder after the study",
        )
    interval = m["interval"].text() if "interval" in m else "t"
    if interval not in ("t", "normal"):
        raise m["interval"].error("expected `t` or `normal`")
    experiments = {
        key: _experiment(key, item, folder) for key, item in m["experiments"].mapping().items()
    }
    metrics = {key: _metric(key, item, experiments) for key, item in m["metrics"].mapping().items()}
    pub.keys(("values",))
    published: dict[str, Published] = {}
    places: dict[str, Located] = {}
    for item in pub.mapping()["values"].sequence():
        row = published_value(item, metrics, experiments)
        if row.id in published:
            raise item.mapping()["id"].error(
                f"`{row.id}` is used twice", "give each value its own id"
            )
        published[row.id] = row
        places[row.id] = item.mapping()["id"]
    for row in published.values():
        for source in row.of:
            if source not in published or source == row.id:
                raise places[row.id].error(
                    f"`{row.id}` is {row.role} of `{source}`, which is not another published value",
                    f"name other values' ids in `of`: {', '.join(list(published)[:6])}, ...",
                )
    tables = tuple(
        _table(t, published, metrics) for t in (m["tables"].sequence() if "tables" in m else [])
    )
    figures = tuple(
        _figure(f, metrics, experiments)
        for f in (m["figures"].sequence() if "figures" in m else [])
    )
    for kind, made in (("table", tables), ("figure", figures)):
        seen: set[str] = set()
        for named in made:
            if named.name in seen:
                raise doc.error(f"two {kind}s are called `{named.name}`", "give each its own name")
            seen.add(named.name)
    in_tables = {
        row
        for t in tables
        for row in (
            *t.rows,
            *(c for b in t.blocks for c in b.columns.values()),
            *(c for _, cells in t.grid for c in cells if c is not None),
        )
    }
    for row in published.values():
        if row.id not in in_tables:
            raise places[row.id].error(
                f"`{row.id}` is in no table of study.yaml",
                "list it in a table's `rows`, a block's `columns` or a grid's `cells`, "
                "so that it gets a row",
            )
    quick = m["quick"]
    quick.keys(("replications",), ("set",))
    q = quick.mapping()
    assumptions = m["assumptions"].sequence() if "assumptions" in m else []
    return Study(
        name=folder.name,
        title=m["title"].text(),
        source=m["source"].text(),
        about=m["about"].text(),
        folder=folder,
        replications=m["replications"].count(),
        interval=interval,
        quick=Quick(q["replications"].count(), _overrides(q.get("set"))),
        experiments=experiments,
        metrics=metrics,
        published=published,
        tables=tables,
        figures=figures,
        assumptions=tuple(a.text() for a in assumptions),
        sensitivity=tuple(
            _sensitivity(name, item, experiments, published, metrics)
            for name, item in (m["sensitivity"].mapping().items() if "sensitivity" in m else [])
        ),
    )


def _sensitivity(
    name: str,
    item: Located,
    experiments: dict[str, Experiment],
    published: dict[str, Published],
    metrics: dict[str, Metric],
) -> Sensitivity:
    """An assumption as a range: ``about`` (why these ends, cited), the scenario ``key`` (or
    ``keys``) and its two ``values`` (the ends), the ``experiments`` it concerns (default
    every experiment), the end that is the folder's ``own`` value (its runs are not made
    again) and the ``variants`` run at the ends (default all; each experiment runs those of
    its variants the list names, and every value judged on it must be read at one of
    them)."""
    item.keys(("about", "values"), ("key", "keys", "experiments", "own", "variants"))
    m = item.mapping()
    ends = _axis(name, item, ("about", "experiments", "own", "variants"))
    if len(ends.values) != 2:
        raise m["values"].error(
            f"a range has two ends, not {len(ends.values)}",
            "give the low and the high end of the plausible values, each with a label",
        )
    places = m["experiments"].sequence() if "experiments" in m else []
    for place in places:
        if place.text() not in experiments:
            raise place.error(
                f"no experiment `{place.value}`", f"the experiments are: {', '.join(experiments)}"
            )
    chosen = tuple(place.text() for place in places) or tuple(experiments)
    own = m["own"].text() if "own" in m else None
    if own is not None and own not in ends.values:
        raise m["own"].error(
            f"`{own}` is not one of the range's ends",
            f"name the end that is the folder's own value: {', '.join(ends.values)}",
        )
    variants = None
    if "variants" in m:
        variants = tuple(v.text() for v in m["variants"].sequence())
        known = {e: experiments[e].variants or ("base",) for e in chosen}
        for place, variant in zip(m["variants"].sequence(), variants, strict=True):
            if not any(variant in mine for mine in known.values()):
                raise place.error(
                    f"`{variant}` is not a variant of the range's experiments",
                    "their variants are: "
                    + "; ".join(f"{e}: {', '.join(mine)}" for e, mine in known.items()),
                )
        for experiment, mine in known.items():
            if not set(mine) & set(variants):
                raise m["variants"].error(
                    f"the range runs none of experiment `{experiment}`'s variants",
                    f"add one of {', '.join(mine)}, or leave the experiment out",
                )
        _check_read_at(name, m["variants"], variants, chosen, published, metrics)
    return Sensitivity(name, m["about"].text(), ends, chosen, own, variants)


def _check_read_at(
    name: str,
    place: Located,
    variants: tuple[str, ...],
    chosen: tuple[str, ...],
    published: dict[str, Published],
    metrics: dict[str, Metric],
) -> None:
    """Refuses a range run on some variants only when a value read from its experiments
    needs another: that value could not be judged again at the ends."""
    for row in published.values():
        names = (row.metric, row.conclusion_metric)
        if not any(n is not None and metrics[n].experiment in chosen for n in names):
            continue
        needed = {row.at[VARIANT]} if VARIANT in row.at else set()
        for claim in (row.claim, row.conclusion):
            if claim is not None and claim.over == VARIANT:
                needed.update(point for group in claim.order for point in group)
        missing = sorted(needed - set(variants))
        if missing:
            raise place.error(
                f"range `{name}` runs variants {', '.join(variants)}, but `{row.id}` is read "
                f"at {', '.join(missing)}",
                "add those variants to the range's `variants`, or leave `variants` out",
            )


def _overrides(item: Located | None) -> dict[str, str]:
    if item is None:
        return {}
    return {key: scalar(value) for key, value in item.mapping().items()}


def _experiment(name: str, item: Located, folder: Path) -> Experiment:
    item.keys(("scenario", "about"), ("axes", "variants", "set", "replications", "quick"))
    m = item.mapping()
    scenario = folder / m["scenario"].text()
    if not scenario.is_file():
        raise m["scenario"].error(f"no file `{m['scenario'].value}` in the study's folder")
    axes = []
    for axis_name, axis in m["axes"].mapping().items() if "axes" in m else []:
        axes.append(_axis(axis_name, axis))
        taken = [key for other in axes[:-1] for key in other.keys]
        for key in axes[-1].keys:
            if key in taken:
                raise axis.error(f"`{key}` is set by another axis", "let one axis set each key")
    variants = tuple(v.text() for v in m["variants"].sequence()) if "variants" in m else None
    replications = m["replications"].count() if "replications" in m else None
    quick_overrides: dict[str, str] = {}
    quick_variants = None
    if "quick" in m:
        m["quick"].keys((), ("set", "variants"))
        q = m["quick"].mapping()
        quick_overrides = _overrides(q.get("set"))
        if "variants" in q:
            quick_variants = tuple(v.text() for v in q["variants"].sequence())
            for place, variant in zip(q["variants"].sequence(), quick_variants, strict=True):
                if variant not in (variants or ("base",)):
                    raise place.error(
                        f"`{variant}` is not one of the experiment's variants",
                        f"its variants are: {', '.join(variants or ('base',))}",
                    )
    return Experiment(
        name,
        scenario,
        m["about"].text(),
        tuple(axes),
        variants,
        _overrides(m.get("set")),
        replications,
        quick_overrides=quick_overrides,
        quick_variants=quick_variants,
    )


def _axis(name: str, axis: Located, more: tuple[str, ...] = ()) -> Axis:
    """An axis: ``key`` and its ``values`` (a list, or labels and their settings), or
    ``keys`` set together and, for each label, a list of one setting per key; ``more``
    names further keys the mapping may hold, read by the caller."""
    axis.keys(("values",), ("key", "keys", *more))
    a = axis.mapping()
    if ("key" in a) == ("keys" in a):
        raise axis.error("give `key` (one scenario key) or `keys` (several set together)")
    if "key" in a:
        if isinstance(a["values"].items, dict):
            pairs = [(label, scalar(v)) for label, v in a["values"].mapping().items()]
        else:
            pairs = [(scalar(v), scalar(v)) for v in a["values"].sequence()]
        if not pairs:
            raise a["values"].error("an axis needs at least one value")
        values = tuple(label for label, _ in pairs)
        return Axis(name, a["key"].text(), values, tuple(s for _, s in pairs))
    keys = [k.text() for k in a["keys"].sequence()]
    if len(keys) < 2 or len(set(keys)) != len(keys):
        raise a["keys"].error("`keys` lists two or more different scenario keys")
    if not isinstance(a["values"].items, dict) or not a["values"].mapping():
        raise a["values"].error(
            "with `keys`, give each value a label and its settings: `LABEL: [v1, v2, ...]`"
        )
    labels: list[str] = []
    columns: list[list[str]] = [[] for _ in keys]
    for label, settings in a["values"].mapping().items():
        if not isinstance(settings.items, list) or len(settings.sequence()) != len(keys):
            raise settings.error(f"give one setting for each of the {len(keys)} keys, in order")
        labels.append(label)
        for column, setting in zip(columns, settings.sequence(), strict=True):
            column.append(scalar(setting))
    also = tuple((key, tuple(column)) for key, column in zip(keys[1:], columns[1:], strict=True))
    return Axis(name, keys[0], tuple(labels), tuple(columns[0]), also)


def _metric(name: str, item: Located, experiments: dict[str, Experiment]) -> Metric:
    item.keys(
        ("experiment", "table", "unit", "label"),
        ("where", "column", "expr", "per_run", "part", "failure"),
    )
    m = item.mapping()
    experiment = m["experiment"].text()
    if experiment not in experiments:
        raise m["experiment"].error(
            f"no experiment `{experiment}`", f"the experiments are: {', '.join(experiments)}"
        )
    failure = _failure(m["failure"], m["table"], experiments[experiment]) if "failure" in m else {}
    if failure and ("column" in m or "expr" in m or "per_run" in m):
        raise item.error(
            "an order of failure reads its own columns", "remove `column`, `expr` and `per_run`"
        )
    if not failure and ("column" in m) == ("expr" in m):
        raise item.error("give `column` or `expr`, one of them")
    per_run = m["per_run"].text() if "per_run" in m else "one"
    if per_run not in PER_RUN:
        raise m["per_run"].error(
            f"`{per_run}` is not a reduction", f"use one of {', '.join(PER_RUN)}"
        )
    where = _where(m["where"]) if "where" in m else {}
    if (per_run == "share") != ("part" in m):
        raise item.error(
            "`per_run: share` and `part` go together",
            "give `part` (the rows whose share is taken) with `per_run: share`, or neither",
        )
    part = _where(m["part"]) if "part" in m else {}
    return Metric(
        name=name,
        experiment=experiment,
        table=m["table"].text(),
        where=where,
        column=m["column"].text() if "column" in m else None,
        expr=m["expr"].text() if "expr" in m else None,
        per_run=per_run,
        unit=str(m["unit"].value or ""),
        label=m["label"].text(),
        part=part,
        failure=failure,
    )


def _failure(item: Located, table: Located, experiment: Experiment) -> dict[str, object]:
    """An order of failure along an axis of ``experiment``, read from the contracts table."""
    item.keys(("over",), ("min_in_contract_pct",))
    f = item.mapping()
    if table.text() != "contracts":
        raise table.error("an order of failure reads the `contracts` table")
    over = f["over"].text()
    if experiment.axis(over) is None:
        raise f["over"].error(
            f"experiment `{experiment.name}` has no axis `{over}`",
            f"its axes are: {', '.join(a.name for a in experiment.axes) or 'none'}",
        )
    failure: dict[str, object] = {"over": over}
    if "min_in_contract_pct" in f:
        failure["min_in_contract_pct"] = f["min_in_contract_pct"].number()
    return failure


def _where(item: Located) -> dict[str, object]:
    """The conditions on a result table's columns that pick a metric's rows: a value (the
    column equals it), a list of values (it equals one of them), or bounds on a number
    (:data:`BOUNDS`: ``{min: 60, max: 350}``, ``{above: 0}``)."""
    where: dict[str, object] = {}
    for column, condition in item.mapping().items():
        if isinstance(condition.items, list):
            if not condition.items:
                raise condition.error("an empty list matches no row", "list the values wanted")
            where[column] = [scalar(value) for value in condition.sequence()]
        elif isinstance(condition.items, dict):
            condition.keys((), BOUNDS)
            if not condition.items:
                raise condition.error("give a bound", f"one or more of {', '.join(BOUNDS)}")
            where[column] = {bound: v.number() for bound, v in condition.mapping().items()}
        else:
            where[column] = condition.value
    return where


def _table(item: Located, published: dict[str, Published], metrics: dict[str, Metric]) -> Table:
    item.keys(("name", "title", "layout"), ("rows", "blocks", "also", "notes", "columns"))
    m = item.mapping()
    notes = tuple(note.text() for note in m["notes"].sequence()) if "notes" in m else ()
    layout = m["layout"].text()
    if layout not in LAYOUTS:
        raise m["layout"].error(f"`{layout}` is not a layout", f"use one of {', '.join(LAYOUTS)}")

    def row_id(value: Located) -> str:
        text = value.text()
        if text not in published:
            raise value.error(f"no published value `{text}`", "add it to published.yaml")
        return text

    if layout == "findings":
        if "rows" not in m:
            raise item.error("a findings table lists its `rows`")
        also = []
        for reading in m["also"].sequence() if "also" in m else []:
            reading.keys(("label",), ("at", "metrics"))
            r = reading.mapping()
            at = {k: scalar(v) for k, v in r["at"].mapping().items()} if "at" in r else {}
            swap = {}
            for old, new in r["metrics"].mapping().items() if "metrics" in r else []:
                for name, place in ((old, new), (new.text(), new)):
                    if name not in metrics:
                        raise place.error(f"no metric `{name}`")
                swap[old] = new.text()
            also.append(Reading(r["label"].text(), at, swap))
        rows = tuple(row_id(r) for r in m["rows"].sequence())
        return Table(
            m["name"].text(), m["title"].text(), layout, rows=rows, also=tuple(also), notes=notes
        )
    if layout == "grid":
        return _grid(item, row_id, notes)
    if "blocks" not in m:
        raise item.error("a trials table lists its `blocks`")
    blocks = []
    for block in m["blocks"].sequence():
        block.keys(("label", "columns"))
        b = block.mapping()
        blocks.append(
            Block(b["label"].text(), {k: row_id(v) for k, v in b["columns"].mapping().items()})
        )
    return Table(m["name"].text(), m["title"].text(), layout, blocks=tuple(blocks), notes=notes)


def _grid(item: Located, row_id: Callable[[Located], str], notes: tuple[str, ...]) -> Table:
    """A table in the study's own rows and columns: ``columns`` (the headings) and
    ``rows``, each ``{label, cells}`` with one published value (or ``null``) per column."""
    m = item.mapping()
    for key in ("columns", "rows"):
        if key not in m:
            raise item.error(f"a grid table lists its `{key}`")
    if "blocks" in m or "also" in m:
        raise m.get("blocks", m.get("also", item)).error(
            "a grid table has `columns` and `rows` only", "remove `blocks` and `also`"
        )
    columns = tuple(c.text() for c in m["columns"].sequence())
    if not columns:
        raise m["columns"].error("a grid needs at least one column")
    grid = []
    for row in m["rows"].sequence():
        row.keys(("label", "cells"))
        r = row.mapping()
        cells = r["cells"].sequence()
        if len(cells) != len(columns):
            raise r["cells"].error(
                f"{len(cells)} cells for {len(columns)} columns", "give one cell per column"
            )
        grid.append(
            (r["label"].text(), tuple(None if c.value is None else row_id(c) for c in cells))
        )
    return Table(
        m["name"].text(),
        m["title"].text(),
        "grid",
        notes=notes,
        columns=columns,
        grid=tuple(grid),
    )


def _figure(
    item: Located, metrics: dict[str, Metric], experiments: dict[str, Experiment]
) -> Figure:
    m = item.mapping()
    if "kind" in m and m["kind"].value == "plot":
        return _plot_figure(item, experiments)
    if "kind" in m and m["kind"].value == "timeline":
        return _timeline_figure(item, metrics, experiments)
    item.keys(
        ("name", "title", "cite", "kind", "metrics", "over"), ("points", "group", "at", "log")
    )
    kind = m["kind"].text()
    if kind not in FIGURE_KINDS:
        raise m["kind"].error(
            f"`{kind}` is not a figure kind", f"use one of {', '.join(FIGURE_KINDS)}"
        )
    chosen = []
    for value in m["metrics"].sequence():
        if value.text() not in metrics:
            raise value.error(f"no metric `{value.value}`")
        chosen.append(value.text())
    experiment = experiments[metrics[chosen[0]].experiment]
    over, values = axis_points(m["over"], experiment, "draw")
    points = tuple(scalar(v) for v in m["points"].sequence()) if "points" in m else None
    for point in points or ():
        if point not in values:
            raise m["points"].error(f"`{point}` is not a value of `{over}`")
    group = m["group"].text() if "group" in m else None
    if group is not None and (group == over or experiment.points(group) is None):
        raise m["group"].error(
            f"experiment `{experiment.name}` cannot group by `{group}`",
            f"group by another of: {experiment.dimensions()}",
        )
    return Figure(
        name=m["name"].text(),
        title=m["title"].text(),
        cite=m["cite"].text(),
        kind=kind,
        metrics=tuple(chosen),
        over=over,
        points=points,
        group=group,
        at=point_at(m.get("at"), experiment),
        log=bool(m["log"].value) if "log" in m else False,
    )


def _plot_figure(item: Located, experiments: dict[str, Experiment]) -> Figure:
    """A figure drawn by one of qoslab's plots (``qoslab.plot.KINDS``)."""
    item.keys(
        ("name", "title", "cite", "kind", "plot", "experiment"),
        ("args", "at", "replication", "trace"),
    )
    m = item.mapping()
    plot = m["plot"].text()
    if plot not in KINDS:
        raise m["plot"].error(f"qoslab has no plot `{plot}`", f"use one of {', '.join(KINDS)}")
    name = m["experiment"].text()
    if name not in experiments:
        raise m["experiment"].error(f"no experiment `{name}`")
    experiment = experiments[name]
    replication = m["replication"].count(0) if "replication" in m else None
    at = point_at(m.get("at"), experiment)
    if replication is not None:
        check_point(item, at, experiment, None)
    trace: dict[str, object] | bool | None = None
    if "trace" in m:
        trace = cast(dict[str, object] | bool, m["trace"].plain())
        if replication is None:
            raise m["trace"].error("a traced run is one run", "give its `replication` (and `at`)")
        if trace is not True and not isinstance(trace, dict):
            raise m["trace"].error(
                "expected `true` or a `measure.trace` section", "e.g. `trace: {flows: [ftp]}`"
            )
    return Figure(
        name=m["name"].text(),
        title=m["title"].text(),
        cite=m["cite"].text(),
        kind="plot",
        at=at,
        plot=plot,
        experiment=name,
        args=cast(dict[str, object], m["args"].plain()) if "args" in m else {},
        replication=replication,
        trace=trace,
    )


def _timeline_figure(
    item: Located, metrics: dict[str, Metric], experiments: dict[str, Experiment]
) -> Figure:
    """Several metrics of one run against time: a panel per list of ``panels``, a line per
    metric (its value in each interval of a per-interval table), at the point ``at`` of the
    metrics' experiment, replication 0."""
    item.keys(("name", "title", "cite", "kind", "panels"), ("at", "clock", "log"))
    m = item.mapping()
    groups = []
    for panel in m["panels"].sequence():
        group = []
        for value in panel.sequence():
            if value.text() not in metrics:
                raise value.error(f"no metric `{value.value}`")
            group.append(value.text())
        if not group:
            raise panel.error("a panel needs at least one metric")
        groups.append(tuple(group))
    if not groups:
        raise m["panels"].error("give at least one panel")
    names_ = {metrics[name].experiment for group in groups for name in group}
    if len(names_) != 1:
        raise m["panels"].error(
            "the metrics of a timeline come from several experiments",
            "draw one run: use the metrics of one experiment",
        )
    experiment = experiments[names_.pop()]
    at = point_at(m.get("at"), experiment)
    check_point(item, at, experiment, None)
    clock = None
    if "clock" in m:
        clock = scalar(m["clock"])
        if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", clock):
            raise m["clock"].error("a time of day is written `hh:mm`, e.g. `07:54`")
    return Figure(
        name=m["name"].text(),
        title=m["title"].text(),
        cite=m["cite"].text(),
        kind="timeline",
        at=at,
        experiment=experiment.name,
        panels=tuple(groups),
        clock=clock,
        log=bool(m["log"].value) if "log" in m else False,
    )
