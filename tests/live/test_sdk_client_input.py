"""The official Python SDK client (`mcp` 2.3.0) answering the server's questions: sampling and
elicitation callbacks over HTTP and stdio, in both eras.

Legacy (2025-11-25): the server sends `sampling/createMessage` / `elicitation/create` on the
call's own stream (the SSE response of the POST, or the stdio pipe) and the SDK's callback
answers it (over HTTP as a separate POST routed back to the waiting call). Modern (2026-07-28):
the server answers `input_required` (MRTR) and the SDK calls the same callbacks, then retries
with `inputResponses` and the signed `requestState`. The server process serves the test
suite's conformance server (tests/mcp/conformance_server.py), whose tools ask exactly these
questions.
"""

from __future__ import annotations

import asyncio
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CreateMessageResult, ElicitResult, ListRootsResult, Root, TextContent

from tests.processes import CONFORMANCE_SERVER, ROOT

pytestmark = pytest.mark.live

PEERS = {
    "http-legacy": ("http", "legacy"),
    "http-2026-07-28": ("http", "2026-07-28"),
    "stdio-legacy": ("stdio", "legacy"),
    "stdio-2026-07-28": ("stdio", "2026-07-28"),
}
TIMEOUT = 90
FIXTURES = CONFORMANCE_SERVER


class Peer:
    """Callbacks that answer like a person and a model would, remembering what they were
    asked; then the calls whose results the tests look at."""

    def __init__(self):
        self.sampled: list = []
        self.elicited: list = []
        self.results: dict = {}

    async def sampling(self, context, params):
        self.sampled.append(params)
        prompt = params.messages[0].content.text
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=f"echo: {prompt}"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def elicitation(self, context, params):
        self.elicited.append(params)
        properties = params.requested_schema.get("properties", {})
        if "email" in properties:
            return ElicitResult(action="accept", content={"username": "ala", "email": "a@b.pl"})
        if "color" in properties:
            return ElicitResult(action="accept", content={"color": "zielony"})
        if "age" in properties:
            return ElicitResult(action="accept", content={"name": "Ola", "age": 31})
        return ElicitResult(action="accept", content={"name": "Ala"})

    async def roots(self, context):
        return ListRootsResult(roots=[Root(uri="file:///srv/slownik", name="Słownik")])

    async def run(self, server, mode: str) -> None:
        with anyio.fail_after(TIMEOUT):
            async with Client(
                server,
                mode=mode,
                read_timeout_seconds=30,
                sampling_callback=self.sampling,
                elicitation_callback=self.elicitation,
                list_roots_callback=self.roots,
            ) as client:
                calls = {
                    "sampling": ("test_sampling", {"prompt": "Co to jest MCP?"}),
                    "elicitation": ("test_elicitation", {"message": "Podaj dane"}),
                    "defaults": ("test_elicitation_sep1034_defaults", {}),
                    "multi_round": ("test_input_required_result_multi_round", {}),
                    "multiple": ("test_input_required_result_multiple_inputs", {}),
                }
                for key, (name, arguments) in calls.items():
                    self.results[key] = await client.call_tool(name, arguments)


@pytest.fixture(scope="module")
def fixtures_http(live_site):
    return live_site.spawn("fixtures-sdk", **FIXTURES)


@pytest.fixture(scope="module", params=list(PEERS))
def peer(request, live_site, fixtures_http) -> Peer:
    transport, mode = PEERS[request.param]
    result = Peer()
    if transport == "http":
        asyncio.run(result.run(fixtures_http.mcp_url, mode))
        return result
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio"],
        env={**live_site.stdio_env(), **FIXTURES},
        cwd=str(ROOT),
    )
    log = live_site.workdir / f"stdio-input-{request.param}.stderr.log"
    with log.open("w", encoding="utf-8") as errlog:
        asyncio.run(result.run(stdio_client(params, errlog=errlog), mode))
    return result


def text(result) -> str:
    assert not result.is_error, result
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_sampling_callback_answers_the_tool(peer):
    """The tool's sampling request reaches the SDK's sampling callback (maxTokens 100, the
    prompt as a user message) and the model's answer comes back in the tool result."""
    assert text(peer.results["sampling"]) == "LLM response: echo: Co to jest MCP?"
    first = peer.sampled[0]
    assert first.max_tokens == 100
    assert first.messages[0].role == "user"


def test_elicitation_callback_answers_the_tool(peer):
    """The elicitation request carries the tool's message and schema; the user's answer comes
    back in the tool result."""
    assert text(peer.results["elicitation"]) == (
        'User response: action=accept, content={"username":"ala","email":"a@b.pl"}'
    )
    asked = peer.elicited[0]
    assert asked.message == "Podaj dane"
    assert asked.requested_schema["required"] == ["username", "email"]


def test_elicitation_schema_keeps_defaults(peer):
    """SEP-1034 defaults reach the client unchanged (string, integer, number, enum, boolean)."""
    schema = next(
        p.requested_schema for p in peer.elicited if "age" in p.requested_schema["properties"]
    )
    defaults = {k: v.get("default") for k, v in schema["properties"].items()}
    assert defaults == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert "action=accept" in text(peer.results["defaults"])


def test_questions_in_two_rounds(peer):
    """A tool that asks twice gets both answers: two requests on one stream (legacy), or two
    input_required rounds whose signed state carries the first answer (modern)."""
    assert text(peer.results["multi_round"]) == "Ala likes zielony"


def test_several_questions_at_once_including_roots(peer):
    """Elicitation, sampling and roots asked together all reach their callbacks."""
    answer = text(peer.results["multiple"])
    assert "echo: Generate a greeting" in answer
    assert "Ala" in answer
    assert "file:///srv/slownik" in answer
