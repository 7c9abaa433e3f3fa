"""The documentation and the code comments stand alone: nothing the repository holds cites a
file outside it, and every documentation page a comment or a link names exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Paths outside the repository that notes were once written against. Spelled in pieces so
# that this file does not cite them itself.
OUTSIDE = [
    "qos-" + "behaviour",
    "shared" + "/reference",
    "../" + "shared",
    "/" + "work/",
]

# A documentation page named in source: `docs/...md`.
DOC_PATH = re.compile(r"docs/[A-Za-z0-9_-][A-Za-z0-9_./-]*?\.md\b")

# A Markdown link or image target: `](target)`.
MD_LINK = re.compile(r"\]\(([^()\s]+)\)")


def tracked_files() -> list[Path]:
    """The files git tracks (or, outside a git checkout, every file but build output)."""
    try:
        done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "target", ".venv", "node_modules", "__pycache__"}
        return [
            p
            for p in ROOT.rglob("*")
            if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)
        ]
    names = [n for n in done.stdout.decode().split("\0") if n]
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def test_no_tracked_file_cites_a_path_outside_the_repository():
    found = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for needle in OUTSIDE:
                if needle in line:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {needle}")
    assert not found, (
        "cite the primary source, or a page under docs/reference/, instead of:\n" + "\n".join(found)
    )


def source_files() -> list[Path]:
    return [p for p in tracked_files() if p.suffix in {".rs", ".py"}]


def test_source_files_are_found():
    names = {p.name for p in source_files()}
    assert {"sim.rs", "event_queue.rs", "__init__.py"} <= names


def test_every_docs_page_named_in_rust_or_python_exists():
    missing = []
    for path in source_files():
        text = text_of(path) or ""
        for number, line in enumerate(text.splitlines(), start=1):
            for match in DOC_PATH.finditer(line):
                if not (ROOT / match.group(0)).is_file():
                    missing.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert not missing, "these pages do not exist:\n" + "\n".join(missing)


def markdown_links() -> list[tuple[Path, int, str]]:
    links = []
    for path in tracked_files():
        if path.suffix != ".md":
            continue
        in_code = False
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                continue
            for match in MD_LINK.finditer(line):
                links.append((path, number, match.group(1)))
    return links


def test_markdown_links_stay_in_the_repository_and_exist():
    bad = []
    for path, number, target in markdown_links():
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor on the same page
        file_part = target.split("#", 1)[0]
        resolved = (path.parent / file_part).resolve()
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if not resolved.is_relative_to(ROOT):
            bad.append(f"{where} (outside the repository)")
        elif not resolved.exists():
            bad.append(f"{where} (no such file)")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "page",
    sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "reference").glob("*.md")),
)
def test_reference_pages_are_listed_in_the_index(page):
    index = (ROOT / "docs" / "index.md").read_text()
    assert page.removeprefix("docs/") in index, f"{page} is not linked from docs/index.md"
