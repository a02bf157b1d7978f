"""How a glossary entry looks to an agent: one structured form (tool `structuredContent`) and
one Markdown form (tool text, `resources/read`, embedded prompt resources), both built from
the selectors' `TermDetail`/`ArticleDetail`, so a tool, a resource and a prompt that show
the same entry show it the same way.

What a model reads must be usable as it stands: every URL is absolute on the site's one
address (glossary/site.py), bodies included (`markdown_for_agents`: site paths made absolute,
raw HTML replaced by what the page shows), and every entry a text names comes with its URL.
"""

from functools import lru_cache

from django.urls import get_script_prefix, get_urlconf, reverse

from glossary.markdown import markdown_for_agents
from glossary.selectors import ArticleDetail, TermDetail

TERM_URI = "glossary://terms/"
ARTICLE_URI = "glossary://articles/"
MARKDOWN = "text/markdown"


@lru_cache(maxsize=64)
def _slug_route(name: str, prefix: str, urlconf) -> tuple[str, str]:
    # reverse() costs ~0.35 ms; a search result lists ten URLs of the same route.
    head, tail = reverse(name, kwargs={"slug": "slug-placeholder"}).split("slug-placeholder")
    return head, tail


def _slug_url(name: str, base_url: str, slug: str) -> str:
    head, tail = _slug_route(name, get_script_prefix(), get_urlconf())
    return f"{base_url}{head}{slug}{tail}"


def term_url(base_url: str, slug: str) -> str:
    """Absolute page URL of a term (the same route `Term.get_absolute_url()` reverses)."""
    return _slug_url("glossary:term", base_url, slug)


def article_url(base_url: str, slug: str) -> str:
    return _slug_url("glossary:article", base_url, slug)


def urls_on(base_url: str):
    """`term_url` and `article_url` on `base_url` for one answer: the script prefix and the
    URLconf (thread-locals, ~25 µs a URL) are read once, not for each of its ~20 URLs."""
    prefix, urlconf = get_script_prefix(), get_urlconf()
    term_head, term_tail = _slug_route("glossary:term", prefix, urlconf)
    article_head, article_tail = _slug_route("glossary:article", prefix, urlconf)
    return (
        lambda slug: f"{base_url}{term_head}{slug}{term_tail}",
        lambda slug: f"{base_url}{article_head}{slug}{article_tail}",
    )


def iso(value) -> str | None:
    return value.isoformat() if value else None


def term_data(detail: TermDetail, base_url: str) -> dict:
    term = detail.term
    to_term, to_article = urls_on(base_url)
    return {
        "name": term.name,
        "slug": term.slug,
        "shortDefinition": term.short_definition,
        "body": markdown_for_agents(term.body, site=base_url),
        "synonyms": list(term.synonyms),
        "categories": [{"slug": c.slug, "name": c.title} for c in detail.categories],
        "related": [
            {
                "slug": r.slug,
                "name": r.title,
                "shortDefinition": r.summary,
                "url": to_term(r.slug),
            }
            for r in detail.related
        ],
        "articles": [
            {"slug": a.slug, "title": a.title, "url": to_article(a.slug)} for a in detail.articles
        ],
        "url": to_term(term.slug),
        "updatedAt": iso(term.updated_at),
        "mentions": _mentions(detail.mentions, to_term),
    }


def _mentions(links, to_term) -> list[dict]:
    """The glossary terms a text mentions (its auto-links): slug, name, definition, URL."""
    return [
        {
            "slug": t.slug,
            "name": t.title,
            "shortDefinition": t.summary,
            "url": to_term(t.slug),
        }
        for t in links
    ]


def _term_line(term: dict) -> str:
    """A term another entry names: its name linked to its page, slug, short definition."""
    return f"- [{term['name']}]({term['url']}) (`{term['slug']}`): {term['shortDefinition']}"


def _mentions_markdown(data: dict) -> list[str]:
    if not data["mentions"]:
        return []
    lines = ["## Pojęcia wspomniane w treści", ""]
    lines += [_term_line(t) for t in data["mentions"]]
    return [*lines, ""]


def term_markdown(data: dict) -> str:
    lines = [f"# {data['name']}", "", data["shortDefinition"], ""]
    if data["synonyms"]:
        lines += [f"**Synonimy:** {', '.join(data['synonyms'])}", ""]
    if data["categories"]:
        lines += [f"**Kategorie:** {', '.join(c['name'] for c in data['categories'])}", ""]
    if data["body"].strip():
        lines += [data["body"].strip(), ""]
    if data["related"]:
        lines += ["## Pojęcia powiązane", ""]
        lines += [_term_line(r) for r in data["related"]]
        lines.append("")
    lines += _mentions_markdown(data)
    if data["articles"]:
        lines += ["## Artykuły", ""]
        lines += [f"- [{a['title']}]({a['url']})" for a in data["articles"]]
        lines.append("")
    lines.append(f"Źródło: {data['url']} (zaktualizowano {data['updatedAt']})")
    return "\n".join(lines)


def _article_link(link, to_article) -> dict | None:
    if link is None:
        return None
    return {"slug": link.slug, "title": link.title, "url": to_article(link.slug)}


def article_data(detail: ArticleDetail, base_url: str) -> dict:
    article = detail.article
    series = article.series
    to_term, to_article = urls_on(base_url)
    return {
        "title": article.title,
        "slug": article.slug,
        "lead": article.lead,
        "body": markdown_for_agents(article.body, site=base_url),
        "url": to_article(article.slug),
        "publishedAt": iso(article.published_at),
        "updatedAt": iso(article.updated_at),
        "series": {"name": series.name, "slug": series.slug} if series else None,
        "terms": [
            {
                "slug": t.slug,
                "name": t.title,
                "shortDefinition": t.summary,
                "url": to_term(t.slug),
            }
            for t in detail.terms
        ],
        "previous": _article_link(detail.previous, to_article),
        "next": _article_link(detail.next, to_article),
        "mentions": _mentions(detail.mentions, to_term),
    }


def article_markdown(data: dict) -> str:
    lines = [f"# {data['title']}", ""]
    if data["lead"].strip():
        lines += [f"*{data['lead'].strip()}*", ""]
    if data["series"]:
        lines += [f"**Seria:** {data['series']['name']}", ""]
    if data["body"].strip():
        lines += [data["body"].strip(), ""]
    if data["terms"]:
        lines += ["## Pojęcia ze słownika", ""]
        lines += [_term_line(t) for t in data["terms"]]
        lines.append("")
    lines += _mentions_markdown(data)
    for label, key in (("Poprzedni w serii", "previous"), ("Następny w serii", "next")):
        if data[key]:
            lines.append(f"{label}: [{data[key]['title']}]({data[key]['url']})")
    lines.append(f"Źródło: {data['url']} (opublikowano {data['publishedAt']})")
    return "\n".join(lines)
