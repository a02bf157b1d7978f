"""A C-collation btree on the articles' folded titles (PostgreSQL only), so that a short
article search ("mc") reads title prefixes in order from an index, as terms do (0003)."""

from django.db import migrations


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("glossary", "0005_autolinks_revisions_schedule")]

    operations = [
        migrations.RunPython(
            _on_postgres(
                "CREATE INDEX IF NOT EXISTS glossary_article_title_folded_c "
                'ON glossary_article (title_folded COLLATE "C")'
            ),
            _on_postgres("DROP INDEX IF EXISTS glossary_article_title_folded_c"),
        ),
    ]
