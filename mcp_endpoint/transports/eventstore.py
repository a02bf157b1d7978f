"""The one seam between the MCP transports and django-eventstream.

The streams (transports/streams.py), live calls (transports/calls.py) and answers to
server-to-client requests (transports/answers.py) use the library for three things it does
not document as an API: its in-process listener manager (how a stream waits for the next
event, fed by Redis from every process when `EVENTSTREAM_REDIS` is set), its storage (stored,
replayable channels with increasing ids) and its `Event` table, which also serves as a small
mailbox between processes. Everything the library's internals look like is written here and
nowhere else, and tests/mcp/test_eventstore.py fails by name if an upgrade changes any of it.
What leaves this module is `StoredEvent`, never a library object.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import orjson
from django.db import IntegrityError, connection, transaction
from django_eventstream import send_event
from django_eventstream.models import Event
from django_eventstream.storage import EventDoesNotExist
from django_eventstream.utils import get_storage
from django_eventstream.views import Listener, get_listener_manager

REPLAY_BATCH = 100
_ANSWER = "answer"


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event: its id on its channel (None for a channel that is not stored), its type and
    its JSON payload decoded (an empty dict for anything that is not a JSON object)."""

    id: int | None
    type: str
    data: dict


def _decode(raw) -> dict:
    try:
        value = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _event(item) -> StoredEvent:
    try:
        event_id = int(item.id)
    except (TypeError, ValueError):
        event_id = None
    return StoredEvent(event_id, item.type, _decode(item.data))


def release_connection() -> None:
    """Give this thread's database connection back (to the pool, if there is one) unless a
    transaction needs it: a stream reads in short steps and holds no connection between."""
    if not connection.in_atomic_block:
        connection.close()


class Feed:
    """A stream's place in this process's listener manager: the channels it follows, woken
    when an event arrives on any of them (locally, or through Redis from every process)."""

    def __init__(self, *channels: str) -> None:
        self.listener = Listener()
        self.listener.channels = set(channels)
        self.manager = get_listener_manager()

    def open(self) -> None:
        """Start following (in the stream's event loop); events sent from now on are seen,
        also those other processes store when there is no Redis (the configured storage's
        `watch()`: glossary.eventstream's watcher)."""
        watch = getattr(get_storage(), "watch", None)
        if watch is not None:
            watch()
        self.listener.assign_loop()
        self.manager.add_listener(self.listener)

    def close(self) -> None:
        self.manager.remove_listener(self.listener)

    async def wait(self, timeout: float) -> tuple[dict[str, list[StoredEvent]], bool] | None:
        """({channel: events}, overflowed) once something arrives, or None after `timeout`.
        Overflowed: the manager dropped events it could not queue; re-read the store."""
        listener = self.listener
        try:
            await asyncio.wait_for(listener.aevent.wait(), timeout)
        except TimeoutError:
            return None
        with self.manager.lock:
            items, overflow = listener.channel_items, listener.overflow
            listener.channel_items, listener.overflow = {}, False
            listener.aevent.clear()
        return {channel: [_event(i) for i in got] for channel, got in items.items()}, overflow


def current_id(channel: str) -> int:
    """The id of the newest stored event of `channel` (0 before the first)."""
    return int(get_storage().get_current_id(channel))


def events_after(channel: str, after: int, *, limit: int = REPLAY_BATCH) -> list | None:
    """Up to `limit` stored events of `channel` after id `after`, oldest first; None when
    `after` is unknown there (trimmed from the store, or never issued)."""
    try:
        return [_event(i) for i in get_storage().get_events(channel, after, limit=limit)]
    except EventDoesNotExist:
        return None


def all_events_after(channel: str, after: int) -> list | None:
    """Every stored event of `channel` after id `after` (in batches), or None as above."""
    out: list[StoredEvent] = []
    while True:
        batch = events_after(channel, after)
        if batch is None:
            return None
        out.extend(batch)
        if len(batch) < REPLAY_BATCH:
            return out
        after = batch[-1].id


def append(channel: str, event_type: str, data) -> int:
    """Store an event without telling any listener; its id."""
    return int(get_storage().append_event(channel, event_type, orjson.dumps(data).decode()).id)


def send(channel: str, event_type: str, data: dict) -> None:
    """Send an event to every listener of `channel` in every process (stored first when the
    channel manager calls the channel reliable)."""
    send_event(channel, event_type, data)


def put_answer(mailbox: str, data: dict) -> bool:
    """Leave one message in `mailbox` for another process; False when one is already there
    (the first one counts). A fixed id skips the library's per-channel counter: a mailbox
    holds a single message, and the table's (channel, eid) uniqueness enforces it."""
    try:
        with transaction.atomic():
            Event(channel=mailbox, type=_ANSWER, eid=1, data=orjson.dumps(data).decode()).save()
    except IntegrityError:
        return False
    return True


def take_answer(mailbox: str) -> dict | None:
    """The message left in `mailbox`, removed; None when there is none (or it is not JSON)."""
    stored = Event.objects.filter(channel=mailbox, type=_ANSWER)
    rows = list(stored.values_list("data", flat=True)[:1])
    if not rows:
        return None
    stored.delete()
    try:
        answer = orjson.loads(rows[0])
    except orjson.JSONDecodeError:
        return None
    return answer if isinstance(answer, dict) else None
