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
# The self-contained 500 page, with the CSP exception for its inline style.
handler500 = "glossary.views.server_error"
