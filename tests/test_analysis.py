"""Summaries of replicated runs: identity of rows, means with confidence intervals checked
against hand computation and coverage, determinism, and the trial-table layout."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import qoslab
from conftest import EXAMPLES, words
from qoslab.analysis import (
    DESCRIPTIVE_COLUMNS,
    IDENTITY_COLUMNS,
    STATISTIC_COLUMNS,
    STATISTIC_ROWS,
    summarize,
    thesis_table,
    wide,
)
from qoslab.analysis.columns import is_numeric
from qoslab.results import TABLES, columns

ROOT = Path(__file__).resolve().parent.parent

# Two-sided 95 % quantiles of Student's t from printed tables, for n - 1 = 2, 9 and 19
# degrees of freedom (three decimals).
T_TABLE_975 = {3: 4.303, 10: 2.262, 20: 2.093}


def replicated(values_by_group: dict[str, list[float]]) -> pd.DataFrame:
    """A flows-like table: one row per replication of each group's flow ``f``."""
    rows = [
        {"variant": variant, "flow": "f", "replication": k, "delay_ms": value}
        for variant, values in values_by_group.items()
        for k, value in enumerate(values)
    ]
    return pd.DataFrame(rows)


def row(summary: pd.DataFrame, **where: object) -> pd.Series:
    """The one summary row matching ``where``."""
    mask = np.ones(len(summary), dtype=bool)
    for column, value in where.items():
        mask &= (summary[column] == value).to_numpy()
    assert mask.sum() == 1, f"{mask.sum()} rows match {where}"
    return summary[mask].iloc[0]


# ---- which columns name, describe and measure a row ---------------------------------------


def test_every_table_has_identity_and_descriptive_columns():
    assert set(IDENTITY_COLUMNS) == set(TABLES)
    assert set(DESCRIPTIVE_COLUMNS) == set(TABLES)
    for table in TABLES:
        named = (*IDENTITY_COLUMNS[table], *DESCRIPTIVE_COLUMNS[table])
        assert set(named) <= set(columns(table)), table
        assert not set(IDENTITY_COLUMNS[table]) & set(DESCRIPTIVE_COLUMNS[table]), table


def test_the_core_numbers_each_tables_key_columns_from_one():
    # The roles come from the records' schemas: every table but `run` has a key, its
    # columns numbered 1, 2, ... without a gap.
    for table, schema in qoslab._core.table_schemas().items():
        ranks = sorted(column["key"] for column in schema if column["key"] is not None)
        assert ranks == list(range(1, len(ranks) + 1)), table
        assert bool(ranks) == (table != "run"), table


@pytest.fixture(scope="module")
def runs() -> list[qoslab.Results]:
    """Runs that between them fill every result table."""
    return [
        qoslab.run(
            EXAMPLES / "adhoc-annex-mix.yaml",
            set={"measure.interval_table": True, "measure.series": "1s"},
        ),
        qoslab.run(EXAMPLES / "lmr-push-to-talk.yaml"),
        qoslab.run(EXAMPLES / "adhoc-step-down.yaml"),
        qoslab.run(EXAMPLES / "janet-access-router.yaml"),
    ]


@pytest.mark.parametrize("table", TABLES)
def test_identity_columns_name_each_row_of_a_run(runs, table):
    frames = [getattr(results, table) for results in runs]
    assert any(len(frame) for frame in frames), f"no run fills {table}"
    for frame in frames:
        if frame.empty:
            continue
        identity = list(IDENTITY_COLUMNS[table])
        assert frame[identity].notna().all().all()
        assert not frame.duplicated(identity).any()
        # Whatever is neither identity nor description is a measurement: a number.
        named = {*identity, *DESCRIPTIVE_COLUMNS[table]}
        for column in frame.columns:
            assert column in named or is_numeric(frame[column]), (table, column)


def test_a_class_is_named_by_its_port_discipline_start_and_name(runs):
    # The interface replaced during the run lists the same class names once per discipline.
    classes = runs[2].classes
    assert classes.duplicated(["port", "class"]).any()
    assert not classes.duplicated(["port", "since_s", "class"]).any()


def test_summarize_replications_of_a_simulated_sweep(make_scenario):
    frames = []
    for limit in (5, 50):
        for replication in range(3):
            scenario = make_scenario(pattern={"kind": "poisson", "rate_pps": 260, "size": "500B"})
            results = qoslab.run(
                scenario,
                set={"policies.short.limit": limit, "run.replication": replication},
            )
            flows = results.flows.assign(
                **{"policies.short.limit": limit, "replication": replication, "seed": 1}
            )
            frames.append(flows)
    flows = pd.concat(frames, ignore_index=True)
    summary = summarize(flows, ["policies.short.limit"], table="flows")
    assert list(summary.columns) == ["policies.short.limit", "flow", "metric", *STATISTIC_COLUMNS]
    metrics = set(summary.metric)
    assert {"loss_pct", "delay_p99_ms", "dropped_tail_packets"} <= metrics
    assert not metrics & {"dscp", "src_port", "packet_size_bytes", "replication", "seed"}
    assert list(summary["policies.short.limit"].unique()) == [5, 50]
    for limit in (5, 50):
        sent = flows.loc[flows["policies.short.limit"] == limit, "sent_packets"]
        got = row(summary, **{"policies.short.limit": limit, "metric": "sent_packets"})
        assert got.n == 3
        assert got["mean"] == pytest.approx(sent.mean(), rel=1e-12)
        assert got["sd"] == pytest.approx(sent.std(ddof=1), rel=1e-12)
        assert got["min"] == sent.min()
        assert got["max"] == sent.max()
    # Poisson arrivals differ between replications, so the runs do not all agree.
    assert row(summary, **{"policies.short.limit": 5, "metric": "sent_packets"})["sd"] > 0
    # A longer queue drops less on the 1 Mbit/s link the flow overloads.
    loss = summary[summary.metric == "loss_pct"].set_index("policies.short.limit")["mean"]
    assert loss[50] < loss[5]


# ---- the statistics against hand computation ----------------------------------------------


@pytest.mark.parametrize("n", [3, 10, 20])
def test_mean_sd_and_half_width_match_the_formula(n):
    rng = np.random.default_rng(20 + n)
    values = rng.normal(loc=40.0, scale=5.0, size=n)
    summary = summarize(replicated({"a": list(values)}), ["variant"], table="flows")
    got = row(summary, metric="delay_ms")

    mean = sum(values) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1))
    half_width = T_TABLE_975[n] * sd / math.sqrt(n)
    assert got.n == n
    assert got["mean"] == pytest.approx(mean, rel=1e-12)
    assert got["sd"] == pytest.approx(sd, rel=1e-12)
    # The printed quantile has three decimals: at most 5e-4 off, 2.4e-4 relative at n = 20.
    assert got.ci_half_width == pytest.approx(half_width, rel=2.5e-4)
    exact = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    assert got.ci_half_width == pytest.approx(exact, rel=1e-12)
    assert got.ci_low == pytest.approx(mean - exact, rel=1e-12)
    assert got.ci_high == pytest.approx(mean + exact, rel=1e-12)
    assert got["min"] == values.min()
    assert got["max"] == values.max()


def test_normal_interval_uses_z():
    values = [15.394, 15.261, 15.599]
    summary = summarize(replicated({"a": values}), ["variant"], table="flows", interval="normal")
    got = row(summary, metric="delay_ms")
    assert got.ci_half_width == pytest.approx(1.959964 * np.std(values, ddof=1) / math.sqrt(3))


def test_confidence_level_changes_the_quantile():
    values = [1.0, 2.0, 4.0, 8.0]
    summary = summarize(replicated({"a": values}), ["variant"], table="flows", confidence=0.9)
    got = row(summary, metric="delay_ms")
    # t at 0.95 with 3 degrees of freedom is 2.353 (printed tables).
    assert got.ci_half_width == pytest.approx(2.353 * np.std(values, ddof=1) / 2.0, rel=2e-4)


def coverage(interval: str) -> float:
    """The share of 2000 simulated experiments of 10 replications whose interval holds the
    true mean 7."""
    rng = np.random.default_rng(2026)
    experiments, n, true_mean = 2000, 10, 7.0
    frame = pd.DataFrame(
        {
            "experiment": np.repeat(np.arange(experiments), n),
            "replication": np.tile(np.arange(n), experiments),
            "value": rng.normal(true_mean, 3.0, size=experiments * n),
        }
    )
    summary = summarize(frame, ["experiment"], keys=[], interval=interval)
    assert (summary.n == n).all()
    return float(((summary.ci_low <= true_mean) & (true_mean <= summary.ci_high)).mean())


def test_t_intervals_cover_the_true_mean_at_their_level():
    # Binomial sd of the share over 2000 experiments: sqrt(0.95 * 0.05 / 2000) = 0.0049; the
    # tolerance is three of them.
    assert coverage("t") == pytest.approx(0.95, abs=0.015)


def test_normal_intervals_cover_less_with_few_replications():
    # With 10 replications the z interval covers P(|T_9| < 1.96) = 0.918; binomial sd
    # sqrt(0.918 * 0.082 / 2000) = 0.0061, tolerance three of them.
    expected = 2 * stats.t.cdf(stats.norm.ppf(0.975), 9) - 1
    assert expected == pytest.approx(0.918, abs=5e-4)
    assert coverage("normal") == pytest.approx(expected, abs=0.018)


# ---- edge cases ----------------------------------------------------------------------------


def test_a_single_replication_has_no_spread_or_interval():
    got = row(summarize(replicated({"a": [3.5]}), ["variant"], table="flows"), metric="delay_ms")
    assert got.n == 1
    assert got["mean"] == 3.5
    assert got["min"] == got["max"] == 3.5
    for name in ("sd", "ci_half_width", "ci_low", "ci_high"):
        assert math.isnan(got[name]), name


def test_equal_values_have_zero_spread_exactly():
    got = row(
        summarize(replicated({"a": [0.1, 0.1, 0.1]}), ["variant"], table="flows"),
        metric="delay_ms",
    )
    assert got["mean"] == 0.1
    assert got["sd"] == 0.0
    assert got.ci_half_width == 0.0
    assert got.ci_low == got.ci_high == 0.1


def test_missing_values_are_left_out():
    frame = pd.DataFrame(
        {
            "flow": ["f"] * 4,
            "replication": [0, 1, 2, 3],
            "float": [1.0, np.nan, 3.0, 5.0],
            "nullable": pd.array([2, None, 4, pd.NA], dtype="Int64"),
            "objects": pd.Series([None, 1, 2.5, None], dtype=object),
            "nothing": pd.Series([None] * 4, dtype=object),
        }
    )
    summary = summarize(frame, [], table="flows").set_index("metric")
    assert summary.loc["float", "n"] == 3
    assert summary.loc["float", "mean"] == 3.0
    assert summary.loc["float", "sd"] == 2.0
    assert summary.loc["nullable", "n"] == 2
    assert summary.loc["nullable", "mean"] == 3.0
    assert summary.loc["objects", "n"] == 2
    assert summary.loc["objects", "mean"] == 1.75
    assert summary.loc["nothing", "n"] == 0
    assert summary.loc[["nothing"], ["mean", "sd", "min", "max"]].isna().all().all()


def test_booleans_count_as_zero_and_one():
    frame = pd.DataFrame(
        {
            "point": "end_to_end",
            "app": "voip",
            "interval_ms": 250.0,
            "start_s": 1.0,
            "replication": [0, 1, 2, 3],
            "in_contract": [True, False, True, True],
        }
    )
    got = row(summarize(frame, [], table="dq_intervals"), metric="in_contract")
    assert got["mean"] == 0.75
    assert got["min"] == 0.0
    assert got["max"] == 1.0


def test_an_empty_frame_gives_an_empty_summary():
    frame = pd.DataFrame({"variant": [], "flow": [], "replication": [], "delay_ms": []})
    summary = summarize(frame, ["variant"], table="flows")
    assert summary.empty
    assert list(summary.columns) == ["variant", "flow", "metric", *STATISTIC_COLUMNS]


# ---- order and determinism -----------------------------------------------------------------


def sweep_like(seed: int) -> pd.DataFrame:
    """Rows of 4 rates x 2 variants x 3 flows x 5 replications with values of wildly
    different magnitudes, whose float sums depend on the order they are added in."""
    rng = np.random.default_rng(seed)
    rows = [
        {
            "topology.links.1.rate": rate,
            "variant": variant,
            "flow": flow,
            "replication": k,
            "seed": 100 + k,
            "delay_ms": rng.normal() * 10.0 ** rng.integers(-8, 9),
            "sent_packets": int(rng.integers(0, 10**6)),
        }
        for rate in (1e6, 2e5, 64e3, 2e6)
        for variant in ("llq", "fifo")
        for flow in ("voice", "data", "video")
        for k in range(5)
    ]
    return pd.DataFrame(rows)


def test_the_summary_does_not_depend_on_the_order_rows_arrive_in():
    frame = sweep_like(1)
    by = ["topology.links.1.rate", "variant"]
    reference = summarize(frame, by, table="flows")
    expected_bytes = reference.to_csv(index=False).encode()
    rng = np.random.default_rng(5)
    for _ in range(5):
        shuffled = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
        again = summarize(shuffled, by, table="flows")
        pd.testing.assert_frame_equal(again, reference, check_exact=True)
        assert again.to_csv(index=False).encode() == expected_bytes


def test_groups_sort_numbers_by_value_and_keep_a_given_order():
    frame = sweep_like(2)
    by = ["topology.links.1.rate", "variant"]
    summary = summarize(frame, by, table="flows", metrics="delay_ms")
    assert list(summary["topology.links.1.rate"].unique()) == [64e3, 2e5, 1e6, 2e6]
    assert list(summary.variant.unique()) == ["fifo", "llq"]
    assert list(summary.flow.unique()) == ["data", "video", "voice"]

    ordered = summarize(
        frame, by, table="flows", metrics="delay_ms", order={"variant": ["llq", "fifo"]}
    )
    assert list(ordered.variant[:3]) == ["llq"] * 3
    categorical = frame.assign(
        flow=pd.Categorical(frame.flow, categories=["voice", "video", "data"])
    )
    summary = summarize(categorical, by, table="flows", metrics="delay_ms")
    assert list(summary.flow[:3]) == ["voice", "video", "data"]


def test_missing_group_values_come_last():
    frame = replicated({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    frame.loc[frame.variant == "a", "variant"] = None
    summary = summarize(frame, ["variant"], table="flows")
    assert summary.variant.iloc[0] == "b"
    assert pd.isna(summary.variant.iloc[1])
    assert list(summary.n) == [2, 2]


# ---- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"by": ["variant"]}, "name the result table"),
        ({"by": ["variant"], "table": "flow"}, "no result table named 'flow'"),
        ({"by": ["rate"], "table": "flows"}, "no column 'rate'"),
        ({"by": ["variant"], "table": "flows", "metrics": ["name"]}, "'name' is not numeric"),
        ({"by": ["variant"], "table": "flows", "metrics": ["flow"]}, "cannot also be a metric"),
        ({"by": [], "table": "flows"}, "add the columns that tell them apart"),
        ({"by": ["variant"], "table": "flows", "confidence": 95}, "strictly between 0 and 1"),
        ({"by": ["variant"], "table": "flows", "interval": "z"}, "'t' or 'normal'"),
        ({"by": ["variant"], "table": "flows", "order": {"variant": ["a"]}}, "leaves out 'b'"),
        ({"by": ["variant"], "table": "flows", "order": {"rate": [1]}}, "not grouped by: rate"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(arguments, message):
    frame = replicated({"a": [1.0, 2.0], "b": [3.0, 4.0]}).assign(name="x")
    with pytest.raises(ValueError, match=message):
        summarize(frame, **arguments)


# ---- the trial table -----------------------------------------------------------------------


def test_thesis_table_lists_trials_in_replication_order_then_statistics():
    frame = pd.DataFrame(
        {"replication": [2, 0, 1], "delay_ms": [30.0, 10.0, 20.0], "loss_pct": [0.5, 0.1, 0.3]}
    )
    table = thesis_table(frame, ["delay_ms", "loss_pct"])
    assert list(table.index) == ["T1", "T2", "T3", *STATISTIC_ROWS]
    assert list(STATISTIC_ROWS) == ["M", "SD", "M-X", "M+X", "Max"]
    assert list(table.columns) == ["delay_ms", "loss_pct"]
    assert list(table.delay_ms[:3]) == [10.0, 20.0, 30.0]
    # The printed quantile 4.303 is within 0.0005 of the true one: 0.003 on the bounds.
    half_width = 4.303 * 10.0 / math.sqrt(3)
    assert table.delay_ms["M"] == 20.0
    assert table.delay_ms["SD"] == 10.0
    assert table.delay_ms["M-X"] == pytest.approx(20.0 - half_width, abs=0.003)
    assert table.delay_ms["M+X"] == pytest.approx(20.0 + half_width, abs=0.003)
    assert table.delay_ms["Max"] == 30.0
    assert table.loss_pct["Max"] == 0.5


def test_thesis_table_reproduces_the_lmr_voip_thesis_baseline():
    # LMR VoIP thesis, Table 4-2 (continuous traffic, baseline, UTP column): trials 15.394,
    # 15.261 and 15.599; printed M 15.418, SD 0.170, M-X 15.225, M+X 15.61. The bounds match
    # the normal approximation 1.96 * SD / sqrt(3) = 0.193, not Student's t with 2 degrees of
    # freedom (4.303 * SD / sqrt(3) = 0.423). Tolerance: half a unit of the last printed
    # digit, plus 0.0005 for the trials themselves being rounded to three decimals.
    frame = pd.DataFrame({"replication": [1, 2, 3], "utp": [15.394, 15.261, 15.599]})
    table = thesis_table(frame, "utp", interval="normal")
    assert list(table.utp[:3]) == [15.394, 15.261, 15.599]
    assert table.utp["M"] == pytest.approx(15.418, abs=0.001)
    assert table.utp["SD"] == pytest.approx(0.170, abs=0.001)
    assert table.utp["M-X"] == pytest.approx(15.225, abs=0.001)
    assert table.utp["M+X"] == pytest.approx(15.61, abs=0.0055)
    assert table.utp["Max"] == 15.599

    student = thesis_table(frame, "utp")
    assert student.utp["M-X"] == pytest.approx(15.418 - 0.423, abs=0.001)
    assert abs(student.utp["M-X"] - 15.225) > 0.2


def test_thesis_table_refuses_several_rows_of_one_replication():
    frame = pd.DataFrame({"replication": [0, 0, 1], "delay_ms": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="several rows share replication 0"):
        thesis_table(frame, "delay_ms")
    with pytest.raises(ValueError, match="no column 'jitter_ms'"):
        thesis_table(frame, "jitter_ms")
    with pytest.raises(ValueError, match="no rows"):
        thesis_table(frame.iloc[:0], "delay_ms")


# ---- the wide view -------------------------------------------------------------------------


def test_wide_puts_metrics_side_by_side_as_mean_and_half_width():
    frame = replicated({"fifo": [10.0, 20.0, 30.0], "llq": [4.0]}).assign(
        loss_pct=[1.0, 1.0, 1.0, np.nan]
    )
    summary = summarize(frame, ["variant"], table="flows")
    table = wide(summary, decimals=2)
    assert list(table.columns) == ["delay_ms", "loss_pct"]
    assert list(table.index.names) == ["variant", "flow"]
    half_width = stats.t.ppf(0.975, 2) * 10.0 / math.sqrt(3)
    assert table.loc[("fifo", "f"), "delay_ms"] == f"20.00 ± {half_width:.2f}"
    assert table.loc[("fifo", "f"), "loss_pct"] == "1.00 ± 0.00"
    assert table.loc[("llq", "f"), "delay_ms"] == "4.00"
    assert table.loc[("llq", "f"), "loss_pct"] == ""


def test_wide_refuses_what_is_not_a_summary():
    with pytest.raises(ValueError, match="not a summary"):
        wide(pd.DataFrame({"metric": ["a"], "mean": [1.0]}))


def test_the_analysis_pages_figures():
    """docs/analysis.md's quantiles, coverage and worked thesis table, computed again."""
    page = words(ROOT / "docs" / "analysis.md")
    z = stats.norm.ppf(0.975)
    t3 = stats.t.ppf(0.975, 2)
    assert f'(`interval="normal"`, {z:.3f} at 95 %)' in page
    assert f"at `n = 3` t's factor is {t3:.3f} against z's {z:.3f}" in page
    # A z interval of n = 10 holds the mean when |T| <= z for T of 9 degrees of freedom.
    coverage_pct = (stats.t.cdf(z, 9) - stats.t.cdf(-z, 9)) * 100
    assert (
        f"at `n = 10` a nominal 95 % z interval holds the true mean only about {coverage_pct:.0f} %"
        in page
    )
    frame = pd.DataFrame({"replication": [1, 2, 3], "utp": [15.394, 15.261, 15.599]})
    normal = thesis_table(frame, "utp", interval="normal").utp
    student = thesis_table(frame, "utp").utp
    assert f"with M {normal['M']:.3f}, SD {normal['SD']:.3f} and bounds {normal['M-X']:.3f}" in page
    assert f"(1.96 · {normal['SD']:.3f} / √3 = {normal['M'] - normal['M-X']:.3f})" in page
    assert f"the t interval of the same trials is ±{student['M'] - student['M-X']:.3f}" in page
    experiments = words(ROOT / "docs" / "experiments.md")
    assert f"with three trials the t interval is {t3 / z:.1f} times wider" in experiments
