"""Speaking MCP to the endpoint through Django's test client, the way the tests in tests/mcp/
need it: well-formed legacy and 2026-07-28 requests and the pieces of their answers."""

import orjson

from mcp_endpoint.core import protocol as p

MCP_URL = "/wp-json/webflux/v1/mcp"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"


def meta(version=MODERN, **extra) -> dict:
    return {p.META_PROTOCOL_VERSION: version, p.META_CLIENT_CAPABILITIES: {}, **extra}


def post(client, body, *, headers=None, content_type="application/json"):
    data = body if isinstance(body, (bytes, str)) else orjson.dumps(body)
    return client.post(MCP_URL, data=data, content_type=content_type, headers=headers or {})


def modern_headers(method_name, name=None, version=MODERN) -> dict:
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": method_name}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def modern(client, method_name, params=None, *, request_id=1, headers=None, version=MODERN):
    """A well-formed 2026-07-28 request: `_meta` fields and mirrored headers."""
    params = {**(params or {}), "_meta": meta(version)}
    name = params.get("name", params.get("uri"))
    body = {"jsonrpc": "2.0", "id": request_id, "method": method_name, "params": params}
    return post(
        client, body, headers={**modern_headers(method_name, name, version), **(headers or {})}
    )


def legacy(client, method_name, params=None, *, request_id=1, version=LEGACY):
    """A legacy request after initialize: the negotiated version in MCP-Protocol-Version."""
    body = {"jsonrpc": "2.0", "id": request_id, "method": method_name}
    if params is not None:
        body["params"] = params
    headers = {"MCP-Protocol-Version": version} if version else {}
    return post(client, body, headers=headers)


def result_of(response) -> dict:
    data = response.json()
    assert "error" not in data, data
    return data["result"]


def call_tool(client, name, arguments=None, *, era="legacy"):
    params = {"name": name, "arguments": arguments or {}}
    response = (modern if era == "modern" else legacy)(client, "tools/call", params)
    assert response.status_code == 200, response.content
    return result_of(response)
