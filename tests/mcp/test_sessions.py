"""Legacy MCP sessions over HTTP (2025-11-25 basic/transports §Session Management) and the
GET/DELETE edges, through Django's test client.

The streams themselves (GET stream, subscriptions/listen) need an ASGI server and are tested
against a live one in tests/live/test_streams.py.
"""

from datetime import timedelta

import orjson
import pytest
from django.core.management import call_command
from django.utils import timezone

from mcp_endpoint.models import McpSession
from mcp_endpoint.transports import sessions
from tests.factories import make_term

MCP_URL = "/wp-json/webflux/v1/mcp"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
BOTH = "application/json, text/event-stream"
INIT = {
    "protocolVersion": LEGACY,
    "capabilities": {"roots": {}},
    "clientInfo": {"name": "test-client", "version": "1.0"},
}

pytestmark = pytest.mark.django_db


def post(client, method, params=None, *, session=None, request_id=1, accept=BOTH, headers=None):
    body = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    if request_id is None:
        del body["id"]
    extra = {"Accept": accept, "MCP-Protocol-Version": LEGACY, **(headers or {})}
    extra = {name: value for name, value in extra.items() if value}  # "" leaves a header out
    if session:
        extra[sessions.HEADER] = session
    return client.post(
        MCP_URL, data=orjson.dumps(body), content_type="application/json", headers=extra
    )


def initialize(client) -> str:
    response = post(client, "initialize", INIT, headers={"MCP-Protocol-Version": ""})
    assert response.status_code == 200
    return response[sessions.HEADER]


def error_of(response) -> dict:
    return orjson.loads(response.content)["error"]


# --- minting, storing, naming -------------------------------------------------------------
def test_initialize_mints_a_random_visible_ascii_session_id(client):
    """initialize answers with an Mcp-Session-Id of visible ASCII (0x21–0x7E), unguessably
    long and different each time."""
    first, second = initialize(client), initialize(client)
    assert first != second and len(first) >= 40
    assert all(0x21 <= ord(c) <= 0x7E for c in first)


def test_session_row_holds_negotiated_state_but_not_the_id(client):
    """The database keeps the negotiated version, client info and capabilities under the id's
    SHA-256 only: the stored rows cannot be replayed as session ids."""
    key = initialize(client)
    row = McpSession.objects.get()
    assert row.pk == sessions.hash_key(key) and row.pk != key
    assert row.protocol_version == LEGACY
    assert row.client_info == INIT["clientInfo"]
    assert row.client_capabilities == INIT["capabilities"]


def test_requests_naming_the_session_are_served(client):
    """A later request with the session id is answered normally and does not mint another."""
    key = initialize(client)
    response = post(client, "ping", session=key)
    assert response.status_code == 200 and sessions.HEADER not in response
    assert McpSession.objects.count() == 1


def test_unknown_session_is_404(client):
    """A session id the server never issued: 404, so the client initializes again."""
    response = post(client, "ping", session="no-such-session")
    assert response.status_code == 404
    assert error_of(response)["code"] == -32600


def test_delete_ends_the_session(client):
    """DELETE with the session id ends it (204); the id then gets 404 everywhere."""
    key = initialize(client)
    response = client.delete(MCP_URL, headers={sessions.HEADER: key})
    assert response.status_code == 204
    assert post(client, "ping", session=key).status_code == 404
    assert client.delete(MCP_URL, headers={sessions.HEADER: key}).status_code == 404


def test_idle_session_expires(client, settings):
    """A session idle longer than MCP_SESSION_IDLE_SECONDS is gone: 404, row deleted."""
    settings.MCP_SESSION_IDLE_SECONDS = 60
    key = initialize(client)
    McpSession.objects.update(last_seen=timezone.now() - timedelta(seconds=61))
    assert post(client, "ping", session=key).status_code == 404
    assert not McpSession.objects.exists()


def test_cleanup_command_deletes_only_idle_sessions(client, settings):
    """mcp_cleanup_sessions removes expired rows and keeps live ones."""
    settings.MCP_SESSION_IDLE_SECONDS = 60
    initialize(client)
    initialize(client)
    old = McpSession.objects.first()
    McpSession.objects.filter(pk=old.pk).update(last_seen=timezone.now() - timedelta(hours=1))
    call_command("mcp_cleanup_sessions", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert list(McpSession.objects.values_list("pk", flat=True)) != [old.pk]
    assert McpSession.objects.count() == 1


def test_requests_without_a_session_are_stateless(client):
    """No header, no session: served as before (curl-style clients never send one)."""
    response = post(client, "tools/list")
    assert response.status_code == 200 and sessions.HEADER not in response


def test_required_session_rejects_requests_without_it(client, settings):
    """With MCP_REQUIRE_SESSION, a request without the header is 400 (initialize excepted)."""
    settings.MCP_REQUIRE_SESSION = True
    assert post(client, "ping").status_code == 400
    key = initialize(client)
    assert post(client, "ping", session=key).status_code == 200


def test_modern_requests_ignore_session_ids(client):
    """2026-07-28 has no sessions: an Mcp-Session-Id (even unknown) is ignored, none is
    minted, and GET/DELETE stay 405."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    headers = {
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "server/discover",
        sessions.HEADER: "whatever",
        "Accept": BOTH,
    }
    response = client.post(
        MCP_URL, data=orjson.dumps(body), content_type="application/json", headers=headers
    )
    assert response.status_code == 200 and sessions.HEADER not in response
    for method in ("get", "delete"):
        assert getattr(client, method)(MCP_URL, headers=headers).status_code == 405


# --- state kept in the session ------------------------------------------------------------
def test_log_level_and_subscriptions_are_stored(client):
    """logging/setLevel and resources/subscribe|unsubscribe change the stored session."""
    key = initialize(client)
    post(client, "logging/setLevel", {"level": "warning"}, session=key)
    uri = "glossary://terms/mcp"
    assert (
        orjson.loads(post(client, "resources/subscribe", {"uri": uri}, session=key).content)[
            "result"
        ]
        == {}
    )
    post(client, "resources/subscribe", {"uri": "glossary://articles/o-mcp"}, session=key)
    row = McpSession.objects.get()
    assert row.log_level == "warning"
    assert row.subscriptions == [uri, "glossary://articles/o-mcp"]
    post(client, "resources/unsubscribe", {"uri": uri}, session=key)
    assert McpSession.objects.get().subscriptions == ["glossary://articles/o-mcp"]


def test_subscriptions_take_absolute_uris(client):
    """resources/subscribe takes an absolute URI (any: only glossary:// ones ever fire);
    anything else is -32602."""
    key = initialize(client)
    response = post(client, "resources/subscribe", {"uri": "not a uri"}, session=key)
    assert error_of(response)["code"] == -32602
    response = post(client, "resources/subscribe", {"uri": "test://watched"}, session=key)
    assert response.status_code == 200
    assert McpSession.objects.get().subscriptions == ["test://watched"]


def test_capabilities_announce_subscriptions_and_list_changes(client):
    """The HTTP transport delivers resource updates and list changes, and says so."""
    response = post(client, "initialize", INIT, headers={"MCP-Protocol-Version": ""})
    resources = orjson.loads(response.content)["result"]["capabilities"]["resources"]
    assert resources == {"subscribe": True, "listChanged": True}


# --- GET and DELETE edges -----------------------------------------------------------------
def test_get_stream_needs_event_stream_accept(client):
    """A session's GET without text/event-stream in Accept is 406."""
    key = initialize(client)
    response = client.get(MCP_URL, headers={sessions.HEADER: key, "Accept": "application/json"})
    assert response.status_code == 406


def test_get_stream_rejects_malformed_last_event_id(client):
    """Last-Event-ID must be one this server issues (`<n>` or `<n>-<i>`): else 400."""
    key = initialize(client)
    headers = {sessions.HEADER: key, "Accept": "text/event-stream", "Last-Event-ID": "x:1"}
    assert client.get(MCP_URL, headers=headers).status_code == 400


def test_second_get_stream_is_409(client):
    """One GET stream per session: while one holds the session, another is 409 Conflict."""
    key = initialize(client)
    McpSession.objects.update(
        stream_holder="other", stream_lease_until=timezone.now() + timedelta(minutes=1)
    )
    response = client.get(MCP_URL, headers={sessions.HEADER: key, "Accept": "text/event-stream"})
    assert response.status_code == 409


def test_get_for_unknown_session_is_404(client):
    """GET naming a session that does not exist: 404."""
    headers = {sessions.HEADER: "gone", "Accept": "text/event-stream"}
    assert client.get(MCP_URL, headers=headers).status_code == 404


# --- SSE responses to POST (calls.py streams them; the glossary tools report) -----------------
def sse_messages(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    assert "[DONE]" not in text
    return [orjson.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


@pytest.mark.django_db(transaction=True)
def test_progress_token_gets_progress_before_the_result(client):
    """tools/call with a progressToken, SSE accepted: notifications/progress, then the
    response, and the stream ends with it (never a `data: [DONE]` line)."""
    make_term("MCP", slug="mcp")
    key = initialize(client)
    params = {"name": "get_term", "arguments": {"slug": "mcp"}, "_meta": {"progressToken": "p1"}}
    response = post(client, "tools/call", params, session=key, request_id=7)
    assert response["Content-Type"].startswith("text/event-stream")
    progress, final = sse_messages(response)
    assert progress["method"] == "notifications/progress"
    assert progress["params"] == {
        "progressToken": "p1",
        "progress": 1,
        "total": 1,
        "message": "get_term: gotowe",
    }
    assert final["id"] == 7 and final["result"]["isError"] is False


@pytest.mark.django_db(transaction=True)
def test_log_messages_follow_the_session_level(client):
    """After logging/setLevel, a call streams notifications/message at or above that level
    before its result; above the messages' levels, it is plain JSON again."""
    make_term("MCP", slug="mcp")
    key = initialize(client)
    post(client, "logging/setLevel", {"level": "info"}, session=key)
    params = {"name": "get_term", "arguments": {"slug": "mcp"}}
    note, final = sse_messages(post(client, "tools/call", params, session=key))
    assert note["method"] == "notifications/message"
    assert note["params"]["level"] == "info" and note["params"]["data"].startswith("get_term")
    assert "result" in final
    post(client, "logging/setLevel", {"level": "error"}, session=key)
    response = post(client, "tools/call", params, session=key)
    assert response["Content-Type"] == "application/json"


@pytest.mark.django_db(transaction=True)
def test_plain_json_without_sse_in_accept(client):
    """A client that accepts only JSON gets JSON, whatever the call could have reported."""
    make_term("MCP", slug="mcp")
    key = initialize(client)
    post(client, "logging/setLevel", {"level": "debug"}, session=key)
    params = {"name": "get_term", "arguments": {"slug": "mcp"}, "_meta": {"progressToken": 1}}
    response = post(client, "tools/call", params, session=key, accept="application/json")
    assert response["Content-Type"] == "application/json"
