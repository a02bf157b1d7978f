"""MCP change notifications over real streams: the official Python SDK client (and raw HTTP
where the SDK hides the wire) against two live uvicorn processes sharing one database and a
private Redis, with content edited by a third process (`manage.py shell`), as an editor's
save in the admin of any worker would be.

- legacy (2025-11-25): subscribe → `notifications/resources/updated` on the session's GET
  stream within 2 s; `list_changed` on publish; resumption with `Last-Event-ID` replays
  exactly the missed messages; one GET stream per session;
- modern (2026-07-28): `subscriptions/listen` acknowledges first, then delivers the same.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import time
import warnings

import anyio
import pytest
from mcp import Client
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated

from tests.processes import HOST, MCP_PATH, Deployment, Redis, SseReader

pytestmark = [pytest.mark.live, pytest.mark.anyio]

LEGACY = "2025-11-25"
TERM = "strumien-zdarzen"
URI = f"glossary://terms/{TERM}"
CREATE = (
    "from glossary.models import Term; "
    f"Term.objects.create(name='Strumień zdarzeń', slug='{TERM}', status='published', "
    "short_definition='Zmiany wysyłane na bieżąco.')"
)
EDIT = (
    "from glossary.models import Term; import time\n"
    f"t = Term.objects.get(slug='{TERM}')\n"
    "print(time.time())\n"
    "for n in range({count}):\n"
    "    t.body = f'Wersja {{n}} {{time.time()}}'; t.save()"
)
PUBLISH = (
    "from glossary.models import Term; import time\n"
    "t = Term.objects.create(name='{name}', slug='{slug}', status='draft')\n"
    "print(time.time())\n"
    "t.short_definition = 'Opublikowane.'; t.status = 'published'; t.save()"
)


@pytest.fixture(scope="module")
def redis():
    server = Redis()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def site(redis):
    """Two server processes, one database, Redis between them; fast keep-alives and short
    GET streams so reconnection and keep-alive paths run within the test."""
    deployment = Deployment(
        processes=2,
        redis_url=redis.url,
        name="mcpstreams",
        settings={"MCP_SSE_KEEPALIVE_SECONDS": "1"},
    )
    try:
        deployment.start()
        deployment.shell(CREATE)
        yield deployment
    finally:
        deployment.stop()


@pytest.fixture(scope="module")
def short_streams(redis):
    """One server process whose GET streams end every 2 seconds."""
    deployment = Deployment(
        redis_url=redis.url, name="mcpshort", settings={"MCP_SSE_MAX_SECONDS": "2"}
    )
    try:
        deployment.start()
        deployment.shell(CREATE)
        yield deployment
    finally:
        deployment.stop()


def mcp_url(site, index=0) -> str:
    return site.urls[index] + MCP_PATH


async def edit(site, count=1) -> float:
    """Edit the term from a shell process; returns when the save started."""
    out = await anyio.to_thread.run_sync(site.shell, EDIT.format(count=count))
    return float(re.findall(r"^\d{9,}\.\d+$", out, re.M)[0])


def stream_holders(site) -> set[str]:
    """Sessions whose GET stream is open right now (each holds a claim on its row)."""
    rows = site.query("SELECT key_hash FROM mcp_endpoint_mcpsession WHERE stream_holder <> ''")
    return {key for (key,) in rows}


async def wait_for_stream(site, before: set[str], timeout=60.0) -> None:
    """Until a session not in `before` holds a GET stream (the SDK opens it in the
    background after initialize)."""
    with anyio.fail_after(timeout):
        while not stream_holders(site) - before:
            await anyio.sleep(0.05)


class Inbox:
    """The SDK's message handler: keeps server notifications in arrival order."""

    def __init__(self) -> None:
        self.items: list[tuple[str, dict, float]] = []
        self.changed = anyio.Event()

    async def __call__(self, message) -> None:
        method = getattr(message, "method", None)
        if method:
            params = message.params.model_dump(by_alias=True) if message.params else {}
            self.items.append((method, params, time.time()))
            self.changed.set()

    async def next(self, method: str, start: int = 0, timeout: float = 60.0):
        with anyio.fail_after(timeout):
            while True:
                for index, item in enumerate(self.items[start:], start):
                    if item[0] == method:
                        return index, item
                self.changed = anyio.Event()
                await self.changed.wait()


def legacy_client(site, inbox, index=0) -> Client:
    return Client(mcp_url(site, index), mode="legacy", message_handler=inbox)


async def subscribe(client, uri=URI) -> None:
    with warnings.catch_warnings():  # deprecated in the SDK for 2026-07-28, not for legacy
        warnings.simplefilter("ignore")
        await client.subscribe_resource(uri)


# --- legacy: sessions, GET stream -------------------------------------------------------------
async def test_subscribed_update_arrives_within_two_seconds(site):
    """SDK client (legacy): subscribe to a term, an editor saves it in another process, and
    `notifications/resources/updated` for its URI arrives on the GET stream within 2 s."""
    inbox = Inbox()
    before = stream_holders(site)
    async with legacy_client(site, inbox) as client:
        assert client.server_capabilities.resources.subscribe is True
        await subscribe(client)
        await wait_for_stream(site, before)
        saving = await edit(site)
        _, (_, params, arrived) = await inbox.next("notifications/resources/updated")
        assert params["uri"] == URI
        latency = arrived - saving
        print(f"legacy: save to notification {latency * 1000:.0f} ms")
        assert latency < 2


async def test_list_changed_on_publish(site):
    """Publishing a term (draft → published) sends `notifications/resources/list_changed`;
    the new term's URI was never subscribed, so no `updated` for it."""
    inbox = Inbox()
    before = stream_holders(site)
    async with legacy_client(site, inbox) as client:
        await subscribe(client)
        await wait_for_stream(site, before)
        await anyio.to_thread.run_sync(
            site.shell, PUBLISH.format(name="Nowe pojęcie", slug="nowe-pojecie")
        )
        await inbox.next("notifications/resources/list_changed")
        assert all(p.get("uri") != "glossary://terms/nowe-pojecie" for _, p, _ in inbox.items)


async def test_sdk_client_resumes_and_misses_nothing(short_streams, caplog):
    """GET streams that end (here: every 2 s, as a server may after an event with an id) are
    resumed by the SDK with Last-Event-ID: five edits spread over several reconnections
    arrive exactly once each."""
    caplog.set_level(logging.INFO, logger="mcp.client.streamable_http")
    site = short_streams
    inbox = Inbox()
    before = stream_holders(site)
    async with legacy_client(site, inbox) as client:
        await subscribe(client)
        await wait_for_stream(site, before)
        for _ in range(5):
            await edit(site)
            await anyio.sleep(0.7)

        def updates() -> int:
            return sum(method == "notifications/resources/updated" for method, _, _ in inbox.items)

        with anyio.fail_after(20):
            while updates() < 5:
                await anyio.sleep(0.1)
        await anyio.sleep(2.5)  # past another reconnection: a replayed duplicate would be here
        assert updates() == 5
    assert caplog.text.count("GET stream disconnected, reconnecting") >= 3


# --- legacy wire details (raw HTTP) -----------------------------------------------------------
def _post(port: int, body: dict, session: str | None = None):
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": LEGACY,
    }
    if session:
        headers["Mcp-Session-Id"] = session
    conn.request("POST", MCP_PATH, body=json.dumps(body), headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response, data


def _raw_session(port: int, subscribe_on: int | None = None) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    response, _ = _post(port, init)
    key = response.getheader("Mcp-Session-Id")
    _post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, key)
    subscribe = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": URI}}
    response, data = _post(subscribe_on or port, subscribe, key)
    assert response.status == 200 and json.loads(data)["result"] == {}, data
    return key


def _open(port: int, key: str, last_event_id: str | None = None) -> SseReader:
    headers = {"Mcp-Session-Id": key, "MCP-Protocol-Version": LEGACY}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    reader = SseReader(port, MCP_PATH, headers=headers)
    reader.start()
    reader.opened.wait(20)
    return reader


def _messages(reader: SseReader, count: int, timeout: float = 10.0) -> list[tuple[str, dict]]:
    """The next `count` JSON-RPC messages (priming and retry-only events skipped)."""
    out = []
    while len(out) < count:
        _, data, event_id, _ = reader.next_event(timeout=timeout)
        if data:
            out.append((event_id, json.loads(data)))
    return out


def test_resume_with_last_event_id_replays_exactly_the_missed_messages(site):
    """Drop the GET stream after one update, edit twice, reconnect with Last-Event-ID: the two
    missed updates come first, then live ones; nothing is repeated. Keep-alives are SSE
    comments, never events."""
    port = site.ports[0]
    key = _raw_session(port)
    reader = _open(port, key)
    assert reader.status == 200
    assert reader.response_headers["content-type"].startswith("text/event-stream")
    anyio.run(edit, site)
    [(first_id, first)] = _messages(reader, 1)
    assert first == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": URI},
    }
    time.sleep(2.5)
    assert reader.comments >= 1  # ": ping" keep-alives (1 s in this deployment)
    reader.close()
    time.sleep(0.5)

    anyio.run(edit, site, 2)
    resumed = _open(port, key, last_event_id=first_id)
    try:
        assert resumed.status == 200
        missed = _messages(resumed, 2)
        anyio.run(edit, site)
        [live] = _messages(resumed, 1)
        ids = [first_id, *(event_id for event_id, _ in missed), live[0]]
        numbers = [int(i.split("-")[0]) for i in ids]
        assert numbers == sorted(numbers) and len(set(numbers)) == 4  # in order, no repeats
        assert all(message["method"] == "notifications/resources/updated" for _, message in missed)
    finally:
        resumed.close()


def test_session_is_served_by_any_process(site):
    """A session minted by process 1 is served by process 2 (its state is in the database):
    subscribe and open the GET stream there, and an edit reaches it through Redis."""
    key = _raw_session(site.ports[0], subscribe_on=site.ports[1])
    reader = _open(site.ports[1], key)
    try:
        assert reader.status == 200
        anyio.run(edit, site)
        [(_, message)] = _messages(reader, 1)
        assert message["params"] == {"uri": URI}
    finally:
        reader.close()


def test_second_get_stream_of_a_session_is_refused(site):
    """One GET stream per session: a second one gets 409 while the first is open, on either
    process."""
    key = _raw_session(site.ports[0])
    first = _open(site.ports[0], key)
    try:
        assert first.status == 200
        second = _open(site.ports[1], key)
        assert second.status == 409
        second.close()
    finally:
        first.close()


@pytest.mark.postgres
def test_open_mcp_streams_hold_no_database_connections(site):
    """Ten open GET streams add no database connections (each read gives its own back)."""
    before = site.database_connections()
    readers = []
    try:
        for _ in range(10):
            readers.append(_open(site.ports[0], _raw_session(site.ports[0])))
        assert all(reader.status == 200 for reader in readers)
        time.sleep(1.5)
        assert site.database_connections() <= before
    finally:
        for reader in readers:
            reader.close()


# --- modern: subscriptions/listen ---------------------------------------------------------------
async def test_modern_listen_delivers_updates_and_list_changes(site):
    """SDK client (2026-07-28): `listen` is acknowledged with the honored filter, then an edit
    in another process arrives as ResourceUpdated within 2 s and a publication as
    ResourcesListChanged."""
    client = Client(mcp_url(site, 1), mode="2026-07-28")
    listening = {"resources_list_changed": True, "resource_subscriptions": [URI]}
    async with client, client.listen(**listening) as sub:
        assert sub.honored.resource_subscriptions == [URI]
        assert sub.honored.resources_list_changed is True
        saving = await edit(site)
        with anyio.fail_after(20):
            event = await anext(sub)
        assert event == ResourceUpdated(uri=URI)
        latency = time.time() - saving
        print(f"modern: save to event {latency * 1000:.0f} ms")
        assert latency < 2
        await anyio.to_thread.run_sync(
            site.shell, PUBLISH.format(name="Słuchane pojęcie", slug="sluchane-pojecie")
        )
        with anyio.fail_after(20):
            event = await anext(sub)
        assert event == ResourcesListChanged()
