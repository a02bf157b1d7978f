"""A readers' term or article as its `context=view` object, written by the database.

Why: building the object in Python costs more per row (the driver converting dates and
JSON, then formatting four dates, escaping, sorting link ids and building nested dicts that orjson
writes out again) than the rest of a list together; the database does the same in C
(docs/benchmarks.md, "REST lists: rows written by PostgreSQL"; what it buys on a mixed stream: "REST
lists, one read path"). The statement of a readers' list selects one text column per row, the object
in exactly the bytes orjson writes (compact `ROW_TO_JSON`/`ARRAY_TO_JSON` on PostgreSQL,
`JSON_OBJECT`/`JSON_GROUP_ARRAY` on SQLite, keys in the table's order), `link` and `_links`
included: the site's addresses are values of the statement (`site_values`, from api/links.py:
`templates`), not part of it, since the
site's address may change. In `context=view` with no `_fields` that text goes out as
written (`orjson.Fragment`), and on PostgreSQL a page read by its ids (walked and ranked
lists) comes as one row, its objects already joined (api/queries.py: `JsonPage`); otherwise
`orjson.loads` turns it back into the dict, and the context and `_fields` apply as for any
object (api/serializers.py: `from_row_json`).

The field table (api/fields.py) is the one definition of every field: `_expression` is its
SQL interpreter, api/represent.py its Python one. tests/api/test_rowjson.py compares the
responses of both forms byte for byte on both databases over hostile text, every date edge
(microseconds, DST, years below 1000), link order and embedded relations. Editors' lists
and `context=edit` keep the Python form.
"""

import re

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F, Func, JSONField, Subquery, TextField, Value
from django.db.models.functions import Coalesce

from glossary import selectors
from glossary.models import Article, Status, Term

from . import fields, links

# The column of a row holding its object (api/queries.py, api/serializers.py).
ROW_JSON = "_row_json"
_KEY = re.compile(r"^[a-z_]+$")
_RELATION = re.compile(r"^[a-z_:]+$")  # `wp:term`, `webflux:articles`
_ZONE = re.compile(r"^[A-Za-z0-9_+/-]+$")


def _as_text(sql: str, connection) -> str:
    if connection.vendor == "postgresql":
        return f"({sql})::text"
    return f"CAST({sql} AS TEXT)"


def _is_json(expression) -> bool:
    """Whether an expression gives JSON text (SQLite's JSON_OBJECT must not quote it)."""
    if isinstance(expression, _Object | _Strings | _Json | _Nested | _SortedArray):
        return True
    return isinstance(getattr(expression, "output_field", None), JSONField)


class _Object(Func):
    """A JSON object of `key: value` in the order given, in the compact form orjson writes
    (no spaces): `row_to_json` over a one-row subselect whose columns are named by the keys.
    (`JSON_BUILD_OBJECT` writes `"key" : value`, and `jsonb` reorders keys.)"""

    output_field = TextField()

    def __init__(self, **fields):
        assert all(_RELATION.match(key) for key in fields), fields
        self.keys = list(fields)
        super().__init__(*fields.values())

    def as_sql(self, compiler, connection, **extra):
        parts, params = [], []
        for key, expression in zip(self.keys, self.source_expressions, strict=True):
            sql, values = compiler.compile(expression)
            parts.append(f'{sql} AS "{key}"')
            params.extend(values)
        columns = ", ".join(parts)  # compiled expressions, keys checked against _KEY
        return f"(SELECT ROW_TO_JSON(_o) FROM (SELECT {columns}) _o)", params  # noqa: S608

    def as_sqlite(self, compiler, connection, **extra):
        # JSON_OBJECT writes the compact form too; a value that is JSON text already is
        # passed through JSON() (a subquery's result has lost its JSON subtype).
        parts, params = [], []
        for key, expression in zip(self.keys, self.source_expressions, strict=True):
            sql, values = compiler.compile(expression)
            parts.append(f"'{key}', JSON({sql})" if _is_json(expression) else f"'{key}', {sql}")
            params.extend(values)
        return f"JSON_OBJECT({', '.join(parts)})", params


class _Text(Func):
    """The object as text: what the driver hands over without parsing it."""

    template = "(%(expressions)s)::text"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra):
        return compiler.compile(self.source_expressions[0])  # JSON_OBJECT gives text


class _Strings(Func):
    """A `jsonb` array of strings (synonyms) as compact JSON text."""

    template = "ARRAY_TO_JSON(ARRAY(SELECT JSONB_ARRAY_ELEMENTS_TEXT(%(expressions)s)))"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra):
        # The elements written again: the stored text may escape what orjson writes as is.
        sql, params = compiler.compile(self.source_expressions[0])
        return f"(SELECT JSON_GROUP_ARRAY(value) FROM JSON_EACH({sql}))", params  # noqa: S608


class _Escaped(Func):
    """`html.escape(text, quote=False)`: &, < and >, ampersands first."""

    template = "REPLACE(REPLACE(REPLACE(%(expressions)s, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')"
    output_field = TextField()


class _Excerpt(Func):
    """`links.excerpt_html`: the escaped text in a paragraph, nothing for no text."""

    output_field = TextField()

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(_Escaped(self.source_expressions[0]))
        text, text_params = compiler.compile(self.source_expressions[0])
        newline = "E'\\n'" if connection.vendor == "postgresql" else "CHAR(10)"
        return (
            f"CASE WHEN {text} = '' THEN '' ELSE '<p>' || {sql} || '</p>' || {newline} END",
            [*text_params, *params],
        )


class _WpDate(Func):
    """`serializers.wp_dates`: the time in `zone`, to the second (truncated, as
    `isoformat(timespec="seconds")` does), with no offset."""

    output_field = TextField()

    def __init__(self, expression, zone: str):
        assert _ZONE.match(zone), zone
        self.zone = zone
        super().__init__(expression)

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"TO_CHAR({sql} AT TIME ZONE '{self.zone}', 'YYYY-MM-DD\"T\"HH24:MI:SS')", params

    def as_sqlite(self, compiler, connection, **extra):
        # Django's own SQLite function (the one `TruncSecond` uses) converts the stored UTC
        # time to the zone; SQLite has no time zones of its own.
        sql, params = compiler.compile(self.source_expressions[0])
        stored = connection.timezone_name
        assert _ZONE.match(stored), stored
        trunc = f"DJANGO_DATETIME_TRUNC('second', {sql}, '{self.zone}', '{stored}')"
        return f"REPLACE({trunc}, ' ', 'T')", params


class _Status(Func):
    """`serializers.wp_status` at `now` (a parameter: the statement's clock)."""

    output_field = TextField()

    def as_sql(self, compiler, connection, **extra):
        (status, status_params), (when, when_params), (now, now_params) = (
            compiler.compile(e) for e in self.source_expressions
        )
        published = str(Status.PUBLISHED)
        assert _KEY.match(published)
        return (
            f"CASE WHEN {status} <> '{published}' THEN 'draft' "
            f"WHEN {when} > {now} THEN 'future' ELSE 'publish' END",
            [*status_params, *when_params, *now_params],
        )


class _Literal(Func):
    output_field = TextField()

    def __init__(self, text: str):
        assert _KEY.match(text), text
        self.text = text
        super().__init__()

    def as_sql(self, compiler, connection, **extra):
        return f"'{self.text}'", []


class _WithLinks(Func):
    """The object's text with `_links` appended: the site's `entry_links` template (a
    parameter) with the row's id put where the template holds `links.ID_MARK`; then
    `_embedded` when a fourth expression gives it."""

    output_field = TextField()

    def as_sql(self, compiler, connection, **extra):
        (text, p1), (template, p2), (pk, p3), *embedded = (
            compiler.compile(e) for e in self.source_expressions
        )
        mark = links.ID_MARK
        assert mark.isdigit()
        tail, p4 = "", []
        if embedded:
            tail, p4 = (
                f" || ',\"_embedded\":' || {_as_text(embedded[0][0], connection)}",
                embedded[0][1],
            )
        head = f"LEFT({text}, -1)"
        if connection.vendor != "postgresql":
            head = f"SUBSTR({text}, 1, LENGTH({text}) - 1)"
            p1 = [*p1, *p1]
        return (
            f"({head} || ',\"_links\":' || REPLACE({template}, '{mark}', "
            f"{_as_text(pk, connection)}){tail} || '}}')",
            [*p1, *p2, *p3, *p4],
        )


class _Marked(Func):
    """`REPLACE(template, mark, value)`: a page address or `_links` of the site (values of
    the statement, `site_values`: the site's address may change) with an entry's slug or id
    put in (`links.templates`)."""

    output_field = TextField()

    def __init__(self, template, mark: str, value):
        assert "'" not in mark
        self.mark = mark
        super().__init__(template, value)

    def as_sql(self, compiler, connection, **extra):
        (template, p1), (value, p2) = (compiler.compile(e) for e in self.source_expressions)
        mark = self.mark.replace("\x1e", "' || CHR(30) || '")
        return f"REPLACE({template}, '{mark}', ({value})::text)", [*p1, *p2]

    def as_sqlite(self, compiler, connection, **extra):
        (template, p1), (value, p2) = (compiler.compile(e) for e in self.source_expressions)
        mark = self.mark.replace("\x1e", "' || CHAR(30) || '")
        return f"REPLACE({template}, '{mark}', CAST({value} AS TEXT))", [*p1, *p2]


class _Json(Func):
    """Text that is JSON already, as `json`: `ROW_TO_JSON` writes it as it is."""

    template = "(%(expressions)s)::json"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"JSON({sql})", params


class _OrderedObjects(Func):
    """The linked entries' objects of a `_link_values` subquery as one compact JSON array,
    in `links_from_row`'s order (the sort text by code point, then the id; `descending` for
    the articles, newest first), `[]` for none."""

    output_field = TextField()

    def __init__(self, obj, pk, sort, *, descending: bool):
        self.descending = descending
        super().__init__(obj, pk, sort)

    def as_sql(self, compiler, connection, **extra):
        (obj, p1), (pk, p2), (sort, p3) = (compiler.compile(e) for e in self.source_expressions)
        way = " DESC" if self.descending else ""
        order = f'{sort} COLLATE "C"{way}, {pk}{way}'
        return (
            f"COALESCE(ARRAY_TO_JSON(ARRAY_AGG({obj} ORDER BY {order})), '[]'::json)",
            [*p1, *p3, *p2],
        )


class _Nested(Func):
    """`[x]`: WordPress's `_embedded` holds one list per link (`[[…]]`)."""

    template = "JSON_BUILD_ARRAY(%(expressions)s)"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"JSON_ARRAY(JSON({sql}))", params


class _SortedArray(Subquery):
    """SQLite: the single column of a subquery as a JSON array, in the subquery's order
    (SQLite before 3.44 has no ORDER BY inside an aggregate). `json_values`: the column
    holds JSON text (objects), not scalars."""

    template = "(SELECT JSON_GROUP_ARRAY(%(value)s) FROM (%(subquery)s) _s)"
    output_field = TextField()

    def __init__(self, queryset, *, json_values: bool):
        super().__init__(queryset, output_field=TextField())
        self.extra["value"] = "JSON(_s._v)" if json_values else "_s._v"


# Ordered subqueries keep their ORDER BY only when sliced (Django drops it otherwise).
_ALL_ROWS = 1_000_000


def _in_order(part, value, *, descending: bool, json_values: bool):
    """A JSON array of `value` over the link rows of `part` in `links_from_row`'s order (the
    sort text by code point, then the id; `descending`: newest first): the aggregate
    orders its input on PostgreSQL, an ordered subquery does on SQLite."""
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql":
        objects = _OrderedObjects(value, F("id"), F("_sort"), descending=descending)
        return Subquery(part.annotate(_objects=objects).values("_objects"), TextField())
    way = "-" if descending else ""
    rows = part.annotate(_v=value).order_by(f"{way}_sort", f"{way}id").values("_v")
    return _SortedArray(rows[:_ALL_ROWS], json_values=json_values)


def _link_ids(model, *, now) -> dict:
    """Per kind of link a row shows without `_embed` (`link_ids` fields), its ids in order."""
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql":
        return selectors.entry_link_ids(model, now=now)
    parts = selectors.entry_link_parts(model, now=now)
    kind = _KINDS[model]
    return {
        field.source[0]: _in_order(
            parts[_ID_PARTS[field.source[0]]], F("id"), descending=False, json_values=False
        )
        for field in fields.FIELDS[kind]
        if field.kind == "link_ids"
    }


# A row's `link_ids` field -> the part of its link rows (`selectors.entry_link_parts`).
_ID_PARTS = {"categories": "category", "related": "term", "terms": "term"}


def site_values(model, params: dict) -> dict:
    """The per-call values of the site's addresses in the objects of `model` for a request
    with `params` (by name: the compiled statement's placeholders are these names): the
    row's page address and `_links`, and each embedded kind's (`links.templates`)."""
    kind = _KINDS[model]
    values = {}
    values[f"site_{kind}_page"], values["site_links"], _embedded = links.templates(kind)
    for relation in fields.relations(kind, params.get("_embed")):
        page, _own, embedded = links.templates(relation.kind)
        values[f"site_{relation.kind}_page"], values[f"site_{relation.kind}_links"] = (
            page,
            embedded,
        )
    return values


def _page(kind: str, site: dict, slug):
    """`links.page`: the site's page address of an entry of `kind` with its slug."""
    return _Marked(Value(site[f"site_{kind}_page"]), links.SLUG_MARK, slug)


def _expression(field: fields.Field, kind: str, *, now, site: dict, ids=None, names=None):
    """The SQL of `field` (api/fields.py) for a row of `kind`: the SQL interpreter of the
    field table (api/represent.py: `value` is the Python one). `names`: the columns the
    sources are read from, where they are not the sources' own names (link rows)."""
    names = names or {}
    columns = [F(names.get(name, name)) for name in field.source]
    how = field.kind
    if how == "column":
        return columns[0]
    if how == "kind":
        return _Literal(kind)
    if how == "page":
        return _page(kind, site, columns[0])
    if how in ("local_date", "utc_date"):
        when = columns[0] if len(columns) == 1 else Coalesce(*columns)
        return _WpDate(when, settings.TIME_ZONE if how == "local_date" else "UTC")
    if how == "status":
        return _Status(*columns, Value(now))
    if how == "strings":
        return _Strings(columns[0])
    if how == "link_ids":
        return ids[field.source[0]]
    if how == "escaped":
        return _Object(rendered=_Escaped(columns[0]))
    if how == "excerpt":
        return _Object(rendered=_Excerpt(columns[0]))
    return _Object(rendered=columns[0])  # html


def _linked(kind: str, site: dict):
    """A linked entry's card in `_embedded` (`fields.CARDS`, `represent.embed_link`), over a
    `_link_values` row."""
    hal = _Json(_Marked(Value(site[f"site_{kind}_links"]), links.ID_MARK, F("id")))
    names = {"title": "_title", "summary": "_summary"}
    card = {
        field.name: _expression(field, kind, now=None, site=site, names=names)
        for field in fields.CARDS[kind]
    }
    return _Object(**card, _links=hal)


def _embedded(model, *, now, site: dict, params: dict):
    """`_embedded` of a row (`represent.embedded` over `selectors.with_entry_links`' parts),
    or None when `_embed` names no relation of `model`."""
    relations = fields.relations(_KINDS[model], params.get("_embed"))
    if not relations:
        return None
    parts = selectors.entry_link_parts(model, now=now)
    out = {}
    for relation in relations:
        card = _linked(relation.kind, site)
        objects = _in_order(
            parts[relation.part], card, descending=relation.newest_first, json_values=True
        )
        out[relation.name] = _Nested(objects)
    return _Object(**out)


def _object(model, *, now, site: dict) -> dict:
    """The `context=view` fields of a row of `model` as SQL (`fields.FIELDS`)."""
    kind = _KINDS[model]
    ids = _link_ids(model, now=now)
    return {
        field.name: _expression(field, kind, now=now, site=site, ids=ids)
        for field in fields.FIELDS[kind]
        if "view" in field.contexts
    }


_KINDS = {Term: "term", Article: "article"}
# The contexts this form serves: the fields of both are the view's (embed only hides some).
CONTEXTS = frozenset({"view", "embed"})


def applies(model, params: dict) -> bool:
    """Whether a readers' list of `model` with `params` is read in this form."""
    return model in _KINDS and params.get("context", "view") in CONTEXTS


def written_whole(params: dict) -> bool:
    """Whether the objects go out as the database wrote them (`context=view`, no `_fields`):
    nothing reshapes them."""
    return params.get("context", "view") == "view" and not params.get("_fields")


def whole_pages() -> bool:
    """Whether a page read by its ids comes as one row, its objects joined in order
    (api/queries.py: `JsonPage`): PostgreSQL's ordered `STRING_AGG`. SQLite reads such a
    page one row per object, in the same bytes."""
    return connections[DEFAULT_DB_ALIAS].vendor == "postgresql"


def row_json(model, *, now, site: dict, params: dict):
    """The expression of a row's whole object (`_links` included, `_embedded` as `params`
    ask for it), as JSON text; `site` holds the values (or placeholders) of `site_values`."""
    text = _Text(_Object(**_object(model, now=now, site=site)))
    embedded = _embedded(model, now=now, site=site, params=params)
    extra = () if embedded is None else (_Text(embedded),)
    return _WithLinks(text, Value(site["site_links"]), F("id"), *extra)
