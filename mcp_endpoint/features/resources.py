"""Glossary entries as MCP resources: `glossary://terms/{slug}` and
`glossary://articles/{slug}`, Markdown documents of published entries.

The two URI templates are declared once; `resources/templates/list`, `resources/read` and
`completion/complete` all read the declarations. `resources/list` walks terms (Polish
alphabetical order) and then articles (newest first) with one keyset cursor (`list_entries`,
the server's resource lister). Both depend only on the published content: `cacheable`.
"""

from datetime import datetime

from django.db.models import Q

from glossary import search, selectors
from glossary.polish import polish_slugify
from glossary.site import site_url

from ..core.errors import InvalidParams, ResourceNotFound
from ..core.pagination import make_cursor, read_cursor
from ..core.registry import Features, ResourceTemplate
from .presenters import (
    ARTICLE_URI,
    MARKDOWN,
    TERM_URI,
    article_data,
    article_markdown,
    term_data,
    term_markdown,
)

features = Features()


def normalize_slug(value: str) -> str:
    """`Streamable-HTTP` -> `streamable-http`: the slug a model most likely meant (slugs
    are written by `polish_slugify`)."""
    return polish_slugify(value) or value


def term_entry(slug: str) -> tuple[dict, str] | None:
    """The Markdown resource of a published term and its name, or None."""
    slug = normalize_slug(slug)
    detail = selectors.term_detail(slug=slug, html=False)
    if detail is None:
        return None
    contents = {
        "uri": TERM_URI + slug,
        "mimeType": MARKDOWN,
        "text": term_markdown(term_data(detail, site_url(), full=True)),
    }
    return contents, detail.term.name


def article_entry(slug: str) -> tuple[dict, str] | None:
    """The Markdown resource of a published article and its title, or None."""
    slug = normalize_slug(slug)
    detail = selectors.article_detail(slug=slug, html=False)
    if detail is None:
        return None
    contents = {
        "uri": ARTICLE_URI + slug,
        "mimeType": MARKDOWN,
        "text": article_markdown(article_data(detail, site_url(), full=True)),
    }
    return contents, detail.article.title


def _not_found(uri: str, what: str, close: list[str], prefix: str) -> ResourceNotFound:
    hint = (
        "Czy chodziło o: " + ", ".join(prefix + slug for slug in close) + "?"
        if close
        else "Istniejące zasoby wypisuje resources/list."
    )
    return ResourceNotFound(
        f"Nie ma opublikowanego {what} pod adresem {uri}. {hint}",
        data={"uri": uri, "suggestions": [prefix + slug for slug in close]},
    )


def read_term(slug: str, ctx) -> dict:
    entry = term_entry(slug)
    if entry is None:
        close = search.closest_term_slugs(text=slug)
        raise _not_found(TERM_URI + slug, "pojęcia", close, TERM_URI)
    return entry[0]


def read_article(slug: str, ctx) -> dict:
    entry = article_entry(slug)
    if entry is None:
        close = search.closest_article_slugs(text=slug)
        raise _not_found(ARTICLE_URI + slug, "artykułu", close, ARTICLE_URI)
    return entry[0]


features.resource_template(
    ResourceTemplate(
        uri_template=TERM_URI + "{slug}",
        name="term",
        title="Pojęcie ze słownika",
        description="Opublikowane pojęcie jako Markdown: definicja, treść, synonimy, "
        "kategorie, pojęcia powiązane i artykuły, wszystko z adresami stron.",
        mime_type=MARKDOWN,
        prefix=TERM_URI,
        read=read_term,
        complete=lambda prefix: search.complete_term_slugs(prefix=prefix, limit=101),
        cacheable=True,
    )
)
features.resource_template(
    ResourceTemplate(
        uri_template=ARTICLE_URI + "{slug}",
        name="article",
        title="Artykuł",
        description="Opublikowany artykuł jako Markdown, z pojęciami ze słownika, których "
        "używa, i adresami stron.",
        mime_type=MARKDOWN,
        prefix=ARTICLE_URI,
        read=read_article,
        complete=lambda prefix: search.complete_article_slugs(prefix=prefix, limit=101),
        cacheable=True,
    )
)


def _article_rows(after, limit: int) -> list[dict]:
    qs = selectors.article_list()
    if after is not None:
        published_at, pk = datetime.fromisoformat(after[0]), after[1]
        qs = qs.filter(Q(published_at__lt=published_at) | Q(published_at=published_at, id__lt=pk))
    return list(qs.values("id", "slug", "title", "lead", "published_at")[: limit + 1])


def list_entries(cursor, page_size: int) -> tuple[list[dict], str | None]:
    """One page of published terms, then published articles (at most 2 queries)."""
    return _entry_page(read_cursor(cursor, "resources"), page_size)


def _entry_page(position, page_size: int) -> tuple[list[dict], str | None]:
    try:
        kind, *after = position or ("t",)
        if kind not in ("t", "a") or (after and len(after) != 2):
            raise ValueError(kind)
        after = tuple(after) or None
        items: list[dict] = []
        if kind == "t":
            rows = selectors.term_page(after=after, limit=page_size)
            items = [
                {
                    "uri": TERM_URI + r["slug"],
                    "name": r["slug"],
                    "title": r["name"],
                    "description": r["short_definition"],
                    "mimeType": MARKDOWN,
                }
                for r in rows[:page_size]
            ]
            if len(rows) > page_size:
                last = rows[page_size - 1]
                return items, make_cursor("resources", ["t", last["sort_key"], last["id"]])
            after = None
        articles = _article_rows(after, page_size - len(items))
    except (ValueError, TypeError) as exc:
        raise InvalidParams(
            "Nieprawidłowy cursor: podaj nextCursor dokładnie tak, jak go zwróciła poprzednia "
            "strona resources/list, albo pomiń go, by zacząć od początku."
        ) from exc
    room = page_size - len(items)
    items += [
        {
            "uri": ARTICLE_URI + r["slug"],
            "name": r["slug"],
            "title": r["title"],
            "description": r["lead"],
            "mimeType": MARKDOWN,
        }
        for r in articles[:room]
    ]
    if len(articles) > room:
        if room == 0:
            # The terms filled this page exactly; the articles start on the next one.
            return items, make_cursor("resources", ["a"])
        last = articles[room - 1]
        return items, make_cursor("resources", ["a", last["published_at"].isoformat(), last["id"]])
    return items, None
