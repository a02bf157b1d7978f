"""The MCP endpoint's HTTP edge behind a real WSGI server (granian, the production command):
a chunked POST (Transfer-Encoding: chunked, no Content-Length, as `curl -H 'Transfer-Encoding:
chunked'` or a streaming client sends it) is read and answered within the size limit, and the
empty 202/204 answers carry no Content-Type on the wire (issue 13, item 4)."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.processes import HOST, MCP_PATH, WSGI_SERVER_COMMAND

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def wsgi_site(live_site):
    return live_site.spawn("granian-wsgi-edge", command=WSGI_SERVER_COMMAND)


def _send(server, method, body=None, *, chunked=False, headers=None):
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    try:
        if chunked:
            conn.putrequest(method, MCP_PATH)
            for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
                conn.putheader(name, value)
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders()
            for start in range(0, len(body), 7):  # several small chunks
                piece = body[start : start + 7]
                conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            conn.send(b"0\r\n\r\n")
        else:
            conn.request(method, MCP_PATH, body=body, headers=headers or {})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def test_chunked_post_is_read_and_answered(wsgi_site):
    """A tools/call sent in chunks without Content-Length gets its real answer, not -32700."""
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "get_term", "arguments": {"slug": "mcp"}}}  # fmt: skip
    response, body = _send(wsgi_site, "POST", json.dumps(message).encode(), chunked=True)
    assert response.status == 200, body
    assert json.loads(body)["result"]["structuredContent"]["slug"] == "mcp"


def test_chunked_post_over_the_limit_is_413(wsgi_site):
    """The size limit (MCP_MAX_BODY_BYTES, 1,000,000 bytes by default) holds for chunked bodies."""
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping",
                      "params": {"pad": "x" * (1024 * 1024 + 10)}}).encode()  # fmt: skip
    conn = http.client.HTTPConnection(HOST, wsgi_site.port, timeout=60)
    try:
        conn.request(
            "POST", MCP_PATH, body=iter([big]), headers={"Content-Type": "application/json"},
            encode_chunked=True,
        )  # fmt: skip
        response = conn.getresponse()
        assert response.status == 413
        assert json.loads(response.read())["error"]["code"] == -32600
    finally:
        conn.close()


def test_empty_answers_carry_no_content_type_on_the_wire(wsgi_site):
    """The 202 to a notification and the 204 to OPTIONS have no Content-Type header."""
    notification = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    response, body = _send(
        wsgi_site, "POST", notification, headers={"Content-Type": "application/json"}
    )
    assert (response.status, body) == (202, b"") and response.getheader("Content-Type") is None
    response, body = _send(wsgi_site, "OPTIONS")
    assert (response.status, body) == (204, b"") and response.getheader("Content-Type") is None
