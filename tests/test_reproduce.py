"""``qoslab reproduce``: the verdict rules, study folders read with located errors, every
installed study reproduced in its quick setting with well-formed documents, and the
committed study pages consistent with their verdicts."""

from __future__ import annotations

import csv
import math
import re
import shutil
from pathlib import Path

import pytest

from qoslab.analysis.verdict import (
    DIFFERS,
    NOT_MODELLED,
    REPRODUCED,
    SAME_CONCLUSION,
    VERDICTS,
    Claim,
    Estimate,
    Tolerance,
    judge,
)
from qoslab.cli import main
from qoslab.reproduce import Setting, StudyError, catalogue, names, reproduce
from qoslab.reproduce.judged import value_text
from qoslab.reproduce.study import STUDIES, load

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "studies"


def one(mean: float, low: float | None = None, high: float | None = None) -> dict:
    return {None: Estimate(mean, mean if low is None else low, mean if high is None else high, 3)}


def points(**means: float) -> dict:
    return {name: Estimate(m, m, m, 3) for name, m in means.items()}


# --- the rules -----------------------------------------------------------------------


def test_a_number_is_reproduced_within_its_band_and_only_there():
    claim = Claim("value", number=100.0)  # ±15 % by default
    assert claim.holds(one(115.0))
    assert claim.holds(one(85.0))
    assert not claim.holds(one(115.1))
    assert not claim.holds(one(84.9))
    absolute = Claim("value", number=0.0, tolerance=Tolerance(relative=None, absolute=0.01))
    assert absolute.holds(one(0.01))
    assert not absolute.holds(one(0.02))


def test_a_number_with_the_studys_interval_needs_overlapping_intervals():
    claim = Claim("value", number=40.2, ci=(40.0, 40.4))
    assert claim.holds(one(38.9, 38.0, 40.0))  # touches the study's interval
    assert not claim.holds(one(38.9, 38.0, 39.9))
    assert claim.holds(one(41.0, 40.3, 41.7))


def test_thresholds_ranges_and_a_weaker_conclusion():
    assert Claim("below", number=100.0).holds(one(99.9))
    assert not Claim("below", number=100.0).holds(one(100.0))
    assert Claim("above", number=150.0).holds(one(150.1))
    assert Claim("between", ci=(150.0, 255.0)).holds(one(255.0))
    assert not Claim("between", ci=(150.0, 255.0)).holds(one(364.0))
    # The number is far off, but the study's conclusion behind it holds.
    claim, conclusion = Claim("value", number=8500.0), Claim("above", number=1000.0)
    assert judge(claim, one(3652.0), conclusion) == SAME_CONCLUSION
    assert judge(claim, one(800.0), conclusion) == DIFFERS
    assert judge(claim, one(8000.0), conclusion) == REPRODUCED
    assert judge(claim, one(800.0)) == DIFFERS


def test_orderings_groups_and_extremes():
    ranking = Claim(
        "order",
        order=(("llq", "pq"), ("cbwfq",), ("fifo",)),
        over="scheme",
        tolerance=Tolerance(relative=None, absolute=0.5),
    )
    assert ranking.holds(points(llq=0.0, pq=0.3, cbwfq=10.0, fifo=80.0))
    assert not ranking.holds(points(llq=0.0, pq=0.6, cbwfq=10.0, fifo=80.0))  # not equal
    assert not ranking.holds(points(llq=0.0, pq=0.3, cbwfq=90.0, fifo=80.0))  # out of order
    largest = Claim("largest", order=(("fifo",), ("pq", "llq")), over="scheme")
    assert largest.holds(points(fifo=3.0, pq=2.0, llq=1.0))
    assert not largest.holds(points(fifo=3.0, pq=3.0, llq=1.0))
    assert Claim("smallest", order=(("pq",), ("llq",)), over="s").holds(points(pq=0.0, llq=1.0))
    # A missing value never satisfies a rule.
    assert not largest.holds(points(fifo=math.nan, pq=2.0, llq=1.0))
    assert not Claim("below", number=1.0).holds(one(math.nan))


def test_values_are_shown_to_three_figures_and_a_zero_width_is_left_out():
    assert value_text(Estimate(98.8, 97.9, 99.7, 10), "ms") == "98.8 ± 0.9 ms"
    assert value_text(Estimate(26.2, 26.2 - 3e-12, 26.2 + 3e-12, 10), "ms") == "26.2 ms"
    assert value_text(Estimate(3652.0, 3575.0, 3729.0, 10), "ms") == "3,652 ± 77 ms"
    assert value_text(Estimate(math.nan, math.nan, math.nan, 0), "ms") == "n/a"


# --- study folders ---------------------------------------------------------------------


@pytest.fixture
def study_copy(tmp_path):
    """A copy of the congestion lab's folder to break."""
    folder = tmp_path / "congestion-mgmt-lab"
    shutil.copytree(STUDIES / "congestion-mgmt-lab", folder)
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "published.yaml",
            "metric: voice_loss\n    at: {variant: base, scheme: llq}",
            "metric: voice_los\n    at: {variant: base, scheme: llq}",
            r"published\.yaml:\d+:13: values\[1\]\.metric: no metric `voice_los`",
        ),
        (
            "published.yaml",
            "at: {variant: base, scheme: llq}",
            "at: {variant: base, scheme: lq}",
            r"published\.yaml:\d+:\d+: values\[1\]\.at\.scheme: `lq` is not a value of axis "
            r"`scheme` — its values are: fifo, pq",
        ),
        (
            "published.yaml",
            "published: {value: 0}",
            "published: {valu: 0}",
            r"values\[1\]\.published\.valu: unknown key `valu`",
        ),
        (
            "published.yaml",
            "    at: {variant: base, scheme: llq}\n    published: {value: 0}",
            "    at: {scheme: llq}\n    published: {value: 0}",
            r"values\[1\]: `at` does not pick one point of experiment `schemes` — give variant",
        ),
        (
            "study.yaml",
            "scenario: testbed.yaml",
            "scenario: missing.yaml",
            r"study\.yaml:\d+:15: experiments\.schemes\.scenario: no file `missing\.yaml`",
        ),
        (
            "study.yaml",
            "      - voice-rate\n",
            "",
            r"published\.yaml:\d+:9: values\[21\]\.id: `voice-rate` is in no table",
        ),
        (
            "study.yaml",
            "replications: 10",
            "replications: 0",
            r"replications: expected a whole number",
        ),
        ("published.yaml", "  - id: loss-llq", "  - id: loss-llq\n  - id: [", r"not valid YAML"),
    ],
)
def test_study_errors_name_the_place_and_the_fix(study_copy, file, old, new, expected):
    edit(study_copy / file, old, new)
    with pytest.raises(StudyError, match=expected):
        load(study_copy)


def test_an_unknown_study_lists_the_installed_ones():
    with pytest.raises(
        StudyError, match=r"no study `nope`: the installed studies are .*congestion-mgmt-lab"
    ):
        load("nope")


def test_every_installed_study_loads_and_is_in_the_catalogue():
    assert names(), "no study is installed"
    for name in names():
        study = load(name)
        assert name in catalogue()
        # Every value is in a table, and every value not reproduced can say why.
        assert study.published
        assert study.experiments


# --- reproductions --------------------------------------------------------------------


@pytest.mark.parametrize("name", names())
def test_each_study_reproduces_in_its_quick_setting_with_well_formed_documents(tmp_path, name):
    result = reproduce(
        name, tmp_path, Setting(quick=True, progress=False), f"qoslab reproduce {name} --quick"
    )
    study = result.study
    assert all(len(s.failures) == 0 for s in result.ran.sweeps.values())
    # One verdict per published value, each a known verdict, and the counts add up.
    rows = list(csv.DictReader((tmp_path / name / "verdicts.csv").open()))
    assert [row["id"] for row in rows] == list(study.published)
    assert {row["verdict"] for row in rows} <= set(VERDICTS)
    assert sum(result.written.counts.values()) == len(study.published)
    # Every value judged has a qoslab value; the ones not modelled have a reason.
    for row in rows:
        if row["verdict"] == NOT_MODELLED:
            assert row["why"]
        else:
            assert row["qoslab"] not in ("", "—", "n/a"), row
    markdown = (tmp_path / f"{name}.md").read_text()
    assert markdown.startswith(f"# {study.title}")
    assert f"`qoslab reproduce {name} --quick`" in markdown
    for figure in study.figures:
        svg = tmp_path / name / f"{figure.name}.svg"
        assert svg.read_text().startswith("<svg")
        assert f"({name}/{figure.name}.svg)" in markdown
    html = (tmp_path / f"{name}.html").read_text()
    assert html.count("<svg") == len(study.figures)
    assert "<script" not in html


def test_a_study_figure_can_be_one_of_qoslabs_plots(study_copy, tmp_path):
    edit(
        study_copy / "study.yaml",
        "figures:\n",
        "figures:\n  - {name: cdf, title: Delay distribution under FIFO, cite: none, kind: plot, "
        "plot: delay_cdf, experiment: schemes, args: {flows: [voice]}, "
        "at: {variant: base, scheme: fifo}, replication: 0}\n"
        "  - {name: all, title: Voice delay, cite: none, kind: plot, plot: bars, "
        "experiment: schemes, args: {metric: delay_mean_ms}}\n",
    )
    result = reproduce(study_copy, tmp_path, Setting(quick=True, progress=False), "qoslab")
    assert (tmp_path / "congestion-mgmt-lab" / "cdf.svg").read_text().startswith("<svg")
    assert (tmp_path / "congestion-mgmt-lab" / "all.svg").read_text().startswith("<svg")
    assert "![Delay distribution under FIFO]" in result.written.markdown.read_text()
    edit(study_copy / "study.yaml", "plot: delay_cdf", "plot: delay_pdf")
    with pytest.raises(StudyError, match="qoslab has no plot `delay_pdf` — use one of bars"):
        load(study_copy)


def test_the_command_lists_reproduces_and_refuses(tmp_path, capsys):
    assert main(["reproduce", "--list"]) == 0
    listing = capsys.readouterr().out
    for name in catalogue():
        assert name in listing
    assert main(["reproduce", "nope", "-o", str(tmp_path)]) == 2
    assert "no study `nope`" in capsys.readouterr().err
    assert main(["reproduce", "-o", str(tmp_path)]) == 2
    assert main(["reproduce", "congestion-mgmt-lab", "--reps", "0"]) == 2
    status = main(["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "-o", str(tmp_path)])
    out = capsys.readouterr().out
    assert "reproduced" in out
    assert (tmp_path / "congestion-mgmt-lab.md").is_file()
    assert status in (0, 1)  # 1 only when a quick run leaves a value unexplained


# --- the committed pages ----------------------------------------------------------------


def committed_studies() -> list[str]:
    return sorted(p.stem for p in DOCS.glob("*.md") if p.name != "README.md")


def test_the_committed_pages_cover_every_installed_study():
    assert sorted(names()) == committed_studies()


@pytest.mark.parametrize("name", committed_studies())
def test_a_committed_page_agrees_with_its_verdicts_and_explains_every_difference(name):
    page = (DOCS / f"{name}.md").read_text()
    assert "Not explained yet" not in page
    assert re.search(r"Regenerated by `qoslab reproduce --all -o docs/studies` — qoslab ", page)
    rows = list(csv.DictReader((DOCS / name / "verdicts.csv").open()))
    for verdict in VERDICTS:
        n = sum(1 for row in rows if row["verdict"] == verdict)
        assert f"| {verdict} | {n} |" in page
    for row in rows:
        if row["verdict"] != REPRODUCED:
            assert row["why"], f"{name}: {row['id']} is {row['verdict']} without a reason"
    index = (DOCS / "README.md").read_text()
    assert f"[{name}]({name}.md)" in index
