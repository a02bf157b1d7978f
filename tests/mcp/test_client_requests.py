"""Asking the client for input (mcp_endpoint/core/client_requests.py), and which server
carries the conformance suite's fixtures.

Modern era: multi round-trip requests (2026-07-28 basic/utilities/mrtr, SEP-2322): an
`input_required` result with `inputRequests` and a signed `requestState`, the retry with
`inputResponses`, and -32021 for a capability the client did not declare (2026-07-28
basic/index §Client Capabilities). The tools here belong to a small server built for these
tests, so the product's server stays untouched. The fixtures belong to the test suite's second
server (tests/mcp/conformance_server.py); the product package contains none of them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest

from mcp_endpoint.core import client_requests
from mcp_endpoint.core.client_requests import ask, elicitation, list_roots, sampling
from mcp_endpoint.core.context import RequestContext
from mcp_endpoint.core.dispatcher import Dispatcher
from mcp_endpoint.core.errors import InvalidRequest
from mcp_endpoint.core.registry import ToolResult
from mcp_endpoint.core.server import Server, get_server
from tests.mcp import conformance_server
from tests.processes import ROOT

MODERN = "2026-07-28"
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ACCEPT_ALICE = {"action": "accept", "content": {"name": "Alice"}}

asking = Server(name="asking")
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}


@asking.tool(name="two_rounds", title="two_rounds", description="test", input_schema=SCHEMA,
             output_schema=None)  # fmt: skip
def two_rounds(arguments, ctx):
    first = ask(ctx, {"step1": elicitation("Name?", NAME_SCHEMA)})["step1"]
    second = ask(ctx, {"step2": sampling("Greet", 20)})["step2"]
    return ToolResult(f"{first['content']['name']}: {second['content']['text']}")


@asking.tool(name="roots_tool", title="roots_tool", description="test", input_schema=SCHEMA,
             output_schema=None)  # fmt: skip
def roots_tool(arguments, ctx):
    roots = ask(ctx, {"roots": list_roots()})["roots"]["roots"]
    return ToolResult(",".join(r["uri"] for r in roots))


@pytest.fixture
def tools():
    """The small server's two tools (kept as a fixture name for the tests below)."""
    return asking


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
    reply = Dispatcher(asking).handle_payload(orjson.dumps(message), RequestContext("stdio"))
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
    with pytest.raises(InvalidRequest):
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


# --- which server carries the fixtures ---------------------------------------------------------
def names(server, method: str, key: str, field: str) -> set[str]:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    reply = Dispatcher(server).handle_payload(orjson.dumps(message), RequestContext("stdio"))
    return {item[field] for item in reply.body["result"][key]}


GLOSSARY_TOOLS = {"search_term", "get_term", "list_terms", "search_articles", "get_article"}
GLOSSARY_PROMPTS = {"explain_term", "compare_terms", "summarize_article"}
GLOSSARY_TEMPLATES = {"glossary://terms/{slug}", "glossary://articles/{slug}"}


def test_the_product_server_lists_only_glossary_features(settings):
    """The server the product serves (settings.MCP_SERVER) lists only the glossary's tools,
    prompts and templates, and no fixed resources."""
    settings.MCP_PAGE_SIZE = 100
    server = get_server()
    assert names(server, "tools/list", "tools", "name") == GLOSSARY_TOOLS
    assert names(server, "prompts/list", "prompts", "name") == GLOSSARY_PROMPTS
    templates = names(server, "resources/templates/list", "resourceTemplates", "uriTemplate")
    assert templates == GLOSSARY_TEMPLATES
    assert not server.resources


def test_the_conformance_server_adds_the_fixtures_beside_the_glossary(settings):
    """The test suite's second server lists the suite's fixtures beside the glossary features
    (what the live conformance runs serve with MCP_SERVER=tests.mcp.conformance_server.server)."""
    settings.MCP_PAGE_SIZE = 100
    server = conformance_server.server
    assert server is not get_server()
    tool_names = names(server, "tools/list", "tools", "name")
    assert GLOSSARY_TOOLS | {"test_simple_text", "test_sampling", "json_schema_2020_12_tool"} <= (
        tool_names
    )
    prompts = names(server, "prompts/list", "prompts", "name")
    assert GLOSSARY_PROMPTS | {"test_simple_prompt", "test_input_required_result_prompt"} <= (
        prompts
    )
    templates = names(server, "resources/templates/list", "resourceTemplates", "uriTemplate")
    assert "test://template/{id}/data" in templates
    assert not any(tool.cacheable for tool in conformance_server.fixtures.tools.values())


# Every name the suite's scenarios call, as declared on the conformance server.
FIXTURE_NAMES = sorted(
    {
        *conformance_server.fixtures.tools,
        *conformance_server.fixtures.prompts,
        *conformance_server.fixtures.resources,
        *conformance_server.fixtures.templates,
    }
)
# Everything outside tests/ that belongs to the checkout (not installed or generated files).
SKIPPED = {"tests", ".git", ".venv", ".cache", "staticfiles", "node_modules", ".ruff_cache",
           ".pytest_cache", "__pycache__", "screenshots"}  # fmt: skip
TEXT = {".py", ".html", ".js", ".css", ".md", ".json", ".txt", ".toml", ".yml", ".lua", ""}


def product_files():
    for directory, subdirectories, files in os.walk(ROOT):
        subdirectories[:] = [d for d in subdirectories if d not in SKIPPED]
        for name in files:
            path = Path(directory, name)
            if path.suffix in TEXT:
                yield path


def test_no_fixture_name_appears_in_the_product():
    """The product contains no conformance fixture: none of their names occurs in any file
    outside tests/ (the fixtures are a second server under tests/, chosen by a setting)."""
    pattern = re.compile("|".join(re.escape(name) for name in FIXTURE_NAMES))
    found = []
    for path in product_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {m[0]}" for m in pattern.finditer(text)]
    assert len(FIXTURE_NAMES) > 30
    assert not found, found
