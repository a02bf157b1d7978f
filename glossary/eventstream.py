"""django-eventstream plumbing for live reader pages: storage, channel rules and the stream view.

An open stream must not hold a database connection (or a pool slot) for its whole life: the
library reads its event store from the stream's own thread, and Django only returns that
thread's connection when the request ends, which for a stream is when the reader leaves. The
storage below gives the connection back after every read, and the view closes the one its
own request used (session, user) before the stream starts.

Streams need an ASGI server (`make run` uses uvicorn): under WSGI without a GRIP proxy the
library's async stream blocks a worker forever.

Across processes without Redis: every event that matters is a row in the library's Event
table (all content and MCP channels are stored), so the table is the bus. A process with an
open stream runs one `StoreWatcher` thread that hands rows written by other processes (an
import, `manage.py shell`, a WSGI worker's admin save, another stream process) to this
process's listeners: on PostgreSQL it sleeps in `LISTEN` and every stored event sends a
`NOTIFY` (delivered at commit; the payload is empty, the rows are read by id, so the 8,000-byte
payload limit never matters); on SQLite it polls the table's primary key every
`EVENTSTREAM_POLL_SECONDS`. With `EVENTSTREAM_REDIS` the library's Redis fan-out does this
instead, and no watcher starts.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import re
import sqlite3
import threading
import time

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connection, connections
from django.http import HttpResponse
from django.views.decorators.http import require_GET
from django_eventstream.channelmanager import ChannelManagerBase
from django_eventstream.event import Event
from django_eventstream.models import Event as EventRow
from django_eventstream.storage import DjangoModelStorage
from django_eventstream.views import events, get_listener_manager

from .events import BULK_CHANNEL, entry_channel

# Channels a browser may open: content channels only (anything else is private plumbing,
# e.g. the MCP endpoint's per-session control channels).
_PUBLIC_CHANNEL = re.compile(r"(?:term|article)-[a-z0-9-]{1,250}|glossary|glossary-bulk")
# Stored (replayable) channels. An MCP call's stream that the server closed mid-call
# (mcp_endpoint/transports/streams.py) is stored too, so the client can resume it with
# Last-Event-ID on any process; a session's control channel (subscription changes, its end) is
# stored so that it reaches a stream in another process without Redis. Neither is public.
_RELIABLE_CHANNEL = re.compile(
    rf"{_PUBLIC_CHANNEL.pattern}|mcp-call-[0-9a-f]{{64}}-[0-9a-f]{{16}}|mcp-session-[0-9a-f]{{32}}"
)
NOTIFY_CHANNEL = "slownik_events"


def release_connection() -> None:
    """Return this thread's connection (to the pool, if there is one) unless a transaction
    needs it."""
    if not connection.in_atomic_block:
        connection.close()


class ReleasingDjangoModelStorage(DjangoModelStorage):
    """DjangoModelStorage that does not keep a stream's connection between reads, and that
    is the cross-process bus without Redis: `append_event` wakes the other processes'
    watchers (NOTIFY on PostgreSQL), `watch()` starts this process's watcher."""

    def append_event(self, channel, event_type, data):
        event = super().append_event(channel, event_type, data)
        _sent_here.add(channel, event.id)
        if connection.vendor == "postgresql" and not _redis():
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, '')", [NOTIFY_CHANNEL])
        return event

    def watch(self) -> None:
        """Make sure this process hears events other processes store (before the caller reads
        its stream's starting position: nothing stored from now on is missed)."""
        if not _redis():
            StoreWatcher.ensure()

    def get_events(self, channel, last_id, limit=100):
        try:
            return super().get_events(channel, last_id, limit=limit)
        finally:
            release_connection()

    def get_current_id(self, channel):
        try:
            return super().get_current_id(channel)
        finally:
            release_connection()


class GlossaryChannelManager(ChannelManagerBase):
    """Channels come from the view (never from the query string); content is public."""

    def get_channels_for_request(self, request, view_kwargs):
        return set(view_kwargs.get("channels", ()))

    def can_read_channel(self, user, channel):
        return bool(_PUBLIC_CHANNEL.fullmatch(channel))

    def is_channel_reliable(self, channel):
        return bool(_RELIABLE_CHANNEL.fullmatch(channel))


@require_GET
def entry_events(request, kind: str, slug: str):
    """The event stream a term or article page listens to: its own channel, plus bulk
    changes (a large import) that may include it.

    Only an ASGI server can hold the stream open (deploy/nginx routes it to one). Under a WSGI
    server (`runserver`, the test live server, a worker the stream was not routed away from)
    Django gathers the endless stream into a list before sending a byte: the worker thread
    was held for ever and the page got nothing (a live-server thread so held once kept the
    test process from exiting). There the page is told at once that nothing streams here:
    204, which EventSource treats as "no stream" instead of waiting."""
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)
    ReleasingDjangoModelStorage().watch()
    response = events(request, channels=[entry_channel(kind, slug), BULK_CHANNEL])
    release_connection()
    return response


# --- the bus without Redis ---------------------------------------------------------------------
logger = logging.getLogger(__name__)


def _redis() -> bool:
    return bool(getattr(settings, "EVENTSTREAM_REDIS", None))


class _SentHere:
    """(channel, id) of the events this process stored lately: the library already queued
    them for this process's listeners, so the watcher must not queue them twice."""

    def __init__(self, size: int = 10_000) -> None:
        self.lock = threading.Lock()
        self.order: collections.deque = collections.deque(maxlen=size)
        self.keys: set = set()

    def add(self, channel: str, event_id) -> None:
        with self.lock:
            if len(self.order) == self.order.maxlen:
                self.keys.discard(self.order[0])
            key = (channel, int(event_id))
            self.order.append(key)
            self.keys.add(key)

    def pop(self, channel: str, event_id: int) -> bool:
        with self.lock:
            key = (channel, event_id)
            if key in self.keys:
                self.keys.discard(key)
                return True
            return False


_sent_here = _SentHere()


class StoreWatcher(threading.Thread):
    """One daemon thread per process (started by the first stream) that queues rows other
    processes added to the Event table for this process's listeners. It uses a database
    connection of its own outside Django's (a stream process's pool stays for requests);
    when the database goes away it retries every few seconds and catches up by id after."""

    _instance: StoreWatcher | None = None
    _lock = threading.Lock()
    BATCH = 500
    RETRY_SECONDS = 2.0
    # PostgreSQL: a re-read even without a NOTIFY this often (one lost across a reconnect).
    LISTEN_TIMEOUT = 5.0

    @classmethod
    def ensure(cls) -> None:
        with cls._lock:
            instance = cls._instance
            if instance is not None and instance.pid == os.getpid() and instance.is_alive():
                return
            instance = cls(connections["default"].settings_dict)
            try:
                instance.connect()  # the starting id is read before any stream reads its own
            except Exception:  # the database is away: the thread connects when it is back
                logger.warning("Live-update watcher cannot reach the database", exc_info=True)
                instance._close()
            instance.start()
            cls._instance = instance

    @classmethod
    def shutdown(cls) -> None:
        """Stop this process's watcher and close its connection (the test suite does, before
        it drops its test database)."""
        with cls._lock:
            instance, cls._instance = cls._instance, None
        if instance is None or not instance.is_alive():
            return
        instance.stopping.set()
        if instance.postgres:  # wake it from LISTEN
            import psycopg

            with psycopg.connect(**instance._params(), autocommit=True) as conn:
                conn.execute(f"NOTIFY {NOTIFY_CHANNEL}")
        instance.join(10)

    def __init__(self, settings_dict: dict) -> None:
        super().__init__(name="slownik-store-watcher", daemon=True)
        self.stopping = threading.Event()
        self.pid = os.getpid()
        self.db = settings_dict
        self.postgres = settings_dict["ENGINE"] == "django.db.backends.postgresql"
        self.table = EventRow._meta.db_table
        self.conn = None
        self.last: int | None = None
        self.poll = settings.EVENTSTREAM_POLL_SECONDS

    def connect(self) -> None:
        if self.postgres:
            import psycopg

            self.conn = psycopg.connect(**self._params(), autocommit=True)
            self.conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
        else:
            self.conn = sqlite3.connect(
                self.db["NAME"], timeout=20, isolation_level=None, check_same_thread=False
            )
        if self.last is None:
            # The table name is the library's model's, never input.
            sql = f"SELECT COALESCE(MAX(id), 0) FROM {self.table}"  # noqa: S608
            self.last = self._execute(sql)[0][0]

    def _params(self) -> dict:
        db = self.db
        return {
            "dbname": db["NAME"],
            "user": db.get("USER") or None,
            "password": db.get("PASSWORD") or None,
            "host": db.get("HOST") or None,
            "port": db.get("PORT") or None,
        }

    def _execute(self, sql: str, params=()):
        if self.postgres:
            return self.conn.execute(sql.replace("?", "%s"), params).fetchall()
        return self.conn.execute(sql, params).fetchall()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                if self.conn is None:
                    self.connect()
                self._wait()
                if self.stopping.is_set():
                    break
                self._deliver()
            except Exception:  # the database restarts or is away: retry, catch up by id
                logger.warning("Live-update watcher lost its database; retrying", exc_info=True)
                self._close()
                self.stopping.wait(self.RETRY_SECONDS)
        self._close()

    def _wait(self) -> None:
        if self.postgres:
            for _notify in self.conn.notifies(timeout=self.LISTEN_TIMEOUT, stop_after=1):
                pass
        else:
            time.sleep(self.poll)

    def _deliver(self) -> None:
        manager = get_listener_manager()
        while True:
            rows = self._execute(
                f"SELECT id, channel, type, eid, data FROM {self.table} "  # noqa: S608
                "WHERE id > ? ORDER BY id LIMIT ?",
                (self.last, self.BATCH),
            )
            for row_id, channel, event_type, eid, data in rows:
                self.last = row_id
                if _sent_here.pop(channel, eid):
                    continue
                try:
                    payload = json.loads(data)  # the library stores its JSON text as JSON
                except ValueError:
                    continue
                manager.add_to_queues(channel, Event(channel, event_type, payload, id=eid))
            if len(rows) < self.BATCH:
                return

    def _close(self) -> None:
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:  # noqa: S110  (already broken)
            pass
        self.conn = None
