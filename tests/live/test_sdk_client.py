"""The official Python SDK client (PyPI `mcp` 2.3.0) as a real peer of the glossary server.

Each peer configuration (HTTP in the legacy, auto and 2026-07-28 modes; stdio in legacy and
2026-07-28) takes one tour of everything the server offers, in one connection: it lists and calls
every tool, reads every resource kind, lists the templates, gets every prompt and completes
arguments. The tour records each step's result (or its failure) once; the tests below then state
one rule each about that record. One connection per peer keeps the stdio runs cheap (each spawns a
Django process) and lets every rule report on its own instead of the first failure hiding the rest.
The SDK itself validates what it receives: result shapes per negotiated revision, and
`structuredContent` against each tool's `outputSchema`.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference, ResourceTemplateReference

from tests.processes import ROOT, hit_slugs

pytestmark = pytest.mark.live

LEGACY = "2025-11-25"  # what Client(mode="legacy") offers in initialize and must get back
MODERN = "2026-07-28"

PEERS = {
    "http-legacy": ("http", "legacy", LEGACY),
    "http-auto": ("http", "auto", MODERN),  # a dual-era server answers the discover probe
    "http-2026-07-28": ("http", MODERN, MODERN),
    "stdio-legacy": ("stdio", "legacy", LEGACY),
    "stdio-2026-07-28": ("stdio", MODERN, MODERN),
}

TOOLS = {"search_term", "get_term", "list_terms", "search_articles", "get_article"}
PROMPTS = {"explain_term", "compare_terms", "summarize_article"}
TERM_TEMPLATE = "glossary://terms/{slug}"
ARTICLE_TEMPLATE = "glossary://articles/{slug}"
MAX_PAGES = 50  # a paginator that never ends fails the step instead of hanging the suite
TOUR_TIMEOUT = 120


@dataclass
class Failed:
    step: str
    error: BaseException

    @property
    def text(self) -> str:
        return "".join(traceback.format_exception(self.error))


@dataclass
class Tour:
    """What one peer saw, step by step; `tour[step]` fails the test if that step failed."""

    peer: str
    mode: str
    expected_version: str
    steps: dict[str, Any] = field(default_factory=dict)
    stderr: str = ""

    def __getitem__(self, step: str) -> Any:
        if step not in self.steps:
            connect = self.steps.get("connect")
            reason = connect.text if isinstance(connect, Failed) else "the tour stopped earlier"
            pytest.fail(f"[{self.peer}] step {step!r} never ran: {reason}{self._stderr()}")
        value = self.steps[step]
        if isinstance(value, Failed):
            pytest.fail(f"[{self.peer}] step {step!r} failed:\n{value.text}{self._stderr()}")
        return value

    def error(self, step: str) -> MCPError:
        """The JSON-RPC error a step was expected to end with."""
        value = self.steps.get(step)
        if isinstance(value, Failed) and isinstance(value.error, MCPError):
            return value.error
        pytest.fail(f"[{self.peer}] step {step!r} should have been a JSON-RPC error, got {value!r}")

    def _stderr(self) -> str:
        return f"\n--- server stderr ---\n{self.stderr}" if self.stderr.strip() else ""


async def _all_pages(fetch, items: str) -> list:
    collected, cursor = [], None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor=cursor)
        collected.extend(getattr(page, items))
        cursor = page.next_cursor
        if cursor is None:
            return collected
    raise AssertionError(f"{items}: still a nextCursor after {MAX_PAGES} pages")


async def _list_terms_pages(client: Client, arguments: dict) -> list[list[str]]:
    """list_terms pages, following the tool's own cursor (in its structuredContent)."""
    pages, cursor = [], None
    for _ in range(MAX_PAGES):
        args = dict(arguments, **({"cursor": cursor} if cursor else {}))
        result = await client.call_tool("list_terms", args)
        assert not result.is_error, result
        pages.append(hit_slugs(result.structured_content))
        cursor = result.structured_content.get("nextCursor")
        if not cursor:
            return pages
    raise AssertionError(f"list_terms: still a nextCursor after {MAX_PAGES} pages")


NEXT_CALL = re.compile(r"wywołaj list_terms z argumentami (\{.*?\}) \(")
TEXT_SLUG = re.compile(r"^- \[[^\]]+\]\(https?://[^)]+\) \(`([^`]+)`\)", re.MULTILINE)


async def _list_terms_pages_by_text(client: Client, arguments: dict) -> list[list[str]]:
    """list_terms pages as a model that gets only the text would walk them: the slugs from
    the text's lines, the next call copied from the text (never structuredContent)."""
    pages = []
    for _ in range(MAX_PAGES):
        result = await client.call_tool("list_terms", arguments)
        assert not result.is_error, result
        text = text_of(result)
        pages.append(TEXT_SLUG.findall(text))
        found = NEXT_CALL.search(text)
        if found is None:
            return pages
        arguments = json.loads(found[1])
    raise AssertionError(f"list_terms: the text still names a next page after {MAX_PAGES}")


async def _tour(client: Client, tour: Tour) -> None:
    steps = tour.steps

    async def step(name: str, coro) -> Any:
        try:
            steps[name] = await coro
        except Exception as exc:  # recorded, and reported by the tests that need this step
            steps[name] = Failed(name, exc)
        return steps[name]

    steps["connect"] = {
        "protocol_version": client.protocol_version,
        "server_info": client.server_info,
        "capabilities": client.server_capabilities,
        "instructions": client.instructions,
    }
    await step("tools", _all_pages(client.list_tools, "tools"))
    await step("search_term MCP", client.call_tool("search_term", {"query": "MCP"}))
    await step("search_term limit", client.call_tool("search_term", {"query": "a", "limit": 2}))
    await step("get_term json-rpc", client.call_tool("get_term", {"slug": "json-rpc"}))
    await step("get_term typo", client.call_tool("get_term", {"slug": "json-rcp"}))
    await step("list_terms pages", _list_terms_pages(client, {}))
    await step("list_terms letter", _list_terms_pages(client, {"letter": "M"}))
    await step("list_terms by text", _list_terms_pages_by_text(client, {}))
    await step(
        "list_terms category by text",
        _list_terms_pages_by_text(client, {"category": "agenci ai"}),
    )
    await step(
        "list_terms category by cursor", _list_terms_pages(client, {"category": "agenci-ai"})
    )
    searched = await step("search_articles", client.call_tool("search_articles", {"query": "MCP"}))
    article = None
    if not isinstance(searched, Failed) and not searched.is_error:
        slugs = hit_slugs(searched.structured_content)
        article = slugs[0] if slugs else None
    steps["article slug"] = article
    if article:
        await step("get_article", client.call_tool("get_article", {"slug": article}))
    await step("resources", _all_pages(client.list_resources, "resources"))
    await step("templates", _all_pages(client.list_resource_templates, "resource_templates"))
    await step("read term", client.read_resource("glossary://terms/json-rpc"))
    if article:
        await step("read article", client.read_resource(f"glossary://articles/{article}"))
    await step("read missing", client.read_resource("glossary://terms/nie-ma-takiego-pojecia"))
    await step("prompts", _all_pages(client.list_prompts, "prompts"))
    await step("explain_term", client.get_prompt("explain_term", {"slug": "mcp"}))
    await step(
        "explain_term audience",
        client.get_prompt("explain_term", {"slug": "mcp", "audience": "początkujący"}),
    )
    await step(
        "compare_terms", client.get_prompt("compare_terms", {"first": "sse", "second": "websocket"})
    )
    if article:
        await step("summarize_article", client.get_prompt("summarize_article", {"slug": article}))
    await step(
        "complete prompt",
        client.complete(PromptReference(name="explain_term"), {"name": "slug", "value": "json"}),
    )
    await step(
        "complete prompt second",
        client.complete(
            PromptReference(name="compare_terms"),
            {"name": "second", "value": "stre"},
            context_arguments={"first": "sse"},
        ),
    )
    await step(
        "complete term template",
        client.complete(
            ResourceTemplateReference(uri=TERM_TEMPLATE), {"name": "slug", "value": "stre"}
        ),
    )
    await step(
        "complete article template",
        client.complete(
            ResourceTemplateReference(uri=ARTICLE_TEMPLATE), {"name": "slug", "value": ""}
        ),
    )


async def _run(server, tour: Tour) -> None:
    try:
        with anyio.fail_after(TOUR_TIMEOUT):
            async with Client(server, mode=tour.mode, read_timeout_seconds=30) as client:
                await _tour(client, tour)
    except Exception as exc:
        if "connect" not in tour.steps:
            tour.steps["connect"] = Failed("connect", exc)
        else:
            tour.steps.setdefault("teardown", Failed("teardown", exc))


@pytest.fixture(scope="module", params=list(PEERS))
def tour(request, live_site) -> Tour:
    transport, mode, expected = PEERS[request.param]
    result = Tour(peer=request.param, mode=mode, expected_version=expected)
    if transport == "http":
        asyncio.run(_run(live_site.mcp_url, result))
        return result
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio"],
        env=live_site.stdio_env(),
        cwd=str(ROOT),
    )
    log = live_site.workdir / f"stdio-{request.param}.stderr.log"
    with log.open("w", encoding="utf-8") as errlog:
        asyncio.run(_run(stdio_client(params, errlog=errlog), result))
    result.stderr = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-40:])
    return result


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


# --- Connecting ----------------------------------------------------------------------------
def test_connects_at_the_expected_version(tour):
    """legacy negotiates 2025-11-25 (the version it offers is echoed); auto finds the modern
    era through server/discover; a pinned 2026-07-28 client is served statelessly
    (Lifecycle "Version Negotiation"; 2026-07-28 Versioning, dual-era)."""
    assert tour["connect"]["protocol_version"] == tour.expected_version


def test_server_identifies_itself(tour):
    """serverInfo (initialize) or the discover `_meta` serverInfo stamp names the server with the
    name from settings and a version (Lifecycle "Initialization"; 2026-07-28 server/discover)."""
    if tour.mode == MODERN:
        pytest.skip("a pinned modern client adopts a synthesized discover result: no serverInfo")
    info = tour["connect"]["server_info"]
    assert info is not None
    assert info.name == "slownik"
    assert info.version


def test_modern_results_carry_the_server_info_stamp(tour):
    """In the 2026-07-28 era every result carries `_meta["io.modelcontextprotocol/serverInfo"]`
    (2026-07-28 changelog, SEP-2575: servers SHOULD identify themselves in every result)."""
    if tour.expected_version != MODERN:
        pytest.skip("legacy results carry no per-result serverInfo; initialize carries it")
    stamp = (tour["search_term MCP"].meta or {}).get("io.modelcontextprotocol/serverInfo")
    assert stamp, tour["search_term MCP"].meta
    assert stamp["name"] == "slownik"


def test_capabilities_name_what_is_implemented(tour):
    """The server declares tools, resources, prompts and completions (Lifecycle,
    "Capability Negotiation": declare exactly what is implemented)."""
    if tour.mode == MODERN:
        pytest.skip("a pinned modern client adopts a synthesized discover result: no capabilities")
    capabilities = tour["connect"]["capabilities"]
    assert capabilities.tools is not None
    assert capabilities.resources is not None
    assert capabilities.prompts is not None
    assert capabilities.completions is not None


def test_instructions_tell_an_agent_how_to_use_the_glossary(tour):
    """The server gives instructions (initialize result / discover result `instructions`)."""
    if tour.mode == MODERN:
        pytest.skip("a pinned modern client adopts a synthesized discover result: no instructions")
    assert (tour["connect"]["instructions"] or "").strip()


# --- Tools -----------------------------------------------------------------------------------
def test_lists_exactly_the_glossary_tools(tour):
    """tools/list, followed across pages, lists the five glossary tools once each (Tools,
    "Listing Tools"; Pagination)."""
    names = [tool.name for tool in tour["tools"]]
    assert sorted(names) == sorted(TOOLS)


def test_tools_are_read_only_and_closed_world(tour):
    """Every tool has a title, a description, an object inputSchema, an outputSchema and the
    annotations readOnlyHint=true, openWorldHint=false (Tools, "Tool"; issue: tools)."""
    for tool in tour["tools"]:
        assert tool.title and tool.description, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.annotations.read_only_hint is True, tool.name
        assert tool.annotations.open_world_hint is False, tool.name


def test_search_term_ranks_the_exact_term_first(tour):
    """search_term "MCP" puts the term with slug `mcp` first, and says so in text too."""
    result = tour["search_term MCP"]
    assert not result.is_error, text_of(result)
    assert hit_slugs(result.structured_content)[0] == "mcp"
    assert "mcp" in text_of(result)


def test_search_term_honours_limit(tour):
    """search_term returns at most `limit` hits."""
    result = tour["search_term limit"]
    assert not result.is_error, text_of(result)
    assert len(hit_slugs(result.structured_content)) <= 2


def test_get_term_returns_the_whole_term_as_structured_content(tour):
    """get_term json-rpc returns structuredContent (validated by the SDK against outputSchema)
    with the term's slug, name and definition, plus a readable text block."""
    result = tour["get_term json-rpc"]
    assert not result.is_error, text_of(result)
    term = result.structured_content
    term = term.get("term", term)
    assert term["slug"] == "json-rpc"
    assert term["name"]
    assert text_of(result).strip()


def test_get_term_unknown_slug_is_a_tool_error_with_suggestions(tour):
    """An unknown slug is an isError result (not a protocol error) naming the closest existing
    slugs, so a model can correct itself (Tools, "Error Handling"; SEP-1303)."""
    result = tour["get_term typo"]
    assert result.is_error
    assert "json-rpc" in text_of(result)


def test_list_terms_pages_cover_every_term_once(tour):
    """list_terms pages through all published terms with opaque cursors: no term twice, each
    page within the page size, the demo terms all present."""
    pages = tour["list_terms pages"]
    slugs = [slug for page in pages for slug in page]
    assert len(pages) > 1, "the live server uses MCP_PAGE_SIZE=5: the demo must span pages"
    assert len(slugs) == len(set(slugs))
    assert {"json-rpc", "mcp", "sse", "streamable-http", "agent-readiness"} <= set(slugs)


def test_list_terms_pages_can_be_followed_from_the_text_alone(tour):
    """Issue 14: a client that hands the model only the text can page through list_terms:
    the text's next-page calls (cursor included) reach exactly the pages the structured
    cursors do, with no filter and with a category given by name in another case."""
    assert tour["list_terms by text"] == tour["list_terms pages"]
    by_name = tour["list_terms category by text"]
    assert by_name == tour["list_terms category by cursor"]
    assert len(by_name) > 1, "the demo's Agenci AI must span pages at MCP_PAGE_SIZE=5"


def test_list_terms_filters_by_letter(tour):
    """list_terms letter=M lists only terms under M, `mcp` among them."""
    slugs = [slug for page in tour["list_terms letter"] for slug in page]
    assert "mcp" in slugs
    assert "json-rpc" not in slugs


def test_search_articles_finds_articles(tour):
    """search_articles "MCP" finds at least one published article (the demo has several)."""
    result = tour["search_articles"]
    assert not result.is_error, text_of(result)
    assert tour["article slug"]


def test_get_article_returns_the_article(tour):
    """get_article returns the article found by search_articles, by slug."""
    if not tour["article slug"]:
        pytest.fail("no article to get: search_articles found none")
    result = tour["get_article"]
    assert not result.is_error, text_of(result)
    article = result.structured_content
    article = article.get("article", article)
    assert article["slug"] == tour["article slug"]


# --- Resources -------------------------------------------------------------------------------
def test_resources_list_terms_and_articles(tour):
    """resources/list, followed across pages, has term and article resources as text/markdown."""
    resources = tour["resources"]
    uris = {str(resource.uri) for resource in resources}
    assert "glossary://terms/json-rpc" in uris
    assert any(uri.startswith("glossary://articles/") for uri in uris)
    assert len(uris) == len(resources)
    assert {resource.mime_type for resource in resources} == {"text/markdown"}


def test_resource_templates_cover_both_kinds(tour):
    """resources/templates/list has the term and article URI templates (RFC 6570)."""
    templates = {template.uri_template for template in tour["templates"]}
    assert {TERM_TEMPLATE, ARTICLE_TEMPLATE} <= templates


def test_read_term_resource(tour):
    """resources/read of a term returns its Markdown under the same URI."""
    (content,) = tour["read term"].contents
    assert str(content.uri) == "glossary://terms/json-rpc"
    assert content.mime_type == "text/markdown"
    assert content.text.strip()


def test_read_article_resource(tour):
    """resources/read of an article returns its Markdown under the same URI."""
    if not tour["article slug"]:
        pytest.fail("no article to read: search_articles found none")
    (content,) = tour["read article"].contents
    assert str(content.uri) == f"glossary://articles/{tour['article slug']}"
    assert content.mime_type == "text/markdown"
    assert content.text.strip()


def test_read_missing_resource_is_resource_not_found(tour):
    """A missing resource is a JSON-RPC error: -32002 in the legacy revisions, -32602 from
    2026-07-28 (Resources, "Error Handling"; 2026-07-28 changelog, SEP-2164)."""
    error = tour.error("read missing")
    assert error.code == (-32602 if tour.expected_version == MODERN else -32002)


# --- Prompts ---------------------------------------------------------------------------------
def test_lists_exactly_the_glossary_prompts(tour):
    """prompts/list has the three glossary prompts, each described, with its arguments."""
    prompts = {prompt.name: prompt for prompt in tour["prompts"]}
    assert set(prompts) == PROMPTS
    assert all(prompt.description for prompt in prompts.values())
    required = {
        name: {arg.name for arg in prompt.arguments or () if arg.required}
        for name, prompt in prompts.items()
    }
    assert required == {
        "explain_term": {"slug"},
        "compare_terms": {"first", "second"},
        "summarize_article": {"slug"},
    }


def _embedded_uris(result) -> set[str]:
    return {
        str(message.content.resource.uri)
        for message in result.messages
        if message.content.type == "resource"
    }


def test_explain_term_embeds_the_term(tour):
    """explain_term embeds the term resource it is about (Prompts, "Embedded Resources")."""
    result = tour["explain_term"]
    assert result.messages
    assert "glossary://terms/mcp" in _embedded_uris(result)


def test_explain_term_takes_an_audience(tour):
    """explain_term with an audience mentions that audience in its instructions."""
    result = tour["explain_term audience"]
    texts = [m.content.text for m in result.messages if m.content.type == "text"]
    assert any("początkujący" in text for text in texts)


def test_compare_terms_embeds_both_terms(tour):
    """compare_terms embeds both terms it compares."""
    uris = _embedded_uris(tour["compare_terms"])
    assert {"glossary://terms/sse", "glossary://terms/websocket"} <= uris


def test_summarize_article_embeds_the_article(tour):
    """summarize_article embeds the article it summarizes."""
    if not tour["article slug"]:
        pytest.fail("no article to summarize: search_articles found none")
    uris = _embedded_uris(tour["summarize_article"])
    assert f"glossary://articles/{tour['article slug']}" in uris


# --- Completion ------------------------------------------------------------------------------
def test_completes_prompt_argument_from_real_slugs(tour):
    """completion/complete for explain_term's `slug` offers real slugs with the typed prefix
    (Completion, "Requesting Completions")."""
    completion = tour["complete prompt"].completion
    assert "json-rpc" in completion.values
    assert all(value.startswith("json") for value in completion.values)


def test_completes_second_prompt_argument_with_context(tour):
    """compare_terms' `second` argument completes too (context carries the first)."""
    assert "streamable-http" in tour["complete prompt second"].completion.values


def test_completes_term_template_slug(tour):
    """ref/resource completion of glossary://terms/{slug} offers matching term slugs."""
    assert "streamable-http" in tour["complete term template"].completion.values


def test_completes_article_template_slug(tour):
    """ref/resource completion of glossary://articles/{slug} offers article slugs (at most
    100 values, Completion "Completion Results")."""
    values = tour["complete article template"].completion.values
    assert tour["article slug"] in values
    assert len(values) <= 100
