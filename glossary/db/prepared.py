"""Reads whose SQL is compiled once per database connection (`Prepared`).

This leans on Django's compiler internals (`Query.get_compiler`, `SQLCompiler.as_sql`,
`select`, `klass_info`, `get_converters`/`apply_converters`, `annotation_col_map`, the
QuerySet's `_iterable_class`, `get_related_populators`), the one place in the project that
does. tests/glossary/test_prepared.py compares every prepared read with the plain QuerySet
and fails by name when this Django can no longer be compiled ahead (the silent fallback would
only show as a slower benchmark).
"""

import weakref

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.query import (
    ModelIterable,
    ValuesIterable,
    ValuesListIterable,
    get_related_populators,
)
from django.utils import timezone

from .cursors import joined, kept_cursor
from .placeholders import CLOCK, locate


class Prepared:
    """A read whose SQL is compiled once per database connection and re-run with new values.

    Why: a detail read runs the same statement on every call, only the slug, the id and the
    clock change, yet building and compiling it with the ORM costs several times running it
    (docs/benchmarks.md, "Cold reads"). `build(now=…, **placeholders)` returns the QuerySet;
    it is built once from stand-in values (glossary/db/placeholders.py: `stand_in`) whose
    positions among the compiled parameters are then known, so each call only substitutes
    values, executes on the current connection (query capture and `assertNumQueries` still
    see it) and converts rows with the same compiler, exactly as iterating the QuerySet
    would. Compiled per connection, hence per vendor and per thread (connections are
    thread-local); if a stand-in cannot be located (an ORM change transformed it), the
    QuerySet is simply evaluated each time.
    """

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
        queryset = self.build(now=CLOCK, **self.placeholders, **extra)
        if queryset._iterable_class not in (ModelIterable, ValuesIterable, ValuesListIterable):
            return None
        compiler = queryset.query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        markers = {"now": connection.ops.adapt_datetimefield_value(CLOCK)} if self.clock else {}
        markers.update(self.placeholders)
        roles = locate(params, markers)
        if roles is None:
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
