"""Headless Chromium driven by Selenium through Debian's ChromeDriver, for the tests that
click the interactive pages and ``qoslab serve``.

The browser and its driver are the system's (Debian packages ``chromium`` and
``chromium-driver``, installed by scripts/install-test-tools); a test that cannot find
them, or Selenium, skips naming what to install. Selenium is given both paths, so it never
looks for a driver to download. ``offline`` cuts the browser off the network through the
DevTools protocol, so a page that works under it fetches nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "chromium"
CHROMEDRIVER = "chromedriver"
WINDOW = (1280, 900)


def _require() -> tuple[str, str]:
    """The paths of Chromium and ChromeDriver, or skip naming the package to install."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("Selenium is not installed: pip install '.[test]'")
    chromium = shutil.which(CHROMIUM)
    if chromium is None:
        pytest.skip("headless Chromium is not installed: install the Debian package `chromium`")
    driver = shutil.which(CHROMEDRIVER)
    if driver is None:
        pytest.skip(
            "ChromeDriver is not installed: install the Debian package `chromium-driver` "
            "(scripts/install-test-tools does, as root)"
        )
    return chromium, driver


@contextmanager
def chromium(profile: Path, *, offline: bool = False, window: tuple[int, int] = WINDOW) -> Iterator:
    """A headless Chromium under Selenium, quit at the end; ``offline``: with every network
    request failing."""
    binary, driver_path = _require()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
        f"--window-size={window[0]},{window[1]}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        if offline:
            browser.execute_cdp_cmd("Network.enable", {})
            browser.execute_cdp_cmd(
                "Network.emulateNetworkConditions",
                {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
            )
        yield browser
    finally:
        browser.quit()


def fits_the_window(browser) -> bool:
    """Whether the page is no wider than the window (nothing to scroll sideways)."""
    return browser.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth"
    )


def fetched(browser) -> list[str]:
    """The addresses the page asked for after it loaded itself."""
    return browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
