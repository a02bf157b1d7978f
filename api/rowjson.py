"""A readers' term or article as its `context=view` object, written by PostgreSQL.

Why: a page of ten cost ~2.2× an uncached MCP `get_term` (issue 12's target: 1.2×), and most
of the difference was Python per row: the driver converting dates and JSON, then the
serializer formatting four dates, escaping, sorting link ids and building nested dicts that
orjson then wrote out again. PostgreSQL does the same in C: the statement of a readers' list
selects one text column per row, the object in exactly the bytes orjson writes (compact
`ROW_TO_JSON`/`ARRAY_TO_JSON`, keys in the serializer's order). In `context=view` with no
`_fields` that text goes out as written (`orjson.Fragment`), with the page's address put
around the slug in `link` and `_links` appended (api/links.py: `complete_row_json`);
otherwise `orjson.loads` turns it back into the dict the serializer would have built, and
the context and `_fields` apply as for any object (api/serializers.py: `from_row_json`).

The serializers stay the definition of every field: this module is their SQL form for the
one case that is hot and simple (published rows, `context` view or embed, no `_embed`), and
tests/api/test_rowjson.py compares the responses of both forms byte for byte over hostile
text, every date edge (microseconds, DST, years below 1000) and link order. Editors' lists,
`context=edit`, `_embed`, single entries (`/terms/<id>`) and SQLite keep the Python path.
"""

import re

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F, Func, TextField, Value
from django.db.models.functions import Coalesce

from glossary import selectors
from glossary.models import Article, Status, Term

# The column of a row holding its object (api/queries.py, api/serializers.py).
ROW_JSON = "_row_json"
_KEY = re.compile(r"^[a-z_]+$")
_ZONE = re.compile(r"^[A-Za-z0-9_+/-]+$")


class _Object(Func):
    """A JSON object of `key: value` in the order given, in the compact form orjson writes
    (no spaces): `row_to_json` over a one-row subselect whose columns are named by the keys.
    (`JSON_BUILD_OBJECT` writes `"key" : value`, and `jsonb` reorders keys.)"""

    output_field = TextField()

    def __init__(self, **fields):
        assert all(_KEY.match(key) for key in fields), fields
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


class _Text(Func):
    """The object as text: what the driver hands over without parsing it."""

    template = "(%(expressions)s)::text"
    output_field = TextField()


class _Strings(Func):
    """A `jsonb` array of strings (synonyms) as compact JSON text."""

    template = "ARRAY_TO_JSON(ARRAY(SELECT JSONB_ARRAY_ELEMENTS_TEXT(%(expressions)s)))"
    output_field = TextField()


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
        return (
            f"CASE WHEN {text} = '' THEN '' ELSE '<p>' || {sql} || E'</p>\\n' END",
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


def _common(kind: str, *, now, title: str, excerpt: str) -> dict:
    """`EntryReadSerializer.common` (`link` holds the slug: the address is the site's,
    added in Python, api/serializers.py)."""
    zone = settings.TIME_ZONE
    when = Coalesce(F("published_at"), F("created_at"))
    return {
        "id": F("id"),
        "date": _WpDate(when, zone),
        "date_gmt": _WpDate(when, "UTC"),
        "modified": _WpDate(F("updated_at"), zone),
        "modified_gmt": _WpDate(F("updated_at"), "UTC"),
        "slug": F("slug"),
        "status": _Status(F("status"), F("published_at"), Value(now)),
        "type": _Literal(kind),
        "link": F("slug"),
        "title": _Object(rendered=_Escaped(F(title))),
        "content": _Object(rendered=F("body_html")),
        "excerpt": _Object(rendered=_Excerpt(F(excerpt))),
    }


def _term(now) -> dict:
    ids = selectors.entry_link_ids(Term, now=now)
    return {
        **_common("term", now=now, title="name", excerpt="short_definition"),
        "synonyms": _Strings(F("synonyms")),
        "categories": ids["categories"],
        "related": ids["related"],
    }


def _article(now) -> dict:
    ids = selectors.entry_link_ids(Article, now=now)
    return {
        **_common("article", now=now, title="title", excerpt="lead"),
        "author": F("author_id"),
        "terms": ids["terms"],
        "series": F("series_id"),
        "series_order": F("series_order"),
    }


_FIELDS = {Term: _term, Article: _article}
# The contexts this form serves: the fields of both are the view's (embed only hides some).
CONTEXTS = frozenset({"view", "embed"})


def applies(model, params: dict) -> bool:
    """Whether a readers' list of `model` with `params` is read in this form."""
    return (
        model in _FIELDS
        and params.get("context", "view") in CONTEXTS
        and not params.get("_embed")
        and connections[DEFAULT_DB_ALIAS].vendor == "postgresql"
    )


def row_json(model, *, now):
    """The expression of a row's `context=view` object, as JSON text."""
    return _Text(_Object(**_FIELDS[model](now)))
