"""The HTTP edge of the MCP endpoint for requests that are not quite MCP (issue 13, item 4):
empty answers carry no content type, a body without a Content-Type is refused 415 as the SDK
does, a chunked body (no Content-Length) is read within the size limit, and the 400/406/415
answers say "Not an MCP request" and what to fix, as the reference article's debugging guide
tells readers they will see. Statuses stay those of the specification and the SDK
(2025-11-25 basic/transports §Sending Messages; JSON-RPC 2.0 §5.1 for -32700)."""

import json

import orjson
import pytest

from tests import wsgi_client
from tests.mcp.helpers import MCP_URL, post

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
NOTIFICATION = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _error(response) -> dict:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    return body["error"]


# --- empty answers ---------------------------------------------------------------------------
@pytest.mark.parametrize("version", [None, "2025-11-25"], ids=["no version header", "2025-11-25"])
def test_accepted_notification_is_202_without_a_content_type(client, db, version):
    """A 202 has no body, so it has no Content-Type (Django would label it text/html)."""
    headers = {"MCP-Protocol-Version": version} if version else {}
    response = post(client, NOTIFICATION, headers=headers)
    assert response.status_code == 202 and response.content == b""
    assert not response.has_header("Content-Type")


def test_client_response_is_202_without_a_content_type(client, db):
    """A JSON-RPC response sent by the client (to a server request) is accepted the same way."""
    response = post(client, {"jsonrpc": "2.0", "id": "s-1", "result": {}})
    assert response.status_code == 202 and not response.has_header("Content-Type")


def test_options_is_204_without_a_content_type(client, db):
    """The preflight's 204 has no body and no Content-Type."""
    response = client.options(MCP_URL)
    assert response.status_code == 204 and response.content == b""
    assert not response.has_header("Content-Type")


def test_empty_answers_have_no_content_type_under_wsgi(db):
    """The same through the production WSGI entry point (config/wsgi.py), where the MCP
    handler runs its own middleware list."""
    status, headers, body = wsgi_client.call(
        wsgi_client.MCP, method="POST", body=orjson.dumps(NOTIFICATION)
    )
    assert (status, body) == (202, b"") and "content-type" not in headers
    status, headers, body = wsgi_client.call(wsgi_client.MCP, method="OPTIONS")
    assert (status, body) == (204, b"") and "content-type" not in headers


# --- Content-Type ----------------------------------------------------------------------------
def test_post_without_content_type_is_415(client, db):
    """No Content-Type at all is not taken for JSON: 415 with a JSON-RPC error that says what
    to send (the SDK answers 415 too)."""
    response = client.generic("POST", MCP_URL, orjson.dumps(PING), content_type=None)
    assert response.status_code == 415
    error = _error(response)
    assert error["code"] == -32600
    assert error["message"].startswith("Not an MCP request")
    assert "Content-Type: application/json" in error["message"] and "none" in error["message"]


def test_wrong_content_type_names_what_was_sent(client, db):
    """A wrong Content-Type is 415 naming it, and the fix."""
    response = post(client, PING, content_type="text/plain")
    assert response.status_code == 415
    message = _error(response)["message"]
    assert "Not an MCP request" in message and "'text/plain'" in message
    assert "Content-Type: application/json" in message


# --- "Not an MCP request" --------------------------------------------------------------------
@pytest.mark.parametrize(
    "body",
    [b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"jsonrpc=2.0", b"\xff\xfe"],
    ids=["truncated", "form-encoded", "not UTF-8"],
)
def test_invalid_json_is_400_not_an_mcp_request(client, db, body):
    """Invalid JSON: 400, -32700, id null, and a message that says "Not an MCP request", why
    and an example of what to send."""
    response = post(client, body)
    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == -32700
    assert error["message"].startswith("Not an MCP request: the body is not valid JSON")
    assert '{"jsonrpc":"2.0","id":1,"method":"ping"}' in error["message"]


@pytest.mark.parametrize("body", [b"", b"  \r\n"], ids=["empty", "whitespace"])
def test_empty_body_is_400_not_an_mcp_request(db, body):
    """An empty body declared as JSON is a parse error (400, -32700, id null) that says the
    body is empty."""
    status, headers, content = wsgi_client.call(wsgi_client.MCP, method="POST", body=body)
    assert status == 400 and headers["content-type"] == "application/json"
    error = json.loads(content)["error"]
    assert error["code"] == -32700 and "the body is empty" in error["message"]
    assert error["message"].startswith("Not an MCP request")


def test_accept_without_json_is_406_not_an_mcp_request(client, db):
    """406 (the SDK's status) for an Accept without JSON, naming what was sent and the fix."""
    response = post(client, PING, headers={"Accept": "text/html"})
    assert response.status_code == 406
    message = _error(response)["message"]
    assert message.startswith("Not an MCP request") and "'text/html'" in message
    assert "Accept: application/json, text/event-stream" in message


# --- chunked bodies (no Content-Length) ------------------------------------------------------
def _chunked(body: bytes, **environ):
    return wsgi_client.call(
        wsgi_client.MCP,
        method="POST",
        body=body,
        environ={"CONTENT_LENGTH": None, "wsgi.input_terminated": True, **environ},
    )


def test_chunked_body_is_read(db):
    """A body without Content-Length from a server whose input ends at the last chunk
    (`wsgi.input_terminated`, as granian sets it) is read and answered, not taken for empty."""
    status, _headers, body = _chunked(wsgi_client.PING)
    assert status == 200
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_chunked_body_over_the_limit_is_413(db, settings):
    """The size limit holds without a declared length: at most limit + 1 bytes are read."""
    settings.MCP_MAX_BODY_BYTES = 100
    big = orjson.dumps({**PING, "params": {"padding": "x" * 500}})
    status, _headers, body = _chunked(big)
    assert status == 413 and b"100 bytes" in body


def test_body_without_length_from_an_unterminated_input_is_not_read_past_its_end(db):
    """A server that does not mark its input terminated may block on a read past a missing
    length: nothing is read, and the answer says the body is empty."""
    status, _headers, body = _chunked(wsgi_client.PING, **{"wsgi.input_terminated": None})
    assert status == 400 and b"the body is empty" in body
