"""The plots of qoslab.plot and the qoslab plot command: each kind draws a PNG that is not
blank and an SVG whose data series (tagged ``qoslab-KIND-N``) are those of the data."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.image import imread

import qoslab
from qoslab import plot
from qoslab.cli import main
from qoslab.plot.style import unit

CONGESTION = {"run.duration": "20s"}
ADHOC = {"run.duration": "20s", "traffic.0.start": "15s"}
MIN_PNG_BYTES = 5_000
MIN_PIXEL_VARIANCE = 0.002
"""A white figure with only axes has a variance far below this; a plot with data above."""
SERIES_ID = re.compile(r"^qoslab-([a-z]+)-(\d+)(?:-(\d+))?$")


@pytest.fixture(scope="module")
def congestion(examples_dir: Path) -> qoslab.Results:
    return qoslab.run(examples_dir / "congestion-lab.yaml", set=CONGESTION)


@pytest.fixture(scope="module")
def adhoc(examples_dir: Path) -> qoslab.Results:
    return qoslab.run(examples_dir / "adhoc-annex-mix.yaml", set=ADHOC)


@pytest.fixture(scope="module")
def congestion_sweep(examples_dir: Path, tmp_path_factory) -> qoslab.Sweep:
    return qoslab.sweep(
        examples_dir / "congestion-lab.yaml",
        vary={
            "interfaces.r1.r2.output": ["fifo", "llq"],
            "topology.links.1.rate": ["128kbps", "256kbps"],
        },
        reps=3,
        set=CONGESTION,
        progress=False,
        out=tmp_path_factory.mktemp("sweeps") / "congestion",
    )


@pytest.fixture(scope="module")
def adhoc_sweep(examples_dir: Path) -> qoslab.Sweep:
    return qoslab.sweep(
        examples_dir / "adhoc-annex-mix.yaml",
        vary={"interfaces.edge.core.output": ["fifo", "strict"]},
        reps=2,
        set=ADHOC,
        progress=False,
    )


def series_counts(fig: Figure) -> dict[str, int]:
    """The number of distinct data series of each kind in the figure's SVG."""
    root = ET.fromstring(plot.to_svg(fig))
    found = set()
    for element in root.iter():
        match = SERIES_ID.match(element.get("id", ""))
        if match:
            found.add((match.group(1), match.group(2)))
    counts: dict[str, int] = {}
    for kind, _ in found:
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def parts(fig: Figure, kind: str) -> int:
    """The number of SVG elements tagged as parts of series of ``kind`` (bars, points)."""
    root = ET.fromstring(plot.to_svg(fig))
    return sum(
        1
        for element in root.iter()
        if (m := SERIES_ID.match(element.get("id", ""))) and m.group(1) == kind
    )


def assert_drawn(fig: Figure, path: Path) -> None:
    """The PNG is written, of some size, and not blank."""
    fig.savefig(path, dpi=80)
    assert path.stat().st_size > MIN_PNG_BYTES
    pixels = imread(path)[..., :3]
    assert pixels.var() > MIN_PIXEL_VARIANCE


def test_bars_draw_a_bar_per_flow_and_point_with_its_interval(congestion_sweep, tmp_path):
    fig = plot.bars(congestion_sweep, "offered_l3_bps")
    assert_drawn(fig, tmp_path / "bars.png")
    # Three flows in each of two panels (one per link rate), a bar per scheme each.
    assert series_counts(fig) == {"bar": 6, "errorbar": 6}
    assert parts(fig, "bar") == 6 * 2
    assert [axis.get_title() for axis in fig.axes] == ["rate=128kbps", "rate=256kbps"]
    assert fig.axes[0].get_ylabel() == "offered L3 (kbit/s)"


def test_bars_along_another_parameter_and_of_another_table(congestion_sweep, tmp_path):
    fig = plot.bars(congestion_sweep, "in_contract_pct", "contracts", by="topology.links.1.rate")
    assert_drawn(fig, tmp_path / "contracts.png")
    # Only the voice application has a budget: one series per panel (one per scheme).
    assert series_counts(fig)["bar"] == 2
    assert fig.axes[0].get_xlabel() == "topology.links.1.rate"


def test_bars_refuse_a_run_an_unknown_metric_and_an_unknown_parameter(congestion, congestion_sweep):
    with pytest.raises(plot.PlotError, match="needs a Sweep"):
        plot.bars(congestion, "loss_pct")
    with pytest.raises(plot.PlotError, match=r"no metric 'delay' in the flows table.*loss_pct"):
        plot.bars(congestion_sweep, "delay")
    with pytest.raises(plot.PlotError, match="not a parameter of the sweep"):
        plot.bars(congestion_sweep, "loss_pct", by="run.seed")
    with pytest.raises(plot.PlotError, match="no rows in the voice table"):
        plot.bars(congestion_sweep, "r", "voice")


def test_series_of_a_run_draw_each_flow_and_each_delay_column(congestion, tmp_path):
    fig = plot.series(congestion, "delay")
    assert_drawn(fig, tmp_path / "series.png")
    assert series_counts(fig) == {"line": 3 * 2}
    assert fig.axes[0].get_ylabel() == "delay (ms)"
    fig = plot.series(congestion, "throughput", flows=["voice"])
    assert series_counts(fig) == {"line": 1}
    # The voice flow delivers at most 60 kbit/s (150 B, 50 times a second): drawn in kbit/s.
    (line,) = [line for line in fig.axes[0].lines if line.get_label() == "voice"]
    voice = congestion.series[congestion.series.flow == "voice"]
    assert np.nanmax(line.get_ydata()) == pytest.approx(voice.delivered_bps.max() / 1e3)
    assert fig.axes[0].get_ylabel() == "throughput (kbit/s)"


def test_series_of_a_sweep_have_a_panel_per_point_and_a_line_per_replication(
    congestion_sweep, tmp_path
):
    fig = plot.series(congestion_sweep, "loss_pct")
    assert_drawn(fig, tmp_path / "sweep-series.png")
    assert len(fig.axes) == 4
    assert series_counts(fig) == {"line": 4 * 3 * 3}
    one = plot.series(congestion_sweep, "loss", select={"interfaces.r1.r2.output": "llq"})
    assert len(one.axes) == 2


def test_series_refuse_unknown_metrics_flows_and_runs_without_series(congestion, adhoc):
    with pytest.raises(plot.PlotError, match=r"no metric 'rtt_ms'.*throughput"):
        plot.series(congestion, "rtt_ms")
    with pytest.raises(plot.PlotError, match="no series of flow 'fax'"):
        plot.series(congestion, "loss", flows=["fax"])
    with pytest.raises(plot.PlotError, match=r"measure.series"):
        plot.series(adhoc, "loss")


def test_delay_cdf_draws_each_flows_delay_distribution(congestion, tmp_path):
    fig = plot.delay_cdf(congestion)
    assert_drawn(fig, tmp_path / "cdf.png")
    received = congestion.flows.dropna(subset=["delay_max_ms"])
    assert series_counts(fig) == {"line": len(received)}
    voice = congestion.flow("voice")
    (line,) = [line for line in fig.axes[0].lines if line.get_label() == "voice"]
    delays, fractions = list(line.get_xdata()), list(line.get_ydata())
    assert len(delays) == 104
    assert (delays[0], fractions[0]) == (voice["delay_min_ms"], 0.0)
    assert (delays[50], fractions[50]) == (voice["delay_p50_ms"], 0.5)
    assert (delays[-1], fractions[-1]) == (voice["delay_max_ms"], 1.0)
    with pytest.raises(plot.PlotError, match="no flow 'fax'"):
        plot.delay_cdf(congestion, flows=["fax"])


def test_tcp_sequence_draws_segments_drops_and_acknowledgements(make_scenario, tmp_path):
    # Two transfers one after another through the small scenario's ten-packet queue at
    # 1 Mbit/s: the slow start overflows it, so some segments are dropped and sent again.
    scenario = make_scenario()
    scenario["traffic"] = [
        {"name": "ftp", "from": "a", "to": "b", "start": "600ms"}
        | {"app": {"kind": "bulk", "size": "60kB", "transfers": 2}}
    ]
    run = qoslab.run(scenario, trace=True)
    fig = plot.tcp_sequence(run)
    assert_drawn(fig, tmp_path / "sequence.png")
    assert series_counts(fig) == {"points": 1, "marks": 1, "line": 1}
    trace = run.trace()
    sent = trace[
        (trace["flow"] == "ftp") & (trace["event"] == "arrival") & (trace["port"] == "a->r")
    ]
    points = next(line for line in fig.axes[0].lines if line.get_label().startswith("sent at a->r"))
    assert len(points.get_xdata()) == len(sent)
    # The second transfer continues where the first ended: its SYN is drawn at the first's
    # highest sequence number, not at 0 (60,002: the SYN, 60 kB and the FIN take 0 to
    # 60,001, and the sender's last acknowledgement carries the next number).
    heights = list(points.get_ydata())
    second_syn = [
        h
        for h, seq, size in zip(heights, sent["tcp_seq"], sent["size_bytes"], strict=True)
        if seq == 0 and size == 40
    ][-1]
    assert second_syn == pytest.approx(60.002)
    assert max(heights) == pytest.approx(2 * 60.002)
    with pytest.raises(plot.PlotError, match="no TCP flow 'fax'"):
        plot.tcp_sequence(run, flows=["fax"])
    with pytest.raises(plot.PlotError, match="not traced at port 'r->a'"):
        plot.tcp_sequence(run, port="r->a")
    with pytest.raises(plot.PlotError, match="per-packet trace: this run recorded no"):
        plot.tcp_sequence(qoslab.run(scenario))


@pytest.fixture
def with_queues(examples_dir: Path) -> qoslab.Results:
    """The congestion lab with LLQ, whose measure.series gives the class_series table."""
    return qoslab.run(
        examples_dir / "congestion-lab.yaml",
        set={"interfaces.r1.r2.output": "llq", "run.duration": "30s"},
    )


def test_queue_draws_backlog_and_drops_per_port_and_class(with_queues, tmp_path):
    fig = plot.queue(with_queues)
    assert_drawn(fig, tmp_path / "queue.png")
    # Per port and class: backlog at the interval's end, largest backlog, and drops.
    classes = with_queues.class_series[["port", "class"]].drop_duplicates()
    assert series_counts(fig) == {"line": 3 * len(classes)}
    assert len(plot.queue(with_queues, port="r1->r2").axes) == 2
    with pytest.raises(plot.PlotError, match="no port 'r9->r1'"):
        plot.queue(with_queues, port="r9->r1")


def test_queue_without_the_class_series_table_names_measure_series(voice_vs_flood):
    with pytest.raises(plot.PlotError, match=r"no class_series table.*measure.series"):
        plot.queue(qoslab.run(voice_vs_flood))


def test_dq_scatter_at_a_port_marks_the_per_hop_budgets(adhoc, tmp_path):
    fig = plot.dq_scatter(adhoc, "edge->core")
    assert_drawn(fig, tmp_path / "dq.png")
    assert series_counts(fig) == {"points": 1, "marks": 2}
    (dots,) = [c for c in fig.axes[0].collections if c.get_gid() == "qoslab-points-0"]
    budgets = adhoc.contracts[
        (adhoc.contracts.point == "edge->core")
        & (adhoc.contracts.interval_ms == 250)
        & adhoc.contracts.consumption_mean.notna()
    ]
    assert len(dots.get_offsets()) == len(budgets)
    # voip: 50 ms per hop of 150 ms end to end, 1.5 % of 5 %.
    (delay_marks,) = [c for c in fig.axes[0].collections if c.get_gid() == "qoslab-marks-0"]
    assert any(abs(x - 50 / 150) < 1e-12 for x, _ in delay_marks.get_offsets())


def test_dq_scatter_of_a_sweep_has_a_point_per_run_and_application(adhoc_sweep, tmp_path):
    fig = plot.dq_scatter(adhoc_sweep, "end_to_end", interval_ms=25)
    assert_drawn(fig, tmp_path / "dq-sweep.png")
    assert series_counts(fig) == {"points": 2}
    # 2 schemes x 2 replications x 7 applications with a budget.
    assert parts(fig, "points") == 2
    offsets = sum(len(c.get_offsets()) for c in fig.axes[0].collections)
    assert offsets == 2 * 2 * 7
    with pytest.raises(plot.PlotError, match="no ΔQ interval of 100 ms"):
        plot.dq_scatter(adhoc_sweep, interval_ms=100)


def test_loads_draw_three_bars_per_application(adhoc, tmp_path):
    fig = plot.loads(adhoc, "end_to_end")
    assert_drawn(fig, tmp_path / "loads.png")
    apps = adhoc.contracts[
        (adhoc.contracts.point == "end_to_end") & (adhoc.contracts.interval_ms == 250)
    ]
    assert series_counts(fig) == {"bar": 3}
    assert parts(fig, "bar") == 3 * len(apps)
    with pytest.raises(plot.PlotError, match="no observation point 'core->edge'"):
        plot.loads(adhoc, "core->edge")


def test_in_contract_draws_a_line_per_application_with_a_budget(adhoc_sweep, tmp_path):
    fig = plot.in_contract(adhoc_sweep, point="end_to_end")
    assert_drawn(fig, tmp_path / "in-contract.png")
    assert series_counts(fig) == {"line": 7, "errorbar": 7}


def test_in_contract_draws_the_shares_within_the_delay_or_the_loss_limit(adhoc_sweep):
    summary = adhoc_sweep.summary.contracts
    for metric in ("in_delay_contract_pct", "in_loss_contract_pct"):
        fig = plot.in_contract(adhoc_sweep, point="end_to_end", interval_ms=250, metric=metric)
        assert series_counts(fig) == {"line": 7, "errorbar": 7}
        drawn = sorted(y for line in fig.axes[0].lines if line.get_gid() for y in line.get_ydata())
        wanted = summary[
            (summary.point == "end_to_end")
            & (summary.interval_ms == 250)
            & (summary.metric == metric)
            & summary["mean"].notna()
            & ~summary.app.isin(["all", "quality"])
        ]["mean"]
        assert drawn == pytest.approx(sorted(wanted))
    with pytest.raises(plot.PlotError, match="no share 'jitter_pct'"):
        plot.in_contract(adhoc_sweep, metric="jitter_pct")


def test_in_contract_and_loads_refuse_what_they_cannot_draw(adhoc, adhoc_sweep, congestion):
    with pytest.raises(plot.PlotError, match="needs a Sweep"):
        plot.in_contract(adhoc)
    with pytest.raises(plot.PlotError, match="one run, not a sweep"):
        plot.loads(adhoc_sweep)


def test_voice_rates_every_call_over_the_quality_bands(adhoc, adhoc_sweep, tmp_path):
    fig = plot.voice(adhoc)
    assert_drawn(fig, tmp_path / "voice.png")
    assert series_counts(fig) == {"bar": 2}
    assert parts(fig, "bar") == 2 * len(adhoc.voice)
    heights = [p.get_height() for p in fig.axes[0].patches if p.get_gid()]
    assert heights == pytest.approx(list(adhoc.voice["r"]), nan_ok=True)
    swept = plot.voice(adhoc_sweep)
    assert_drawn(swept, tmp_path / "voice-sweep.png")
    calls = adhoc_sweep.runs.voice["flow"].nunique()
    assert series_counts(swept) == {"bar": 2 * calls, "errorbar": 2 * calls}


def test_voice_without_voice_flows_says_which_flows_are_voice(congestion):
    with pytest.raises(plot.PlotError, match=r"no rows in the voice table.*codec"):
        plot.voice(congestion)


def test_a_flow_has_the_same_colour_in_every_plot(congestion):
    def colour_of(fig: Figure) -> str:
        (line,) = [line for line in fig.axes[0].lines if line.get_label() == "voice"]
        return line.get_color()

    assert colour_of(plot.series(congestion, "loss")) == colour_of(plot.delay_cdf(congestion))


def test_units_are_on_the_axes_and_rates_are_scaled():
    assert unit("delay_mean_ms") == ("delay mean (ms)", 1.0)
    assert unit("loss_pct") == ("loss (%)", 1.0)
    assert unit("delivered_bps", [64_000, 120_000]) == ("delivered (kbit/s)", 1e-3)
    assert unit("offered_l3_bps", [2.5e6]) == ("offered L3 (Mbit/s)", 1e-6)
    assert unit("jitter_rfc3550_ms") == ("jitter RFC 3550 (ms)", 1.0)


def test_suggested_plots_fit_the_data(congestion, adhoc, congestion_sweep):
    titles = [title for title, _ in plot.suggested(congestion)]
    assert "Delay per interval" in titles
    assert "Voice quality per call" not in titles
    assert "Voice quality per call" in [title for title, _ in plot.suggested(adhoc)]
    swept = plot.suggested(congestion_sweep)
    assert "Mean delay per flow" in [title for title, _ in swept]
    assert all(isinstance(fig, Figure) for _, fig in swept)


def test_to_svg_is_inline_svg_without_external_references_and_repeatable(congestion):
    svg = plot.to_svg(plot.delay_cdf(congestion))
    assert svg.startswith("<svg")
    assert "<!DOCTYPE" not in svg
    assert "<?xml" not in svg
    assert not re.search(r'(?:href|src)="(?:https?:|file:|//)', svg)
    assert plot.to_svg(plot.delay_cdf(congestion)) == svg


@pytest.fixture(scope="module")
def run_folder(congestion, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("run") / "congestion"
    congestion.write(folder)
    return folder


def test_plot_command_writes_svg_and_png(run_folder, congestion_sweep, tmp_path, capsys):
    svg = tmp_path / "delay.svg"
    assert main(["plot", str(run_folder), "series", "--metric", "delay", "-o", str(svg)]) == 0
    assert svg.read_text(encoding="utf-8").startswith("<svg")
    png = tmp_path / "bars.png"
    sweep_folder = str(congestion_sweep.directory)
    assert main(["plot", sweep_folder, "bars", "--metric", "loss_pct", "-o", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "plot written to" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["bars", "--metric", "loss_pct"], "needs a Sweep"),
        (["series", "--metric", "nope"], "no metric 'nope'"),
        (["series"], "series needs --metric"),
        (["delay_cdf", "--port", "r1->r2"], "delay_cdf takes no --port"),
        (["queue", "--port", "r9->r1"], "no port"),
        (["delay-cdf", "--flow", "\x1b[31mred"], "no flow '\\\\x1b\\[31mred'"),
    ],
)
def test_plot_command_errors_exit_2_with_one_line(run_folder, tmp_path, capsys, arguments, message):
    kind, *options = arguments
    out = tmp_path / "x.png"
    assert main(["plot", str(run_folder), kind, *options, "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert re.search(message, error)
    assert "\x1b" not in error
    assert "Traceback" not in error
    assert not out.exists()


def test_plot_command_refuses_an_unknown_kind_and_format(run_folder, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["plot", str(run_folder), "pie", "-o", str(tmp_path / "x.svg")])
    assert exit_.value.code == 2
    assert "unknown plot 'pie'" in capsys.readouterr().err
    assert main(["plot", str(run_folder), "delay_cdf", "-o", str(tmp_path / "x.pdf")]) == 2
    assert ".svg or .png" in capsys.readouterr().err
    assert main(["plot", str(tmp_path), "delay_cdf", "-o", str(tmp_path / "x.svg")]) == 2


def test_long_names_are_cut_so_the_panels_keep_their_room(voice_vs_flood):
    """A flow and an application named with 120 characters: every suggested plot lays out
    (matplotlib warns when a legend or a tick leaves the panels no room), and the names in
    legends and on the axes end in an ellipsis at 40 characters."""
    import warnings

    import yaml

    long_name = "voice-" + "x" * 114
    scenario = yaml.safe_load(voice_vs_flood.read_text())
    scenario["run"]["duration"] = "2s"
    scenario["traffic"][0]["name"] = long_name
    scenario["measure"] = {
        "budgets": [
            {"app": long_name, "flows": [long_name], "end_to_end": {"delay": "150ms", "loss": "1%"}}
        ]
    }
    results = qoslab.run(scenario)
    drawn = plot.suggested(results)
    assert {title for title, _ in drawn} >= {
        "Delay distribution per flow",
        "Budget consumption per application",
    }
    for title, figure in drawn:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            plot.to_svg(figure)
        texts = [
            text.get_text()
            for axis in figure.axes
            for text in [
                *axis.get_xticklabels(),
                *axis.get_yticklabels(),
                *(axis.get_legend().get_texts() if axis.get_legend() else []),
            ]
        ]
        assert long_name not in texts, title
        shown = [text for text in texts if text.startswith("voice-")]
        assert shown, title
        assert all(len(text.replace("\n", "")) <= 40 and text.endswith("…") for text in shown)


def test_heatmap_writes_each_flows_mean_at_each_point(adhoc_sweep, tmp_path):
    fig = plot.heatmap(adhoc_sweep, "delay_mean_ms")
    assert_drawn(fig, tmp_path / "heatmap.png")
    assert series_counts(fig) == {"heatmap": 1}
    summary = adhoc_sweep.summary.flows.query("metric == 'delay_mean_ms'")
    flows = list(dict.fromkeys(summary["flow"].astype(str)))
    (axis, _) = fig.axes  # the cells and the colour bar
    assert [label.get_text() for label in axis.get_yticklabels()] == flows
    assert [label.get_text() for label in axis.get_xticklabels()] == ["fifo", "strict"]
    written = [text.get_text() for text in axis.texts]
    assert len(written) == len(flows) * 2
    for (flow, output), mean in zip(
        zip(summary["flow"].astype(str), summary["interfaces.edge.core.output"], strict=True),
        summary["mean"],
        strict=True,
    ):
        cell = flows.index(flow) * 2 + ["fifo", "strict"].index(str(output))
        assert written[cell] == f"{mean:.3g}"
    # The delays span more than two decades: the colour scale is logarithmic.
    assert type(axis.collections[0].norm).__name__ == "LogNorm"


def test_a_sweep_of_many_flows_suggests_heatmaps_and_bars_never_reach_below_zero(
    adhoc_sweep, congestion_sweep
):
    assert adhoc_sweep.summary.flows["flow"].nunique() > 8
    kinds = {
        title: series_counts(figure)
        for title, figure in plot.suggested(adhoc_sweep)
        if title.endswith("per flow")
    }
    assert kinds
    assert all(counts == {"heatmap": 1} for counts in kinds.values())
    few = dict(plot.suggested(congestion_sweep))
    assert "bar" in series_counts(few["Mean delay per flow"])
    # An interval wider than its mean is cut at zero.
    fig = plot.bars(adhoc_sweep, "delay_mean_ms")
    for axis in fig.axes:
        if axis.get_ylabel():
            assert axis.get_ylim()[0] == 0
        for line in axis.get_lines():
            drawn = np.asarray(line.get_ydata(), dtype=float)
            assert (drawn[np.isfinite(drawn)] >= 0).all()
