"""Params are validated before anything reads them (STYLE §16): a wrongly-shaped params
object is -32602 with a message naming the method and the param, on every method, in both
eras, over HTTP (also with an SSE-accepting client, the live-call path) and over stdio;
never HTTP 500 or -32603, whatever a cache key, the live-call choice or a mirrored header
would have read first.

JSON-RPC 2.0 §4 / 2025-11-25 basic/index §Requests: params, when present, is an object. The
table is derived from each method's own params schema (a value of the wrong type for every
declared param, nested ones included, and every required param left out), so a method added
later is covered the day it is registered; the named cases below are the ones seen in the
wild. A params value that is not an object at all is not a Request object: -32600, also
tested here.
"""

from __future__ import annotations

import io

import orjson
import pytest

from mcp_endpoint.core import protocol as p
from mcp_endpoint.core.server import get_server
from mcp_endpoint.transports.calls import LIVE_METHODS
from mcp_endpoint.transports.stdio import serve
from tests.mcp import conformance_server
from tests.mcp.helpers import meta, post

WRONG = {
    "string": [{}, 5],
    "object": [[], "x"],
    "array": [5, {}],
    "integer": ["x"],
    "number": ["x"],
    "boolean": ["x"],
}


def _wrong_values(schema: dict) -> list:
    kind = schema.get("type")
    if isinstance(kind, list):  # a union: a value none of them admits
        return [{}] if "object" not in kind else [[]]
    if "enum" in schema:
        return [5, {}]
    return WRONG.get(kind, [])


def bad_params(schema: dict, prefix: str = "") -> list[tuple[str, dict]]:
    """(the param named in the error, params with that one param wrongly shaped) for every
    declared param, one level into objects, plus each required param missing."""
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    valid = {name: _example(properties[name]) for name in required}
    cases = []
    for name, sub in properties.items():
        where = f"{prefix}{name}"
        for value in _wrong_values(sub):
            cases.append((where, {**valid, name: value}))
        if sub.get("type") == "object" and sub.get("properties"):
            for inner, params in bad_params(sub, f"{where}."):
                cases.append((inner, {**valid, name: params}))
    for name in required:
        cases.append((f"{prefix}{name}", {k: v for k, v in valid.items() if k != name}))
    return cases


def _example(schema: dict):
    """A valid value for a schema, deep enough to reach the param under test."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: _example(schema["properties"][name]) for name in schema.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": []}.get(kind, {})


def _cases(server):
    out = []
    for method in server.methods.values():
        for where, params in bad_params(method.params_schema):
            for era in sorted(method.eras):
                out.append(
                    pytest.param(method, era, where, params, id=f"{method.name}-{era}-{where}")
                )
    return out


PRODUCT_CASES = _cases(get_server())

# Seen in the wild (issue 11): each once in each era, on the product's server.
NAMED = [
    (p.TOOLS_CALL, {"name": {}}, "name"),
    (p.TOOLS_CALL, {"name": ["get_term"]}, "name"),
    (p.TOOLS_CALL, {"name": "get_term", "arguments": []}, "arguments"),
    (p.TOOLS_CALL, {"name": "get_term", "arguments": "slug=mcp"}, "arguments"),
    (p.PROMPTS_GET, {"name": {}}, "name"),
    (p.PROMPTS_GET, {"name": "explain_term", "arguments": []}, "arguments"),
    (p.PROMPTS_GET, {"name": "explain_term", "arguments": {"slug": 5}}, "arguments.slug"),
    (p.RESOURCES_READ, {"uri": 5}, "uri"),
    (p.RESOURCES_READ, {"uri": {"a": 1}}, "uri"),
    (p.COMPLETE, {"ref": {"type": "ref/prompt", "name": {}}, "argument": {"name": "slug",
     "value": "m"}}, "ref.name"),
    (p.TOOLS_LIST, {"cursor": {}}, "cursor"),
    (p.TOOLS_CALL, {"name": "get_term", "_meta": {"progressToken": {}}}, "_meta.progressToken"),
]  # fmt: skip


def _modern_request(method: str, params: dict, request_id=1):
    """A 2026-07-28 request: its `_meta` fields added to whatever `_meta` the case has."""
    if isinstance(params.get("_meta", {}), dict):
        params = {**params, "_meta": {**meta(), **params.get("_meta", {})}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if method in p.NAME_BEARING:
        headers["Mcp-Name"] = "x"  # whatever it says, the params' shape is reported first
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, headers


def _body(method, era: str, params: dict):
    """The request (a notification for notification methods) and its HTTP headers."""
    if era == p.MODERN:
        body, headers = _modern_request(method.name, params)
    else:
        body = {"jsonrpc": "2.0", "id": 1, "method": method.name, "params": params}
        headers = {"MCP-Protocol-Version": "2025-11-25"}
    if method.notification:
        del body["id"]
    return body, headers


def _http(client, method, era: str, params: dict, accept: str):
    body, headers = _body(method, era, params)
    return post(client, body, headers={**headers, "Accept": accept})


def _assert_invalid_params(response, method: str, where: str) -> None:
    assert response.status_code in (200, 400), response.content
    error = response.json()["error"]
    assert error["code"] == -32602, error
    message = error["message"]
    assert method in message or "_meta" in message, message
    assert where.rpartition(".")[2] in message, message


ACCEPTS = ["application/json", "application/json, text/event-stream"]


def _accepts(method) -> list[str]:
    """An SSE-accepting client sends calls that may talk back through the live-call choice
    (transports/calls.py); for every other method the Accept header changes nothing."""
    return ACCEPTS if method.name in LIVE_METHODS else ACCEPTS[:1]


@pytest.mark.parametrize(("method", "era", "where", "params"), PRODUCT_CASES)
def test_wrongly_shaped_params_are_invalid_params_over_http(client, method, era, where, params):
    """Every declared param of every method, wrongly shaped or missing, is -32602 naming the
    method and the param (notifications are never answered: 202), whatever the client
    accepts, and before any database work (no `db` fixture: a query would fail the test)."""
    for accept in _accepts(method):
        _check_http(client, method, era, where, params, accept)


def _check_http(client, method, era, where, params, accept):
    response = _http(client, method, era, params, accept)
    if method.notification:
        assert response.status_code == 202 and response.content == b""
        return
    _assert_invalid_params(response, method.name, where)
    assert response.status_code == (400 if era == p.MODERN else 200)


@pytest.mark.parametrize("era", [p.LEGACY, p.MODERN])
@pytest.mark.parametrize(("method", "params", "where"), NAMED)
def test_the_shapes_seen_in_the_wild(client, db, method, params, where, era):
    """The cases that used to reach code before validation (the result cache's key, the
    live-call choice, the Mcp-Name comparison) answer -32602 too."""
    entry = get_server().methods[method]
    for accept in ACCEPTS:
        _assert_invalid_params(_http(client, entry, era, params, accept), method, where)


def test_the_table_covers_every_method_of_both_servers():
    """Every request method of the product's server and of the conformance server has cases
    in the table (each at least `_meta`), in every era it exists in."""
    for server in (get_server(), conformance_server.server):
        covered = {(c.values[0].name, c.values[1]) for c in _cases(server)}
        for method in server.methods.values():
            for era in method.eras:
                assert (method.name, era) in covered


@pytest.mark.parametrize(("method", "era", "where", "params"), _cases(conformance_server.server))
def test_wrongly_shaped_params_over_stdio(db, method, era, where, params):
    """stdio (here with the conformance server, fixtures included) answers the same way."""
    body, _ = _body(method, era, params)
    out = io.BytesIO()
    serve(io.BytesIO(orjson.dumps(body) + b"\n"), out, server=conformance_server.server)
    if method.notification:
        assert out.getvalue() == b""
        return
    error = orjson.loads(out.getvalue())["error"]
    if not isinstance(body["params"].get("_meta", {}), dict) and p.LEGACY not in method.eras:
        # stdio has no headers: a request whose `_meta` is not an object cannot be a
        # 2026-07-28 one, so a method of that era alone is unknown to it (-32601).
        assert error["code"] == -32601, error
        return
    assert error["code"] == -32602, error
    assert where.rpartition(".")[2] in error["message"]


@pytest.mark.parametrize("params", ["x", 5, [], [1, 2], True])
@pytest.mark.parametrize("era", [p.LEGACY, p.MODERN])
def test_params_that_are_not_an_object_are_an_invalid_request(client, db, params, era):
    """JSON-RPC 2.0 §4.2 and 2025-11-25 basic/index §Requests: params is an object; anything
    else is not a valid Request object -> -32600 (HTTP 400), never a 500."""
    body = {"jsonrpc": "2.0", "id": 1, "method": p.TOOLS_CALL, "params": params}
    headers = {"MCP-Protocol-Version": "2026-07-28" if era == p.MODERN else "2025-11-25"}
    if era == p.MODERN:
        headers.update({"Mcp-Method": p.TOOLS_CALL, "Mcp-Name": "get_term"})
    response = post(client, body, headers=headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600 and "params" in error["message"]
