"""HTML reports: what ``qoslab.report.render`` puts in the page, checked in the page's text
and, in headless Chromium, in the DOM a browser builds from it and in its screenshot."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

import qoslab
from qoslab import report
from qoslab.cli import main

HOSTILE = "<script>alert(1)</script>"
"""A flow name that is markup: a report must show it as text."""

CHROMIUM = "chromium"
CHROMIUM_MISSING = (
    "headless Chromium is not installed: install the Debian package `chromium` "
    "(scripts/install-test-tools does, as root)"
)
BROWSER_LIMIT_S = 120
"""How long the browser may take before the test gives up on it (a guard, not a measure)."""

BLANK_VARIANCE = 1e-4
"""Pixel variance below which a screenshot counts as blank (one flat colour)."""


@pytest.fixture
def plots():
    """The plots module, whose suggestions the report shows."""
    from qoslab import plot

    return plot


def hostile_scenario(make_scenario) -> dict:
    """The small scenario with a description and a flow name that are markup, and a second
    router link so the run has ports, classes and flows."""
    scenario = make_scenario()
    scenario["description"] = "voice & data <b>bold</b>"
    scenario["traffic"][0]["name"] = HOSTILE
    return scenario


@pytest.fixture
def hostile_run(make_scenario, tmp_path):
    """A run of the hostile scenario, from a file, and the file."""
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(hostile_scenario(make_scenario)), encoding="utf-8")
    return qoslab.run(path), path


class Page(HTMLParser):
    """What a page holds: its elements by tag, attribute values, ids and visible text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.style: list[str] = []
        self._in_style = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
            if name == "id":
                self.ids.add(value or "")

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        (self.style if self._in_style else self.text).append(data)

    def count(self, tag: str) -> int:
        return self.tags.count(tag)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def test_report_shows_markup_in_names_as_text(hostile_run):
    results, _ = hostile_run
    html = report.render(results)
    page = Page(html)
    assert page.count("script") == 0
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert HOSTILE in page.all_text
    assert "voice & data <b>bold</b>" in page.all_text
    assert page.count("b") == 0


def test_report_fetches_nothing(hostile_run):
    results, _ = hostile_run
    page = Page(report.render(results))
    assert page.count("link") == 0
    assert page.count("script") == 0
    assert page.count("img") == 0
    assert page.count("iframe") == 0
    for tag, name, value in page.attributes:
        if name in ("src", "href", "xlink:href", "srcset", "action"):
            assert value.startswith("#"), f"<{tag} {name}={value!r}> points outside the page"
    style = "".join(page.style)
    assert "url(" not in style
    assert "@import" not in style
    assert "@font-face" not in style


def test_report_of_a_run_holds_what_was_run(hostile_run):
    results, path = hostile_run
    html = report.render(results)
    page = Page(html)
    text = page.all_text
    assert path.read_text(encoding="utf-8") in text
    assert f"qoslab run {path} --seed 1 --replication 0" in text
    assert "is not the scenario this run used" not in text
    assert {"what-was-run", "notes", "flows", "ports", "classes", "scenario"} <= page.ids
    assert page.count("table") == 3
    assert page.count("svg") == 1


def test_report_of_a_run_is_the_same_every_time(hostile_run):
    results, _ = hostile_run
    assert report.render(results) == report.render(results)


def test_report_shows_the_scenario_as_the_run_read_it(hostile_run):
    results, path = hostile_run
    ran = path.read_text(encoding="utf-8")
    scenario = yaml.safe_load(ran)
    scenario["run"]["duration"] = "3s"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    text = Page(report.render(results)).all_text
    assert ran in text
    assert "duration: 3s" not in text
    path.unlink()
    assert ran in Page(report.render(results)).all_text


def test_report_of_results_without_inputs_says_so(hostile_run):
    results, _ = hostile_run
    document = json.loads(results.to_json())
    del document["inputs"]
    text = Page(report.render(qoslab.Results(json.dumps(document)))).all_text
    assert "These results record no inputs" in text
    assert "qoslab run SCENARIO.yaml --seed 1 --replication 0" in text


def test_report_shows_the_ios_configurations_and_the_notes(examples_dir):
    scenario = examples_dir / "lmr-ios.yaml"
    overrides = {"run.duration": "1s", "run.warmup": "1s"}
    results = qoslab.run(scenario, set=overrides)
    page = Page(report.render(results))
    text = page.all_text
    for router in ("one", "two", "three"):
        path = examples_dir / "ios" / f"lmr-router-{router}.txt"
        assert str(path) in text
        assert path.read_text() in text
    for note in results.run["notes"]:
        assert note in text
    assert "run.duration=1s, run.warmup=1s" in text


def test_report_of_a_sweep_shows_each_point_with_its_interval(voice_vs_flood, tmp_path):
    sweep = qoslab.sweep(
        voice_vs_flood,
        vary={"interfaces.r1.r2.output": ["fifo", "pq"]},
        reps=2,
        set={"run.duration": "2s", "run.phase": "random"},
        out=tmp_path / "sweep",
        progress=False,
    )
    page = Page(report.render(qoslab.load(tmp_path / "sweep")))
    text = page.all_text
    assert "qoslab sweep report" in text
    assert voice_vs_flood.read_text(encoding="utf-8") in text
    assert "run.duration=2s, run.phase=random" in text
    assert (
        f"qoslab sweep {voice_vs_flood} --vary interfaces.r1.r2.output=fifo,pq --reps 2 "
        "--set run.duration=2s --set run.phase=random"
    ) in text
    assert "Mean ± half-width of the 95 % confidence interval" in text
    voice_pq = sweep.summary.flows.query(
        "flow == 'voice' and metric == 'loss_pct' and `interfaces.r1.r2.output` == 'pq'"
    ).iloc[0]
    assert f"{voice_pq['mean']:.2f} ± {voice_pq['ci_half_width']:.2f}" in text
    assert {"flows", "ports", "classes"} <= page.ids


def test_report_of_a_sweep_lists_its_failed_runs(voice_vs_flood, tmp_path):
    qoslab.sweep(
        voice_vs_flood,
        vary={"run.duration": ["1s", "2s"]},
        reps=1,
        out=tmp_path / "sweep",
        progress=False,
    )
    manifest = json.loads((tmp_path / "sweep" / "manifest.json").read_text())
    key = manifest["runs"][0]["key"]
    failed = tmp_path / "sweep" / "runs" / f"{key}.arrow"
    failed.unlink()
    (failed.parent / f"{key}.error.json").write_text(
        json.dumps({"status": "run_error", "error": "memory guard <tripped>"})
    )
    text = Page(report.render(qoslab.load(tmp_path / "sweep"))).all_text
    assert f"Run {key} (run.duration=1s, replication 0) run_error: memory guard <tripped>" in text
    assert "2, of which 1 did not finish" in text


def test_render_refuses_what_is_not_results():
    with pytest.raises(TypeError, match=r"qoslab\.Results or a qoslab\.Sweep, not dict"):
        report.render({})


def test_cli_report_writes_the_page(voice_vs_flood, tmp_path, capsys):
    assert (
        main(["run", str(voice_vs_flood), "-o", str(tmp_path / "run"), "--set", "run.duration=2s"])
        == 0
    )
    output = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "run"), "-o", str(output)]) == 0
    assert f"report written to {output}" in capsys.readouterr().out
    text = Page(output.read_text(encoding="utf-8")).all_text
    assert "G.711-like voice versus a UDP flood" in text
    assert f"qoslab run {voice_vs_flood} --set run.duration=2s --seed 1 --replication 0" in text


def test_cli_report_refuses_a_folder_without_results(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not results")
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "report.html")]) == 2
    error = capsys.readouterr().err
    assert f"error: {tmp_path}: holds neither a sweep (manifest.json) nor a run's results" in error
    assert not (tmp_path / "report.html").exists()


def test_cli_report_refuses_unreadable_results(tmp_path, capsys):
    (tmp_path / "results.json").write_text("{not json")
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "report.html")]) == 2
    assert (
        f"error: {tmp_path / 'results.json'}: is not valid JSON (Expecting property name "
        "enclosed in double quotes at line 1 column 2). The folder is damaged"
    ) in capsys.readouterr().err


def test_cli_report_refuses_an_output_in_a_missing_folder(voice_vs_flood, tmp_path, capsys):
    assert (
        main(["run", str(voice_vs_flood), "-o", str(tmp_path / "run"), "--set", "run.duration=1s"])
        == 0
    )
    output = tmp_path / "no" / "report.html"
    assert main(["report", str(tmp_path / "run"), "-o", str(output)]) == 2
    assert f"the folder {output.parent} does not exist" in capsys.readouterr().err


def test_run_report_writes_the_page_with_the_results(voice_vs_flood, tmp_path):
    folder = tmp_path / "run"
    arguments = ["run", str(voice_vs_flood), "-o", str(folder), "--set", "run.duration=1s"]
    assert main([*arguments, "--report"]) == 0
    page = Page((folder / "report.html").read_text(encoding="utf-8"))
    assert voice_vs_flood.read_text(encoding="utf-8") in page.all_text
    # A run without --report replaces the folder, report and all: no stale report remains.
    assert main(arguments) == 0
    assert not (folder / "report.html").exists()
    assert (folder / "results.json").exists()


def test_notebooks_show_the_flows_and_the_key_plot(hostile_run, voice_vs_flood, tmp_path, plots):
    results, _ = hostile_run
    page = Page(results._repr_html_())
    assert page.count("table") == 1
    assert page.count("svg") == min(1, len(plots.suggested(results)))
    assert HOSTILE in page.all_text
    assert page.count("script") == 0
    sweep = qoslab.sweep(
        voice_vs_flood,
        vary={"interfaces.r1.r2.output": ["fifo", "pq"]},
        reps=1,
        set={"run.duration": "1s"},
        progress=False,
    )
    page = Page(sweep._repr_html_())
    assert "sweep of 2 runs over interfaces.r1.r2.output" in page.all_text
    assert "declares no quality budgets" in page.all_text
    # One table per flow, a row per point, folded away below the answer.
    assert page.count("details") == 1
    assert page.count("table") == 2
    assert page.count("tr") == 2 * (1 + 2)


def chromium(*arguments: str, profile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            *arguments,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=BROWSER_LIMIT_S,
    )


def test_report_in_a_browser(hostile_run, tmp_path, plots):
    if shutil.which(CHROMIUM) is None:
        pytest.skip(CHROMIUM_MISSING)
    from matplotlib.image import imread

    results, _ = hostile_run
    page = tmp_path / "report.html"
    page.write_text(report.render(results), encoding="utf-8")
    url = page.resolve().as_uri()

    dumped = chromium("--dump-dom", url, profile=tmp_path / "profile")
    assert dumped.returncode == 0, dumped.stderr
    dom = Page(dumped.stdout)
    assert dom.count("script") == 0
    assert HOSTILE in dom.all_text
    assert dom.count("table") == 3
    assert {"flows", "ports", "classes"} <= dom.ids
    assert dom.count("svg") == len(plots.suggested(results))
    assert dom.count("figure") == len(plots.suggested(results))

    screenshot = tmp_path / "report.png"
    shot = chromium(
        f"--screenshot={screenshot}", "--window-size=1280,2000", url, profile=tmp_path / "profile"
    )
    assert shot.returncode == 0, shot.stderr
    pixels = imread(screenshot)
    assert pixels.shape[:2] == (2000, 1280)
    assert pixels[..., :3].var() > BLANK_VARIANCE
