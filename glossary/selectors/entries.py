"""Entries with their links for REST collections and details: the links of many entries at
once (one UNION, compiled once per page size) and one published entry with its links in one
statement."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import CharField, F, Func, JSONField, OuterRef, Subquery, Value
from django.db.models.functions import Cast

from ..db.cache import LRU
from ..db.placeholders import stand_in, stand_ins
from ..db.prepared import Prepared
from ..models import Article, Series, Term
from .details import _article_link_parts, _term_link_parts
from .links import Link, _link_values, _with_links
from .state import STATE_COLUMNS, state_from_row, with_content_state


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
_MANY = LRU(512)


def _links_many(build, pks: list[int], include_drafts: bool) -> list:
    key = (build, len(pks), include_drafts)
    prepared = _MANY.get(key)
    if prepared is None:
        names = [f"pk{i}" for i in range(len(pks))]

        def bound(*, now, **values):
            return build(
                pks=[values[name] for name in names], include_drafts=include_drafts, now=now
            )

        prepared = _MANY.setdefault(key, Prepared(bound, **stand_ins(**dict.fromkeys(names, int))))
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
    Why: reading the rows, then the links UNION, costs a statement's client CPU twice, and
    the UNION's titles and summaries are read for nothing when nothing is embedded.
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


# entry_with_links's statement per (model, fields, state): compiled once
# (glossary/db/prepared.py); `_fields` lets a client ask for many sets of fields, hence the bound.
_ENTRY_ROWS = LRU(256)


def entry_with_links(
    *, model: type[Term | Article], pk: int, fields: tuple[str, ...], state: bool = False
) -> tuple[dict, EntryLinks, tuple | None] | None:
    """A published term or article `pk` as a dict of `fields`, with its links as
    `term_links`/`article_links` give them to readers (same entries, same order), in one
    statement: the row with one JSON column per kind of link (`with_entry_links`), compiled
    once per (model, fields, state). Why: each statement costs client CPU, so the row and its
    links come in one (docs/benchmarks.md, "REST entry details in one statement"). The third
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

        prepared = _ENTRY_ROWS.setdefault((model, fields, state), Prepared(build, pk=stand_in(int)))
    rows = prepared(pk=pk)
    if not rows:
        return None
    values = rows[0]
    read = state_from_row(values) if state else None
    return values, links_from_row(values, model=model, full=True), read
