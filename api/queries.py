"""A list request's rows through SQL compiled once per "shape" of request.

Why: building and compiling the filtered, ordered, sliced QuerySet of a list with the ORM cost
more CPU than running it (bench/rest.py), like the detail reads `glossary.prepared.Prepared`
exists for. A shape is what changes the SQL text: the route, the parameters present, list
lengths, ordering, context, page bounds. Its QuerySet is built once from placeholder values
(the filter backends and visibility as for any request) and compiled; later requests of that
shape substitute their values. `Prepared` falls back to plain ORM evaluation whenever a
placeholder cannot be found among the compiled parameters, so a shape it cannot compile is
slower, never wrong. Only the readers' path is compiled (`published()`, no drafts): editors'
lists are built each time.

A list that is walked page by page (no `include`/`slug`/`search` narrowing it) is read as a
deferred join: the OFFSET runs over a narrow select of ids (`sort_key`, `id` and the
visibility columns, which the sort index covers), the wide rows are read for that page's ids
only. Before, PostgreSQL sorted or walked every published wide row up to the OFFSET (43 ms
of PostgreSQL per later page at 10,000 terms, docs/benchmarks.md). The total
(`X-WP-Total`) is the same for every page of a list: it is counted once per content state
(`selectors.content_state()`, which changes with every write and every scheduled
publication) and shape, then reused by the other pages.
"""

import threading
from array import array
from datetime import UTC, datetime, timedelta

from django.contrib.postgres.aggregates import StringAgg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import (
    BooleanField,
    Count,
    F,
    Func,
    IntegerField,
    QuerySet,
    TextField,
    Value,
)

from glossary import search, selectors
from glossary.models import Term
from glossary.prepared import Prepared, joined

from . import rowjson
from .rowjson import ROW_JSON

# Parameters that change the SQL's structure (or nothing in it) are part of the shape key;
# the others become placeholders.
STRUCTURAL = {"context", "orderby", "order", "status", "hide_empty", "_embed", "_fields",
              "page", "per_page", "offset", "type", "search"}  # fmt: skip
_BASE_INT = -8_000_000
_BASE_TIME = datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC)
_COMPILED: dict = {}
_LOCK = threading.Lock()
_COUNTS: dict = {}
MAX_SHAPES = 2000
PAGE_PARAMS = frozenset({"page", "offset"})
OFFSET_MARK = 987_654_321  # the OFFSET a shape is compiled with, then made a parameter
# Parameters that narrow a list to a few known rows: no deferred join for those.
NARROW = frozenset({"include", "slug", "search"})


def _placeholders(params: dict) -> tuple[tuple, dict, dict]:
    """(shape key, {placeholder name: placeholder value}, {placeholder name: real value})."""
    shape, fake, real = [], {}, {}
    for name in sorted(params):
        value = params[name]
        if name in STRUCTURAL or isinstance(value, bool):
            shape.append((name, repr(value) if name != "search" else bool(value)))
            continue
        items = value if isinstance(value, list) else [value]
        if not items:  # `IN ()` compiles to nothing: the ORM answers it without a query
            return (), {}, {}
        shape.append((name, len(items) if isinstance(value, list) else None))
        for i, item in enumerate(items):
            key = f"{name.strip('_')}__{i}"
            n = len(fake)
            if isinstance(item, bool):
                return (), {}, {}
            if isinstance(item, int):
                fake[key] = _BASE_INT - n
            elif isinstance(item, datetime):
                fake[key] = _BASE_TIME + timedelta(seconds=n)
            elif isinstance(item, str):
                fake[key] = f"\x1bplaceholder{n}\x1b"
            else:
                return (), {}, {}
            real[key] = item
    return tuple(shape), fake, real


def _rebuild(params: dict, values: dict) -> dict:
    out = {}
    for name, value in params.items():
        if isinstance(value, list) and name not in STRUCTURAL:
            out[name] = [values[f"{name.strip('_')}__{i}"] for i in range(len(value))]
        elif name not in STRUCTURAL and not isinstance(value, bool):
            out[name] = values[f"{name.strip('_')}__0"]
        else:
            out[name] = value
    return out


def list_key(view, state) -> tuple:
    """What identifies a list whatever its page: the route, the content state, the reader
    (what an editor may count is never what an anonymous list shows) and the parameters but
    the page's own."""
    shape = sorted((k, _hashable(v)) for k, v in view.params.items() if k not in PAGE_PARAMS)
    return (type(view), state, view.user_key(), *shape)


class CompiledList:
    """What the paginator slices and counts for a readers' list: `rows[start:stop]` runs the
    compiled statement of this shape, `count()` the ORM's COUNT."""

    def __init__(self, view):
        self.view = view

    def queryset(self) -> QuerySet:
        return self.view.filter_queryset(self.view.get_queryset())

    def count(self) -> int:
        """The list's total, counted once per content state, request shape and reader (the
        page itself is not part of the key: every page of a list has the same total; the
        reader is, so that what an editor may count is never what an anonymous list shows)."""
        view = self.view
        state = getattr(view, "content_state", None)
        if state is None:
            return self.queryset().count()
        key = list_key(view, state)
        total = _COUNTS.get(key)
        if total is None:
            total = self.queryset().count()
            with _LOCK:
                if len(_COUNTS) >= MAX_SHAPES:
                    _COUNTS.clear()
                _COUNTS[key] = total
        return total

    def __getitem__(self, bounds: slice) -> list:
        view = self.view
        shape, fake, real = _placeholders(view.params)
        if not shape and view.params:
            return list(self.queryset()[bounds])
        as_json = rowjson.applies(view.model, view.params)
        if as_json:  # the site's addresses: values of the statement, not part of it
            site = rowjson.site_values(view.model, view.params)
            fake.update({name: f"\x1b{name}\x1b" for name in site})
            real.update(site)
        # A page read by its ids (`rows_by_id`: walked and ranked lists) comes whole.
        whole = as_json and IDS in view.params and rowjson.written_whole(view.params)
        start, size = bounds.start or 0, bounds.stop - (bounds.start or 0)
        # Which page (page, offset) only moves the OFFSET, a parameter of the statement: every
        # page of a list shares one compiled statement (a crawler walking pages compiled one
        # per page before, issue 16).
        with_state = getattr(view, "state_in_rows", False)
        page_shape = tuple(s for s in shape if s[0] not in PAGE_PARAMS)
        key = (type(view), page_shape, size, with_state, whole)
        prepared = _COMPILED.get(key)
        if prepared is None:
            build = self._builder(type(view), view.params, size, with_state, whole)
            # A page of given ids has no OFFSET: the ids are the page.
            prepared = Prepared(build, offset=None if whole else OFFSET_MARK, **fake)
            with _LOCK:
                if len(_COMPILED) >= MAX_SHAPES:
                    _COMPILED.clear()
                _COMPILED[key] = prepared
        rows = prepared(offset=start, **real)
        if whole:
            values = rows[0]
            view.take_state(values)
            return JsonPage(values[PAGE_JSON] or "", values[PAGE_ROWS])
        if rows and isinstance(rows[0], dict):
            return [view.row_of(values) for values in rows]
        return rows

    @staticmethod
    def _builder(view_class, params: dict, size: int, with_state: bool = False, whole=False):
        """Builds the shape's QuerySet on a bare view of the same class (no request: the
        readers' visibility), never on the request that first asked for it. `with_state`:
        every row carries the content state too (`selectors.with_content_state`), for a
        list that reads its state in the statement of its rows (api/views.py). `whole`: the
        page is one row, its objects' JSON joined in the list's order (`JsonPage`)."""
        template = dict(params)
        row_fields = getattr(view_class, "ROW_FIELDS", ())

        deferred = not any(params.get(name) for name in NARROW)

        def build(*, now, offset=0, **values):
            bare = view_class()
            bare.request, bare.now, bare.action = None, now, "list"
            bare.params = _rebuild(template, values)
            queryset = bare.filter_queryset(bare.get_queryset())
            site = {name: value for name, value in values.items() if name.startswith("site_")}
            if whole:
                return _whole_page(queryset, bare.params[IDS], now, site, with_state, template)
            page = queryset
            if deferred:  # the page's ids from a narrow select, then their rows
                page = queryset.filter(pk__in=queryset.values("pk")[offset : offset + size])
            if row_fields:  # plain rows: what the serializer reads, no model instances
                fields = row_fields
                if rowjson.applies(bare.model, bare.params):  # the object, built by SQL
                    # `updated_at`: an entry's ETag (api/conditional.py: `entry_token`).
                    fields, columns = ("id", "updated_at", ROW_JSON), ()
                    text = rowjson.row_json(bare.model, now=now, site=site, params=template)
                    page = page.annotate(**{ROW_JSON: text})
                else:
                    page, columns = bare.with_links(page, now)
                if with_state:
                    page = selectors.with_content_state(page, now=now)
                    columns = (*columns, *selectors.STATE_COLUMNS)
                page = page.values(*fields, *columns)
            return page if deferred else page[offset : offset + size]

        return build


PAGE_JSON, PAGE_ROWS, PAGE_TOTAL = "_page_json", "_page_rows", "_page_total"
IDS = "_ids"  # not a request's parameter: the ids of a page read by them (`rows_by_id`)


class JsonPage:
    """A page of objects PostgreSQL wrote (api/rowjson.py), joined by commas in the list's
    order: what goes out between `[` and `]` as written. `len()` is its number of rows."""

    def __init__(self, text: str, rows: int) -> None:
        self.text, self.rows = text, rows

    def __len__(self) -> int:
        return self.rows

    def body(self) -> bytes:
        """The page as the response's JSON array."""
        return f"[{self.text}]".encode()


class _InIds(Func):
    """`id = ANY('{…}'::bigint[])`: the ids as one parameter (an array literal), so the
    statement is the same for any number of them."""

    template = "%(expressions)s"
    output_field = BooleanField()

    def as_sql(self, compiler, connection, **extra):
        (pk, p1), (ids, p2) = (compiler.compile(e) for e in self.source_expressions)
        return f"{pk} = ANY(({ids})::bigint[])", [*p1, *p2]


class _Position(Func):
    """Where the row's id is among the ids (`ARRAY_POSITION`): the page's order."""

    output_field = IntegerField()

    def as_sql(self, compiler, connection, **extra):
        (ids, p1), (pk, p2) = (compiler.compile(e) for e in self.source_expressions)
        return f"ARRAY_POSITION(({ids})::bigint[], {pk})", [*p1, *p2]


def _whole_page(queryset, ids, now, site: dict, with_state: bool, params: dict):
    """One row for the objects of `queryset` whose ids are `ids` (an array literal, or an
    expression giving an array): their objects joined in the order of `ids` (`STRING_AGG …
    ORDER BY ARRAY_POSITION`), their number and (`with_state`) the content state. Why: the
    rows of a page cost ~20 µs each in Python (fetching, a row object, the serializer's
    call, the renderer), more than the rest of a list together (issue 12). No GROUP BY: an
    empty page is a row too (NULL text, 0 rows). A few parameters whatever the page's size
    (config/driver.py: psycopg's cache of statements)."""
    model = queryset.model
    text = rowjson.row_json(model, now=now, site=site, params=params)
    ids = Value(ids) if isinstance(ids, str) else ids
    page = (
        queryset.filter(_InIds(F("pk"), ids))
        .order_by()
        .values(_one=Value(1))
        .annotate(
            **{
                PAGE_JSON: StringAgg(text, ",", order_by=_Position(ids, F("pk"))),
                PAGE_ROWS: Count("pk"),
            }
        )
    )
    return selectors.with_content_state(page, now=now) if with_state else page


# What a search list may hold besides the search for the engine's ranking to be the list.
RANKED_ONLY = frozenset({"search", "_ranked", "orderby", "order", "page", "per_page", "offset",
                         "context", "_embed", "_fields", "status"})  # fmt: skip


class RankedList:
    """A search ordered by relevance with nothing else narrowing it: the engine's ranked ids
    (published, best first, at most `search.MAX_LIMIT`) are the list itself. The total is
    their number, a page is their slice read by id (`rows_by_id`), in the engine's order.
    Before, the ids became a `CASE` of up to 100 branches in the list's SQL and in a COUNT
    the ORM built on every request (~4.5× MCP get_term, docs/benchmarks.md). A readers'
    search in `context=view` on PostgreSQL is a `SearchPage` instead (one statement)."""

    def __init__(self, view, ranked: list[int]):
        self.view, self.ranked = view, ranked

    @staticmethod
    def applies(params: dict) -> bool:
        return params.get("orderby") == "relevance" and set(params) <= RANKED_ONLY

    def count(self) -> int:
        return len(self.ranked)

    def __getitem__(self, bounds: slice) -> list:
        return rows_by_id(self.view, self.ranked[bounds])


_SEARCH_PAGES: dict = {}


class SearchPage:
    """A `RankedList` written whole (`JsonPage`) whose ranking runs inside the statement of
    its page: the engine's statement (`search.ranked_ids_statement`) becomes a CTE giving the
    ranked ids' slice and their number, the page reads its objects by that slice. Why: the
    engine and the page were two statements, each a round trip and ~0.1–0.2 ms of the
    server's CPU (issue 12). The total is the CTE's count, read with the page. When the
    engine must run alone (SQLite, statistics to refresh) or the page's statement cannot be
    compiled, `of` gives None and the list is a `RankedList`."""

    def __init__(self, view, prepared, statement: tuple[str, list]) -> None:
        self.view, self.prepared, self.statement = view, prepared, statement
        self.total = None

    @classmethod
    def of(cls, view):
        params = view.params
        if not (
            params.get("orderby") == "relevance"
            and set(params) <= RANKED_ONLY
            and rowjson.applies(view.model, params)
            and rowjson.written_whole(params)
        ):
            return None
        kind = "term" if view.model is Term else "article"
        statement = search.ranked_ids_statement(kind=kind, query=params["search"])
        if statement is None:
            return None
        with_state = getattr(view, "state_in_rows", False)
        shape = {"context": "view", "_embed": params.get("_embed")}
        key = (type(view), tuple(shape["_embed"] or ()), with_state)
        prepared = _SEARCH_PAGES.get(key)
        if prepared is None:
            fake = {name: f"\x1b{name}\x1b" for name in rowjson.site_values(view.model, shape)}
            prepared = Prepared(cls._builder(type(view), with_state, shape), **fake)
            with _LOCK:
                if len(_SEARCH_PAGES) >= MAX_SHAPES:
                    _SEARCH_PAGES.clear()
                _SEARCH_PAGES[key] = prepared
        if prepared.compiled_for(connections[DEFAULT_DB_ALIAS]) is None:
            return None
        return cls(view, prepared, statement)

    @staticmethod
    def _builder(view_class, with_state: bool, shape: dict):
        def build(*, now, **site):
            bare = view_class()
            bare.request, bare.now, bare.action = None, now, "list"
            bare.params = {"context": "view"}
            queryset = bare.filter_queryset(bare.get_queryset())
            # Columns of the `ranked` CTE `__getitem__` puts before the statement.
            ids = selectors.ConstantSQL("(SELECT page FROM ranked)", (), output_field=TextField())
            page = _whole_page(queryset, ids, now, site, with_state, shape)
            total = selectors.ConstantSQL(
                "(SELECT total FROM ranked)", (), output_field=IntegerField()
            )
            return page.annotate(**{PAGE_TOTAL: total})

        return build

    def count(self) -> int:
        return self.total

    def __getitem__(self, bounds: slice) -> JsonPage:
        start, stop = bounds.start or 0, bounds.stop
        sql, params = self.statement
        prefix = (_ranked_prefix(sql), [start + 1, stop, *params])
        site = rowjson.site_values(self.view.model, self.view.params)
        rows = self.prepared(prefix=prefix, **site)
        values = rows[0]
        self.view.take_state(values)
        self.total = values[PAGE_TOTAL]
        return JsonPage(values[PAGE_JSON] or "", values[PAGE_ROWS])


def _ranked_prefix(sql: str) -> str:
    """The `ranked` CTE around an engine statement, one text object per engine statement
    (`prepared.joined`)."""
    return joined(
        "WITH ranked AS MATERIALIZED (SELECT r.ids[%s:%s] AS page, "
        "CARDINALITY(r.ids) AS total FROM (",
        sql,
        ") r) ",
    )


# What a list may hold to be walked by its ids (`WalkedList`): nothing that filters it.
WALKED_ONLY = frozenset({"orderby", "order", "page", "per_page", "offset", "context", "_embed",
                         "_fields", "status"})  # fmt: skip
MAX_WALKED = 100_000  # longer lists are paged by OFFSET (CompiledList), ids not kept
_WALKED: dict = {}
WALKED_LISTS = 8


class WalkedList:
    """A readers' list with no filter, as a crawler walks it page by page: its ids in the
    list's order, read once per content state (`selectors.content_state()`, which changes
    with every write and every scheduled publication), order and reader, are the list. The
    total is their number, a page is their slice read by id (as `RankedList` reads one).
    Why: every page's OFFSET walked the sort index up to its position (~0.35 µs an entry:
    1.6 ms of PostgreSQL for an average page of 10,000 terms). The ids are read where the
    list would otherwise be counted (its first full page, or any page of a state whose ids
    are not known yet, which is then read by OFFSET): one narrow read of every id instead
    of the COUNT, so no request runs more queries than before. At most `WALKED_LISTS` lists
    of at most `MAX_WALKED` ids are kept per process; a longer list is paged by OFFSET."""

    def __init__(self, view, key: tuple, ids: array | None):
        self.view, self.key, self.ids = view, key, ids

    @classmethod
    def of(cls, view):
        """The list `view` asks for, or None when it is filtered or too long to keep."""
        params, state = view.params, getattr(view, "content_state", None)
        if state is None or not set(params) <= WALKED_ONLY:
            return None
        key = list_key(view, state)
        ids = _WALKED.get(key)
        return None if ids is False else cls(view, key, ids)

    def count(self) -> int:
        if self.ids is None:
            queryset = self.view.filter_queryset(self.view.get_queryset())
            # 8 bytes an id (a list of ints holds ~36): 10,000 terms keep 80 KB.
            ids = array("q", queryset.values_list("pk", flat=True)[: MAX_WALKED + 1])
            with _LOCK:
                if len(_WALKED) >= WALKED_LISTS:
                    _WALKED.pop(next(iter(_WALKED)), None)  # the oldest
                _WALKED[self.key] = ids if len(ids) <= MAX_WALKED else False
            if len(ids) > MAX_WALKED:
                return CompiledList(self.view).count()
            self.ids = ids
        return len(self.ids)

    def __getitem__(self, bounds: slice) -> list:
        if self.ids is None:
            return CompiledList(self.view)[bounds]
        return rows_by_id(self.view, list(self.ids[bounds]))


def rows_by_id(view, ids: list[int]) -> list:
    """The readers' rows of `ids`, in that order, in one statement: in `context=view` with
    no `_fields` on PostgreSQL the page written whole (`JsonPage`, the ids one array
    parameter: one statement for any number of them); otherwise the compiled `include`
    statement of their number, the rows with their links as the list asks for them."""
    if not ids:
        return []
    listing = view.params
    # A page written whole (`JsonPage`) is joined in the order of `ids` by the statement;
    # rows are put in that order here.
    whole = rowjson.applies(view.model, listing) and rowjson.written_whole(listing)
    view.params = {
        "context": listing.get("context", "view"),
        "orderby": "id",
        "order": "asc",
        "page": 1,
        "per_page": len(ids),
    }
    if whole:  # one statement whatever their number: `_whole_page`
        view.params[IDS] = "{" + ",".join(str(pk) for pk in ids) + "}"
    else:
        view.params["include"] = ids
    for name in ("_embed", "_fields"):  # what the rows are read for
        if listing.get(name):
            view.params[name] = listing[name]
    try:
        rows = CompiledList(view)[0 : len(ids)]
    finally:
        view.params = listing
    if whole:
        return rows
    position = {pk: i for i, pk in enumerate(ids)}
    return sorted(rows, key=lambda row: position[row.pk])


class Row:
    """A readers' row read as plain values (`ROW_FIELDS` of the view), with the attributes
    the read serializers and the ETag of an entry use (`pk`, `_meta`, the field names).
    Why: instantiating the model (its __init__ and the post_init receivers) was a fifth of
    a page's CPU (cProfile), for objects that are only read once into JSON."""

    links = None  # what the statement read of the row's links, when it did (api/views.py)

    def __init__(self, meta, values: dict) -> None:
        self.__dict__.update(values)
        self.pk = values["id"]
        self._meta = meta


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value
