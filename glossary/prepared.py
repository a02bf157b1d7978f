"""Reads whose SQL is compiled once per database connection (`Prepared`).

This leans on Django's compiler internals (`Query.get_compiler`, `SQLCompiler.as_sql`,
`select`, `klass_info`, `get_converters`/`apply_converters`, `annotation_col_map`, the
QuerySet's `_iterable_class`, `get_related_populators`), the one place in the project that
does. tests/glossary/test_prepared.py compares every prepared read with the plain QuerySet
and fails by name when this Django can no longer be compiled ahead (the silent fallback would
only show as a slower benchmark).
"""

import weakref
from datetime import UTC, datetime

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.query import (
    ModelIterable,
    ValuesIterable,
    ValuesListIterable,
    get_related_populators,
)
from django.utils import timezone


class Prepared:
    """A read whose SQL is compiled once per database connection and re-run with new values.

    Why: a detail read runs the same two statements on every call, only the slug, the id and
    the clock change, yet building and compiling them with the ORM cost ~2 ms of CPU per call,
    about ten times running them (bench/mcp.py). `build(now=…, **placeholders)` returns the
    QuerySet; it is built once from placeholder values whose positions among the compiled
    parameters are then known, so each call only substitutes values, executes on the
    current connection (query capture and `assertNumQueries` still see it) and converts rows
    with the same compiler, exactly as iterating the QuerySet would. Compiled per connection,
    hence per vendor and per thread (connections are thread-local); if a placeholder cannot
    be located (an ORM change transformed it), the QuerySet is simply evaluated each time.
    """

    CLOCK = datetime(2000, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)  # never a real `now`
    _UNSET = object()

    def __init__(
        self, build, *, offset: int | None = None, clock: bool = True, **placeholders
    ) -> None:
        self.build = build
        self.placeholders = placeholders
        # False for a read that does not depend on the time (no `published()` in it).
        self.clock = clock
        # A builder that slices `[offset:offset + n]` with this marker as `offset`: the SQL's
        # OFFSET literal becomes a parameter, so every page of a list shares one statement.
        self.offset = offset
        self._compiled = weakref.WeakKeyDictionary()

    def __call__(self, *, prefix: tuple[str, list] | None = None, **values) -> list:
        """The rows for `values`. `prefix`: SQL text and parameters put before the compiled
        statement (a `WITH` whose names the built QuerySet refers to in raw SQL): only for a
        statement that could be compiled (`compiled_for`), which the caller checks."""
        connection = connections[DEFAULT_DB_ALIAS]
        compiled = self.compiled_for(connection)
        if compiled is None:
            if prefix is not None:
                raise ValueError("a prefix needs a compiled statement")
            if self.offset is None:
                values.pop("offset", None)
            return list(self.build(now=timezone.now(), **values))
        sql, roles, rows_to_result = compiled
        values["now"] = connection.ops.adapt_datetimefield_value(timezone.now())
        values.setdefault("offset", 0)
        params = [values[role] if role else value for role, value in roles]
        if prefix is not None:
            sql, params = joined(prefix[0], sql), [*prefix[1], *params]
        cursor = kept_cursor(connection, sql)
        cursor.execute(sql, params)
        return rows_to_result(cursor.fetchall())

    def _compile(self, connection):
        extra = {} if self.offset is None else {"offset": self.offset}
        queryset = self.build(now=self.CLOCK, **self.placeholders, **extra)
        if queryset._iterable_class not in (ModelIterable, ValuesIterable, ValuesListIterable):
            return None
        compiler = queryset.query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        markers = (
            {"now": connection.ops.adapt_datetimefield_value(self.CLOCK)} if self.clock else {}
        )
        markers.update(self.placeholders)
        roles = []
        for value in params:
            role = next(
                (r for r, m in markers.items() if isinstance(value, type(m)) and value == m), None
            )
            roles.append((role, None if role else value))
        if {role for role, _value in roles} - {None} != set(markers):
            return None
        if self.offset is not None:
            literal = f" OFFSET {self.offset}"
            if sql.count(literal) != 1:
                return None
            # At the end, or inside a subquery (a deferred join, api/queries.py): the
            # parameter goes where its placeholder falls among the others.
            head, tail = sql.split(literal)
            sql = f"{head} OFFSET %s{tail}"
            roles.insert(head.replace("%%", "").count("%s"), ("offset", None))
        return sql, roles, self._converter(queryset, compiler)

    @staticmethod
    def _converter(queryset, compiler):
        """rows -> what iterating `queryset` yields (the ORM's own conversion steps)."""
        fields = [s[0] for s in compiler.select[0 : compiler.col_count]]
        converters = compiler.get_converters(fields)

        def convert(rows):
            return compiler.apply_converters(rows, converters) if converters else rows

        if queryset._iterable_class is ValuesListIterable:
            return lambda rows: [tuple(row) for row in convert(rows)]
        if queryset._iterable_class is ValuesIterable:
            query = queryset.query
            # As ValuesIterable names them: in `values()`'s order when Django keeps it.
            names = (
                list(query.selected)
                if getattr(query, "selected", None)
                else [*query.extra_select, *query.values_select, *query.annotation_select]
            )
            return lambda rows: [dict(zip(names, row, strict=True)) for row in convert(rows)]

        klass_info, select = compiler.klass_info, compiler.select
        model = klass_info["model"]
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        init_list = [f[0].target.attname for f in select[start:end]]
        populators = get_related_populators(klass_info, select, queryset.db)
        annotations = compiler.annotation_col_map

        def to_objects(rows):
            objects = []
            for row in convert(rows):
                obj = model.from_db(queryset.db, init_list, row[start:end])
                for populator in populators:
                    populator.populate(row, obj)
                for name, position in (annotations or {}).items():
                    setattr(obj, name, row[position])
                objects.append(obj)
            return objects

        return to_objects

    def compiled_for(self, connection):
        """The compiled statement for `connection` (None: this Django's ORM could not be
        compiled ahead, so every call evaluates the QuerySet); compiles it if needed."""
        compiled = self._compiled.get(connection, self._UNSET)
        if compiled is self._UNSET:
            compiled = self._compiled[connection] = self._compile(connection)
        return compiled


# One text object per sequence of parts (`joined`).
_JOINED: dict[tuple[str, ...], str] = {}
MAX_JOINED = 1024


def joined(*parts: str) -> str:
    """`"".join(parts)`, the same object whenever the parts are the same. Why: psycopg keeps
    a cursor's adapters (a dumper per parameter type, a loader per column) only while it
    runs the very same query object, and a statement assembled on each call (the search
    page's `WITH ranked …` around the engine's statement) rebuilt them every time (~50 µs
    of a `?search=` page, issue 12). Parts that are kept objects themselves (compiled
    statements, literals) make the lookup cheap: their hashes are cached."""
    text = _JOINED.get(parts)
    if text is None:
        if len(_JOINED) >= MAX_JOINED:
            _JOINED.clear()
        text = _JOINED[parts] = "".join(parts)
    return text


# Per database connection: the driver connection they belong to, and one driver cursor per
# statement text for the prepared reads, reused call after call.
_CURSORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
MAX_KEPT_CURSORS = 256  # statement texts per connection; more and they are all let go


def kept_cursor(connection, statement: str):
    """A Django cursor wrapper (execute wrappers, query capture, error wrapping: everything
    `connection.cursor()` gives) around a driver cursor kept for this connection and
    `statement` (the text it will run; the same object call after call).

    Why: creating a psycopg cursor (its adapters, a timezone loader per timestamp column)
    cost ~40 µs a statement, a third of running a prepared detail read (bench/mcp.py, issue
    16); and a psycopg cursor keeps its adapters (a dumper per parameter type, a loader per
    column) only while it runs the same query object, so one cursor shared by every
    statement rebuilt them whenever two different reads followed each other, as they do in
    any mix of requests (issue 12). This mirrors `BaseDatabaseWrapper._cursor` (health
    check, connect, then `_prepare_cursor` over `create_cursor`), which
    tests/glossary/test_prepared.py fingerprints; a new driver connection (reconnect,
    close) gets new cursors. Not a context manager: leaving a `with` block would close the
    kept cursor."""
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    kept = _CURSORS.get(connection)
    if kept is None or kept[0] is not connection.connection:
        kept = _CURSORS[connection] = (connection.connection, {})
    cursors = kept[1]
    cursor = cursors.get(statement)
    if cursor is None or getattr(cursor, "closed", False):
        if len(cursors) >= MAX_KEPT_CURSORS:
            for old in cursors.values():
                old.close()
            cursors.clear()
        with connection.wrap_database_errors:
            cursor = cursors[statement] = connection.create_cursor()
    return connection._prepare_cursor(cursor)
