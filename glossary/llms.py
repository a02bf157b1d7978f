"""The site as agents read it: a Markdown alternate of every term and article page, and
`/llms.txt` + `/llms-full.txt` in the llms.txt format (https://llmstxt.org: an H1 with the
site's name, a blockquote summary, notes without headings, then H2 sections whose lists are
`[name](url): notes` lines).

Why the Markdown comes from the stored, sanitized HTML and not from the editor's source: the
source may hold raw HTML (`<script>`, inline tags) and relative links, while the stored
`display_html` is what the page shows after nh3 (glossary/markdown.py) with the auto-links
added. Converting it (markdownify) keeps one gate for hostile input and gives agents exactly
what readers see; every link is made absolute against the page's canonical URL, and plain
text fields are escaped so nothing an editor typed turns into HTML in a Markdown renderer.

Markdown URLs: `<page path without the trailing slash>.md` (`/slownik/mcp.md`), linked from
each page's `<link rel="alternate" type="text/markdown">`. Slugs have no dots, so these never
collide with a page. The llms.txt proposal's spelling for a path ending in `/`
(`/slownik/mcp/index.html.md`) redirects there. Content negotiation on `Accept: text/markdown`
is not offered: the term pages are cached per URL (here and in shared caches), and a `Vary:
Accept` would split every cache entry by each client's Accept header.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urljoin

from django.conf import settings
from django.urls import reverse
from markdownify import MarkdownConverter

MARKDOWN_TYPE = "text/markdown; charset=utf-8"
# Plain-text fields (names, definitions, leads) as Markdown text: backslash-escape what would
# start markup, raw HTML included (`<` and `>`).
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def text(value: str) -> str:
    """A plain-text field, safe to put into Markdown as literal text, on one line."""
    return _SPECIAL.sub(r"\\\1", " ".join((value or "").split()))


class _Converter(MarkdownConverter):
    """markdownify with absolute links and no HTML at all in the output (tags it does not know
    are dropped to their text; `<`, `>` and `&` in text are escaped, escape_misc)."""

    def __init__(self, *, base_url: str, heading_offset: int = 0) -> None:
        super().__init__(
            heading_style="ATX",
            bullets="-",
            escape_misc=True,
            code_language_callback=_code_language,
        )
        self.base_url, self.heading_offset = base_url, heading_offset

    def convert_img(self, el, text, parent_tags):
        src = el.get("src") or ""
        if src:
            el["src"] = urljoin(self.base_url, src)
        return super().convert_img(el, text, parent_tags)

    def convert_hN(self, n, el, text, parent_tags):
        return super().convert_hN(min(n + self.heading_offset, 6), el, text, parent_tags)

    def convert_a(self, el, text, parent_tags):
        href = el.get("href") or ""
        if href:
            el["href"] = urljoin(self.base_url, href)
        # An auto-link's title is the linked term's definition (the page's tooltip): noise
        # in a Markdown link, and the agent can follow the link for it.
        el.attrs.pop("title", None)
        return super().convert_a(el, text, parent_tags)


def _code_language(el) -> str:
    for name in el.get("class") or []:
        if name.startswith("language-"):
            return name.removeprefix("language-")
    code = el.find("code")
    if code is not None:
        for name in code.get("class") or []:
            if name.startswith("language-"):
                return name.removeprefix("language-")
    return ""


def html_to_markdown(html: str, *, base_url: str, heading_offset: int = 0) -> str:
    """Sanitized body HTML as Markdown whose links are absolute on `base_url` (the page);
    `heading_offset` moves the body's headings (h2 on the page) further down."""
    if not html:
        return ""
    converter = _Converter(base_url=base_url, heading_offset=heading_offset)
    return converter.convert(html).strip()


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
        return self.absolute(reverse(f"glossary:{route}", kwargs={"slug": slug}))

    def markdown(self, route: str, slug: str) -> str:
        return self.absolute(reverse(f"glossary:{route}-markdown", kwargs={"slug": slug}))


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
    body = html_to_markdown(term.display_html, base_url=page)
    if body:
        lines += [body, ""]
    if detail.related:
        lines += ["## Pojęcia powiązane", ""]
        lines += _list((r.title, site.markdown("term", r.slug), r.summary) for r in detail.related)
        lines.append("")
    if detail.articles:
        lines += ["## Artykuły", ""]
        lines += _list((a.title, site.markdown("article", a.slug), "") for a in detail.articles)
        lines.append("")
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
    body = html_to_markdown(article.display_html, base_url=page)
    if body:
        lines += [body, ""]
    if detail.terms:
        lines += ["## Pojęcia ze słownika", ""]
        lines += _list((t.title, site.markdown("term", t.slug), t.summary) for t in detail.terms)
        lines.append("")
    neighbours = [("Poprzedni", detail.previous), ("Następny", detail.next)]
    neighbours = [(label, link) for label, link in neighbours if link is not None]
    if neighbours:
        lines += ["## W tej serii", ""]
        lines += _list(
            (link.title, site.markdown("article", link.slug), label) for label, link in neighbours
        )
        lines.append("")
    lines.append(f"Strona: {page} (zaktualizowano {_date(article.updated_at)})")
    return "\n".join(lines) + "\n"


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
        body = html_to_markdown(term.display_html, base_url=page, heading_offset=2)
        if body:
            lines += [body, ""]
        lines += [f"Strona: {page} · Markdown: {markdown_url(page)}", ""]
    lines += ["## Artykuły", ""]
    for article in articles:
        page = site.page("article", article.slug)
        lines += [f"### {text(article.title)}", ""]
        if article.lead.strip():
            lines += [f"> {text(article.lead)}", ""]
        body = html_to_markdown(article.display_html, base_url=page, heading_offset=2)
        if body:
            lines += [body, ""]
        lines += [f"Strona: {page} · Markdown: {markdown_url(page)}", ""]
    return "\n".join(lines)
