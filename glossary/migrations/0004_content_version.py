"""The content version: one row that database triggers bump on every write to a glossary
table, so caches of published content (MCP results, term pages) see every change, whichever
path made it — admin, services, bulk import, raw SQL — and in every server process.

PostgreSQL: statement-level `AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE` triggers (one bump
per statement, however many rows a bulk import writes) taking values from a sequence, which a
rollback does not rewind. SQLite: row-level triggers (it has no statement-level ones) taking
`random()`, unique for the same reason.
"""

from django.db import migrations, models

TABLES = (
    "glossary_term",
    "glossary_term_categories",
    "glossary_term_related",
    "glossary_article",
    "glossary_article_terms",
    "glossary_category",
    "glossary_series",
)
SEQUENCE = "glossary_contentversion_seq"
FUNCTION = "glossary_bump_content_version"
TRIGGER = "glossary_content_version"

POSTGRES_FORWARD = [
    # Not OWNED BY a column: `TRUNCATE … RESTART IDENTITY` (test flushes) must not rewind it.
    f"CREATE SEQUENCE {SEQUENCE}",
    f"""CREATE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO glossary_contentversion (id, version) VALUES (1, nextval('{SEQUENCE}'))
        ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version;
        RETURN NULL;
    END $$""",  # noqa: S608 (module constants, no input)
    *(
        f"CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
        for table in TABLES
    ),
    f"INSERT INTO glossary_contentversion (id, version) VALUES (1, nextval('{SEQUENCE}'))",  # noqa: S608
]
POSTGRES_BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {TRIGGER} ON {table}" for table in TABLES),
    f"DROP FUNCTION IF EXISTS {FUNCTION}()",
    f"DROP SEQUENCE IF EXISTS {SEQUENCE}",
]

SQLITE_BUMP = (
    "INSERT INTO glossary_contentversion (id, version) VALUES (1, random()) "
    "ON CONFLICT (id) DO UPDATE SET version = excluded.version"
)
SQLITE_FORWARD = [
    *(
        f"CREATE TRIGGER {TRIGGER}_{table}_{op.lower()} AFTER {op} ON {table} "
        f"BEGIN {SQLITE_BUMP}; END"
        for table in TABLES
        for op in ("INSERT", "UPDATE", "DELETE")
    ),
    "INSERT INTO glossary_contentversion (id, version) VALUES (1, random())",
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {TRIGGER}_{table}_{op.lower()}"
    for table in TABLES
    for op in ("INSERT", "UPDATE", "DELETE")
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor, ())
        for sql in statements:
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0003_search"),
    ]

    operations = [
        migrations.CreateModel(
            name="ContentVersion",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False),
                ),
                ("version", models.BigIntegerField(default=0)),
            ],
            options={
                "verbose_name": "wersja treści",
                "verbose_name_plural": "wersje treści",
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("id", 1)),
                        name="glossary_contentversion_single_row",
                        violation_error_code="single_row",
                    )
                ],
            },
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
