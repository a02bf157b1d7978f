"""Categories and series: WordPress's taxonomies, read-only, with their published counts."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from glossary.models import Category, Series

from ..filters import IdentityFilter, TaxonomyFilter, WordPressOrdering
from ..listing import Resource
from ..params import CategoryParams, DetailParams, SeriesParams
from ..serializers import CategorySerializer, SeriesSerializer
from .base import ID, NOT_MODIFIED, TOTALS, ContentViewSet, errors

TAXONOMY_FILTERS = (TaxonomyFilter, IdentityFilter, WordPressOrdering)


def _taxonomy_schema(read, params, name):
    return extend_schema_view(
        list=extend_schema(summary=f"Lista: {name}", parameters=[params, *TOTALS],
                           responses={200: read(many=True), 304: NOT_MODIFIED,
                                      **errors(400, 401, 403, 429)}),
        retrieve=extend_schema(summary=f"Jeden obiekt: {name}", parameters=[ID, DetailParams],
                               responses={200: read, 304: NOT_MODIFIED,
                                          **errors(400, 401, 403, 404, 429)}),
    )  # fmt: skip


class TaxonomyViewSet(ContentViewSet):
    http_method_names = ["get", "head", "options"]


@_taxonomy_schema(CategorySerializer, CategoryParams, "kategorie")
class CategoryViewSet(TaxonomyViewSet):
    model = Category
    resource = Resource(Category, filters=TAXONOMY_FILTERS)
    serializer_class = CategorySerializer
    params_classes = {"list": CategoryParams, "retrieve": DetailParams}
    not_found = ("rest_term_invalid", "Nie ma kategorii o tym identyfikatorze.")


@_taxonomy_schema(SeriesSerializer, SeriesParams, "serie")
class SeriesViewSet(TaxonomyViewSet):
    model = Series
    resource = Resource(Series, filters=TAXONOMY_FILTERS)
    serializer_class = SeriesSerializer
    params_classes = {"list": SeriesParams, "retrieve": DetailParams}
    not_found = ("rest_term_invalid", "Nie ma serii o tym identyfikatorze.")
