"""A figure as SVG text to put inside an HTML page."""

from __future__ import annotations

import io

import matplotlib as mpl
from matplotlib.figure import Figure

from qoslab.plot.style import STYLE


def to_svg(figure: Figure) -> str:
    """``figure`` as an ``<svg>`` element: text drawn as paths (no font needed), no XML
    declaration or DOCTYPE (no reference to an external DTD), the same text for the same
    figure."""
    buffer = io.StringIO()
    with mpl.rc_context({key: STYLE[key] for key in ("svg.fonttype", "svg.hashsalt")}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]
