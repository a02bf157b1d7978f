"""The glossary's tools, each declared once with its title, description and JSON Schemas.

Every tool is a thin mapping onto a selector or the search engine that the reader pages use,
so an agent sees exactly what a reader sees (published entries only). Failures a model can
fix itself (an unknown slug, a bad argument) are `isError` results that say what to do next
(2025-11-25 server/tools §Error Handling, SEP-1303); `tools/call` validates arguments
against `input_schema` before a handler runs. Every tool is read-only and its result depends
only on its arguments and the published content, so each is declared `cacheable`.
"""

from django.conf import settings

from glossary import search, selectors
from glossary.polish import INDEX_LETTERS, OTHER_LETTER
from glossary.site import site_url

from ..core.errors import InvalidParams
from ..core.pagination import make_cursor, read_cursor
from ..core.registry import Features, ToolResult
from .presenters import (
    article_data,
    article_markdown,
    article_url,
    term_data,
    term_markdown,
    term_url,
)

features = Features()
SLUG = {"type": "string", "minLength": 1, "maxLength": 250, "description": "Slug wpisu"}
QUERY = {
    "type": "string",
    "minLength": 1,
    "maxLength": search.MAX_QUERY_LENGTH,
    "description": "Tekst do wyszukania (polski lub angielski, także skróty i synonimy)",
}
LIMIT = {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
NULLABLE_STR = {"type": ["string", "null"]}
STR = {"type": "string"}
ARTICLE_REF = {
    "type": ["object", "null"],
    "properties": {"slug": STR, "title": STR, "url": STR},
    "required": ["slug", "title", "url"],
}


def _object(properties: dict, required=None) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


def _array(items: dict) -> dict:
    return {"type": "array", "items": items}


TERM_HIT = _object(
    {"name": STR, "slug": STR, "shortDefinition": STR, "url": STR, "score": {"type": "number"}}
)
# The glossary terms a text mentions (auto-links; glossary/autolink.py).
MENTIONS = _array(_object({"slug": STR, "name": STR, "shortDefinition": STR, "url": STR}))
TERM_OUTPUT = _object(
    {
        "name": STR,
        "slug": STR,
        "shortDefinition": STR,
        "body": {"type": "string", "description": "Treść w Markdown"},
        "synonyms": _array(STR),
        "categories": _array(_object({"slug": STR, "name": STR})),
        "related": _array(_object({"slug": STR, "name": STR, "shortDefinition": STR})),
        "articles": _array(_object({"slug": STR, "title": STR, "url": STR})),
        "url": STR,
        "updatedAt": {"type": ["string", "null"], "description": "ISO 8601"},
        "mentions": MENTIONS,
    }
)
ARTICLE_OUTPUT = _object(
    {
        "title": STR,
        "slug": STR,
        "lead": STR,
        "body": {"type": "string", "description": "Treść w Markdown"},
        "url": STR,
        "publishedAt": NULLABLE_STR,
        "updatedAt": NULLABLE_STR,
        "series": {
            "type": ["object", "null"],
            "properties": {"name": STR, "slug": STR},
            "required": ["name", "slug"],
        },
        "terms": _array(_object({"slug": STR, "name": STR, "shortDefinition": STR, "url": STR})),
        "previous": ARTICLE_REF,
        "next": ARTICLE_REF,
        "mentions": MENTIONS,
    }
)
ARTICLE_HIT = _object({"title": STR, "slug": STR, "lead": STR, "url": STR})


def _input(properties: dict, required: list[str]) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


@features.tool(
    cacheable=True,
    name="search_term",
    title="Szukaj pojęcia",
    description=(
        "Search the glossary for terms matching a query (Polish or English names, synonyms, "
        "abbreviations, typos, questions such as 'czym jest MCP', comparisons such as "
        "'SSE vs WebSocket' (both terms first), or a description of the concept). Returns "
        "ranked terms with slug, short definition and page URL; pass a slug to get_term for "
        "the full entry."
    ),
    input_schema=_input({"query": QUERY, "limit": LIMIT}, ["query"]),
    output_schema=_object(
        {"query": STR, "results": _array(TERM_HIT), "suggestions": _array(STR)},
        ["query", "results"],
    ),
)
def search_term(arguments: dict, ctx) -> ToolResult:
    query = arguments["query"]
    hits = search.term_search(query=query, limit=int(arguments.get("limit", 10)))
    results = [
        {
            "name": h.title,
            "slug": h.slug,
            "shortDefinition": h.summary,
            "url": term_url(site_url(), h.slug),
            "score": h.score,
        }
        for h in hits
    ]
    data = {"query": query, "results": results}
    if not results:
        data["suggestions"] = [h.slug for h in search.suggest_terms(text=query)]
        hint = f" Podobne slugi: {', '.join(data['suggestions'])}." if data["suggestions"] else ""
        return ToolResult(f"Brak pojęć pasujących do „{query}”.{hint}", data)
    lines = [f"Pojęcia pasujące do „{query}”:", ""]
    lines += [
        f"- **{r['name']}** (`{r['slug']}`): {r['shortDefinition']} {r['url']}" for r in results
    ]
    return ToolResult("\n".join(lines), data)


@features.tool(
    cacheable=True,
    name="get_term",
    title="Pobierz pojęcie",
    description=(
        "Get one glossary term by slug: short definition, full body (Markdown), synonyms, "
        "categories, related terms, articles using it, page URL and last update time. "
        "An unknown slug returns an error naming the closest existing slugs."
    ),
    input_schema=_input({"slug": SLUG}, ["slug"]),
    output_schema=TERM_OUTPUT,
)
def get_term(arguments: dict, ctx) -> ToolResult:
    slug = arguments["slug"]
    detail = selectors.term_detail(slug=slug)
    if detail is None:
        close = [h.slug for h in search.suggest_terms(text=slug.replace("-", " "))]
        hint = (
            f"Did you mean: {', '.join(close)}? Call get_term with one of these slugs."
            if close
            else "Call search_term to find the right slug."
        )
        return ToolResult.error(f"No published term with slug {slug!r}. {hint}")
    data = term_data(detail, site_url())
    return ToolResult(term_markdown(data), data)


LETTERS = [*INDEX_LETTERS, OTHER_LETTER]


@features.tool(
    cacheable=True,
    name="list_terms",
    title="Lista pojęć",
    description=(
        "List published terms in Polish alphabetical order, optionally only those filed under "
        "one index letter (A–Ż or #) or in one category (category slug). Paginated: pass "
        "nextCursor back as cursor for the next page."
    ),
    input_schema=_input(
        {
            "letter": {"type": "string", "enum": LETTERS, "description": "Litera indeksu"},
            "category": {"type": "string", "minLength": 1, "maxLength": 100},
            "cursor": {"type": "string"},
        },
        [],
    ),
    output_schema=_object(
        {
            "terms": _array(
                _object({"name": STR, "slug": STR, "shortDefinition": STR, "url": STR})
            ),
            "nextCursor": STR,
        },
        ["terms"],
    ),
)
def list_terms(arguments: dict, ctx) -> ToolResult:
    letter, category = arguments.get("letter"), arguments.get("category")
    kind = f"list_terms:{letter or ''}:{category or ''}"
    try:
        after = read_cursor(arguments.get("cursor") or None, kind)
    except InvalidParams as exc:
        return ToolResult.error(exc.message)
    size = settings.MCP_PAGE_SIZE
    rows = selectors.term_page(
        letter=letter, category=category, after=tuple(after) if after else None, limit=size
    )
    page = rows[:size]
    data = {
        "terms": [
            {
                "name": r["name"],
                "slug": r["slug"],
                "shortDefinition": r["short_definition"],
                "url": term_url(site_url(), r["slug"]),
            }
            for r in page
        ]
    }
    if len(rows) > size:
        data["nextCursor"] = make_cursor(kind, [page[-1]["sort_key"], page[-1]["id"]])
    lines = [f"- **{t['name']}** (`{t['slug']}`): {t['shortDefinition']}" for t in data["terms"]]
    if not lines:
        lines = ["Brak opublikowanych pojęć dla tych filtrów."]
    if "nextCursor" in data:
        lines.append(
            "\nTo nie wszystko: podaj nextCursor jako cursor, aby zobaczyć dalsze pojęcia."
        )
    return ToolResult("\n".join(lines), data)


@features.tool(
    cacheable=True,
    name="search_articles",
    title="Szukaj artykułów",
    description=(
        "Search published articles by title, lead and text (questions and partial matches "
        "too). Returns title, slug, lead and page URL; "
        "pass a slug to get_article for the full text."
    ),
    input_schema=_input({"query": QUERY, "limit": LIMIT}, ["query"]),
    output_schema=_object({"query": STR, "results": _array(ARTICLE_HIT)}),
)
def search_articles(arguments: dict, ctx) -> ToolResult:
    query = arguments["query"]
    hits = search.article_search(query=query, limit=int(arguments.get("limit", 10)))
    results = [
        {
            "title": h.title,
            "slug": h.slug,
            "lead": h.summary,
            "url": article_url(site_url(), h.slug),
        }
        for h in hits
    ]
    data = {"query": query, "results": results}
    if not results:
        return ToolResult(f"Brak artykułów pasujących do „{query}”.", data)
    lines = [f"- **{r['title']}** (`{r['slug']}`): {r['lead']} {r['url']}" for r in results]
    return ToolResult("\n".join(lines), data)


@features.tool(
    cacheable=True,
    name="get_article",
    title="Pobierz artykuł",
    description=(
        "Get one published article by slug: lead, full body (Markdown), the glossary terms it "
        "uses, its series with previous and next articles, and its page URL."
    ),
    input_schema=_input({"slug": SLUG}, ["slug"]),
    output_schema=ARTICLE_OUTPUT,
)
def get_article(arguments: dict, ctx) -> ToolResult:
    slug = arguments["slug"]
    detail = selectors.article_detail(slug=slug)
    if detail is None:
        close = [h.slug for h in search.article_search(query=slug.replace("-", " "), limit=3)]
        hint = (
            f"Did you mean: {', '.join(close)}?"
            if close
            else "Call search_articles to find the right slug."
        )
        return ToolResult.error(f"No published article with slug {slug!r}. {hint}")
    data = article_data(detail, site_url())
    return ToolResult(article_markdown(data), data)
