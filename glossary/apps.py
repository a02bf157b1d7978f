from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "glossary"
    verbose_name = "Słownik"

    def ready(self):
        # Content-change events for live pages and MCP subscriptions (glossary/events.py).
        # Revisions (django-reversion): what an editor writes, with its links; derived
        # columns are recomputed on restore, so they are not stored in versions.
        import reversion

        from . import signals  # noqa: F401
        from .models import Article, Term

        reversion.register(
            Term,
            fields=[
                "name", "slug", "short_definition", "body", "synonyms", "categories", "related",
                "status", "published_at", "autolink", "linkable",
            ],
        )  # fmt: skip
        reversion.register(
            Article,
            fields=[
                "title", "slug", "lead", "body", "author", "terms", "series", "series_order",
                "status", "published_at", "autolink",
            ],
        )  # fmt: skip
