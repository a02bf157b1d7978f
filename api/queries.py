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
from datetime import UTC, datetime, timedelta

from django.db.models import QuerySet

from glossary.prepared import Prepared

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


class CompiledList:
    """What the paginator slices and counts for a readers' list: `rows[start:stop]` runs the
    compiled statement of this shape, `count()` the ORM's COUNT."""

    def __init__(self, view):
        self.view = view

    def queryset(self) -> QuerySet:
        return self.view.filter_queryset(self.view.get_queryset())

    def count(self) -> int:
        """The list's total, counted once per content state and request shape (the page
        itself is not part of the key: every page of a list has the same total)."""
        view = self.view
        state = getattr(view, "content_state", None)
        if state is None:
            return self.queryset().count()
        key = (type(view), state, *sorted((k, _hashable(v)) for k, v in view.params.items()
                                          if k not in PAGE_PARAMS))  # fmt: skip
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
        start, size = bounds.start or 0, bounds.stop - (bounds.start or 0)
        # Which page (page, offset) only moves the OFFSET, a parameter of the statement: every
        # page of a list shares one compiled statement (a crawler walking pages compiled one
        # per page before, issue 16).
        key = (type(view), tuple(s for s in shape if s[0] not in PAGE_PARAMS), size)
        prepared = _COMPILED.get(key)
        if prepared is None:
            build = self._builder(type(view), view.params, size)
            prepared = Prepared(build, offset=OFFSET_MARK, **fake)
            with _LOCK:
                if len(_COMPILED) >= MAX_SHAPES:
                    _COMPILED.clear()
                _COMPILED[key] = prepared
        return prepared(offset=start, **real)

    @staticmethod
    def _builder(view_class, params: dict, size: int):
        """Builds the shape's QuerySet on a bare view of the same class (no request: the
        readers' visibility), never on the request that first asked for it."""
        template = dict(params)

        deferred = size > 1 and not any(params.get(name) for name in NARROW)

        def build(*, now, offset, **values):
            bare = view_class()
            bare.request, bare.now, bare.action = None, now, "list"
            bare.params = _rebuild(template, values)
            queryset = bare.filter_queryset(bare.get_queryset())
            if deferred:  # the page's ids from a narrow select, then their rows
                return queryset.filter(pk__in=queryset.values("pk")[offset : offset + size])
            return queryset[offset : offset + size]

        return build


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value
