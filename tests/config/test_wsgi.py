"""The WSGI entry point (config/wsgi.py): /wp-json/ requests go to a handler with the lean
MCP middleware list, everything else to the site's; both keep Host validation and the
security headers."""

import io
import json
import sys

import pytest

from config import wsgi

MCP = "/wp-json/webflux/v1/mcp"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


def call(path, *, method="GET", body=b"", host="127.0.0.1", **headers):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "HTTP_HOST": host,
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": "application/json",
        **{"HTTP_" + k.upper(): v for k, v in headers.items()},
    }
    started = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split()[0])
        started["headers"] = {k.lower(): v for k, v in response_headers}

    result = wsgi.application(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        getattr(result, "close", lambda: None)()
    return started["status"], started["headers"], content


@pytest.fixture
def lean_handler_seen(monkeypatch):
    """Records which handler served each request."""
    seen = []
    for name in ("mcp_application", "site_application"):
        handler = getattr(wsgi, name)
        monkeypatch.setattr(
            wsgi, name, lambda env, sr, h=handler, n=name: seen.append(n) or h(env, sr)
        )
    return seen


@pytest.mark.django_db(transaction=True)
def test_mcp_requests_take_the_lean_handler(lean_handler_seen):
    """A POST to the MCP endpoint is answered by the lean handler, with a length (keep-alive
    without chunking), the security headers and no cookie or Vary: Cookie."""
    status, headers, content = call(MCP, method="POST", body=PING, accept="application/json")
    assert lean_handler_seen == ["mcp_application"]
    assert status == 200 and json.loads(content)["result"] == {}
    assert headers["content-length"] == str(len(content))
    assert headers["x-content-type-options"] == "nosniff"
    assert "set-cookie" not in headers and "cookie" not in headers.get("vary", "").lower()


@pytest.mark.django_db(transaction=True)
def test_the_lean_handler_still_validates_the_host(lean_handler_seen):
    """A Host outside ALLOWED_HOSTS gets the MCP JSON 400, not Django's HTML page."""
    status, _headers, content = call(MCP, method="POST", body=PING, host="evil.example")
    assert lean_handler_seen == ["mcp_application"]
    assert status == 400 and json.loads(content)["error"]["code"] == -32600


@pytest.mark.django_db(transaction=True)
def test_pages_take_the_site_handler(lean_handler_seen):
    """Reader pages keep the full middleware list (frame options among them)."""
    status, headers, _content = call("/")
    assert lean_handler_seen == ["site_application"]
    assert status == 200 and headers["x-frame-options"] == "DENY"
