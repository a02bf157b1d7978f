"""A legacy GET stream whose server process was killed (SIGKILL: no cleanup, the claim stays
in the session row with a 120 s lease) is given back to the reconnecting client within
seconds by another process on the same host (issue 13, item 11)."""

from __future__ import annotations

import http.client
import json
import time

import pytest

from tests.processes import HOST, MCP_PATH, Deployment, SseReader

pytestmark = pytest.mark.live

LEGACY = "2025-11-25"


@pytest.fixture(scope="module")
def site():
    deployment = Deployment(processes=2, name="streamcrash")
    try:
        deployment.start()
        yield deployment
    finally:
        deployment.stop()


def _session(port: int) -> str:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}}}  # fmt: skip
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("POST", MCP_PATH, json.dumps(init), {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.getheader("Mcp-Session-Id")
    finally:
        conn.close()


def _open(port: int, key: str) -> SseReader:
    reader = SseReader(
        port, MCP_PATH, headers={"Mcp-Session-Id": key, "MCP-Protocol-Version": LEGACY}
    )
    reader.start()
    reader.opened.wait(20)
    return reader


def test_reconnect_after_the_stream_process_was_killed_gets_the_stream(site):
    """While the owner runs, a second GET stream is 409; after SIGKILL of the owner, the
    client's reconnect to the other process is 200 with a live stream within 5 s."""
    key = _session(site.ports[0])
    first = _open(site.ports[0], key)
    assert first.status == 200
    first.next_event(timeout=20)  # the priming event: the claim is written
    second = _open(site.ports[1], key)
    assert second.status == 409
    second.close()

    site.processes[0].process.kill()
    site.processes[0].process.wait(10)
    first.close()
    killed = time.monotonic()
    reconnect = None
    while time.monotonic() - killed < 5:
        reconnect = _open(site.ports[1], key)
        if reconnect.status == 200:
            break
        reconnect.close()
        time.sleep(0.2)
    waited = time.monotonic() - killed
    try:
        assert reconnect is not None and reconnect.status == 200, "still 409 after 5 s"
        reconnect.next_event(timeout=20)  # a working stream: its priming event arrives
        print(f"stream back {waited:.2f}s after SIGKILL of its owner")
    finally:
        reconnect.close()
