"""Recording agents' lookups and site searches (analytics/recorder.py): what a row says, that a
call costs no query for it, that a failing recorder never fails a call, that calls the
result cache answers count, and that the background flush writes what many threads recorded."""

import json
import logging
import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from analytics import recorder as recorder_module
from analytics.models import Lookup, Source
from analytics.recorder import Recorder, recorder
from glossary.search import Hit, SearchResults
from mcp_endpoint.core.server import get_server
from tests.factories import make_term
from tests.wsgi_client import MCP, call

MCP_URL = "/wp-json/webflux/v1/mcp"
MODERN = "2026-07-28"
CLIENT = {"name": "test-agent", "version": "1.2.3"}


def _modern(client, method, params):
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": CLIENT,
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    headers = {
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Mcp-Name": params.get("name", params.get("uri", "")),
    }
    return client.post(MCP_URL, data=json.dumps(body), content_type="application/json",
                       headers=headers)  # fmt: skip


def _legacy(client, method, params, headers=None):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    headers = {"MCP-Protocol-Version": "2025-11-25", **(headers or {})}
    return client.post(
        MCP_URL, data=json.dumps(body), content_type="application/json", headers=headers
    )


@pytest.fixture
def terms(db):
    return [
        make_term("Serwer MCP", slug="serwer-mcp", short_definition="Program z narzędziami."),
        make_term("SSE", short_definition="Server-Sent Events."),
    ]


def test_a_miss_is_recorded_with_what_the_agent_asked(client, terms):
    """get_term with an unknown slug: one row, the slug as the query, no results, not
    found, the era, protocol version and the client the request's _meta named."""
    response = _modern(client, "tools/call", {"name": "get_term", "arguments": {"slug": "mpc"}})
    assert response.json()["result"]["isError"] is True
    assert recorder.flush() == 1
    row = Lookup.objects.get()
    assert (row.source, row.name, row.query, row.normalized) == (
        Source.MCP,
        "get_term",
        "mpc",
        "mpc",
    )
    assert (row.results, row.found, row.error, row.top_result) == (0, False, True, "")
    assert (row.era, row.protocol_version, row.transport) == ("modern", MODERN, "http")
    assert (row.client_name, row.client_version) == ("test-agent", "1.2.3")
    assert row.latency_ms > 0


def test_a_search_records_its_count_and_top_result(client, terms):
    """search_term: the query text, how many terms it returned and the first one's slug."""
    _modern(client, "tools/call", {"name": "search_term", "arguments": {"query": "Serwer MCP"}})
    recorder.flush()
    row = Lookup.objects.get()
    assert row.query == "Serwer MCP" and row.normalized == "serwer mcp"
    assert row.results >= 1 and row.found and row.top_result == "serwer-mcp"
    assert row.top_kind == "term"


def test_an_empty_search_is_a_miss(client, terms):
    """A search with no result is recorded as not found (not as an error)."""
    _legacy(client, "tools/call", {"name": "search_term", "arguments": {"query": "kwantowy tost"}})
    recorder.flush()
    row = Lookup.objects.get()
    assert (row.results, row.found, row.error) == (0, False, False)
    assert row.era == "legacy" and row.client_name == ""


def test_an_answer_of_guesses_is_a_miss(client, terms):
    """A search that found only the closest terms (marked weak: never empty) is recorded as
    the miss it is, like an empty one, so the misses report still lists it."""
    arguments = {"query": "blorf serwerowość"}
    response = _legacy(client, "tools/call", {"name": "search_term", "arguments": arguments})
    answer = response.json()["result"]["structuredContent"]
    assert answer["weak"] is True and answer["results"]
    recorder.flush()
    row = Lookup.objects.get()
    assert (row.results, row.found, row.error, row.top_result) == (0, False, False, "")


def test_resource_reads_are_recorded(client, terms):
    """resources/read: the URI as the query; a term's URI counts as a request for the term."""
    _modern(client, "resources/read", {"uri": "glossary://terms/sse"})
    _modern(client, "resources/read", {"uri": "glossary://terms/nie-ma"})
    recorder.flush()
    hit, miss = Lookup.objects.order_by("id")
    assert (hit.name, hit.query, hit.found, hit.top_result, hit.top_kind) == (
        "resources/read", "glossary://terms/sse", True, "sse", "term")  # fmt: skip
    assert (miss.found, miss.error) == (False, True)


def test_identical_lookups_of_a_batch_share_a_row(client, terms):
    """Repeats of one lookup in one write batch are one row with their count and mean
    latency; another query or another client is another row."""
    for _ in range(4):
        _modern(client, "tools/call", {"name": "get_term", "arguments": {"slug": "sse"}})
    _modern(client, "tools/call", {"name": "get_term", "arguments": {"slug": "serwer-mcp"}})
    _legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": "sse"}})
    assert recorder.flush() == 6
    rows = sorted(Lookup.objects.values_list("query", "client_name", "count"))
    assert rows == [("serwer-mcp", "test-agent", 1), ("sse", "", 1), ("sse", "test-agent", 4)]
    assert Lookup.objects.get(count=4).latency_ms > 0


def test_a_flush_writes_only_what_waited_when_it_began(client, terms, monkeypatch):
    """Events recorded while a flush writes wait for the next flush: under steady traffic the
    thread must write full batches, never loop over one INSERT per few events."""
    for slug in ("sse", "serwer-mcp"):
        _legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": slug}})
    writes = []
    original = recorder_module.insert_rows

    def write_and_record_more(rows):
        writes.append(len(rows))
        # A request thread records during the write.
        _legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": "sse"}})
        return original(rows)

    monkeypatch.setattr(recorder_module, "insert_rows", write_and_record_more)
    assert recorder.flush() == 2
    assert writes == [2] and len(recorder.buffer) == 1


def test_other_methods_are_not_recorded(client, terms):
    """tools/list, ping and the like are not lookups."""
    _legacy(client, "tools/list", {})
    _legacy(client, "ping", {})
    assert recorder.flush() == 0


def test_legacy_session_client_comes_from_initialize(client, terms):
    """Over a legacy session the client is the one its initialize announced."""
    agent = {"name": "legacy-agent", "version": "9"}
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": agent}
    init = _legacy(client, "initialize", params)
    session = init["Mcp-Session-Id"]
    _legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": "sse"}},
            headers={"Mcp-Session-Id": session})  # fmt: skip
    recorder.flush()
    row = Lookup.objects.get()
    assert (row.client_name, row.client_version, row.found) == ("legacy-agent", "9", True)


def test_recording_costs_no_query(client, terms, django_assert_num_queries):
    """A recorded call runs exactly the queries it runs without analytics (the recorder only
    appends to its buffer)."""
    server = get_server()
    params = {"name": "get_term", "arguments": {"slug": "sse"}}
    observers = list(server.observers)
    with CaptureQueriesContext(connection) as without:
        server.observers.clear()
        try:
            _legacy(client, "tools/call", params | {"arguments": {"slug": "serwer-mcp"}})
        finally:
            server.observers[:] = observers
    with django_assert_num_queries(len(without)):
        _legacy(client, "tools/call", params)
    assert len(recorder.buffer) == 1


def test_a_failing_recorder_never_fails_the_call(client, terms, monkeypatch, caplog):
    """If recording raises, the answer still goes out and the failure is logged."""

    class Broken:
        def append(self, item):
            raise RuntimeError("buffer is broken")

        def __len__(self):
            return 0

        def clear(self):
            pass

    monkeypatch.setattr(recorder, "buffer", Broken())
    with caplog.at_level(logging.ERROR, logger="mcp_endpoint"):
        response = _legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": "sse"}})
    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"]["slug"] == "sse"
    assert "MCP observer" in caplog.text and "buffer is broken" in caplog.text


def test_a_failing_flush_is_logged_and_dropped(client, terms, monkeypatch, caplog):
    """A database error while writing is logged; the batch is dropped, nothing is raised."""
    _legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": "sse"}})

    def fail(*args, **kwargs):
        raise RuntimeError("database is gone")

    monkeypatch.setattr(recorder_module, "insert_rows", fail)
    with caplog.at_level(logging.ERROR, logger="analytics"):
        assert recorder.flush() == 0
    assert "Could not write 1 analytics events" in caplog.text
    assert not recorder.buffer


@pytest.mark.django_db(transaction=True)
def test_calls_the_result_cache_answers_are_recorded(monkeypatch):
    """Every call through the production WSGI entry is recorded, those the result cache
    answers like the first."""
    make_term("Serwer MCP", slug="serwer-mcp")
    for rid in (1, 2, 3, 4):
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": {"name": "get_term", "arguments": {"slug": "serwer-mcp"}}}  # fmt: skip
        status, _, _ = call(MCP, method="POST", body=json.dumps(body).encode(),
                            accept="application/json")  # fmt: skip
        assert status == 200
    assert len(recorder.buffer) == 4
    assert recorder.flush() == 4
    fields = ("name", "query", "found", "era", "protocol_version", "count")
    rows = list(Lookup.objects.values_list(*fields))
    assert rows == [("get_term", "serwer-mcp", True, "legacy", "2025-03-26", 4)]


def test_site_searches_are_recorded(client, terms):
    """The search page records the reader's query, the count and the top result."""
    client.get("/szukaj/", {"q": "Serwer MCP"})
    client.get("/szukaj/", {"q": "zupa pomidorowa"})
    client.get("/szukaj/", {"q": ""})  # no query: nothing searched
    assert recorder.flush() == 2
    hit, miss = Lookup.objects.filter(source=Source.SITE).order_by("id")
    assert (hit.name, hit.found, hit.top_result, hit.top_kind) == (
        "search",
        True,
        "serwer-mcp",
        "term",
    )
    assert (miss.query, miss.found, miss.results, miss.client_name) == (
        "zupa pomidorowa",
        False,
        0,
        "",
    )


def _results(text):
    hit = Hit(kind="term", id=1, slug="x", title="X", summary="", score=1.0)
    return SearchResults(query=text, terms=[hit])


@pytest.mark.django_db(transaction=True)
def test_the_background_thread_flushes_what_many_threads_record():
    """Events recorded from several threads at once are all written by the recorder's own
    thread, in batches, within its interval."""
    own = Recorder(batch_size=25, flush_seconds=0.05, buffer_size=10_000)
    per_thread, threads = 100, 4

    def work(n):
        for i in range(per_thread):
            text = f"t{n}-{i}"
            own.record_search(None, query=text, results=_results(text), seconds=0.001)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        # Polling the table itself would read while the thread writes (SQLite's shared-cache
        # test database locks the table): wait for the recorder's own count instead.
        deadline = time.monotonic() + 20
        while own.written < per_thread * threads and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        own.stop()
    assert Lookup.objects.count() == per_thread * threads
    assert Lookup.objects.values("query").distinct().count() == per_thread * threads
    assert own._thread is None and not own.buffer


@pytest.mark.django_db(transaction=True)
def test_rows_are_written_with_every_column_on_either_database():
    """The flush writes each lookup's columns by name (COPY on PostgreSQL, bulk_create on
    SQLite): every column but the id is one of them, and the row reads back as recorded."""
    columns = {f.column for f in Lookup._meta.concrete_fields} - {Lookup._meta.pk.column}
    assert set(recorder_module.COLUMNS) == columns
    own = Recorder(batch_size=10, flush_seconds=0, buffer_size=10)
    own.record_search(None, query="Zażółć gęślą", results=_results("x"), seconds=0.0125)
    assert own.flush() == 1
    row = Lookup.objects.get()
    assert (row.query, row.normalized, row.results, row.top_result, row.count) == (
        "Zażółć gęślą", "zazolc gesla", 1, "x", 1,
    )  # fmt: skip
    assert row.latency_ms == 12.5 and row.at.tzinfo is not None
