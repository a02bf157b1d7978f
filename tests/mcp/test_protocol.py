"""The JSON-RPC and MCP protocol rules of the endpoint, as tables that cite the specification.

Each row names the revision and section it comes from ("2025-11-25 basic/index §Requests"
means docs/specification/2025-11-25/basic/index.mdx, section Requests). Requests go through
Django's test client to the real view, so each row checks the HTTP status and the JSON-RPC
error code together.
"""

import base64

import pytest
from django.core.exceptions import ImproperlyConfigured

from mcp_endpoint.core import protocol as p
from mcp_endpoint.core.server import Server
from tests.mcp.helpers import LEGACY, MODERN, legacy, meta, modern, modern_headers, post, result_of


def _req(method_name, params=None, request_id=1, **extra):
    body = {"jsonrpc": "2.0", "id": request_id, "method": method_name, **extra}
    if params is not None:
        body["params"] = params
    return body


INIT = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}

# (body, request headers, HTTP status, JSON-RPC error code or None for success)
LEGACY_CASES = [
    pytest.param(
        {"jsonrpc": "2.0", "id": None, "method": "ping"}, {}, 400, -32600,
        id="2025-11-25 basic/index §Requests: id MUST NOT be null -> -32600",
    ),
    pytest.param(
        _req("ping", request_id=True), {}, 400, -32600,
        id="2025-11-25 basic/index §Requests: id is a string or integer, not a bool -> -32600",
    ),
    pytest.param(
        _req("ping", request_id=1.5), {}, 400, -32600,
        id="2025-11-25 basic/index §Requests: a float id -> -32600",
    ),
    pytest.param(
        _req("ping", request_id={"a": 1}), {}, 400, -32600,
        id="2025-11-25 basic/index §Requests: an object id -> -32600",
    ),
    pytest.param(
        {"jsonrpc": "1.0", "id": 1, "method": "ping"}, {}, 400, -32600,
        id="JSON-RPC 2.0 §4 Request object: jsonrpc MUST be exactly '2.0' -> -32600",
    ),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1}, {}, 400, -32600,
        id="JSON-RPC 2.0 §4: a request without method -> -32600",
    ),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": 7}, {}, 400, -32600,
        id="JSON-RPC 2.0 §4: method must be a string -> -32600",
    ),
    pytest.param(
        _req("ping", params=[1, 2]), {}, 400, -32600,
        id="2025-11-25 basic/index §Requests: params is an object -> -32600",
    ),
    pytest.param(
        42, {}, 400, -32600, id="JSON-RPC 2.0 §5: a message that is not an object -> -32600"
    ),
    pytest.param(
        _req("no/such/method"), {"MCP-Protocol-Version": LEGACY}, 200, -32601,
        id="JSON-RPC 2.0 §5.1: unknown method -> -32601 (legacy HTTP 200)",
    ),
    pytest.param(
        _req("logging/setLevel", {"level": "loud"}), {}, 200, -32602,
        id="2025-11-25 server/utilities/logging: unknown level -> -32602",
    ),
    pytest.param(
        _req("initialize", {"protocolVersion": LEGACY, "capabilities": {}}), {}, 200, -32602,
        id="2025-11-25 basic/lifecycle §Initialization: clientInfo is required -> -32602",
    ),
    pytest.param(
        _req("initialize", {**INIT, "capabilities": []}), {}, 200, -32602,
        id="2025-11-25 basic/lifecycle §Initialization: capabilities is an object -> -32602",
    ),
    pytest.param(
        _req("initialize", {**INIT, "protocolVersion": 20251125}), {}, 200, -32602,
        id="2025-11-25 basic/lifecycle §Initialization: protocolVersion is a string -> -32602",
    ),
    pytest.param(
        _req("tools/call", {"arguments": {}}), {}, 200, -32602,
        id="2025-11-25 server/tools §Calling Tools: name is required -> -32602",
    ),
    pytest.param(
        _req("tools/call", {"name": "no_such_tool"}), {}, 200, -32602,
        id="2025-11-25 server/tools §Error Handling: unknown tool -> -32602",
    ),
    pytest.param(
        _req("resources/read", {"uri": "glossary://terms/nie-ma"}), {}, 200, -32002,
        id="2025-11-25 server/resources §Error Handling: resource not found -> -32002",
    ),
    pytest.param(
        _req("resources/read", {"uri": "file:///etc/passwd"}), {}, 200, -32002,
        id="2025-11-25 server/resources §Error Handling: a foreign URI is not found -> -32002",
    ),
    pytest.param(
        _req("prompts/get", {"name": "no_such_prompt"}), {}, 200, -32602,
        id="2025-11-25 server/prompts §Error Handling: invalid prompt name -> -32602",
    ),
    pytest.param(
        _req("prompts/get", {"name": "explain_term", "arguments": {}}), {}, 200, -32602,
        id="2025-11-25 server/prompts §Error Handling: missing required argument -> -32602",
    ),
    pytest.param(
        _req("tools/list", {"cursor": "not-a-cursor"}), {}, 200, -32602,
        id="2025-11-25 server/utilities/pagination §Error Handling: invalid cursor -> -32602",
    ),
    pytest.param(
        _req("resources/list", {"cursor": 5}), {}, 200, -32602,
        id="2025-11-25 server/utilities/pagination: a cursor is a string -> -32602",
    ),
    pytest.param(
        _req("completion/complete", {"ref": {"type": "ref/prompt", "name": "x"}}), {}, 200, -32602,
        id="2025-11-25 server/utilities/completion §Requesting Completions: argument required",
    ),
    pytest.param(
        _req("ping"), {}, 200, None, id="2025-11-25 basic/utilities/ping: ping -> {}"
    ),
    pytest.param(
        _req("server/discover"), {"MCP-Protocol-Version": LEGACY}, 200, None,
        id="2026-07-28 server/discover: a dual-era server answers discover in the legacy era too",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("body", "headers", "status", "code"), LEGACY_CASES)
def test_legacy_rules(client, content, body, headers, status, code):
    """Each legacy-era rule in the table yields its HTTP status and JSON-RPC error code."""
    response = post(client, body, headers=headers)
    assert response.status_code == status, response.content
    data = response.json()
    assert data["jsonrpc"] == "2.0"
    if code is None:
        assert "result" in data
    else:
        assert data["error"]["code"] == code
        assert data["error"]["message"]
        request_id = body.get("id") if isinstance(body, dict) else None
        valid_id = isinstance(request_id, (int, str)) and not isinstance(request_id, bool)
        assert data["id"] == (request_id if valid_id else None)


def _modern_body(method_name, params=None, *, meta_value=None, request_id=1):
    params = dict(params or {})
    params["_meta"] = meta() if meta_value is None else meta_value
    return {"jsonrpc": "2.0", "id": request_id, "method": method_name, "params": params}


def _b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


# (body, headers, HTTP status, error code or None)
MODERN_CASES = [
    pytest.param(
        _modern_body("no/such/method"), modern_headers("no/such/method"), 404, -32601,
        id="2026-07-28 streamable-http §Protocol Version Header: unknown method -> 404 -32601",
    ),
    pytest.param(
        _modern_body("ping"), modern_headers("ping"), 404, -32601,
        id="2026-07-28 changelog: ping was removed -> 404 -32601",
    ),
    pytest.param(
        _modern_body("logging/setLevel", {"level": "info"}), modern_headers("logging/setLevel"),
        404, -32601, id="2026-07-28 changelog: logging/setLevel was removed -> 404 -32601",
    ),
    pytest.param(
        _modern_body("initialize", INIT), modern_headers("initialize"), 404, -32601,
        id="2026-07-28 changelog: no initialize handshake -> 404 -32601",
    ),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, modern_headers("tools/list"),
        400, -32602, id="2026-07-28 basic/index §_meta: missing _meta -> 400 -32602",
    ),
    pytest.param(
        _modern_body("tools/list", meta_value={p.META_PROTOCOL_VERSION: MODERN}),
        modern_headers("tools/list"), 400, -32602,
        id="2026-07-28 basic/index §_meta: missing clientCapabilities -> 400 -32602",
    ),
    pytest.param(
        _modern_body("tools/list", meta_value={p.META_CLIENT_CAPABILITIES: {}}),
        modern_headers("tools/list"), 400, -32602,
        id="2026-07-28 basic/index §_meta: missing protocolVersion -> 400 -32602",
    ),
    pytest.param(
        _modern_body("tools/list", meta_value=meta(**{p.META_LOG_LEVEL: "loud"})),
        modern_headers("tools/list"), 400, -32602,
        id="2026-07-28 server/utilities/logging: unknown logLevel -> 400 -32602",
    ),
    pytest.param(
        _modern_body("tools/list", meta_value=meta("2026-99-99")), modern_headers("tools/list"),
        400, -32020,
        id="2026-07-28 streamable-http §Protocol Version Header: header != _meta -> 400 -32020",
    ),
    pytest.param(
        _modern_body("tools/list"), {"MCP-Protocol-Version": MODERN}, 400, -32020,
        id="2026-07-28 streamable-http §Server Validation: Mcp-Method missing -> 400 -32020",
    ),
    pytest.param(
        _modern_body("tools/list"), modern_headers("prompts/list"), 400, -32020,
        id="2026-07-28 streamable-http §Server Validation: Mcp-Method mismatch -> 400 -32020",
    ),
    pytest.param(
        _modern_body("tools/call", {"name": "get_term", "arguments": {"slug": "mcp"}}),
        modern_headers("tools/call"), 400, -32020,
        id="2026-07-28 streamable-http §Standard Request Headers: Mcp-Name missing -> -32020",
    ),
    pytest.param(
        _modern_body("tools/call", {"name": "get_term", "arguments": {"slug": "mcp"}}),
        modern_headers("tools/call", "search_term"), 400, -32020,
        id="2026-07-28 streamable-http §Server Validation: Mcp-Name mismatch -> 400 -32020",
    ),
    pytest.param(
        _modern_body("resources/read", {"uri": "glossary://terms/mcp"}),
        modern_headers("resources/read", "glossary://terms/sse"), 400, -32020,
        id="2026-07-28 streamable-http §Server Validation: Mcp-Name vs params.uri -> -32020",
    ),
    pytest.param(
        _modern_body("prompts/get", {"name": "explain_term", "arguments": {"slug": "mcp"}}),
        modern_headers("prompts/get", "=?base64?%%%?="), 400, -32020,
        id="2026-07-28 streamable-http §Value Encoding: malformed Base64 Mcp-Name -> -32020",
    ),
    pytest.param(
        _modern_body("tools/list", meta_value=meta("1900-01-01")),
        modern_headers("tools/list", version="1900-01-01"), 400, -32022,
        id="2026-07-28 basic/versioning §Negotiation: unsupported version -> 400 -32022",
    ),
    pytest.param(
        _modern_body("resources/read", {"uri": "glossary://terms/nie-ma"}),
        modern_headers("resources/read", "glossary://terms/nie-ma"), 400, -32602,
        id="2026-07-28 server/resources §Error Handling: not found -> -32602 (not -32002)",
    ),
    pytest.param(
        _modern_body("tools/call", {"name": "get_term", "arguments": {"slug": "mcp"}}),
        modern_headers("tools/call", _b64("get_term")), 200, None,
        id="2026-07-28 streamable-http §Value Encoding: Base64 Mcp-Name is decoded",
    ),
    pytest.param(
        _modern_body("tools/call", {"name": "get_term", "arguments": {"slug": "mcp"}}),
        {k.lower(): v for k, v in modern_headers("tools/call", "get_term").items()}, 200, None,
        id="2026-07-28 streamable-http §Case Sensitivity: header names are case-insensitive",
    ),
    pytest.param(
        [_modern_body("tools/list")], modern_headers("tools/list"), 400, -32600,
        id="2026-07-28 streamable-http §Sending Messages: a single message, no batches",
    ),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "result": {}}, {"MCP-Protocol-Version": MODERN}, 400, -32600,
        id="2026-07-28 streamable-http §Sending Messages: clients MUST NOT send responses",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("body", "headers", "status", "code"), MODERN_CASES)
def test_modern_rules(client, content, body, headers, status, code):
    """Each 2026-07-28 rule in the table yields its HTTP status and JSON-RPC error code."""
    response = post(client, body, headers=headers)
    assert response.status_code == status, response.content
    data = response.json()
    if code is None:
        assert data["result"]["resultType"] == "complete"
    else:
        assert data["error"]["code"] == code, data
        assert data["error"]["message"]


def test_unsupported_version_names_supported_versions(client, content):
    """2026-07-28 basic/versioning: -32022 carries data {supported, requested}."""
    response = modern(client, "tools/list", version="1900-01-01")
    error = response.json()["error"]
    assert error["data"] == {"supported": list(p.SUPPORTED_VERSIONS), "requested": "1900-01-01"}
    assert MODERN in error["data"]["supported"]


# --- batches (2025-03-26 basic/index: "MUST support receiving" batches) ------------------
BATCH = [_req("ping", request_id=1), {"jsonrpc": "2.0", "method": "notifications/initialized"}]


@pytest.mark.parametrize(
    ("headers", "accepted"),
    [
        pytest.param({}, True, id="2025-06-18 transports: no header -> assume 2025-03-26 -> batch"),
        pytest.param({"MCP-Protocol-Version": "2025-03-26"}, True, id="2025-03-26 accepts batches"),
        pytest.param(
            {"MCP-Protocol-Version": "2025-06-18"}, False, id="2025-06-18 removed batches"
        ),
        pytest.param({"MCP-Protocol-Version": LEGACY}, False, id="2025-11-25 has no batches"),
    ],
)
def test_batches_only_for_2025_03_26(client, db, headers, accepted):
    """Batches are answered with an array only for 2025-03-26 clients, else -32600."""
    response = post(client, BATCH, headers=headers)
    if accepted:
        assert response.status_code == 200
        assert response.json() == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    else:
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32600


def test_empty_batch_is_invalid(client, db):
    """JSON-RPC 2.0 §6: an empty array is an Invalid Request."""
    response = post(client, [])
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Empty JSON-RPC batch"},
    }


def test_batch_of_notifications_is_202(client, db):
    """2025-03-26 basic/transports: only notifications/responses in the body -> 202, no body."""
    response = post(client, [BATCH[1], {"jsonrpc": "2.0", "id": 9, "result": {}}])
    assert response.status_code == 202
    assert response.content == b""


def test_initialize_may_not_be_batched(client, db):
    """2025-03-26 basic/lifecycle: initialize MUST NOT be part of a batch; the rest is served."""
    response = post(client, [_req("initialize", INIT, request_id=1), _req("ping", request_id=2)])
    assert response.status_code == 200
    first, second = response.json()
    assert first["id"] == 1 and first["error"]["code"] == -32600
    assert second == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_batch_elements_are_checked_one_by_one(client, db):
    """JSON-RPC 2.0 §6: an invalid element gets its own error; valid ones their results."""
    response = post(client, [1, _req("ping", request_id="a")])
    assert response.json() == [
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "A JSON-RPC message must be an object"},
        },
        {"jsonrpc": "2.0", "id": "a", "result": {}},
    ]


# --- parse errors, notifications, responses ---------------------------------------------
def _deep(levels: int) -> str:
    return '{"a":' * levels + "{}" + "}" * levels


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("where", ["_meta", "arguments"])
def test_deeply_nested_params_are_invalid_params_in_both_eras(client, content, era, where):
    """JSON-RPC 2.0 §5.1: params nested 1,000 levels deep (which the JSON parser accepts) are
    -32602 with a message that says what is wrong, never HTTP 500 / -32603: the same
    answer in both eras, wherever in params the nesting is."""
    fields = '"x":' + _deep(1000)
    meta_fields = '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    meta_fields += '"io.modelcontextprotocol/clientCapabilities":{}'
    if era == "legacy":
        meta_fields = ""
    if where == "_meta":
        meta_text = "{" + (meta_fields + "," if meta_fields else "") + fields + "}"
        arguments = '{"slug":"mcp"}'
    else:
        meta_text = "{" + meta_fields + "}"
        arguments = "{" + fields + "}"
    raw = (
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_term",'
        f'"arguments":{arguments},"_meta":{meta_text}}}}}'
    )
    headers = modern_headers("tools/call", "get_term") if era == "modern" else {}
    response = post(client, raw.encode(), headers=headers)
    assert response.status_code in (200, 400)
    error = response.json()["error"]
    assert response.json()["id"] == 7
    assert error["code"] == -32602
    assert "64 levels deep" in error["message"]


def test_params_nested_to_the_limit_are_validated_as_usual(client, content):
    """The depth limit leaves room for any real params: 60 levels under `_meta` pass to the
    method as before."""
    raw = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_term",'
        '"arguments":{"slug":"mcp"},"_meta":{"x":' + _deep(60) + "}}}"
    )
    response = post(client, raw.encode(), headers={"MCP-Protocol-Version": LEGACY})
    assert response.status_code == 200
    assert result_of(response)["structuredContent"]["slug"] == "mcp"


@pytest.mark.parametrize("raw", [b"{", b"not json", b'{"jsonrpc": "2.0",}', b"\xff\xfe"])
def test_parse_error(client, db, raw):
    """JSON-RPC 2.0 §5.1: unparseable JSON -> -32700 with id null (HTTP 400)."""
    response = post(client, raw)
    assert response.status_code == 400
    assert response.json()["id"] is None
    assert response.json()["error"]["code"] == -32700


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"jsonrpc": "2.0", "method": "notifications/initialized"}, id="initialized"),
        pytest.param(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            id="cancelled",
        ),
        pytest.param({"jsonrpc": "2.0", "method": "notifications/unknown"}, id="unknown"),
        pytest.param({"jsonrpc": "2.0", "id": 3, "result": {}}, id="client response"),
        pytest.param({"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "x"}}, id="error"),
    ],
)
def test_notifications_and_responses_get_202(client, db, body):
    """2025-11-25 basic/transports §Sending Messages: notification/response -> 202, no body."""
    response = post(client, body, headers={"MCP-Protocol-Version": LEGACY})
    assert response.status_code == 202
    assert response.content == b""


# --- initialize and version negotiation ---------------------------------------------------
@pytest.mark.parametrize("version", p.LEGACY_VERSIONS)
def test_initialize_echoes_a_supported_version(client, db, version):
    """2025-11-25 basic/lifecycle §Version Negotiation: a supported version is echoed."""
    result = result_of(post(client, _req("initialize", {**INIT, "protocolVersion": version})))
    assert result["protocolVersion"] == version


@pytest.mark.parametrize("version", ["2099-01-01", "1.0", MODERN])
def test_initialize_answers_unknown_version_with_latest(client, db, version):
    """2025-11-25 basic/lifecycle §Version Negotiation: otherwise the server's latest, not an
    error."""
    response = post(client, _req("initialize", {**INIT, "protocolVersion": version}))
    assert response.status_code == 200
    assert result_of(response)["protocolVersion"] == "2025-11-25"


def test_initialize_result_shape(client, db, settings):
    """2025-11-25 basic/lifecycle §Initialization: capabilities exactly as implemented,
    serverInfo from settings, instructions in English and Polish."""
    result = result_of(post(client, _req("initialize", INIT)))
    assert result["capabilities"] == {
        "tools": {"listChanged": False},
        # HTTP streams deliver resource updates and list changes (tests/live/test_streams.py).
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": False},
        "completions": {},
        "logging": {},
    }
    info = result["serverInfo"]
    assert info["name"] == settings.MCP_SERVER_NAME
    assert info["version"] == settings.MCP_SERVER_VERSION
    assert info["title"] == settings.MCP_SERVER_TITLE
    assert info["websiteUrl"].startswith(settings.SITE_URL)
    assert "search_term" in result["instructions"] and "Szukaj" in result["instructions"]
    assert "resultType" not in result  # legacy results stay legacy-shaped


def test_logging_set_level_returns_empty_result(client, db):
    """2025-11-25 server/utilities/logging §Setting Log Level: result {}."""
    assert result_of(legacy(client, "logging/setLevel", {"level": "debug"})) == {}


# --- modern result conventions ------------------------------------------------------------
def test_discover_result(client, db, settings):
    """2026-07-28 server/discover §Response: versions, capabilities, serverInfo in _meta,
    instructions and caching hints."""
    response = modern(client, "server/discover")
    assert response.status_code == 200
    result = result_of(response)
    assert result["resultType"] == "complete"
    assert result["supportedVersions"][0] == MODERN
    assert set(p.LEGACY_VERSIONS) <= set(result["supportedVersions"])
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["_meta"][p.META_SERVER_INFO]["name"] == settings.MCP_SERVER_NAME
    assert result["ttlMs"] >= 0 and result["cacheScope"] == "public"
    assert result["instructions"]


@pytest.mark.parametrize(
    ("method_name", "params", "cacheable"),
    [
        ("tools/list", {}, True),
        ("resources/list", {}, True),
        ("resources/templates/list", {}, True),
        ("resources/read", {"uri": "glossary://terms/mcp"}, True),
        ("prompts/list", {}, True),
        ("tools/call", {"name": "get_term", "arguments": {"slug": "mcp"}}, False),
        ("prompts/get", {"name": "explain_term", "arguments": {"slug": "mcp"}}, False),
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "explain_term"},
             "argument": {"name": "slug", "value": "m"}},
            False,
        ),
    ],
)  # fmt: skip
def test_modern_results_carry_result_type_server_info_and_cache_hints(
    client, content, method_name, params, cacheable
):
    """2026-07-28 basic/index §Result Responses + server/utilities/caching: every result has
    resultType "complete" and serverInfo; list/read results carry ttlMs and cacheScope."""
    result = result_of(modern(client, method_name, params))
    assert result["resultType"] == "complete"
    assert p.META_SERVER_INFO in result["_meta"]
    assert ("ttlMs" in result and result["cacheScope"] == "public") == cacheable


def test_modern_request_without_version_header_is_legacy(client, content):
    """2026-07-28 streamable-http §Protocol Version Header: a request without the header MAY
    be treated as 2025-03-26, so legacy-shaped results come back."""
    body = _modern_body("tools/list")
    result = result_of(post(client, body))
    assert "resultType" not in result and result["tools"]


def test_legacy_version_header_selects_legacy_era(client, content):
    """2025-11-25 basic/transports §Protocol Version Header: a supported legacy version is
    accepted whatever was negotiated (the conformance suite sends 2025-03-26 mid-session)."""
    for version in p.LEGACY_VERSIONS:
        assert "resultType" not in result_of(legacy(client, "tools/list", version=version))


# --- pagination ------------------------------------------------------------------------------
def _all_pages(client, method_name, key, era):
    items, cursor, pages = [], None, 0
    while True:
        params = {"cursor": cursor} if cursor else {}
        result = result_of((modern if era == "modern" else legacy)(client, method_name, params))
        items += result[key]
        pages += 1
        cursor = result.get("nextCursor")
        if not cursor:
            return items, pages


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize(
    ("method_name", "key", "expected"),
    [
        ("tools/list", "tools", 5),
        ("prompts/list", "prompts", 3),
        ("resources/templates/list", "resourceTemplates", 2),
        ("resources/list", "resources", 5),  # 3 published terms + 2 published articles
    ],
)
def test_lists_paginate_with_opaque_cursors(
    client, content, settings, era, method_name, key, expected
):
    """2025-11-25 server/utilities/pagination: every list is paged by nextCursor until the end,
    with no duplicates and nothing missing."""
    settings.MCP_PAGE_SIZE = 2
    items, pages = _all_pages(client, method_name, key, era)
    names = [i.get("name") or i.get("uri") or i.get("uriTemplate") for i in items]
    assert len(items) == expected and len(set(names)) == expected
    assert pages == -(-expected // 2)


def test_resources_list_orders_terms_then_articles(client, content, settings):
    """Terms come in Polish alphabetical order, then articles newest first, across pages."""
    settings.MCP_PAGE_SIZE = 3
    items, _ = _all_pages(client, "resources/list", "resources", "legacy")
    assert [i["uri"] for i in items] == [
        "glossary://terms/json-rpc",
        "glossary://terms/mcp",
        "glossary://terms/sse",
        "glossary://articles/mcp-w-bajtach",
        "glossary://articles/czym-jest-mcp",
    ]


@pytest.mark.parametrize(
    "cursor",
    ["garbage", "eyJhIjoxfQ", "", "x:y"],
    ids=["garbage", "unsigned", "empty-is-first-page", "bad-signature"],
)
def test_invalid_cursor_is_invalid_params(client, content, cursor):
    """2025-11-25 server/utilities/pagination §Error Handling: invalid cursor -> -32602 (an
    empty cursor is read as the first page)."""
    response = legacy(client, "resources/list", {"cursor": cursor})
    if cursor == "":
        assert result_of(response)["resources"]
    else:
        assert response.json()["error"]["code"] == -32602


def test_cursor_of_another_list_is_rejected(client, content, settings):
    """A cursor is bound to the list that issued it."""
    settings.MCP_PAGE_SIZE = 1
    cursor = result_of(legacy(client, "tools/list"))["nextCursor"]
    response = legacy(client, "prompts/list", {"cursor": cursor})
    assert response.json()["error"]["code"] == -32602


# --- one registry, one error mapping ----------------------------------------------------------
def test_duplicate_method_is_rejected_at_registration():
    """STYLE §7: one method table, duplicates rejected when registered."""
    with pytest.raises(ImproperlyConfigured):
        Server(name="t").method("tools/list")(lambda params, ctx: {})


def test_unexpected_exception_is_generic_internal_error(client, content, monkeypatch, caplog):
    """STYLE §8: an unexpected exception is logged and answered -32603 without its text."""

    def boom(**kwargs):
        raise RuntimeError("secret database detail")

    monkeypatch.setattr("glossary.selectors.term_detail", boom)
    response = legacy(client, "tools/call", {"name": "get_term", "arguments": {"slug": "mcp"}})
    assert response.json()["error"] == {"code": -32603, "message": "Internal error"}
    assert b"secret" not in response.content and b"Traceback" not in response.content
    assert "secret database detail" in caplog.text


@pytest.mark.parametrize("method_name", ["resources/subscribe", "resources/unsubscribe"])
def test_subscribe_is_accepted_as_a_no_op_in_the_legacy_era(client, db, method_name):
    """2025-11-25 server/resources §Subscriptions: subscribe/unsubscribe {uri} -> {}; without
    a session nothing is stored (tests/mcp/test_sessions.py covers sessions); gone in
    2026-07-28."""
    params = {"uri": "glossary://terms/mcp"}
    assert result_of(legacy(client, method_name, params)) == {}
    assert legacy(client, method_name, {}).json()["error"]["code"] == -32602
    assert modern(client, method_name, params).status_code == 404
