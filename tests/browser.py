"""A real browser for the tests of what readers and editors see.

Debian's Chromium, headless, driven through Selenium and Debian's ChromeDriver: test tools cannot
download a browser of their own here, so the distribution's packages are the browser
(`scripts/ensure-chromium` installs them; `make test` calls it). The page under test comes from
pytest-django's `live_server` (a threaded server on the test database), so a test arranges its
data with the ORM and then looks at the page as a reader would. The fixtures wrapping this live
in `tests/conftest.py`; tests using them are marked `browser`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT_DIR = ROOT / "docs" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# Flags the workplace's machines need: no sandbox as root, and no background connections
# (the closed network refuses them, and Chromium retries them at every start).
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--lang=pl-PL",
)
WAIT_SECONDS = 10


class MissingBrowser(RuntimeError):
    pass


def start_chromium(width: int = 1280, height: int = 900) -> webdriver.Chrome:
    """A headless Chromium with an empty profile of its own (removed when the driver quits)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        raise MissingBrowser(
            "Chromium and ChromeDriver are needed for the browser tests: run "
            "scripts/ensure-chromium (Debian's chromium and chromium-driver packages)."
        )
    profile = tempfile.mkdtemp(prefix="slownik-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    # The console log (driver.get_log("browser")): Content-Security-Policy violations land there.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager would otherwise try to download one.
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    original_quit = driver.quit

    def quit_and_clean() -> None:
        try:
            original_quit()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    driver.quit = quit_and_clean
    return driver


# The pages' live-update streams (server-sent events). pytest-django's live server is WSGI,
# where an endless stream holds its thread for ever (docs/architecture.md: streams need ASGI);
# the browser is told not to open them. Live updates are tested against a real ASGI server.
LIVE_STREAM_URLS = ("*/zdarzenia/*",)


def block_live_streams(driver: webdriver.Chrome) -> None:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": list(LIVE_STREAM_URLS)})


def wait(driver: webdriver.Chrome, seconds: float = WAIT_SECONDS) -> WebDriverWait:
    return WebDriverWait(driver, seconds)


def screenshot(driver: webdriver.Chrome, name: str, directory: Path | None = None) -> Path:
    """Save the viewport as PNG. Into docs/screenshots/ when SAVE_SCREENSHOTS=1 (to refresh
    the committed ones), otherwise into `directory` (a test's tmp_path)."""
    if os.environ.get("SAVE_SCREENSHOTS") == "1" or directory is None:
        directory = SCREENSHOT_DIR
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


# Every Content-Security-Policy violation a page reports (its `securitypolicyviolation` events),
# recorded from before the page's own scripts run. DevTools-injected scripts are not subject
# to the page's CSP, so the recorder itself cannot be what is blocked.
_CSP_RECORDER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline")
                              + " at " + e.sourceFile + ":" + e.lineNumber);
});
"""


def record_csp_violations(driver: webdriver.Chrome) -> str:
    """Start recording CSP violations on every page loaded from now on; returns the handle
    `stop_recording_csp_violations` takes. Clears the console log."""
    driver.get_log("browser")
    return driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _CSP_RECORDER}
    )["identifier"]


def stop_recording_csp_violations(driver: webdriver.Chrome, handle: str) -> None:
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": handle})


def csp_violations(driver: webdriver.Chrome) -> list[str]:
    """The current page's recorded violations plus every console message about the
    Content-Security-Policy since the last call (the console log is read destructively)."""
    recorded = driver.execute_script("return window.__cspViolations || [];")
    console = [
        entry["message"]
        for entry in driver.get_log("browser")
        if "Content Security Policy" in entry["message"]
        or "Content-Security-Policy" in entry["message"]
    ]
    return [*recorded, *console]
