from django.apps import AppConfig


class McpEndpointConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "mcp_endpoint"
    verbose_name = "MCP"
