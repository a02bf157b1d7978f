"""Synonyms kept out of auto-linking (`Term.unlinked_synonyms`).

SQLite rebuilds the term table to add the column and drops its triggers with the old table:
the content-version triggers (0004, 0005) are created again on it, as 0005 does.
"""

from django.db import migrations, models

TRIGGER = "glossary_content_version"
SQLITE_BUMP = (
    "INSERT INTO glossary_contentversion (id, version) VALUES (1, random()) "
    "ON CONFLICT (id) DO UPDATE SET version = excluded.version"
)
SQLITE_FORWARD = [
    statement
    for op in ("INSERT", "UPDATE", "DELETE")
    for statement in (
        f"DROP TRIGGER IF EXISTS {TRIGGER}_glossary_term_{op.lower()}",
        f"CREATE TRIGGER {TRIGGER}_glossary_term_{op.lower()} AFTER {op} ON glossary_term "
        f"BEGIN {SQLITE_BUMP}; END",
    )
]


def _recreate_sqlite_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0008_term_sort_index_covers_visibility"),
    ]

    operations = [
        migrations.AddField(
            model_name="term",
            name="unlinked_synonyms",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Synonimy, które wyszukiwarka zna, ale które w innych tekstach nie "
                "stają się odnośnikiem (zwykłe słowa, np. „serwer”).",
                verbose_name="synonimy bez linkowania",
            ),
        ),
        migrations.RunPython(_recreate_sqlite_triggers, _recreate_sqlite_triggers),
    ]
