"""Every queuing discipline the scenario format offers has its documentation page, its line in
the discipline tables, an example that uses it, and tests that name it."""

from __future__ import annotations

from pathlib import Path

import pytest

import qoslab

ROOT = Path(__file__).resolve().parent.parent


def policy_kinds() -> list[str]:
    """The `kind` values a policy may take, read from the JSON Schema."""
    schema = qoslab.schema()
    policy = schema["$defs"]["PolicySpec"]
    return sorted(variant["properties"]["kind"]["const"] for variant in policy["oneOf"])


def test_every_kind_has_a_page_and_every_page_a_kind():
    pages = sorted(page.stem for page in (ROOT / "docs" / "qdisc").glob("*.md"))
    assert policy_kinds() == pages


@pytest.mark.parametrize("kind", policy_kinds())
def test_kind_has_docs_example_and_tests(kind):
    assert (ROOT / "docs" / "qdisc" / f"{kind}.md").is_file()
    for table in ["README.md", "docs/index.md", "docs/scenario.md"]:
        assert f"| `{kind}` |" in (ROOT / table).read_text(), f"{table} does not list `{kind}`"
    examples = [p.read_text() for p in (ROOT / "examples").glob("*.yaml")]
    assert any(f"kind: {kind}" in text for text in examples), f"no example uses kind: {kind}"
    source = ROOT / "crates" / "qoslab-core" / "src" / "qdisc" / f"{kind}.rs"
    assert "#[cfg(test)]" in source.read_text(), f"{source.name} has no unit tests"
