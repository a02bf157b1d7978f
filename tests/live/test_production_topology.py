"""The production topology the README recommends, run for real: granian's WSGI interface over
`config.wsgi:application` serves pages and MCP POSTs (the split entry point routes /wp-json/ to
the lean MCP handler), while streams stay on the ASGI server. The in-process test client covers
the views; these tests prove the WSGI entry point itself: its middleware split, security
headers, keep-alive lengths, conditional GETs, and that a live MCP call still streams its
progress as SSE under WSGI (a plain iterator there)."""

from __future__ import annotations

import http.client
import json

import anyio
import pytest
from mcp import Client

from tests.processes import HOST, MCP_PATH, WSGI_SERVER_COMMAND, hit_slugs

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def wsgi_site(live_site):
    return live_site.spawn("granian-wsgi", command=WSGI_SERVER_COMMAND)


def _request(server, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def _post(server, message, **headers):
    return _request(
        server,
        "POST",
        MCP_PATH,
        json.dumps(message),
        {"Content-Type": "application/json", **headers},
    )


def test_pages_are_served_with_the_full_site_middleware(wsgi_site):
    """A term page under WSGI is HTML in Polish with the site's security headers."""
    response, body = _request(wsgi_site, "GET", "/slownik/mcp/")
    assert response.status == 200
    assert b'lang="pl"' in body
    assert response.getheader("X-Frame-Options") == "DENY"
    assert response.getheader("X-Content-Type-Options") == "nosniff"


def test_conditional_term_page_is_answered_304(wsgi_site):
    """A repeated GET with the page's ETag gets 304 and no body."""
    first, _ = _request(wsgi_site, "GET", "/slownik/json-rpc/")
    etag = first.getheader("ETag")
    assert etag
    second, body = _request(wsgi_site, "GET", "/slownik/json-rpc/", headers={"If-None-Match": etag})
    assert second.status == 304 and body == b""


def test_mcp_post_goes_through_the_lean_handler(wsgi_site):
    """An MCP call under WSGI is JSON with a Content-Length (keep-alive without chunking) and
    no session or CSRF cookie: the /wp-json/ handler runs no session middleware."""
    response, body = _post(
        wsgi_site,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "get_term", "arguments": {"slug": "mcp"}}},
    )  # fmt: skip
    assert response.status == 200
    assert response.getheader("Content-Type") == "application/json"
    assert int(response.getheader("Content-Length")) == len(body)
    assert response.getheader("Set-Cookie") is None
    assert json.loads(body)["result"]["structuredContent"]["slug"] == "mcp"


def test_bad_host_is_a_json_400_under_wsgi(wsgi_site):
    """DNS-rebinding protection holds on the lean handler: an unknown Host gets a JSON 400."""
    response, body = _post(
        wsgi_site, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, Host="evil.example.com"
    )
    assert response.status == 400
    assert json.loads(body)["error"]["code"] == -32600


def test_live_call_streams_progress_as_sse_under_wsgi(wsgi_site):
    """A tools/call with a progress token, accepting SSE, is answered as an event stream that
    carries progress notifications before the result, also under a WSGI server."""
    response, body = _post(
        wsgi_site,
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "search_term", "arguments": {"query": "MCP"},
                    "_meta": {"progressToken": "p-1"}}},
        Accept="application/json, text/event-stream",
    )  # fmt: skip
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    messages = [
        json.loads(line[len("data:") :])
        for line in body.decode().splitlines()
        if line.startswith("data:") and line[len("data:") :].strip()
    ]
    assert any(m.get("method") == "notifications/progress" for m in messages)
    assert messages[-1]["id"] == 7 and "result" in messages[-1]
    assert b"[DONE]" not in body


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_sdk_client_works_against_the_wsgi_server(wsgi_site, mode):
    """The official SDK client, in both eras, searches and reads a term from the WSGI server."""

    async def tour():
        async with Client(wsgi_site.mcp_url, mode=mode) as client:
            found = await client.call_tool("search_term", {"query": "MCP"})
            term = await client.call_tool("get_term", {"slug": "json-rpc"})
            return found, term

    found, term = anyio.run(tour)
    assert hit_slugs(found.structured_content)[0] == "mcp"
    assert term.structured_content["slug"] == "json-rpc"
