"""The analytics report in a real browser (Debian's Chromium via Selenium): editors see what
agents and readers did not find and create the missing term from the report. The screenshots
under docs/screenshots/ come from here (SAVE_SCREENSHOTS=1)."""

import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from analytics.models import Lookup
from analytics.recorder import recorder
from tests.browser import (
    csp_violations,
    record_csp_violations,
    screenshot,
    stop_recording_csp_violations,
    wait,
)
from tests.factories import make_term

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MCP_URL = "/wp-json/webflux/v1/mcp"
MODERN = "2026-07-28"
AGENTS = [("claude-code", "2.1.3"), ("cursor", "1.7.0"), ("mcp-inspector", "2.12.0")]


def tool(client, name, arguments, agent):
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": agent[0], "version": agent[1]},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}}  # fmt: skip
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name}
    response = client.post(MCP_URL, data=json.dumps(body), content_type="application/json",
                           headers=headers)  # fmt: skip
    assert response.status_code == 200


@pytest.fixture
def traffic(db):
    """Real calls through the MCP endpoint and the search page, then a flush; plus a few
    earlier days' rows so the per-day table has a history."""
    for name, definition in [("Serwer MCP", "Program z narzędziami dla agentów."),
                             ("JSON-RPC", "Protokół zdalnych wywołań w JSON."),
                             ("SSE", "Server-Sent Events.")]:  # fmt: skip
        make_term(name, short_definition=definition)
    client = Client()
    misses = {"okno kontekstowe": 5, "agent memory": 3, "mpc": 2, "prompt injection": 1}
    for i, (query, times) in enumerate(misses.items()):
        for n in range(times):
            tool(client, "search_term", {"query": query}, AGENTS[(i + n) % len(AGENTS)])
    for n, slug in enumerate(["serwer-mcp"] * 6 + ["json-rpc"] * 4 + ["sse"] * 2):
        tool(client, "get_term", {"slug": slug}, AGENTS[n % len(AGENTS)])
    tool(client, "get_term", {"slug": "agnet"}, AGENTS[0])
    for query in ["serwer mcp", "websocket", "websocket", "sse"]:
        client.get("/szukaj/", {"q": query})
    recorder.flush()
    earlier = [
        Lookup(at=timezone.now() - timedelta(days=d), source=source, name="search_term",
               query="sse", normalized="sse", results=1, found=True, top_result="sse",
               top_kind="term", **({"client_name": "cursor", "client_version": "1.6.2"}
                                   if source == "mcp" else {}))
        for d in (1, 2, 3) for source in ("mcp", "site") for _ in range(d * 2)
    ]  # fmt: skip
    Lookup.objects.bulk_create(earlier)


def log_in(browser, user):
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    browser.get(browser.url("/admin/login/"))
    browser.add_cookie(
        {"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "path": "/"}
    )


@pytest.fixture
def editor_browser(browser):
    admin = User.objects.create_superuser("redaktorka", "r@example.com", "x")
    log_in(browser, admin)
    browser.set_window_size(1400, 1100)
    yield browser
    browser.set_window_size(1280, 900)


def test_editor_creates_a_missing_term_from_the_agents_report(editor_browser, traffic, tmp_path):
    """The report lists the most missed query first with its count; its "create this term"
    button opens the term form with the name and slug filled in."""
    b = editor_browser
    b.get(b.url("/admin/analytics/lookup/raport/"))
    first = wait(b).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, "#content-main tbody tr"))
    )
    cells = [td.text for td in first.find_elements(By.TAG_NAME, "td")]
    assert cells[:3] == ["okno kontekstowe", "5", "3"]
    clients = b.find_element(By.XPATH, "//h2[@id='klienci']/following-sibling::table").text
    assert "claude-code" in clients and "2.1.3" in clients
    screenshot(b, "analytics-agents-report", tmp_path)
    first.find_element(By.CSS_SELECTOR, "a.create-term").click()
    name = wait(b).until(ec.presence_of_element_located((By.ID, "id_name")))
    assert name.get_attribute("value") == "okno kontekstowe"
    assert b.find_element(By.ID, "id_slug").get_attribute("value") == "okno-kontekstowe"
    screenshot(b, "analytics-create-term", tmp_path)


def test_editor_reads_the_site_search_report(editor_browser, traffic, tmp_path):
    """The same report for the site's search box: its misses, terms and days."""
    b = editor_browser
    b.get(b.url("/admin/analytics/lookup/raport/?zrodlo=site"))
    first = wait(b).until(
        ec.presence_of_element_located((By.CSS_SELECTOR, "#content-main tbody tr"))
    )
    assert first.find_elements(By.TAG_NAME, "td")[0].text == "websocket"
    terms = b.find_element(By.XPATH, "//h2[@id='najczestsze']/following-sibling::table").text
    assert "Serwer MCP" in terms and "SSE" in terms
    assert not b.find_elements(By.ID, "klienci")  # readers announce no client
    screenshot(b, "analytics-site-report", tmp_path)


def test_editor_attaches_a_missed_query_to_its_term(editor_browser, traffic, tmp_path):
    """Beside each missed query the editor types a few letters of the term it was about into
    the autocomplete, picks it and presses "Dołącz do pojęcia": the report comes back with a
    message naming the term, and the row says the query is attached; the search box finds
    the term by that query first from then on. The report's styles and scripts pass the
    Content-Security-Policy (nothing blocked)."""
    b = editor_browser
    recording = record_csp_violations(b)
    b.get(b.url("/admin/analytics/lookup/raport/"))
    row = wait(b).until(
        ec.presence_of_element_located((By.XPATH, "//tr[td[1][normalize-space()='mpc']]"))
    )
    row.find_element(By.CSS_SELECTOR, ".select2-selection").click()
    search = wait(b).until(
        ec.visibility_of_element_located((By.CSS_SELECTOR, ".select2-search__field"))
    )
    search.send_keys("serwer")
    wait(b).until_not(ec.presence_of_element_located((By.CSS_SELECTOR, ".loading-results")))
    option = wait(b).until(
        ec.visibility_of_element_located(
            (By.XPATH, "//li[contains(@class,'select2-results__option') and .='Serwer MCP']")
        )
    )
    screenshot(b, "analytics-attach-query", tmp_path)
    option.click()
    row.find_element(By.CSS_SELECTOR, "button.attach-term").click()
    message = wait(b).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".messagelist")))
    assert message.text == "Dołączono zapytanie „mpc” do pojęcia „Serwer MCP” (pytano też jako)."
    row = b.find_element(By.XPATH, "//tr[td[1][normalize-space()='mpc']]")
    assert "dołączone do: Serwer MCP" in row.text
    assert not row.find_elements(By.CSS_SELECTOR, "button.attach-term")
    assert (
        b.find_element(By.CSS_SELECTOR, ".report-grid").value_of_css_property("display") == "grid"
    )
    assert csp_violations(b) == []
    stop_recording_csp_violations(b, recording)
    screenshot(b, "analytics-attached-query", tmp_path)
    b.get(b.url("/szukaj/?q=mpc"))
    card = wait(b).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".exact-match")))
    assert "Serwer MCP" in card.text
