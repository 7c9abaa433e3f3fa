"""The answer of a sweep (qoslab.analysis.answer): per point and budgeted application, in
contract or not by the lower confidence bound of its share of intervals in contract, the
points meeting every budget and the cheapest of them — checked on shares laid out by hand,
then on a sweep of the congestion lab, in the terminal, the report and a notebook."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats

import qoslab
from qoslab import report
from qoslab.analysis.answer import answer
from qoslab.cli import main

OUTPUT = "interfaces.r1.r2.output"
RATE = "topology.links.1.rate"


def _contracts(shares: dict[tuple[str, str, str], list[float]]) -> pd.DataFrame:
    """``contracts`` rows: per (scheme, rate, app) the share in contract of each
    replication, at one observation point and interval length, with a delay budget."""
    records = []
    for (scheme, rate, app), values in shares.items():
        for replication, share in enumerate(values):
            records.append(
                {
                    OUTPUT: scheme,
                    RATE: rate,
                    "replication": replication,
                    "point": "end_to_end",
                    "app": app,
                    "interval_ms": 1000.0,
                    "delay_budget_ms": 150.0,
                    "loss_budget_pct": 1.0,
                    "in_contract_pct": share,
                }
            )
    # An application without a budget, which is never judged.
    records.append({**records[0], "app": "all", "delay_budget_ms": None, "loss_budget_pct": None})
    return pd.DataFrame.from_records(records)


POINTS = pd.DataFrame(
    {
        OUTPUT: ["fifo", "fifo", "llq", "llq"],
        RATE: ["128kbps", "256kbps", "128kbps", "256kbps"],
    }
)


def _lower_bound(values: list[float], confidence: float = 0.95) -> float:
    """The two-sided Student t interval's lower bound, by hand."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean - stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)


SHARES = {
    ("fifo", "128kbps", "voice"): [10.0, 20.0, 30.0],
    ("fifo", "128kbps", "data"): [100.0, 100.0, 100.0],
    ("fifo", "256kbps", "voice"): [96.0, 98.0, 100.0],  # mean 98, bound below 95
    ("fifo", "256kbps", "data"): [100.0, 100.0, 100.0],
    ("llq", "128kbps", "voice"): [99.0, 99.5, 100.0],  # bound 98.26
    ("llq", "128kbps", "data"): [97.0, 98.0, 99.0],  # bound 95.52
    ("llq", "256kbps", "voice"): [100.0, 100.0, 100.0],
    ("llq", "256kbps", "data"): [100.0, 100.0, 100.0],
}


def test_an_application_is_in_contract_when_its_lower_bound_reaches_the_target():
    found = answer(_contracts(SHARES), POINTS, target_pct=95.0)
    assert found.apps == ["voice", "data"]  # as declared; "all" has no budget
    verdicts = found.verdicts.set_index([OUTPUT, RATE, "app"])
    for (scheme, rate, app), values in SHARES.items():
        row = verdicts.loc[(scheme, rate, app)]
        expected = max(0.0, _lower_bound(values)) if len(set(values)) > 1 else values[0]
        assert row["low_pct"] == pytest.approx(expected, abs=1e-9)
        assert row["mean_pct"] == pytest.approx(sum(values) / len(values))
        assert row["in_contract"] == (expected >= 95.0)
    # 98 % on average is not enough when the interval reaches below the target.
    assert verdicts.loc[("fifo", "256kbps", "voice"), "mean_pct"] == pytest.approx(98.0)
    assert not verdicts.loc[("fifo", "256kbps", "voice"), "in_contract"]
    # A bound below zero is shown as zero: a share is never negative.
    assert _lower_bound([10.0, 20.0, 30.0]) < 0
    assert verdicts.loc[("fifo", "128kbps", "voice"), "low_pct"] == 0.0


def test_the_points_meeting_every_budget_and_the_cheapest():
    found = answer(_contracts(SHARES), POINTS, target_pct=95.0)
    assert found.points["every_app"].tolist() == [False, False, True, True]
    assert found.cost_keys == [RATE]
    assert found.cheapest == {OUTPUT: "llq", RATE: "128kbps"}
    weakest = found.points.set_index([OUTPUT, RATE]).loc[("llq", "128kbps")]
    assert weakest["weakest"] == "data"
    assert weakest["weakest_low_pct"] == pytest.approx(_lower_bound([97.0, 98.0, 99.0]))
    assert found.finding() == (
        "2 of the 4 points keep every application in contract: output llq, rate 128kbps; "
        "output llq, rate 256kbps. The cheapest: output llq, rate 128kbps."
    )
    # A stricter target leaves only the point where every share was 100 %.
    strict = answer(_contracts(SHARES), POINTS, target_pct=99.0)
    assert strict.cheapest == {OUTPUT: "llq", RATE: "256kbps"}
    # 100 % is met only where every interval of every replication was in contract.
    whole = answer(_contracts(SHARES), POINTS, target_pct=100.0)
    assert whole.points["every_app"].tolist() == [False, False, False, True]


def test_without_a_rate_among_the_keys_no_point_is_named_the_cheapest():
    shares = {k: v for k, v in SHARES.items() if k[1] == "256kbps"}
    points = POINTS[POINTS[RATE] == "256kbps"][[OUTPUT]]
    frame = _contracts(shares).drop(columns=[RATE])
    found = answer(frame, points, target_pct=95.0)
    assert found.points["every_app"].tolist() == [False, True]
    assert found.cost_keys == []
    assert found.cheapest is None
    assert "No varied key is a rate" in found.finding()


def test_one_replication_is_judged_on_its_share_and_a_missing_point_meets_nothing():
    shares = {k: v[:1] for k, v in SHARES.items() if k[0] == "llq"}
    found = answer(_contracts(shares), POINTS, target_pct=95.0)
    llq = found.verdicts[found.verdicts[OUTPUT] == "llq"]
    assert (llq["n"] == 1).all()
    assert llq["low_pct"].tolist() == llq["mean_pct"].tolist()
    # The fifo points have no rows (their runs failed): they meet no budget.
    assert found.points["every_app"].tolist() == [False, False, True, True]
    assert found.points["weakest"].tolist()[:2] == ["", ""]


def test_no_budget_and_a_bad_target():
    found = answer(None, POINTS)
    assert found.apps == []
    assert found.meeting.empty
    assert "declares no quality budgets" in found.sentence()
    with pytest.raises(ValueError, match="between 0 and 100"):
        answer(None, POINTS, target_pct=120.0)


@pytest.fixture(scope="module")
def lab_sweep(tmp_path_factory, examples_dir):
    """The congestion lab's voice budget, FIFO against LLQ at two line rates, 3 replications
    of 30 s."""
    folder = tmp_path_factory.mktemp("answer") / "sweep"
    command = [
        "sweep",
        str(examples_dir / "congestion-lab.yaml"),
        "--vary",
        f"{OUTPUT}=fifo,llq",
        "--vary",
        f"{RATE}=128kbps,256kbps",
        "--reps",
        "3",
        "--set",
        "run.duration=30s",
        "-o",
        str(folder),
        "--quiet",
    ]
    return command, folder


def test_the_sweep_leads_with_its_answer_in_the_terminal_report_and_notebook(lab_sweep, capsys):
    command, folder = lab_sweep
    assert main(command) == 0
    out = capsys.readouterr().out
    sweep = qoslab.load(folder)
    found = sweep.answer()
    # Voice under LLQ keeps its budget at both rates; FIFO at neither.
    assert found.points["every_app"].tolist() == [False, False, True, True]
    assert found.cheapest == {OUTPUT: "llq", RATE: "128kbps"}
    # The terminal: the verdict table comes before the flows table, then the sentence.
    assert out.index("in contract: lower 95 % bound") < out.index("flows: mean ±")
    assert "The cheapest: output llq, rate 128kbps." in " ".join(out.split())
    lines = [line.split() for line in out.splitlines()]
    assert ["llq", "128kbps", "✓", "100.0", "yes"] in lines
    assert any(line[:3] == ["fifo", "128kbps", "✗"] and line[-1] == "no" for line in lines)
    # The report: the answer is its first section, the cheapest point's row marked.
    page = report.render(sweep)
    assert page.index('id="answer"') < page.index('class="toc"')
    assert '<tr class="meets cheapest">' in page
    assert page.count('<tr class="fails">') == 2
    # A stricter target over the command line.
    assert main(["report", str(folder), "-o", str(folder / "r.html"), "--target", "101"]) == 2
    # The notebook leads with it too, the per-flow tables folded.
    html = sweep._repr_html_()
    assert html.index("The cheapest: output llq") < html.index("<details>")


def test_sweep_refuses_a_target_outside_zero_to_a_hundred(lab_sweep, capsys):
    command, folder = lab_sweep
    assert main([*command[:-3], "-o", str(folder.parent / "other"), "--target", "150%"]) == 2
    assert "--target 150%: give a share from 0 to 100 %" in capsys.readouterr().err
    assert not (folder.parent / "other").exists()
