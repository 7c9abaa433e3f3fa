"""``qoslab reproduce``: the verdict rules, study folders read with located errors, every
installed study reproduced in its quick setting with well-formed documents, and the
committed study pages consistent with their verdicts."""

from __future__ import annotations

import csv
import math
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import qoslab
from qoslab.analysis.estimate import Estimate, estimate, paired_difference
from qoslab.analysis.verdict import (
    APART,
    DERIVED,
    DIFFERS,
    DUPLICATE,
    INCONSISTENT,
    INPUT,
    INPUT_CONFIRMED,
    INPUT_DIFFERS,
    NOT_MODELLED,
    REPRODUCED,
    SAME_CONCLUSION,
    STUDY_INCONSISTENT,
    VERDICTS,
    Claim,
    Tolerance,
    apart,
    judge,
    outcome,
)
from qoslab.cli import main
from qoslab.plot import tcp_sequence
from qoslab.reproduce import Setting, StudyError, catalogue, names, reproduce, write_index
from qoslab.reproduce.document import as_printed
from qoslab.reproduce.figures import labelled, traced
from qoslab.reproduce.judged import pair_text, value_text
from qoslab.reproduce.measure import Measurements, where_mask
from qoslab.reproduce.model import STUDIES, Experiment, Study
from qoslab.reproduce.run import Ran, run_experiment, run_study
from qoslab.reproduce.sensitivity import Change, Robustness, outcomes_at_ends
from qoslab.reproduce.study import load

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "studies"


def one(mean: float, low: float | None = None, high: float | None = None) -> dict:
    return {None: Estimate(mean, mean if low is None else low, mean if high is None else high, 3)}


def runs(*values: float) -> dict:
    """One quantity's estimate from its replications' values."""
    return {None: estimate(np.array(values), "t")}


def points(**series: float | list[float]) -> dict:
    """Estimates at points along an axis, each from its replications' values (a single
    number: three equal replications)."""
    return {
        name: estimate(np.array(v if isinstance(v, list) else [v, v, v], dtype=float), "t")
        for name, v in series.items()
    }


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


def test_the_studys_interval_widens_the_band_and_qoslabs_interval_plays_no_part():
    claim = Claim("value", number=40.2, ci=(40.0, 40.4))  # band 40.0 - 6.03 to 40.4 + 6.03
    assert claim.band() == pytest.approx((33.97, 46.43))
    assert claim.holds(one(46.4))
    assert not claim.holds(one(46.5))
    assert claim.holds(one(34.0, 34.0, 34.0))  # a zero-width interval is no disagreement
    # A wide interval that reaches the study's is no agreement: the mean is 25 % off.
    assert not claim.holds(one(30.0, 20.0, 40.1))


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


def test_the_studys_own_criterion_judges_the_replications_not_the_mean():
    within = Claim("below", number=1.0, runs="every")
    # 18 of 20 runs at 0.5 of the budget, two at 1.8: the mean (0.63) is within, the
    # criterion is not met.
    values = [0.5] * 18 + [1.8, 1.8]
    assert Claim("below", number=1.0).holds(runs(*values))
    assert not within.holds(runs(*values))
    assert within.holds(runs(*([0.5] * 20)))
    assert not within.holds(runs(0.5, math.nan, 0.5))  # a run without a value fails it
    # "Outside its budget": some run is over, though the mean is within.
    over = Claim("above", number=1.0, runs="some")
    assert over.holds(runs(*values))
    assert not Claim("above", number=1.0).holds(runs(*values))
    assert not over.holds(runs(*([0.5] * 20)))


def test_orderings_are_judged_on_paired_differences_and_a_tie_is_not_an_order():
    ranking = Claim(
        "order",
        order=(("llq", "pq"), ("cbwfq",), ("fifo",)),
        over="scheme",
        tolerance=Tolerance(relative=None, absolute=0.5),
    )
    assert ranking.holds(points(llq=0.0, pq=0.3, cbwfq=10.0, fifo=80.0))
    assert not ranking.holds(points(llq=0.0, pq=0.6, cbwfq=10.0, fifo=80.0))  # not equal
    assert not ranking.holds(points(llq=0.0, pq=0.3, cbwfq=90.0, fifo=80.0))  # out of order
    # Means 2.6 apart, but the replications disagree on the sign: paired differences
    # +10, -5, +2.8 (mean 2.6, t interval -16 to 21): a tie.
    a = [10.0, 20.0, 30.0]
    tie = Claim("order", order=(("a",), ("b",)), over="x")
    assert not tie.holds(points(a=a, b=[20.0, 15.0, 32.8]))
    pair = tie.pairs(points(a=a, b=[20.0, 15.0, 32.8]))[0]
    assert (pair.lower, pair.upper) == ("a", "b")
    assert pair.difference.mean == pytest.approx(2.6)
    assert pair.difference.low < 0 < pair.difference.high
    # Side by side the two intervals overlap widely, yet every replication moves the same
    # way: paired, b is above a (differences 0.9, 1.0, 1.1).
    assert tie.holds(points(a=a, b=[10.9, 21.0, 31.1]))
    # A stated practical margin must be cleared by the whole interval.
    assert not replace(tie, margin=1.0).holds(points(a=a, b=[10.9, 21.0, 31.1]))
    assert replace(tie, margin=0.5).holds(points(a=a, b=[10.9, 21.0, 31.1]))
    largest = Claim("largest", order=(("fifo",), ("pq", "llq")), over="scheme")
    assert largest.holds(points(fifo=3.0, pq=2.0, llq=1.0))
    assert not largest.holds(points(fifo=3.0, pq=3.0, llq=1.0))
    assert Claim("smallest", order=(("pq",), ("llq",)), over="s").holds(points(pq=0.0, llq=1.0))
    # A missing value never satisfies a rule.
    assert not largest.holds(points(fifo=math.nan, pq=2.0, llq=1.0))
    assert not Claim("below", number=1.0).holds(one(math.nan))


def test_the_paired_interval_follows_the_studys_interval_kind():
    # Differences 1, 2, 3: mean 2, s = 1; t(2) = 4.303 gives ±2.48 (a tie), z = 1.96 ±1.13.
    claim = Claim("order", order=(("a",), ("b",)), over="x")
    estimates = points(a=[0.0, 0.0, 0.0], b=[1.0, 2.0, 3.0])
    assert not claim.holds(estimates, "t")
    assert claim.holds(estimates, "normal")
    assert paired_difference(estimates["a"], estimates["b"], "normal").half_width == (
        pytest.approx(1.959964 / math.sqrt(3), rel=1e-6)
    )


def test_an_extreme_among_some_points_compares_only_those():
    claim = Claim("smallest", order=(("pq",), ("wfq", "cbwfq")), over="variant", among=True)
    assert claim.describe("ms") == "pq the smallest of pq, wfq, cbwfq"
    assert claim.holds(points(pq=1.0, wfq=2.0, cbwfq=3.0))
    assert not claim.holds(points(pq=2.0, wfq=2.0, cbwfq=3.0))  # a tie is not the smallest
    everyone = Claim("largest", order=(("fifo",), ("pq",)), over="scheme")
    assert everyone.describe() == "fifo the largest of all"


def test_the_weakest_pair_of_an_ordering_is_shown_with_whether_it_is_a_tie():
    claim = Claim("order", order=(("a",), ("b",), ("c",)), over="x")
    estimates = points(a=[1.0, 2.0, 3.0], b=[1.5, 2.5, 3.5], c=[1.0, 4.0, 4.0])
    pairs = claim.pairs(estimates)
    assert [(p.lower, p.upper) for p in pairs] == [("a", "b"), ("b", "c")]
    # b - a is exactly 0.5 in every replication; c - b is -0.5, +1.5, +0.5: a tie.
    assert pair_text(pairs[0], "ms", 0.0) == "b - a +0.500 ms"
    assert pair_text(pairs[1], "ms", 0.0) == "c - b +0.500 ± 2.484 ms, a tie"
    assert pair_text(pairs[0], "ms", 1.0) == "b - a +0.500 ms, within the margin 1"
    backwards = claim.pairs(points(a=[2.0, 3.0, 4.0], b=[1.0, 2.0, 3.1], c=[9.0, 9.0, 9.0]))[0]
    assert pair_text(backwards, "", 0.0).endswith(", the other way")


def test_a_values_robustness_names_each_end_that_changes_its_outcome():
    assert Robustness().robust
    assert Robustness().text() == ""
    fragile = Robustness((Change("tx-ring", "1", REPRODUCED), Change("tx-ring", "4", DIFFERS)))
    assert not fragile.robust
    assert fragile.text() == "tx-ring 1 → reproduced; tx-ring 4 → differs"


def test_the_runs_of_a_ranges_ends_are_kept_apart_in_a_runs_folder(tmp_path):
    runs = tmp_path / "runs"
    setting = Setting(quick=True, progress=False, runs=runs)
    reproduce("congestion-mgmt-lab", tmp_path / "out", setting, "qoslab reproduce")
    kept = sorted(p.name for p in runs.iterdir() if p.is_dir())
    assert kept == ["schemes", "schemes-tx-ring-1-packet", "schemes-tx-ring-4-packets"]


def test_a_range_runs_neither_the_folders_own_end_nor_variants_it_leaves_out(tmp_path):
    folder = copy_study(tmp_path, "congestion-mgmt-lab")
    edit(
        folder / "study.yaml",
        "    key: topology.links.1.tx_ring\n",
        '    key: topology.links.1.tx_ring\n    own: "1 packet"\n    variants: [base]\n',
    )
    study = load(folder)
    (assumption,) = study.sensitivity
    assert assumption.run_ends == ("4 packets",)
    setting = Setting(quick=True, progress=False, runs=tmp_path / "runs")
    ran = run_study(study, setting)
    at_ends = outcomes_at_ends(study, setting, ran)
    assert list(at_ends) == [("tx-ring", "4 packets")]
    kept = sorted(p.name for p in (tmp_path / "runs").iterdir() if p.is_dir())
    assert kept == ["schemes", "schemes-tx-ring-4-packets"]
    own = ran.sweeps["schemes"]
    end = run_experiment(
        study,
        study.experiments["schemes"],
        setting,
        [],
        changes=assumption.ends.settings_at("4 packets"),
        folder="schemes-tx-ring-4-packets",
        only=assumption.variants,
    )
    assert own.variants == ["base", "finite"]
    assert end.variants == ["base"]
    assert len(end.index) * 2 == len(own.index)


def test_inputs_and_the_studys_inconsistencies_are_counted_apart():
    assert outcome(INPUT, REPRODUCED) == INPUT_CONFIRMED
    assert outcome(INPUT, DIFFERS) == INPUT_DIFFERS
    assert outcome(INCONSISTENT, DIFFERS) == STUDY_INCONSISTENT
    assert outcome(DERIVED, DIFFERS) == DIFFERS
    rows = [
        (INPUT, INPUT_CONFIRMED),
        (INCONSISTENT, STUDY_INCONSISTENT),
        (DERIVED, REPRODUCED),
        (DUPLICATE, DIFFERS),
        ("result", REPRODUCED),
    ]
    assert apart(rows) == {
        INPUT_CONFIRMED: 1,
        INPUT_DIFFERS: 0,
        STUDY_INCONSISTENT: 1,
        DERIVED: 1,
        DUPLICATE: 1,
    }


def test_values_are_shown_to_three_figures_and_a_zero_width_is_left_out():
    assert value_text(Estimate(98.8, 97.9, 99.7, 10), "ms") == "98.8 ± 0.9 ms"
    assert value_text(Estimate(26.2, 26.2 - 3e-12, 26.2 + 3e-12, 10), "ms") == "26.2 ms"
    assert value_text(Estimate(3652.0, 3575.0, 3729.0, 10), "ms") == "3,652 ± 77 ms"
    assert value_text(Estimate(math.nan, math.nan, math.nan, 0), "ms") == "n/a"


# --- study folders ---------------------------------------------------------------------


@pytest.fixture
def study_copy(tmp_path):
    """A copy of the congestion lab's folder to break."""
    return copy_study(tmp_path, "congestion-mgmt-lab")


def copy_study(tmp_path: Path, name: str) -> Path:
    """A copy of the installed study ``name`` under ``tmp_path``."""
    folder = tmp_path / name
    shutil.copytree(STUDIES / name, folder)
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
        (
            "study.yaml",
            'values: {"1 packet": 1, "4 packets": 4}',
            'values: {"1 packet": 1}',
            r"study\.yaml:\d+:\d+: sensitivity\.tx-ring\.values: a range has two ends, not 1 — "
            r"give the low and the high end",
        ),
        (
            "study.yaml",
            "    key: topology.links.1.tx_ring\n",
            "    key: topology.links.1.tx_ring\n    experiments: [schemz]\n",
            r"sensitivity\.tx-ring\.experiments\[0\]: no experiment `schemz` — the experiments "
            r"are: schemes",
        ),
        (
            "study.yaml",
            "  tx-ring:\n    about: >-\n",
            "  tx-ring:\n    abut: >-\n",
            r"sensitivity\.tx-ring",
        ),
        (
            "study.yaml",
            "    key: topology.links.1.tx_ring\n",
            "    key: topology.links.1.tx_ring\n    own: 2 packets\n",
            r"sensitivity\.tx-ring\.own: `2 packets` is not one of the range's ends — name the "
            r"end that is the folder's own value: 1 packet, 4 packets",
        ),
        (
            "study.yaml",
            "    key: topology.links.1.tx_ring\n",
            "    key: topology.links.1.tx_ring\n    variants: [base, finit]\n",
            r"sensitivity\.tx-ring\.variants\[1\]: `finit` is not a variant of the range's "
            r"experiments — their variants are: schemes: base, finite",
        ),
        (
            "study.yaml",
            "    key: topology.links.1.tx_ring\n",
            "    key: topology.links.1.tx_ring\n    variants: [finite]\n",
            r"sensitivity\.tx-ring\.variants: range `tx-ring` runs variants finite, but "
            r"`\S+` is read at base — add those variants",
        ),
        (
            "published.yaml",
            "    published: {value: 0}",
            "    published: {value: 0}\n    role: derivd",
            r"values\[1\]\.role: `derivd` is not a role — use one of result, input, "
            r"inconsistent, derived, duplicate",
        ),
        (
            "published.yaml",
            "    published: {value: 0}",
            "    published: {value: 0}\n    role: derived",
            r"values\[1\]\.role: `of` names the published values a derived value or a "
            r"duplicate comes from",
        ),
        (
            "published.yaml",
            "    published: {value: 0}",
            "    published: {value: 0}\n    role: duplicate\n    of: [no-such-id]",
            r"values\[1\]\.id: `loss-llq` is duplicate of `no-such-id`, which is not another",
        ),
        (
            "published.yaml",
            "    published: {value: 0}",
            "    published: {value: 0}\n    role: inconsistent",
            r"values\[1\]\.role: a value the study's own data contradict says why — add `why` "
            r"of kind `study`",
        ),
        (
            "published.yaml",
            "    published: {value: 0}",
            "    published: {value: 0}\n    margin: 1",
            r"values\[1\]\.margin: `margin` is the practical difference an ordering's points",
        ),
        (
            "published.yaml",
            "    published: {value: 0}",
            "    published: {value: 0}\n    runs: all",
            r"values\[1\]\.runs: `runs` judges a threshold, range or number on the mean, or "
            r"on `every` or `some` replication",
        ),
    ],
)
def test_study_errors_name_the_place_and_the_fix(study_copy, file, old, new, expected):
    edit(study_copy / file, old, new)
    with pytest.raises(StudyError, match=expected):
        load(study_copy)


@pytest.fixture
def lmr_copy(tmp_path):
    """A copy of the LMR thesis' folder to break."""
    return copy_study(tmp_path, "lmr-voip-thesis")


def test_rules_and_figures_run_along_the_variants(lmr_copy):
    study = load(lmr_copy)
    row = study.published["pq-best-aj-continuous"]
    assert (row.claim.over, row.claim.order, row.claim.among) == (
        "variant",
        (("pq",), ("wfq", "cbwfq")),
        True,
    )
    conclusion = study.published["t4-7-c-aj"].conclusion
    assert (conclusion.over, conclusion.order) == ("variant", (("wfq",), ("wfq-2",)))
    figure = study.figures[0]
    assert (figure.over, figure.group) == ("variant", "mode")
    assert study.tables[0].notes


@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (
            "published.yaml",
            "among: [pq, wfq, cbwfq], over: variant}",
            "among: [pq, wfx, cbwfq], over: variant}",
            r"published\.yaml:\d+:\d+: values\[\d+\]\.published\.among\[1\]: `wfx` is not a "
            r"value of `variant`",
        ),
        (
            "published.yaml",
            "{order: [wfq, wfq-2], over: variant}",
            "{order: [wfq, wfq-2], over: varient}",
            r"has no axis `varient` — compare along one of: mode, variant",
        ),
        (
            "published.yaml",
            "{order: [wfq, wfq-2], over: variant}",
            "{order: [wfq, wfq-2], among: [wfq], over: variant}",
            r"`among` limits `largest` and `smallest` — remove `among`",
        ),
        (
            "study.yaml",
            "metrics: [utp], over: variant, group: mode}",
            "metrics: [utp], over: variant, group: variant}",
            r"figures\[0\]\.group: experiment `queuing` cannot group by `variant` — group by "
            r"another of: mode, variant",
        ),
    ],
)
def test_rules_along_the_variants_are_checked(lmr_copy, file, old, new, expected):
    edit(lmr_copy / file, old, new)
    with pytest.raises(StudyError, match=expected):
        load(lmr_copy)


def test_a_trials_table_shows_the_numbers_as_printed_and_its_notes(tmp_path):
    result = reproduce(
        "lmr-voip-thesis", tmp_path, Setting(quick=True, progress=False), "qoslab reproduce"
    )
    markdown = result.written.markdown.read_text()
    # Table 4-2, continuous: T1 as printed (15.394), beside qoslab's value.
    assert re.search(r"\| T1 \| 15\.394 \\\| [\d.]+ \| 5\.399 \\\| ", markdown)
    assert "Notes on the published numbers:" in markdown
    assert "so 124 is read" in markdown
    assert "pq the smallest of pq, wfq, cbwfq" in markdown
    assert as_printed(15.394) == "15.394"
    assert as_printed(13.0) == "13"
    assert as_printed(1234.5) == "1,234.5"


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
    assert {row["verdict"] for row in rows} <= {*VERDICTS, *APART}
    results = [r for r in study.published.values() if r.role == "result"]
    assert sum(result.written.tally.counts.values()) == len(results)
    roles = [r.role for r in study.published.values()]
    assert result.written.tally.apart[DERIVED] == roles.count(DERIVED)
    assert sum(result.written.tally.apart[o] for o in APART) == roles.count(INPUT) + roles.count(
        INCONSISTENT
    )
    judged = [row["robust"] for row in rows if row["role"] == "result" and row["robust"]]
    robust = (judged.count("yes"), len(judged)) if study.sensitivity else None
    assert result.written.tally.robust == robust
    check_verdict_rules(rows, name)
    check_robustness(rows, study, (tmp_path / f"{name}.md").read_text())
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


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0.04, "under 0.1 s"), (0.42, "0.4 s"), (9.9, "9.9 s"), (9.96, "10 s"), (55.4, "55 s")],
)
def test_the_time_of_a_studys_runs_is_shown_to_a_tenth_under_ten_seconds(seconds, shown):
    assert Ran(sweeps={}, replications={}, seconds=seconds).took == shown


def test_the_command_lists_reproduces_and_refuses(tmp_path, capsys):
    assert main(["reproduce", "--list"]) == 0
    listing = capsys.readouterr().out
    lines = listing.splitlines()
    for name in catalogue():
        assert name in lines
    assert "\\x" not in listing, "a description's line breaks printed as escapes"
    assert lines[1].startswith("    ")
    assert len(lines[1].split()) > 5
    assert main(["reproduce", "nope", "-o", str(tmp_path)]) == 2
    assert "no study `nope`" in capsys.readouterr().err
    assert main(["reproduce", "-o", str(tmp_path)]) == 2
    assert main(["reproduce", "congestion-mgmt-lab", "--reps", "0"]) == 2
    status = main(["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "-o", str(tmp_path)])
    out = capsys.readouterr().out
    assert "reproduced" in out
    assert (tmp_path / "congestion-mgmt-lab.md").is_file()
    assert status in (0, 1)  # 1 only when a quick run leaves a value unexplained


def test_a_grid_table_keeps_the_studys_rows_and_columns(study_copy, tmp_path):
    # A grid of two rows and two columns, one cell left empty, and a value qoslab does not
    # judge shown beside the metric it names.
    edit(
        study_copy / "study.yaml",
        "tables:\n",
        "tables:\n  - name: grid\n    title: Loss and delay\n    layout: grid\n"
        "    columns: [loss, delay]\n    rows:\n"
        "      - {label: LLQ, cells: [loss-llq, delay-llq]}\n"
        "      - {label: PQ, cells: [shown-pq, null]}\n",
    )
    edit(
        study_copy / "published.yaml",
        "values:\n",
        "values:\n  - {id: shown-pq, cite: none, says: PQ's voice loss unjudged, "
        "metric: voice_loss, at: {variant: base, scheme: pq}, shown: a score, "
        "why: {kind: model, text: A score qoslab does not compute.}}\n",
    )
    result = reproduce(study_copy, tmp_path, Setting(quick=True, progress=False), "qoslab")
    markdown = result.written.markdown.read_text()
    assert "| | loss | delay |" in markdown
    # "<" as an entity: Markdown shows it as the character, and nothing reads as HTML.
    assert re.search(
        r"\| LLQ \| 0 % \\\| [\d.]+ % \(R\) \| &lt; 100 ms \\\| [\d.,± ]+ ms \([RSD]\) \|",
        markdown,
    )
    assert re.search(r"\| PQ \| a score \\\| [\d.]+ % \(N\) \| \|", markdown)
    row = next(j for j in result.judged if j.row.id == "shown-pq")
    assert row.verdict == NOT_MODELLED
    assert row.estimates[None].mean == pytest.approx(0.0)
    assert result.written.html.read_text().count('<th colspan="3">') == 2
    edit(study_copy / "study.yaml", "[shown-pq, null]", "[shown-pq]")
    with pytest.raises(
        StudyError, match=r"tables\[0\]\.rows\[1\]\.cells: 1 cells for 2 columns — give one"
    ):
        load(study_copy)


def test_a_where_pattern_picks_the_copies_of_an_entry():
    frame = pd.DataFrame({"flow": ["voip-ab.1", "voip-ab.12", "voip-ba.1", "video"]})
    metric = load("congestion-mgmt-lab").metrics["voice_loss"]
    assert list(where_mask(frame, metric, {"flow": "voip-ab.*"})) == [True, True, False, False]
    both = {"flow": ["voip-ba.*", "video"]}
    assert list(where_mask(frame, metric, both)) == [False, False, True, True]
    assert list(where_mask(frame, metric, {"flow": "video"})) == [False, False, False, True]


def test_a_run_is_made_again_with_a_trace_for_a_plot_drawn_from_it(make_scenario, tmp_path):
    scenario = make_scenario()
    scenario["traffic"].append(
        {"name": "ftp", "from": "a", "to": "b", "start": "600ms"}
        | {"app": {"kind": "bulk", "size": "50kB"}}
    )
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(scenario))
    runs = qoslab.sweep(str(path), vary={"traffic.0.pattern.rate_pps": [100, 200]}, reps=1)
    done = runs.results({"traffic.0.pattern.rate_pps": 200})
    experiment = Experiment("small", path, "", (), None, {}, None)
    again = traced(experiment, done, {"flows": ["ftp"]})
    assert again.run["overrides"][-1] == 'measure.trace={"flows": ["ftp"]}'
    pd.testing.assert_frame_equal(again.flows, done.flows)  # the same run, now traced
    trace = again.trace()
    assert set(trace["flow"].astype(str)) == {"ftp", "ftp.reverse"}
    assert trace["tcp_seq"].notna().all()
    assert series_of(tcp_sequence(again)) >= 1


def test_a_traced_figure_is_one_run(study_copy):
    edit(
        study_copy / "study.yaml",
        "figures:\n",
        "figures:\n  - {name: t, title: t, cite: none, kind: plot, plot: tcp_sequence, "
        "experiment: schemes, trace: {flows: [voice]}}\n",
    )
    with pytest.raises(StudyError, match=r"figures\[0\]\.trace: a traced run is one run"):
        load(study_copy)


# --- an axis of several keys, an order of failure, plots of a point ---------------------

ZIPPED_SCENARIO = """\
name: zipped
run: {duration: 8s, warmup: 1s, seed: 2, phase: random}
topology:
  nodes: {a: {kind: host}, r: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r], rate: 10Mbps}
    - {between: [r, b], rate: 1Mbps, l2: hdlc}
policies:
  short: {kind: fifo, limit: 4}
  long: {kind: fifo, limit: 400}
interfaces: {r: {b: {output: short}}}
measure:
  at: [r->b]
  budgets:
    - {app: voice, per_hop: {delay: 30ms, loss: 1%}, end_to_end: {delay: 90ms, loss: 3%}}
    - {app: data, per_hop: {delay: 5s, loss: 60%}, end_to_end: {delay: 5s, loss: 60%}}
  order_of_failure: [data, voice]
traffic:
  - {name: voice, from: a, to: b, dscp: EF, pattern: {kind: cbr, rate_pps: 50, size: 200B}}
  - {name: data, from: a, to: b, pattern: {kind: poisson, rate: 300kbps, size: 1000B}}
"""

ZIPPED_STUDY = """\
name: zipped
title: An axis of two keys
source: none
about: A link that slows, with the queue written for each speed.
replications: 3
quick: {replications: 1}
experiments:
  e:
    scenario: zipped.yaml
    about: three speeds
    axes:
      speed:
        keys: [topology.links.1.rate, interfaces.r.b.output]
        values:
          fast: [1Mbps, short]
          slow: [256kbps, short]
          slow-deep: [256kbps, long]
metrics:
  loss:
    {experiment: e, table: flows, where: {flow: voice}, column: loss_pct, unit: "%", label: loss}
  inversions:
    experiment: e
    table: contracts
    where: {point: r->b, interval_ms: 250.0}
    failure: {over: speed}
    unit: inversions
    label: out of order
tables:
  - {name: t, title: t, layout: findings, rows: [deep-loses-less, order]}
figures:
  - name: f
    title: f
    cite: none
    kind: plot
    plot: in_contract
    experiment: e
    args: {by: speed, point: r->b}
"""

ZIPPED_PUBLISHED = """\
values:
  - id: deep-loses-less
    cite: none
    says: the deep queue loses less voice at the same speed
    metric: loss
    at: {}
    published: {order: [slow-deep, slow], over: speed}
  - id: order
    cite: none
    says: data fails first
    metric: inversions
    at: {}
    published: {value: 0}
    tolerance: 0.5
    why: {kind: study, text: voice has the tighter budget}
"""


@pytest.fixture
def zipped(tmp_path: Path) -> Path:
    """A study whose one axis sets the link's rate and the queue written for it together;
    two of its points share the rate."""
    folder = tmp_path / "zipped"
    folder.mkdir()
    (folder / "zipped.yaml").write_text(ZIPPED_SCENARIO)
    (folder / "study.yaml").write_text(ZIPPED_STUDY)
    (folder / "published.yaml").write_text(ZIPPED_PUBLISHED)
    return folder


def test_an_axis_sets_several_keys_and_a_failure_metric_counts_inversions(zipped, tmp_path):
    result = reproduce(zipped, tmp_path / "out", Setting(progress=False), "qoslab")
    sweep = result.ran.sweeps["e"]
    assert len(sweep.index) == 3 * 3
    assert not len(sweep.failures)
    measured = Measurements(result.study, result.ran.sweeps)
    # The two points at 256 kbit/s are told apart by the second key: the deeper queue loses
    # less, and each reads its own runs.
    slow = measured.trials("loss", {"speed": "slow"})
    deep = measured.trials("loss", {"speed": "slow-deep"})
    assert deep.mean() < slow.mean()
    runs = sweep.runs.flows
    at_slow = runs[(runs["interfaces.r.b.output"] == "short") & (runs["flow"] == "voice")]
    at_slow = at_slow[at_slow["topology.links.1.rate"] == "256kbps"]
    assert list(slow) == list(at_slow["loss_pct"])
    # The order of failure, replication by replication, as qoslab.order_of_failure gives it.
    axis = result.study.experiments["e"].axis("speed")
    for replication, counted in enumerate(measured.trials("inversions", {})):
        steps = [
            (value, sweep.results(axis.settings_at(value), replication=replication))
            for value in axis.values
        ]
        table = qoslab.order_of_failure(steps, point="r->b", interval_ms=250.0)
        late = sum(len(cell.split(", ")) for cell in table["fails_before"] if cell)
        assert counted == late
    assert (tmp_path / "out" / "zipped" / "f.svg").read_text().startswith("<svg")
    markdown = (tmp_path / "out" / "zipped.md").read_text()
    assert "(`topology.links.1.rate`, `interfaces.r.b.output`)" in markdown


def test_a_plot_of_a_point_sees_each_free_axis_as_one_labelled_parameter(zipped, tmp_path):
    result = reproduce(zipped, tmp_path / "out", Setting(quick=True, progress=False), "qoslab")
    experiment = result.study.experiments["e"]
    view = labelled(result.ran.sweeps["e"], experiment, {})
    assert view.parameters == ["speed"]
    assert list(view.index["speed"]) == ["fast", "slow", "slow-deep"]
    one = labelled(result.ran.sweeps["e"], experiment, {"speed": "slow-deep"})
    assert one.parameters == []
    assert len(one.index) == 1
    assert one.results().run["overrides"][-1] == "interfaces.r.b.output=long"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "slow-deep: [256kbps, long]",
            "slow-deep: [256kbps]",
            r"axes\.speed\.values\.slow-deep: give one setting for each of the 2 keys",
        ),
        (
            "keys: [topology.links.1.rate, interfaces.r.b.output]",
            "keys: [topology.links.1.rate]",
            r"axes\.speed\.keys: `keys` lists two or more different scenario keys",
        ),
        ("failure: {over: speed}", "failure: {over: rate}", r"failure\.over: .* no axis `rate`"),
        (
            "    failure: {over: speed}\n",
            "    failure: {over: speed}\n    column: loss_pct\n",
            r"an order of failure reads its own columns",
        ),
    ],
)
def test_axes_of_several_keys_and_failure_metrics_are_checked(zipped, old, new, expected):
    edit(zipped / "study.yaml", old, new)
    with pytest.raises(StudyError, match=expected):
        load(zipped)


def series_of(figure) -> int:
    """How many data series a figure draws."""
    return sum(len(axis.lines) for axis in figure.axes)


# --- the committed pages ----------------------------------------------------------------


def committed_studies() -> list[str]:
    return sorted(p.stem for p in DOCS.glob("*.md") if p.name != "README.md")


def test_the_committed_pages_cover_every_installed_study():
    assert sorted(names()) == committed_studies()


@pytest.mark.parametrize("name", committed_studies())
def test_a_committed_page_agrees_with_its_verdicts_and_explains_every_difference(name):
    page = (DOCS / f"{name}.md").read_text()
    assert "Not explained yet" not in page
    assert re.search(
        rf"Regenerated by `qoslab reproduce (--all|{re.escape(name)}) -o docs/studies` — qoslab ",
        page,
    )
    rows = list(csv.DictReader((DOCS / name / "verdicts.csv").open()))
    results = [row for row in rows if row["role"] == "result"]
    for verdict in VERDICTS:
        n = sum(1 for row in results if row["verdict"] == verdict)
        assert f"| {verdict} | {n} |" in page
    for outcome_name in (INPUT_CONFIRMED, INPUT_DIFFERS, STUDY_INCONSISTENT):
        n = sum(1 for row in rows if row["verdict"] == outcome_name)
        assert (f"| {outcome_name} | {n} |" in page) == (n > 0)
    for row in rows:
        if row["verdict"] not in (REPRODUCED, INPUT_CONFIRMED):
            assert row["why"], f"{name}: {row['id']} is {row['verdict']} without a reason"
    index = (DOCS / "README.md").read_text()
    line = next(line for line in index.splitlines() if line.startswith(f"| [{name}]({name}.md)"))
    judged = [row["robust"] for row in results if row["robust"]]
    share = f"{judged.count('yes')} of {len(judged)}" if judged else "no ranges"
    assert f"| {share} |" in line
    check_verdict_rules(rows, name)
    check_robustness(rows, load(name), page)
    # The counts again under each other reading its tables show, summing to the results.
    labels = list(dict.fromkeys(r.label for t in load(name).tables for r in t.also))
    header = "| verdict | count |" + "".join(f" {label} |" for label in labels)
    assert header in page
    lines = page.splitlines()
    counted = [next(line for line in lines if line.startswith(f"| {v} |")) for v in VERDICTS]
    for column in range(len(labels)):
        assert sum(int(line.split("|")[3 + column]) for line in counted) == len(results)


def test_a_study_reproduced_again_gives_its_committed_page_byte_for_byte(tmp_path):
    # The congestion lab's full reproduction takes seconds; the pages of every study are made
    # the same way, and carry nothing of the machine they were made on (no run time).
    name = "congestion-mgmt-lab"
    reproduce(name, tmp_path, Setting(progress=False), "qoslab reproduce --all -o docs/studies")
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    compared = [p for p in made if p.suffix in (".md", ".csv", ".svg")]
    assert Path(f"{name}.md") in compared
    assert Path(name, "verdicts.csv") in compared
    for path in compared:
        assert (tmp_path / path).read_bytes() == (DOCS / path).read_bytes(), path


def check_robustness(rows: list[dict[str, str]], study: Study, page: str) -> None:
    """A study that declares assumptions as ranges marks every judged value robust or not,
    says what each non-robust one depends on, and counts its robust results on the page."""
    sensitivity = study.sensitivity
    if not sensitivity:
        assert {row["robust"] for row in rows} == {""}
        assert "Assumptions as ranges" not in page
        return
    judged = [row for row in rows if row["rule"]]
    assert {row["robust"] for row in judged} <= {"yes", "no"}
    for row in judged:
        assert (row["robust"] == "no") == bool(row["depends"]), row["id"]
        for change in filter(None, row["depends"].split("; ")):
            assert change.split(" ")[0] in {a.name for a in sensitivity}, change
    results = [row for row in judged if row["role"] == "result"]
    robust = sum(1 for row in results if row["robust"] == "yes")
    assert f"**Robustness.** {robust} of the {len(results)} judged results" in page
    assert "## Assumptions as ranges" in page


def check_verdict_rules(rows: list[dict[str, str]], name: str) -> None:
    """Every ordering or extreme reproduced has paired intervals clear of zero (and of its
    margin); every number reproduced has qoslab's mean inside its band — never an
    overlap of intervals alone."""
    for row in rows:
        if row["verdict"] not in (REPRODUCED, INPUT_CONFIRMED):
            continue
        where = f"{name}: {row['id']}"
        if row["rule"] in ("order", "largest", "smallest"):
            assert float(row["paired_low"]) > float(row["margin"]), where
        if row["rule"] == "value" and "runs meet it" not in row["qoslab"]:
            assert float(row["band_low"]) <= float(row["mean"]) <= float(row["band_high"]), where


# --- windows of a series, shares and rises, timelines, per-experiment quick settings ------


def test_a_metric_picks_rows_by_lists_and_bounds_and_reduces_them_to_a_rise_or_a_share():
    import numpy as np

    from qoslab.reproduce.measure import reduce_rows
    from qoslab.reproduce.model import Metric

    frame = pd.DataFrame(
        {
            "flow": ["a", "b", "a", "a", "c"],
            "start_s": [0.0, 10.0, 20.0, 30.0, 40.0],
            "lost_packets": [0, 3, 5, 0, 2],
        }
    )

    def metric(per_run: str, **where: object) -> Metric:
        return Metric(
            name="m",
            experiment="e",
            table="series",
            where=where,
            column="lost_packets",
            expr=None,
            per_run=per_run,
            unit="",
            label="m",
        )

    m = metric("sum", flow=["a", "c"], start_s={"min": 10, "max": 40})
    assert where_mask(frame, m, m.where).tolist() == [False, False, True, True, True]
    m = metric("count", start_s={"above": 0, "below": 40}, lost_packets={"above": 0})
    assert where_mask(frame, m, m.where).tolist() == [False, True, True, False, False]
    values = frame["lost_packets"].to_numpy(dtype=float)
    assert reduce_rows(values, metric("range")) == 5.0
    share = metric("share")
    part = where_mask(frame, share, {"flow": "a"})
    assert reduce_rows(values, share, part) == pytest.approx(100 * 5 / 10)
    assert math.isnan(reduce_rows(np.zeros(3), share, np.ones(3, dtype=bool)))


@pytest.fixture
def janet_copy(tmp_path):
    """A copy of the JANET trial's folder to break."""
    return copy_study(tmp_path, "janet-qos-trial")


def test_a_timeline_and_an_experiments_quick_setting_are_read(janet_copy):
    study = load(janet_copy)
    figure = next(f for f in study.figures if f.name == "fig-9")
    assert (figure.kind, figure.clock) == ("timeline", "07:54")
    assert figure.panels[0] == ("ef_rtt_train", "be_rtt_train", "lbe_rtt_train")
    march = study.experiments["march-16"]
    assert march.quick_variants == ("base",)
    assert march.quick_overrides["traffic.f1-0755.stop"] == "150s"
    share = study.metrics["gsr_lbe_share"]
    assert (share.per_run, share.part) == ("share", {"class": "queue-1"})
    assert study.metrics["onset_0755"].where["start_s"] == {"min": 60.0, "max": 350.0}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "per_run: share, part: {class: queue-1}",
            "per_run: share",
            r"metrics\.gsr_lbe_share: `per_run: share` and `part` go together",
        ),
        (
            'start_s: {min: 60, max: 350}}, expr: "start_s - 60"',
            'start_s: {from: 60, max: 350}}, expr: "start_s - 60"',
            r"metrics\.onset_0755\.where\.start_s\.from: unknown key `from`",
        ),
        ('clock: "07:54"', 'clock: "7h54"', r"figures\[0\]\.clock: a time of day is written"),
        (
            "      - [offered_raw_interval, carried_raw_interval]\n  - name: fig-9-jittered",
            "      - [offered_raw_interval, gsr_premium]\n  - name: fig-9-jittered",
            r"figures\[0\]\.panels: the metrics of a timeline come from several experiments",
        ),
        (
            "      variants: [base]\n      set:",
            "      variants: [bse]\n      set:",
            r"experiments\.march-16\.quick\.variants\[0\]: `bse` is not one of the experiment",
        ),
    ],
)
def test_timeline_share_window_and_quick_errors_name_the_place(janet_copy, old, new, expected):
    edit(janet_copy / "study.yaml", old, new)
    with pytest.raises(StudyError, match=expected):
        load(janet_copy)


def test_reproducing_one_study_into_a_folder_with_an_index_updates_its_line(tmp_path, capsys):
    write_index({}, tmp_path, "qoslab reproduce --all")
    assert (
        "congestion-mgmt-lab](congestion-mgmt-lab.md)" not in (tmp_path / "README.md").read_text()
    )
    status = main(["reproduce", "congestion-mgmt-lab", "--quick", "--quiet", "-o", str(tmp_path)])
    assert status in (0, 1)
    index = (tmp_path / "README.md").read_text()
    assert "[congestion-mgmt-lab](congestion-mgmt-lab.md)" in index
    # One Markdown table: the header, its rule and a row per study, with no blank line.
    lines = index.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("| study |"))
    table = lines[start : start + 2 + len(catalogue())]
    assert all(line.startswith("|") for line in table), table
    assert table[1].startswith("|---")
    assert "`qoslab reproduce congestion-mgmt-lab --quick -o " in index
    capsys.readouterr()
