"""The django-eventstream seam (mcp_endpoint/transports/eventstore.py): what the MCP streams,
live calls and answers rely on, checked against the installed library, so an upgrade that
changes its listener manager, its storage or its Event table fails here, by name.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from django_eventstream.models import Event

from mcp_endpoint.transports import eventstore

# A channel no pattern of glossary.eventstream.GlossaryChannelManager stores: sending on it
# only wakes listeners, which is all the listener tests need. (Sessions' control channels are
# stored, so that they reach a stream in another process without Redis.)
CONTROL = "mcp-unstored-0123456789abcdef0123456789abcdef"
# A call stream's channel is stored (reliable) and never public.
CALL = "mcp-call-" + "a" * 64 + "-" + "b" * 16


def _listen(channels, send, timeout=5.0, *, before_waiting=False):
    """Open a Feed in an event loop, run `send()` from another thread (or, with
    `before_waiting`, in full before the feed waits), return what `wait` gave back."""

    async def main():
        feed = eventstore.Feed(*channels)
        feed.open()
        try:
            if before_waiting:
                send()
                return await feed.wait(timeout)
            thread = threading.Thread(target=send)
            thread.start()
            got = await feed.wait(timeout)
            thread.join()
            return got
        finally:
            feed.close()

    return asyncio.run(main())


def test_a_feed_is_woken_by_an_event_on_its_channel():
    """`send` wakes a listener of the channel with the event, its type and decoded data."""
    got = _listen([CONTROL], lambda: eventstore.send(CONTROL, "session", {"ended": True}))
    assert got is not None, "the listener manager no longer wakes Listener.aevent"
    items, overflow = got
    assert overflow is False
    [event] = items[CONTROL]
    assert (event.type, event.data, event.id) == ("session", {"ended": True}, None)


def test_a_feed_hears_nothing_from_other_channels():
    """Events on a channel the feed does not follow leave it asleep until its timeout."""
    other = CONTROL.replace("0123", "ffff")
    got = _listen([CONTROL], lambda: eventstore.send(other, "session", {}), timeout=0.3)
    assert got is None


def test_a_burst_beyond_the_queue_is_reported_as_overflow():
    """More events arrive than the manager queues per listener before the stream reads them:
    the feed says it overflowed (the streams then re-read the store)."""

    def burst():
        for n in range(50):
            eventstore.send(CONTROL, "session", {"n": n})

    items, overflow = _listen([CONTROL], burst, before_waiting=True)
    delivered = len(items.get(CONTROL, []))
    assert overflow is True
    assert 1 <= delivered < 50


@pytest.mark.django_db(transaction=True)
def test_stored_channels_replay_after_an_id():
    """append/send on a stored channel give increasing ids; events_after returns the later
    ones in order, decoded; an id the store never issued is None (the client starts over)."""
    opened = eventstore.append(CALL, "open", None)
    eventstore.send(CALL, "message", {"method": "notifications/progress"})
    eventstore.send(CALL, "message", {"id": 1, "result": {}})
    assert eventstore.current_id(CALL) == opened + 2
    replay = eventstore.events_after(CALL, opened)
    assert [(e.id, e.type) for e in replay] == [(opened + 1, "message"), (opened + 2, "message")]
    assert replay[-1].data == {"id": 1, "result": {}}
    assert eventstore.all_events_after(CALL, opened) == replay
    assert eventstore.events_after(CALL, opened + 99) is None
    assert eventstore.events_after("mcp-call-" + "c" * 64 + "-" + "d" * 16, 5) is None


@pytest.mark.django_db(transaction=True)
def test_a_mailbox_holds_exactly_one_message():
    """put_answer leaves one message another process can take; a second one is refused by
    the table's (channel, eid) uniqueness; taking empties the mailbox."""
    assert {f.name for f in Event._meta.fields} >= {"channel", "type", "data", "eid"}
    assert eventstore.put_answer("mcp-answer-srv-x", {"id": "srv-x", "result": {"a": 1}})
    assert not eventstore.put_answer("mcp-answer-srv-x", {"id": "srv-x", "result": {"a": 2}})
    assert eventstore.take_answer("mcp-answer-srv-x") == {"id": "srv-x", "result": {"a": 1}}
    assert eventstore.take_answer("mcp-answer-srv-x") is None


@pytest.mark.postgres  # SQLite's in-memory test database is never closed
@pytest.mark.django_db(transaction=True)
def test_reads_give_the_connection_back():
    """A stream's reads hold no database connection afterwards (glossary.eventstream's
    storage and release_connection)."""
    from django.db import connection

    eventstore.current_id(CALL)
    assert connection.connection is None
    eventstore.events_after(CALL, 0)
    assert connection.connection is None
