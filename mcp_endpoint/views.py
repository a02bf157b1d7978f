"""The HTTP edge: Streamable HTTP at /wp-json/<namespace>/mcp (the WordPress-style REST index
at /wp-json/ that lists it is api/'s).

The MCP view only adapts HTTP to the dispatcher: it checks what belongs to HTTP (Origin,
method, Accept, Content-Type, body size), picks the protocol era from the
`MCP-Protocol-Version` header (absent or a legacy revision → legacy, anything else → the
modern path, which validates it), and turns the dispatcher's `Reply` into a response.
Legacy sessions (`Mcp-Session-Id`, GET stream, DELETE) live in `sessions` and `streams`;
requests without a session are served statelessly, and GET/DELETE without one are 405.
Nothing in this module ever answers with HTML or exception text: every error body is a
JSON-RPC error object.
"""

import logging

import orjson
from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from . import calls, sessions, streams
from . import protocol as p
from .context import RequestContext
from .dispatcher import handle_decoded, handle_payload
from .errors import InternalError, InvalidRequest, JsonRpcError

logger = logging.getLogger("mcp_endpoint")

ALLOW = "POST, OPTIONS"
JSON = "application/json"
MCP_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")
CORS_ALLOW_HEADERS = (
    "content-type, accept, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, "
    "last-event-id, authorization"
)
CORS_EXPOSE_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version"


def error_response(error: JsonRpcError, status: int, request_id=None) -> HttpResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": error.as_error()}
    return HttpResponse(orjson.dumps(body), status=status, content_type=JSON)


def _origin_allowed(request, origin: str) -> bool:
    """Allow-listed browser origins, and the site's own origin (same-origin requests)."""
    if origin in settings.MCP_ALLOWED_ORIGINS:
        return True
    return origin == f"{request.scheme}://{request.get_host()}"


def _accepts_json(accept: str) -> bool:
    if not accept.strip():
        return True
    for part in accept.split(","):
        media = part.split(";", 1)[0].strip().lower()
        if media in (JSON, "application/*", "*/*"):
            return True
    return False


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return not media or media == JSON or media.endswith("+json")


def _cors(response: HttpResponse, origin: str | None, *, preflight: bool = False, request=None):
    if origin:
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Expose-Headers"] = CORS_EXPOSE_HEADERS
        response["Vary"] = "Origin"
        if preflight:
            requested = request.headers.get("Access-Control-Request-Headers", "")
            # Tool parameters mirrored as Mcp-Param-<Name> (2026-07-28) cannot be listed ahead.
            params = [
                h.strip().lower()
                for h in requested.split(",")
                if h.strip().lower().startswith("mcp-param-")
            ]
            response["Access-Control-Allow-Methods"] = ALLOW
            response["Access-Control-Allow-Headers"] = ", ".join([CORS_ALLOW_HEADERS, *params])
            response["Access-Control-Max-Age"] = "86400"
    return response


@csrf_exempt
def mcp(request):
    """The MCP endpoint; an unexpected failure is logged and answered -32603 as JSON."""
    try:
        return _serve(request)
    except Exception:
        logger.exception("Unexpected error in the MCP HTTP view")
        return error_response(InternalError(), 500)


def _serve(request):
    origin = request.headers.get("Origin")
    if origin is not None and not _origin_allowed(request, origin):
        # 2025-11-25 basic/transports §Security Warning: invalid Origin → 403.
        return error_response(
            InvalidRequest(
                f"Origin {origin!r} is not allowed to call this MCP endpoint; "
                "add it to MCP_ALLOWED_ORIGINS to allow browser clients from it"
            ),
            403,
        )
    if request.method == "OPTIONS":
        response = HttpResponse(status=204)
        response["Allow"] = ALLOW
        return _cors(response, origin, preflight=True, request=request)
    if request.method in ("GET", "DELETE"):
        response = streams.session_method(request, error_response)
        if response is not None:
            return _cors(response, origin)
    if request.method != "POST":
        response = error_response(
            InvalidRequest(
                f"Method {request.method} is not allowed without a session: send each JSON-RPC "
                "message as a POST; GET (the notification stream) and DELETE (end the session) "
                "need the Mcp-Session-Id header that initialize returned"
            ),
            405,
        )
        response["Allow"] = ALLOW
        return _cors(response, origin)
    response = _post(request)
    return _cors(response, origin)


def _post(request):
    if not _accepts_json(request.headers.get("Accept", "")):
        return error_response(
            InvalidRequest("Not Acceptable: the Accept header must allow application/json"), 406
        )
    if not _is_json(request.headers.get("Content-Type", "")):
        return error_response(
            InvalidRequest("Unsupported Media Type: send the body as application/json"), 415
        )
    limit = settings.MCP_MAX_BODY_BYTES
    too_big = InvalidRequest(
        f"Payload Too Large: a JSON-RPC message may have at most {limit} bytes"
    )
    try:
        declared = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return error_response(too_big, 413)
    body = request.read(limit + 1)
    if len(body) > limit:
        return error_response(too_big, 413)

    header_version = request.headers.get("MCP-Protocol-Version")
    if header_version is None or header_version in p.LEGACY_VERSIONS:
        era, version, headers = p.LEGACY, header_version or p.DEFAULT_HTTP_VERSION, None
    else:
        # Not a legacy revision: the modern path checks it against `_meta` (-32020) and
        # answers unknown versions with -32022 and the list of supported ones.
        era, version = p.MODERN, header_version
        # RFC 9110 §5.5: a field value excludes leading and trailing whitespace.
        headers = {
            name: request.headers[name].strip(" \t")
            for name in MCP_HEADERS
            if name in request.headers
        }
    ctx = RequestContext(transport="http", era=era, protocol_version=version, headers=headers)
    if era == p.LEGACY:
        rejected = sessions.attach(request, ctx, body, error_response)
        if rejected is not None:
            return rejected
    accept = request.headers.get("Accept", "")
    try:
        message = orjson.loads(body)  # once: the live-call check and the dispatcher share it
    except orjson.JSONDecodeError:
        reply = handle_payload(body, ctx)  # answers the parse error
    else:
        if calls.SSE in accept.lower() and calls.wants_live(message, ctx, accept):
            return calls.respond(request, ctx, body)
        reply = handle_decoded(message, ctx)
    if reply.body is None:
        return HttpResponse(status=202)
    # JSON, the subscriptions/listen stream, or JSON with the session initialize minted.
    return streams.respond(request, ctx, body, reply, error_response)
