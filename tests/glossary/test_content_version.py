"""Every glossary table is covered by the content-version triggers (migration 0004): caches
of published content (the MCP result cache, term pages) key on the version, so a table whose
writes did not bump it would leave them stale, silently. The tables are read from the models
(every concrete model of the app and every many-to-many table it creates), and the triggers
from the database, so a new model without a trigger fails here."""

import pytest
from django.apps import apps
from django.db import connection

from glossary.models import ContentVersion, PublicationClock, Series
from glossary.selectors import content_state
from tests.factories import make_article, make_category, make_term

pytestmark = pytest.mark.django_db

TRIGGER = "glossary_content_version"
# Tables whose rows are not published content: listed here on purpose, with the reason.
NOT_CONTENT = {
    ContentVersion._meta.db_table: "the version itself (a trigger on it would recurse)",
    PublicationClock._meta.db_table: (
        "how far scheduled publications have been announced; readers never see it, and"
        " caches already key on the next scheduled time"
    ),
}


def glossary_tables() -> set[str]:
    tables = set()
    for model in apps.get_app_config("glossary").get_models(include_auto_created=True):
        if not model._meta.proxy and model._meta.managed:
            tables.add(model._meta.db_table)
    return tables - set(NOT_CONTENT)


def triggered_tables() -> dict[str, set[str]]:
    """{table: the write operations whose trigger bumps the version}."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT event_object_table, event_manipulation FROM information_schema.triggers"
                " WHERE trigger_name = %s",
                [TRIGGER],
            )
            rows = cursor.fetchall()
            # TRUNCATE triggers are not listed in information_schema; read the catalog.
            cursor.execute(
                "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " WHERE t.tgname = %s AND (t.tgtype & 32) <> 0",
                [TRIGGER],
            )
            rows += [(table, "TRUNCATE") for (table,) in cursor.fetchall()]
        else:
            cursor.execute(
                "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s",
                [f"{TRIGGER}_%"],
            )
            rows = [(table, name.rpartition("_")[2].upper()) for table, name in cursor.fetchall()]
    found: dict[str, set[str]] = {}
    for table, operation in rows:
        found.setdefault(table, set()).add(operation)
    return found


def test_every_glossary_table_bumps_the_content_version():
    """A trigger on every table of the glossary app for every kind of write (PostgreSQL:
    INSERT, UPDATE, DELETE and TRUNCATE; SQLite, which has no TRUNCATE: the other three).
    A new model needs a migration adding its trigger, or an entry in NOT_CONTENT."""
    expected = {"INSERT", "UPDATE", "DELETE"}
    if connection.vendor == "postgresql":
        expected.add("TRUNCATE")
    found = triggered_tables()
    missing = {table: sorted(expected - found.get(table, set())) for table in glossary_tables()}
    assert {table: ops for table, ops in missing.items() if ops} == {}
    assert len(glossary_tables()) >= 7


@pytest.fixture
def a_row_everywhere(db):
    """At least one row in every glossary table (SQLite's triggers fire per row)."""
    category = make_category("Sieci")
    term, other = make_term("Gniazdo"), make_term("Port")
    term.categories.add(category)
    term.related.add(other)
    term.mentions.add(other)
    series = Series.objects.create(name="Seria", slug="seria")
    make_article(terms=[term], series=series, series_order=1).mentions.add(term)


@pytest.mark.parametrize("table", sorted(glossary_tables()))
def test_a_raw_write_to_each_table_changes_the_state(a_row_everywhere, table):
    """The triggers really fire: a write no ORM signal sees (raw SQL) changes
    content_state(), table by table."""
    before = content_state()
    quoted = connection.ops.quote_name(table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {quoted} SET id = id")  # noqa: S608 (a model's own table)
        assert cursor.rowcount >= 1, table
    assert content_state() != before, f"{table}: no bump on UPDATE"
