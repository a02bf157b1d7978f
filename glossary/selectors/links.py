"""Links between entries (`Link`), as pages and agents list them, and the correlated subqueries
that attach them to a read's row as JSON arrays (`_with_links`, `_links_of`)."""

from operator import itemgetter
from typing import NamedTuple

import orjson
from django.db.models import CharField, F, Func, JSONField, Subquery, Value
from django.db.models.functions import Cast


class Link(NamedTuple):
    """A lightweight reference to another entry, as pages and agents list them.

    A tuple, not a frozen dataclass: a detail read builds one per attached entry (~25 for a
    term), and a frozen dataclass's `__init__` (one `object.__setattr__` per field) makes
    building and sorting them a visible part of a cold `get_term` (docs/benchmarks.md,
    "Cold reads")."""

    kind: str
    id: int
    slug: str
    title: str
    summary: str
    sort: str


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
    the stdlib decoder JSONField uses is several times slower (bench/mcp.py, cold get_term). Only
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
