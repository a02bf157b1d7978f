"""Live updates across processes with no Redis running (issue 13, item 10): an edit made in a
separate process (`manage.py shell`, as an import or another worker would) reaches a legacy
session's GET stream, a 2026-07-28 `subscriptions/listen` stream and a reader page's event
stream, each on another server process, within 2 s. On PostgreSQL the event table's NOTIFY
wakes the stream processes; on SQLite they poll the table (glossary/eventstream.py). Both
passes of `make test` run this module."""

from __future__ import annotations

import http.client
import json
import re
import time

import pytest

from tests.processes import HOST, MCP_PATH, Deployment, SseReader

pytestmark = pytest.mark.live

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
TERM = "zdarzenie-bez-redisa"
URI = f"glossary://terms/{TERM}"
CREATE = (
    "from glossary.models import Term; "
    f"Term.objects.create(name='Zdarzenie bez Redisa', slug='{TERM}', status='published', "
    "short_definition='Zmiana widziana przez inne procesy.')"
)
EDIT = (
    "from glossary.models import Term; import time\n"
    f"t = Term.objects.get(slug='{TERM}')\n"
    "print(time.time())\n"
    "t.body = f'Wersja {time.time()}'; t.save()"
)


@pytest.fixture(scope="module")
def site():
    """Two server processes on one database, and no REDIS_URL (Deployment drops it)."""
    deployment = Deployment(processes=2, name="noredis")
    try:
        deployment.start()
        deployment.shell(CREATE)
        assert "REDIS_URL" not in deployment.env
        yield deployment
    finally:
        deployment.stop()


def _post(port, body, headers):
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("POST", MCP_PATH, json.dumps(body), {"Content-Type": "application/json",
                                                            **headers})  # fmt: skip
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def _legacy_stream(port) -> SseReader:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}  # fmt: skip
    response, _ = _post(port, init, {})
    key = response.getheader("Mcp-Session-Id")
    headers = {"Mcp-Session-Id": key, "MCP-Protocol-Version": LEGACY}
    _post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    subscribe = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                 "params": {"uri": URI}}  # fmt: skip
    response, data = _post(port, subscribe, headers)
    assert response.status == 200 and json.loads(data)["result"] == {}, data
    reader = SseReader(port, MCP_PATH, headers=headers)
    reader.start()
    reader.opened.wait(20)
    assert reader.status == 200
    reader.next_event(timeout=20)  # priming event: the stream is listening
    return reader


def _listen_stream(port) -> SseReader:
    body = {"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": [URI]},
                       "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}  # fmt: skip
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "subscriptions/listen"}  # fmt: skip
    reader = SseReader(port, MCP_PATH, method="POST", body=json.dumps(body), headers=headers)
    reader.start()
    reader.opened.wait(20)
    assert reader.status == 200, reader.status
    _, data, _, _ = reader.next_event(timeout=20)
    assert json.loads(data)["method"] == "notifications/subscriptions/acknowledged"
    return reader


def _page_stream(port) -> SseReader:
    reader = SseReader(port, f"/slownik/{TERM}/zdarzenia/")
    reader.start()
    reader.opened.wait(20)
    assert reader.status == 200
    reader.next_event("stream-open", timeout=20)
    return reader


def _next_message(reader: SseReader, timeout: float) -> tuple[dict, float]:
    while True:
        _, data, _, arrived = reader.next_event(timeout=timeout)
        if data:
            return json.loads(data), arrived


def test_an_edit_in_another_process_reaches_every_stream_within_2_s(site):
    """Legacy GET stream (process 0), listen stream (process 1), page stream (process 1):
    each gets the shell's edit, and each within 2 s of the save."""
    legacy = _legacy_stream(site.ports[0])
    modern = _listen_stream(site.ports[1])
    page = _page_stream(site.ports[1])
    try:
        out = site.shell(EDIT)
        saved = float(re.findall(r"^\d{9,}\.\d+$", out, re.M)[0])

        message, legacy_at = _next_message(legacy, 20)
        assert message["method"] == "notifications/resources/updated"
        assert message["params"] == {"uri": URI}

        message, modern_at = _next_message(modern, 20)
        assert message["method"] == "notifications/resources/updated"
        assert message["params"]["uri"] == URI

        _, data, _, page_at = page.next_event("updated", timeout=20)
        assert json.loads(data)["slug"] == TERM

        latencies = {"legacy": legacy_at - saved, "listen": modern_at - saved,
                     "page": page_at - saved}  # fmt: skip
        print(f"{site.database.vendor}: save → event " + ", ".join(
            f"{name} {value * 1000:.0f} ms" for name, value in latencies.items()))  # fmt: skip
        assert all(value < 2 for value in latencies.values()), latencies
    finally:
        for reader in (legacy, modern, page):
            reader.close()
    time.sleep(0.1)
