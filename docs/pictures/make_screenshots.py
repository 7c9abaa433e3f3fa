"""Take the screenshots of docs/explore.md into docs/pictures/*.png.

    python docs/pictures/make_screenshots.py

Runs what each picture shows — the branch office sweep of docs/explore.md, the flagship
example under PQ with its trace, ``qoslab serve`` of the congestion lab with its LLQ
configuration pasted and its priority lowered — and photographs the pages in headless
Chromium through Selenium and Debian's ChromeDriver (packages ``chromium`` and
``chromium-driver``). Fonts and the browser's version change a picture's pixels, so the
pictures are not compared by any test; the numbers they show are those of the output blocks
of docs/explore.md, which are.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EXAMPLES = ROOT / "examples"
LLQ = ROOT / "python" / "qoslab" / "studies" / "congestion-mgmt-lab" / "ios" / "llq.txt"
WINDOW = (1280, 900)
WAIT_S = 60


def qoslab(*arguments: str) -> str:
    """Run ``qoslab`` with ``arguments`` and return what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "qoslab", *arguments], capture_output=True, text=True, check=True
    )
    return done.stdout


def browser(profile: Path, window: tuple[int, int] = WINDOW) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={window[0]},{window[1]}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


SHOW = "document.getElementById('{}').scrollIntoView()"
"""A script that scrolls an element of the page into view."""


def photograph(page: Path, window: tuple[int, int], scripts: list[str], picture: str) -> None:
    """Open ``page`` in a window of ``window`` pixels, run ``scripts`` in it and save what
    the window shows as ``picture``."""
    with tempfile.TemporaryDirectory() as profile:
        chrome = browser(Path(profile), window=window)
        try:
            chrome.get(page.as_uri())
            for script in scripts:
                chrome.execute_script(script)
            chrome.save_screenshot(str(HERE / picture))
        finally:
            chrome.quit()


def sweep_pictures(scratch: Path) -> None:
    folder = scratch / "sweep"
    qoslab(
        "sweep",
        str(EXAMPLES / "branch-office.yaml"),
        "--vary",
        "interfaces.branch.hq.output=fifo,wfq,llq",
        "--vary",
        "topology.links.1.rate=512kbps,768kbps,1024kbps",
        "--reps",
        "10",
        "-o",
        str(folder),
        "--quiet",
    )
    qoslab("report", str(folder), "-o", str(scratch / "report.html"))
    qoslab("report", str(folder), "--interactive", "-o", str(scratch / "interactive.html"))
    photograph(scratch / "report.html", WINDOW, [], "report-answer.png")
    photograph(
        scratch / "interactive.html",
        (1280, 1500),
        ["qoslabSweep.select('rate', '768kbps')", SHOW.format("explore")],
        "interactive-sweep.png",
    )


def queue_picture(scratch: Path) -> None:
    folder = scratch / "pq"
    qoslab(
        "run",
        str(EXAMPLES / "voice-vs-flood.yaml"),
        "--set",
        "interfaces.r1.r2.output=pq",
        "--set",
        "run.warmup=0s",
        "--set",
        "run.duration=20s",
        "--trace",
        "-o",
        str(folder),
    )
    page = scratch / "queue.html"
    qoslab("report", str(folder), "--interactive", "--span", "10", "-o", str(page))
    photograph(
        page, (1280, 820), ["qoslabQueue.seek(6e9)", SHOW.format("queue")], "queue-animation.png"
    )


def serve_picture(scratch: Path) -> None:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qoslab",
            "serve",
            str(EXAMPLES / "congestion-lab.yaml"),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    chrome = browser(scratch / "profile-serve", window=(1400, 900))
    try:
        line = server.stdout.readline() if server.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if found is None:
            raise SystemExit(f"qoslab serve printed no address: {line!r}")
        chrome.get(found[0])

        def runs() -> int:
            status = chrome.find_element("id", "status")
            return int(status.get_attribute("data-runs") or 0)

        def settle(after: int) -> None:
            WebDriverWait(chrome, WAIT_S).until(lambda _: runs() > after)

        settle(0)
        done = runs()
        chrome.find_element("css selector", '#compare input[value="llq"]').click()
        settle(done)
        done = runs()
        chrome.execute_script(
            "const area = document.getElementById('ios-text'); area.value = arguments[0];"
            "area.dispatchEvent(new Event('input'));",
            LLQ.read_text().replace("priority 384", "priority 32"),
        )
        settle(done)
        chrome.save_screenshot(str(HERE / "serve.png"))
    finally:
        chrome.quit()
        server.terminate()
        server.wait()


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        sweep_pictures(Path(scratch))
        queue_picture(Path(scratch))
        serve_picture(Path(scratch))


if __name__ == "__main__":
    main()
