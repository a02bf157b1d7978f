"""Shared reads: every page and every MCP method that shows the same thing calls the same
function here, and every function starts from `published()` unless a caller explicitly asks
staff-only drafts (`include_drafts=True`, used by "view on site" for editors).

Query counts are constant by construction: a detail read is one query, the row with
everything attached to it (categories, related terms, articles, series siblings) as JSON
arrays in correlated subqueries, sorted in Python. Callers (and tests) rely on these counts.
"""

from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from operator import itemgetter
from typing import NamedTuple

import orjson
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import (
    CharField,
    F,
    Func,
    IntegerField,
    JSONField,
    OuterRef,
    Subquery,
    TextField,
    Value,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.db.models.lookups import GreaterThan
from django.utils import timezone

from . import site
from .models import Article, Category, Series, Status, Term
from .polish import INDEX_LETTERS, OTHER_LETTER
from .prepared import Prepared, kept_cursor

TERM_CARD_FIELDS = ("id", "name", "slug", "short_definition", "letter", "updated_at")
# What a keyset page (`term_page`: MCP list_terms, resources/list) shows and pages by: no
# timestamp, whose conversion was a fifth of a page's Python (issue 16).
TERM_PAGE_FIELDS = ("id", "name", "slug", "short_definition", "sort_key")


class Link(NamedTuple):
    """A lightweight reference to another entry, as pages and agents list them.

    A tuple, not a frozen dataclass: a detail read builds one per attached entry (~25 for a
    term), and a frozen dataclass's `__init__` (one `object.__setattr__` per field) made
    building and sorting them ~50 µs of a cold `get_term` (issue 16)."""

    kind: str
    id: int
    slug: str
    title: str
    summary: str
    sort: str


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


def _link_values(qs, kind: str, *, title: str, summary: str | None, sort):
    return (
        qs.order_by()
        .annotate(
            _kind=Value(kind, output_field=CharField()),
            _title=F(title),
            _summary=F(summary) if summary else Value("", output_field=CharField()),
            _sort=Cast(sort, output_field=CharField()),
        )
        .values_list("_kind", "id", "slug", "_title", "_summary", "_sort")
    )


def _visible(model, include_drafts: bool):
    return model.objects.all() if include_drafts else model.objects.published()


# Columns only search, sorting and linking read (derived on save): a detail read never shows
# them, and the stems of a long body are most of a row's bytes.
TERM_SEARCH_COLUMNS = ("name_folded", "search_text", "search_names", "stems_names",
                       "stems_definition", "stems_body", "typo_keys")  # fmt: skip
ARTICLE_SEARCH_COLUMNS = ("search_text", "title_folded", "stems_title", "stems_lead", "stems_body")


class _RowsField(JSONField):
    """The JSON arrays of attached rows, parsed by orjson: a detail read has four of them, and
    the stdlib decoder JSONField uses cost ~10 µs each (bench/mcp.py, cold get_term). Only
    read, never written or queried into."""

    def from_db_value(self, value, expression, connection):
        return None if value is None else orjson.loads(value)


class _JSONRows(Func):
    """The rows of a `_link_values` subquery as one JSON array of `[id, slug, title, summary,
    sort]` arrays (NULL on PostgreSQL when there are none, `[]` on SQLite). No kind: the
    column is one kind, and an untyped parameter cannot be a JSONB_BUILD_ARRAY argument."""

    function = "JSON_GROUP_ARRAY"
    template = "%(function)s(JSON_ARRAY(%(expressions)s))"
    output_field = _RowsField()

    def as_postgresql(self, compiler, connection, **extra):
        # jsonb: Django's psycopg loader hands it to JSONField as text (json would be parsed
        # by the driver, which JSONField's converter does not expect).
        return self.as_sql(
            compiler, connection, template="JSONB_AGG(JSONB_BUILD_ARRAY(%(expressions)s))"
        )


LINK_COLUMNS = ("id", "slug", "_title", "_summary", "_sort")


def _attached(values, columns=LINK_COLUMNS) -> Subquery:
    """A `_link_values` QuerySet correlated to the outer row, as one JSON column of its
    `columns` (decoded by orjson: `_RowsField`)."""
    rows = _JSONRows(*(F(name) for name in columns))
    return Subquery(values.annotate(_rows=rows).values("_rows"), output_field=_RowsField())


def _with_links(queryset, parts: dict, columns=LINK_COLUMNS):
    """`queryset` with one JSON column per kind of attached entry (`parts`: kind ->
    `_link_values` QuerySet of that kind filtered on `OuterRef("pk")`)."""
    return queryset.annotate(
        **{f"_links_{name}": _attached(qs, columns) for name, qs in parts.items()}
    )


_BY_SORT = itemgetter(5)  # Link.sort


def _links_of(entry, names) -> dict[str, list[Link]]:
    """The attached entries `_with_links` read into `entry`, per kind, sorted as pages show
    them (by the `sort` column; ties keep the database's order, as the UNION did)."""
    out = {}
    for name in names:
        rows = getattr(entry, f"_links_{name}") or []
        out[name] = sorted([Link(name, *row) for row in rows], key=_BY_SORT)
    return out


# What an agent's text of an entry never reads: the page's HTML (agents get the Markdown the
# editor wrote, glossary/markdown.py: markdown_for_agents) and the creation time. A term's
# `linked_html` is most of its row (~7 KB, TOASTed); leaving both out of the MCP reads cut the
# bytes PostgreSQL detoasts and the driver decodes per cold `get_term` (issue 16).
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


# One statement, not the row and then a UNION of its links: each statement cost ~225 µs of
# client CPU in psycopg, and the correlated subqueries cost PostgreSQL no more than the UNION
# did (term_detail ~580 -> ~440 µs of CPU a call at 10,000 terms; docs/benchmarks.md).
_TERM_DETAIL = Prepared(_term_detail, slug="__slug_placeholder__")
_TERM_TEXT = Prepared(partial(_term_detail, html=False), slug="__slug_placeholder__")


def term_detail(*, slug: str, include_drafts: bool = False, html: bool = True) -> TermDetail | None:
    """A term with its categories, published related terms, published articles and the
    published terms its body mentions (1 query, compiled once: glossary/prepared.py).

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


_ARTICLE_DETAIL = Prepared(_article_detail, slug="__slug_placeholder__")
_ARTICLE_TEXT = Prepared(partial(_article_detail, html=False), slug="__slug_placeholder__")


def article_detail(
    *, slug: str, include_drafts: bool = False, html: bool = True
) -> ArticleDetail | None:
    """An article with its published glossary terms, the published terms its body mentions
    and its series neighbours (1 query, compiled once for readers: glossary/prepared.py).
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


def term_index(
    *, letter: str | None = None, category: str | None = None, now: datetime | None = None
):
    """Published terms in Polish alphabetical order, as light rows for lists (1 query)."""
    qs = Term.objects.published(now=now)
    if letter:
        qs = qs.filter(letter=letter.upper())
    if category:
        qs = qs.filter(categories__slug=category)
    return qs.order_by("sort_key", "id").values(*TERM_CARD_FIELDS, "sort_key")


def categories() -> list[tuple[str, str]]:
    """Every category as (slug, name), by name (1 query, compiled once: list_terms asks on
    every call, and building the QuerySet was most of a first page's Python, issue 16)."""
    return _CATEGORIES()


_CATEGORIES = Prepared(
    lambda *, now: Category.objects.order_by("name").values_list("slug", "name"), clock=False
)


def term_page(
    *,
    letter: str | None = None,
    category: str | None = None,
    after: tuple[str, int] | None = None,
    limit: int = 50,
) -> list[dict]:
    """One keyset page of `term_index` after `(sort_key, id)`, as `TERM_PAGE_FIELDS` rows;
    fetches `limit + 1` rows so the caller knows whether another page exists."""
    shape = (letter is not None and letter != "", bool(category), after is not None, limit)
    prepared = _TERM_PAGES.get(shape)
    if prepared is None:
        marks = {"letter": "\x1bLETTER\x1b", "category": "\x1bcategory\x1b", "key": "\x1bkey\x1b"}
        marks = {k: v for k, v in marks.items() if shape[("letter", "category", "key").index(k)]}
        if after is not None:
            marks["pk"] = -1_618_033

        def build(*, now, letter=None, category=None, key=None, pk=None):
            qs = term_index(letter=letter, category=category, now=now)
            if key is not None:
                # A row comparison `(sort_key, id) > (key, pk)`: the (sort_key, id) index
                # starts at the position and yields the page in order whatever the values.
                # Why: the statement is prepared, and under `plan_cache_mode=force_generic_plan`
                # (config/settings.py) the range-plus-OR form got a generic plan that read
                # and sorted every published row after the position (7–46 ms a page at
                # 10,000 terms; 0.16 ms this way, issue 16). SQLite has row values too.
                qs = qs.filter(GreaterThan(_row(F("sort_key"), F("id")), _row(key, pk)))
            return qs.values(*TERM_PAGE_FIELDS)[: limit + 1]

        prepared = _TERM_PAGES.setdefault(shape, Prepared(build, **marks))
    values = {}
    if shape[0]:
        values["letter"] = letter.upper()
    if shape[1]:
        values["category"] = category
    if after is not None:
        values["key"], values["pk"] = after
    return prepared(**values)


def _row(*values):
    """`(a, b)`: a row value (PostgreSQL, SQLite ≥ 3.15) for a row comparison."""
    items = [v if hasattr(v, "resolve_expression") else Value(v) for v in values]
    return Func(*items, function="", output_field=CharField())


# term_page's statement per shape (letter, category, after, limit): compiled once
# (glossary/prepared.py), as building the filtered keyset QuerySet cost more than running it.
_TERM_PAGES: dict[tuple, Prepared] = {}


def index_letters(rows) -> list[tuple[str, bool]]:
    """The A–Z navigation: every Polish letter (plus '#'), flagged when it has entries."""
    present = {row["letter"] for row in rows}
    letters = [(letter, letter in present) for letter in INDEX_LETTERS]
    if OTHER_LETTER in present:
        letters.append((OTHER_LETTER, True))
    return letters


def category_detail(*, slug: str) -> tuple[Category, list[dict]] | None:
    """A category and its published terms in Polish alphabetical order (2 queries)."""
    category = Category.objects.filter(slug=slug).first()
    if category is None:
        return None
    return category, list(term_index(category=slug))


def series_detail(*, slug: str) -> tuple[Series, list[Article]] | None:
    """A series and its published articles in series order (2 queries)."""
    series = Series.objects.filter(slug=slug).first()
    if series is None:
        return None
    articles = list(
        Article.objects.published()
        .filter(series=series)
        .select_related("author")
        .order_by("series_order", "id")
        .defer("body", "body_html", "linked_html", "search_text")
    )
    return series, articles


def categories_with_terms():
    """Categories that have a published term (for the sitemap)."""
    return Category.objects.filter(terms__in=Term.objects.published()).distinct().order_by("slug")


def series_with_articles():
    """Series that have a published article (for the sitemap)."""
    return (
        Series.objects.filter(articles__in=Article.objects.published()).distinct().order_by("slug")
    )


def article_list():
    """Published articles, newest first, with author and series (1 query)."""
    return (
        Article.objects.published()
        .select_related("author", "series")
        .order_by("-published_at", "-id")
        .defer("body", "body_html", "linked_html", "search_text")
    )


def latest_articles(*, limit: int = 5):
    return article_list()[:limit]


def recently_updated_terms(*, limit: int = 8):
    return Term.objects.published().order_by("-updated_at", "-id").values(*TERM_CARD_FIELDS)[:limit]


# The parts of the content state, each a scalar subquery, and the parameters each takes
# (`_state_params`): `content_state()` runs them as one statement, `with_content_state` adds
# them to another read's statement (the REST detail, api/views.py).
_STATE_PARTS = (
    ("_state_version", "SELECT version FROM glossary_contentversion WHERE id = 1"),
    ("_state_term", "SELECT MIN(published_at) FROM glossary_term"
                    " WHERE status = %s AND published_at > %s"),
    ("_state_article", "SELECT MIN(published_at) FROM glossary_article"
                       " WHERE status = %s AND published_at > %s"),
    ("_state_domain", "SELECT domain FROM django_site WHERE id = %s"),
)  # fmt: skip
_CONTENT_STATE_SQL = "SELECT " + ", ".join(f"({sql})" for _name, sql in _STATE_PARTS)
STATE_COLUMNS = tuple(name for name, _sql in _STATE_PARTS)


def _state_params(when) -> tuple[tuple, ...]:
    published = str(Status.PUBLISHED)
    return ((), (published, when), (published, when), (settings.SITE_ID,))


def content_state(*, now: datetime | None = None) -> tuple | None:
    """What published content looks like now, as a hashable key, in one indexed query: the
    content version (migration 0004: triggers bump it on every write to a glossary table) and
    the next scheduled publication time of a term and of an article. The visible set changes
    exactly when one of these does, so a cache keyed by it needs no expiry. The site's
    canonical domain (glossary/site.py) comes in the same query: every absolute URL in a
    cached answer depends on it, and reading it here tells this process about a change of
    address at no cost. None when the version row is missing (a flushed test database): then
    nothing may be cached.

    `now` is the application's clock, the one `published()` uses, not the database's."""
    connection = connections[DEFAULT_DB_ALIAS]
    when = connection.ops.adapt_datetimefield_value(now or timezone.now())
    # The prepared reads' kept driver cursor: a new psycopg cursor per call cost ~40 µs, and
    # every REST read and every MCP call with the result cache on starts here.
    cursor = kept_cursor(connection, _CONTENT_STATE_SQL)
    cursor.execute(_CONTENT_STATE_SQL, [v for part in _state_params(when) for v in part])
    return _state(cursor.fetchone())


_last_state: tuple | None = None


def _state(row) -> tuple | None:
    global _last_state
    if row is None:
        return None
    site.seen(row[3])
    state = None if row[0] is None else tuple(row)
    _last_state = state
    return state


def last_content_state() -> tuple | None:
    """The content state this process read last (None before its first read): a guess at
    the current one, for a read that checks it against the state its own statement reads
    (REST lists, api/views.py)."""
    return _last_state


class ConstantSQL(RawSQL):
    """Raw SQL whose value is the same for every row (an uncorrelated scalar subquery: a part
    of the content state, a column of a CTE), so it never groups an aggregated read
    (api/queries.py reads a page as one row)."""

    def get_group_by_cols(self):
        return []


def with_content_state(queryset, *, now: datetime):
    """`queryset` with the content state's parts as extra columns (`STATE_COLUMNS`), the same
    subqueries `content_state()` runs, so that one statement reads a row and the state its
    ETag is keyed by (`state_from_row`). Why: a REST detail read the state, then the row:
    two round trips, each ~0.2 ms of the server's CPU (issue 12). Text output fields: no
    converter runs, so the values are the driver's, exactly as `content_state()` gets them
    (SQLite's datetimes stay text there too), and both give equal keys."""
    when = connections[DEFAULT_DB_ALIAS].ops.adapt_datetimefield_value(now)
    columns = {}
    for (name, sql), params in zip(_STATE_PARTS, _state_params(when), strict=True):
        columns[name] = ConstantSQL(sql, params, output_field=TextField())  # our SQL, constants
    return queryset.annotate(**columns)


def state_from_row(values: dict) -> tuple | None:
    """Pops `with_content_state`'s columns from `values`: what `content_state()` returns."""
    return _state(tuple(values.pop(name) for name in STATE_COLUMNS))


# --- Links of many entries at once (REST collections) ---------------------------------------
@dataclass
class EntryLinks:
    """What one entry of a list links to, as `Link`s (the rows a detail read also returns)."""

    categories: list[Link] = field(default_factory=list)
    related: list[Link] = field(default_factory=list)
    articles: list[Link] = field(default_factory=list)
    terms: list[Link] = field(default_factory=list)
    series: list[Link] = field(default_factory=list)

    def ids(self, bucket: str) -> list[int]:
        """The ids of one kind of link (what a row shows of them: `EntryIds`)."""
        return [link.id for link in getattr(self, bucket)]


def _through_links(qs, kind: str, *, source: str, target: str, title: str, summary, sort):
    return (
        qs.order_by()
        .annotate(
            _kind=Value(kind, output_field=CharField()),
            _title=F(f"{target}__{title}"),
            _summary=F(f"{target}__{summary}") if summary else Value("", output_field=CharField()),
            _sort=Cast(f"{target}__{sort}", output_field=CharField()),
        )
        .values_list(
            "_kind", source, f"{target}_id", f"{target}__slug", "_title", "_summary", "_sort"
        )
    )


# Row label -> (EntryLinks attribute, kind of the linked entry).
_BUCKETS = {
    "category": ("categories", "category"),
    "related": ("related", "term"),
    "article": ("articles", "article"),
    "uses": ("terms", "term"),
    "series": ("series", "series"),
}


def _group(rows, pks) -> dict[int, EntryLinks]:
    out = {pk: EntryLinks() for pk in pks}
    for label, source, pk, slug, title, summary, sort in sorted(rows, key=lambda r: (r[6], r[2])):
        bucket, kind = _BUCKETS[label]
        getattr(out[source], bucket).append(Link(kind, pk, slug, title, summary, sort))
    for links in out.values():
        links.articles.reverse()  # newest first, as on the term page
    return out


def _term_links_many(*, pks: list[int], include_drafts: bool, now: datetime):
    category_through = Term.categories.through
    related_through = Term.related.through
    article_through = Article.terms.through
    related = related_through.objects.filter(from_term_id__in=pks)
    articles = article_through.objects.filter(
        term_id__in=pks, article__in=Article.objects.published(now=now)
    )
    if not include_drafts:
        related = related.filter(to_term__in=Term.objects.published(now=now))
    parts = (
        _through_links(
            category_through.objects.filter(term_id__in=pks), "category", source="term_id",
            target="category", title="name", summary="description", sort="name",
        ),
        _through_links(
            related, "related", source="from_term_id", target="to_term", title="name",
            summary="short_definition", sort="sort_key",
        ),
        _through_links(
            articles, "article", source="term_id", target="article", title="title", summary="lead",
            sort="published_at",
        ),
    )  # fmt: skip
    return parts[0].union(*parts[1:], all=True)


def _article_links_many(*, pks: list[int], include_drafts: bool, now: datetime):
    uses = Article.terms.through.objects.filter(article_id__in=pks)
    if not include_drafts:
        uses = uses.filter(term__in=Term.objects.published(now=now))
    parts = (
        _through_links(
            uses, "uses", source="article_id", target="term", title="name",
            summary="short_definition", sort="sort_key",
        ),
        _through_links(
            Article.objects.filter(pk__in=pks, series__isnull=False), "series", source="id",
            target="series", title="name", summary="description", sort="name",
        ),
    )  # fmt: skip
    return parts[0].union(*parts[1:], all=True)


# One compiled statement per (read, number of ids, drafts or not): a page of a list has one of
# at most 100 sizes, and building the UNION with the ORM cost more than running it.
_MANY: dict = {}


def _links_many(build, pks: list[int], include_drafts: bool) -> list:
    key = (build, len(pks), include_drafts)
    prepared = _MANY.get(key)
    if prepared is None:
        names = [f"pk{i}" for i in range(len(pks))]

        def bound(*, now, **values):
            return build(
                pks=[values[name] for name in names], include_drafts=include_drafts, now=now
            )

        placeholders = {name: -(7_000_000 + i) for i, name in enumerate(names)}
        prepared = _MANY[key] = Prepared(bound, **placeholders)
    return prepared(**{f"pk{i}": pk for i, pk in enumerate(pks)})


def term_links(*, pks: list[int], include_drafts: bool = False) -> dict[int, EntryLinks]:
    """For each term in `pks`: its categories, its related terms (published ones, or all with
    `include_drafts`) and its published articles, in one UNION query (compiled once per page
    size), ordered as the term page orders them."""
    pks = list(dict.fromkeys(pks))
    if not pks:
        return {}
    return _group(_links_many(_term_links_many, pks, include_drafts), pks)


def article_links(*, pks: list[int], include_drafts: bool = False) -> dict[int, EntryLinks]:
    """For each article in `pks`: its published glossary terms (or all with
    `include_drafts`), A–Z, and its series, in one UNION query."""
    pks = list(dict.fromkeys(pks))
    if not pks:
        return {}
    return _group(_links_many(_article_links_many, pks, include_drafts), pks)


# --- One published entry with its links (REST details) -------------------------------------
def _term_entry_parts(*, pk, now: datetime) -> dict:
    """What `term_links` gives a term (published links): the detail read's parts, no mentions."""
    parts = _term_link_parts(pk=pk, now=now)
    del parts["mention"]
    return parts


def _article_entry_parts(*, pk, now: datetime) -> dict:
    """What `article_links` gives an article: its published terms and its series itself (not
    the series' other articles, which the article page lists)."""
    parts = _article_link_parts(pk=pk, now=now)
    del parts["mention"]
    parts["series"] = _link_values(
        Series.objects.filter(pk=OuterRef("series_id")), "series", title="name",
        summary="description", sort="name",
    )  # fmt: skip
    return parts


# Per model: its parts, and JSON column (the linked entries' kind) -> EntryLinks attribute.
_ENTRY_BUCKETS = {
    Term: (_term_entry_parts, {"category": "categories", "term": "related", "article": "articles"}),
    Article: (_article_entry_parts, {"term": "terms", "series": "series"}),
}
# What a row shows of its links without `_embed` (the ids of these kinds only: a term's
# articles and an article's series appear in `_embedded` alone).
_ID_BUCKETS = {
    Term: {"category": "categories", "term": "related"},
    Article: {"term": "terms"},
}
ID_COLUMNS = ("id", "_sort")


@dataclass
class EntryIds:
    """The ids an entry of a list shows without `_embed` (`EntryLinks.ids` of the same
    entry: same entries, same order), read without titles and summaries."""

    categories: list[int] = field(default_factory=list)
    related: list[int] = field(default_factory=list)
    terms: list[int] = field(default_factory=list)

    def ids(self, bucket: str) -> list[int]:
        return getattr(self, bucket)


def with_entry_links(queryset, *, model: type[Term | Article], now: datetime, full: bool):
    """`queryset` (readers' rows of `model`) with each row's published links as JSON
    columns, from the correlated subqueries of the detail reads: everything `term_links`/
    `article_links` give (`full`, for `_embed`) or only the ids a row shows (`EntryIds`).
    Why: a list read its rows, then the links UNION; each statement cost ~225 µs of client
    CPU, and the UNION's titles and summaries are read for nothing when nothing is embedded.
    `links_from_row` takes the columns back out of a row's values."""
    parts_of, _buckets = _ENTRY_BUCKETS[model]
    parts = parts_of(pk=OuterRef("pk"), now=now)
    if full:
        return _with_links(queryset, parts)
    wanted = {name: parts[name] for name in _ID_BUCKETS[model]}
    return _with_links(queryset, wanted, ID_COLUMNS)


class _OrderedIds(Func):
    """The ids of a `_link_values` subquery as one compact JSON array in the order
    `links_from_row` gives them: by the `_sort` text, then by id. `COLLATE "C"` compares
    UTF-8 bytes, which is code point order, as Python compares str. None gives `[]`."""

    output_field = JSONField()

    def as_sql(self, compiler, connection, **extra):
        pk, pk_params = compiler.compile(self.source_expressions[0])
        sort, sort_params = compiler.compile(self.source_expressions[1])
        # ARRAY_TO_JSON writes `[1,2]` as orjson does (JSON_AGG writes `[1, 2]`).
        order = f'{sort} COLLATE "C", {pk}'
        sql = f"COALESCE(ARRAY_TO_JSON(ARRAY_AGG({pk} ORDER BY {order})), '[]'::json)"
        return sql, [*pk_params, *sort_params, *pk_params]


def entry_link_parts(model: type[Term | Article], *, now: datetime) -> dict:
    """The parts `with_entry_links` reads (`_link_values` rows, correlated to the outer row),
    by kind, for a statement that aggregates them itself (`entry_link_ids`, and
    api/rowjson.py's `_embedded`)."""
    return _ENTRY_BUCKETS[model][0](pk=OuterRef("pk"), now=now)


def entry_link_ids(model: type[Term | Article], *, now: datetime) -> dict[str, Subquery]:
    """PostgreSQL: per kind a row shows without `_embed` (`EntryIds`: a term's categories and
    related terms, an article's terms), a subquery correlated to the outer row giving their
    ids as a sorted JSON array: what `with_entry_links` + `links_from_row` give, for a
    statement that builds the whole object (api/rowjson.py)."""
    parts = entry_link_parts(model, now=now)
    return {
        bucket: Subquery(
            parts[name].annotate(_ids=_OrderedIds(F("id"), F("_sort"))).values("_ids"),
            output_field=JSONField(),
        )
        for name, bucket in _ID_BUCKETS[model].items()
    }


def link_columns(model: type[Term | Article], *, full: bool) -> tuple[str, ...]:
    """The names of the columns `with_entry_links` adds."""
    names = _ENTRY_BUCKETS[model][1] if full else _ID_BUCKETS[model]
    return tuple(f"_links_{name}" for name in names)


def links_from_row(
    values: dict, *, model: type[Term | Article], full: bool
) -> EntryLinks | EntryIds:
    """Pops `with_entry_links`'s columns from `values`: the links in `_group`'s order (the
    sort column, then the linked id; articles newest first). A kind without rows is NULL on
    PostgreSQL (JSONB_AGG of nothing), `[]` on SQLite."""
    if not full:
        ids = EntryIds()
        for name, bucket in _ID_BUCKETS[model].items():
            items = sorted(values.pop(f"_links_{name}") or [], key=lambda r: (r[1], r[0]))
            setattr(ids, bucket, [row[0] for row in items])
        return ids
    links = EntryLinks()
    for name, bucket in _ENTRY_BUCKETS[model][1].items():
        items = sorted(values.pop(f"_links_{name}") or [], key=lambda r: (r[4], r[0]))
        getattr(links, bucket).extend(Link(name, *row) for row in items)
    links.articles.reverse()  # newest first, as on the term page
    return links


# entry_with_links's statement per (model, fields): compiled once (glossary/prepared.py).
_ENTRY_ROWS: dict[tuple, Prepared] = {}


def entry_with_links(
    *, model: type[Term | Article], pk: int, fields: tuple[str, ...], state: bool = False
) -> tuple[dict, EntryLinks, tuple | None] | None:
    """A published term or article `pk` as a dict of `fields`, with its links as
    `term_links`/`article_links` give them to readers (same entries, same order), in one
    statement: the row with one JSON column per kind of link (`with_entry_links`), compiled
    once per (model, fields, state). Why: the REST detail read the row, then the links UNION;
    each statement cost ~225 µs of client CPU (term_detail, docs/benchmarks.md). The third
    item is the content state when `state` asks for it in the same statement
    (`with_content_state`), else None."""
    prepared = _ENTRY_ROWS.get((model, fields, state))
    if prepared is None:
        columns = link_columns(model, full=True)
        extra = STATE_COLUMNS if state else ()

        def build(*, now, pk):
            queryset = model.objects.published(now=now).filter(pk=pk).order_by()
            if state:
                queryset = with_content_state(queryset, now=now)
            return with_entry_links(queryset, model=model, now=now, full=True).values(
                *fields, *columns, *extra
            )

        prepared = _ENTRY_ROWS.setdefault((model, fields, state), Prepared(build, pk=-9_300_001))
    rows = prepared(pk=pk)
    if not rows:
        return None
    values = rows[0]
    read = state_from_row(values) if state else None
    return values, links_from_row(values, model=model, full=True), read


# --- Whole texts for agents (/llms-full.txt: glossary/llms.py) -----------------------------
def term_texts():
    """Every published term with its displayed body, in Polish alphabetical order (1 query)."""
    return (
        Term.objects.published()
        .order_by("sort_key", "id")
        .only("name", "slug", "short_definition", "synonyms", "body_html", "linked_html")
    )


def article_texts():
    """Every published article with its displayed body, newest first (1 query)."""
    return (
        Article.objects.published()
        .order_by("-published_at", "-id")
        .only("title", "slug", "lead", "body_html", "linked_html", "published_at")
    )
