"""The HTTP edge: Streamable HTTP at /wp-json/<namespace>/mcp for the server
`settings.MCP_SERVER` names (the WordPress-style REST index at /wp-json/ that lists it is
api/'s).

The view only adapts HTTP to the dispatcher: it checks what belongs to HTTP (Origin, method,
Accept, Content-Type, body size), picks the protocol era from the `MCP-Protocol-Version`
header (absent or a legacy revision → legacy, anything else → the modern path, which
validates it), lets the dispatcher validate the message (`Dispatcher.prepare`), and then
answers the validated call the way it needs: plain JSON, a live call's SSE stream (calls.py)
or the `subscriptions/listen` stream (streams.py). Legacy sessions (`Mcp-Session-Id`, GET
stream, DELETE) live in `sessions` and `streams`; requests without a session are served
statelessly, and GET/DELETE without one are 405. Every error body is a JSON-RPC error object.
"""

import logging

import orjson
from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from ..core import protocol as p
from ..core.context import RequestContext
from ..core.dispatcher import Call, Dispatcher, Reply
from ..core.errors import UNAVAILABLE, InternalError, InvalidRequest, ParseError, as_jsonrpc_error
from ..core.server import NO_CHANGES, get_server
from . import answers, calls, ratelimit, sessions, streams
from .responses import empty_response, error_response, json_response

logger = logging.getLogger("mcp_endpoint")

ALLOW = "POST, OPTIONS"
JSON = "application/json"
MCP_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")
# The POST path reads headers from `request.META` (WSGI's names): building
# `request.headers` (every header of the request) is a visible share of a cold call
# (docs/benchmarks.md, "Cold reads").
MCP_HEADER_KEYS = tuple((name, "HTTP_" + name.upper().replace("-", "_")) for name in MCP_HEADERS)
CORS_ALLOW_HEADERS = (
    "content-type, accept, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, "
    "last-event-id, authorization"
)
CORS_EXPOSE_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version"
# The reference article's debugging guide tells readers that a request to the right URL without
# the required header or with invalid JSON is "Not an MCP request": the answers keep the statuses
# the specification and the SDK use (400, 406, 415) and say so, with what to fix.
SEND_ONE = 'Send one JSON-RPC 2.0 message, e.g. {"jsonrpc":"2.0","id":1,"method":"ping"}'
NOT_JSON = f"Not an MCP request: the body is not valid JSON. {SEND_ONE}"


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
    """application/json (or a +json type); a body without a Content-Type is not an MCP
    request (the SDK answers it 415 too)."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media == JSON or media.endswith("+json")


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
    except UNAVAILABLE as exc:  # a session lookup, before the dispatcher: the same 503
        error = as_jsonrpc_error(exc)
        return error_response(error, error.http_status)
    except Exception:
        logger.exception("Unexpected error in the MCP HTTP view")
        return error_response(InternalError(), 500)


def _serve(request):
    origin = request.META.get("HTTP_ORIGIN")
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
        response = empty_response(204)
        response["Allow"] = ALLOW
        return _cors(response, origin, preflight=True, request=request)
    if request.method in ("GET", "DELETE"):
        response = streams.session_method(request, get_server().change_feed or NO_CHANGES)
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
    return _cors(_post(request), origin)


def _read_body(request, limit: int) -> bytes:
    """Up to `limit + 1` bytes of the body (+1, to see that it is too big).

    Django's WSGI request reads only Content-Length bytes, so a chunked POST (no length) would
    look empty there. A server that marks its input as terminated (`wsgi.input_terminated`:
    granian, gunicorn, mod_wsgi) ends the stream at the last chunk, so the body is read from
    it directly, still never past the limit; elsewhere reading past a missing length could
    block, and Django's empty read stands. Under ASGI Django has read the whole body already."""
    if (
        isinstance(request, WSGIRequest)
        and not request.META.get("CONTENT_LENGTH")
        and request.META.get("wsgi.input_terminated")
    ):
        return request.environ["wsgi.input"].read(limit + 1)
    return request.read(limit + 1)


def _post(request):
    # Every POST counts against its client's budget, before any of it is read.
    limited = ratelimit.check_client(request)
    if limited is not None:
        return error_response(limited, 429)
    accept = request.META.get("HTTP_ACCEPT", "")
    if not _accepts_json(accept):
        return error_response(
            InvalidRequest(
                "Not an MCP request: the Accept header must allow application/json (406 Not "
                f"Acceptable; this request sent {accept!r}). Send "
                "Accept: application/json, text/event-stream"
            ),
            406,
        )
    content_type = request.META.get("CONTENT_TYPE") or ""
    if not _is_json(content_type):
        sent = repr(content_type) if content_type else "none"
        return error_response(
            InvalidRequest(
                "Not an MCP request: send the body as Content-Type: application/json (415 "
                f"Unsupported Media Type; this request sent {sent}), one JSON-RPC message per "
                "POST"
            ),
            415,
        )
    limit = settings.MCP_MAX_BODY_BYTES
    too_big = InvalidRequest(
        f"Payload Too Large: a JSON-RPC message may have at most {limit} bytes"
    )
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return error_response(too_big, 413)
    body = _read_body(request, limit)
    if len(body) > limit:
        return error_response(too_big, 413)
    if not body.strip():
        return error_response(
            ParseError(f"Not an MCP request: the body is empty. {SEND_ONE}"),
            400,
        )

    header_version = request.META.get("HTTP_MCP_PROTOCOL_VERSION")
    if header_version is None or header_version in p.LEGACY_VERSIONS:
        era, version, headers = p.LEGACY, header_version or p.DEFAULT_HTTP_VERSION, None
    else:
        # Not a legacy revision: the modern path checks it against `_meta` (-32020) and
        # answers unknown versions with -32022 and the list of supported ones.
        era, version = p.MODERN, header_version
        # RFC 9110 §5.5: a field value excludes leading and trailing whitespace.
        meta = request.META
        headers = {name: meta[key].strip(" \t") for name, key in MCP_HEADER_KEYS if key in meta}
    ctx = RequestContext(
        transport="http", era=era, protocol_version=version, headers=headers, push=True
    )
    if era == p.LEGACY:
        rejected = sessions.attach(request, ctx, body)
        if rejected is not None:
            return rejected
        ctx.deliver = answers.deliver
    server = get_server()
    dispatcher = Dispatcher(server)
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return error_response(ParseError(f"{NOT_JSON} ({exc})"), 400)
    if isinstance(message, list):
        response = json_response(dispatcher.handle_decoded(message, ctx))
    else:
        prepared = dispatcher.prepare(message, ctx)
        limited = _tool_limit(request, prepared)
        if limited is not None:
            response = error_response(limited, 429, prepared.request_id)
        elif isinstance(prepared, Reply):
            response = json_response(prepared)
        elif prepared.method.stream:
            response = _listen(request, server, prepared)
        elif calls.wants_live(prepared, accept):
            return calls.respond(request, prepared)
        else:
            response = json_response(Reply(*prepared.run()))
    key = getattr(ctx.session, "key", None)
    if key:  # initialize minted a session
        response[sessions.HEADER] = key
    return response


def _tool_limit(request, prepared):
    """The tool budget of a validated `tools/call` (its name passed the params schema)."""
    if isinstance(prepared, Reply) or prepared.method.name != p.TOOLS_CALL:
        return None
    return ratelimit.check_tool(request, prepared.params["name"])


def _listen(request, server, call: Call):
    """subscriptions/listen: its result (the honored filter) opens the stream."""
    body, status = call.run()
    if "error" in body:
        return json_response(Reply(body, status))
    feed = server.change_feed or NO_CHANGES
    return streams.listen_response(request, feed, call.request_id, body["result"]["notifications"])
