"""The Jinja2 environments every page is rendered with: HTML escaped, Markdown made inert.

Every page qoslab writes — reports, notebook views, advice, reproductions and their index —
is rendered from a template of one of two environments, chosen by what the page is, never by
the template's file name:

- :func:`html_environment` escapes every value (``&``, ``<``, ``>``, quotes) unless it is
  marked safe (the SVG the plots module draws), so a name such as
  ``<script>alert(1)</script>`` is shown as text and runs nothing;
- :func:`markdown_environment` writes ``&``, ``<`` and ``>`` of every value as HTML entities,
  which Markdown shows as the characters (CommonMark §2.5), so no value becomes raw HTML, an
  autolink or an entity of its own; other Markdown punctuation is kept, so the studies' own
  texts keep their code spans. A value meant as code goes through the ``code`` filter (a code
  span) or ``fenced`` (a fenced block), which shows it literally: fenced with more backticks
  than the value holds in a row, so it cannot end its own span.
"""

from __future__ import annotations

import re

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

MARKDOWN_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})

BACKTICK_RUNS = re.compile(r"`+")


def html_environment(
    package: str, *, trim_blocks: bool = False, lstrip_blocks: bool = False
) -> Environment:
    """The environment of the HTML templates of ``package`` (``qoslab.report``, ...):
    every value escaped; ``trim_blocks`` and ``lstrip_blocks`` are Jinja2's."""
    return Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=trim_blocks,
        lstrip_blocks=lstrip_blocks,
    )


def markdown_environment(
    package: str, *, trim_blocks: bool = False, lstrip_blocks: bool = False
) -> Environment:
    """The environment of the Markdown templates of ``package``: every value made inert
    (see the module's description), with the ``code`` and ``fenced`` filters."""
    environment = Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=False,
        finalize=markdown_text,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=trim_blocks,
        lstrip_blocks=lstrip_blocks,
    )
    environment.filters["code"] = code_span
    environment.filters["fenced"] = fenced_block
    return environment


def markdown_text(value: object) -> object:
    """A value as Markdown text: ``&``, ``<`` and ``>`` as entities, unless it is marked
    safe."""
    if isinstance(value, Markup):
        return value
    return str(value).translate(MARKDOWN_ENTITIES)


def _fence(text: str, least: int) -> str:
    longest = max((len(run) for run in BACKTICK_RUNS.findall(text)), default=0)
    return "`" * max(least, longest + 1)


def code_span(value: object) -> Markup:
    """``value`` as a Markdown code span, shown literally (line breaks become spaces)."""
    text = " ".join(str(value).splitlines())
    fence = _fence(text, 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return Markup(f"{fence}{pad}{text}{pad}{fence}")


def fenced_block(value: object, language: str = "") -> Markup:
    """``value`` as a fenced Markdown code block, shown literally."""
    text = str(value)
    fence = _fence(text, 3)
    ending = "" if text.endswith("\n") else "\n"
    return Markup(f"{fence}{language}\n{text}{ending}{fence}")
