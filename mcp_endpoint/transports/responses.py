"""The HTTP responses of the MCP endpoint that are not streams (those are in sse.py): a
JSON-RPC body, or a JSON-RPC error the HTTP layer itself answers (Origin, Accept, size, Host,
sessions). Nothing on this endpoint answers with HTML or exception text."""

import orjson
from django.conf import settings
from django.http import HttpResponse

from ..core.dispatcher import Reply
from ..core.errors import JsonRpcError

JSON = "application/json"


def json_response(reply: Reply) -> HttpResponse:
    """The dispatcher's reply as HTTP: 202 and no body for nothing, else its JSON."""
    if reply.body is None:
        return HttpResponse(status=202)
    return _retry_after(HttpResponse(reply.encode(), status=reply.status, content_type=JSON))


def error_response(error: JsonRpcError, status: int, request_id=None) -> HttpResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": error.as_error()}
    return _retry_after(HttpResponse(orjson.dumps(body), status=status, content_type=JSON))


def _retry_after(response: HttpResponse) -> HttpResponse:
    """A 503 (ServiceUnavailable, the only error mapped to it) says when to come back."""
    if response.status_code == 503:
        response["Retry-After"] = str(settings.DATABASE_RETRY_AFTER)
    return response
