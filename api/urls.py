"""/wp-json/ routes of the REST API, in the namespace the MCP endpoint uses (MCP_NAMESPACE).

Routes answer with and without a trailing slash, as WordPress's do. Objects are edited with
POST (WordPress's way), PUT or PATCH on their own route. Anything else under /wp-json/ that
no app serves is `rest_no_route` (must stay after the MCP endpoint's urls in config/urls.py).
"""

import re

from django.conf import settings
from django.urls import include, path, re_path
from rest_framework.routers import Route, SimpleRouter

from . import views

app_name = "api"
NAMESPACE = re.escape(settings.MCP_NAMESPACE.strip("/"))


class WordPressRouter(SimpleRouter):
    routes = [
        Route(
            url=r"^{prefix}{trailing_slash}$",
            mapping={"get": "list", "post": "create"},
            name="{basename}-list",
            detail=False,
            initkwargs={"suffix": "List"},
        ),
        Route(
            url=r"^{prefix}/{lookup}{trailing_slash}$",
            mapping={
                "get": "retrieve",
                "post": "edit",
                "put": "update",
                "patch": "partial_update",
                "delete": "destroy",
            },
            name="{basename}-detail",
            detail=True,
            initkwargs={"suffix": "Instance"},
        ),
    ]


router = WordPressRouter()
router.trailing_slash = "/?"  # the constructor only knows "/" or nothing
router.register("terms", views.TermViewSet, basename="term")
router.register("articles", views.ArticleViewSet, basename="article")
router.register("categories", views.CategoryViewSet, basename="category")
router.register("series", views.SeriesViewSet, basename="series")
router.register("search", views.SearchViewSet, basename="search")
router.register(r"terms/(?P<id>[0-9]+)/revisions", views.TermRevisionViewSet, "term-revisions")
router.register(
    r"articles/(?P<id>[0-9]+)/revisions", views.ArticleRevisionViewSet, "article-revisions"
)

urlpatterns = [
    path("wp-json/", views.IndexView.as_view(), name="index"),
    re_path(rf"^wp-json/{NAMESPACE}/?$", views.NamespaceView.as_view(), name="namespace"),
    re_path(rf"^wp-json/{NAMESPACE}/openapi/?$", views.OpenApiView.as_view(), name="openapi"),
    re_path(rf"^wp-json/{NAMESPACE}/types/?$", views.TypesView.as_view(), name="types"),
    re_path(
        rf"^wp-json/{NAMESPACE}/types/(?P<slug>[a-z]+)/?$", views.TypeView.as_view(), name="type"
    ),
    re_path(rf"^wp-json/{NAMESPACE}/", include(router.urls)),
    re_path(r"^wp-json/", views.NoRouteView.as_view(), name="no-route"),
]
