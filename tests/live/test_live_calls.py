"""Live legacy calls over real HTTP: a call that talks to the client while it runs answers its
POST with an SSE stream (2025-11-25 basic/transports §Sending Messages to the Server), and a
server-to-client request's answer, POSTed separately, reaches the waiting call even when a
different server process receives it (the answer goes through the database).
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest

from tests.processes import CONFORMANCE_SERVER

pytestmark = pytest.mark.live

FIXTURES = CONFORMANCE_SERVER
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


@pytest.fixture(scope="module")
def two_processes(live_site):
    return (
        live_site.spawn("calls-a", **FIXTURES),
        live_site.spawn("calls-b", **FIXTURES),
    )


def post(server, message: dict) -> http.client.HTTPResponse:
    url = urlsplit(server.mcp_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    conn.request("POST", url.path, body=json.dumps(message), headers=HEADERS)
    return conn.getresponse()


def sse_messages(response):
    """JSON messages of an SSE response, one at a time, as they arrive."""
    data = []
    while True:
        line = response.readline()
        if not line:
            return
        line = line.decode().rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            yield json.loads("\n".join(data))
            data = []


def call(name: str, arguments: dict, request_id: int = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def test_answer_posted_to_another_process_reaches_the_waiting_call(two_processes):
    """The sampling request goes out on process A's SSE response with a server-made id; the
    client's answer, POSTed to process B, completes the call on A."""
    a, b = two_processes
    response = post(a, call("test_sampling", {"prompt": "Dzień dobry"}))
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    messages = sse_messages(response)
    request = next(messages)
    assert request["method"] == "sampling/createMessage"
    assert request["params"]["maxTokens"] == 100
    assert isinstance(request["id"], str)
    answer = {
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {
            "role": "assistant",
            "content": {"type": "text", "text": "z procesu B"},
            "model": "m",
        },
    }
    accepted = post(b, answer)
    assert accepted.status == 202
    final = next(messages)
    assert final["id"] == 1
    assert final["result"]["content"][0]["text"] == "LLM response: z procesu B"


def test_client_error_answer_fails_the_call_cleanly(two_processes):
    """A client that refuses (a JSON-RPC error answer) gets a JSON-RPC error for the call, not
    a hang and not a traceback."""
    a, _ = two_processes
    messages = sse_messages(post(a, call("test_elicitation", {"message": "?"}, request_id=2)))
    request = next(messages)
    assert request["method"] == "elicitation/create"
    refusal = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "nie"}}
    assert post(a, refusal).status == 202
    final = next(messages)
    assert final["id"] == 2
    assert "nie" in final["error"]["message"]
    assert "Traceback" not in json.dumps(final)


def test_progress_notifications_stream_before_the_result(two_processes):
    """A progress token gets 0/100, 50/100 and 100/100 on the SSE response, then the result."""
    a, _ = two_processes
    message = call("test_tool_with_progress", {}, request_id=3)
    message["params"]["_meta"] = {"progressToken": "p-1"}
    frames = list(sse_messages(post(a, message)))
    progress = [
        f["params"]["progress"] for f in frames if f.get("method") == "notifications/progress"
    ]
    assert progress == [0, 50, 100]
    assert frames[-1]["id"] == 3 and "result" in frames[-1]


def test_a_call_with_nothing_to_say_is_plain_json(two_processes):
    """Without notifications or questions the answer stays application/json."""
    a, _ = two_processes
    response = post(a, call("test_simple_text", {}, request_id=4))
    assert response.getheader("Content-Type") == "application/json"
    assert json.loads(response.read())["result"]["content"][0]["type"] == "text"


def test_answer_to_an_unknown_request_is_accepted_and_ignored(two_processes):
    """A response whose id this server never issued is accepted (202) and changes nothing."""
    a, _ = two_processes
    stray = {"jsonrpc": "2.0", "id": "srv-" + "x" * 24, "result": {}}
    assert post(a, stray).status == 202
