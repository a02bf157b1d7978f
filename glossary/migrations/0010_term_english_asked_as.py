"""An English name and short definition per term, and the missed queries editors attached to
it ("pytano też jako"): all searched, none linked. SQLite rebuilds the table to add columns and
drops its triggers with the old one: the content-version triggers are created again (0009)."""

from importlib import import_module

from django.db import migrations, models

_recreate_sqlite_triggers = import_module(
    "glossary.migrations.0009_term_unlinked_synonyms"
)._recreate_sqlite_triggers


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0009_term_unlinked_synonyms"),
    ]

    operations = [
        migrations.AddField(
            model_name="term",
            name="english_name",
            field=models.CharField(
                blank=True,
                help_text="Nazwa używana w angielskich tekstach (np. „Tool call”). "
                "Wyszukiwarka ją zna; w tekstach nie staje się odnośnikiem.",
                max_length=200,
                verbose_name="nazwa angielska",
            ),
        ),
        migrations.AddField(
            model_name="term",
            name="english_definition",
            field=models.CharField(
                blank=True,
                help_text="Zwykły tekst, do 300 znaków. Wyszukiwarka szuka w niej jak w "
                "polskiej definicji; agenci ją widzą.",
                max_length=300,
                verbose_name="krótka definicja po angielsku",
            ),
        ),
        migrations.AddField(
            model_name="term",
            name="asked_as",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Zapytania czytelników i agentów, które dotyczyły tego pojęcia, choć "
                "go nie nazywały. Wyszukiwarka traktuje je jak synonimy; nie są linkowane ani "
                "pokazywane.",
                verbose_name="pytano też jako",
            ),
        ),
        migrations.RunPython(_recreate_sqlite_triggers, _recreate_sqlite_triggers),
    ]
