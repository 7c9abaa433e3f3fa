"""Reading a study's ``published.yaml``: each published value or claim with its rule
(:class:`qoslab.analysis.verdict.Claim`), tolerance, margin, the study's criterion on the runs,
weaker conclusion, role and reason — each refused at its place in the file, with the fix."""

from __future__ import annotations

import re
from dataclasses import replace

from qoslab.analysis.verdict import (
    DERIVED,
    DUPLICATE,
    INCONSISTENT,
    RESULT,
    ROLES,
    RUNS,
    Claim,
    Tolerance,
)
from qoslab.reproduce.located import Located
from qoslab.reproduce.model import WHY_KINDS, Experiment, Metric, Published, Why
from qoslab.reproduce.points import axis_points, check_point, point_at, scalar


def _tolerance(item: Located | None) -> Tolerance:
    if item is None:
        return Tolerance()
    if isinstance(item.value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", item.value)
        if not match:
            raise item.error("a tolerance is a share (`15%`) or an amount in the value's unit")
        return Tolerance(relative=float(match.group(1)) / 100)
    return Tolerance(relative=None, absolute=item.number())


def _claim(item: Located, tolerance: Tolerance, experiment: Experiment | None) -> Claim:
    """A rule: one of ``value`` (with ``ci``), ``below``, ``above``, ``between``, or, over
    an axis or the variants (``over``), ``order``, ``equal``, ``largest`` or ``smallest``
    (the last two among all points, or among the points listed in ``among``)."""
    kinds_known = ("value", "below", "above", "between", "order", "equal", "largest", "smallest")
    item.keys((), (*kinds_known, "ci", "over", "among"))
    m = item.mapping()
    kinds = [k for k in kinds_known if k in m]
    if len(kinds) != 1:
        raise item.error(f"give one of {', '.join(f'`{k}`' for k in kinds_known)}")
    kind = kinds[0]
    if "among" in m and kind not in ("largest", "smallest"):
        raise m["among"].error("`among` limits `largest` and `smallest`", "remove `among`")
    if kind in ("order", "equal", "largest", "smallest"):
        if "over" not in m or experiment is None:
            raise item.error(f"`{kind}` compares points along an axis: add `over: AXIS`")
        over, values = axis_points(m["over"], experiment, "compare")

        def point_of(place: Located) -> str:
            point = scalar(place)
            if point not in values:
                raise place.error(f"`{point}` is not a value of `{over}`")
            return point

        if kind in ("largest", "smallest"):
            point = point_of(m[kind])
            pool = [point_of(v) for v in m["among"].sequence()] if "among" in m else values
            others = tuple(v for v in pool if v != point)
            if not others:
                raise m.get("among", item).error(f"`{kind}` needs another point to compare with")
            return Claim(
                kind, order=((point,), others), over=over, tolerance=tolerance, among="among" in m
            )
        groups = []
        for element in m[kind].sequence():
            if isinstance(element.items, list):
                group = tuple(point_of(v) for v in element.sequence())
            else:
                group = (point_of(element),)
            groups.append(group)
        return Claim(kind, order=tuple(groups), over=over, tolerance=tolerance)
    if kind == "between":
        bounds = m["between"].sequence()
        if len(bounds) != 2 or bounds[0].number() > bounds[1].number():
            raise m["between"].error("a range is `[low, high]`")
        return Claim(kind, ci=(bounds[0].number(), bounds[1].number()), tolerance=tolerance)
    ci = None
    if "ci" in m:
        bounds = m["ci"].sequence()
        if len(bounds) != 2 or bounds[0].number() > bounds[1].number():
            raise m["ci"].error("a confidence interval is `[low, high]`")
        ci = (bounds[0].number(), bounds[1].number())
    return Claim(kind, number=m[kind].number(), ci=ci, tolerance=tolerance)


def published_value(
    item: Located, metrics: dict[str, Metric], experiments: dict[str, Experiment]
) -> Published:
    """One entry of ``published.yaml``, checked against the study's ``metrics`` and
    ``experiments`` (the ids that ``of`` names are checked once every entry is read)."""
    item.keys(
        ("id", "cite", "says"),
        (
            "metric",
            "at",
            "published",
            "unit",
            "tolerance",
            "conclusion",
            "conclusion_metric",
            "why",
            "printed",
            "shown",
            "role",
            "of",
            "margin",
            "runs",
        ),
    )
    m = item.mapping()
    metric = m["metric"].text() if "metric" in m else None
    if metric is not None and metric not in metrics:
        raise m["metric"].error(f"no metric `{metric}`", f"the metrics are: {', '.join(metrics)}")
    experiment = experiments[metrics[metric].experiment] if metric else None
    at = point_at(m.get("at"), experiment) if experiment else {}
    tolerance = _tolerance(m.get("tolerance"))
    claim = _claim(m["published"], tolerance, experiment) if "published" in m else None
    if claim is not None and metric is None:
        raise item.error("a value judged against qoslab needs its `metric`")
    margin = m["margin"].number() if "margin" in m else 0.0
    if "margin" in m and (claim is None or not claim.ordering or margin < 0):
        raise m["margin"].error(
            "`margin` is the practical difference an ordering's points must be apart",
            "give it (a number ≥ 0 in the value's unit) only with `order`, `largest` or `smallest`",
        )
    runs = m["runs"].text() if "runs" in m else RUNS[0]
    if runs not in RUNS or ("runs" in m and (claim is None or claim.over_points)):
        raise m["runs"].error(
            "`runs` judges a threshold, range or number on the mean, or on `every` or `some` "
            "replication (the study's own criterion)",
            f"give one of {', '.join(RUNS)} with a rule on one quantity",
        )
    if claim is not None:
        claim = replace(claim, margin=margin, runs=runs)
    conclusion_metric = m["conclusion_metric"].text() if "conclusion_metric" in m else metric
    if conclusion_metric is not None and conclusion_metric not in metrics:
        raise m["conclusion_metric"].error(f"no metric `{conclusion_metric}`")
    conclusion = None
    if "conclusion" in m:
        target = experiments[metrics[conclusion_metric].experiment] if conclusion_metric else None
        conclusion = replace(_claim(m["conclusion"], tolerance, target), margin=margin)
    if claim is not None and experiment is not None:
        over = m["published"].mapping().get("over")
        # A rule over an axis, and an order of failure along one, leave that axis free.
        failure_over = metrics[metric].failure_over if metric is not None else None
        free = {over.value if over is not None else None, failure_over}
        check_point(item, at, experiment, free)
    elif claim is None and experiment is not None:
        check_point(item, at, experiment, None)  # the metric shown beside it, at one point
    why = None
    if "why" in m:
        m["why"].keys(("kind", "text"))
        w = m["why"].mapping()
        if w["kind"].text() not in WHY_KINDS:
            raise w["kind"].error(
                f"`{w['kind'].value}` is not a kind of reason", f"use one of {', '.join(WHY_KINDS)}"
            )
        why = Why(w["kind"].text(), w["text"].text())
    if claim is None and why is None:
        raise item.error(
            "a value qoslab does not model needs `why`",
            "say what is missing (kind: model) or why the metric is undefined",
        )
    role, of = _role(m)
    if role == INCONSISTENT and (why is None or why.kind != "study"):
        raise m["role"].error(
            "a value the study's own data contradict says why",
            "add `why` of kind `study` with the arithmetic",
        )
    printed = {k: v.number() for k, v in m["printed"].mapping().items()} if "printed" in m else {}
    return Published(
        id=m["id"].text(),
        cite=m["cite"].text(),
        says=m["says"].text(),
        metric=metric,
        at=at,
        claim=claim,
        unit=str(m["unit"].value) if "unit" in m else (metrics[metric].unit if metric else ""),
        conclusion=conclusion,
        conclusion_metric=conclusion_metric if conclusion is not None else None,
        why=why,
        printed=printed,
        shown=m["shown"].text() if "shown" in m else None,
        role=role,
        of=of,
    )


def _role(m: dict[str, Located]) -> tuple[str, tuple[str, ...]]:
    """The entry's ``role`` (default ``result``) and, for a derived value or a duplicate,
    the published values it comes from (``of``)."""
    role = m["role"].text() if "role" in m else RESULT
    if role not in ROLES:
        raise m["role"].error(f"`{role}` is not a role", f"use one of {', '.join(ROLES)}")
    needs_of = role in (DERIVED, DUPLICATE)
    if needs_of != ("of" in m):
        place = m.get("of", m.get("role"))
        assert place is not None
        raise place.error(
            "`of` names the published values a derived value or a duplicate comes from",
            "give `role: derived` or `role: duplicate` with `of: [ID, ...]`",
        )
    if not needs_of:
        return role, ()
    of = m["of"]
    return role, tuple(scalar(v) for v in (of.sequence() if isinstance(of.items, list) else [of]))
