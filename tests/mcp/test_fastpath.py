"""The WSGI replay of cached MCP answers (mcp_endpoint/transports/fastpath.py): a repeat is answered
without Django with exactly the bytes the full path sends, costs one query (a miss costs no
more than the full path), follows edits,
and requests the full path must see (Origin, sessions, cache off) never take it."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config import wsgi
from tests.factories import make_term
from tests.wsgi_client import MCP, call

MODERN = "2026-07-28"


def get_term(slug: str, rid, *, era: str = "legacy") -> tuple[bytes, dict]:
    params: dict = {"name": "get_term", "arguments": {"slug": slug}}
    headers = {"accept": "application/json, text/event-stream"}
    if era == "modern":
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        headers.update(
            {"mcp_protocol_version": MODERN, "mcp_method": "tools/call", "mcp_name": "get_term"}
        )
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return json.dumps(body).encode(), headers


@pytest.fixture
def django_seen(monkeypatch):
    """Records the requests that reached the Django MCP handler."""
    seen = []
    handler = wsgi.mcp_application
    monkeypatch.setattr(wsgi, "mcp_application", lambda env, sr: seen.append(1) or handler(env, sr))
    return seen


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_repeat_is_replayed_with_the_same_bytes(django_seen, era):
    """A repeat of a call the full path answered from its cache (another id) skips Django,
    costs one query and gets the status, headers and body the full path sent, with its own
    id."""
    make_term(name="Serwer MCP", slug="serwer-mcp")
    body, headers = get_term("serwer-mcp", 1, era=era)
    call(MCP, method="POST", body=body, **headers)  # first sight: computed only
    first = call(MCP, method="POST", body=body, **headers)  # computed, cached, learned
    assert len(django_seen) == 2
    body, headers = get_term("serwer-mcp", "abc", era=era)
    with CaptureQueriesContext(connection) as queries:
        replayed = call(MCP, method="POST", body=body, **headers)
    assert len(django_seen) == 2 and len(queries) == 1
    status, response_headers, content = replayed
    assert status == 200 and response_headers == first[1] | {"content-length": str(len(content))}
    expected = json.loads(first[2]) | {"id": "abc"}
    assert json.loads(content) == expected
    assert content == json.dumps(expected, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.mark.django_db(transaction=True)
def test_a_miss_reads_the_content_state_once(django_seen):
    """A request seen for the first time goes straight to Django and costs get_term's one
    query (no state read: no reply can be stored for it yet); its second sight, which the
    fast path cannot answer yet, costs what the full path costs with the cache (the state
    read, then the query): the state the fast path read is handed on, not read again."""
    make_term(name="Serwer MCP", slug="serwer-mcp")
    body, headers = get_term("serwer-mcp", 1)
    for expected in (1, 1 + 1):
        with CaptureQueriesContext(connection) as queries:
            status, _headers, _content = call(MCP, method="POST", body=body, **headers)
        assert status == 200
        assert len(queries) == expected, [q["sql"] for q in queries]
    assert len(django_seen) == 2


@pytest.mark.django_db(transaction=True)
def test_every_request_sends_one_pair_of_request_signals(django_seen):
    """A first sight, a miss (the replay read the state, then Django answered) and a replayed
    hit are each one request to Django's request_started/request_finished receivers
    (connection age and error handling): a miss used to send two pairs."""
    from django.core import signals

    make_term(name="Serwer MCP", slug="serwer-mcp")
    sent = []

    def started(**kwargs):
        sent.append("started")

    def finished(**kwargs):
        sent.append("finished")

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        for rid in (1, 2, 3):  # a first sight, a miss, then its replay
            body, headers = get_term("serwer-mcp", rid)
            assert call(MCP, method="POST", body=body, **headers)[0] == 200
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert len(django_seen) == 2
    assert sent == ["started", "finished"] * 3


@pytest.mark.django_db(transaction=True)
def test_an_edit_reaches_the_next_replay(django_seen):
    """An edit changes the content state, so the stored reply is not used again."""
    term = make_term(name="Serwer MCP", slug="serwer-mcp", short_definition="Stara.")
    body, headers = get_term("serwer-mcp", 1)
    for _ in range(3):
        call(MCP, method="POST", body=body, **headers)
    term.short_definition = "Nowa."
    term.save()
    _status, _headers, content = call(MCP, method="POST", body=body, **headers)
    assert json.loads(content)["result"]["structuredContent"]["shortDefinition"] == "Nowa."


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "headers", [{"origin": "https://evil.example"}, {"mcp_session_id": "nieznana"}]
)
def test_origin_and_session_requests_take_the_full_path(django_seen, headers):
    """Origin checks and sessions live in the view: such requests always reach Django."""
    make_term(name="Serwer MCP", slug="serwer-mcp")
    body, base = get_term("serwer-mcp", 1)
    statuses = {call(MCP, method="POST", body=body, **base, **headers)[0] for _ in range(3)}
    assert len(django_seen) == 3 and statuses <= {403, 404}


@pytest.mark.django_db(transaction=True)
def test_no_replay_when_the_result_cache_is_off(django_seen, settings):
    """MCP_RESULT_CACHE_SIZE=0 (bench/mcp.py --no-cache) sends every call through Django."""
    settings.MCP_RESULT_CACHE_SIZE = 0
    make_term(name="Serwer MCP", slug="serwer-mcp")
    body, headers = get_term("serwer-mcp", 1)
    for _ in range(3):
        assert call(MCP, method="POST", body=body, **headers)[0] == 200
    assert len(django_seen) == 3
