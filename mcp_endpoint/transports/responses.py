"""The HTTP responses of the MCP endpoint that are not streams (those are in sse.py): a
JSON-RPC body, or a JSON-RPC error the HTTP layer itself answers (Origin, Accept, size, Host,
sessions). Nothing on this endpoint answers with HTML or exception text."""

import orjson
from django.conf import settings
from django.http import HttpResponse

from ..core.dispatcher import Reply
from ..core.errors import JsonRpcError

JSON = "application/json"


def empty_response(status: int) -> HttpResponse:
    """A response without a body (202 Accepted, 204 No Content): no Content-Type either, as
    there is no content to describe (Django would label it text/html)."""
    response = HttpResponse(status=status)
    del response["Content-Type"]
    return response


def json_response(reply: Reply) -> HttpResponse:
    """The dispatcher's reply as HTTP: 202 and no body for nothing, else its JSON (503 and 429
    errors say when to come back)."""
    if reply.body is None:
        return empty_response(202)
    response = HttpResponse(reply.encode(), status=reply.status, content_type=JSON)
    if reply.status in (429, 503):
        _retry_after(response, reply.body)
    return response


def error_response(error: JsonRpcError, status: int, request_id=None) -> HttpResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": error.as_error()}
    response = HttpResponse(orjson.dumps(body), status=status, content_type=JSON)
    if status in (429, 503):
        _retry_after(response, body)
    return response


def _retry_after(response: HttpResponse, body) -> None:
    data = body.get("error", {}).get("data") if isinstance(body, dict) else None
    seconds = data.get("retryAfter") if isinstance(data, dict) else None
    response["Retry-After"] = str(
        seconds if isinstance(seconds, int) else settings.DATABASE_RETRY_AFTER
    )
