"""Server-to-client streams over Streamable HTTP, on the same fan-out as the live pages.

- Legacy GET stream (2025-11-25 basic/transports §Listening for Messages), one per session:
  `notifications/resources/updated` for the session's subscriptions and
  `notifications/resources/list_changed`. Every message has an SSE id `<n>-<i>`: message `i`
  of content-change event `n` (the change channel's stored sequence), so a client that
  reconnects with `Last-Event-ID` gets exactly what this session's stream missed, replayed
  from the event store. The stream opens with a priming event (id, empty data) so even a
  client that received nothing yet can resume.
- A call's stream resumed on GET (SEP-1699 polling; calls.py closes the POST's stream).
- Modern `subscriptions/listen` (2026-07-28): a POST whose SSE response opens with
  `notifications/subscriptions/acknowledged`, then carries the opted-in notifications, each
  stamped with `_meta["io.modelcontextprotocol/subscriptionId"]`; no ids, no replay.

What a content event means for a stream comes from the server's change feed
(`Server.change_feed`: the glossary's is mcp_endpoint/features/changes.py); the events
themselves come through the event-store seam (eventstore.py). A stream holds no database
connection between reads (each read gives its connection back), and it must be served by an
ASGI server.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from ..core import protocol as p
from ..core.errors import InvalidRequest
from ..models import McpSession
from . import eventstore, liveness, sessions, sse
from .eventstore import release_connection
from .responses import empty_response, error_response

logger = logging.getLogger("mcp_endpoint")

# A stream's claim on its session; renewed while the stream lives, so a stream whose
# process died on another host stops blocking a new one after this long (on the same host the
# owner's liveness frees it at once: liveness.py).
LEASE = timedelta(seconds=120)

current_id = sync_to_async(eventstore.current_id)
changes_after = sync_to_async(eventstore.all_events_after)


def notifications_for(
    feed, event: eventstore.StoredEvent, *, uris, list_changed: bool, meta: dict | None = None
) -> list[dict]:
    """What one content event means for a stream following `uris` (and, if `list_changed`,
    the resource list)."""
    updated, changed = feed.changes(event.type, event.data, uris)
    extra = {p.META: meta} if meta else {}
    out = [p.notification(p.RESOURCE_UPDATED, {"uri": uri, **extra}) for uri in updated]
    if list_changed and changed:
        out.append(p.notification(p.RESOURCE_LIST_CHANGED, extra or None))
    return out


def _everything_changed(uris) -> list[dict]:
    updated = [p.notification(p.RESOURCE_UPDATED, {"uri": uri}) for uri in sorted(uris)]
    return [*updated, p.notification(p.RESOURCE_LIST_CHANGED)]


# --- legacy GET stream ------------------------------------------------------------------------
def parse_last_event_id(value: str) -> tuple[int, int] | None:
    """`<n>` (everything of event n delivered) or `<n>-<i>` (messages up to i of event n)."""
    head, _, tail = value.strip().partition("-")
    if not head.isdigit() or (tail and not tail.isdigit()) or len(value) > 40:
        raise ValueError(value)
    return int(head), int(tail) if tail else 1 << 30


def _claim(key_hash: str) -> str | None:
    """A new holder id if this session's stream is free: nobody holds it, the holder's lease
    ran out, or the holder's process is gone (crashed; liveness.py). One query when free, two
    when taken (the second only reads the owner)."""
    holder, now = secrets.token_hex(16), timezone.now()
    claim = {
        "stream_holder": holder,
        "stream_lease_until": now + LEASE,
        "stream_owner": liveness.identity(),
        "last_seen": now,
    }
    rows = McpSession.objects.filter(pk=key_hash)
    if rows.filter(Q(stream_holder="") | Q(stream_lease_until__lt=now)).update(**claim):
        return holder
    taken = rows.values_list("stream_holder", "stream_owner").first()
    # Conditional on the same holder: two reconnects racing get one stream between them.
    if taken and liveness.is_gone(taken[1]) and rows.filter(stream_holder=taken[0]).update(**claim):
        logger.info("GET stream of a crashed process (%s) taken over", taken[1])
        return holder
    return None


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
            stream_holder="", stream_lease_until=None, stream_owner=""
        )
    finally:
        release_connection()


def open_session_stream(request, row: McpSession, feed):
    """The response to a session's GET: 406 without SSE in Accept, 400 for a malformed
    Last-Event-ID, 409 while another GET stream of this session is open, else the stream."""
    if not sse.accepts(request.headers.get("Accept", "")):
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
    return sse.response(_session_stream(feed, row.pk, set(row.subscriptions), resume, holder))


async def _session_stream(feed, key_hash: str, subscriptions: set, resume, holder: str):
    channel = feed.channel
    control = sessions.control_channel(key_hash)
    listener = eventstore.Feed(channel, control)
    listener.open()  # before reading the cursor: nothing published meanwhile is missed
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
        yield sse.retry_field(settings.MCP_SSE_RETRY_MS)
        backlog = None
        if resume is not None:
            n, index = resume
            backlog = await changes_after(channel, max(n - 1, 0))
            last, partial = n - 1, (n, index)
        if backlog is None:  # a new stream, or one too old to replay
            last, backlog = await current_id(channel), []
            yield sse.frame(None, event_id=str(last))  # priming: resumable before any message
            if resume is not None:  # missed messages are gone: have the client re-read
                for message in _everything_changed(uris):
                    yield sse.frame(message)
        while True:
            for item in backlog:
                eid = item.id
                if eid is not None and eid <= last:
                    continue
                messages = notifications_for(feed, item, uris=uris, list_changed=True)
                for index, message in enumerate(messages):
                    if eid == partial[0] and index <= partial[1]:
                        continue
                    event_id = f"{eid}-{index}" if eid is not None else None
                    yield sse.frame(message, event_id=event_id)
                if eid is not None:
                    last = eid
            backlog = []
            timeout = keepalive
            if closes_at is not None:
                if loop.time() >= closes_at:
                    return
                timeout = min(keepalive, closes_at - loop.time())
            got = await listener.wait(timeout)
            if timezone.now() - renewed >= LEASE / 2:
                if not await sync_to_async(_renew)(key_hash, holder):
                    return  # the session ended (or expired) under us
                renewed = timezone.now()
            if got is None:
                if closes_at is None or loop.time() < closes_at:
                    yield sse.PING
                continue
            items, overflow = got
            for event in items.get(control, ()):
                if event.data.get("ended"):
                    return
                if isinstance(event.data.get("subscriptions"), list):
                    uris = set(event.data["subscriptions"])
            if overflow:
                backlog = await changes_after(channel, last) or []
            else:
                backlog = items.get(channel, [])
    finally:
        listener.close()
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

call_events_after = sync_to_async(eventstore.events_after)


def call_channel(key_hash: str, token: str) -> str:
    return f"mcp-call-{key_hash}-{token}"


def call_event_id(token: str, event_id: int) -> str:
    return f"c{token}-{event_id}"


def parse_call_event_id(value: str) -> tuple[str, int] | None:
    """(token, stored event id) of a call stream's SSE id, or None for any other id."""
    match = _CALL_EVENT_ID.fullmatch(value.strip())
    return (match[1], int(match[2])) if match else None


def call_stream_response(key_hash: str, token: str, after: int):
    release_connection()
    return sse.response(_call_stream(call_channel(key_hash, token), token, after))


async def _call_stream(channel: str, token: str, after: int):
    listener = eventstore.Feed(channel)
    listener.open()  # before the first read: nothing stored meanwhile is missed
    keepalive = settings.MCP_SSE_KEEPALIVE_SECONDS
    loop = asyncio.get_running_loop()
    # A call that never finishes (its process died) must not hold the GET forever.
    closes_at = loop.time() + (settings.MCP_SSE_MAX_SECONDS or 600)
    last = after
    try:
        yield sse.retry_field(settings.MCP_SSE_RETRY_MS)
        while True:
            backlog = await call_events_after(channel, last)
            if backlog is None:  # not this session's stream, or trimmed from the store
                return
            for item in backlog:
                last = item.id
                if item.type != CALL_MESSAGE:
                    continue
                yield sse.frame(item.data, event_id=call_event_id(token, last))
                if "method" not in item.data:  # the call's response: its stream is complete
                    return
            if len(backlog) == eventstore.REPLAY_BATCH:
                continue
            if loop.time() >= closes_at:
                return
            # Woken by the store's fan-out (Redis: any process), else re-read after a while.
            if await listener.wait(min(keepalive, closes_at - loop.time())) is None:
                yield sse.PING
    finally:
        listener.close()


# --- modern subscriptions/listen --------------------------------------------------------------
def listen_response(request, feed, request_id, honored: dict):
    """The listen stream a validated `subscriptions/listen` call answers with (its result,
    the honored filter, is the acknowledgement); 406 if the client cannot read SSE."""
    if not sse.accepts(request.headers.get("Accept", "")):
        return error_response(
            InvalidRequest("Not Acceptable: subscriptions/listen answers with text/event-stream"),
            406,
            request_id,
        )
    release_connection()
    return sse.response(_listen_stream(feed, request_id, honored))


async def _listen_stream(feed, request_id, honored: dict):
    meta = {p.META_SUBSCRIPTION_ID: request_id}
    channel = feed.channel
    listener = eventstore.Feed(channel)
    listener.open()
    uris = set(honored.get("resourceSubscriptions", ()))
    list_changed = honored.get("resourcesListChanged", False)
    keepalive = settings.MCP_SSE_KEEPALIVE_SECONDS
    try:
        last = await current_id(channel)
        acknowledged = {"notifications": honored, p.META: meta}
        yield sse.frame(p.notification(p.SUBSCRIPTIONS_ACKNOWLEDGED, acknowledged))
        backlog = []
        while True:
            for item in backlog:
                eid = item.id
                if eid is not None and eid <= last:
                    continue
                for message in notifications_for(
                    feed, item, uris=uris, list_changed=list_changed, meta=meta
                ):
                    yield sse.frame(message)
                if eid is not None:
                    last = eid
            got = await listener.wait(keepalive)
            if got is None:
                yield sse.PING
                backlog = []
                continue
            items, overflow = got
            backlog = (
                (await changes_after(channel, last) or []) if overflow else items.get(channel, [])
            )
    finally:
        listener.close()


def session_method(request, feed):
    """GET (the session's stream) and DELETE (end the session) for a request naming a legacy
    session; None when the request names none (the view answers 405 as before)."""
    key = request.headers.get(sessions.HEADER)
    version = request.headers.get("MCP-Protocol-Version")
    if key is None or (version is not None and version not in p.LEGACY_VERSIONS):
        return None  # modern clients have no sessions: 405
    if request.method == "DELETE":
        if sessions.end(key):
            return empty_response(204)
        return error_response(InvalidRequest("Session not found: it ended or expired"), 404)
    row = sessions.load(key)
    if row is None:
        return error_response(InvalidRequest("Session not found: it ended or expired"), 404)
    return open_session_stream(request, row, feed)
