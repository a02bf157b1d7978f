"""One entry as its page and an agent read it: the row with everything attached to it
(categories, related terms, articles, series siblings, mentions), one statement compiled once
(glossary/db/prepared.py)."""

from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from django.db.models import F, IntegerField, OuterRef, Value
from django.utils import timezone

from ..db.placeholders import stand_in
from ..db.prepared import Prepared
from ..models import Article, Category, Term
from .links import (
    ARTICLE_SEARCH_COLUMNS,
    TERM_SEARCH_COLUMNS,
    Link,
    _link_values,
    _links_of,
    _visible,
    _with_links,
)


@dataclass
class TermDetail:
    term: Term
    categories: list[Link] = field(default_factory=list)
    related: list[Link] = field(default_factory=list)
    articles: list[Link] = field(default_factory=list)
    # Published terms its body links (auto-linking: glossary/autolink.py).
    mentions: list[Link] = field(default_factory=list)


@dataclass
class ArticleDetail:
    article: Article
    terms: list[Link] = field(default_factory=list)
    previous: Link | None = None
    next: Link | None = None
    series_articles: list[Link] = field(default_factory=list)
    # Published terms its body links (auto-linking: glossary/autolink.py).
    mentions: list[Link] = field(default_factory=list)


# What an agent's text of an entry never reads: the page's HTML (agents get the Markdown the
# editor wrote, glossary/markdown.py: markdown_for_agents) and the creation time. A term's
# `linked_html` is most of its row (TOASTed); leaving both out of the MCP reads spares the
# bytes PostgreSQL would detoast and the driver decode per cold `get_term`.
PAGE_ONLY_COLUMNS = ("body_html", "linked_html", "created_at")


def _term_by_slug(*, slug: str, now: datetime, html: bool = True):
    # No join to the last editor: no page, tool or resource shows it (the REST API's `edit`
    # context reads `last_editor_id`, a column of the row).
    hidden = TERM_SEARCH_COLUMNS if html else (*TERM_SEARCH_COLUMNS, *PAGE_ONLY_COLUMNS)
    return Term.objects.published(now=now).defer(*hidden).filter(slug=slug)[:1]


def _term_link_parts(*, pk, now: datetime) -> dict:
    return {
        "category": _link_values(
            Category.objects.filter(terms=pk), "category", title="name", summary="description",
            sort="name",
        ),
        "term": _link_values(
            Term.objects.published(now=now).filter(related=pk), "term", title="name",
            summary="short_definition", sort="sort_key",
        ),
        "article": _link_values(
            Article.objects.published(now=now).filter(terms=pk), "article", title="title",
            summary="lead", sort="published_at",
        ),
        "mention": _link_values(
            Term.objects.published(now=now).filter(mentioned_by_terms=pk), "mention",
            title="name", summary="short_definition", sort="sort_key",
        ),
    }  # fmt: skip


def _term_links(*, pk: int, now: datetime):
    """Everything attached to term `pk` as `(kind, id, slug, title, summary, sort)` rows, in
    one UNION: the plain QuerySet form of what `term_detail` reads (tests compare the two)."""
    parts = list(_term_link_parts(pk=pk, now=now).values())
    return parts[0].union(*parts[1:], all=True)


def _term_detail(*, slug: str, now: datetime, html: bool = True):
    return _with_links(
        _term_by_slug(slug=slug, now=now, html=html),
        _term_link_parts(pk=OuterRef("pk"), now=now),
    )


# One statement, not the row and then a UNION of its links: each statement costs the client
# CPU in psycopg, and the correlated subqueries cost PostgreSQL no more than the UNION does
# (docs/benchmarks.md, "Cold reads: one statement per detail read").
_TERM_DETAIL = Prepared(_term_detail, slug=stand_in(str))
_TERM_TEXT = Prepared(partial(_term_detail, html=False), slug=stand_in(str))


def term_detail(*, slug: str, include_drafts: bool = False, html: bool = True) -> TermDetail | None:
    """A term with its categories, published related terms, published articles and the
    published terms its body mentions (1 query, compiled once: glossary/db/prepared.py).

    `html=False` (the MCP answers) leaves out `PAGE_ONLY_COLUMNS`: reading one of them then
    costs a query, which the MCP query-count tests would show."""
    if include_drafts:
        now = timezone.now()
        queryset = _visible(Term, True).select_related("last_editor").filter(slug=slug)
        term = _with_links(queryset, _term_link_parts(pk=OuterRef("pk"), now=now)).first()
    else:
        term = next(iter((_TERM_DETAIL if html else _TERM_TEXT)(slug=slug)), None)
    if term is None:
        return None
    links = _links_of(term, ("category", "term", "article", "mention"))
    return TermDetail(
        term=term,
        categories=links["category"],
        related=links["term"],
        articles=links["article"][::-1],  # newest first
        mentions=links["mention"],
    )


def _article_by_slug(*, slug: str, now: datetime, html: bool = True):
    hidden = ARTICLE_SEARCH_COLUMNS if html else (*ARTICLE_SEARCH_COLUMNS, *PAGE_ONLY_COLUMNS)
    return (
        Article.objects.published(now=now)
        .select_related("author", "series")
        .defer(*hidden)
        .filter(slug=slug)[:1]
    )


def _article_link_parts(*, pk, now: datetime, series=None) -> dict:
    parts = {
        "term": _link_values(
            Term.objects.published(now=now).filter(articles=pk), "term", title="name",
            summary="short_definition", sort="sort_key",
        ),
        "mention": _link_values(
            Term.objects.published(now=now).filter(mentioned_by_articles=pk), "mention",
            title="name", summary="short_definition", sort="sort_key",
        ),
    }  # fmt: skip
    if series is not None:
        # `series = NULL` matches nothing: an article outside a series has no siblings.
        parts["series"] = _link_values(
            Article.objects.published(now=now).filter(series=series).exclude(pk=pk),
            "series", title="title", summary="lead",
            sort=F("series_order") + Value(1_000_000_000, output_field=IntegerField()),
        )  # fmt: skip
    return parts


def _article_links(*, pk: int, now: datetime, series: int | None = None):
    """Everything attached to article `pk`, in one UNION: the plain QuerySet form of what
    `article_detail` reads (tests compare the two)."""
    parts = list(_article_link_parts(pk=pk, now=now, series=series).values())
    return parts[0].union(*parts[1:], all=True)


def _article_detail(*, slug: str, now: datetime, queryset=None, html: bool = True):
    parts = _article_link_parts(pk=OuterRef("pk"), now=now, series=OuterRef("series_id"))
    return _with_links(
        _article_by_slug(slug=slug, now=now, html=html) if queryset is None else queryset, parts
    )


_ARTICLE_DETAIL = Prepared(_article_detail, slug=stand_in(str))
_ARTICLE_TEXT = Prepared(partial(_article_detail, html=False), slug=stand_in(str))


def article_detail(
    *, slug: str, include_drafts: bool = False, html: bool = True
) -> ArticleDetail | None:
    """An article with its published glossary terms, the published terms its body mentions
    and its series neighbours (1 query, compiled once for readers: glossary/db/prepared.py).
    `html=False`: without `PAGE_ONLY_COLUMNS`, as `term_detail`."""
    if include_drafts:
        queryset = _visible(Article, True).select_related("author", "series").filter(slug=slug)
        article = _article_detail(slug=slug, now=timezone.now(), queryset=queryset).first()
    else:
        article = next(iter((_ARTICLE_DETAIL if html else _ARTICLE_TEXT)(slug=slug)), None)
    if article is None:
        return None
    links = _links_of(article, ("term", "mention", "series"))
    detail = ArticleDetail(
        article=article,
        terms=links["term"],
        mentions=links["mention"],
        series_articles=links["series"],
    )
    if article.series_order is not None:
        here = 1_000_000_000 + article.series_order
        before = [s for s in detail.series_articles if int(s.sort) < here]
        after = [s for s in detail.series_articles if int(s.sort) > here]
        detail.previous = before[-1] if before else None
        detail.next = after[0] if after else None
    return detail
