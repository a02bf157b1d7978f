"""Bulk writes: PostgreSQL's COPY and server-side binding, for the import's and the auto-linker's
large writes; other databases get `bulk_create` or one `executemany`.

Seam: Django's `cursor_factory` choice in `postgresql/base.py` (`server_side_binding`), guarded
by tests/glossary/test_import_export.py.
"""

from collections.abc import Iterable, Sequence
from contextlib import contextmanager

from django.db import connection

# Ids per `IN (...)` statement and rows per batch: below SQLite's parameter limit.
CHUNK = 900
BATCH = 1000

# From this many rows on, PostgreSQL gets them by COPY (`copy_rows`); an edit's few rows keep
# one ordinary statement (and the query counts that tests assert).
COPY_FROM = 500


def chunks(items: Sequence, size: int = CHUNK):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def insert_link_rows(through, fields: tuple[str, str], pairs: list[tuple[int, int]]) -> None:
    """Insert rows of an M2M through table without building a model instance per row.

    A 100,000-term file brings close to a million link rows; through `bulk_create()` they
    cost half a minute; PostgreSQL gets them by COPY (`copy_rows`), other databases by one
    `executemany`. Table and column names come from the model's meta.
    """
    if not pairs:
        return
    pairs.sort()  # a stable insertion order keeps test databases and dumps reproducible
    if connection.vendor == "postgresql" and len(pairs) >= COPY_FROM:
        columns = [through._meta.get_field(name).column for name in fields]
        copy_rows(through._meta.db_table, columns, pairs)
        return
    quote = connection.ops.quote_name
    table = quote(through._meta.db_table)
    columns = ", ".join(quote(through._meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # an edit's few rows: one statement
            sql = (
                f"INSERT INTO {table} ({columns}) SELECT * FROM unnest(%s::bigint[], %s::bigint[])"  # noqa: S608
            )
            cursor.execute(sql, [[a for a, _ in pairs], [b for _, b in pairs]])
        else:
            sql = f"INSERT INTO {table} ({columns}) VALUES (%s, %s)"  # noqa: S608
            cursor.executemany(sql, pairs)


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """PostgreSQL only: `COPY table (columns) FROM STDIN` of `rows` (values as the database
    takes them: `get_db_prep_save` output). COPY is PostgreSQL's bulk path: rows stream in
    psycopg's C encoder with no statement to parse, no parameter limit and no Python quoting,
    where an INSERT of arrays paid a regex substitution per string (text array dumper) and
    `bulk_create` compiled a 25,000-placeholder statement per thousand rows. INSERT triggers
    (the content version) fire for COPY as for INSERT. Names come from models' meta."""
    quote = connection.ops.quote_name
    sql = f"COPY {quote(table)} ({', '.join(quote(c) for c in columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


def bulk_insert(model, objs: list) -> None:
    """`model.objects.bulk_create(objs)` with ids set on `objs`; on PostgreSQL by COPY with
    ids taken from the table's own sequence first (one query), each field prepared exactly
    as Django's insert prepares it (`pre_save`, `get_db_prep_save`)."""
    if not objs:
        return
    if connection.vendor != "postgresql" or len(objs) < COPY_FROM:
        model.objects.bulk_create(objs, batch_size=BATCH)
        return
    meta = model._meta
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [connection.ops.quote_name(meta.db_table), meta.pk.column, len(objs)],
        )
        ids = [row[0] for row in cursor.fetchall()]
    fields = meta.concrete_fields
    for obj, pk in zip(objs, ids, strict=True):
        obj.pk = pk
    copy_rows(
        meta.db_table,
        [field.column for field in fields],
        (
            [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
            for obj in objs
        ),
    )
    for obj in objs:
        obj._state.adding, obj._state.db = False, connection.alias


@contextmanager
def server_side_binding():
    """Bulk statements with their values bound by the server, not quoted into the SQL.

    Without `DB_SERVER_SIDE_BINDING` Django's PostgreSQL connection uses psycopg's
    `ClientCursor`, which escapes every value into the statement text in Python: for an
    import's bulk inserts, array parameters of thousands of bodies and the revisions' JSON,
    that quoting was the largest single cost of the apply phase (a regex substitution per
    string). Inside this block the connection's cursors are Django's own
    `ServerBindingCursor` (what `DB_SERVER_SIDE_BINDING=1` selects for the whole site, so
    every statement here also runs that way in production); other databases are untouched.
    Seam: Django's `cursor_factory` choice in `postgresql/base.py`, guarded by
    tests/glossary/test_import_export.py."""
    if connection.vendor != "postgresql" or connection.features.uses_server_side_binding:
        yield
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    raw = connection.connection
    previous = raw.cursor_factory
    raw.cursor_factory = ServerBindingCursor
    try:
        yield
    finally:
        raw.cursor_factory = previous
