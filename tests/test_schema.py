"""The result schemas of the core are what Python and the documentation show: the tables'
columns, their dtypes, the column tables of ``docs/results.md`` and the columns the CLI, the
report and the plots pick by name."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import qoslab
from qoslab._core import table_schemas
from qoslab.cli import main
from qoslab.cli.run import CONTRACT_COLUMNS, FLOW_COLUMNS
from qoslab.plot.queue import DROP_COLUMN, QUEUE_COLUMNS
from qoslab.report.tables import SHOWN_COLUMNS, SWEEP_METRICS
from qoslab.results import SCHEMAS, TABLES, columns

ROOT = Path(__file__).resolve().parent.parent


def load_doc_script():
    spec = importlib.util.spec_from_file_location(
        "make_results_doc", ROOT / "scripts" / "make_results_doc.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_schemas_cover_the_document_tables():
    assert list(SCHEMAS) == ["run", *TABLES]
    for table, schema in SCHEMAS.items():
        assert schema, table
        for column in schema:
            fields = {"name", "type", "nullable", "unit", "key", "descriptive", "description"}
            assert set(column) == fields
            assert column["type"] in ("int", "float", "str", "bool", "list[str]"), column


@pytest.mark.parametrize("example", ["voice-vs-flood.yaml", "adhoc-annex-mix.yaml"])
def test_every_table_has_its_schemas_columns_empty_or_not(example):
    results = qoslab.run(ROOT / "examples" / example)
    assert list(results.run) == columns("run")
    for table in TABLES:
        assert list(getattr(results, table).columns) == columns(table), table


def test_nullable_counts_are_nullable_integers(voice_vs_flood):
    contracts = qoslab.run(voice_vs_flood).contracts
    assert str(contracts["intervals"].dtype) == "Int64"


def test_docs_results_md_is_generated_from_the_schemas():
    script = load_doc_script()
    text = script.DOC.read_text(encoding="utf-8")
    assert script.generate(text, table_schemas()) == text, (
        "docs/results.md is stale: run scripts/make_results_doc.py"
    )


def test_the_doc_script_refuses_an_uncovered_column():
    script = load_doc_script()
    text = "<!-- columns users app..user -->\n<!-- end columns -->\n"
    with pytest.raises(script.DocError, match="miss"):
        script.generate(text, {"users": table_schemas()["users"]})


def test_every_drop_reason_is_explained_in_the_docs():
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    reasons = text[text.index("## Drop reasons") :]
    for name in columns("flows"):
        if name.startswith("dropped_") and name not in ("dropped_packets", "dropped_bytes"):
            assert f"`{name}`" in reasons, name


def test_columns_picked_by_name_exist():
    known = {table: set(columns(table)) for table in SCHEMAS}
    assert set(FLOW_COLUMNS) <= known["flows"]
    assert set(CONTRACT_COLUMNS) <= known["contracts"]
    assert {*QUEUE_COLUMNS, DROP_COLUMN} <= known["class_series"]
    for table, metrics in SWEEP_METRICS.items():
        assert set(metrics) <= known[table], table
    assert set(SHOWN_COLUMNS["flows"]) <= known["flows"]
    # The report's port table adds each port's end-to-end budget and loads.
    assert set(SHOWN_COLUMNS["ports"]) <= known["ports"] | known["contracts"]


def test_cli_prints_the_result_schemas(capsys):
    assert main(["schema", "--results"]) == 0
    assert json.loads(capsys.readouterr().out) == table_schemas()
