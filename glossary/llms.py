"""The site as agents read it: a Markdown alternate of every term and article page, and
`/llms.txt` + `/llms-full.txt` in the llms.txt format (https://llmstxt.org: an H1 with the
site's name, a blockquote summary, notes without headings, then H2 sections whose lists are
`[name](url): notes` lines).

Why the Markdown comes from the stored, sanitized HTML and not from the editor's source: the
source may hold raw HTML (`<script>`, inline tags) and relative links, while the stored
`display_html` is what the page shows after nh3 (glossary/markdown.py) with the auto-links
added. Converting it (`glossary.markdown.html_to_markdown`, the converter the MCP answers use
too) keeps one gate for hostile input and gives agents exactly what readers see; every link
is made absolute against the page's canonical URL, and plain text fields are escaped so
nothing an editor typed turns into HTML in a Markdown renderer.

Markdown URLs: `<page path without the trailing slash>.md` (`/slownik/mcp.md`), linked from
each page's `<link rel="alternate" type="text/markdown">`. Slugs have no dots, so these never
collide with a page. The llms.txt proposal's spelling for a path ending in `/`
(`/slownik/mcp/index.html.md`) redirects there. Content negotiation on `Accept: text/markdown`
is not offered: the term pages are cached per URL (here and in shared caches), and a `Vary:
Accept` would split every cache entry by each client's Accept header.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.urls import reverse

from .markdown import html_to_markdown
from .markdown import markdown_text as text
from .models import entry_path

MARKDOWN_TYPE = "text/markdown; charset=utf-8"


def markdown_url(page_url: str) -> str:
    """The Markdown alternate of a page URL: /slownik/mcp/ -> /slownik/mcp.md."""
    return page_url.rstrip("/") + ".md"


def _list(items) -> list[str]:
    """llms.txt file-list lines: `- [name](url): notes`."""
    return [
        f"- [{text(name)}]({url})" + (f": {text(notes)}" if notes else "")
        for name, url, notes in items
    ]


class Site:
    """Absolute URLs of the site's pages and their Markdown alternates. `absolute(path)` is
    the views' one way of making a site URL (the canonical address)."""

    def __init__(self, absolute: Callable[[str], str]) -> None:
        self.absolute = absolute

    def page(self, route: str, slug: str) -> str:
        return self.absolute(entry_path(route, slug))

    def markdown(self, route: str, slug: str) -> str:
        return self.absolute(entry_path(route, slug, markdown=True))


def term_markdown(detail, site: Site) -> str:
    """A term page as Markdown (`detail` is a `selectors.TermDetail`)."""
    term = detail.term
    page = site.page("term", term.slug)
    lines = [f"# {text(term.name)}", "", f"> {text(term.short_definition)}", ""]
    if term.synonyms:
        lines += [f"**Synonimy:** {', '.join(text(s) for s in term.synonyms)}", ""]
    if detail.categories:
        links = [f"[{text(c.title)}]({site.page('category', c.slug)})" for c in detail.categories]
        lines += [f"**Kategorie:** {', '.join(links)}", ""]
    lines += _body(term.display_html, page)
    lines += _section(
        "Pojęcia powiązane",
        [(r.title, site.markdown("term", r.slug), r.summary) for r in detail.related],
    )
    lines += _section(
        "Artykuły", [(a.title, site.markdown("article", a.slug), "") for a in detail.articles]
    )
    lines.append(f"Strona: {page} (zaktualizowano {_date(term.updated_at)})")
    return "\n".join(lines) + "\n"


def article_markdown(detail, site: Site) -> str:
    """An article page as Markdown (`detail` is a `selectors.ArticleDetail`)."""
    article = detail.article
    page = site.page("article", article.slug)
    lines = [f"# {text(article.title)}", ""]
    if article.lead.strip():
        lines += [f"> {text(article.lead)}", ""]
    facts = []
    if article.author_name:
        facts.append(f"**Autor:** {text(article.author_name)}")
    if article.published_at:
        facts.append(f"**Opublikowano:** {_date(article.published_at)}")
    if article.series_id:
        series = article.series
        facts.append(f"**Seria:** [{text(series.name)}]({site.page('series', series.slug)})")
    if facts:
        lines += ["  \n".join(facts), ""]
    lines += _body(article.display_html, page)
    lines += _section(
        "Pojęcia ze słownika",
        [(t.title, site.markdown("term", t.slug), t.summary) for t in detail.terms],
    )
    neighbours = [("Poprzedni", detail.previous), ("Następny", detail.next)]
    lines += _section(
        "W tej serii",
        [
            (link.title, site.markdown("article", link.slug), label)
            for label, link in neighbours
            if link is not None
        ],
    )
    lines.append(f"Strona: {page} (zaktualizowano {_date(article.updated_at)})")
    return "\n".join(lines) + "\n"


def _body(html: str, page: str, *, heading_offset: int = 0) -> list[str]:
    """An entry's body as Markdown lines (none when it is empty), links absolute on `page`;
    `heading_offset` moves its headings (h2 on the page) further down."""
    body = html_to_markdown(html, base_url=page, heading_offset=heading_offset)
    return [body, ""] if body else []


def _section(heading: str, items: list) -> list[str]:
    """An H2 with its `_list` lines, or nothing when there are no items."""
    return [f"## {heading}", "", *_list(items), ""] if items else []


def _date(value) -> str:
    return value.date().isoformat() if value else "—"


def _header(site: Site, *, full: bool) -> list[str]:
    """The H1, the summary and the notes of both files: what the site is and how an agent
    gets more (the MCP endpoint, the REST API, the Markdown alternates)."""
    mcp = site.absolute(reverse("mcp_endpoint:mcp"))
    lines = [
        f"# {text(settings.SITE_NAME)}",
        "",
        "> Polski słownik pojęć technicznych (JSON-RPC, MCP, SSE, Streamable HTTP i inne): "
        "krótkie definicje, synonimy, powiązane pojęcia i artykuły, które z nich korzystają.",
        "",
        "Treści są po polsku. Każda strona pojęcia i artykułu ma wersję Markdown pod tym samym "
        "adresem z końcówką `.md` (np. `/slownik/mcp.md`).",
        f"Agenci mogą też korzystać z serwera MCP (Streamable HTTP, JSON-RPC): {mcp} — narzędzia "
        "search_term, get_term, list_terms, search_articles i get_article, zasoby "
        "glossary://terms/{slug} i glossary://articles/{slug}.",
    ]
    if full:
        lines.append(
            f"To pełna wersja: treść każdego pojęcia i artykułu. Spis: {site.absolute('/llms.txt')}"
        )
    else:
        lines.append(
            "Pełna treść wszystkich pojęć i artykułów w jednym pliku: "
            f"{site.absolute('/llms-full.txt')}"
        )
    return [*lines, ""]


def llms_txt(terms, articles, site: Site) -> str:
    """/llms.txt: every published term and article with a link to its Markdown version.
    `terms` are `selectors.term_index()` rows, `articles` `selectors.article_list()` rows."""
    lines = _header(site, full=False)
    lines += ["## Pojęcia", ""]
    lines += _list(
        (t["name"], site.markdown("term", t["slug"]), t["short_definition"]) for t in terms
    )
    lines += ["", "## Artykuły", ""]
    lines += _list((a.title, site.markdown("article", a.slug), a.lead) for a in articles)
    lines += [
        "",
        "## Optional",
        "",
        *_list(
            [
                ("Indeks A–Ż", site.absolute(reverse("glossary:index")), "strona HTML"),
                ("REST API", site.absolute("/wp-json/"), "indeks tras w stylu WordPressa"),
                ("Mapa witryny", site.absolute(reverse("glossary:sitemap")), ""),
            ]
        ),
    ]
    return "\n".join(lines) + "\n"


def llms_full_txt(terms, articles, site: Site) -> str:
    """/llms-full.txt: the same header, then the text of every published term and article
    (`selectors.term_texts()` and `selectors.article_texts()` rows)."""
    lines = _header(site, full=True)
    lines += ["## Pojęcia", ""]
    for term in terms:
        page = site.page("term", term.slug)
        lines += [f"### {text(term.name)}", "", f"> {text(term.short_definition)}", ""]
        if term.synonyms:
            lines += [f"**Synonimy:** {', '.join(text(s) for s in term.synonyms)}", ""]
        lines += _body(term.display_html, page, heading_offset=2)
        lines += [f"Strona: {page} · Markdown: {markdown_url(page)}", ""]
    lines += ["## Artykuły", ""]
    for article in articles:
        page = site.page("article", article.slug)
        lines += [f"### {text(article.title)}", ""]
        if article.lead.strip():
            lines += [f"> {text(article.lead)}", ""]
        lines += _body(article.display_html, page, heading_offset=2)
        lines += [f"Strona: {page} · Markdown: {markdown_url(page)}", ""]
    return "\n".join(lines)
