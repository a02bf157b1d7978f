"""Server-to-client streams over Streamable HTTP, on the same fan-out as the live pages.

- Legacy GET stream (2025-11-25 basic/transports §Listening for Messages), one per session:
  `notifications/resources/updated` for the session's subscriptions and
  `notifications/resources/list_changed`. Every message has an SSE id `<n>-<i>`: message `i`
  of content-change event `n` (the `glossary` channel's stored sequence), so a client that
  reconnects with `Last-Event-ID` gets exactly what this session's stream missed, replayed
  from the event store. The stream opens with a priming event (id, empty data) so even a
  client that received nothing yet can resume.
- Modern `subscriptions/listen` (2026-07-28): a POST whose SSE response opens with
  `notifications/subscriptions/acknowledged`, then carries the opted-in notifications, each
  stamped with `_meta["io.modelcontextprotocol/subscriptionId"]`; no ids, no replay.

Content events come from `glossary.events` through django-eventstream's listener manager,
which Redis (`EVENTSTREAM_REDIS`) feeds from every process. Keep-alives are SSE comments
(`: ping`), which every client ignores; there are no pseudo-events. A stream holds no
database connection between reads (each read gives its connection back), and it must be
served by an ASGI server.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from datetime import timedelta

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db.models import Q
from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone
from django_eventstream.storage import EventDoesNotExist
from django_eventstream.utils import get_storage
from django_eventstream.views import Listener, get_listener_manager

from glossary import events
from glossary.eventstream import release_connection

from . import protocol as p
from . import sessions
from .documents import ARTICLE_URI, TERM_URI
from .models import McpSession

logger = logging.getLogger("mcp_endpoint")

SSE = "text/event-stream"
UPDATED = "notifications/resources/updated"
LIST_CHANGED = "notifications/resources/list_changed"
LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
URI_PREFIXES = {"term": TERM_URI, "article": ARTICLE_URI}
# A stream's claim on its session; renewed while the stream lives, so a stream whose
# process died stops blocking a new one after this long.
LEASE = timedelta(seconds=120)
_REPLAY_BATCH = 100


def accepts_sse(request) -> bool:
    accept = request.headers.get("Accept", "").lower()
    return SSE in accept or "text/*" in accept


_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")


def subscribable(uri: str) -> bool:
    """An absolute URI of sane length (only glossary:// URIs ever get updates)."""
    return len(uri) <= 2000 and bool(_URI.fullmatch(uri))


def _note(method: str, params: dict | None = None) -> dict:
    message = {"jsonrpc": "2.0", "method": method}
    if params:
        message["params"] = params
    return message


def sse_frame(message: dict | None, event_id: str | None = None, retry: int | None = None) -> bytes:
    """One SSE event: optional id and retry, then the JSON message (orjson never emits a raw
    newline, so it fits one `data:` line); `None` makes a priming event with empty data."""
    out = b""
    if event_id is not None:
        out += b"id: " + event_id.encode() + b"\n"
    if retry is not None:
        out += b"retry: %d\n" % retry
    out += b"data: " + (orjson.dumps(message) if message is not None else b"") + b"\n\n"
    return out


PING = b": ping\n\n"


def notifications_for(
    event_type: str, data: dict, *, uris, list_changed: bool, meta: dict | None = None
) -> list[dict]:
    """What one content event means for a stream following `uris` (and, if `list_changed`,
    the resource list)."""
    params = {p.META: meta} if meta else None
    out = []
    if event_type == events.CHANGE_EVENT:
        prefix = URI_PREFIXES.get(data.get("kind"))
        uri = f"{prefix}{data.get('slug')}" if prefix else None
        if uri in uris:
            out.append(_note(UPDATED, {"uri": uri, **(params or {})}))
        if list_changed and data.get("list_changed"):
            out.append(_note(LIST_CHANGED, params))
    elif event_type == events.BULK_EVENT:
        prefixes = tuple(URI_PREFIXES[k] for k in data.get("kinds", ()) if k in URI_PREFIXES)
        for uri in sorted(u for u in uris if u.startswith(prefixes)):
            out.append(_note(UPDATED, {"uri": uri, **(params or {})}))
        if list_changed and data.get("list_changed"):
            out.append(_note(LIST_CHANGED, params))
    return out


def _decode(raw) -> dict:
    try:
        value = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


# --- the shared fan-out -----------------------------------------------------------------------
class Feed:
    """This stream's place in the process's listener manager (fed locally, or by Redis from
    every process): content changes, plus any private channels (a session's control)."""

    def __init__(self, *channels: str) -> None:
        self.listener = Listener()
        self.listener.channels = {events.CHANGES_CHANNEL, *channels}
        self.manager = get_listener_manager()

    def open(self) -> None:
        self.listener.assign_loop()
        self.manager.add_listener(self.listener)

    def close(self) -> None:
        self.manager.remove_listener(self.listener)

    async def wait(self, timeout: float):
        """(items by channel, overflowed) once something arrives, or None after `timeout`."""
        listener = self.listener
        try:
            await asyncio.wait_for(listener.aevent.wait(), timeout)
        except TimeoutError:
            return None
        with self.manager.lock:
            items, overflow = listener.channel_items, listener.overflow
            listener.channel_items, listener.overflow = {}, False
            listener.aevent.clear()
        return items, overflow


def _current_id() -> int:
    return int(get_storage().get_current_id(events.CHANGES_CHANNEL))


def _changes_after(after: int) -> list | None:
    """Stored content events after id `after`, oldest first; None if `after` is unknown (trimmed
    from the store, or never issued)."""
    storage = get_storage()
    out = []
    try:
        while True:
            batch = storage.get_events(events.CHANGES_CHANNEL, after, limit=_REPLAY_BATCH)
            out.extend(batch)
            if len(batch) < _REPLAY_BATCH:
                return out
            after = int(batch[-1].id)
    except EventDoesNotExist:
        return None


current_id = sync_to_async(_current_id)
changes_after = sync_to_async(_changes_after)


def _event_id(item) -> int | None:
    try:
        return int(item.id)
    except (TypeError, ValueError):
        return None


# --- legacy GET stream ------------------------------------------------------------------------
def parse_last_event_id(value: str) -> tuple[int, int] | None:
    """`<n>` (everything of event n delivered) or `<n>-<i>` (messages up to i of event n)."""
    head, _, tail = value.strip().partition("-")
    if not head.isdigit() or (tail and not tail.isdigit()) or len(value) > 40:
        raise ValueError(value)
    return int(head), int(tail) if tail else 1 << 30


def _claim(key_hash: str) -> str | None:
    holder, now = secrets.token_hex(16), timezone.now()
    claimed = (
        McpSession.objects.filter(pk=key_hash)
        .filter(Q(stream_holder="") | Q(stream_lease_until__lt=now))
        .update(stream_holder=holder, stream_lease_until=now + LEASE, last_seen=now)
    )
    return holder if claimed else None


def _renew(key_hash: str, holder: str) -> bool:
    now = timezone.now()
    try:
        return bool(
            McpSession.objects.filter(pk=key_hash, stream_holder=holder).update(
                stream_lease_until=now + LEASE, last_seen=now
            )
        )
    finally:
        release_connection()


def _release(key_hash: str, holder: str) -> None:
    try:
        McpSession.objects.filter(pk=key_hash, stream_holder=holder).update(
            stream_holder="", stream_lease_until=None
        )
    finally:
        release_connection()


def open_session_stream(request, row: McpSession, error_response):
    """The response to a session's GET: 406 without SSE in Accept, 400 for a malformed
    Last-Event-ID, 409 while another GET stream of this session is open, else the stream."""
    from .errors import InvalidRequest

    if not accepts_sse(request):
        return error_response(
            InvalidRequest("Not Acceptable: a GET stream needs Accept: text/event-stream"), 406
        )
    resume = None
    last = request.headers.get("Last-Event-ID")
    if last and (call := parse_call_event_id(last)):
        return call_stream_response(row.pk, *call)
    if last:
        try:
            resume = parse_last_event_id(last)
        except ValueError:
            return error_response(InvalidRequest(f"Malformed Last-Event-ID {last[:40]!r}"), 400)
    holder = _claim(row.pk)
    if holder is None:
        return error_response(
            InvalidRequest("Conflict: this session already has an open GET stream"), 409
        )
    release_connection()  # the stream reads in short steps; it holds no connection
    response = StreamingHttpResponse(
        _session_stream(row.pk, set(row.subscriptions), resume, holder), content_type=SSE
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


async def _session_stream(key_hash: str, subscriptions: set, resume, holder: str):
    feed = Feed(sessions.control_channel(key_hash))
    feed.open()  # before reading the cursor: nothing published meanwhile is missed
    keepalive = settings.MCP_SSE_KEEPALIVE_SECONDS
    # 2025-11-25 lets a server close a stream after an event with an id; the client
    # reconnects with Last-Event-ID and misses nothing. Bounding a stream's life spreads
    # long-lived clients across processes after a deploy or a scale-out.
    lifetime = settings.MCP_SSE_MAX_SECONDS
    loop = asyncio.get_running_loop()
    closes_at = loop.time() + lifetime if lifetime else None
    renewed = timezone.now()
    uris = subscriptions
    partial = (None, -1)  # (event id, last message index delivered) of a half-sent event
    try:
        yield b"retry: %d\n\n" % settings.MCP_SSE_RETRY_MS
        backlog = None
        if resume is not None:
            n, index = resume
            backlog = await changes_after(max(n - 1, 0))
            last, partial = n - 1, (n, index)
        if backlog is None:  # a new stream, or one too old to replay
            last, backlog = await current_id(), []
            yield sse_frame(None, str(last))  # priming: resumable before the first message
            if resume is not None:  # missed messages are gone: have the client re-read
                for message in _everything_changed(uris):
                    yield sse_frame(message)
        while True:
            for item in backlog:
                eid = _event_id(item)
                if eid is not None and eid <= last:
                    continue
                messages = notifications_for(
                    item.type, _decode(item.data), uris=uris, list_changed=True
                )
                for index, message in enumerate(messages):
                    if eid == partial[0] and index <= partial[1]:
                        continue
                    yield sse_frame(message, f"{eid}-{index}" if eid is not None else None)
                if eid is not None:
                    last = eid
            backlog = []
            timeout = keepalive
            if closes_at is not None:
                if loop.time() >= closes_at:
                    return
                timeout = min(keepalive, closes_at - loop.time())
            got = await feed.wait(timeout)
            if timezone.now() - renewed >= LEASE / 2:
                if not await sync_to_async(_renew)(key_hash, holder):
                    return  # the session ended (or expired) under us
                renewed = timezone.now()
            if got is None:
                if closes_at is None or loop.time() < closes_at:
                    yield PING
                continue
            items, overflow = got
            for control in items.get(sessions.control_channel(key_hash), ()):
                data = _decode(control.data)
                if data.get("ended"):
                    return
                if isinstance(data.get("subscriptions"), list):
                    uris = set(data["subscriptions"])
            if overflow:
                backlog = await changes_after(last) or []
            else:
                backlog = items.get(events.CHANGES_CHANNEL, [])
    finally:
        feed.close()
        try:
            await sync_to_async(_release)(key_hash, holder)
        except BaseException:  # the client is gone; the lease runs out on its own
            logger.debug("Could not release a GET stream's claim", exc_info=True)


# --- a call's stream, resumed on GET (2025-11-25 SEP-1699 polling) -----------------------------
# A legacy call may close its POST's SSE stream mid-call (`ctx.close_stream`, calls.py) after a
# priming event `id: c<token>-<n>` with a `retry:` field. Everything the call sends after that is
# stored on its own channel (`mcp-call-<session hash>-<token>`), and the client's GET with that
# Last-Event-ID replays exactly that stream's messages, the result last, then ends. The channel
# includes the session, so another session's GET finds nothing; the session's own GET stream
# (its subscriptions) is neither claimed nor touched.
_CALL_EVENT_ID = re.compile(r"c([0-9a-f]{16})-(\d{1,12})")
CALL_OPEN = "open"
CALL_MESSAGE = "message"


def call_channel(key_hash: str, token: str) -> str:
    return f"mcp-call-{key_hash}-{token}"


def call_event_id(token: str, event_id: int) -> str:
    return f"c{token}-{event_id}"


def parse_call_event_id(value: str) -> tuple[str, int] | None:
    """(token, stored event id) of a call stream's SSE id, or None for any other id."""
    match = _CALL_EVENT_ID.fullmatch(value.strip())
    return (match[1], int(match[2])) if match else None


def _call_events_after(channel: str, after: int) -> list | None:
    try:
        return get_storage().get_events(channel, after, limit=_REPLAY_BATCH)
    except EventDoesNotExist:
        return None


call_events_after = sync_to_async(_call_events_after)


def call_stream_response(key_hash: str, token: str, after: int) -> StreamingHttpResponse:
    release_connection()
    response = StreamingHttpResponse(
        _call_stream(call_channel(key_hash, token), token, after), content_type=SSE
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


async def _call_stream(channel: str, token: str, after: int):
    feed = Feed(channel)
    feed.open()  # before the first read: nothing stored meanwhile is missed
    keepalive = settings.MCP_SSE_KEEPALIVE_SECONDS
    loop = asyncio.get_running_loop()
    # A call that never finishes (its process died) must not hold the GET forever.
    closes_at = loop.time() + (settings.MCP_SSE_MAX_SECONDS or 600)
    last = after
    try:
        yield b"retry: %d\n\n" % settings.MCP_SSE_RETRY_MS
        while True:
            backlog = await call_events_after(channel, last)
            if backlog is None:  # not this session's stream, or trimmed from the store
                return
            for item in backlog:
                last = int(item.id)
                if item.type != CALL_MESSAGE:
                    continue
                message = _decode(item.data)
                yield sse_frame(message, call_event_id(token, last))
                if "method" not in message:  # the call's response: its stream is complete
                    return
            if len(backlog) == _REPLAY_BATCH:
                continue
            if loop.time() >= closes_at:
                return
            # Woken by the store's fan-out (Redis: any process), else re-read after a while.
            if await feed.wait(min(keepalive, closes_at - loop.time())) is None:
                yield PING
    finally:
        feed.close()


def _everything_changed(uris) -> list[dict]:
    return [_note(UPDATED, {"uri": uri}) for uri in sorted(uris)] + [_note(LIST_CHANGED)]


# --- modern subscriptions/listen --------------------------------------------------------------
def honored_filter(requested: dict) -> dict:
    """The subset of the requested filter this server honors (all of it: a kind that never
    fires, like tools/list_changed, is honored and simply stays silent)."""
    honored = {}
    for key in ("toolsListChanged", "promptsListChanged", "resourcesListChanged"):
        if requested.get(key) is True:
            honored[key] = True
    uris = [u for u in requested.get("resourceSubscriptions") or () if isinstance(u, str)]
    if uris:
        honored["resourceSubscriptions"] = list(dict.fromkeys(uris))
    return honored


def listen_response(request_id, honored: dict) -> StreamingHttpResponse:
    release_connection()
    response = StreamingHttpResponse(_listen_stream(request_id, honored), content_type=SSE)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


async def _listen_stream(request_id, honored: dict):
    meta = {META_SUBSCRIPTION_ID: request_id}
    feed = Feed()
    feed.open()
    uris = set(honored.get("resourceSubscriptions", ()))
    list_changed = honored.get("resourcesListChanged", False)
    keepalive = settings.MCP_SSE_KEEPALIVE_SECONDS
    try:
        last = await current_id()
        yield sse_frame(_note(ACKNOWLEDGED, {"notifications": honored, p.META: meta}))
        backlog = []
        while True:
            for item in backlog:
                eid = _event_id(item)
                if eid is not None and eid <= last:
                    continue
                for message in notifications_for(
                    item.type, _decode(item.data), uris=uris, list_changed=list_changed, meta=meta
                ):
                    yield sse_frame(message)
                if eid is not None:
                    last = eid
            got = await feed.wait(keepalive)
            if got is None:
                yield PING
                backlog = []
                continue
            items, overflow = got
            backlog = (
                (await changes_after(last) or [])
                if overflow
                else items.get(events.CHANGES_CHANNEL, [])
            )
    finally:
        feed.close()


class ListenStream(dict):
    """What the `subscriptions/listen` handler returns: a result the HTTP view turns into the
    listen SSE stream instead of a JSON body (the modern checks have all run by then)."""

    def __init__(self, honored: dict) -> None:
        super().__init__()
        self.honored = honored


def respond(request, ctx, body: bytes, reply, error_response) -> HttpResponse:
    """The HTTP response for a dispatched POST: the listen stream, else plain JSON, with the
    session id if this request (initialize) minted one. (Calls that notify or ask the client
    while they run answer with their own SSE stream: calls.py.)"""
    from .errors import InvalidRequest

    message = reply.body if isinstance(reply.body, dict) else {}
    result = message.get("result")
    response = None
    if isinstance(result, ListenStream):
        if not accepts_sse(request):
            return error_response(
                InvalidRequest(
                    "Not Acceptable: subscriptions/listen answers with text/event-stream"
                ),
                406,
                message.get("id"),
            )
        response = listen_response(message.get("id"), result.honored)
    if response is None:
        response = HttpResponse(
            reply.encode(), status=reply.status, content_type="application/json"
        )
    key = getattr(ctx.session, "key", None)
    if key:
        response[sessions.HEADER] = key
    return response


def session_method(request, error_response):
    """GET (the session's stream) and DELETE (end the session) for a request naming a legacy
    session; None when the request names none (the view answers 405 as before)."""
    from .errors import InvalidRequest

    key = request.headers.get(sessions.HEADER)
    version = request.headers.get("MCP-Protocol-Version")
    if key is None or (version is not None and version not in p.LEGACY_VERSIONS):
        return None  # modern clients have no sessions: 405
    if request.method == "DELETE":
        if sessions.end(key):
            return HttpResponse(status=204)
        return error_response(InvalidRequest("Session not found: it ended or expired"), 404)
    row = sessions.load(key)
    if row is None:
        return error_response(InvalidRequest("Session not found: it ended or expired"), 404)
    return open_session_stream(request, row, error_response)
