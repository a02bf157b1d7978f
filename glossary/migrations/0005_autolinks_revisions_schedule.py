"""Auto-linking (stored linked HTML and the terms each text mentions, switches per entry),
the clock of scheduled publications, and the content-version triggers (as in 0004) on the two
new link tables, so every cache keyed by the version sees a change of mentions (and, on
SQLite, again on the tables this migration rebuilds)."""

from django.db import migrations, models

TABLES = ("glossary_term_mentions", "glossary_article_mentions")
TRIGGER = "glossary_content_version"
POSTGRES_FORWARD = [
    f"CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
    "FOR EACH STATEMENT EXECUTE FUNCTION glossary_bump_content_version()"
    for table in TABLES
]
POSTGRES_BACKWARD = [f"DROP TRIGGER IF EXISTS {TRIGGER} ON {table}" for table in TABLES]
SQLITE_BUMP = (
    "INSERT INTO glossary_contentversion (id, version) VALUES (1, random()) "
    "ON CONFLICT (id) DO UPDATE SET version = excluded.version"
)
# SQLite rebuilds a table to add or alter a column (copy, drop, rename) and the old table's
# triggers go with it: 0004's triggers on the rebuilt tables are created again, so the
# content version keeps following every write there too.
REBUILT = ("glossary_term", "glossary_article")
SQLITE_FORWARD = [
    statement
    for table in (*REBUILT, *TABLES)
    for op in ("INSERT", "UPDATE", "DELETE")
    for statement in (
        f"DROP TRIGGER IF EXISTS {TRIGGER}_{table}_{op.lower()}",
        f"CREATE TRIGGER {TRIGGER}_{table}_{op.lower()} AFTER {op} ON {table} "
        f"BEGIN {SQLITE_BUMP}; END",
    )
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {TRIGGER}_{table}_{op.lower()}"
    for table in TABLES
    for op in ("INSERT", "UPDATE", "DELETE")
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, ()):
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0004_content_version"),
    ]

    operations = [
        migrations.CreateModel(
            name="PublicationClock",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False),
                ),
                ("processed_until", models.DateTimeField()),
            ],
            options={
                "verbose_name": "zegar publikacji",
                "verbose_name_plural": "zegar publikacji",
            },
        ),
        migrations.AddField(
            model_name="article",
            name="autolink",
            field=models.BooleanField(
                default=True,
                help_text="Pierwsze wystąpienie opublikowanego pojęcia w treści staje się odnośnikiem z dymkiem. Fragment bez odnośników: [tekst]{.bez-linkow} albo blok ::: bez-linkow.",
                verbose_name="linkuj pojęcia w treści",
            ),
        ),
        migrations.AddField(
            model_name="article",
            name="linked_html",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="article",
            name="mentions",
            field=models.ManyToManyField(
                blank=True, editable=False, related_name="mentioned_by_articles", to="glossary.term"
            ),
        ),
        migrations.AddField(
            model_name="term",
            name="autolink",
            field=models.BooleanField(
                default=True,
                help_text="Pierwsze wystąpienie opublikowanego pojęcia w treści staje się odnośnikiem z dymkiem. Fragment bez odnośników: [tekst]{.bez-linkow} albo blok ::: bez-linkow.",
                verbose_name="linkuj pojęcia w treści",
            ),
        ),
        migrations.AddField(
            model_name="term",
            name="linkable",
            field=models.BooleanField(
                default=True,
                help_text="Wyłącz dla pojęć, których nazwa jest zwykłym słowem (np. „klient”).",
                verbose_name="linkuj to pojęcie w innych tekstach",
            ),
        ),
        migrations.AddField(
            model_name="term",
            name="linked_html",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="term",
            name="mentions",
            field=models.ManyToManyField(
                blank=True, editable=False, related_name="mentioned_by_terms", to="glossary.term"
            ),
        ),
        migrations.AlterField(
            model_name="term",
            name="synonyms",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Skróty, rozwinięcia, nazwy angielskie. Formy odmienione („serwera MCP”) nie są potrzebne do linkowania (odmianę rozpoznaje ono samo), ale pomagają wyszukiwarce; czytelnicy ich nie widzą.",
                verbose_name="synonimy",
            ),
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
