from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "glossary"
    verbose_name = "Słownik"

    def ready(self):
        # Content-change events for live pages and MCP subscriptions (glossary/events.py).
        # Revisions (django-reversion): the fields are listed in models.py.
        import reversion

        from .models import ARTICLE_REVISION_FIELDS, TERM_REVISION_FIELDS, Article, Term

        reversion.register(Term, fields=list(TERM_REVISION_FIELDS))
        reversion.register(Article, fields=list(ARTICLE_REVISION_FIELDS))
