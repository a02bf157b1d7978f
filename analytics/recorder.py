"""Recording lookups off the hot path: the request's thread only appends an event to an
in-process buffer (a `collections.deque`, whose appends are atomic); a background thread
turns events into `Lookup` rows (identical lookups of a batch: one row with their count) and
writes them in one statement per batch (COPY on PostgreSQL, bulk_create on SQLite), every
`ANALYTICS_FLUSH_SECONDS` or as soon as `ANALYTICS_BATCH_SIZE` events wait. So a call costs no
SQL query and no JSON work for analytics; reading the client out of a session and folding
the query happen in the flush.

Failure never reaches a caller: the observer hook (`Server.observed`) logs an exception of
`record()`, and a failed flush is logged and its batch dropped (analytics are not worth a
retry loop that could grow without bound). The buffer is bounded too
(`ANALYTICS_BUFFER_SIZE`; the oldest events go first when a database outage outlasts it).
Each process has its own buffer and thread, started on the first event (after a fork the
child starts its own); `flush()` can also be called directly (tests, the shutdown hook).
"""

from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
import time
from datetime import UTC, datetime

from django.conf import settings
from django.db import connection

from glossary.search import normalize_query
from mcp_endpoint.core import protocol as p

from .models import Lookup, Source

logger = logging.getLogger("analytics")

RECORDED_METHODS = frozenset({p.TOOLS_CALL, p.RESOURCES_READ})
# What makes two lookups the same row (all but the time, the latency and the count).
GROUP_FIELDS = ("source", "name", "query", "normalized", "results", "top_result", "top_kind",
                "found", "error", "era", "protocol_version", "transport", "client_name",
                "client_version")  # fmt: skip
# A row's columns in the order `_write` builds them (the fields are named as their columns).
COLUMNS = (*GROUP_FIELDS, "count", "at", "latency_ms")
# The argument a tool's query text is read from, first present wins.
QUERY_ARGUMENTS = ("query", "slug", "term", "name", "uri", "category", "letter")
# Structured lists whose length is a list or search tool's result count.
RESULT_LISTS = ("results", "terms", "items")
# What the glossary's tools and resources return (the top result's kind).
TERM_TOOLS = frozenset({"search_term", "get_term", "list_terms"})
ARTICLE_TOOLS = frozenset({"search_articles", "get_article"})
RESOURCE_KINDS = (("glossary://terms/", "term"), ("glossary://articles/", "article"))


class Recorder:
    def __init__(self, *, batch_size: int, flush_seconds: float, buffer_size: int) -> None:
        self.batch_size, self.flush_seconds = batch_size, flush_seconds
        self.buffer: collections.deque = collections.deque(maxlen=buffer_size)
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._stopping = False
        self.written = 0  # events written by this process so far

    # --- the hot path ---------------------------------------------------------------------
    def record(self, event) -> None:
        """The MCP server's observer (`Server.observe`): keep the event for the next flush."""
        if event.method not in RECORDED_METHODS:
            return
        self._keep((Source.MCP, time.time(), event))

    def record_search(self, sender, *, query, results, seconds, **kwargs) -> None:
        """`glossary.signals.site_searched`: a reader's query in the search box."""
        self._keep((Source.SITE, time.time(), (query, results, seconds)))

    def _keep(self, item) -> None:
        self.buffer.append(item)
        if self._pid != os.getpid():
            self._start()
        # is_set() first: setting an Event takes a lock, and a burst may outrun the thread.
        if len(self.buffer) >= self.batch_size and not self._wake.is_set():
            self._wake.set()

    # --- the background side --------------------------------------------------------------
    def _start(self) -> None:
        with self._lock:
            if self._pid == os.getpid() or self.flush_seconds <= 0:
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="analytics-flush", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stopping:
            busy = self._wake.wait(self.flush_seconds)
            self._wake.clear()
            # The thread's own connection only (never a request's, which may be inside a
            # transaction): drop it if a database error left it unusable.
            if connection.connection is not None and connection.errors_occurred:
                connection.close()
            self.flush()
            # Under steady traffic (woken by a full batch) the connection is kept: opening
            # one per flush costs more server CPU than everything else analytics does
            # (docs/benchmarks.md). When the timer woke it, traffic is light: give the
            # connection back (a pool slot, or a socket), as the next flush may never come.
            if not busy:
                connection.close()

    def stop(self) -> None:
        """End the background thread after one last flush (tests; the process's exit)."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._thread, self._pid, self._stopping = None, None, False

    def flush(self) -> int:
        """Write what waits (the buffer, in batches); returns the number of events written."""
        written = 0
        groups: dict[tuple, list] = {}  # fields -> [first time, count, total seconds]
        # Only what waits now: events arriving meanwhile go to the next flush. Draining "while
        # the buffer is not empty" under steady traffic turned the thread into a loop of tiny
        # batches, one INSERT per few events (docs/benchmarks.md).
        remaining = len(self.buffer)
        while remaining > 0:
            batch = []
            while len(batch) < min(self.batch_size, remaining):
                try:  # another thread (the exit hook, a test) may drain it at the same time
                    batch.append(self.buffer.popleft())
                except IndexError:
                    break
            remaining -= len(batch)
            if not batch:
                break
            # Identical lookups of one batch (same query, outcome, client…: an agent repeating
            # a call) become one row with their count and mean latency.
            for source, at, item in batch:
                described = self._describe(source, item)
                if described is not None:
                    _add(groups, described[0], at, 1, described[1])
            written += self._write(groups)
            groups = {}
        return written + self._write(groups)

    @staticmethod
    def _describe(source, item):
        try:
            return describe(source, item)
        except Exception:
            logger.exception("Could not read an analytics event; skipped")
            return None

    def _write(self, groups: dict) -> int:
        if not groups:
            return 0
        rows = [
            (*fields, count, datetime.fromtimestamp(at, UTC), round(total / count * 1000, 3))
            for fields, (at, count, total) in groups.items()
        ]
        events = sum(groups_count for _at, groups_count, _total in groups.values())
        try:
            insert_rows(rows)
        except Exception:
            logger.exception("Could not write %d analytics events; dropped", events)
            return 0
        self.written += events
        return events


def insert_rows(rows: list[tuple]) -> None:
    """Lookup rows as tuples in `COLUMNS` order, in one statement."""
    if connection.vendor == "postgresql":
        # Imported here: the import module (process pools, the parsers) is not worth loading
        # into every server process at start-up for one helper the flush thread uses.
        from glossary.importing import copy_rows

        # COPY: the rows go through psycopg's C encoder as they are; bulk_create builds a
        # model per row and dumps every column as an array (Django 5.2 inserts by UNNEST),
        # a visible share of the server's CPU per distinct MCP call (docs/benchmarks.md).
        copy_rows(Lookup._meta.db_table, COLUMNS, rows)
    else:
        Lookup.objects.bulk_create([Lookup(**dict(zip(COLUMNS, row, strict=True))) for row in rows])


def _add(groups: dict, fields: tuple, at: float, count: int, seconds: float) -> None:
    group = groups.get(fields)
    if group is None:
        groups[fields] = [at, count, seconds]
    else:
        group[1] += count
        group[2] += seconds


# --- events as rows (in the flush, never on the request's thread) ---------------------------
def _text(value, limit: int) -> str:
    return value.replace("\x00", "")[:limit] if isinstance(value, str) else ""


def _client(ctx, params: dict | None) -> dict:
    """clientInfo: the request's `_meta` (2026-07-28), else what `initialize` stored in the
    session (legacy HTTP: the session row; stdio: the session object)."""
    info = getattr(ctx, "client_info", None)
    session = getattr(ctx, "session", None)
    if not isinstance(info, dict) and session is not None:
        info = getattr(session, "client_info", None)
        if not isinstance(info, dict):
            info = getattr(getattr(session, "row", None), "client_info", None)
    if not isinstance(info, dict) and params:
        meta = params.get(p.META)
        info = meta.get(p.META_CLIENT_INFO) if isinstance(meta, dict) else None
    return info if isinstance(info, dict) else {}


def describe(source: str, item) -> tuple[tuple, float] | None:
    """(the lookup's GROUP_FIELDS values, its seconds), or None for a call not recorded."""
    if source == Source.SITE:
        query, results, seconds = item
        return _search_fields(query, results), seconds
    event, response = item, item.response or {}
    ctx = event.ctx
    fields = _mcp_fields(
        event.method, event.params or {}, response.get("result"), "error" in response,
        getattr(ctx, "protocol_version", None) or "", getattr(ctx, "era", None),
        getattr(ctx, "transport", "") or "", _client(ctx, event.params),
    )  # fmt: skip
    return (fields, event.seconds) if fields else None


def _mcp_fields(method, params, result, error, version, era, transport, client) -> tuple | None:
    if method not in RECORDED_METHODS:
        return None
    era = era or (p.MODERN if version in p.MODERN_VERSIONS else p.LEGACY)
    if method == p.TOOLS_CALL:
        name = params.get("name", "")
        query, count, top, failed = _tool_outcome(params.get("arguments") or {}, result)
        kind = "term" if name in TERM_TOOLS else "article" if name in ARTICLE_TOOLS else ""
    else:
        name = method
        query = params.get("uri", "")
        contents = (result or {}).get("contents") or []
        count, top, failed, kind = len(contents), "", False, ""
        for prefix, uri_kind in RESOURCE_KINDS:
            if contents and query.startswith(prefix):
                top, kind = query.removeprefix(prefix), uri_kind
    error = error or failed
    query = _text(query, 250)
    return (
        Source.MCP.value, _text(name, 128), query, normalize_query(query),
        count if not error else 0, _text(top, 250), kind if top else "",
        bool(count) and not error, error, era, _text(version, 20), _text(transport, 8),
        _text(client.get("name"), 100), _text(client.get("version"), 50),
    )  # fmt: skip


def _tool_outcome(arguments: dict, result: dict | None) -> tuple[str, int, str, bool]:
    """(query text, result count, top result, isError) of a tools/call result."""
    query = next((arguments[k] for k in QUERY_ARGUMENTS if isinstance(arguments.get(k), str)), "")
    if not isinstance(result, dict):
        return query, 0, "", True
    if result.get("isError"):
        return query, 0, "", True
    data = result.get("structuredContent")
    if isinstance(data, dict):
        if data.get("weak") is True:  # guesses (a search is never empty): still a miss
            return query, 0, "", False
        if isinstance(data.get("slug"), str):  # one entry (get_term, get_article)
            return query, 1, data["slug"], False
        for key in RESULT_LISTS:
            items = data.get(key)
            if isinstance(items, list):
                first = items[0] if items else {}
                top = first.get("slug", "") if isinstance(first, dict) else ""
                return query, len(items), top, False
        return query, 1, "", False
    return query, 1, "", False


def _search_fields(query: str, results) -> tuple:
    top = results.exact or (results.terms[0] if results.terms else None)
    if top is None and results.articles:
        top = results.articles[0]
    count = len(results.terms) + len(results.articles)
    query = _text(query, 250)
    return (
        Source.SITE.value, "search", query, normalize_query(query), count,
        _text(top.slug, 250) if top else "", top.kind if top else "", count > 0, False,
        "", "", "http", "", "",
    )  # fmt: skip


recorder = Recorder(
    batch_size=settings.ANALYTICS_BATCH_SIZE,
    flush_seconds=settings.ANALYTICS_FLUSH_SECONDS,
    buffer_size=settings.ANALYTICS_BUFFER_SIZE,
)


@atexit.register
def _flush_at_exit() -> None:
    if recorder.buffer and recorder._pid == os.getpid():
        try:
            recorder.flush()
        except Exception:  # the interpreter is going away; nothing left to tell
            logger.exception("Could not flush analytics at exit")
