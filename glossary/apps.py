from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "glossary"
    verbose_name = "Słownik"

    def ready(self):
        import reversion

        # Content-change events for live pages and MCP subscriptions (glossary/events.py).
        from . import signals  # noqa: F401
        from .models import ARTICLE_REVISION_FIELDS, TERM_REVISION_FIELDS, Article, Term

        # Revisions (django-reversion) of what editors write; the fields are in models.py.
        reversion.register(Term, fields=list(TERM_REVISION_FIELDS))
        reversion.register(Article, fields=list(ARTICLE_REVISION_FIELDS))
