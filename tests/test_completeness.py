"""Every queuing discipline the scenario format offers has its documentation page, its line in
the discipline tables written from the pages, an example that uses it, unit tests, and an
integration test its page names."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import qoslab

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "qoslab-core"


def load_table_script():
    spec = importlib.util.spec_from_file_location(
        "make_qdisc_tables", ROOT / "scripts" / "make_qdisc_tables.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLES = load_table_script()


def policy_kinds() -> list[str]:
    """The `kind` values a policy may take, read from the JSON Schema."""
    schema = qoslab.schema()
    policy = schema["$defs"]["PolicySpec"]
    return sorted(variant["properties"]["kind"]["const"] for variant in policy["oneOf"])


def integration_tests() -> set[str]:
    """The names of the integration tests of the core (`crates/qoslab-core/tests/it/`)."""
    test = re.compile(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*fn (\w+)")
    return {
        name
        for module in (CORE / "tests" / "it").glob("*.rs")
        for name in test.findall(module.read_text(encoding="utf-8"))
    }


def section(text: str, heading: str) -> str:
    """The section of a page under ``## heading``, up to the next section; empty when the
    page has no such section."""
    start = text.find(f"\n## {heading}\n")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_every_kind_has_a_page_and_every_page_a_kind():
    pages = sorted(page.stem for page in (ROOT / "docs" / "qdisc").glob("*.md"))
    assert policy_kinds() == pages


def test_the_discipline_tables_are_written_from_the_pages():
    listed = TABLES.disciplines()
    stale = [
        TABLES.name(document)
        for document in TABLES.DOCUMENTS
        if TABLES.generate(document.read_text(encoding="utf-8"), document, listed)
        != document.read_text(encoding="utf-8")
    ]
    assert not stale, f"{', '.join(stale)}: out of date: run {TABLES.COMMAND}"


def test_the_table_script_refuses_a_page_without_what_it_models(tmp_path):
    page = tmp_path / "fifo.md"
    page.write_text("# `fifo` — first in, first out\n\n## What it is\n", encoding="utf-8")
    with pytest.raises(TABLES.DocError, match=r"\*\*Models:\*\*"):
        TABLES.disciplines(tmp_path)
    page.write_text("# `fifoo` — first in, first out\n\n**Models:** a queue\n", encoding="utf-8")
    with pytest.raises(TABLES.DocError, match="title"):
        TABLES.disciplines(tmp_path)


def test_the_table_script_refuses_a_document_without_one_block():
    document = ROOT / "docs" / "index.md"
    with pytest.raises(TABLES.DocError, match="0 blocks"):
        TABLES.generate("no table here\n", document, TABLES.disciplines())


@pytest.mark.parametrize("kind", policy_kinds())
def test_kind_has_docs_example_and_tests(kind):
    page = ROOT / "docs" / "qdisc" / f"{kind}.md"
    assert page.is_file()
    assert TABLES.read_page(page).models, f"{page.name} does not say what it models"
    for document in TABLES.DOCUMENTS:
        block = TABLES.BLOCK.search(document.read_text(encoding="utf-8"))
        assert block, f"{TABLES.name(document)} has no discipline table"
        assert f"| `{kind}` |" in block[0], f"{TABLES.name(document)} does not list `{kind}`"
    examples = [p.read_text() for p in (ROOT / "examples").glob("*.yaml")]
    assert any(f"kind: {kind}" in text for text in examples), f"no example uses kind: {kind}"
    source = CORE / "src" / "qdisc" / f"{kind}.rs"
    assert "#[cfg(test)]" in source.read_text(), f"{source.name} has no unit tests"
    validation = section(page.read_text(encoding="utf-8"), "Validation")
    named = set(re.findall(r"`(?:\w+::)*(\w+)`", validation))
    assert named & integration_tests(), (
        f"the Validation section of {page.name} names no test of crates/qoslab-core/tests/it/"
    )
