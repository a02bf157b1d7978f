"""Every link an agent receives is an absolute http(s) address (or a mailto: the editor wrote):
whatever an editor typed into a name, a definition, a lead, a synonym, a title or a body,
the Markdown an agent reads (tool text, structuredContent's Markdown body, resources,
prompts, the pages' Markdown alternates, /llms-full.txt) holds no other link and no raw HTML.
The texts are read with a Markdown parser that accepts any link target (markdown-it refuses
`javascript:` itself, a model's renderer may not)."""

import pytest
from markdown_it import MarkdownIt

from tests.factories import make_article, make_category, make_term
from tests.mcp.helpers import call_tool, legacy, result_of

SITE = "https://slownik.example"
EVIL = "[Kliknij](javascript:alert(1))"
HOSTILE = [
    EVIL,
    "[Kliknij](JAVASCRIPT:alert(1))",
    "[d](data:text/html,x)",
    "<javascript:alert(2)>",
    '<a href="javascript:alert(3)">a</a>',
    "[r][x]\n\n[x]: javascript:alert(4)",
    "![i](javascript:alert(5))",
]


def _permissive() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True})
    md.validateLink = lambda url: True
    return md


PARSER = _permissive()


def _targets(markdown: str) -> tuple[list[str], list[str]]:
    """(every link and image target, every raw HTML fragment) of `markdown`."""
    targets, html = [], []

    def walk(tokens):
        for token in tokens:
            if token.type == "link_open":
                targets.append(token.attrGet("href") or "")
            elif token.type == "image":
                targets.append(token.attrGet("src") or "")
            elif token.type in ("html_inline", "html_block"):
                html.append(token.content)
            if token.children:
                walk(token.children)

    walk(PARSER.parse(markdown))
    return targets, html


@pytest.fixture
def hostile(db, site_address):
    site_address(SITE)
    body = "\n\n".join(HOSTILE)
    category = make_category("Kat " + EVIL, slug="kat")
    term = make_term(
        "Zły " + EVIL,
        slug="zly",
        short_definition=EVIL + " " + HOSTILE[3],
        synonyms=[EVIL],
        body=body,
    )
    term.categories.add(category)
    other = make_term("Inny " + EVIL, slug="inny", short_definition=EVIL, body="O Zły.")
    term.related.add(other)
    make_article("Art " + EVIL, slug="art", lead=EVIL, body=body, terms=[term, other])
    return term


def _agent_texts(client) -> dict[str, str]:
    texts = {}
    for tool, arguments in (
        ("get_term", {"slug": "zly"}),
        ("get_term", {"slug": "inny"}),
        ("get_article", {"slug": "art"}),
        ("search_term", {"query": "zły"}),
        ("search_articles", {"query": "art"}),
        ("list_terms", {}),
    ):
        result = call_tool(client, tool, arguments)
        texts[f"{tool} {arguments} text"] = result["content"][0]["text"]
        body = (result.get("structuredContent") or {}).get("body")
        if body is not None:
            texts[f"{tool} {arguments} structuredContent.body"] = body
    for uri in ("glossary://terms/zly", "glossary://articles/art"):
        read = result_of(legacy(client, "resources/read", {"uri": uri}))
        texts[uri] = read["contents"][0]["text"]
    prompt = result_of(
        legacy(client, "prompts/get", {"name": "explain_term", "arguments": {"slug": "zly"}})
    )
    texts["prompts/get"] = prompt["messages"][0]["content"]["resource"]["text"]
    for path in ("/slownik/zly.md", "/artykuly/art.md", "/llms-full.txt", "/llms.txt"):
        response = client.get(path)
        assert response.status_code == 200, path
        texts[path] = response.content.decode()
    return texts


def test_every_link_an_agent_receives_is_absolute_http(client, hostile):
    """No `javascript:`, `data:` or relative link and no raw HTML in any text an agent reads:
    an editor's link syntax in a plain-text field is escaped text, and a body's refused links
    are text too."""
    for name, text in _agent_texts(client).items():
        targets, html = _targets(text)
        assert html == [], (name, html)
        for target in targets:
            assert target.startswith(("https://", "http://", "mailto:")), (name, target)
        assert "](javascript" not in text.replace("\\]", ""), name


def test_the_escaped_text_still_says_what_the_editor_typed(client, hostile):
    """Escaping keeps the words: the definition's text is there, as text."""
    text = call_tool(client, "get_term", {"slug": "zly"})["content"][0]["text"]
    assert "\\[Kliknij\\](javascript:alert(1))" in text
