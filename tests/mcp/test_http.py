"""The HTTP edge of the MCP endpoint: routes, Origin/Host checks, CORS, content negotiation,
body limits, statuses, and the WordPress-style REST index under /wp-json/."""

import orjson
import pytest

from tests.mcp.helpers import LEGACY, MCP_URL, post

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
CLIENT = {"name": "t", "version": "1"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT},
}


def _error(response) -> dict:
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert data["jsonrpc"] == "2.0" and data["id"] is None
    assert data["error"]["message"]
    return data["error"]


@pytest.mark.parametrize("path", [MCP_URL, MCP_URL + "/"])
def test_endpoint_answers_with_and_without_trailing_slash(client, db, path):
    """Both spellings of the URL are served directly (no redirect that would drop the POST)."""
    response = client.post(path, data=orjson.dumps(PING), content_type="application/json")
    assert response.status_code == 200
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert response["Content-Type"] == "application/json"
    assert "Mcp-Session-Id" not in response


def test_endpoint_is_csrf_exempt(db):
    """API clients send no CSRF token; the endpoint must not demand one."""
    from django.test import Client

    response = post(Client(enforce_csrf_checks=True), PING)
    assert response.status_code == 200


# --- Origin and Host (2025-11-25 basic/transports §Security Warning) --------------------
@pytest.mark.parametrize(
    ("origin", "status"),
    [
        pytest.param(None, 200, id="no Origin (curl, SDKs) -> allowed"),
        pytest.param("http://127.0.0.1:8000", 200, id="allow-listed origin"),
        pytest.param("http://testserver", 200, id="same origin as the request"),
        pytest.param("http://evil.example.com", 403, id="foreign origin -> 403"),
        pytest.param("null", 403, id="opaque origin -> 403"),
        pytest.param("https://testserver", 403, id="same host, other scheme -> 403"),
    ],
)
def test_origin_validation(client, db, settings, origin, status):
    """An Origin that is present must be allow-listed or our own, else 403 with a JSON body."""
    settings.MCP_ALLOWED_ORIGINS = ["http://127.0.0.1:8000"]
    headers = {"Origin": origin} if origin else {}
    response = post(client, PING, headers=headers)
    assert response.status_code == status
    if status == 403:
        assert "Origin" in _error(response)["message"]


def test_disallowed_host_is_json_400(client, db):
    """A Host outside ALLOWED_HOSTS is 400 with a JSON-RPC error, not Django's HTML page
    (the conformance DNS-rebinding check: Host and Origin evil.example.com -> 4xx)."""
    response = client.post(
        MCP_URL,
        data=orjson.dumps(INIT),
        content_type="application/json",
        headers={"Host": "evil.example.com", "Origin": "http://evil.example.com"},
    )
    assert response.status_code == 400
    assert "Host" in _error(response)["message"]


def test_loopback_host_with_matching_origin_is_allowed(client, db, settings):
    """The conformance DNS-rebinding check's positive case: Host and Origin 127.0.0.1:<port>."""
    settings.MCP_ALLOWED_ORIGINS = []
    response = client.post(
        MCP_URL,
        data=orjson.dumps(INIT),
        content_type="application/json",
        headers={"Host": "127.0.0.1:54321", "Origin": "http://127.0.0.1:54321"},
    )
    assert response.status_code == 200


# --- CORS ------------------------------------------------------------------------------------
def test_cors_preflight_for_allowed_origin(client, db, settings):
    """A browser preflight from an allowed origin learns the methods and MCP headers."""
    settings.MCP_ALLOWED_ORIGINS = ["https://app.example"]
    response = client.options(
        MCP_URL,
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, mcp-method, mcp-param-region",
        },
    )
    assert response.status_code == 204
    assert response["Access-Control-Allow-Origin"] == "https://app.example"
    assert "POST" in response["Access-Control-Allow-Methods"]
    allowed = response["Access-Control-Allow-Headers"]
    for header in ("mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name"):
        assert header in allowed
    assert "mcp-param-region" in allowed  # mirrored tool parameters (2026-07-28)
    assert "Mcp-Session-Id" in response["Access-Control-Expose-Headers"]
    assert "MCP-Protocol-Version" in response["Access-Control-Expose-Headers"]


def test_cors_headers_on_allowed_post(client, db, settings):
    """Responses to an allowed browser origin carry CORS headers and Vary: Origin."""
    settings.MCP_ALLOWED_ORIGINS = ["https://app.example"]
    response = post(client, PING, headers={"Origin": "https://app.example"})
    assert response["Access-Control-Allow-Origin"] == "https://app.example"
    assert response["Vary"] == "Origin"


def test_cors_preflight_from_foreign_origin_is_403(client, db):
    """A preflight from an origin we don't allow is refused."""
    response = client.options(MCP_URL, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response


# --- content negotiation, size, methods ------------------------------------------------------
@pytest.mark.parametrize(
    ("accept", "status"),
    [
        pytest.param(None, 200, id="no Accept (curl) -> fine"),
        pytest.param("*/*", 200, id="*/* -> fine"),
        pytest.param("application/json, text/event-stream", 200, id="spec Accept"),
        pytest.param("application/*;q=0.9", 200, id="application/*"),
        pytest.param("text/html", 406, id="only HTML -> 406"),
        pytest.param("text/event-stream", 406, id="only SSE (not offered yet) -> 406"),
    ],
)
def test_accept(client, db, accept, status):
    """An Accept that excludes JSON is 406; missing or */* is fine."""
    headers = {"Accept": accept} if accept else {}
    response = post(client, PING, headers=headers)
    assert response.status_code == status
    if status == 406:
        assert "Accept" in _error(response)["message"]


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json", 200),
        ("application/json; charset=utf-8", 200),
        ("text/plain", 415),
        ("application/x-www-form-urlencoded", 415),
    ],
)
def test_content_type(client, db, content_type, status):
    """A body that is not declared as JSON is 415."""
    response = post(client, PING, content_type=content_type)
    assert response.status_code == status
    if status == 415:
        assert "application/json" in _error(response)["message"]


def test_body_over_limit_is_413(client, db, settings):
    """A body larger than MCP_MAX_BODY_BYTES is 413 with a JSON-RPC error."""
    settings.MCP_MAX_BODY_BYTES = 100
    body = {**PING, "params": {"padding": "x" * 200}}
    response = post(client, body)
    assert response.status_code == 413
    assert "100 bytes" in _error(response)["message"]


def test_body_at_limit_is_served(client, db, settings):
    """The limit is inclusive: a body of exactly the limit is handled."""
    raw = orjson.dumps(PING)
    settings.MCP_MAX_BODY_BYTES = len(raw)
    assert post(client, raw).status_code == 200


def test_parse_error_is_400_with_null_id(client, db):
    """Unparseable body -> 400 with -32700 and id null."""
    response = post(client, b'{"jsonrpc": "2.0", "id": 1, "method": "ping"')
    assert response.status_code == 400
    assert _error(response)["code"] == -32700


@pytest.mark.parametrize("http_method", ["get", "delete", "put", "patch"])
def test_other_methods_are_405(client, db, http_method):
    """2025-11-25 basic/transports §Listening for Messages: no GET stream here -> 405 (and
    no sessions to DELETE), with Allow and a JSON-RPC error body."""
    response = getattr(client, http_method)(MCP_URL)
    assert response.status_code == 405
    assert response["Allow"] == "POST, OPTIONS"
    assert _error(response)["code"] == -32600


def test_notification_is_202_without_body(client, db):
    """2025-11-25 basic/transports §Sending Messages: accepted notification -> 202, no body."""
    response = post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert response.status_code == 202 and response.content == b""


def test_unsupported_protocol_version_header_is_400(client, db):
    """2025-06-18 basic/transports §Protocol Version Header: an unsupported value -> 400 with a
    JSON-RPC error."""
    response = post(client, INIT, headers={"MCP-Protocol-Version": "2099-01-01"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] in (-32602, -32022)


def test_unexpected_exception_in_view_is_json_500(client, db, monkeypatch, caplog):
    """Nothing answers 500 with HTML or a traceback: a JSON -32603, logged server-side."""

    def boom(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("mcp_endpoint.transports.views.Dispatcher.prepare", boom)
    response = post(client, PING)
    assert response.status_code == 500
    assert _error(response) == {"code": -32603, "message": "Internal error"}
    assert b"secret" not in response.content
    assert "secret internals" in caplog.text


def test_mcp_path_makes_no_session_or_auth_queries(client, db, django_assert_num_queries):
    """The MCP path does no session/auth database work (ping runs zero queries)."""
    with django_assert_num_queries(0):
        assert post(client, PING).status_code == 200


# --- /wp-json/ discovery -----------------------------------------------------------------------
def test_rest_index_lists_the_mcp_route(client, db, settings):
    """GET /wp-json/ answers like WordPress's REST index so discovery finds the MCP route."""
    data = client.get("/wp-json/").json()
    assert data["namespaces"] == ["webflux/v1"]
    route = data["routes"]["/webflux/v1/mcp"]
    assert route["namespace"] == "webflux/v1" and route["methods"] == ["POST", "GET", "DELETE"]
    assert route["endpoints"] == [{"methods": ["POST", "GET", "DELETE"], "args": {}}]
    assert route["_links"]["self"][0]["href"] == f"{settings.SITE_URL}{MCP_URL}"
    assert data["url"] == settings.SITE_URL and data["name"]


@pytest.mark.parametrize("path", ["/wp-json/webflux/v1", "/wp-json/webflux/v1/"])
def test_namespace_index(client, db, path):
    """GET /wp-json/<namespace> lists the namespace's routes."""
    data = client.get(path).json()
    assert data["namespace"] == "webflux/v1" and "/webflux/v1/mcp" in data["routes"]


def test_unknown_protocol_version_header_is_named_before_missing_meta(client, db):
    """2026-07-28 basic/transports/streamable-http §Protocol Version Header: a revision the
    server does not support is answered -32022 (HTTP 400) naming the supported ones, even when
    the body lacks the modern `_meta` fields."""
    response = client.post(
        MCP_URL,
        data=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        content_type="application/json",
        headers={"MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == "1999-01-01"
    assert "2026-07-28" in error["data"]["supported"]
