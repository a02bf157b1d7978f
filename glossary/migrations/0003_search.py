"""Search columns (computed in Python by `refresh_derived()`) and, on PostgreSQL only, the
objects that make them fast: the pg_trgm and unaccent extensions, a stored tsvector generated
from the stem columns (weights A/B/C), GIN indexes and a C-collation btree for prefix lookups.

The PostgreSQL objects live outside Django's model state on purpose: SQLite cannot create
them, and the model reads them only through raw SQL in `glossary/search.py`.
"""

from django.db import migrations, models

from glossary.polish import fold
from glossary.stemming import document_stems, names_field, typo_keys

POSTGRES_FORWARD = [
    # Both are "trusted" extensions (PostgreSQL 13+): the database owner may create them.
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    """ALTER TABLE glossary_term ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple'::regconfig, stems_names), 'A')
        || setweight(to_tsvector('simple'::regconfig, stems_definition), 'B')
        || setweight(to_tsvector('simple'::regconfig, stems_body), 'C')) STORED""",
    "CREATE INDEX glossary_term_search_vector_gin ON glossary_term USING gin (search_vector)",
    # Names and synonyms alone: a word frequent in bodies must not slow down name matching.
    """ALTER TABLE glossary_term ADD COLUMN names_vector tsvector GENERATED ALWAYS AS (
        to_tsvector('simple'::regconfig, stems_names)) STORED""",
    "CREATE INDEX glossary_term_names_vector_gin ON glossary_term USING gin (names_vector)",
    "CREATE INDEX glossary_term_search_names_trgm ON glossary_term USING gin (search_names gin_trgm_ops)",
    # The same names as an array: "is the query exactly a name or synonym" in one GIN probe.
    """ALTER TABLE glossary_term ADD COLUMN names_array text[] GENERATED ALWAYS AS (
        string_to_array(btrim(search_names, '| '), ' | ')) STORED""",
    "CREATE INDEX glossary_term_names_array_gin ON glossary_term USING gin (names_array)",
    # Typo keys as an array, for the GIN-indexed overlap operator `&&`.
    """ALTER TABLE glossary_term ADD COLUMN typo_array text[] GENERATED ALWAYS AS (
        string_to_array(btrim(typo_keys), ' ')) STORED""",
    "CREATE INDEX glossary_term_typo_array_gin ON glossary_term USING gin (typo_array)",
    # Serves both `LIKE 'ab%'` and ORDER BY name_folded COLLATE "C" whatever the database locale.
    'CREATE INDEX glossary_term_name_folded_c ON glossary_term (name_folded COLLATE "C")',
    """ALTER TABLE glossary_article ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple'::regconfig, stems_title), 'A')
        || setweight(to_tsvector('simple'::regconfig, stems_lead), 'B')
        || setweight(to_tsvector('simple'::regconfig, stems_body), 'C')) STORED""",
    "CREATE INDEX glossary_article_search_vector_gin ON glossary_article USING gin (search_vector)",
    "CREATE INDEX glossary_article_title_folded_trgm ON glossary_article USING gin (title_folded gin_trgm_ops)",
]

POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS glossary_article_title_folded_trgm",
    "DROP INDEX IF EXISTS glossary_article_search_vector_gin",
    "ALTER TABLE glossary_article DROP COLUMN IF EXISTS search_vector",
    "DROP INDEX IF EXISTS glossary_term_name_folded_c",
    "DROP INDEX IF EXISTS glossary_term_typo_array_gin",
    "ALTER TABLE glossary_term DROP COLUMN IF EXISTS typo_array",
    "DROP INDEX IF EXISTS glossary_term_names_array_gin",
    "ALTER TABLE glossary_term DROP COLUMN IF EXISTS names_array",
    "DROP INDEX IF EXISTS glossary_term_search_names_trgm",
    "DROP INDEX IF EXISTS glossary_term_names_vector_gin",
    "ALTER TABLE glossary_term DROP COLUMN IF EXISTS names_vector",
    "DROP INDEX IF EXISTS glossary_term_search_vector_gin",
    "ALTER TABLE glossary_term DROP COLUMN IF EXISTS search_vector",
]


def _run_on_postgres(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for sql in statements:
            schema_editor.execute(sql)

    return run


def backfill(apps, schema_editor):
    """Compute the new columns for rows that existed before this migration."""
    Term = apps.get_model("glossary", "Term")
    Article = apps.get_model("glossary", "Article")
    terms = list(Term.objects.all())
    for t in terms:
        t.search_names = names_field([t.name, *t.synonyms])
        t.stems_names = document_stems(t.name, *t.synonyms)
        t.stems_definition = document_stems(t.short_definition)
        t.stems_body = document_stems(t.body)
        t.typo_keys = typo_keys(t.name)
    Term.objects.bulk_update(
        terms,
        ["search_names", "stems_names", "stems_definition", "stems_body", "typo_keys"],
        batch_size=500,
    )
    articles = list(Article.objects.all())
    for a in articles:
        a.title_folded = fold(a.title)
        a.stems_title = document_stems(a.title)
        a.stems_lead = document_stems(a.lead)
        a.stems_body = document_stems(a.body)
    Article.objects.bulk_update(
        articles, ["title_folded", "stems_title", "stems_lead", "stems_body"], batch_size=500
    )


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0002_editors_group"),
    ]

    operations = [
        migrations.AddField(
            model_name="article",
            name="stems_body",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="article",
            name="stems_lead",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="article",
            name="stems_title",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="article",
            name="title_folded",
            field=models.CharField(blank=True, default="", editable=False, max_length=250),
        ),
        migrations.AddField(
            model_name="term",
            name="search_names",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="term",
            name="stems_body",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="term",
            name="stems_definition",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="term",
            name="stems_names",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="term",
            name="typo_keys",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.RunPython(
            _run_on_postgres(POSTGRES_FORWARD), _run_on_postgres(POSTGRES_BACKWARD)
        ),
    ]
