"""Driver cursors kept per connection and statement (`kept_cursor`), and statement texts kept
as one object per parts (`joined`).

Why both: psycopg keeps a cursor's adapters (a dumper per parameter type, a loader per column)
only while that cursor runs the very same query object, and creating a cursor builds them
again; a read that runs on a fresh cursor, or with a text assembled anew on each call, pays
that every time (docs/benchmarks.md: "Cold reads", its "What changed (and why)", and "REST
lists: the search's own Python"). Both are bounded `LRU`s.
"""

import weakref

from .cache import LRU

MAX_JOINED = 1024  # texts kept by `joined`
MAX_KEPT_CURSORS = 256  # statement texts per connection that keep a driver cursor

_JOINED = LRU(MAX_JOINED)


def joined(*parts: str) -> str:
    """`"".join(parts)`, the same object whenever the parts are the same (the search page's
    `WITH ranked …` around the engine's statement, a REST page's JSON around its rows).
    Parts that are kept objects themselves (compiled statements, literals) make the lookup
    cheap: their hashes are cached."""
    text = _JOINED.get(parts)
    if text is None:
        text = _JOINED.setdefault(parts, "".join(parts))
    return text


# Per database connection: the driver connection they belong to, and one driver cursor per
# statement text, reused call after call.
_CURSORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _close(cursor) -> None:
    cursor.close()


def kept_cursor(connection, statement: str):
    """A Django cursor wrapper (execute wrappers, query capture, error wrapping: everything
    `connection.cursor()` gives) around a driver cursor kept for this connection and
    `statement` (the text it will run; the same object call after call).

    This mirrors `BaseDatabaseWrapper._cursor` (health check, connect, then `_prepare_cursor`
    over `create_cursor`), which tests/glossary/test_prepared.py fingerprints; a new driver
    connection (reconnect, close) gets new cursors, and a cursor the bound pushes out is
    closed. Not a context manager: leaving a `with` block would close the kept cursor."""
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    kept = _CURSORS.get(connection)
    if kept is None or kept[0] is not connection.connection:
        cursors = LRU(MAX_KEPT_CURSORS, on_evict=_close)
        kept = _CURSORS[connection] = (connection.connection, cursors)
    cursors = kept[1]
    cursor = cursors.get(statement)
    if cursor is None or getattr(cursor, "closed", False):
        with connection.wrap_database_errors:
            cursor = connection.create_cursor()
        cursors.put(statement, cursor)
    return connection._prepare_cursor(cursor)
