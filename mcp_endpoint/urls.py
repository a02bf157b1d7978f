"""The MCP endpoint's route (the /wp-json/ index is api/'s). It answers with and without a
trailing slash (clients copy the URL either way, and a redirect would turn a POST into a GET
for some of them)."""

from django.conf import settings
from django.urls import path

from .transports import discovery, views

app_name = "mcp_endpoint"
NAMESPACE = settings.MCP_NAMESPACE.strip("/")

urlpatterns = [
    path(f"wp-json/{NAMESPACE}/mcp", views.mcp, name="mcp"),
    path(f"wp-json/{NAMESPACE}/mcp/", views.mcp),
    # SEP-2127 (draft) discovery documents: transports/discovery.py.
    path(
        f"wp-json/{NAMESPACE}/mcp/server-card",
        discovery.server_card_view,
        name="server-card",
    ),
    path(".well-known/mcp/catalog.json", discovery.catalog_view, name="catalog"),
]
