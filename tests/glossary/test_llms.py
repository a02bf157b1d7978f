"""The site as agents read it (glossary/llms.py): Markdown alternates of term and article
pages, /llms.txt and /llms-full.txt in the llms.txt format (https://llmstxt.org), the MCP
endpoint advertised on the front page, and robots.txt groups for AI crawlers."""

import re

import pytest
from django.core.exceptions import ImproperlyConfigured
from markdown_it import MarkdownIt

from glossary import views
from glossary.models import Series, Status
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)

pytestmark = pytest.mark.django_db

SITE_URL = "https://slownik.example"
SECRETS = ["Tajnyszkic", "Przyszłośćpojęcie", "Tajnyartykuł"]
HOSTILE = (
    'Zobacz [SSE](/slownik/sse/) i <a href="/artykuly/intro/">wstęp</a>.\n\n'
    '<script>alert(1)</script> <b onclick="x()">pogrubione</b> '
    "[zły](javascript:alert(2))\n\n"
    '## Szczegóły\n\n```json\n{"a": "<b>"}\n```\n\n'
    "Tekst z &lt;iframe&gt; w środku. ![Schemat](/static/img/schemat.png)"
)


@pytest.fixture(autouse=True)
def _site(request):
    """The canonical address lives in the Site row (glossary/site.py): tests with a database
    make it SITE_URL the way `manage.py site_url` would."""
    if "db" in request.fixturenames or "world" in request.fixturenames:
        request.getfixturevalue("site_address")(SITE_URL)
    views.AGENT_TEXTS.clear()


@pytest.fixture
def world():
    category = make_category("Protokoły")
    sse = make_term("SSE", short_definition="Strumień zdarzeń <serwera>.", body=HOSTILE)
    sse.categories.add(category)
    mcp = make_term("MCP", short_definition="Model Context Protocol.", synonyms=["Model_Context"])
    sse.related.add(mcp, make_draft_term("Tajnyszkic"), make_future_term("Przyszłośćpojęcie"))
    series = Series.objects.create(name="Od podstaw", slug="od-podstaw")
    first = make_article("Wstęp do SSE", lead="Krótko o *strumieniach*.", body=HOSTILE,
                         series=series, series_order=1, terms=[sse])  # fmt: skip
    second = make_article("Dalej", series=series, series_order=2, terms=[mcp])
    make_article("Tajnyartykuł", status=Status.DRAFT, terms=[sse])
    return {"sse": sse, "mcp": mcp, "first": first, "second": second}


def _tokens(markdown: str):
    """The Markdown as a CommonMark renderer with raw HTML enabled sees it."""
    md = MarkdownIt("commonmark", {"html": True})
    for token in md.parse(markdown):
        yield token
        yield from token.children or ()


def _assert_agent_markdown(markdown: str):
    tokens = list(_tokens(markdown))
    raw = [t.content for t in tokens if t.type in ("html_block", "html_inline")]
    assert raw == [], f"raw HTML in Markdown: {raw}"
    hrefs = [t.attrs["href"] for t in tokens if t.type == "link_open"]
    assert hrefs, "expected links"
    assert all(h.startswith(SITE_URL + "/") or h.startswith("https://") for h in hrefs), hrefs
    assert not any("javascript" in h for h in hrefs)
    for secret in SECRETS:
        assert secret not in markdown


@pytest.mark.parametrize(
    "key,path", [("sse", "/slownik/sse.md"), ("first", "/artykuly/wstep-do-sse.md")]
)
def test_markdown_alternate_has_absolute_links_and_no_raw_html(client, world, key, path):
    """A term's and an article's Markdown alternate is text/markdown, every link in it is
    absolute, hostile HTML an editor typed is gone (as on the page), and no draft shows."""
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    body = response.content.decode()
    _assert_agent_markdown(body)
    assert f"{SITE_URL}/slownik/sse/" in body  # the editor's relative link, made absolute
    assert "<script>" not in body and "onclick" not in body
    assert '```json\n{"a": "<b>"}\n```' in body  # code stays code
    assert "\\<iframe\\>" in body  # an escaped tag in text stays text
    assert f"![Schemat]({SITE_URL}/static/img/schemat.png)" in body  # images, absolute


def test_term_markdown_lists_related_terms_and_articles_as_markdown_links(client, world):
    """Related terms and articles link to their Markdown alternates; categories to pages."""
    body = client.get("/slownik/sse.md").content.decode()
    assert body.startswith("# SSE\n\n> Strumień zdarzeń \\<serwera\\>.\n")
    assert f"- [MCP]({SITE_URL}/slownik/mcp.md): Model Context Protocol." in body
    assert f"- [Wstęp do SSE]({SITE_URL}/artykuly/wstep-do-sse.md)" in body
    assert f"[Protokoły]({SITE_URL}/slownik/kategoria/protokoly/)" in body
    assert f"Strona: {SITE_URL}/slownik/sse/" in body
    assert "## Szczegóły" in body  # body headings below the H1


def test_article_markdown_names_its_series_neighbours(client, world):
    """An article's Markdown names the next article of its series with its Markdown URL."""
    body = client.get("/artykuly/wstep-do-sse.md").content.decode()
    assert "> Krótko o \\*strumieniach\\*." in body
    assert f"- [Dalej]({SITE_URL}/artykuly/dalej.md): Następny" in body


@pytest.mark.parametrize(
    "path",
    [
        "/slownik/tajnyszkic.md",
        "/slownik/przyszloscpojecie.md",
        "/artykuly/tajnyartykul.md",
        "/slownik/nie-ma.md",
    ],
)
def test_drafts_and_unknown_slugs_have_no_markdown(client, world, admin_client, path):
    """Drafts, scheduled entries and unknown slugs are 404, for staff too."""
    assert client.get(path).status_code == 404
    assert admin_client.get(path).status_code == 404


def test_index_html_md_redirects_to_the_markdown_url(client, world):
    """The llms.txt proposal's spelling for a path ending in / redirects to ours."""
    response = client.get("/slownik/sse/index.html.md")
    assert response.status_code == 301
    assert response["Location"] == "/slownik/sse.md"


def test_pages_link_their_markdown_alternate(client, world):
    """Term and article pages say where their Markdown is (rel=alternate, text/markdown)."""
    for path, md in [("/slownik/sse/", "/slownik/sse.md"),
                     ("/artykuly/wstep-do-sse/", "/artykuly/wstep-do-sse.md")]:  # fmt: skip
        html = client.get(path).content.decode()
        assert f'<link rel="alternate" type="text/markdown" title="Markdown" href="{md}">' in html


def test_draft_preview_has_no_markdown_alternate(admin_client, world):
    """Staff previewing a draft get no alternate link (the Markdown shows published only)."""
    draft = make_draft_term("Szkicowy")
    html = admin_client.get(draft.get_absolute_url()).content.decode()
    assert 'type="text/markdown"' not in html


@pytest.mark.parametrize(
    "path,fresh,cached",
    [
        ("/slownik/sse.md", 2, 1),
        ("/artykuly/wstep-do-sse.md", 2, 1),
        ("/llms.txt", 3, 1),
        ("/llms-full.txt", 3, 1),
    ],
)
def test_agent_texts_have_constant_query_counts(
    client, world, django_assert_num_queries, path, fresh, cached
):
    """Each agent text costs the content state plus its reads, then only the content state
    while nothing changed; more entries cost no more queries."""
    with django_assert_num_queries(fresh):
        assert client.get(path).status_code == 200
    with django_assert_num_queries(cached):
        client.get(path)
    for i in range(5):
        make_term(f"Dodatkowe {i}", body="Tekst [link](/slownik/sse/).").related.add(world["sse"])
        make_article(f"Więcej {i}", terms=[world["sse"]], body="Treść.")
    with django_assert_num_queries(fresh):
        assert client.get(path).status_code == 200


def test_an_edit_reaches_the_cached_markdown(client, world):
    """The cache is keyed by the content state: an edit shows on the next request."""
    assert "Nowa definicja" not in client.get("/slownik/mcp.md").content.decode()
    world["mcp"].short_definition = "Nowa definicja."
    world["mcp"].save()
    assert "> Nowa definicja." in client.get("/slownik/mcp.md").content.decode()


LIST_LINE = re.compile(r"^- \[(?P<name>[^\]]+)\]\((?P<url>https?://[^)\s]+)\)(?::\s.+)?$")


def test_llms_txt_follows_the_format(client, world):
    """/llms.txt: an H1 with the site's name, a blockquote summary, notes without headings,
    then H2 sections whose every list line is `- [name](url): notes`; it lists every
    published term and article with its Markdown URL, names the MCP endpoint, and no draft."""
    response = client.get("/llms.txt")
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    body = response.content.decode()
    lines = body.splitlines()
    assert lines[0] == "# Słownik"
    assert lines[2].startswith("> ")
    first_h2 = next(i for i, line in enumerate(lines) if line.startswith("## "))
    assert not any(line.startswith("#") for line in lines[1:first_h2])
    sections = [line for line in lines if line.startswith("## ")]
    assert sections == ["## Pojęcia", "## Artykuły", "## Optional"]
    items = [line for line in lines[first_h2:] if line.startswith("- ")]
    assert items and all(LIST_LINE.match(line) for line in items), items
    assert f"- [SSE]({SITE_URL}/slownik/sse.md): Strumień zdarzeń \\<serwera\\>." in lines
    assert f"- [MCP]({SITE_URL}/slownik/mcp.md): Model Context Protocol." in lines
    assert f"- [Dalej]({SITE_URL}/artykuly/dalej.md)" in lines
    assert f"{SITE_URL}/wp-json/webflux/v1/mcp" in body
    assert f"{SITE_URL}/llms-full.txt" in body
    for secret in SECRETS:
        assert secret not in body
    _assert_agent_markdown(body)


def test_llms_full_txt_carries_every_published_text(client, world):
    """/llms-full.txt: the same header, then each published entry's text under an H3 with
    its page and Markdown URLs; body headings sit below it, no raw HTML, no draft."""
    body = client.get("/llms-full.txt").content.decode()
    assert body.startswith("# Słownik\n")
    assert "### SSE\n\n> Strumień zdarzeń \\<serwera\\>." in body
    assert "#### Szczegóły" in body
    assert f"Strona: {SITE_URL}/artykuly/dalej/ · Markdown: {SITE_URL}/artykuly/dalej.md" in body
    _assert_agent_markdown(body)


def test_home_page_advertises_the_mcp_endpoint(client, db):
    """The front page names the MCP endpoint's absolute URL and links llms.txt."""
    html = client.get("/").content.decode()
    assert f'<code class="mcp-endpoint">{SITE_URL}/wp-json/webflux/v1/mcp</code>' in html
    assert 'href="/llms.txt"' in html


def test_robots_txt_groups_for_ai_crawlers(client, db, settings):
    """SLOWNIK_AI_CRAWLERS gives each named crawler its own group: deny = nothing, allow =
    the public site without the admin (a named group replaces `*`, RFC 9309 §2.2.1)."""
    settings.SLOWNIK_AI_CRAWLERS = {"GPTBot": "deny", "ClaudeBot": "allow"}
    body = client.get("/robots.txt").content.decode()
    assert "User-agent: GPTBot\nDisallow: /\n\n" in body
    assert "User-agent: ClaudeBot\nDisallow: /admin/\nAllow: /\n\n" in body
    assert body.startswith("User-agent: *\nDisallow: /admin/\nAllow: /\n\n")


@pytest.mark.parametrize(
    "value,expected",
    [("", {}), ("GPTBot=deny, ClaudeBot=ALLOW", {"GPTBot": "deny", "ClaudeBot": "allow"})],
)
def test_ai_crawler_setting_parses(monkeypatch, value, expected):
    """The environment form is UserAgent=allow|deny pairs separated by commas."""
    from config.settings import env_crawlers

    monkeypatch.setenv("X_CRAWLERS", value)
    assert env_crawlers("X_CRAWLERS") == expected


@pytest.mark.parametrize("value", ["GPTBot", "GPTBot=maybe", "GPT Bot=deny", "Bot:x=deny"])
def test_ai_crawler_setting_refuses_what_it_cannot_write(monkeypatch, value):
    """A malformed crawler rule stops the settings from loading (no silent robots.txt)."""
    from config.settings import env_crawlers

    monkeypatch.setenv("X_CRAWLERS", value)
    with pytest.raises(ImproperlyConfigured):
        env_crawlers("X_CRAWLERS")
