"""Every queuing discipline the scenario format offers has its documentation page, an
example that uses it, and tests that name it."""

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


def test_the_kinds_are_the_expected_ones():
    assert policy_kinds() == [
        "cbq",
        "cbwfq",
        "custom",
        "drr",
        "fifo",
        "fq_codel",
        "htb",
        "mdrr",
        "prio",
        "tbf",
        "wfq",
    ]


@pytest.mark.parametrize("kind", policy_kinds())
def test_kind_has_docs_example_and_tests(kind):
    assert (ROOT / "docs" / "qdisc" / f"{kind}.md").is_file()
    examples = [p.read_text() for p in (ROOT / "examples").glob("*.yaml")]
    assert any(f"kind: {kind}" in text for text in examples), f"no example uses kind: {kind}"
    source = ROOT / "crates" / "qoslab-core" / "src" / "qdisc" / f"{kind}.rs"
    assert "#[cfg(test)]" in source.read_text(), f"{source.name} has no unit tests"
