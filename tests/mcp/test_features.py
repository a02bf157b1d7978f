"""What agents get: the glossary tools, resources, prompts and completions, their schemas,
their results, draft invisibility and their SQL query budgets (through the HTTP view)."""

import pytest
from jsonschema import Draft202012Validator

from tests.mcp.helpers import call_tool, legacy, result_of

TOOL_NAMES = ["search_term", "get_term", "list_terms", "search_articles", "get_article"]


def _tools(client) -> dict:
    return {t["name"]: t for t in result_of(legacy(client, "tools/list"))["tools"]}


def test_tools_are_declared_with_schemas_and_read_only_annotations(client, db):
    """2025-11-25 server/tools §Tool: every tool has title, description, inputSchema and
    outputSchema (valid JSON Schema 2020-12) and is read-only and closed-world."""
    tools = _tools(client)
    assert list(tools) == TOOL_NAMES
    for tool in tools.values():
        assert tool["title"] and tool["description"]
        assert tool["inputSchema"]["type"] == "object"
        assert tool["outputSchema"]["type"] == "object"
        Draft202012Validator.check_schema(tool["inputSchema"])
        Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["openWorldHint"] is False


CALLS = [
    ("search_term", {"query": "mcp"}),
    ("search_term", {"query": "zzzz-nic"}),
    ("search_term", {"query": "protokol", "limit": 1}),
    ("get_term", {"slug": "mcp"}),
    ("get_term", {"slug": "json-rpc"}),
    ("list_terms", {}),
    ("list_terms", {"letter": "M"}),
    ("list_terms", {"category": "protokoly"}),
    ("search_articles", {"query": "mcp"}),
    ("get_article", {"slug": "czym-jest-mcp"}),
    ("get_article", {"slug": "mcp-w-bajtach"}),
]


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize(("name", "arguments"), CALLS)
def test_structured_content_matches_output_schema(client, content, era, name, arguments):
    """2025-06-18 server/tools §Output Schema: structuredContent MUST conform to the
    outputSchema; a readable Markdown text block comes with it."""
    schema = _tools(client)[name]["outputSchema"]
    result = call_tool(client, name, arguments, era=era)
    assert result["isError"] is False
    Draft202012Validator(schema).validate(result["structuredContent"])
    assert result["content"][0]["type"] == "text" and result["content"][0]["text"]


def test_search_term_ranks_and_links(client, content, settings):
    """search_term returns name, slug, short definition, absolute page URL and score."""
    result = call_tool(client, "search_term", {"query": "MCP"})["structuredContent"]
    first = result["results"][0]
    assert first["slug"] == "mcp" and first["name"] == "MCP"
    assert first["url"] == f"{settings.SITE_URL}/slownik/mcp/"
    assert first["score"] == 1.0
    assert "Model Context Protocol" in first["shortDefinition"]


def test_search_term_limit(client, content):
    """limit caps the number of results."""
    result = call_tool(client, "search_term", {"query": "protok", "limit": 1})
    assert len(result["structuredContent"]["results"]) == 1


def test_search_term_without_hits_is_not_an_error(client, content):
    """No confident hit is a normal result that says so (with "did you mean" slugs, if any):
    whatever it lists are guesses, marked weak."""
    result = call_tool(client, "search_term", {"query": "xyzzy qwertz"})
    assert result["isError"] is False
    assert all(hit["weak"] for hit in result["structuredContent"]["results"])
    assert result["structuredContent"]["weak"] is True
    assert isinstance(result["structuredContent"]["suggestions"], list)
    assert result["content"][0]["text"].startswith("Brak p")


def test_get_term_returns_the_whole_entry(client, content, settings):
    """get_term: definition, Markdown body, synonyms, categories, related, articles, URL, time."""
    data = call_tool(client, "get_term", {"slug": "mcp"})["structuredContent"]
    assert data["body"].startswith("## Jak działa")
    assert data["synonyms"] == ["Model Context Protocol"]
    assert data["categories"] == [{"slug": "protokoly", "name": "Protokoły"}]
    assert [r["slug"] for r in data["related"]] == ["json-rpc"]
    assert [a["slug"] for a in data["articles"]] == ["mcp-w-bajtach", "czym-jest-mcp"]
    assert data["articles"][0]["url"] == f"{settings.SITE_URL}/artykuly/mcp-w-bajtach/"
    assert data["url"] == f"{settings.SITE_URL}/slownik/mcp/"
    assert data["updatedAt"].startswith(str(content.mcp.updated_at.year))


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_get_term_carries_the_english_name_and_definition_never_asked_as(client, content, era):
    """get_term's structured content and text carry the English name and definition when an
    editor gave them (plain text escaped in Markdown, valid against the outputSchema), and
    leave them out when not; the phrases readers asked by (`asked_as`) never reach agents."""
    mcp = content.mcp
    mcp.english_name = "Model *Context* Protocol"
    mcp.english_definition = "An [open](javascript:x) protocol for <tools>."
    mcp.asked_as = ["tajne pytanie redakcji"]
    mcp.save()
    schema = _tools(client)["get_term"]["outputSchema"]
    result = call_tool(client, "get_term", {"slug": "mcp"}, era=era)
    data, text = result["structuredContent"], result["content"][0]["text"]
    Draft202012Validator(schema).validate(data)
    assert data["englishName"] == "Model *Context* Protocol"
    assert data["englishDefinition"] == "An [open](javascript:x) protocol for <tools>."
    assert "**Nazwa angielska:** Model \\*Context\\* Protocol" in text
    assert "**Po angielsku:** An \\[open\\](javascript:x) protocol for \\<tools\\>." in text
    assert "tajne pytanie" not in str(result)
    other = call_tool(client, "get_term", {"slug": "json-rpc"}, era=era)
    assert "englishName" not in other["structuredContent"]
    assert "englishDefinition" not in other["structuredContent"]
    assert "angielsk" not in other["content"][0]["text"]


def test_get_term_unknown_slug_names_closest_slugs(client, content):
    """An unknown slug is an isError result naming the closest existing slugs."""
    result = call_tool(client, "get_term", {"slug": "mcpp"})
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert "mcp" in result["content"][0]["text"].split("Czy chodziło o:")[1]


@pytest.mark.parametrize(
    "arguments",
    [{}, {"slug": 5}, {"slug": ""}, {"slug": "mcp", "extra": 1}],
    ids=["missing", "wrong-type", "empty", "unknown-argument"],
)
def test_invalid_tool_arguments_are_tool_errors(client, content, arguments):
    """2025-11-25 server/tools §Error Handling (SEP-1303): input validation errors are
    isError results with an actionable message, not protocol errors."""
    response = legacy(client, "tools/call", {"name": "get_term", "arguments": arguments})
    result = result_of(response)
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith("Niepoprawne argumenty get_term: ")
    assert "- slug (tekst, wymagany)" in text


def test_list_terms_pages_and_filters(client, content, settings):
    """list_terms: alphabetical keyset pages; letter and category filters."""
    settings.MCP_PAGE_SIZE = 2
    first = call_tool(client, "list_terms", {})["structuredContent"]
    assert [t["slug"] for t in first["terms"]] == ["json-rpc", "mcp"]
    second = call_tool(client, "list_terms", {"cursor": first["nextCursor"]})["structuredContent"]
    assert [t["slug"] for t in second["terms"]] == ["sse"] and "nextCursor" not in second
    by_letter = call_tool(client, "list_terms", {"letter": "S"})["structuredContent"]
    assert [t["slug"] for t in by_letter["terms"]] == ["sse"]
    by_category = call_tool(client, "list_terms", {"category": "protokoly"})["structuredContent"]
    assert [t["slug"] for t in by_category["terms"]] == ["mcp"]


def test_list_terms_rejects_foreign_cursor_as_tool_error(client, content, settings):
    """A cursor from another filter is an argument the model can fix: isError."""
    settings.MCP_PAGE_SIZE = 1
    cursor = call_tool(client, "list_terms", {})["structuredContent"]["nextCursor"]
    result = call_tool(client, "list_terms", {"letter": "M", "cursor": cursor})
    assert result["isError"] is True and "cursor" in result["content"][0]["text"]


def test_list_terms_rejects_unknown_letter(client, content):
    """letter is one of the index letters."""
    assert call_tool(client, "list_terms", {"letter": "Q1"})["isError"] is True


def test_get_article_includes_terms_and_series_neighbours(client, content):
    """get_article: the article with its glossary terms and series previous/next."""
    data = call_tool(client, "get_article", {"slug": "czym-jest-mcp"})["structuredContent"]
    assert [t["slug"] for t in data["terms"]] == ["json-rpc", "mcp"]
    assert data["series"] == {"name": "MCP od podstaw", "slug": "mcp-od-podstaw"}
    assert data["previous"] is None and data["next"]["slug"] == "mcp-w-bajtach"
    text = call_tool(client, "get_article", {"slug": "czym-jest-mcp"})["content"][0]["text"]
    assert "## Pojęcia ze słownika" in text


def test_get_article_unknown_slug_is_tool_error(client, content):
    """An unknown article slug is an isError result pointing to a way forward."""
    result = call_tool(client, "get_article", {"slug": "czym-jest"})
    assert result["isError"] is True and "czym-jest-mcp" in result["content"][0]["text"]


def test_search_articles(client, content, settings):
    """search_articles: title, slug, lead and page URL of matching published articles, each
    marked as a confident match or a guess (`weak`)."""
    results = call_tool(client, "search_articles", {"query": "bajtach"})["structuredContent"]
    assert results["results"] == [
        {
            "title": "MCP w bajtach",
            "slug": "mcp-w-bajtach",
            "lead": "Wiadomości JSON-RPC.",
            "url": f"{settings.SITE_URL}/artykuly/mcp-w-bajtach/",
            "weak": False,
        }
    ]
    assert results["weak"] is False


# --- resources -------------------------------------------------------------------------------
def test_resource_templates(client, db):
    """2025-11-25 server/resources §Resource Templates: the two URI templates."""
    templates = result_of(legacy(client, "resources/templates/list"))["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == [
        "glossary://terms/{slug}",
        "glossary://articles/{slug}",
    ]
    assert all(t["mimeType"] == "text/markdown" and t["description"] for t in templates)


def test_read_term_resource(client, content):
    """2025-11-25 server/resources §Reading Resources: a term as a Markdown document."""
    result = result_of(legacy(client, "resources/read", {"uri": "glossary://terms/mcp"}))
    (contents,) = result["contents"]
    assert contents["uri"] == "glossary://terms/mcp"
    assert contents["mimeType"] == "text/markdown"
    assert contents["text"].startswith("# MCP\n")
    assert "## Pojęcia powiązane" in contents["text"] and "JSON-RPC" in contents["text"]


def test_read_article_resource(client, content):
    """An article as a Markdown document with its glossary terms."""
    uri = "glossary://articles/czym-jest-mcp"
    (contents,) = result_of(legacy(client, "resources/read", {"uri": uri}))["contents"]
    assert contents["text"].startswith("# Czym jest MCP\n")
    assert "Następny w serii" in contents["text"]


def test_resource_not_found_names_the_uri(client, content):
    """2025-11-25 server/resources §Error Handling: -32002 with data.uri (plus the closest
    resources, none here)."""
    error = legacy(client, "resources/read", {"uri": "glossary://terms/brak"}).json()["error"]
    assert error["code"] == -32002 and error["data"]["uri"] == "glossary://terms/brak"
    assert error["data"]["suggestions"] == []


# --- prompts ---------------------------------------------------------------------------------
def test_prompts_are_declared(client, db):
    """2025-11-25 server/prompts §Listing Prompts: name, title, description, arguments."""
    prompts = result_of(legacy(client, "prompts/list"))["prompts"]
    assert [(pr["name"], [a["name"] for a in pr["arguments"]]) for pr in prompts] == [
        ("explain_term", ["slug", "audience"]),
        ("compare_terms", ["first", "second"]),
        ("summarize_article", ["slug"]),
    ]
    assert all(pr["description"] and pr["title"] for pr in prompts)


@pytest.mark.parametrize(
    ("name", "arguments", "uris"),
    [
        ("explain_term", {"slug": "mcp", "audience": "student"}, ["glossary://terms/mcp"]),
        ("explain_term", {"slug": "mcp"}, ["glossary://terms/mcp"]),
        (
            "compare_terms",
            {"first": "mcp", "second": "json-rpc"},
            ["glossary://terms/mcp", "glossary://terms/json-rpc"],
        ),
        ("summarize_article", {"slug": "czym-jest-mcp"}, ["glossary://articles/czym-jest-mcp"]),
    ],
)
def test_prompts_embed_the_resources_they_use(client, content, name, arguments, uris):
    """2025-11-25 server/prompts §Embedded Resources: entries embedded, then a Polish
    instruction."""
    result = result_of(legacy(client, "prompts/get", {"name": name, "arguments": arguments}))
    *embedded, instruction = result["messages"]
    assert [m["content"]["resource"]["uri"] for m in embedded] == uris
    assert all(m["content"]["type"] == "resource" and m["role"] == "user" for m in embedded)
    assert all(m["content"]["resource"]["mimeType"] == "text/markdown" for m in embedded)
    assert (
        instruction["content"]["type"] == "text" and "po polsku" in instruction["content"]["text"]
    )


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("explain_term", {}, "slug"),
        ("explain_term", {"slug": "nie-ma"}, "nie-ma"),
        ("explain_term", {"slug": 3}, "slug"),
        ("compare_terms", {"first": "mcp"}, "second"),
        ("compare_terms", {"first": "mcp", "second": "mpc"}, "second"),
        ("summarize_article", {"slug": "nie-ma"}, "nie-ma"),
    ],
)
def test_prompt_argument_errors(client, content, name, arguments, fragment):
    """2025-11-25 server/prompts §Error Handling: missing/unknown arguments -> -32602 with a
    message naming the argument."""
    error = legacy(client, "prompts/get", {"name": name, "arguments": arguments}).json()["error"]
    assert error["code"] == -32602 and fragment in error["message"]


TERMS_REF = {"type": "ref/resource", "uri": "glossary://terms/{slug}"}
ARTICLES_REF = {"type": "ref/resource", "uri": "glossary://articles/{slug}"}
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}
COMPARE = {"name": "compare_terms", "arguments": {"first": "mcp", "second": "sse"}}


# --- completion ------------------------------------------------------------------------------
def _complete(client, ref, name, value):
    params = {"ref": ref, "argument": {"name": name, "value": value}}
    return result_of(legacy(client, "completion/complete", params))["completion"]


@pytest.mark.parametrize(
    ("ref", "argument", "value", "expected"),
    [
        ({"type": "ref/resource", "uri": "glossary://terms/{slug}"}, "slug", "m", ["mcp"]),
        (TERMS_REF, "slug", "", ["json-rpc", "mcp", "sse"]),
        (ARTICLES_REF, "slug", "c", ["czym-jest-mcp"]),
        ({"type": "ref/prompt", "name": "explain_term"}, "slug", "js", ["json-rpc"]),
        ({"type": "ref/prompt", "name": "explain_term"}, "audience", "stu", ["student"]),
        ({"type": "ref/prompt", "name": "compare_terms"}, "second", "s", ["sse"]),
        ({"type": "ref/prompt", "name": "summarize_article"}, "slug", "mcp-", ["mcp-w-bajtach"]),
        ({"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1", "test", []),
        ({"type": "ref/resource", "uri": "test://template/{id}"}, "id", "1", []),
        ({"type": "ref/prompt", "name": "explain_term"}, "nope", "x", []),
    ],
)  # fmt: skip
def test_completion(client, content, ref, argument, value, expected):
    """2025-11-25 server/utilities/completion: values from real published slugs; a ref we
    don't know completes to an empty list (not an error)."""
    completion = _complete(client, ref, argument, value)
    assert completion["values"] == expected
    assert completion["total"] == len(expected) and completion["hasMore"] is False


# --- drafts are invisible --------------------------------------------------------------------
DRAFT_TERMS = ("tajny-szkic", "przyszle-pojecie")


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("search_term", {"query": "tajny"}),
        ("search_term", {"query": "przyszłe"}),
        ("list_terms", {}),
        ("list_terms", {"letter": "T"}),
        ("search_articles", {"query": "szkic"}),
    ],
)
def test_tools_never_list_drafts(client, content, name, arguments):
    """Drafts and scheduled entries are invisible to every listing/search tool."""
    result = call_tool(client, name, arguments)
    text = str(result)
    for slug in (*DRAFT_TERMS, "szkic-artykulu"):
        assert slug not in text


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("get_term", "tajny-szkic"),
        ("get_term", "przyszle-pojecie"),
        ("get_article", "szkic-artykulu"),
    ],
)
def test_get_tools_do_not_reveal_drafts(client, content, name, slug):
    """Fetching a draft by slug is the same as fetching a slug that does not exist."""
    result = call_tool(client, name, {"slug": slug})
    text = result["content"][0]["text"]
    assert result["isError"] is True and "Nie ma opublikowanego" in text
    assert slug not in text.partition("Czy chodziło o:")[2]


def test_published_entries_do_not_leak_linked_drafts(client, content):
    """A published entry never shows draft terms or articles attached to it."""
    term = call_tool(client, "get_term", {"slug": "mcp"})
    article = call_tool(client, "get_article", {"slug": "mcp-w-bajtach"})
    for result in (term, article):
        assert "tajny-szkic" not in str(result) and "szkic-artykulu" not in str(result)


def test_resources_never_show_drafts(client, content):
    """resources/list and resources/read see published entries only."""
    uris = [r["uri"] for r in result_of(legacy(client, "resources/list"))["resources"]]
    assert not [u for u in uris if "szkic" in u or "przyszle" in u]
    for uri in ("glossary://terms/tajny-szkic", "glossary://articles/szkic-artykulu"):
        assert legacy(client, "resources/read", {"uri": uri}).json()["error"]["code"] == -32002


def test_prompts_and_completion_never_show_drafts(client, content):
    """Prompts refuse draft slugs; completion never offers them."""
    response = legacy(
        client, "prompts/get", {"name": "explain_term", "arguments": {"slug": "tajny-szkic"}}
    )
    assert response.json()["error"]["code"] == -32602
    for prefix in ("t", "p"):
        values = _complete(client, {"type": "ref/prompt", "name": "explain_term"}, "slug", prefix)[
            "values"
        ]
        assert not set(values) & set(DRAFT_TERMS)
    articles = _complete(
        client, {"type": "ref/resource", "uri": "glossary://articles/{slug}"}, "slug", "s"
    )
    assert articles["values"] == []


# --- query budgets (through the view: no session or auth queries on the MCP path) ----------
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_term", {"slug": "mcp"}),
        ("get_term", {"slug": "mcpp"}),
        ("search_term", {"query": "mcp"}),
        ("search_term", {"query": "mpc"}),
    ],
)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_get_and_search_term_use_at_most_two_queries(
    client, content, django_assert_max_num_queries, name, arguments, era
):
    """The issue's budget: at most 2 SQL queries per get_term/search_term HTTP call, plus the
    content-state read of the result cache (mcp_endpoint/features/cache.py) from a call's
    second sight on, which answers later repeats with that one query alone."""
    with django_assert_max_num_queries(2):
        call_tool(client, name, arguments, era=era)
    with django_assert_max_num_queries(1 + 2):
        call_tool(client, name, arguments, era=era)
    with django_assert_max_num_queries(1):
        call_tool(client, name, arguments, era=era)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("get_term", {"slug": "mcp"}),
        ("get_term", {"slug": "mcpp"}),
        ("search_term", {"query": "mcp"}),
        ("search_term", {"query": "mpc"}),
    ],
)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_without_the_result_cache_every_call_uses_at_most_two_queries(
    client, content, django_assert_max_num_queries, settings, name, arguments, era
):
    """Issue 3's budget holds as written when the result cache is off
    (`MCP_RESULT_CACHE_SIZE=0`): at most 2 SQL queries per get_term/search_term call, first
    call and repeat alike."""
    settings.MCP_RESULT_CACHE_SIZE = 0
    for _ in range(2):
        with django_assert_max_num_queries(2):
            call_tool(client, name, arguments, era=era)


@pytest.mark.parametrize(
    ("method_name", "params", "queries"),
    [
        ("initialize", INIT, 1),  # the new session row
        ("tools/list", {}, 0),
        ("prompts/list", {}, 0),
        ("resources/templates/list", {}, 0),
        # Cacheable reads, seen for the first time: the method's own queries alone (the
        # content-state read starts with a call's second sight: mcp_endpoint/features/cache.py).
        ("resources/list", {}, 2),
        ("resources/read", {"uri": "glossary://terms/mcp"}, 1),
        ("resources/read", {"uri": "glossary://articles/czym-jest-mcp"}, 1),
        ("prompts/get", COMPARE, 2),
    ],
)  # fmt: skip
def test_constant_query_counts(
    client, content, django_assert_num_queries, method_name, params, queries
):
    """Every method runs a fixed number of queries, whatever the content size; a cacheable
    read then costs the content state on top at its second call (stored) and the content
    state alone from its third (answered from the result cache)."""
    with django_assert_num_queries(queries):
        result_of(legacy(client, method_name, params))
    if method_name in CACHED_READS:
        with django_assert_num_queries(1 + queries):
            result_of(legacy(client, method_name, params))
        with django_assert_num_queries(1):
            result_of(legacy(client, method_name, params))


CACHED_READS = {"resources/list", "resources/read", "prompts/get"}
