"""The interactive pages in a real browser (Selenium, headless Chromium): a sweep's selectors
switch its charts and tables to the right point, offline; the queue animation of the
flagship's PQ run shows voice passing the flood; names carrying markup stay text; and the
static report of a sweep fits its window."""

from __future__ import annotations

import re

import pytest
import yaml
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import qoslab
from browser import chromium, fetched, fits_the_window
from qoslab.cli import main
from qoslab.report.queue_data import QueueDataError, queue_data

OUTPUT = "interfaces.branch.hq.output"
RATE = "topology.links.1.rate"
MARK = "document.documentElement.setAttribute('data-ran','yes')"
HOSTILE = f'<img src=x onerror="{MARK}"></script><script>{MARK}</script>'


@pytest.fixture(scope="module")
def branch_sweep(tmp_path_factory, examples_dir):
    """The branch office under FIFO, WFQ and LLQ at three line rates, 3 replications of
    20 s: the acceptance sweep, shortened."""
    folder = tmp_path_factory.mktemp("interactive") / "sweep"
    command = ["sweep", str(examples_dir / "branch-office.yaml"), "-o", str(folder), "--quiet"]
    command += ["--vary", f"{OUTPUT}=fifo,wfq,llq", "--vary", f"{RATE}=512kbps,768kbps,1024kbps"]
    command += ["--reps", "3", "--set", "run.duration=20s"]
    assert main(command) == 0
    return folder


def _expected(sweep, output, rate, flow, metric) -> str:
    row = sweep.summary.flows.query(
        f"`{OUTPUT}` == @output and `{RATE}` == @rate and flow == @flow and metric == @metric"
    ).iloc[0]
    return f"{row['mean']:.2f} ± {row['ci_half_width']:.2f}"


def test_the_sweep_page_switches_points_offline(branch_sweep, tmp_path):
    page = tmp_path / "sweep.html"
    assert main(["report", str(branch_sweep), "--interactive", "-o", str(page)]) == 0
    sweep = qoslab.load(branch_sweep)
    answer = sweep.answer()
    cheapest = answer.cheapest
    assert cheapest is not None
    with chromium(tmp_path / "profile", offline=True) as browser:
        browser.get(page.as_uri())
        # It opens on the cheapest point that meets every budget.
        assert browser.execute_script("return qoslabSweep.values()") == [
            str(cheapest[OUTPUT]),
            str(cheapest[RATE]),
        ]
        status = browser.find_element(By.ID, "point-status").text
        assert status.endswith("every budget met (the cheapest such point)")
        # Change the scheme, then the rate, as a user would.
        Select(browser.find_element(By.ID, "select-0")).select_by_value("fifo")
        Select(browser.find_element(By.ID, "select-1")).select_by_value("768kbps")
        assert browser.execute_script("return qoslabSweep.values()") == ["fifo", "768kbps"]
        cell = browser.find_element(
            By.CSS_SELECTOR, '#flows-table tr[data-flow="voice.1"] td[data-metric="delay_mean_ms"]'
        )
        assert cell.text == _expected(sweep, "fifo", "768kbps", "voice.1", "delay_mean_ms")
        # The per-flow chart shows the same point's means, in the flows' order: the 99th
        # percentile of delay first, then the metric chosen.
        for metric in ("delay_p99_ms", "loss_pct"):
            if metric != "delay_p99_ms":
                Select(browser.find_element(By.ID, "select-metric")).select_by_value(metric)
            shown = browser.execute_script(
                "const c = qoslabSweep.chart('chart-flows');"
                "return [c.data.labels, c.data.datasets[0].data, c.data.datasets[0].errors];"
            )
            summary = sweep.summary.flows.query(
                f"`{OUTPUT}` == 'fifo' and `{RATE}` == '768kbps' and metric == @metric"
            )
            means = dict(zip(summary["flow"].astype(str), summary["mean"], strict=True))
            assert shown[0] == list(means)
            assert shown[1] == pytest.approx(list(means.values()))
            # Each bar's error bar is the half-width of its 95 % interval.
            assert shown[2] == pytest.approx(summary["ci_half_width"].tolist())
        # The verdict chart colours each application by its verdict at this point.
        verdicts = answer.verdicts.query(f"`{OUTPUT}` == 'fifo' and `{RATE}` == '768kbps'")
        bars = browser.execute_script(
            "const c = qoslabSweep.chart('chart-contract');"
            "return [c.data.labels, c.data.datasets[0].data];"
        )
        low = dict(zip(verdicts["app"].astype(str), verdicts["low_pct"], strict=True))
        assert bars[1] == pytest.approx([low[app] for app in bars[0]])
        assert "not every budget met" in browser.find_element(By.ID, "point-status").text
        # The answer's row of that point is marked; clicking another row chooses it.
        rows = browser.find_elements(By.CSS_SELECTOR, "table.verdicts tbody tr")
        selected = [i for i, row in enumerate(rows) if "selected" in row.get_attribute("class")]
        assert selected == [1]  # fifo, 768kbps: the second point of the grid
        rows[8].click()
        assert browser.execute_script("return qoslabSweep.values()") == ["llq", "1024kbps"]
        assert fits_the_window(browser)
        assert fetched(browser) == []


def test_the_static_report_of_the_sweep_answers_first_and_fits(branch_sweep, tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", str(branch_sweep), "-o", str(page)]) == 0
    for width in (1280, 800):
        with chromium(tmp_path / f"profile-{width}", window=(width, 900)) as browser:
            browser.get(page.as_uri())
            assert fits_the_window(browser), f"wider than a {width}-pixel window"
            # The answer's table ends within the first screen at 1280 pixels.
            bottom = browser.execute_script(
                "return document.querySelector('table.verdicts').getBoundingClientRect().bottom"
            )
            if width == 1280:
                assert bottom <= 900


@pytest.fixture(scope="module")
def pq_run(tmp_path_factory, examples_dir):
    """The flagship under PQ, traced from its first packet."""
    folder = tmp_path_factory.mktemp("queue") / "pq"
    command = ["run", str(examples_dir / "voice-vs-flood.yaml"), "--trace", "-o", str(folder)]
    command += ["--set", "interfaces.r1.r2.output=pq", "--set", "run.warmup=0s"]
    command += ["--set", "run.duration=20s"]
    assert main(command) == 0
    return folder


def test_the_queue_animation_shows_voice_passing_the_flood(pq_run, tmp_path):
    page = tmp_path / "queue.html"
    assert main(["report", str(pq_run), "--interactive", "--span", "8", "-o", str(page)]) == 0
    with chromium(tmp_path / "profile", offline=True) as browser:
        browser.get(page.as_uri())
        data = browser.execute_script("return qoslabQueue.data")
        assert data["port"] == "r1->r2"
        assert data["classes"] == ["high", "medium", "normal", "low"]
        packets = data["packets"]
        voice, flood = data["flows"].index("voice"), data["flows"].index("flood")
        # A voice packet arriving while flood packets wait in the normal queue...
        passed = 0
        for i, flow in enumerate(packets["flow"]):
            if flow != voice or packets["arrival"][i] < 3e9:
                continue
            arrival, dequeue = packets["arrival"][i], packets["dequeue"][i]
            before = browser.execute_script("return qoslabQueue.stateAt(arguments[0])", arrival)
            high, normal = before["queues"][0], before["queues"][2]
            waiting = [p for p in normal["packets"] if p["arrival_ns"] < arrival]
            assert waiting
            assert all(p["flow"] == "flood" for p in waiting)
            if dequeue > arrival:  # else the ring took it at once
                assert any(p["id"] == packets["id"][i] for p in high["packets"])
            # ... leaves the queue while every one of them is still queued.
            after = browser.execute_script("return qoslabQueue.stateAt(arguments[0])", dequeue)
            still = {p["id"] for p in after["queues"][2]["packets"]}
            assert {p["id"] for p in waiting} <= still
            assert packets["id"][i] not in {p["id"] for p in after["queues"][0]["packets"]}
            wire = [after["wire"]["id"]] if after["wire"] else []
            assert packets["id"][i] in {p["id"] for p in after["ring"]} | set(wire)
            passed += 1
            if passed == 5:
                break
        assert passed == 5
        # The flood's frames go out and are dropped at the tail, and the lists say so.
        late = browser.execute_script("return qoslabQueue.stateAt(arguments[0])", 7.5e9)
        assert any(d["flow"] == "flood" and d["reason"] == "tail" for d in late["drops"])
        assert all(d["flow"] == "flood" for d in late["drops"])
        assert packets["flow"].count(flood) > 0
        # Seeking moves the picture; playing moves the clock.
        browser.execute_script("qoslabQueue.seek(arguments[0])", 6e9)
        clock = browser.find_element(By.ID, "queue-clock").text
        assert clock == "t = 6.000000 s"
        counts = browser.find_elements(By.CSS_SELECTOR, "#queue-picture text.count")
        assert any(re.fullmatch(r"\d+ packets", c.text) and c.text != "0 packets" for c in counts)
        browser.find_element(By.ID, "queue-play").click()
        browser.implicitly_wait(0)
        start = browser.execute_script("return qoslabQueue.time()")
        browser.execute_script("return new Promise(r => setTimeout(r, 300))")
        assert browser.execute_script("return qoslabQueue.time()") > start
        assert fetched(browser) == []


def test_the_queue_page_is_small_and_refuses_what_it_cannot_show(pq_run, tmp_path, capsys):
    results = qoslab.load(pq_run)
    cut = queue_data(results, span_s=20, max_packets=500)
    assert cut["cut"]
    assert len(cut["packets"]["id"]) <= 500
    assert cut["end_ns"] < 20e9
    with pytest.raises(QueueDataError, match=r"no port 'r9->r1' in this run \(ports: "):
        queue_data(results, "r9->r1")
    page = tmp_path / "q.html"
    command = ["report", str(pq_run), "--interactive", "--port", "r9->r1", "-o", str(page)]
    assert main(command) == 2
    assert "no port 'r9->r1'" in capsys.readouterr().err
    assert not page.exists()


def test_a_run_without_a_trace_is_refused_with_the_fix(examples_dir, tmp_path, capsys):
    folder = tmp_path / "plain"
    assert main(["run", str(examples_dir / "voice-vs-flood.yaml"), "-o", str(folder)]) == 0
    capsys.readouterr()
    assert main(["report", str(folder), "--interactive", "-o", str(tmp_path / "p.html")]) == 2
    assert "run it with --trace" in capsys.readouterr().err


def test_names_carrying_markup_are_shown_as_text(examples_dir, tmp_path):
    document = yaml.safe_load((examples_dir / "voice-vs-flood.yaml").read_text())
    document["traffic"][0]["name"] = f"voice{HOSTILE}"
    document["run"]["duration"] = "2s"
    document["run"]["warmup"] = "0s"
    scenario = tmp_path / "hostile.yaml"
    scenario.write_text(yaml.safe_dump(document))
    folder = tmp_path / "hostile"
    command = ["sweep", str(scenario), "--vary", "interfaces.r1.r2.output=fifo,pq"]
    assert main([*command, "--reps", "1", "-o", str(folder), "--quiet"]) == 0
    sweep_page = tmp_path / "sweep.html"
    assert main(["report", str(folder), "--interactive", "-o", str(sweep_page)]) == 0
    trace = tmp_path / "run"
    command = ["run", str(scenario), "--trace", "-o", str(trace)]
    assert main([*command, "--set", "interfaces.r1.r2.output=pq"]) == 0
    run_page = tmp_path / "run.html"
    assert main(["report", str(trace), "--interactive", "-o", str(run_page)]) == 0
    with chromium(tmp_path / "profile") as browser:
        browser.get(sweep_page.as_uri())
        names = browser.execute_script(
            "return [...document.querySelectorAll('#flows-table td:first-child')]"
            ".map(c => c.textContent)"
        )
        assert f"voice{HOSTILE}" in names
        assert browser.execute_script("return document.documentElement.dataset.ran") is None
        browser.get(run_page.as_uri())
        browser.execute_script("qoslabQueue.seek(1.5e9)")
        titles = browser.execute_script(
            "return [...document.querySelectorAll('#queue-picture title')].map(t => t.textContent)"
        )
        assert any(t.startswith(f"voice{HOSTILE} #") for t in titles)
        assert f"voice{HOSTILE}" in browser.find_element(By.CSS_SELECTOR, "p.legend").text
        assert browser.execute_script("return document.documentElement.dataset.ran") is None


def test_a_sweep_that_varies_nothing_has_one_point_and_no_line_along_a_key(examples_dir, tmp_path):
    folder = tmp_path / "replications"
    qoslab.sweep(
        examples_dir / "congestion-lab.yaml",
        reps=2,
        set={"run.duration": "10s"},
        out=folder,
        progress=False,
        use_section=False,
    )
    page = tmp_path / "one.html"
    assert main(["report", str(folder), "--interactive", "-o", str(page)]) == 0
    with chromium(tmp_path / "profile") as browser:
        browser.get(page.as_uri())
        assert (
            browser.find_elements(By.CSS_SELECTOR, "#selectors select[id^=select-]")[
                0
            ].get_attribute("id")
            == "select-metric"
        )
        status = browser.find_element(By.ID, "point-status").text
        assert status == "the scenario as written: not every budget met"
        hidden = "return document.getElementById('chart-along').parentElement.hidden"
        assert browser.execute_script(hidden) is True
        assert browser.get_log("browser") == []
