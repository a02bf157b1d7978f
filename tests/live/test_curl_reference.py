"""The curl session of the reference article, replayed byte for byte against a live server.

The article (a walk through JSON-RPC and MCP on the wire) tells readers to debug the endpoint with
nothing but curl; every exchange it shows must therefore work against our server with our host in
the URL. Each request here is the exact byte string curl 7.88 puts on the wire for the article's
command line: request line, `Host`, `User-Agent: curl/…`, the default `Accept: */*` unless a `-H`
replaces it, the `-H` headers in their order, `Content-Length`, and the `-d` body unchanged (curl
sends a command-line `-d` string as is, newlines included). The JSON-RPC examples in the article's
text are sent the way it says every request should be sent (`Content-Type` and `Accept`).
No `MCP-Protocol-Version` header, so the server treats them as 2025-03-26 traffic (Streamable
HTTP, 2025-06-18+ "Protocol Version Header": assume 2025-03-26 when absent).
"""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from tests.processes import HOST, MCP_PATH, hit_slugs

pytestmark = pytest.mark.live

CURL_USER_AGENT = "curl/7.88.1"
JSON = ("Content-Type", "application/json")
ACCEPT_BOTH = ("Accept", "application/json, text/event-stream")


def curl_bytes(port: int, headers: list[tuple[str, str]], body: bytes) -> bytes:
    """What `curl -X POST http://127.0.0.1:PORT/wp-json/webflux/v1/mcp -H … -d BODY` sends.

    Checked against curl 7.88.1's own wire output: an `-H Accept` takes the place of the default
    `Accept: */*` and moves to the position of the `-H` options."""
    names = {name.lower() for name, _ in headers}
    lines = [f"POST {MCP_PATH} HTTP/1.1", f"Host: {HOST}:{port}", f"User-Agent: {CURL_USER_AGENT}"]
    if "accept" not in names:
        lines.append("Accept: */*")
    lines += [f"{name}: {value}" for name, value in headers]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.raw = response.read()

    @property
    def content_type(self) -> str:
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()

    def json(self) -> dict:
        """The JSON-RPC message, from a JSON body or from the `data:` lines of an SSE body
        (clients MUST accept either; Streamable HTTP, "Sending Messages to the Server" 5)."""
        text = self.raw.decode("utf-8")
        if self.content_type == "text/event-stream":
            messages = []
            for event in text.replace("\r\n", "\n").split("\n\n"):
                data = "\n".join(
                    line[5:].lstrip() for line in event.split("\n") if line.startswith("data:")
                )
                if data.strip():
                    messages.append(json.loads(data))
            responses = [m for m in messages if "result" in m or "error" in m]
            assert len(responses) == 1, f"expected exactly one response on the stream: {text}"
            return responses[0]
        return json.loads(text)

    def __repr__(self) -> str:
        return f"<{self.status} {self.content_type} {self.raw[:2000]!r}>"


def curl(live_site, headers: list[tuple[str, str]], body: str) -> Answer:
    payload = curl_bytes(live_site.port, headers, body.encode("utf-8"))
    with socket.create_connection((HOST, live_site.port), timeout=30) as sock:
        sock.sendall(payload)
        response = http.client.HTTPResponse(sock, method="POST")
        response.begin()
        return Answer(response)


def rpc_result(answer: Answer, request_id) -> dict:
    """A successful JSON-RPC 2.0 response to `request_id` (JSON-RPC 2.0 §5: result xor error)."""
    assert answer.status == 200, answer
    assert answer.content_type in {"application/json", "text/event-stream"}, answer
    message = answer.json()
    assert message.get("jsonrpc") == "2.0", message
    assert message.get("id") == request_id, message
    assert "error" not in message, message
    return message["result"]


def text_blocks(result: dict) -> str:
    return "\n".join(b["text"] for b in result.get("content", []) if b.get("type") == "text")


# --- Curl step 1: initialize --------------------------------------------------------------
CURL_INITIALIZE = """{
"jsonrpc": "2.0",
"id": 1,
"method": "initialize",
"params": {
"protocolVersion": "2025-03-26",
"capabilities": {},
"clientInfo": {"name": "curl-test", "version": "1.0"}
}
}"""


def test_curl_initialize_returns_server_info(live_site):
    """Curl step 1: initialize answers 200 with serverInfo (name, version) and echoes the
    requested known version 2025-03-26 (Lifecycle, "Version Negotiation")."""
    result = rpc_result(curl(live_site, [JSON, ACCEPT_BOTH], CURL_INITIALIZE), 1)
    assert result["protocolVersion"] == "2025-03-26"
    assert result["serverInfo"]["name"]
    assert result["serverInfo"]["version"]


def test_curl_initialize_declares_the_three_primitives(live_site):
    """Curl step 1: the capabilities of initialize name tools, resources and prompts, which the
    session goes on to use (Lifecycle, "Capability Negotiation")."""
    result = rpc_result(curl(live_site, [JSON, ACCEPT_BOTH], CURL_INITIALIZE), 1)
    assert {"tools", "resources", "prompts"} <= set(result["capabilities"])


def test_curl_initialize_answers_plain_json(live_site):
    """Curl step 1: the stateless endpoint answers a request with one application/json object,
    which `curl` prints as is (Streamable HTTP, "Sending Messages to the Server" 5)."""
    answer = curl(live_site, [JSON, ACCEPT_BOTH], CURL_INITIALIZE)
    assert answer.status == 200, answer
    assert answer.content_type == "application/json", answer


# --- Curl step 2: tools/list with only Content-Type (so curl sends Accept: */*) ----------------
CURL_TOOLS_LIST = """{
"jsonrpc": "2.0",
"id": 2,
"method": "tools/list"
}"""
GLOSSARY_TOOLS = {"search_term", "get_term", "list_terms", "search_articles", "get_article"}


def test_curl_tools_list_with_default_accept(live_site):
    """Curl step 2: without `-H Accept` curl sends `Accept: */*`, which must be accepted, and
    tools/list lists glossary tools, each with a description and an object inputSchema
    (Tools, "Listing Tools"; the issue: "a missing Accept or */* is fine")."""
    result = rpc_result(curl(live_site, [JSON], CURL_TOOLS_LIST), 2)
    names = [tool["name"] for tool in result["tools"]]
    assert "search_term" in names
    assert set(names) <= GLOSSARY_TOOLS
    if "nextCursor" not in result:
        assert set(names) == GLOSSARY_TOOLS
    for tool in result["tools"]:
        assert tool["description"], tool
        assert tool["inputSchema"]["type"] == "object", tool


# --- Curl step 3: tools/call search_term "context engineering" --------------------------------
CURL_SEARCH_CONTEXT_ENGINEERING = """{
"jsonrpc": "2.0",
"id": 3,
"method": "tools/call",
"params": {
"name": "search_term",
"arguments": {"query": "context engineering"}
}
}"""


def test_curl_search_term_finds_context_engineering_first(live_site):
    """Curl step 3: search_term "context engineering" succeeds and ranks the term
    `context-engineering` first, in structuredContent and in the readable text block
    (Tools, "Structured Content": also return the serialized result as text)."""
    result = rpc_result(curl(live_site, [JSON], CURL_SEARCH_CONTEXT_ENGINEERING), 3)
    assert result.get("isError") is not True, result
    assert hit_slugs(result["structuredContent"])[0] == "context-engineering"
    assert "context-engineering" in text_blocks(result)


# --- JSON-RPC examples in the article's text ---------------------------------------------------
TEXT_GET_TERM = """{
"jsonrpc": "2.0",
"id": 42,
"method": "tools/call",
"params": {
"name": "get_term",
"arguments": { "slug": "agent-readiness" }
}
}"""

TEXT_INITIALIZE = """{
"jsonrpc": "2.0",
"id": 1,
"method": "initialize",
"params": {
"protocolVersion": "2025-03-26",
"capabilities": {
"roots": { "listChanged": true },
"sampling": {}
},
"clientInfo": {
"name": "claude-desktop",
"version": "1.5.0"
}
}
}"""

TEXT_INITIALIZED = """{
"jsonrpc": "2.0",
"method": "notifications/initialized"
}"""

TEXT_TOOLS_LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
TEXT_SEARCH_MCP = (
    '{"jsonrpc":"2.0","id":3,"method":"tools/call",'
    '"params":{"name":"search_term","arguments":{"query":"MCP"}}}'
)
TEXT_READ_MEMO = (
    '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"memo://notes/projekt"}}'
)


def test_text_get_term_agent_readiness(live_site):
    """The request example (id 42): get_term agent-readiness answers the same id with a text
    content block and the term in structuredContent (JSON-RPC 2.0 §5; Tools, "Tool Result")."""
    result = rpc_result(curl(live_site, [JSON, ACCEPT_BOTH], TEXT_GET_TERM), 42)
    assert result.get("isError") is not True, result
    assert result["content"][0]["type"] == "text"
    assert result["content"][0]["text"].strip()
    assert "agent-readiness" in json.dumps(result["structuredContent"])


def test_text_initialize_with_client_capabilities(live_site):
    """Step 1 of the session in the text: a client declaring roots and sampling gets an
    initialize result for the version it asked for (Lifecycle, "Initialization")."""
    result = rpc_result(curl(live_site, [JSON, ACCEPT_BOTH], TEXT_INITIALIZE), 1)
    assert result["protocolVersion"] == "2025-03-26"
    assert result["serverInfo"]["name"]


def test_text_initialized_notification_is_accepted_with_202(live_site):
    """Step 3 of the session: notifications/initialized has no id, so there is no JSON-RPC
    answer: 202 Accepted with no body (Streamable HTTP, "Sending Messages to the Server" 4)."""
    answer = curl(live_site, [JSON, ACCEPT_BOTH], TEXT_INITIALIZED)
    assert answer.status == 202, answer
    assert answer.raw == b"", answer


def test_text_tools_list_one_line(live_site):
    """Step 4, first example: the one-line tools/list request lists search_term."""
    result = rpc_result(curl(live_site, [JSON, ACCEPT_BOTH], TEXT_TOOLS_LIST), 2)
    assert "search_term" in [tool["name"] for tool in result["tools"]]


def test_text_search_term_mcp_ranks_mcp_first(live_site):
    """Step 4, second example: search_term "MCP" ranks the term `mcp` first."""
    result = rpc_result(curl(live_site, [JSON, ACCEPT_BOTH], TEXT_SEARCH_MCP), 3)
    assert result.get("isError") is not True, result
    assert hit_slugs(result["structuredContent"])[0] == "mcp"


def test_text_read_foreign_resource_is_resource_not_found(live_site):
    """Step 4, third example: `memo://notes/projekt` is another server's resource; reading it
    here is a JSON-RPC resource-not-found error naming the URI (-32002 in the legacy revisions,
    -32602 from 2026-07-28; Resources, "Error Handling"), never an HTTP 500."""
    answer = curl(live_site, [JSON, ACCEPT_BOTH], TEXT_READ_MEMO)
    assert answer.status == 200, answer
    assert answer.content_type in {"application/json", "text/event-stream"}, answer
    message = answer.json()
    assert message.get("jsonrpc") == "2.0", message
    assert message.get("id") == 4, message
    assert "result" not in message, message
    assert message["error"]["code"] in {-32002, -32602}, message
    assert message["error"]["message"], message
    assert "memo://notes/projekt" in json.dumps(message["error"]), message


def test_curl_bytes_match_what_curl_sends():
    """The replay helper produces curl 7.88.1's exact bytes (captured from a real
    `curl -X POST … -H 'Content-Type: application/json' -H 'Accept: …' -d …`)."""
    body = b'{\n"jsonrpc": "2.0",\n"id": 2,\n"method": "tools/list"\n}'
    assert curl_bytes(56007, [JSON, ACCEPT_BOTH], body) == (
        b"POST /wp-json/webflux/v1/mcp HTTP/1.1\r\nHost: 127.0.0.1:56007\r\n"
        b"User-Agent: curl/7.88.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nContent-Length: 53\r\n\r\n" + body
    )
