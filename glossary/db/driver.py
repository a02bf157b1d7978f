"""psycopg tuning that has no public setting.

psycopg turns a statement's `%s` placeholders into PostgreSQL's `$n` with a regular-expression pass
over the whole text on every execute, and keeps the result (an LRU of 128 statements) only for
statements of at most 4,096 bytes and 50 parameters (`psycopg/_queries.py`). The search's comparison
statement is ~6 KB (glossary/search/statements.py) and the one-sided statement passes 4 KB when its
planner statistics ride along: without this each call pays the pass again (docs/benchmarks.md, "REST
lists: one statement each"). Our statements are a few dozen fixed texts, so caching them all is
cheap (128 entries of at most 16 KB). tests/glossary/test_db_driver.py fails by name if psycopg
drops the knobs. `GlossaryConfig.ready` applies it when the default database is PostgreSQL, so
importing the settings changes nothing in the driver.
"""

# What the bounds become: every statement the project runs fits (the longest is ~7 KB).
MAX_LENGTH = 16 * 1024
MAX_PARAMS = 200


def cache_long_statements() -> None:
    from psycopg import _queries

    _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH, MAX_LENGTH)
    _queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, MAX_PARAMS)


def configure(vendor: str) -> None:
    """The driver tuning for a database of `vendor` (only psycopg has any)."""
    if vendor == "postgresql":
        cache_long_statements()
