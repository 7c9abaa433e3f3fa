"""``qoslab.run`` reads a run's tables from the core's columns and has the core write the
results document: the rows are those of the document, the document is the core's text, and
the results still pickle."""

from __future__ import annotations

import json
import pickle

import pytest

import qoslab
from conftest import EXAMPLES
from qoslab._core import Simulation
from qoslab.coretables import CoreTables
from qoslab.results import TABLES

EXAMPLES_FILLING_TABLES = {
    "congestion-lab.yaml": [],
    "lmr-push-to-talk.yaml": [],
    "adhoc-annex-mix.yaml": ["measure.interval_table=true"],
}
"""Examples whose runs between them have rows in most tables (voice, spurts, contracts,
ΔQ intervals, series, delay distributions)."""


@pytest.mark.parametrize("example", sorted(EXAMPLES_FILLING_TABLES))
def test_the_rows_read_from_columns_are_the_documents(example, tmp_path):
    results = qoslab.run(EXAMPLES / example, set=EXAMPLES_FILLING_TABLES[example])
    assert isinstance(results._document, CoreTables)
    document = json.loads(results.to_json())
    assert results.run == document["run"]
    assert results.inputs == document["inputs"]
    for table in TABLES:
        assert results.rows(table) == document[table], table
        assert [list(row) for row in results.rows(table)][:1] == [
            list(row) for row in document[table]
        ][:1], f"{table}: columns in the document's order"
    out = tmp_path / "out"
    results.write(out)
    assert (out / "results.json").read_text(encoding="utf-8") == results.to_json()


def test_the_document_written_by_the_core_is_its_text(voice_vs_flood, tmp_path):
    text = voice_vs_flood.read_text()
    expected = Simulation(text, str(voice_vs_flood), []).finish()
    written = qoslab.run(voice_vs_flood)
    written.write(tmp_path / "out")
    assert (tmp_path / "out" / "results.json").read_text(encoding="utf-8") == expected


def test_the_core_writes_the_document_only_to_a_new_file(voice_vs_flood, tmp_path):
    text = voice_vs_flood.read_text()
    *_, document = Simulation(text, str(voice_vs_flood), []).finish_document()
    target = tmp_path / "elsewhere.json"
    target.write_text("keep")
    (tmp_path / "link.json").symlink_to(target)
    with pytest.raises(FileExistsError):
        document.write(tmp_path / "link.json")
    assert target.read_text() == "keep"
    document.write(tmp_path / "new.json")
    assert (tmp_path / "new.json").read_text(encoding="utf-8") == document.text()


def test_results_pickle_as_their_document(voice_vs_flood):
    results = qoslab.run(voice_vs_flood)
    again = pickle.loads(pickle.dumps(results))
    assert again.to_json() == results.to_json()
    assert again.rows("flows") == results.rows("flows")
    assert again.flow("voice") == results.flow("voice")
