"""Where in a study's experiment a value is read: a single value of a study file, the point
``at`` (a value of some axes and the variant) with the check that it picks one point, and the
axis a rule or a figure runs along — each refused at its place in the file."""

from __future__ import annotations

from qoslab.reproduce.located import Located
from qoslab.reproduce.model import VARIANT, Experiment


def scalar(item: Located) -> str:
    """The text of a single value (a text, a number or a yes/no), or an error at it."""
    if isinstance(item.value, bool):
        return "true" if item.value else "false"
    if isinstance(item.value, int | float | str):
        return str(item.value)
    raise item.error("expected a single value (a text or a number)")


def point_at(item: Located | None, experiment: Experiment) -> dict[str, str]:
    """A point of ``experiment``: a value for some of its axes, and ``variant``."""
    if item is None:
        return {}
    at: dict[str, str] = {}
    for key, value in item.mapping().items():
        text = scalar(value)
        if key == VARIANT:
            known = (*(experiment.variants or ()), "base")
            if text not in known:
                raise value.error(
                    f"experiment `{experiment.name}` has no variant `{text}`",
                    f"its variants are: {', '.join(known)}",
                )
        else:
            axis = experiment.axis(key)
            if axis is None:
                names_ = ", ".join(a.name for a in experiment.axes) or "none"
                raise value.error(
                    f"experiment `{experiment.name}` has no axis `{key}`", f"its axes are: {names_}"
                )
            if text not in axis.values:
                raise value.error(
                    f"`{text}` is not a value of axis `{key}`",
                    f"its values are: {', '.join(axis.values)}",
                )
        at[key] = text
    return at


def check_point(item: Located, at: dict[str, str], experiment: Experiment, over: object) -> None:
    """Checks that ``at`` picks one point of ``experiment`` (all axes but ``over``, and the
    variant when it has variants); ``over`` may be a set of names left free."""
    free = over if isinstance(over, set) else {over}
    needed = [axis.name for axis in experiment.axes if axis.name not in free]
    if experiment.variants is not None and VARIANT not in free:
        needed.append(VARIANT)
    missing = [name for name in needed if name not in at]
    if missing:
        raise item.error(
            f"`at` does not pick one point of experiment `{experiment.name}`",
            f"give {', '.join(missing)} in `at`",
        )


def axis_points(item: Located, experiment: Experiment, verb: str) -> tuple[str, tuple[str, ...]]:
    """The axis ``item`` names and its values in ``experiment``; an error at ``item`` naming
    the axes there are if the experiment has no such axis."""
    over = item.text()
    values = experiment.points(over)
    if values is None:
        raise item.error(
            f"experiment `{experiment.name}` has no axis `{over}`",
            f"{verb} along one of: {experiment.dimensions()}",
        )
    return over, values
