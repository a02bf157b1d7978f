from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analytics"
    verbose_name = "Analityka"

    def ready(self):
        """Listen to the MCP server (its one observer hook) and to the site's search page;
        neither knows analytics exists. ANALYTICS_ENABLED=0 records nothing (the reports stay)."""
        from django.conf import settings

        if not settings.ANALYTICS_ENABLED:
            return
        from glossary.signals import site_searched
        from mcp_endpoint.core.server import get_server

        from .recorder import recorder

        get_server().observe(recorder.record)
        site_searched.connect(recorder.record_search, dispatch_uid="analytics.site_search")
