from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "glossary"
    verbose_name = "Słownik"

    def ready(self):
        # Content-change events for live pages and MCP subscriptions (glossary/events.py).
        from . import signals  # noqa: F401
