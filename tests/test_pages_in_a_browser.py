"""Every page template rendered with hostile text in every field a user supplies, opened in
headless Chromium: no script may run.

The templates are the run and sweep report, the notebook view, the advice (HTML and
Markdown), a study's reproduction (HTML and Markdown) and the reproductions' index
(Markdown). Markdown pages are turned into HTML with markdown-it's CommonMark preset, which
passes raw HTML through as a Markdown viewer may, before they are opened. The hostile text
carries a script element, an image whose error handler runs script and an attribute break;
each would mark the page's root element if it ran, and the page Chromium leaves must not
carry the mark.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

import qoslab
from qoslab import report
from qoslab.cli import main

HERE = Path(__file__).parent
STUDIES = HERE.parent / "python" / "qoslab" / "studies"

MARK = "document.documentElement.setAttribute('data-ran','yes')"
HOSTILE = f'<script>{MARK}</script><img src=x onerror="{MARK}">"><svg onload="{MARK}">'
"""Markup that marks the page's root element if any of it runs."""

IN_A_NAME = f'<img src=x onerror="{MARK}">'
"""Hostile markup without a ``/``, for a file's name."""

RAN = re.compile(r"<html[^>]*data-ran")

CHROMIUM = "chromium"
BROWSER_LIMIT_S = 120


def _open_in_chromium(page: Path, profile: Path) -> str:
    """The page's document after Chromium has loaded it and run what it would."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(
            "headless Chromium is not installed: install the Debian package `chromium` "
            "(scripts/install-test-tools does, as root)"
        )
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=BROWSER_LIMIT_S,
    )
    assert done.returncode == 0, done.stderr
    assert "<html" in done.stdout, done.stderr
    return done.stdout


def _markdown_page(markdown: Path, tmp_path: Path) -> Path:
    """``markdown`` turned into an HTML page as a Markdown viewer that keeps raw HTML would."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(markdown.read_text())
    page = tmp_path / f"{markdown.stem}-{markdown.parent.name}.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{html}</body></html>"
    )
    return page


def _check(pages: list[Path], tmp_path: Path) -> None:
    """Open each page: the hostile text is on it, and nothing of it ran."""
    for number, page in enumerate(pages):
        dom = _open_in_chromium(page, tmp_path / f"profile-{number}")
        assert not RAN.search(dom), f"a script ran in {page.name}"
        assert "data-ran" in dom, f"{page.name} does not show the hostile text"


@pytest.fixture(scope="module")
def hostile_scenario(tmp_path_factory) -> Path:
    """The voice-versus-flood example with hostile text as its name, description, flow
    names and a budget's application, reading an IOS configuration with hostile lines and
    a hostile file name (which its notes quote)."""
    folder = tmp_path_factory.mktemp("hostile")
    config = folder / f"r1{IN_A_NAME}.txt"
    config.write_text(
        f"interface Serial0/0/0\n description {HOSTILE}\n bandwidth 128\n fair-queue\n {HOSTILE}\n"
    )
    scenario = yaml.safe_load((HERE.parent / "examples" / "voice-vs-flood.yaml").read_text())
    scenario["name"] = f"vvf {HOSTILE}"
    scenario["description"] = HOSTILE
    scenario["run"]["duration"] = "2s"
    scenario["traffic"][0]["name"] = f"voice{HOSTILE}"
    scenario["interfaces"]["r1"]["r2"] = {"ios": {"config": str(config), "interface": "s0/0/0"}}
    scenario["measure"] = {
        "budgets": [
            {
                "app": f"calls{HOSTILE}",
                "flows": [f"voice{HOSTILE}"],
                "end_to_end": {"delay": "150ms", "loss": "1%"},
            }
        ]
    }
    path = folder / "hostile.yaml"
    path.write_text(yaml.safe_dump(scenario))
    return path


def test_run_report_and_notebook_view(hostile_scenario, tmp_path):
    results = qoslab.run(hostile_scenario, set={"traffic.1.name": f"flood{HOSTILE}"})
    assert any(IN_A_NAME in note for note in results.run["notes"]), "a note names the file"
    run_page = tmp_path / "run.html"
    run_page.write_text(report.render(results))
    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<!DOCTYPE html><html><body>{results._repr_html_()}</body></html>")
    _check([run_page, notebook], tmp_path)


def test_sweep_report(hostile_scenario, tmp_path):
    out = tmp_path / f"sweep{HOSTILE.replace('/', '_')}"
    command = ["sweep", str(hostile_scenario), "-o", str(out), "--quiet"]
    command += ["--vary", "run.duration=1s,2s"]
    assert main(command) == 0
    page = tmp_path / "sweep.html"
    assert main(["report", str(out), "-o", str(page)]) == 0
    sweep = qoslab.load(out)
    notebook = tmp_path / "sweep-notebook.html"
    notebook.write_text(f"<!DOCTYPE html><html><body>{sweep._repr_html_()}</body></html>")
    _check([page, notebook], tmp_path)


def test_advice_pages(tmp_path):
    scenario = yaml.safe_load((HERE / "advise" / "calls-and-data.yaml").read_text())
    scenario["name"] = f"advice {HOSTILE}"
    scenario["description"] = HOSTILE
    for flow in scenario["traffic"]:
        if flow["name"] == "data":
            flow["name"] = f"data{HOSTILE}"
    for budget in scenario["measure"]["budgets"]:
        if budget["app"] == "data":
            budget["app"] = f"data{HOSTILE}"
    scenario["measure"]["order_of_failure"] = [f"data{HOSTILE}", "calls"]
    path = tmp_path / "advice.yaml"
    path.write_text(yaml.safe_dump(scenario))
    out = tmp_path / "advice"
    command = ["advise", str(path), "--links", "192kbps", "--reps", "2", "-o", str(out)]
    assert main(command) == 0
    _check([out / "advice.html", _markdown_page(out / "advice.md", tmp_path)], tmp_path)


def test_reproduction_pages_and_index(tmp_path):
    study = tmp_path / "congestion-mgmt-lab"
    shutil.copytree(STUDIES / "congestion-mgmt-lab", study)
    text = (study / "study.yaml").read_text()
    text = text.replace(
        "title: Congestion management and voice on a 128 kbit/s serial link",
        f"title: {json.dumps(HOSTILE)}",
    )
    (study / "study.yaml").write_text(text)
    published = (study / "published.yaml").read_text()
    published = published.replace(
        "says: LLQ loses no voice packet", f"says: {json.dumps('LLQ ' + HOSTILE)}"
    )
    (study / "published.yaml").write_text(published)
    out = tmp_path / "docs"
    from qoslab.reproduce import Setting, reproduce, write_index

    result = reproduce(study, out, Setting(quick=True, progress=False), f"qoslab {HOSTILE}")
    index = write_index({"congestion-mgmt-lab": result.written}, out, f"qoslab {HOSTILE}")
    _check(
        [
            result.written.html,
            _markdown_page(result.written.markdown, tmp_path),
            _markdown_page(index, tmp_path),
        ],
        tmp_path,
    )
