"""``qoslab serve`` as a user meets it: the command started as a process, its page opened in
headless Chromium (Selenium), IOS configuration pasted and edited, the results followed;
errors marked at their line; markup in names shown as text; and the server answering only
its own page on the loopback address."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import chromium
from qoslab.cli import main

HERE = Path(__file__).parent
LLQ = HERE.parent / "python" / "qoslab" / "studies" / "congestion-mgmt-lab" / "ios" / "llq.txt"
HOSTILE = "<img src=x onerror=document.documentElement.dataset.ran=1><b>bold</b>"
"""Markup that marks the page's root element if it is ever read as markup (no quotes, so
that it sits in a quoted YAML string as it is)."""
START_LIMIT_S = 60
UPDATE_LIMIT_S = 2.0
"""The acceptance's bound: an edit's results are on the page within 2 s."""


@pytest.fixture
def server(examples_dir):
    """``qoslab serve examples/congestion-lab.yaml --port 0`` running, and its address."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qoslab",
            "serve",
            str(examples_dir / "congestion-lab.yaml"),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline() if process.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, f"no address in {line!r}: {process.stderr.read() if process.stderr else ''}"
        yield found[0], int(found[1])
    finally:
        process.terminate()
        process.wait(timeout=20)


def _set_text(browser, element_id: str, text: str) -> None:
    """Put ``text`` into a textarea as a paste does: the value, then an ``input`` event."""
    browser.execute_script(
        "const area = document.getElementById(arguments[0]); area.value = arguments[1];"
        "area.dispatchEvent(new Event('input', {bubbles: true}));",
        element_id,
        text,
    )


def _runs(browser) -> int:
    return int(browser.find_element(By.ID, "status").get_attribute("data-runs") or 0)


def _settled(browser, after: int, limit_s: float) -> None:
    """Wait until an answer newer than the ``after``-th is shown."""
    WebDriverWait(browser, limit_s, poll_frequency=0.02).until(lambda b: _runs(b) > after)


def _opened(browser, address: str) -> str:
    """Open the page, wait for its first results, and return the scenario's text."""
    browser.get(address)
    _settled(browser, 0, START_LIMIT_S)
    return browser.find_element(By.ID, "scenario-text").get_property("value")


def _voice_cell(browser, column: str):
    return browser.find_element(
        By.CSS_SELECTOR, f'section.column[data-name="{column}"] tr[data-app="voice"] td.verdict'
    )


def test_pasted_llq_keeps_voice_in_contract_and_a_lower_priority_shows_within_2_s(server, tmp_path):
    address, _ = server
    with chromium(tmp_path / "profile") as browser:
        browser.get(address)
        _settled(browser, 0, START_LIMIT_S)
        # The scenario as written: FIFO on r1->r2, voice out of contract.
        assert "out" in _voice_cell(browser, "as written").get_attribute("class")
        before = _runs(browser)
        _set_text(browser, "ios-text", LLQ.read_text())
        _settled(browser, before, START_LIMIT_S)
        cell = _voice_cell(browser, "pasted IOS")
        assert "in" in cell.get_attribute("class").split()
        assert float(cell.text) == pytest.approx(100.0)
        # A priority class policed at 32 kbit/s cannot carry 60 kbit/s of voice.
        before = _runs(browser)
        started = time.perf_counter()
        _set_text(browser, "ios-text", LLQ.read_text().replace("priority 384", "priority 32"))
        _settled(browser, before, UPDATE_LIMIT_S)
        elapsed = time.perf_counter() - started
        cell = _voice_cell(browser, "pasted IOS")
        assert "out" in cell.get_attribute("class").split()
        assert float(cell.text) < 50
        assert elapsed < UPDATE_LIMIT_S
        # The charts put the configurations side by side: the policed voice loses packets.
        loss = browser.execute_script(
            "const c = qoslabServe.chart('chart-loss');"
            "return [c.data.labels, c.data.datasets.map(d => [d.label, d.data])];"
        )
        voice = loss[0].index("voice")
        by_name = dict(loss[1])
        assert list(by_name) == ["as written", "pasted IOS"]
        assert by_name["pasted IOS"][voice] > 10
        # Ticking the scenario's own llq policy adds a column beside the others.
        before = _runs(browser)
        browser.find_element(By.CSS_SELECTOR, '#compare input[value="llq"]').click()
        _settled(browser, before, START_LIMIT_S)
        names = [
            column.get_attribute("data-name")
            for column in browser.find_elements(By.CSS_SELECTOR, "section.column")
        ]
        assert names == ["as written", "llq", "pasted IOS"]
        assert "in" in _voice_cell(browser, "llq").get_attribute("class").split()


def test_errors_are_marked_at_their_line(server, tmp_path):
    address, _ = server
    with chromium(tmp_path / "profile") as browser:
        text = _opened(browser, address)
        lines = text.split("\n")
        number = next(i for i, line in enumerate(lines, start=1) if "rate: 128kbps" in line)
        before = _runs(browser)
        _set_text(browser, "scenario-text", text.replace("rate: 128kbps", "rat: 128kbps", 1))
        _settled(browser, before, START_LIMIT_S)
        marked = browser.find_elements(By.CSS_SELECTOR, "#scenario-gutter span.error")
        assert [span.get_property("textContent") for span in marked] == [str(number)]
        error = browser.find_element(By.CSS_SELECTOR, "#scenario-errors li").text
        assert error.startswith(f"line {number}, column ")
        assert "unknown key `rat`. Did you mean `rate`?" in error
        # Clicking the error selects its place in the editor.
        browser.find_element(By.CSS_SELECTOR, "#scenario-errors li").click()
        selected = browser.execute_script(
            "const a = document.activeElement;"
            "return [a.id, a.value.slice(0, a.selectionStart).split('\\n').length,"
            " a.value.slice(a.selectionStart, a.selectionEnd)];"
        )
        assert selected[:2] == ["scenario-text", number]
        assert selected[2].startswith("rat: 128kbps")
        # A misspelt IOS command is marked at its line in the configuration.
        _set_text(browser, "scenario-text", text)
        before = _runs(browser)
        _set_text(browser, "ios-text", LLQ.read_text().replace("priority 384", "priorty 384"))
        _settled(browser, before, START_LIMIT_S)
        ios_line = LLQ.read_text().split("\n").index("priority 384") + 1
        marked = browser.find_elements(By.CSS_SELECTOR, "#ios-gutter span.error")
        assert [span.get_property("textContent") for span in marked] == [str(ios_line)]
        assert "unknown command `priorty`" in browser.find_element(By.ID, "ios-errors").text


def test_names_carrying_markup_are_shown_as_text(server, tmp_path):
    address, _ = server
    with chromium(tmp_path / "profile") as browser:
        text = _opened(browser, address)
        hostile = text.replace("  - name: voice\n", f"  - name: 'voice{HOSTILE}'\n", 1)
        hostile = hostile.replace(
            "{app: voice,", f"{{app: 'voice{HOSTILE}', flows: ['voice{HOSTILE}'],", 1
        )
        assert hostile != text
        before = _runs(browser)
        _set_text(browser, "scenario-text", hostile)
        _settled(browser, before, START_LIMIT_S)
        flows = [
            cell.text
            for cell in browser.find_elements(By.CSS_SELECTOR, "section.column table.data td")
        ]
        assert f"voice{HOSTILE}" in flows
        assert browser.execute_script("return document.documentElement.dataset.ran") is None


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_server_answers_only_its_own_page(server):
    address, port = server
    with urllib.request.urlopen(address, timeout=30) as response:
        page = response.read().decode()
    token = json.loads(re.search(r'id="qoslab-serve">(.*?)</script>', page)[1])["token"]
    body = json.dumps({"scenario": "name: x"}).encode()
    json_type = {"content-type": "application/json"}
    assert _post(address + "run", body, {**json_type, "x-qoslab-token": token}) == 200
    assert _post(address + "run", body, json_type) == 403
    assert (
        _post(address + "run", body, {"content-type": "text/plain", "x-qoslab-token": token}) == 415
    )
    rebound = {**json_type, "x-qoslab-token": token, "host": f"attacker.example:{port}"}
    assert _post(address + "run", body, rebound) == 421


def test_a_port_in_use_or_a_missing_scenario_is_refused(examples_dir, tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = ["serve", str(examples_dir / "congestion-lab.yaml"), "--port", str(port)]
        assert main(command) == 2
        assert f"port {port} on 127.0.0.1 is in use: choose another" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "none.yaml"), "--port", "0"]) == 2
    assert "none.yaml" in capsys.readouterr().err


def test_a_scenario_that_does_not_parse_opens_with_its_error_placed(tmp_path):
    from qoslab.serve.workbench import Request, Workbench

    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\ntopology:\n  nodes: [a\n")
    bench = Workbench(broken)
    assert bench.interfaces == []
    assert bench.policies == []
    outcome = bench.evaluate(Request(scenario=bench.text))
    (error,) = outcome.errors
    assert error.editor == "scenario"
    assert error.line >= 3
    assert outcome.columns[0].error == error.message
