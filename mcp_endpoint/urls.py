"""/wp-json/ routes. The MCP endpoint answers with and without a trailing slash (clients
copy the URL either way, and a redirect would turn a POST into a GET for some of them)."""

from django.conf import settings
from django.urls import path

from . import rest_index
from .transports import views

app_name = "mcp_endpoint"
NAMESPACE = settings.MCP_NAMESPACE.strip("/")

urlpatterns = [
    path("wp-json/", rest_index.rest_index, name="rest-index"),
    path(f"wp-json/{NAMESPACE}", rest_index.namespace_index, name="rest-namespace"),
    path(f"wp-json/{NAMESPACE}/", rest_index.namespace_index),
    path(f"wp-json/{NAMESPACE}/mcp", views.mcp, name="mcp"),
    path(f"wp-json/{NAMESPACE}/mcp/", views.mcp),
]
