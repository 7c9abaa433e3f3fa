#!/usr/bin/env python3
"""Write the tables of queuing disciplines from the disciplines' documentation pages.

    python scripts/make_qdisc_tables.py [--check]

Every page ``docs/qdisc/<kind>.md`` opens with its title, which names the kind, and a
paragraph that says what the discipline models::

    # `fifo` — first in, first out with tail drop

    **Models:** IOS output hold queue, Linux `pfifo`/`bfifo`: tail drop at a packet or byte
    limit

Each document that lists the disciplines (``DOCUMENTS``) holds one table between two markers,
and the script rewrites what is between them, one row per page in order of kind, leaving the
prose around them as it is::

    <!-- disciplines: written from docs/qdisc/*.md by scripts/make_qdisc_tables.py -->
    ... generated ...
    <!-- end disciplines -->

A row gives the kind, the paragraph after ``**Models:**`` (its lines joined) and the page:
a link relative to the document for the pages under ``docs/``, the page's path for the
README, which names files by their path. A new page is therefore in every table once the
script has run. With ``--check`` the documents are only compared: exit status 1 when one
differs from what the script would write (run the script without ``--check`` to update
them), 0 when all are current; 2 for a page or a document the script cannot read.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "qdisc"
DOCUMENTS = [ROOT / "README.md", ROOT / "docs" / "index.md", ROOT / "docs" / "scenario.md"]
COMMAND = "python scripts/make_qdisc_tables.py"

OPEN = "<!-- disciplines: written from docs/qdisc/*.md by scripts/make_qdisc_tables.py -->\n"
CLOSE = "<!-- end disciplines -->"
BLOCK = re.compile(re.escape(OPEN) + r".*?" + re.escape(CLOSE), re.DOTALL)

TITLE = re.compile(r"# `(?P<kind>[a-z0-9_]+)` — (?P<title>\S.*)")
MODELS = "**Models:** "


class DocError(Exception):
    """A page that does not open with its title and its ``**Models:**`` paragraph, or a
    document without exactly one table block."""


class Discipline(NamedTuple):
    """One discipline as the opening of its page gives it."""

    kind: str
    title: str
    models: str
    page: Path


def name(path: Path) -> str:
    """``path`` as the repository names it (as given, outside the repository)."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def read_page(page: Path) -> Discipline:
    """The discipline of ``page``: the kind and title of its first line, and the paragraph
    after them, which starts with ``**Models:**``."""
    lines = page.read_text(encoding="utf-8").splitlines()
    title = TITLE.fullmatch(lines[0]) if lines else None
    if title is None or title["kind"] != page.stem:
        raise DocError(
            f"{name(page)}:1: the first line must be the title: # `{page.stem}` — <discipline>"
        )
    paragraph = []
    for line in lines[2:]:
        if not line.strip():
            break
        paragraph.append(line.strip())
    if len(lines) < 3 or lines[1].strip() or not paragraph or not paragraph[0].startswith(MODELS):
        raise DocError(
            f"{name(page)}:3: after the title and a blank line, a paragraph must start with "
            f"{MODELS.strip()} and say what the discipline models"
        )
    models = " ".join(paragraph).removeprefix(MODELS).strip()
    return Discipline(page.stem, title["title"].strip(), models, page)


def disciplines(pages: Path = PAGES) -> list[Discipline]:
    """The disciplines of every page in ``pages``, in order of kind."""
    return [read_page(page) for page in sorted(pages.glob("*.md"))]


def page_cell(discipline: Discipline, document: Path) -> str:
    """How ``document`` names the page of ``discipline``."""
    path = name(discipline.page)
    if document.parent == ROOT:
        return f"`{path}`"
    target = Path(os.path.relpath(discipline.page, document.parent)).as_posix()
    return f"[{target}]({target})"


def table_text(listed: list[Discipline], document: Path) -> str:
    """The Markdown table of ``listed`` as ``document`` shows it."""
    lines = ["| `kind` | models | page |", "|---|---|---|"]
    for discipline in listed:
        models = discipline.models.replace("|", "\\|")
        lines.append(f"| `{discipline.kind}` | {models} | {page_cell(discipline, document)} |")
    return "\n".join(lines) + "\n"


def generate(text: str, document: Path, listed: list[Discipline]) -> str:
    """``text`` of ``document`` with its table block rewritten; raises ``DocError`` unless the
    document holds exactly one block."""
    found = len(BLOCK.findall(text))
    if found != 1:
        raise DocError(
            f"{name(document)}: {found} blocks between {OPEN.strip()} and {CLOSE}, "
            "where one is needed"
        )
    return BLOCK.sub(lambda _: OPEN + table_text(listed, document) + CLOSE, text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, do not write")
    args = parser.parse_args()
    stale = []
    try:
        listed = disciplines()
        for document in DOCUMENTS:
            text = document.read_text(encoding="utf-8")
            wanted = generate(text, document, listed)
            if wanted == text:
                continue
            stale.append(name(document))
            if not args.check:
                document.write_text(wanted, encoding="utf-8")
    except DocError as error:
        print(error, file=sys.stderr)
        return 2
    if args.check and stale:
        print(f"{', '.join(stale)}: out of date: run {COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
