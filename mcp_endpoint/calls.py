"""Live calls: a legacy request that talks to the client while it runs, on the SSE response
of its own POST (2025-11-25 basic/transports §Sending Messages to the Server: the server "MAY
send JSON-RPC requests and notifications before sending the JSON-RPC response", and those
messages "SHOULD relate to the originating client request").

The handler runs in a worker thread with `ctx.notify` (log and progress notifications) and
`ctx.send_request` (elicitation, sampling, roots) wired to a queue; the view answers with the
first thing that comes out of it: the result alone (plain JSON, the call had nothing to say
first) or a notification or request (an SSE stream that carries it, everything after it, and
the result last). A server-to-client request gets an id of its own; the client's answer comes
back as a separate POST, which `client_requests.deliver` hands to the waiting call wherever it
runs. The stream is consumed asynchronously under ASGI (a sync iterator would be buffered
whole); under WSGI it is a plain iterator. A client that disconnects does not cancel the call
(the spec says so); the call finishes and its result is dropped. A legacy call with a session
may also end its stream on purpose (`ctx.close_stream`, SEP-1699 polling): a priming event with
an id and `retry:`, then the rest of the call is stored for the client's GET with that
Last-Event-ID (streams.py, "a call's stream").
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpResponse, StreamingHttpResponse

from . import client_requests, streams
from . import protocol as p
from .dispatcher import Reply, handle_payload
from .errors import wire_error
from .registry import TOOLS

logger = logging.getLogger("mcp_endpoint")

SSE = "text/event-stream"
JSON = "application/json"
# Methods whose handlers may notify or ask while they run.
LIVE_METHODS = (p.TOOLS_CALL, p.PROMPTS_GET, p.RESOURCES_READ)


class _Final:
    __slots__ = ("reply",)

    def __init__(self, reply: Reply):
        self.reply = reply


class _Close:
    """The call closed its POST stream (SEP-1699 polling): end it after a priming event."""

    __slots__ = ("event_id",)

    def __init__(self, event_id: str):
        self.event_id = event_id


def wants_live(message, ctx, accept: str) -> bool:
    """Whether this POST may need a stream: a request the client accepts SSE for, to a method
    whose handler may notify (a progress token, a log level in effect) or ask the client."""
    if SSE not in accept.lower() or not isinstance(message, dict) or "id" not in message:
        return False
    method = message.get("method")
    params = message.get("params")
    if method not in LIVE_METHODS or not isinstance(params, dict):
        return False
    meta = params.get(p.META)
    if isinstance(meta, dict) and (p.META_PROGRESS_TOKEN in meta or p.META_LOG_LEVEL in meta):
        return True
    if ctx.era == p.MODERN:
        return False  # the modern era asks through MRTR results, never on a stream
    if getattr(ctx.session, "log_level", None):
        return True
    tool = TOOLS.get(params.get("name")) if method == p.TOOLS_CALL else None
    return bool(tool is not None and getattr(tool, "interactive", False))


def sse_frame(message: dict, event_id: str | None = None) -> bytes:
    import orjson

    head = f"id: {event_id}\n".encode() if event_id else b""
    return head + b"event: message\ndata: " + orjson.dumps(message) + b"\n\n"


class LiveCall:
    def __init__(self, ctx, body: bytes):
        self.ctx = ctx
        self.body = body
        self.queue: queue.Queue = queue.Queue()
        self.channel: str | None = None  # set once the POST stream is closed
        ctx.notify = self.emit
        if ctx.era != p.MODERN:
            ctx.send_request = self.send_request
            if getattr(getattr(ctx, "session", None), "row", None) is not None:
                ctx.close_stream = self.close_stream

    def send_request(self, method: str, params: dict) -> dict:
        return client_requests.request_client(method, params, self.emit, self.ctx)

    def emit(self, message: dict) -> None:
        if self.channel is None:
            self.queue.put(message)
        else:  # the POST stream is gone: store it for the client's GET (streams.py)
            from django_eventstream import send_event

            send_event(self.channel, streams.CALL_MESSAGE, message)

    def close_stream(self) -> None:
        """End the POST's SSE stream now (2025-11-25 §Resumability: a server may close it
        after an event with an id); the rest of the call goes to the session's GET with
        Last-Event-ID. Only a legacy call with a session can do this."""
        from django_eventstream.utils import get_storage

        if self.channel is not None:
            return
        token = secrets.token_hex(8)
        channel = streams.call_channel(self.ctx.session.row.pk, token)
        # A stored first event gives the priming id something to resume after.
        opened = get_storage().append_event(channel, streams.CALL_OPEN, "null")
        self.queue.put(_Close(streams.call_event_id(token, int(opened.id))))
        self.channel = channel

    def run(self) -> None:
        try:
            try:
                reply = handle_payload(self.body, self.ctx)
            except Exception as exc:  # handle_payload maps its own errors; a last resort
                body, status = wire_error(exc)
                reply = Reply(body, status)
            if self.channel is not None and reply.body is not None:
                self.emit(reply.body)  # the POST stream is closed: the GET delivers it
        finally:
            # This thread's connections die with it; Django only closes request threads'.
            connections.close_all()
        if self.channel is None:
            self.queue.put(_Final(reply))


def respond(request, ctx, body: bytes) -> HttpResponse:
    """Run the call and answer with JSON or with an SSE stream, whichever it turns out to need."""
    call = LiveCall(ctx, body)
    threading.Thread(target=call.run, name="mcp-call", daemon=True).start()
    first = call.queue.get()
    if isinstance(first, _Final):
        reply = first.reply
        if reply.body is None:
            return HttpResponse(status=202)
        return HttpResponse(reply.encode(), status=reply.status, content_type=JSON)
    if isinstance(request, ASGIRequest):
        content = _async_events(first, call.queue)
    else:
        content = _sync_events(first, call.queue)
    response = StreamingHttpResponse(content, content_type=SSE)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _last_frame(item) -> bytes:
    if isinstance(item, _Close):  # priming event: the client resumes after this id
        return streams.sse_frame(None, item.event_id, retry=settings.MCP_SSE_RETRY_MS)
    return sse_frame(item.reply.body)


def _sync_events(first, source: queue.Queue):
    item = first
    while not isinstance(item, _Final | _Close):
        yield sse_frame(item)
        item = source.get()
    yield _last_frame(item)


async def _async_events(first, source: queue.Queue):
    get = sync_to_async(source.get, thread_sensitive=False)
    item = first
    while not isinstance(item, _Final | _Close):
        yield sse_frame(item)
        item = await get()
    yield _last_frame(item)
