"""How the REST API reads a list or an object: a `Listing` (the request as a read sees it) →
`plan` (a pure function: which strategy reads it) → the strategy's `fetch` → one
`Page(items, total, state)`, which the view renders. Nothing here knows the view.

The strategies, and why each earns its place (docs/benchmarks.md, "REST lists" sections):
- `OrmList`: the plain ORM: editors' lists (drafts visible), whose rows are model
  instances; their links are read after them, in one query.
- `CompiledList`: a readers' list by OFFSET, its SQL compiled once per shape of request
  (`glossary.db.prepared.Prepared`): building and compiling the filtered, ordered, sliced
  QuerySet cost more CPU than running it. A shape is what changes the SQL text: the
  resource, the parameters present, list lengths, ordering, context, page size; the values
  (and which page) are parameters of the statement. A page walks the OFFSET over a narrow
  select of ids, then reads the wide rows of its ids (a "deferred join").
- `IdList`: a readers' list whose ids are known before its rows: a search by relevance (the
  engine's ranking is the list) or an unfiltered list, whose ids are read once per content
  state where the list would otherwise be counted. The total is their number and a page is
  their slice, read by id: no OFFSET walks the sort index, no COUNT runs.
- `SearchPage`: on PostgreSQL, a search by relevance whose ranking is a CTE of its page's
  statement, so the engine and the page are one round trip.

Readers' rows come as plain values with their links' columns (`Row`), or, where
api/rowjson.py applies, as the objects PostgreSQL writes; a page read by its ids then comes as
one row (`JsonPage`). A readers' list may read the content state in the statement of its rows
(`with_state`): the page then says which state it saw (`Page.state`).

Totals and walked ids are keyed by the content state (`selectors.content_state()`, which
changes with every write and every scheduled publication), so they are never stale.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from datetime import datetime

from django.contrib.postgres.aggregates import StringAgg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import (
    BooleanField,
    Count,
    F,
    Func,
    IntegerField,
    TextField,
    Value,
)

from glossary import search, selectors
from glossary.db.cache import LRU
from glossary.db.cursors import joined
from glossary.db.placeholders import stand_in
from glossary.db.prepared import Prepared

from . import rowjson
from .listing import JsonPage, Listing, Page, Resource, Row
from .rowjson import ROW_JSON

# Parameters that change the SQL's structure (or nothing in it) are part of the shape key;
# the others become placeholders.
STRUCTURAL = {"context", "orderby", "order", "status", "hide_empty", "_embed", "_fields",
              "page", "per_page", "offset", "type", "search"}  # fmt: skip
MAX_SHAPES = 2000
_COMPILED = LRU(MAX_SHAPES)
_COUNTS = LRU(MAX_SHAPES)
PAGE_PARAMS = frozenset({"page", "offset"})
OFFSET_MARK = 987_654_321  # the OFFSET a shape is compiled with, then made a parameter
# Parameters that narrow a list to a few known rows: no deferred join for those.
NARROW = frozenset({"include", "slug", "search"})
# What a search list may hold besides the search for the engine's ranking to be the list.
RANKED_ONLY = frozenset({"search", "_ranked", "orderby", "order", "page", "per_page", "offset",
                         "context", "_embed", "_fields", "status"})  # fmt: skip
# What a list may hold to be walked by its ids: nothing that filters it.
WALKED_ONLY = frozenset({"orderby", "order", "page", "per_page", "offset", "context", "_embed",
                         "_fields", "status"})  # fmt: skip
MAX_WALKED = 100_000  # longer lists are paged by OFFSET, their ids not kept
WALKED_LISTS = 8
_WALKED = LRU(WALKED_LISTS)
PAGE_JSON, PAGE_ROWS, PAGE_TOTAL = "_page_json", "_page_rows", "_page_total"
IDS = "_ids"  # not a request's parameter: the ids of a page read by them (`rows_by_id`)


def known_total(rows: int, start: int, size: int) -> int | None:
    """A first page with fewer rows than asked for is the whole list: no COUNT."""
    return rows if start == 0 and rows < size else None


def list_key(listing: Listing, state) -> tuple:
    """What identifies a list whatever its page: the resource, the content state, the reader
    (what an editor may count is never what an anonymous list shows) and the parameters but
    the page's own."""
    shape = sorted((k, _hashable(v)) for k, v in listing.params.items() if k not in PAGE_PARAMS)
    return (listing.resource, state, listing.reader, *shape)


def with_ranking(listing: Listing) -> Listing:
    """A search of published entries runs the engine first: its ranked ids become a
    parameter (`_ranked`) of the list's SQL (api/filters.py: EngineSearchFilter)."""
    text = listing.params.get("search")
    if not text or not listing.published_only or listing.resource.links is None:
        return listing
    ranked = search.ranked_ids(kind=listing.resource.kind, query=text)
    return listing.with_params({**listing.params, "_ranked": ranked})


# --- planning ---------------------------------------------------------------------------------
def plan(listing: Listing):
    """The strategy that reads `listing` (pure: it reads nothing)."""
    params = listing.params
    if not listing.readers:
        return ORM
    if params.get("search") and listing.published_only and listing.resource.links is not None:
        if params.get("orderby") == "relevance" and set(params) <= RANKED_ONLY:
            whole = rowjson.applies(listing.model, params) and rowjson.written_whole(params)
            return SEARCH_PAGE if whole and rowjson.whole_pages() else RANKED
        return COMPILED
    if set(params) <= WALKED_ONLY:
        return WALKED
    return COMPILED


def fetch(listing: Listing, start: int, size: int, *, state=None, with_state=False) -> Page:
    """The page `[start:start + size]` of `listing` by its plan. `state`: the content state
    totals and walked ids are keyed by; `with_state`: read the state with the rows."""
    return plan(listing).fetch(listing, start, size, state=state, with_state=with_state)


def one(listing: Listing, *, with_state: bool = False) -> Page:
    """An object as its list gives it (`listing` holds `include=[<id>]`): the same
    visibility, the same compiled SQL for readers. No total is counted."""
    if not listing.readers:
        rows = list(listing.queryset()[:1])
        return Page(rows, len(rows))
    rows, state = COMPILED.rows(listing, 0, 1, with_state=with_state)
    return Page(rows, len(rows), state)


class OrmList:
    """The filtered QuerySet, sliced and counted by the ORM (editors' lists)."""

    def fetch(self, listing, start, size, *, state=None, with_state=False) -> Page:
        queryset = with_ranking(listing).queryset()
        rows = list(queryset[start : start + size])
        total = known_total(len(rows), start, size)
        return Page(rows, queryset.count() if total is None else total)


class CompiledList:
    """A readers' list by OFFSET, through SQL compiled once per request shape. A shape it
    cannot compile (`_placeholders` finds no way to stand its values in) is read by the
    ORM: slower, never wrong. `count` reads the total when no kept one applies."""

    def __init__(self, count: Callable | None = None) -> None:
        self.count = count or count_list

    def fetch(self, listing, start, size, *, state=None, with_state=False) -> Page:
        listing = with_ranking(listing)
        rows, read = self.rows(listing, start, size, with_state=with_state)
        total = known_total(len(rows), start, size)
        return Page(rows, self.count(listing, state) if total is None else total, read)

    def rows(self, listing: Listing, start: int, size: int, *, with_state: bool = False):
        """(the rows of `[start:start + size]`, the content state they carried or None)."""
        params = listing.params
        shape, fake, real = _placeholders(params)
        if not shape and params:
            return list(listing.queryset()[start : start + size]), None
        as_json = rowjson.applies(listing.model, params)
        if as_json:  # the site's addresses: values of the statement, not part of it
            site = rowjson.site_values(listing.model, params)
            fake.update({name: stand_in(str, len(fake) + i) for i, name in enumerate(site)})
            real.update(site)
        # A page read by its ids (`rows_by_id`) comes whole: one row, the objects joined.
        whole = as_json and IDS in params and rowjson.written_whole(params)
        # Which page only moves the OFFSET, a parameter of the statement: every page of a
        # list shares one compiled statement.
        page_shape = tuple(s for s in shape if s[0] not in PAGE_PARAMS)
        key = (listing.resource, page_shape, size, with_state, as_json, whole)
        prepared = _COMPILED.get(key)
        if prepared is None:
            build = _builder(listing.resource, params, size, with_state, whole)
            # A page of given ids has no OFFSET: the ids are the page.
            prepared = Prepared(build, offset=None if whole else OFFSET_MARK, **fake)
            _COMPILED.put(key, prepared)
        found = prepared(offset=start, **real)
        if whole:
            values = found[0]
            state = selectors.state_from_row(values) if with_state else None
            return JsonPage(values[PAGE_JSON] or "", values[PAGE_ROWS]), state
        if not found or not isinstance(found[0], dict):
            return found, None
        state = selectors.state_from_row(found[0]) if with_state else None
        return [_row(listing, values, with_state) for values in found], state


def count_list(listing: Listing, state) -> int:
    """The list's total, counted once per content state, request shape and reader (every
    page of a list has the same total)."""
    if state is None:
        return listing.queryset().count()
    key = list_key(listing, state)
    total = _COUNTS.get(key)
    if total is None:
        total = listing.queryset().count()
        _COUNTS.put(key, total)
    return total


def _row(listing: Listing, values: dict, with_state: bool) -> Row:
    if with_state:
        for name in selectors.STATE_COLUMNS:
            values.pop(name, None)
    row = Row(listing.model._meta, values)
    if ROW_JSON not in values and listing.resource.links is not None:
        full = bool(listing.params.get("_embed"))
        row.links = selectors.links_from_row(values, model=listing.model, full=full)
    return row


def _builder(resource: Resource, params: dict, size: int, with_state: bool, whole: bool):
    """Builds the shape's QuerySet from a `Listing` of the placeholders (the readers'
    visibility), never from the request that first asked for it. `with_state`: every row
    carries the content state too (`selectors.with_content_state`). `whole`: the page is one
    row, its objects' JSON joined in the list's order (`JsonPage`)."""
    template = dict(params)
    deferred = not any(params.get(name) for name in NARROW)

    def build(*, now, offset=0, **values):
        listing = Listing(resource, _rebuild(template, values), now)
        queryset = listing.queryset()
        site = {name: value for name, value in values.items() if name.startswith("site_")}
        if whole:
            return _whole_page(queryset, listing.params[IDS], now, site, with_state, template)
        page = queryset
        if deferred:  # the page's ids from a narrow select, then their rows
            page = queryset.filter(pk__in=queryset.values("pk")[offset : offset + size])
        if resource.row_fields:  # plain rows: what the serializer reads, no model instances
            fields, columns = resource.row_fields, ()
            if rowjson.applies(resource.model, listing.params):  # the object, built by SQL
                # `updated_at`: an entry's ETag (api/conditional.py: `entry_token`).
                fields = ("id", "updated_at", ROW_JSON)
                text = rowjson.row_json(resource.model, now=now, site=site, params=template)
                page = page.annotate(**{ROW_JSON: text})
            else:  # the rows' links in the same statement
                full = bool(listing.params.get("_embed"))
                page = selectors.with_entry_links(page, model=resource.model, now=now, full=full)
                columns = selectors.link_columns(resource.model, full=full)
            if with_state:
                page = selectors.with_content_state(page, now=now)
                columns = (*columns, *selectors.STATE_COLUMNS)
            page = page.values(*fields, *columns)
        return page if deferred else page[offset : offset + size]

    return build


class IdList:
    """A readers' list whose ids are known before its rows (`find(listing, state)`): the
    total is their number, a page is their slice read by id (`rows_by_id`), in their order.
    `find` may give None (ids not known for this state yet, or too many to keep): the page
    is then read by OFFSET, and `count` is where the list is counted."""

    def __init__(self, find: Callable, count: Callable | None = None) -> None:
        self.find, self.count = find, count

    def fetch(self, listing, start, size, *, state=None, with_state=False) -> Page:
        ids = self.find(listing, state)
        if ids is None:
            return CompiledList(self.count).fetch(
                listing, start, size, state=state, with_state=with_state
            )
        rows, read = rows_by_id(listing, list(ids[start : start + size]), with_state)
        return Page(rows, len(ids), read)


def ranked_ids(listing: Listing, state) -> list[int]:
    """A search by relevance with nothing else narrowing it: the engine's ranked ids
    (published, best first, at most `search.MAX_LIMIT`) are the list."""
    return search.ranked_ids(kind=listing.resource.kind, query=listing.params["search"])


def walked_ids(listing: Listing, state) -> array | None:
    """An unfiltered list, as a crawler walks it page by page: its ids in the list's order,
    kept per content state, order and reader (None until `walk` read them). Why: every
    page's OFFSET walked the sort index up to its position; the ids are read where the list
    would otherwise be counted, so no request runs more queries than it would by OFFSET."""
    if state is None:
        return None
    ids = _WALKED.get(list_key(listing, state))
    return None if ids is False else ids


def walk(listing: Listing, state) -> int:
    """The total of a walked list whose ids are not known yet: its ids, read and kept (at
    most `WALKED_LISTS` lists of at most `MAX_WALKED` ids), instead of a COUNT."""
    if state is None:
        return count_list(listing, state)
    # 8 bytes an id (a list of ints holds ~36): 10,000 terms keep 80 KB.
    ids = array("q", listing.queryset().values_list("pk", flat=True)[: MAX_WALKED + 1])
    _WALKED.put(list_key(listing, state), ids if len(ids) <= MAX_WALKED else False)
    if len(ids) > MAX_WALKED:
        return count_list(listing, state)
    return len(ids)


def rows_by_id(listing: Listing, ids: list[int], with_state: bool = False):
    """The readers' rows of `ids`, in that order, in one statement: in `context=view` with
    no `_fields` on PostgreSQL the page written whole (`JsonPage`, the ids one array
    parameter: one statement for any number of them); otherwise the compiled `include`
    statement of their number. Gives (rows, the content state they carried)."""
    if not ids:
        return [], None
    params = listing.params
    whole = (
        rowjson.applies(listing.model, params)
        and rowjson.written_whole(params)
        and rowjson.whole_pages()
    )
    by_id = {
        "context": params.get("context", "view"),
        "orderby": "id",
        "order": "asc",
        "page": 1,
        "per_page": len(ids),
    }
    if whole:  # one statement whatever their number: `_whole_page`
        by_id[IDS] = "{" + ",".join(str(pk) for pk in ids) + "}"
    else:
        by_id["include"] = ids
    for name in ("_embed", "_fields"):  # what the rows are read for
        if params.get(name):
            by_id[name] = params[name]
    rows, state = COMPILED.rows(listing.with_params(by_id), 0, len(ids), with_state=with_state)
    if whole:
        return rows, state
    position = {pk: i for i, pk in enumerate(ids)}
    return sorted(rows, key=lambda row: position[row.pk]), state


_SEARCH_PAGES = LRU(MAX_SHAPES)


class SearchPage:
    """A search by relevance written whole (`JsonPage`) whose ranking runs inside the
    statement of its page: the engine's statement (`search.ranked_ids_statement`) becomes a
    CTE giving the ranked ids' slice and their number (the total), and the page reads its
    objects by that slice. Why: the engine and the page were two round trips, each a share
    of the server's CPU. When the engine must run alone (SQLite, statistics to refresh) or
    the page's statement cannot be compiled, the list is read as an `IdList` of the
    engine's ranking."""

    def fetch(self, listing, start, size, *, state=None, with_state=False) -> Page:
        statement = search.ranked_ids_statement(
            kind=listing.resource.kind, query=listing.params["search"]
        )
        prepared = self._prepared(listing, with_state) if statement is not None else None
        if prepared is None:
            return RANKED.fetch(listing, start, size, state=state, with_state=with_state)
        sql, params = statement
        prefix = (_ranked_prefix(sql), [start + 1, start + size, *params])
        values = prepared(prefix=prefix, **rowjson.site_values(listing.model, listing.params))[0]
        read = selectors.state_from_row(values) if with_state else None
        return Page(JsonPage(values[PAGE_JSON] or "", values[PAGE_ROWS]), values[PAGE_TOTAL], read)

    @staticmethod
    def _prepared(listing: Listing, with_state: bool):
        shape = {"context": "view", "_embed": listing.params.get("_embed")}
        key = (listing.resource, tuple(shape["_embed"] or ()), with_state)
        prepared = _SEARCH_PAGES.get(key)
        if prepared is None:
            site = rowjson.site_values(listing.model, shape)
            fake = {name: stand_in(str, i) for i, name in enumerate(site)}
            prepared = Prepared(_search_builder(listing.resource, with_state, shape), **fake)
            _SEARCH_PAGES.put(key, prepared)
        if prepared.compiled_for(connections[DEFAULT_DB_ALIAS]) is None:
            return None
        return prepared


def _search_builder(resource: Resource, with_state: bool, shape: dict):
    def build(*, now, **site):
        queryset = Listing(resource, {"context": "view"}, now).queryset()
        # Columns of the `ranked` CTE `SearchPage.fetch` puts before the statement.
        ids = selectors.ConstantSQL("(SELECT page FROM ranked)", (), output_field=TextField())
        page = _whole_page(queryset, ids, now, site, with_state, shape)
        total = selectors.ConstantSQL("(SELECT total FROM ranked)", (), output_field=IntegerField())
        return page.annotate(**{PAGE_TOTAL: total})

    return build


def _ranked_prefix(sql: str) -> str:
    """The `ranked` CTE around an engine statement, one text object per engine statement
    (`prepared.joined`)."""
    return joined(
        "WITH ranked AS MATERIALIZED (SELECT r.ids[%s:%s] AS page, "
        "CARDINALITY(r.ids) AS total FROM (",
        sql,
        ") r) ",
    )


def _whole_page(queryset, ids, now, site: dict, with_state: bool, params: dict):
    """One row for the objects of `queryset` whose ids are `ids` (an array literal, or an
    expression giving an array): their objects joined in the order of `ids` (`STRING_AGG …
    ORDER BY ARRAY_POSITION`), their number and (`with_state`) the content state. Why: the
    rows of a page cost more in Python (fetching, a row object, the serializer's call, the
    renderer) than the rest of a list together (docs/benchmarks.md, "REST lists: one
    statement each"). No GROUP BY: an empty page is a row too (NULL text, 0 rows). A few
    parameters whatever the page's size (glossary/db/driver.py: psycopg's cache of
    statements)."""
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
            if not isinstance(item, int | datetime | str):
                return (), {}, {}
            kind = next(k for k in (datetime, int, str) if isinstance(item, k))
            fake[key] = stand_in(kind, n)
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


ORM = OrmList()
COMPILED = CompiledList()
RANKED = IdList(ranked_ids)
WALKED = IdList(walked_ids, count=walk)
SEARCH_PAGE = SearchPage()


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value
