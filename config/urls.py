from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("mcp_endpoint.urls")),
    # After the MCP endpoint: api/ ends with the catch-all `rest_no_route` for /wp-json/.
    path("", include("api.urls")),
    path("", include("glossary.urls")),
]

# The 404 page suggests the closest terms (glossary/views.py).
handler404 = "glossary.views.page_not_found"
# 500, or the styled 503 with Retry-After while the database is unreachable (glossary/views.py).
handler500 = "glossary.views.server_error"
