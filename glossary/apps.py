from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "glossary"
    verbose_name = "Słownik"

    def ready(self):
        import reversion
        from django.apps import apps
        from django.contrib.sites.models import Site
        from django.db import connections
        from django.db.models.signals import post_delete, post_migrate, post_save

        from . import site
        from .db import driver

        # psycopg keeps its conversion of a statement's placeholders for every statement of
        # ours, the long search statements included (glossary/db/driver.py).
        driver.configure(connections["default"].vendor)

        # The canonical address (glossary/site.py): a new site gets SITE_URL, after
        # django.contrib.sites has created its placeholder; a changed one is read again.
        post_migrate.connect(site.ensure_site, sender=apps.get_app_config("sites"))
        post_save.connect(site.site_changed, sender=Site)
        post_delete.connect(site.site_changed, sender=Site)

        # Content-change events for live pages and MCP subscriptions (glossary/events.py).
        from . import signals  # noqa: F401
        from .models import ARTICLE_REVISION_FIELDS, TERM_REVISION_FIELDS, Article, Term

        # Revisions (django-reversion) of what editors write; the fields are in models.py.
        reversion.register(Term, fields=list(TERM_REVISION_FIELDS))
        reversion.register(Article, fields=list(ARTICLE_REVISION_FIELDS))
