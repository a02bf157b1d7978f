"""psycopg keeps its conversion of every statement the project runs (glossary/db/driver.py)."""

import pytest
from django.db import connection

from glossary.search import statements

pytestmark = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="psycopg converts PostgreSQL statements"
)


def test_the_longest_search_statement_is_converted_once(db):
    """The search's comparison statement (~6 KB: beyond psycopg's own bound of 4 KB) is
    converted from `%s` to `$n` once, then taken from psycopg's cache; a psycopg without
    these knobs fails here by name."""
    from psycopg import _queries

    assert _queries.MAX_CACHED_STATEMENT_LENGTH >= 16 * 1024
    assert _queries.MAX_CACHED_STATEMENT_PARAMS >= 200
    sql, _params = statements._statement(statements.TERMS, 2)
    assert len(sql.encode()) > 4096
    from psycopg.adapt import Transformer

    connection.ensure_connection()
    query = _queries.PostgresQuery(Transformer(connection.connection))
    values = [None] * sql.count("%s")
    query.convert(sql, values)
    hits = _queries._query2pg.cache_info().hits
    query.convert(sql, values)
    assert _queries._query2pg.cache_info().hits == hits + 1
