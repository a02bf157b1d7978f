"""Bad input never reaches SQL as a fault (STYLE §16): a NUL character (U+0000, which
PostgreSQL text cannot hold: psycopg raises DataError) in any string of any method's params,
tool arguments or prompt arguments is refused at the edge with an actionable message, never
HTTP 500 or -32603. JSON-RPC 2.0 §5.1: bad params are -32602; 2025-11-25 server/tools §Error
Handling: tool input a model can fix is an `isError` result naming the problem.

The table covers every request method the product's server registers (a test fails when a
method is added without a row), every tool and every prompt argument; it runs on both
databases (on SQLite NUL would not fail, but the rule is the same).
"""

from __future__ import annotations

import pytest

from mcp_endpoint.core.server import get_server
from tests.mcp.helpers import meta, modern_headers, post

NUL = "mcp\u0000"
TEMPLATE = "glossary://terms/{slug}"

# One row per request method: params with a NUL in a string the method reads.
METHODS = {
    "initialize": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": NUL, "version": "1"},
    },
    "ping": {"_meta": {"note": NUL}},
    "logging/setLevel": {"level": "info", "_meta": {"x": NUL}},
    "tools/list": {"cursor": NUL},
    "tools/call": {"name": "get_term", "arguments": {"slug": NUL}},
    "resources/list": {"cursor": NUL},
    "resources/templates/list": {"cursor": NUL},
    "resources/read": {"uri": "glossary://terms/" + NUL},
    "resources/subscribe": {"uri": "glossary://terms/" + NUL},
    "resources/unsubscribe": {"uri": "glossary://terms/" + NUL},
    "prompts/list": {"cursor": NUL},
    "prompts/get": {"name": "explain_term", "arguments": {"slug": NUL}},
    "completion/complete": {
        "ref": {"type": "ref/resource", "uri": TEMPLATE},
        "argument": {"name": "slug", "value": NUL},
    },
    "server/discover": {"_meta": {"x": NUL}},
    "subscriptions/listen": {
        "notifications": {"resourceSubscriptions": ["glossary://terms/" + NUL]}
    },
}
MODERN_ONLY = {"subscriptions/listen"}


def _tool_cases():
    cases = []
    for name, tool in get_server().tools.items():
        for prop, schema in tool.input_schema.get("properties", {}).items():
            if schema.get("type") == "string":
                cases.append(pytest.param(name, {prop: NUL}, id=f"{name}.{prop}"))
    return cases


def _prompt_cases():
    cases = []
    for name, prompt in get_server().prompts.items():
        required = {a.name: "mcp" for a in prompt.arguments if a.required}
        for argument in prompt.arguments:
            cases.append(
                pytest.param(name, {**required, argument.name: NUL}, id=f"{name}.{argument.name}")
            )
    return cases


def _legacy(client, method, params):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return post(client, body, headers={"MCP-Protocol-Version": "2025-11-25"})


def _modern(client, method, params):
    params = {**params, "_meta": {**meta(), **params.get("_meta", {})}}
    name = params.get("name", params.get("uri"))
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    headers = modern_headers(method, name)
    headers["Accept"] = "application/json, text/event-stream"
    return post(client, body, headers=headers)


def _refused(response) -> str:
    """The actionable message of a refused request: a -32602 error or an isError result."""
    assert response.status_code < 500, response.content
    body = response.json()
    if "error" in body:
        assert body["error"]["code"] == -32602, body
        message = body["error"]["message"]
    else:
        result = body["result"]
        assert result.get("isError") is True, body
        message = result["content"][0]["text"]
    assert "NUL" in message and "remove it" in message, message
    return message


def test_every_request_method_has_a_row():
    """A method registered later gets a row here before it ships."""
    requests = {name for name, m in get_server().methods.items() if not m.notification}
    assert requests == set(METHODS)


@pytest.mark.parametrize("method", sorted(set(METHODS) - MODERN_ONLY), ids=lambda m: f"legacy {m}")
def test_nul_in_params_is_refused_in_the_legacy_era(client, content, method):
    """Legacy era: every method answers a NUL in its params with -32602 (HTTP 200, as the
    legacy binding answers JSON-RPC errors) or, for tool arguments, an isError result."""
    message = _refused(_legacy(client, method, METHODS[method]))
    assert "params" in message or "arguments" not in METHODS[method]


@pytest.mark.parametrize(
    "method",
    sorted(m for m in METHODS if "modern" in get_server().methods[m].eras),
    ids=lambda m: f"2026-07-28 {m}",
)
def test_nul_in_params_is_refused_in_the_modern_era(client, content, method):
    """2026-07-28: the same refusals; a -32602 is HTTP 400 there, never 500."""
    response = _modern(client, method, METHODS[method])
    _refused(response)
    if "error" in response.json():
        assert response.status_code == 400


@pytest.mark.parametrize(("tool", "arguments"), _tool_cases())
def test_nul_in_any_tool_argument_is_an_actionable_tool_error(client, content, tool, arguments):
    """Every string argument of every tool: an isError result naming the argument."""
    response = _legacy(client, "tools/call", {"name": tool, "arguments": arguments})
    message = _refused(response)
    assert next(iter(arguments)) in message


@pytest.mark.parametrize(("prompt", "arguments"), _prompt_cases())
def test_nul_in_any_prompt_argument_is_refused(client, content, prompt, arguments):
    """Every argument of every prompt: -32602 naming it."""
    _refused(_legacy(client, "prompts/get", {"name": prompt, "arguments": arguments}))


def test_nul_in_an_object_key_is_refused(client, content):
    """Keys are strings too."""
    _refused(_legacy(client, "tools/call", {"name": "get_term", "arguments": {"sl\u0000ug": "x"}}))


@pytest.mark.parametrize("name", [{}, [], 5, None], ids=repr)
def test_prompts_get_with_a_name_that_is_not_a_string_is_invalid_params(client, content, name):
    """`prompts/get` with `"name": {}` is -32602 (the name is validated before it is read)."""
    response = _legacy(client, "prompts/get", {"name": name})
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602
