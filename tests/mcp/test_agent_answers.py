"""What the model reads (issue 14, item 1 and 3): answers without traps. Filters take what a
model was shown, paged results say in their text how to go on, every link is absolute on the
site's one address, no raw HTML reaches the model, one language (Polish) throughout, and a
mistyped slug gets "did you mean" from the search engine. Each trap is a table."""

import re

import orjson
import pytest

from glossary.models import Category
from tests.factories import make_article, make_category, make_term
from tests.mcp.helpers import call_tool, legacy, result_of

SITE = "https://slownik.example"
# A Markdown link's target (not after an escaped `\]`: text the page shows as text) or a bare URL.
URL = re.compile(r"(?<!\\)\]\(([^)\s]+)|(?<![(\w])(https?://\S+|/\S+/)")
JS_LINK = re.compile(r"(?<!\\)\]\(\s*javascript:|href|src=")


@pytest.fixture
def glossary(db, site_address):
    """Terms in two categories with Polish names; a body with relative links and raw HTML."""
    site_address(SITE)
    agents = make_category("Agenci AI", slug="agenci-ai")
    protocols = make_category("Protokoły", slug="protokoly")
    agent = make_term("Agent", slug="agent", short_definition="Program działający sam.")
    mcp = make_term(
        "MCP",
        slug="mcp",
        short_definition="Model Context Protocol.",
        body=(
            "Zob. [SSE](/slownik/sse/) i [agenta][a].\n\n[a]: /slownik/agent/\n\n"
            "Tekst <b>gruby</b> <script>steal()</script> [zły](javascript:void(0)) "
            '<a href="javascript:alert(2)" onclick="x()">klik</a>\n\n'
            "<div onmouseover='y()'>blok</div>\n\n```html\n<p>przykład kodu</p>\n```"
        ),
    )
    sse = make_term("SSE", slug="sse", short_definition="Server-Sent Events.")
    make_term("Streamable HTTP", slug="streamable-http", short_definition="Transport MCP.")
    agent.categories.add(agents)
    mcp.categories.add(agents, protocols)
    sse.categories.add(protocols)
    mcp.related.add(sse)
    make_article("O MCP", slug="o-mcp", body="Czytaj [MCP](/slownik/mcp/).", terms=[mcp])
    return locals()


def _text(result) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


def _slugs(result) -> list[str]:
    return [t["slug"] for t in result["structuredContent"]["terms"]]


# --- filters take names or slugs, any case, diacritics optional ---------------------------
@pytest.mark.parametrize(
    ("category", "slugs"),
    [
        pytest.param("agenci-ai", ["agent", "mcp"], id="slug"),
        pytest.param("Agenci AI", ["agent", "mcp"], id="name as shown by get_term"),
        pytest.param("AGENCI ai", ["agent", "mcp"], id="any case"),
        pytest.param("Protokoły", ["mcp", "sse"], id="name with Polish letters"),
        pytest.param("protokoly", ["mcp", "sse"], id="slug"),
        pytest.param("Protokoly", ["mcp", "sse"], id="name without Polish letters"),
        pytest.param("PROTOKOŁY", ["mcp", "sse"], id="upper case with Polish letters"),
    ],
)
def test_category_filter_takes_what_the_model_was_shown(client, glossary, category, slugs):
    """list_terms category: a name or a slug, in any case, with or without diacritics."""
    result = call_tool(client, "list_terms", {"category": category})
    assert result["isError"] is False
    assert _slugs(result) == slugs


@pytest.mark.parametrize("category", ["Agenci", "bazy-danych", "ąę"])
def test_unknown_category_is_an_error_naming_the_valid_ones(client, glossary, category):
    """An unknown category is an isError result listing every category by name and slug."""
    result = call_tool(client, "list_terms", {"category": category})
    assert result["isError"] is True
    text = _text(result)
    assert f"Nie ma kategorii „{category}”" in text
    for name, slug in Category.objects.values_list("name", "slug"):
        assert f"„{name}” ({slug})" in text


@pytest.mark.parametrize(("letter", "slugs"), [("M", ["mcp"]), ("m", ["mcp"]), ("s", ["sse",
                         "streamable-http"])])  # fmt: skip
def test_letter_filter_takes_any_case(client, glossary, letter, slugs):
    """list_terms letter: upper or lower case (the schema's enum lists both)."""
    assert _slugs(call_tool(client, "list_terms", {"letter": letter})) == slugs


def test_filter_schema_says_what_it_accepts(client, db):
    """tools/list: the letter enum, and a category description naming names and slugs."""
    tools = {t["name"]: t for t in result_of(legacy(client, "tools/list"))["tools"]}
    properties = tools["list_terms"]["inputSchema"]["properties"]
    assert {"A", "a", "Ż", "ż", "#"} <= set(properties["letter"]["enum"])
    assert "nazwa lub slug" in properties["category"]["description"]


# --- the next page is in the text ----------------------------------------------------------
NEXT_CALL = re.compile(r"wywołaj list_terms z argumentami (\{.*?\}) \(")


@pytest.mark.parametrize(
    "arguments",
    [pytest.param({}, id="no filter"), pytest.param({"category": "Protokoły"}, id="by name")],
)
def test_paged_result_says_how_to_get_the_next_page(client, glossary, settings, arguments):
    """Following only what the text says (the call with its cursor) reaches every term once."""
    settings.MCP_PAGE_SIZE = 1
    seen, calls = [], 0
    while True:
        result = call_tool(client, "list_terms", arguments)
        seen += _slugs(result)
        calls += 1
        found = NEXT_CALL.search(_text(result))
        if found is None:
            assert "nextCursor" not in result["structuredContent"]
            break
        arguments = orjson.loads(found[1])
        assert arguments["cursor"] == result["structuredContent"]["nextCursor"]
    expected = _slugs(call_tool(client, "list_terms", {k: v for k, v in arguments.items()
                                                       if k != "cursor"}))  # fmt: skip
    assert len(seen) == len(set(seen)) == calls
    assert seen[:1] == expected[:1] or not expected


def test_a_cursor_for_other_filters_is_an_actionable_error(client, glossary, settings):
    """A cursor used with other filters: isError saying to repeat the same filters."""
    settings.MCP_PAGE_SIZE = 1
    cursor = call_tool(client, "list_terms", {})["structuredContent"]["nextCursor"]
    result = call_tool(client, "list_terms", {"letter": "S", "cursor": cursor})
    assert result["isError"] is True and "z tymi samymi filtrami" in _text(result)


# --- every link absolute, no raw HTML ------------------------------------------------------
def _texts(client) -> dict[str, str]:
    calls = {
        "get_term": ("get_term", {"slug": "mcp"}),
        "get_article": ("get_article", {"slug": "o-mcp"}),
        "search_term": ("search_term", {"query": "mcp"}),
        "search_articles": ("search_articles", {"query": "mcp"}),
        "list_terms": ("list_terms", {}),
    }
    texts = {name: _text(call_tool(client, *call)) for name, call in calls.items()}
    read = result_of(legacy(client, "resources/read", {"uri": "glossary://terms/mcp"}))
    texts["resources/read"] = read["contents"][0]["text"]
    prompt = result_of(legacy(client, "prompts/get", {"name": "explain_term",
                                                      "arguments": {"slug": "mcp"}}))  # fmt: skip
    texts["prompts/get"] = prompt["messages"][0]["content"]["resource"]["text"]
    return texts


def test_every_link_in_every_text_is_absolute(client, glossary):
    """No text an agent reads has a relative link: bodies' site paths are rewritten with the
    canonical address, and entries named in lists link to their pages."""
    for name, text in _texts(client).items():
        for inline, bare in URL.findall(text.split("```")[0]):
            url = inline or bare
            assert url.startswith((SITE + "/", "mailto:")), (name, url)
    term = call_tool(client, "get_term", {"slug": "mcp"})
    assert f"[SSE]({SITE}/slownik/sse/)" in term["structuredContent"]["body"]
    assert f"[agenta]({SITE}/slownik/agent/)" in term["structuredContent"]["body"]
    assert term["structuredContent"]["related"][0]["url"] == f"{SITE}/slownik/sse/"
    assert f"- [SSE]({SITE}/slownik/sse/) (`sse`)" in _text(term)


@pytest.mark.parametrize(
    "trap",
    ["<script", "steal()", "alert(2)", "onclick", "onmouseover", "<b>", "<div", "<a "],
)
def test_no_raw_html_reaches_the_model(client, glossary, trap):
    """Raw HTML an editor typed is settled the way the page settles it (the same sanitizer):
    kept text stays, tags, scripts, event handlers and javascript: links are gone, in the
    text and in structuredContent alike (link syntax the page shows as text stays escaped
    text); code blocks keep their code."""
    term = call_tool(client, "get_term", {"slug": "mcp"})
    for name, text in {**_texts(client), "body": term["structuredContent"]["body"]}.items():
        assert trap not in text.replace("\\[", "[").split("```html")[0], (name, trap)
        assert not JS_LINK.search(text), name
    body = term["structuredContent"]["body"]
    assert "**gruby**" in body and "klik" in body and "blok" in body
    assert "```html\n<p>przykład kodu</p>\n```" in body


# --- one language, names not slugs, no repr, annotations -----------------------------------
ENGLISH = re.compile(r"\b(the|and|of|with|Returns?|Get|Search|List|Invalid|unknown)\b")


def test_tool_and_prompt_texts_are_polish(client, db):
    """Titles and descriptions of tools, their arguments, prompts and resource templates
    contain no English (the content language; see README "What agents see")."""
    tools = result_of(legacy(client, "tools/list"))["tools"]
    prompts = result_of(legacy(client, "prompts/list"))["prompts"]
    templates = result_of(legacy(client, "resources/templates/list"))["resourceTemplates"]
    texts = [t["title"] + " " + t["description"] for t in [*tools, *prompts, *templates]]
    texts += [p.get("description", "") for t in tools for p in
              t["inputSchema"]["properties"].values()]  # fmt: skip
    texts += [a["description"] for pr in prompts for a in pr["arguments"]]
    for text in texts:
        assert not ENGLISH.search(text), text


def test_every_tool_is_annotated(client, db):
    """Every tool has a title and the read-only, closed-world hints (2025-06-18 Tool
    annotations)."""
    for tool in result_of(legacy(client, "tools/list"))["tools"]:
        assert tool["annotations"]["title"] == tool["title"]
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["openWorldHint"] is False


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({}, "Brak wymaganego argumentu „query”"),
        ({"query": 5}, "Argument „query” musi być typu: tekst"),
        ({"query": "mcp", "limit": 99}, "Argument „limit” może wynosić najwyżej 50"),
        ({"query": "mcp", "extra": 1}, "Nieznany argument „extra”"),
    ],
)
def test_validation_errors_are_polish_and_name_the_arguments(client, db, arguments, says):
    """Argument errors say what is wrong and list the tool's arguments, never a Python repr
    of the schema."""
    result = call_tool(client, "search_term", arguments)
    text = _text(result)
    assert result["isError"] is True and says in text
    assert "- query (tekst, wymagany)" in text and "- limit (liczba całkowita, opcjonalny)" in text
    assert "{'" not in text and "'type'" not in text


@pytest.mark.parametrize(
    ("name", "arguments", "description"),
    [
        ("explain_term", {"slug": "streamable-http"}, "Wyjaśnienie pojęcia „Streamable HTTP”"),
        ("compare_terms", {"first": "mcp", "second": "sse"}, "Porównanie pojęć „MCP” i „SSE”"),
        ("summarize_article", {"slug": "o-mcp"}, "Streszczenie artykułu „O MCP”"),
    ],
)
def test_prompt_descriptions_use_names(client, glossary, name, arguments, description):
    """A prompt's description names the entries as readers know them, not by slug, and in
    Polish quotation marks: a name such as „Serwer MCP” keeps its capital mid-sentence."""
    result = result_of(legacy(client, "prompts/get", {"name": name, "arguments": arguments}))
    assert result["description"] == description


@pytest.mark.parametrize(("first", "second"), [("mcp", "mcp"), ("mcp", "MCP")])
def test_compare_terms_refuses_the_same_term_twice(client, glossary, first, second):
    """compare_terms with one term twice (however written) is -32602 saying so."""
    error = legacy(client, "prompts/get", {"name": "compare_terms",
                   "arguments": {"first": first, "second": second}}).json()["error"]  # fmt: skip
    assert error["code"] == -32602 and "to samo pojęcie (MCP)" in error["message"]


# --- did you mean (item 3) -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        pytest.param("mpc", "mcp", id="swapped letters"),
        pytest.param("agnet", "agent", id="swapped letters in a word"),
        pytest.param("mcpp", "mcp", id="one letter too many"),
        pytest.param("ssse", "sse", id="doubled letter"),
    ],
)
def test_typo_slugs_suggest_the_right_term(client, glossary, typed, meant):
    """get_term, resources/read and prompts/get on a mistyped slug name the intended term
    first (the engine's closest_term_slugs)."""
    result = call_tool(client, "get_term", {"slug": typed})
    assert result["isError"] is True
    assert _text(result).split("Czy chodziło o: ")[1].startswith(meant)
    error = legacy(client, "resources/read", {"uri": f"glossary://terms/{typed}"}).json()["error"]
    assert error["data"]["suggestions"][0] == f"glossary://terms/{meant}"
    assert f"Czy chodziło o: glossary://terms/{meant}" in error["message"]
    error = legacy(client, "prompts/get", {"name": "explain_term",
                   "arguments": {"slug": typed}}).json()["error"]  # fmt: skip
    assert error["data"]["suggestions"][0] == meant


@pytest.mark.parametrize(
    "written", ["Streamable-HTTP", "streamable http", "STREAMABLE-HTTP", "Streamable HTTP"]
)
def test_case_and_format_variants_are_normalised_to_the_slug(client, glossary, written):
    """A slug written as a name or in another case is the entry itself (no error)."""
    result = call_tool(client, "get_term", {"slug": written})
    assert result["isError"] is False
    assert result["structuredContent"]["slug"] == "streamable-http"
    read = result_of(legacy(client, "resources/read", {"uri": f"glossary://terms/{written}"}))
    assert read["contents"][0]["uri"] == "glossary://terms/streamable-http"


def test_article_typo_suggests_the_article(client, glossary):
    """get_article on a mistyped slug names the closest article."""
    result = call_tool(client, "get_article", {"slug": "o-mpc"})
    assert result["isError"] is True and "Czy chodziło o: o-mcp" in _text(result)


# --- query counts stay constant ------------------------------------------------------------
@pytest.mark.parametrize(
    ("arguments", "queries"),
    [
        ({}, 1),
        ({"category": "Agenci AI"}, 2),  # the categories, then the page
        ({"category": "nieznana"}, 1),
        ({"slug": "mpc"}, None),
    ],
)
def test_filters_cost_constant_queries(
    client, glossary, settings, django_assert_num_queries, arguments, queries
):
    """With the result cache off: list_terms costs 1 query, 2 with a category filter (its
    names are resolved), 1 for an unknown category; get_term on a typo costs 2 (the miss,
    the slugs within two edits)."""
    settings.MCP_RESULT_CACHE_SIZE = 0
    name, queries = ("get_term", 2) if "slug" in arguments else ("list_terms", queries)
    with django_assert_num_queries(queries):
        call_tool(client, name, arguments)
