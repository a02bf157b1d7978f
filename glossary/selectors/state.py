"""The content state: what published content looks like now, as one hashable key that every
per-process cache and every ETag is keyed by."""

from datetime import datetime

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import TextField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from ..db.cursors import kept_cursor
from ..models import Status

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
    canonical domain comes in the same query: every absolute URL in a cached answer depends
    on it, so a change of address is a change of state; reading it changes nothing else
    (glossary/site.py asks `last_read()` for the domain when it builds an address). None
    when the version row is missing (a flushed test database): then nothing may be cached.

    `now` is the application's clock, the one `published()` uses, not the database's."""
    connection = connections[DEFAULT_DB_ALIAS]
    when = connection.ops.adapt_datetimefield_value(now or timezone.now())
    # The prepared reads' kept driver cursor: every REST read and every MCP call with the
    # result cache on starts here (docs/benchmarks.md, "Cold reads: the server hand-off").
    cursor = kept_cursor(connection, _CONTENT_STATE_SQL)
    cursor.execute(_CONTENT_STATE_SQL, [v for part in _state_params(when) for v in part])
    return _state(cursor.fetchone())


_last_state: tuple | None = None
_last_read: tuple | None = None


def _state(row) -> tuple | None:
    global _last_state, _last_read
    if row is None:
        return None
    _last_read = row = tuple(row)
    state = None if row[0] is None else row
    _last_state = state
    return state


def last_read() -> tuple | None:
    """The row of the content state this process read last, whatever its version (None
    before the first): a new object on every read. Its last item is the site's domain
    (glossary/site.py)."""
    return _last_read


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
    ETag is keyed by (`state_from_row`). Why: reading the state, then the row, is two round
    trips, each costing the server's CPU (docs/benchmarks.md, "Cold reads: the REST reads'
    state query"). Text output fields: no converter runs, so the values are the driver's,
    exactly as `content_state()` gets them (SQLite's datetimes stay text there too), and both
    give equal keys."""
    when = connections[DEFAULT_DB_ALIAS].ops.adapt_datetimefield_value(now)
    columns = {}
    for (name, sql), params in zip(_STATE_PARTS, _state_params(when), strict=True):
        columns[name] = ConstantSQL(sql, params, output_field=TextField())  # our SQL, constants
    return queryset.annotate(**columns)


def state_from_row(values: dict) -> tuple | None:
    """Pops `with_content_state`'s columns from `values`: what `content_state()` returns."""
    return _state(tuple(values.pop(name) for name in STATE_COLUMNS))
