"""Asking the client for input (mcp_endpoint/client_requests.py) and the conformance fixtures'
switch.

Modern era: multi round-trip requests (2026-07-28 basic/utilities/mrtr, SEP-2322): an
`input_required` result with `inputRequests` and a signed `requestState`, the retry with
`inputResponses`, and -32021 for a capability the client did not declare (2026-07-28
basic/index §Client Capabilities). The handlers here are registered for one test at a time
with `monkeypatch`, so the production tables stay untouched. The fixtures module must be loaded
only with `MCP_CONFORMANCE_FIXTURES=1`.
"""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

from mcp_endpoint import client_requests, registry
from mcp_endpoint.client_requests import ask, elicitation, list_roots, sampling
from mcp_endpoint.context import RequestContext
from mcp_endpoint.dispatcher import handle_payload
from tests.processes import ROOT

MODERN = "2026-07-28"
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ACCEPT_ALICE = {"action": "accept", "content": {"name": "Alice"}}


def two_rounds(arguments, ctx):
    first = ask(ctx, {"step1": elicitation("Name?", NAME_SCHEMA)})["step1"]
    second = ask(ctx, {"step2": sampling("Greet", 20)})["step2"]
    return registry.ToolResult(f"{first['content']['name']}: {second['content']['text']}")


def roots_tool(arguments, ctx):
    roots = ask(ctx, {"roots": list_roots()})["roots"]["roots"]
    return registry.ToolResult(",".join(r["uri"] for r in roots))


@pytest.fixture
def tools(monkeypatch):
    """Two test tools in the tool table for one test."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    for name, handler in (("two_rounds", two_rounds), ("roots_tool", roots_tool)):
        declared = registry.Tool(
            name, name, "test", schema, None, handler, {}, registry.compile_schema(schema)
        )
        monkeypatch.setitem(registry.TOOLS, name, declared)


def call(name, arguments=None, caps=ALL_CAPS, **extra):
    params = {
        "name": name,
        "arguments": arguments or {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": caps,
        },
        **extra,
    }
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    reply = handle_payload(orjson.dumps(message), RequestContext(transport="stdio"))
    return reply.status, reply.body


def test_first_call_returns_input_required_with_requests_and_state(tools):
    """A call that needs input answers resultType "input_required" with the open inputRequests
    and an opaque string requestState (SEP-2322 §InputRequiredResult)."""
    status, body = call("two_rounds")
    result = body["result"]
    assert status == 200
    assert result["resultType"] == "input_required"
    assert result["inputRequests"] == {"step1": elicitation("Name?", NAME_SCHEMA)}
    assert isinstance(result["requestState"], str) and result["requestState"]


def test_state_carries_earlier_answers_across_rounds(tools):
    """Each round's answers travel in the new requestState, so the last round needs only its
    own inputResponses (the server keeps nothing between requests)."""
    state = call("two_rounds")[1]["result"]["requestState"]
    second = call("two_rounds", inputResponses={"step1": ACCEPT_ALICE}, requestState=state)[1]
    assert second["result"]["resultType"] == "input_required"
    assert list(second["result"]["inputRequests"]) == ["step2"]
    assert second["result"]["requestState"] != state
    answer = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
    final = call(
        "two_rounds",
        inputResponses={"step2": answer},
        requestState=second["result"]["requestState"],
    )[1]
    assert final["result"]["resultType"] == "complete"
    assert final["result"]["content"][0]["text"] == "Alice: hi"


@pytest.mark.parametrize(
    "mangle",
    [lambda s: s + "-TAMPERED", lambda s: s[:-3] + "abc", lambda s: "forged:" + s],
    ids=["suffix", "signature", "prefix"],
)
def test_tampered_state_is_invalid_params(tools, mangle):
    """A requestState that fails its integrity check is rejected with -32602 and HTTP 400
    (SEP-2322: servers MUST reject state that fails verification)."""
    state = call("two_rounds")[1]["result"]["requestState"]
    status, body = call(
        "two_rounds", inputResponses={"step1": ACCEPT_ALICE}, requestState=mangle(state)
    )
    assert status == 400
    assert body["error"]["code"] == -32602


@pytest.mark.parametrize(
    "name,arguments",
    [("roots_tool", {}), ("two_rounds", {"n": 2})],
    ids=["other-tool", "other-arguments"],
)
def test_state_cannot_be_replayed_onto_another_call(tools, name, arguments):
    """The state is bound to the method, the tool name and the arguments it was issued for."""
    state = call("two_rounds", {"n": 1})[1]["result"]["requestState"]
    status, body = call(name, arguments, inputResponses={}, requestState=state)
    assert status == 400
    assert body["error"]["code"] == -32602
    assert "another request" in body["error"]["message"]


def test_expired_state_is_rejected(tools, monkeypatch):
    """A requestState older than its lifetime is refused like a tampered one."""
    state = call("two_rounds")[1]["result"]["requestState"]
    monkeypatch.setattr(client_requests, "REQUEST_STATE_MAX_AGE", -1)
    status, body = call("two_rounds", inputResponses={"step1": ACCEPT_ALICE}, requestState=state)
    assert (status, body["error"]["code"]) == (400, -32602)
    assert "expired" in body["error"]["message"]


def test_missing_capability_is_32021_with_required_capabilities(tools):
    """Input the client cannot give (capability not declared in _meta) is -32021 with
    data.requiredCapabilities as a ClientCapabilities object, HTTP 400."""
    status, body = call("roots_tool", caps={"sampling": {}})
    assert status == 400
    assert body["error"]["code"] == -32021
    assert body["error"]["data"] == {"requiredCapabilities": {"roots": {}}}


@pytest.mark.parametrize(
    "responses", [None, [], "x", {"step1": 12345}, {"step1": {"action": "maybe"}}]
)
def test_malformed_input_responses_are_invalid_params(tools, responses):
    """inputResponses that are not an object of well-formed results are a protocol error."""
    status, body = call("two_rounds", inputResponses=responses)
    assert (status, body["error"]["code"]) == (400, -32602)


def test_answers_without_state_and_extra_keys_are_accepted(tools):
    """The client may answer in its first call, and unknown keys are ignored (SEP-2322:
    servers SHOULD ignore information they do not recognize)."""
    status, body = call(
        "roots_tool", inputResponses={"roots": {"roots": [{"uri": "file:///a"}]}, "x": {}}
    )
    assert status == 200
    assert body["result"]["content"][0]["text"] == "file:///a"


def test_legacy_request_without_stream_cannot_ask():
    """In the legacy era a transport without a channel to the client refuses the request
    instead of waiting for an answer that can never come."""
    ctx = RequestContext(transport="http", era="legacy")
    with pytest.raises(client_requests.InvalidRequest):
        ask(ctx, {"roots": list_roots()})


def test_legacy_ask_goes_through_the_transport():
    """In the legacy era each question is one JSON-RPC request the transport sends."""
    sent = []

    def send_request(method, params):
        sent.append(method)
        return {"roots": [{"uri": "file:///r"}]}

    ctx = RequestContext(transport="stdio", era="legacy", send_request=send_request)
    assert ask(ctx, {"r": list_roots()}) == {"r": {"roots": [{"uri": "file:///r"}]}}
    assert sent == ["roots/list"]


# --- the fixtures switch ----------------------------------------------------------------------
def names(method: str, key: str, field: str) -> set[str]:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    ctx = RequestContext(transport="stdio")
    return {item[field] for item in handle_payload(orjson.dumps(message), ctx).body["result"][key]}


def test_without_the_setting_only_glossary_features_are_listed():
    """Production (no MCP_CONFORMANCE_FIXTURES) lists only the glossary's tools, prompts and
    templates; the fixtures module is never imported."""
    assert "mcp_endpoint.conformance_fixtures" not in sys.modules
    assert names("tools/list", "tools", "name") == {
        "search_term",
        "get_term",
        "list_terms",
        "search_articles",
        "get_article",
    }
    assert names("prompts/list", "prompts", "name") == {
        "explain_term",
        "compare_terms",
        "summarize_article",
    }
    assert names("resources/templates/list", "resourceTemplates", "uriTemplate") == {
        "glossary://terms/{slug}",
        "glossary://articles/{slug}",
    }
    assert not registry.RESOURCES


def test_with_the_setting_the_fixtures_are_listed_too():
    """MCP_CONFORMANCE_FIXTURES=1 adds the suite's fixtures beside the glossary features."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": method,
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            },
        }
        for i, method in enumerate(("tools/list", "prompts/list", "resources/templates/list"))
    ]
    env = {"MCP_CONFORMANCE_FIXTURES": "1", "MCP_PAGE_SIZE": "100", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio"],
        input=b"".join(orjson.dumps(line) + b"\n" for line in lines),
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=True,
    )
    tools, prompts, templates = (orjson.loads(out)["result"] for out in result.stdout.splitlines())
    tool_names = {t["name"] for t in tools["tools"]}
    assert {
        "search_term",
        "test_simple_text",
        "test_sampling",
        "json_schema_2020_12_tool",
    } <= tool_names
    assert {"explain_term", "test_simple_prompt", "test_input_required_result_prompt"} <= {
        p["name"] for p in prompts["prompts"]
    }
    assert "test://template/{id}/data" in {t["uriTemplate"] for t in templates["resourceTemplates"]}
