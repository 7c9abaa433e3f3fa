"""What a notebook shows for a run's :class:`Results` or a :class:`Sweep`.

IPython looks up ``_repr_html_`` on the object's class, so the classes that hold results
carry the method; the HTML itself is a short report (``qoslab.report.notebook``), which
sits in a layer above them. The renderer is therefore handed down instead of imported:
``qoslab/__init__.py`` installs it with :func:`show_with`, and Python runs that file before
any module of the package, so every ``Results`` and ``Sweep`` finds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_renderer: Callable[[object], str] | None = None


def show_with(renderer: Callable[[Any], str]) -> None:
    """Make ``renderer`` the function that turns results or a sweep into notebook HTML."""
    global _renderer
    _renderer = renderer


def html(results_or_sweep: object) -> str | None:
    """The HTML a notebook shows for ``results_or_sweep``; ``None`` (IPython then shows the
    plain ``repr``) while no renderer is installed."""
    if _renderer is None:
        return None
    return _renderer(results_or_sweep)
