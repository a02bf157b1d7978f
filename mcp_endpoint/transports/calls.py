"""Live calls: a legacy request that talks to the client while it runs, on the SSE response
of its own POST (2025-11-25 basic/transports §Sending Messages to the Server: the server "MAY
send JSON-RPC requests and notifications before sending the JSON-RPC response", and those
messages "SHOULD relate to the originating client request").

The view hands over a call the dispatcher has validated (`Dispatcher.prepare`); `wants_live`
decides from those validated params whether it may need a stream. The handler then runs in
a worker thread with `ctx.notify` (log and progress notifications) and `ctx.send_request`
(elicitation, sampling, roots: answers.py) wired to a queue, and the view answers with the
first thing that comes out of it: the result alone (plain JSON, the call had nothing to say
first) or a notification or request (an SSE stream that carries it, everything after it, and
the result last). The stream is consumed asynchronously under ASGI (a sync iterator would be
buffered whole); under WSGI it is a plain iterator. A client that disconnects does not cancel
the call (the spec says so); the call finishes and its result is dropped. A legacy call with a
session may also end its stream on purpose (`ctx.close_stream`, SEP-1699 polling): a priming
event with an id and `retry:`, then the rest of the call is stored for the client's GET with
that Last-Event-ID (streams.py, "a call's stream").
"""

from __future__ import annotations

import queue
import secrets
import threading

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpResponse

from ..core import protocol as p
from ..core.dispatcher import Call, Reply
from ..core.errors import wire_error
from . import answers, eventstore, sse, streams
from .responses import json_response

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


def wants_live(call: Call, accept: str) -> bool:
    """Whether this validated call may need a stream: the client accepts SSE, and its method's
    handler may notify (a progress token, a log level in effect) or ask the client."""
    if sse.CONTENT_TYPE not in accept.lower() or call.method.name not in LIVE_METHODS:
        return False
    ctx, params = call.ctx, call.params
    meta = params.get(p.META)
    if isinstance(meta, dict) and (p.META_PROGRESS_TOKEN in meta or p.META_LOG_LEVEL in meta):
        return True
    if ctx.era == p.MODERN:
        return False  # the modern era asks through MRTR results, never on a stream
    if getattr(ctx.session, "log_level", None):
        return True
    if call.method.name != p.TOOLS_CALL:
        return False
    tool = ctx.server.tools.get(params["name"])
    return tool is not None and tool.interactive


class LiveCall:
    def __init__(self, call: Call):
        self.call = call
        self.queue: queue.Queue = queue.Queue()
        self.channel: str | None = None  # set once the POST stream is closed
        ctx = call.ctx
        ctx.notify = self.emit
        if ctx.era != p.MODERN:
            ctx.send_request = self.send_request
            if getattr(getattr(ctx, "session", None), "row", None) is not None:
                ctx.close_stream = self.close_stream

    def send_request(self, method: str, params: dict) -> dict:
        return answers.request_client(method, params, self.emit)

    def emit(self, message: dict) -> None:
        if self.channel is None:
            self.queue.put(message)
        else:  # the POST stream is gone: store it for the client's GET (streams.py)
            eventstore.send(self.channel, streams.CALL_MESSAGE, message)

    def close_stream(self) -> None:
        """End the POST's SSE stream now (2025-11-25 §Resumability: a server may close it
        after an event with an id); the rest of the call goes to the session's GET with
        Last-Event-ID. Only a legacy call with a session can do this."""
        if self.channel is not None:
            return
        token = secrets.token_hex(8)
        channel = streams.call_channel(self.call.ctx.session.row.pk, token)
        # A stored first event gives the priming id something to resume after.
        opened = eventstore.append(channel, streams.CALL_OPEN, None)
        self.queue.put(_Close(streams.call_event_id(token, opened)))
        self.channel = channel

    def run(self) -> None:
        try:
            try:
                reply = Reply(*self.call.run())
            except Exception as exc:  # Call.run maps its own errors; a last resort
                reply = Reply(*wire_error(exc))
            if self.channel is not None:
                self.emit(reply.body)  # the POST stream is closed: the GET delivers it
        finally:
            # This thread's connections die with it; Django only closes request threads'.
            connections.close_all()
        if self.channel is None:
            self.queue.put(_Final(reply))


def respond(request, call: Call) -> HttpResponse:
    """Run the call and answer with JSON or with an SSE stream, whichever it turns out to need."""
    live = LiveCall(call)
    threading.Thread(target=live.run, name="mcp-call", daemon=True).start()
    first = live.queue.get()
    if isinstance(first, _Final):
        return json_response(first.reply)
    if isinstance(request, ASGIRequest):
        return sse.response(_async_events(first, live.queue))
    return sse.response(_sync_events(first, live.queue))


def _frame(item) -> bytes:
    if isinstance(item, _Close):  # priming event: the client resumes after this id
        return sse.frame(None, event_id=item.event_id, retry=settings.MCP_SSE_RETRY_MS)
    if isinstance(item, _Final):
        item = item.reply.body
    return sse.frame(item, event="message")


def _sync_events(first, source: queue.Queue):
    item = first
    while not isinstance(item, _Final | _Close):
        yield _frame(item)
        item = source.get()
    yield _frame(item)


async def _async_events(first, source: queue.Queue):
    get = sync_to_async(source.get, thread_sensitive=False)
    item = first
    while not isinstance(item, _Final | _Close):
        yield _frame(item)
        item = await get()
    yield _frame(item)
