r"""How every plot looks: the figure, the colour of each flow or application, axis labels
with units, titles, and the ids that let a reader of the SVG find each data series.

Figures are built as ``matplotlib.figure.Figure`` on the Agg canvas, never through pyplot, so
no figure is registered globally and nothing needs closing. Settings are applied with
``matplotlib.rc_context`` while a figure is built, so the caller's settings are untouched.

Every text is shown literally. Matplotlib reads a text holding two unescaped ``$`` as
mathtext, so a flow called ``rtp_$A_$B`` would be typeset as a formula or stop the drawing
with a parse error. Once a figure is built, each ``$`` of its texts — titles, labels, legend
entries, tick labels, and the tick labels its name formatters make when it is drawn — is
escaped as ``\$``, which matplotlib shows as ``$`` and never reads as mathtext (the plots
themselves write no formula).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap, to_hex
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, Formatter

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "figure.titlesize": 12,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "svg.fonttype": "path",
    "svg.hashsalt": "qoslab",
}
"""Settings in effect while a figure is built: a slide-sized font, a light grid, text
drawn as paths (the SVG needs no font) and fixed ids (equal data, equal SVG)."""

PALETTE = tuple(
    to_hex(colour)
    for name in ("tab10", "Dark2", "Set1")
    for colour in cast(Sequence[Any], cast(ListedColormap, mpl.colormaps[name]).colors)
)

"""The qualitative palette the names are given colours from, in order."""

FIGURE_WIDTH_IN = 8.0
PANEL_HEIGHT_IN = 3.2
WRAP_CHARS = 16
"""Tick labels longer than this are wrapped onto several lines."""
TITLE_CHARS = 80
"""Titles longer than this are wrapped."""
LEGEND_ROWS = 14
"""A legend with more entries than this gets more columns."""
NAME_CHARS = 40
"""A name in a legend or on an axis longer than this is cut, ending in an ellipsis: a long
name would leave the panels no room (the tables show it whole)."""

P = ParamSpec("P")
R = TypeVar("R")


def styled(function: Callable[P, R]) -> Callable[P, R]:
    """Build the figure of ``function`` with :data:`STYLE` in effect, its texts literal."""

    @wraps(function)
    def build(*args: P.args, **kwargs: P.kwargs) -> R:
        with mpl.rc_context(STYLE):
            built = function(*args, **kwargs)
        if isinstance(built, Figure):
            literal_texts(built)
        return built

    return build


LITERAL = "_qoslab_literal"
"""The mark of a text already made literal (a figure built by nested plot functions is
gone over more than once)."""


def literal(text: str) -> str:
    """``text`` as matplotlib shows it literally: each ``$`` escaped."""
    return text.replace("$", r"\$")


class LiteralFormatter(Formatter):
    """A name formatter (fixed or categorical tick labels) whose labels are literal."""

    def __init__(self, inner: Formatter) -> None:
        self.inner = inner

    def __call__(self, x: float, pos: int | None = None) -> str:
        return literal(self.inner(x, pos))

    def set_axis(self, axis: Any) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs: Any) -> None:
        super().set_locs(locs)
        self.inner.set_locs(locs)


def literal_texts(fig: Figure) -> None:
    """Make every text of ``fig`` literal, and the tick labels its name formatters will
    make (numeric formatters are left as they are: theirs are numbers, some written as
    mathtext on a log axis)."""
    for text in fig.findobj(Text):
        if not getattr(text, LITERAL, False):
            text.set_text(literal(text.get_text()))
            setattr(text, LITERAL, True)
    for axes in fig.axes:
        for axis in (axes.xaxis, axes.yaxis):
            for formatter, setter in (
                (axis.get_major_formatter(), axis.set_major_formatter),
                (axis.get_minor_formatter(), axis.set_minor_formatter),
            ):
                if _names(formatter):
                    setter(LiteralFormatter(formatter))


def _names(formatter: Formatter) -> bool:
    """Whether ``formatter`` writes names rather than numbers."""
    from matplotlib.category import StrCategoryFormatter

    return isinstance(formatter, (FixedFormatter, StrCategoryFormatter))


def figure(panels: int = 1, *, columns: int = 1, height_in: float | None = None) -> Figure:
    """A constrained-layout figure on the Agg canvas, tall enough for ``panels`` panels
    laid out in ``columns`` columns."""
    rows = -(-panels // columns)
    height = height_in if height_in is not None else PANEL_HEIGHT_IN * rows + 0.6
    fig = Figure(figsize=(FIGURE_WIDTH_IN, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def panels(fig: Figure, count: int, *, columns: int = 1, sharey: bool = False) -> list[Axes]:
    """``count`` axes on ``fig`` in a grid of ``columns`` columns, in reading order."""
    columns = max(1, min(columns, count))
    rows = -(-count // columns)
    grid = fig.subplots(rows, columns, squeeze=False, sharey=sharey)
    axes = [axis for row in grid for axis in row]
    for spare in axes[count:]:
        spare.remove()
    return axes[:count]


def colours(names: Iterable[str]) -> dict[str, str]:
    """A colour for each name: the names sorted, then given the palette's colours in turn,
    so a flow or application keeps its colour in every plot of the same data."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sorted(set(names)))}


UNIT_SUFFIXES = (
    ("_pct", "%"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_packets", "packets"),
    ("_bytes", "bytes"),
)
"""Column-name endings and the unit they stand for (``_bps`` is scaled, see :func:`unit`)."""

WORDS = {"rfc3550": "RFC 3550", "l3": "L3", "l2": "L2", "pct": "%", "mos": "MOS", "r": "R"}
"""Words of column names written differently on an axis."""

RATE_UNITS = ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s"))


def unit(column: str, values: Iterable[float] = (), name: str | None = None) -> tuple[str, float]:
    """The axis label of ``column`` with its unit, and the factor its values are multiplied
    by for that unit: ``delay_mean_ms`` → ``("delay mean (ms)", 1)``; a ``_bps`` column is
    shown in the largest of kbit/s, Mbit/s, Gbit/s that keeps the largest value at 1 or
    more. ``name`` replaces the quantity's name taken from the column."""
    quantity_name = name or quantity(column)
    if column.endswith("_bps"):
        finite = np.asarray([v for v in values if v is not None], dtype=float)
        finite = finite[np.isfinite(finite)]
        largest = float(np.abs(finite).max()) if finite.size else 0.0
        scale, rate_unit = next(((s, n) for s, n in RATE_UNITS if largest >= s), RATE_UNITS[-1])
        return f"{quantity_name} ({rate_unit})", 1.0 / scale
    for suffix, suffix_unit in UNIT_SUFFIXES:
        if column.endswith(suffix):
            return f"{quantity_name} ({suffix_unit})", 1.0
    return quantity_name, 1.0


def quantity(column: str) -> str:
    """What ``column`` measures, as words without its unit: ``delay_mean_ms`` → ``delay
    mean``."""
    for suffix in ("_bps", *(suffix for suffix, _ in UNIT_SUFFIXES)):
        if column.endswith(suffix):
            return words(column[: -len(suffix)])
    return words(column)


def words(name: str) -> str:
    """A column or parameter name as words: ``delay_p99`` → ``delay p99``."""
    return " ".join(WORDS.get(part, part) for part in name.split("_"))


def shorten(label: object) -> str:
    """``label`` cut to :data:`NAME_CHARS` characters, the last an ellipsis, when longer."""
    text = str(label)
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"


def wrap(label: object) -> str:
    """Each line of ``label``, shortened, wrapped onto lines of at most :data:`WRAP_CHARS`
    characters."""
    lines = shorten(label).splitlines() or [""]
    return "\n".join(
        textwrap.fill(line, WRAP_CHARS, break_long_words=False) or line for line in lines
    )


def category_ticks(
    axis: Axes, positions: Sequence[float], labels: Sequence[object], *, turn_after: int = 6
) -> None:
    """Put wrapped ``labels`` at ``positions`` on the x axis, turned when there are more
    than ``turn_after``."""
    axis.set_xticks(list(positions), [wrap(label) for label in labels])
    if len(labels) > turn_after:
        axis.tick_params(axis="x", labelrotation=45)
        for text in axis.get_xticklabels():
            text.set_horizontalalignment("right")
            text.set_rotation_mode("anchor")
    axis.grid(False, axis="x")


def title(fig: Figure, scenario: object, what: str) -> None:
    """The figure's title: the scenario's name, then what the figure shows."""
    fig.suptitle(textwrap.fill(f"{scenario}: {what}", TITLE_CHARS))


def tag(artists: Artist | Iterable[Artist], kind: str, number: int) -> None:
    """Give the artists of one data series the SVG id ``qoslab-KIND-NUMBER`` (one artist)
    or ``qoslab-KIND-NUMBER-PART`` (each part of several), so the series can be counted in
    the SVG."""
    if isinstance(artists, Artist):
        artists.set_gid(f"qoslab-{kind}-{number}")
        return
    for part, artist in enumerate(artists):
        artist.set_gid(f"qoslab-{kind}-{number}-{part}")


def legend(fig: Figure, axis: Axes, **options: object) -> None:
    """The legend of ``axis``'s labelled artists, outside the panels, to the right of the
    top-right panel (constrained layout makes room for it)."""
    handles, labels = axis.get_legend_handles_labels()
    if not handles:
        return
    top_row = [(a, spec) for a in fig.axes if (spec := a.get_subplotspec()) is not None]
    top_right, _ = max(
        ((a, spec) for a, spec in top_row if spec.is_first_row()),
        key=lambda pair: pair[1].colspan.stop,
    )
    top_right.legend(
        handles,
        [shorten(label) for label in labels],
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        fontsize="small",
        ncols=-(-len(handles) // LEGEND_ROWS),
        **options,
    )


def first_column(axis: Axes) -> bool:
    """Whether ``axis`` is a panel of its figure's first column (where the y label goes)."""
    spec = axis.get_subplotspec()
    return spec is not None and spec.is_first_col()
