"""Headless Chromium for the browser tests: Debian's ``chromium`` and ``chromium-driver``,
driven by Selenium, with no browser download.

:func:`require_browser` is called first by every browser test module: without chromium,
chromedriver or selenium the module is skipped with the reason, except under ``CI``, where it
fails (the browser tests may never be skipped in CI). Selenium is imported only after it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import in_ci
from flask import Flask

if TYPE_CHECKING:  # selenium is imported only once the browser is known to be there
    from selenium.webdriver import Chrome
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# As root, with the machine's closed network: no sandbox, and no background connections.
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=360,740",
)


def artifacts(name: str) -> Path:
    """Where a test keeps its screenshots (``HZ_ARTIFACTS`` moves the root)."""
    return Path(os.environ.get("HZ_ARTIFACTS", "test-artifacts")) / name


def _missing() -> str | None:
    for path, what in ((CHROMIUM, "chromium"), (DRIVER, "chromedriver")):
        if not Path(path).exists():
            return f"{what} is not installed ({path}); apt-get install chromium chromium-driver"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e .[test])"
    return None


def require_browser() -> None:
    """Skips the calling module with the reason, or fails it under CI."""
    why = _missing()
    if why is None:
        return
    if in_ci():
        pytest.fail(f"the browser test must run in CI: {why}", pytrace=False)
    pytest.skip(why, allow_module_level=True)


def chrome(profile: str, *extra: str) -> Chrome:
    """A headless Chromium at 360 x 740 with its own profile directory (its own cookies) and
    its console log kept (for JavaScript errors)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (*FLAGS, f"--user-data-dir={profile}", *extra):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    d.set_window_size(360, 740)
    return d


def new_profile(name: str) -> str:
    return tempfile.mkdtemp(prefix=f"hz-{name}-")


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """The app on a free loopback port, in this process, on ``referee serve``'s own server:
    the event-driven front (:mod:`web.front`) writing the live streams, Flask the rest."""
    from web import serve

    port = serve.free_port("127.0.0.1")
    srv = serve.make_server(app, "127.0.0.1", port, 16)
    srv.prepare()
    t = threading.Thread(target=srv.serve, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.stop()
        t.join(30)


AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
WCAG_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")


def axe_violations(d: Chrome) -> list[str]:
    """The WCAG 2.1 A/AA violations axe-core (vendored, tests/vendor/axe-core) finds on the
    page ``d`` shows, one line each: rule, impact, and the first offending elements."""
    if not d.execute_script("return !!window.axe"):
        d.execute_script(AXE.read_text(encoding="utf-8"))
    d.set_script_timeout(60)
    found = d.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "var only = {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']};"
        "function where(n) {"
        "  return n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n')[1]; }"
        "axe.run(document, only).then(function (r) { done(r.violations.map(function (v) {"
        "  return v.id + ' (' + v.impact + '): ' + v.help + ' at '"
        "    + v.nodes.slice(0, 3).map(where).join(' | ');"
        "})); }, function (e) { done(['axe failed: ' + e]); });",
        list(WCAG_AA),
    )
    return [str(v) for v in found]


def take_seat(d: WebDriver, link: str, timeout: float = 60) -> None:
    """Opens a seat's join link and presses its one button, "Take Hera's seat" (opening the
    link takes nothing: issue 31, item 2), then waits for the seat's page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    d.get(link)
    if "/join/" in d.current_url:
        d.find_element(By.ID, "take-seat").click()
        WebDriverWait(d, timeout).until(lambda drv: "/join/" not in drv.current_url)
    WebDriverWait(d, timeout).until(
        lambda drv: drv.find_elements(By.CSS_SELECTOR, "body[data-seat]")
    )
