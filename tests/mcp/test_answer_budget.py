"""A get_term/get_article answer has a budget (mcp_endpoint/features/presenters.py): the
terms a text mentions come as names and links, at most `MENTIONS_SHOWN`, never again when
the answer lists them already; times are to the second; a body over `BODY_BUDGET` is cut
and the answer says where the rest is (the entry's resource, which has all of it). The
tools' descriptions say so."""

import re

import pytest

from mcp_endpoint.features.presenters import BODY_BUDGET, MENTIONS_SHOWN
from tests.factories import make_article, make_term
from tests.mcp.helpers import call_tool, legacy, result_of

SITE = "https://slownik.example"
SECOND = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


@pytest.fixture
def site(db, site_address):
    site_address(SITE)


def _text(result) -> str:
    return result["content"][0]["text"]


def test_a_term_is_listed_once_and_mentions_are_names_and_links(client, site):
    """A related term the body also mentions is listed under related only (with its
    definition); the other mentioned terms are names and links, without definitions."""
    term = make_term("Gotowość agentów", slug="agent-readiness", body="O MCP i SSE.")
    mcp = make_term("MCP", slug="mcp", short_definition="Definicja MCP do pominięcia.")
    sse = make_term("SSE", slug="sse", short_definition="Definicja SSE.")
    term.related.add(sse)
    term.mentions.add(mcp, sse)
    result = call_tool(client, "get_term", {"slug": "agent-readiness"})
    data = result["structuredContent"]
    assert [r["slug"] for r in data["related"]] == ["sse"]
    assert data["mentions"] == [{"slug": "mcp", "name": "MCP", "url": f"{SITE}/slownik/mcp/"}]
    assert data["mentionsTotal"] == 1
    text = _text(result)
    assert text.count(f"{SITE}/slownik/sse/") == 1
    assert "Definicja MCP do pominięcia." not in text
    assert f"[MCP]({SITE}/slownik/mcp/)" in text


def test_an_article_lists_a_used_term_once(client, site):
    """A term the article uses (its terms) is not listed again among its mentions."""
    mcp = make_term("MCP", slug="mcp")
    sse = make_term("SSE", slug="sse")
    article = make_article("O MCP", slug="o-mcp", body="MCP i SSE.", terms=[mcp])
    article.mentions.add(mcp, sse)
    data = call_tool(client, "get_article", {"slug": "o-mcp"})["structuredContent"]
    assert [t["slug"] for t in data["terms"]] == ["mcp"]
    assert [m["slug"] for m in data["mentions"]] == ["sse"]


def test_mentions_are_capped_and_the_resource_lists_them_all(client, site):
    """A text that mentions more than MENTIONS_SHOWN terms: the tool shows that many, says
    how many there are and where the full list is; the resource lists every one."""
    term = make_term("Przegląd", slug="przeglad", body="Wiele pojęć.")
    others = [
        make_term(f"Pojęcie {n:02}", slug=f"pojecie-{n:02}") for n in range(MENTIONS_SHOWN + 5)
    ]
    term.mentions.add(*others)
    result = call_tool(client, "get_term", {"slug": "przeglad"})
    data = result["structuredContent"]
    assert len(data["mentions"]) == MENTIONS_SHOWN and data["mentionsTotal"] == MENTIONS_SHOWN + 5
    assert data["resource"] == "glossary://terms/przeglad"
    assert "Oraz 5 innych: pełna lista w zasobie glossary://terms/przeglad." in _text(result)
    read = result_of(legacy(client, "resources/read", {"uri": "glossary://terms/przeglad"}))
    full = read["contents"][0]["text"]
    assert all(f"{SITE}/slownik/{o.slug}/" in full for o in others)
    assert "innych" not in full


def test_times_are_to_the_second(client, site):
    """updatedAt/publishedAt and the text's footer carry no microseconds."""
    make_term("MCP", slug="mcp")
    make_article("O MCP", slug="o-mcp")
    term = call_tool(client, "get_term", {"slug": "mcp"})
    article = call_tool(client, "get_article", {"slug": "o-mcp"})
    for value in (
        term["structuredContent"]["updatedAt"],
        article["structuredContent"]["publishedAt"],
        article["structuredContent"]["updatedAt"],
    ):
        assert SECOND.fullmatch(value), value
    assert SECOND.search(_text(term)) and not re.search(r":\d\d\.\d{6}", _text(term))
    assert not re.search(r":\d\d\.\d{6}", _text(article))


@pytest.mark.parametrize(("tool", "slug", "uri"), [
    ("get_term", "dlugie", "glossary://terms/dlugie"),
    ("get_article", "dlugi", "glossary://articles/dlugi"),
])  # fmt: skip
def test_a_long_body_is_cut_and_the_resource_has_the_rest(client, site, tool, slug, uri):
    """A body far over BODY_BUDGET comes back cut to at most the budget, in the text and in
    structuredContent, flagged, with its full length and the resource that holds it all; the
    whole answer stays within a few budgets instead of twice the body."""
    paragraph = "Akapit o protokole i jego zasadach działania w praktyce. " * 20
    body = "\n\n".join(paragraph + str(n) for n in range(300))
    assert len(body) > 10 * BODY_BUDGET
    if tool == "get_term":
        make_term("Długie", slug=slug, body=body)
    else:
        make_article("Długi", slug=slug, body=body)
    result = call_tool(client, tool, {"slug": slug})
    data = result["structuredContent"]
    assert data["bodyTruncated"] is True and data["bodyLength"] == len(body)
    assert len(data["body"]) <= BODY_BUDGET and body.startswith(data["body"])
    assert data["resource"] == uri
    text = _text(result)
    assert f"całość: zasób {uri}" in text
    assert len(text) + len(data["body"]) < 3 * BODY_BUDGET
    read = result_of(legacy(client, "resources/read", {"uri": uri}))
    assert body in read["contents"][0]["text"]


def test_a_short_body_is_whole(client, site):
    """Within the budget nothing is cut and nothing says so."""
    make_term("MCP", slug="mcp", body="Krótka treść.")
    result = call_tool(client, "get_term", {"slug": "mcp"})
    data = result["structuredContent"]
    assert data["bodyTruncated"] is False and "bodyLength" not in data
    assert data["body"] == "Krótka treść." and "skrócona" not in _text(result)


@pytest.mark.parametrize("tool", ["get_term", "get_article"])
def test_the_tool_description_states_the_budget(client, db, tool):
    """The model learns the budget and where the rest is before it calls."""
    tools = result_of(legacy(client, "tools/list"))["tools"]
    description = next(t["description"] for t in tools if t["name"] == tool)
    assert "20 000 znaków" in description and "najwyżej 20" in description
    assert "resources/read" in description
