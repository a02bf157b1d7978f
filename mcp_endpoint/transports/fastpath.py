"""Replaying a cached MCP answer in the WSGI entry point, before Django builds a request.

Why: on a result-cache hit (the server's result cache; the glossary's is
mcp_endpoint/features/cache.py) the answer costs one content-state query,
yet Django's request object, URL resolution, two middlewares, the view's HTTP checks and the
dispatcher took about as much CPU again (bench/mcp.py, docs/benchmarks.md). A replay is
keyed by everything that could make the full path answer differently: the content state
(read once, as the dispatcher reads it), the request's HTTP headers, scheme, host, path and
query string, the JSON-RPC method and its params (`_meta` included); only the `id` is left
out and spliced into the stored bytes. An entry is stored only after the full path answered
exactly such a request with a 200 JSON response built from a cached result, and only when
the bytes it sent equal the splice, so a replay sends what Django would have sent (the same
status, headers and body) and the request signals still open and close the connection.
Requests with an Origin or a session header, batches, notifications and anything unusual
always take the full path, and so does every request when the result cache is off. The
params are never interpreted here, only compared as bytes: an entry exists only for a request
the full path validated and answered from its cache.
"""

import io
import time

import orjson
from django.conf import settings
from django.core import signals

from ..core.server import get_server
from . import ratelimit
from .wsgi import REQUEST_STARTED

MESSAGE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
# Request fields the full path may read besides the headers (HTTP_*) and the body.
ENVIRON_KEYS = ("wsgi.url_scheme", "SERVER_NAME", "SERVER_PORT", "SCRIPT_NAME", "QUERY_STRING")
PREFIX = b'{"jsonrpc":"2.0","id":'


class _Request:
    """What the replay key needs from one POST, or `key is None` for the full path."""

    __slots__ = ("body", "id", "key")

    def __init__(self, environ) -> None:
        self.key = None
        self.body = b""
        self.id = None
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return
        if not 0 < length <= settings.MCP_MAX_BODY_BYTES:
            return
        self.body = environ["wsgi.input"].read(length)
        # The full path reads the same bytes again from here.
        environ["wsgi.input"] = io.BytesIO(self.body)
        try:
            message = orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return
        if not isinstance(message, dict) or not message.keys() <= MESSAGE_KEYS:
            return
        request_id, method, params = message.get("id"), message.get("method"), message.get("params")
        if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
            return
        if not isinstance(method, str) or not isinstance(params, dict):
            return
        try:
            canonical = orjson.dumps(params, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            return
        headers = tuple(sorted((k, v) for k, v in environ.items() if k.startswith("HTTP_")))
        others = tuple(environ.get(k) for k in ENVIRON_KEYS)
        self.id = request_id
        self.key = (environ.get("PATH_INFO"), environ.get("CONTENT_TYPE"), others, headers,
                    message.get("jsonrpc"), method, canonical)  # fmt: skip


def _eligible(environ) -> bool:
    return (
        environ.get("REQUEST_METHOD") == "POST"
        and "HTTP_ORIGIN" not in environ
        and "HTTP_MCP_SESSION_ID" not in environ
    )


def _body(request_id, result: bytes) -> bytes:
    return b"".join((PREFIX, orjson.dumps(request_id), b',"result":', result, b"}"))


def serve(environ, start_response, handler):
    """Answer the POST from a stored reply, or through `handler` (Django), learning from it."""
    started = time.perf_counter()
    server = get_server()
    cache = server.result_cache
    if cache is None or not cache.enabled() or not _eligible(environ):
        return handler(environ, start_response)
    request = _Request(environ)
    if request.key is None or not cache.admits(("replay", request.key)):
        # A request seen for the first time has no stored reply (features/cache.py: a call
        # is cached from its second sight): no content-state read for it here.
        return handler(environ, start_response)
    signals.request_started.send(sender=__name__, environ=environ)
    try:
        state = cache.state()
        stored = cache.replies.get((state, request.key)) if state is not None else None
    except Exception:  # the full path meets (and answers) the same failure
        state = stored = None
    if stored is None:
        # The request goes on through Django as the one started above: the handler sends
        # no second request_started, and its response's close() the request_finished.
        environ[REQUEST_STARTED] = True
        return _learn(cache, request, environ, start_response, handler, state)
    signals.request_finished.send(sender=__name__)
    refused = ratelimit.refuse_replay(environ, request.key, request.id)  # replays count too
    if refused is not None:
        start_response(refused[0], refused[1])
        return [refused[2]]
    status, headers, result = stored
    body = _body(request.id, result)
    start_response(status, [*headers, ("Content-Length", str(len(body)))])
    # Analytics: the replayed call is recorded like one the dispatcher answered.
    server.replayed(
        request.body,
        result,
        environ.get("HTTP_MCP_PROTOCOL_VERSION"),
        time.perf_counter() - started,
        request.key,
    )
    return [body]


def _learn(cache, request: _Request, environ, start_response, handler, state):
    cache.served.key = None
    cache.served.state = state  # the full path's cache lookup reuses it (no second read)
    try:
        response = handler(environ, start_response)
    finally:
        cache.served.state = None
    cache_key, cache.served.key = cache.served.key, None
    if (
        cache_key is None
        or getattr(response, "status_code", None) != 200
        or getattr(response, "streaming", True)
        or response.cookies
        or response.has_header("Mcp-Session-Id")
    ):
        return response
    result = cache.encoded(cache_key)
    if result is None or response.content != _body(request.id, result):
        return response
    status = f"{response.status_code} {response.reason_phrase}"
    headers = [(k, v) for k, v in response.items() if k.lower() != "content-length"]
    cache.replies.put((cache_key[0], request.key), (status, headers, result))
    return response
