from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("mcp_endpoint.urls")),
    path("", include("glossary.urls")),
]

# The 404 page suggests the closest terms (glossary/views.py).
handler404 = "glossary.views.page_not_found"
