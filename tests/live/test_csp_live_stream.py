"""The pages' live-update script under the Content-Security-Policy, on a real ASGI server
(tests/processes.py's live site: pytest-django's WSGI live server cannot hold a stream): the
term page's EventSource connects to the site's own stream (`connect-src 'self'`) and no
violation is reported (issue 13, item 7; the reader features are in
tests/glossary/test_browser_csp.py)."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from tests.browser import csp_violations, record_csp_violations, stop_recording_csp_violations, wait

pytestmark = [pytest.mark.live, pytest.mark.browser]

# Keeps every EventSource the page opens where the test can see its readyState; injected by
# DevTools before the page's scripts, like the violation recorder.
_TRACK_SOURCES = """
window.__sources = [];
var Native = window.EventSource;
window.EventSource = function (url, options) {
  var source = new Native(url, options);
  window.__sources.push(source);
  return source;
};
window.EventSource.prototype = Native.prototype;
window.EventSource.CONNECTING = 0; window.EventSource.OPEN = 1; window.EventSource.CLOSED = 2;
"""


def test_live_stream_connects_under_the_policy(chromium, live_site):
    """On /slownik/mcp/ the live script opens its event stream (readyState OPEN) with the
    policy enforced, and nothing is reported."""
    chromium.execute_cdp_cmd("Network.enable", {})
    chromium.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    recorder = record_csp_violations(chromium)
    tracker = chromium.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _TRACK_SOURCES}
    )["identifier"]
    try:
        chromium.get(live_site.url + "/slownik/mcp/")
        wait(chromium).until(
            ec.presence_of_element_located((By.CSS_SELECTOR, "[data-live-events]"))
        )
        wait(chromium, 15).until(
            lambda d: d.execute_script(
                "return window.__sources.some(function (s) { return s.readyState === 1; });"
            )
        )
        assert "/zdarzenia/" in chromium.execute_script("return window.__sources[0].url;")
        assert csp_violations(chromium) == []
    finally:
        chromium.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": tracker}
        )
        stop_recording_csp_violations(chromium, recorder)
        chromium.get("about:blank")
