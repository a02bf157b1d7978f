"""SSE polling (2025-11-25 basic/transports §Resumability and Redelivery, SEP-1699) over real
HTTP: a legacy call may close its POST's SSE stream mid-call after a priming event (an id, a
`retry:` field, empty data); the client reconnects with GET, its session id and that
`Last-Event-ID`, and gets the rest of that call's stream, result last, from any process.
Two uvicorn processes share one database and a private Redis; the conformance fixture
`test_reconnection` closes its stream at once and answers a moment later.
"""

from __future__ import annotations

import http.client
import json

import pytest

from tests.processes import CONFORMANCE_SERVER, HOST, MCP_PATH, Deployment, Redis, SseReader

pytestmark = pytest.mark.live

LEGACY = "2025-11-25"
CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "test_reconnection", "arguments": {}},
}


@pytest.fixture(scope="module")
def site():
    redis = Redis()
    deployment = None
    try:
        redis.start()
        deployment = Deployment(
            processes=2,
            redis_url=redis.url,
            name="mcppolling",
            settings={**CONFORMANCE_SERVER, "MCP_SSE_KEEPALIVE_SECONDS": "1"},
        )
        deployment.start()
        yield deployment
    finally:
        if deployment is not None:
            deployment.stop()
        redis.stop()


def _session(port: int) -> str:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    conn.request("POST", MCP_PATH, body=json.dumps(init), headers=headers)
    response = conn.getresponse()
    response.read()
    key = response.getheader("Mcp-Session-Id")
    headers |= {"Mcp-Session-Id": key, "MCP-Protocol-Version": LEGACY}
    conn.request(
        "POST",
        MCP_PATH,
        body=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        headers=headers,
    )
    conn.getresponse().read()
    conn.close()
    return key


def _events(reader: SseReader, timeout: float = 20.0) -> list[tuple[str, str | None]]:
    """(data, id) of every event until the stream ends (retry-only events skipped)."""
    assert reader.ended.wait(timeout), "the stream did not end"
    out = []
    while not reader.events.empty():
        _, data, event_id, _ = reader.events.get()
        if data or event_id:
            out.append((data, event_id))
    return out


def _closed_call(site, key: str) -> str:
    """POST the call; its stream must end after one priming event. Returns that event's id."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": key,
        "MCP-Protocol-Version": LEGACY,
    }
    post = SseReader(site.ports[0], MCP_PATH, method="POST", body=json.dumps(CALL), headers=headers)
    post.start()
    events = _events(post)
    assert post.status == 200 and post.response_headers["content-type"] == "text/event-stream"
    assert len(events) == 1, events
    data, event_id = events[0]
    assert data == "" and event_id, events
    return event_id


def _resume(site, key: str, last_event_id: str, index: int = 1) -> list:
    headers = {
        "Mcp-Session-Id": key,
        "MCP-Protocol-Version": LEGACY,
        "Last-Event-ID": last_event_id,
    }
    reader = SseReader(site.ports[index], MCP_PATH, headers=headers)
    reader.start()
    events = _events(reader)
    assert reader.status == 200
    return [json.loads(data) for data, _ in events if data]


def test_closed_call_stream_is_resumed_by_get_on_another_process(site):
    """A call that closed its POST stream after a priming event delivers its result on the
    session's GET with that Last-Event-ID, served by another process, and the GET ends there
    (2025-11-25 §Resumability: the server replays the messages after the last event id)."""
    key = _session(site.ports[0])
    primed = _closed_call(site, key)
    messages = _resume(site, key, primed)
    assert [m.get("id") for m in messages] == [7], messages
    assert messages[0]["result"]["content"][0]["text"] == "Reconnection test completed"


def test_call_stream_id_replays_nothing_to_another_session(site):
    """Last-Event-ID of one session's call stream gives another session nothing: a resumed
    stream carries only the messages of the stream the id belongs to (§Resumability: never
    messages of a different stream)."""
    owner, other = _session(site.ports[0]), _session(site.ports[0])
    primed = _closed_call(site, owner)
    assert _resume(site, other, primed, index=0) == []
    assert [m.get("id") for m in _resume(site, owner, primed)] == [7]
