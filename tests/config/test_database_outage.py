"""While the database is unreachable every interface says "come back soon", never "500".

The outage is simulated in-process by making every query raise Django's OperationalError, as
psycopg does when the server refuses connections or terminated the one a worker held; the real
thing (a PostgreSQL cluster stopped and started under a WSGI server) is
tests/live/test_database_restart.py. RFC 9110 §15.6.4: 503 "the server is currently unable to
handle the request due to a temporary overload or scheduled maintenance"; §10.2.3 Retry-After.
"""

from unittest import mock

import orjson
import pytest
from django.db import InterfaceError, OperationalError, connections
from django.test import Client, override_settings

from tests.mcp.helpers import LEGACY, MCP_URL, MODERN, meta

pytestmark = pytest.mark.django_db

DOWN = {
    "refused": OperationalError("connection failed: Connection refused. Is the server running?"),
    "terminated": OperationalError("terminating connection due to administrator command"),
    "closed": InterfaceError("connection already closed"),
}


@pytest.fixture(params=sorted(DOWN))
def database_down(request):
    """Every query of the default database fails the way an outage makes it fail: at
    `ensure_connection`, which every path to the driver passes (`connection.cursor()` and
    the prepared reads' kept cursor, glossary/db/cursors.py)."""
    default = connections["default"]
    with mock.patch.object(default, "ensure_connection", side_effect=DOWN[request.param]):
        yield


@pytest.fixture
def client():
    # The site's own 500/503 handler answers, as in production (not the test client re-raising).
    return Client(raise_request_exception=False)


def _get_term(headers):
    params = {"name": "get_term", "arguments": {"slug": "mcp"}}
    if headers.get("MCP-Protocol-Version") == MODERN:
        params["_meta"] = meta()
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    return orjson.dumps(body)


MCP_CASES = {
    "legacy era": {"MCP-Protocol-Version": LEGACY},
    "2026-07-28 era": {
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "get_term",
    },
    "legacy session lookup": {"MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": "a" * 32},
}


@pytest.mark.parametrize("case", sorted(MCP_CASES))
@override_settings(DATABASE_RETRY_AFTER=7)
def test_mcp_answers_503_with_retry_after_and_a_jsonrpc_error(client, database_down, case):
    """An MCP call during an outage is HTTP 503 with Retry-After (both eras, and a session
    lookup before the dispatcher) and a JSON-RPC error (-32000, server-defined range) whose
    message says the service is temporarily unavailable and when to retry."""
    headers = MCP_CASES[case]
    response = client.post(
        MCP_URL, data=_get_term(headers), content_type="application/json", headers=headers
    )
    assert response.status_code == 503
    assert response["Retry-After"] == "7"
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["id"] == (None if "Mcp-Session-Id" in headers else 7)
    assert body["error"]["code"] == -32000
    assert "temporarily unavailable" in body["error"]["message"]
    assert "Retry in 7 s" in body["error"]["message"]
    assert body["error"]["data"] == {"retryAfter": 7}


def test_mcp_outage_error_leaks_no_exception_text(client, database_down):
    """The database's own message (host names, SQL state) stays in the server log."""
    response = client.post(
        MCP_URL, data=_get_term(MCP_CASES["legacy era"]), content_type="application/json"
    )
    assert b"connection" not in response.content.lower().replace(b"cannot be reached", b"")


@override_settings(DATABASE_RETRY_AFTER=9)
@pytest.mark.parametrize("path", ["/slownik/mcp/", "/", "/nie-ma-takiej-strony/"])
def test_pages_answer_the_styled_503_page(client, database_down, path):
    """A reader page (and the 404 page, which queries for suggestions) during an outage is the
    styled, self-contained 503 page in Polish with Retry-After, not the 500 page."""
    response = client.get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "9"
    html = response.content.decode()
    assert '<html lang="pl">' in html
    assert '<p class="code">503</p>' in html
    assert "odśwież stronę za kilka sekund" in html


def test_other_page_failures_stay_the_500_page(client):
    """Only an unreachable database is a 503; any other unexpected error is the 500 page."""
    with mock.patch("glossary.views.selectors.latest_articles", side_effect=RuntimeError("bug")):
        response = client.get("/")
    assert response.status_code == 500
    assert "Retry-After" not in response
    assert '<p class="code">500</p>' in response.content.decode()


@override_settings(DATABASE_RETRY_AFTER=11)
@pytest.mark.parametrize("path", ["/wp-json/webflux/v1/terms", "/wp-json/webflux/v1/terms/1"])
def test_rest_api_answers_503_in_the_wordpress_error_shape(client, database_down, path):
    """A REST read during an outage is WordPress's error object with status 503, the code
    `rest_service_unavailable` and Retry-After (header and `data.retry_after`)."""
    response = client.get(path)
    assert response.status_code == 503
    assert response["Retry-After"] == "11"
    assert response.json() == {
        "code": "rest_service_unavailable",
        "message": "Usługa chwilowo niedostępna (baza danych); spróbuj ponownie za 11 s.",
        "data": {"status": 503, "retry_after": 11},
    }
