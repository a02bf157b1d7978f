"""The REST routes, one module per resource: thin DRF viewsets over glossary selectors,
search and services (api/urls.py routes them)."""

from .entries import ArticleViewSet, EntryViewSet, TermViewSet
from .index import (
    IndexView,
    NamespaceView,
    NoRouteView,
    OpenApiView,
    SearchViewSet,
    TypesView,
    TypeView,
)
from .revisions import ArticleRevisionViewSet, TermRevisionViewSet
from .taxonomies import CategoryViewSet, SeriesViewSet

__all__ = [
    "ArticleRevisionViewSet",
    "ArticleViewSet",
    "CategoryViewSet",
    "EntryViewSet",
    "IndexView",
    "NamespaceView",
    "NoRouteView",
    "OpenApiView",
    "SearchViewSet",
    "SeriesViewSet",
    "TermRevisionViewSet",
    "TermViewSet",
    "TypeView",
    "TypesView",
]
