"""The routes that are not a collection of entries: WordPress's /search over the one search
engine, /types, the REST index (/wp-json/ and the namespace), the OpenAPI document and
`rest_no_route` for anything else."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from glossary import search

from .. import links, schema
from ..conditional import Validators
from ..exceptions import RestError
from ..pagination import WordPressPagination
from ..params import GlobalParams, SearchParams
from ..represent import embed_link
from ..serializers import SearchResultSerializer
from .base import NOT_MODIFIED, SEARCH_HEADERS, TOTALS, RestMixin, errors, search_headers


@extend_schema_view(
    list=extend_schema(
        summary="Szukaj (ta sama wyszukiwarka i kolejność co na stronie i w MCP)",
        parameters=[SearchParams, *TOTALS, *SEARCH_HEADERS],
        description="Nigdy puste: gdy nic nie pasuje pewnie, odpowiedź to najbliższe pojęcia "
        "(albo artykuły o nich), każde z `weak: true`, i nagłówek `X-WP-Search-Weak: 1`; "
        "`weak` jest też przy wyniku, który pasuje tylko częścią słów. Gdy wyszukiwarka "
        "poprawiła literówki, `X-WP-Search-Did-You-Mean` podaje poprawione zapytanie "
        "(ext-value RFC 8187: `UTF-8''` i tekst zakodowany procentowo).",
        responses={200: SearchResultSerializer(many=True), 304: NOT_MODIFIED,
                   **errors(400, 401, 403, 429)},
    )
)  # fmt: skip
class SearchViewSet(RestMixin, viewsets.GenericViewSet):
    """WordPress's /search: ranked hits of one kind (`type`), at most the engine's best 100;
    never empty for a search with words (`search.find_terms`: the closest entries, weak)."""

    serializer_class = SearchResultSerializer
    params_classes = {"list": SearchParams}
    pagination_class = WordPressPagination

    def list(self, request, *args, **kwargs):
        validators = Validators(request, user_key="anonymous")  # published hits only
        not_modified = validators.not_modified(request)
        if not_modified is not None:
            return not_modified
        text = self.params.get("search")
        find = search.find_terms if self.params["type"] == "term" else search.find_articles
        answer = find(query=text, limit=search.MAX_LIMIT) if text else None
        page = self.paginate_queryset(answer.hits if answer else [])
        serializer = SearchResultSerializer()
        wanted = set(self.params.get("_embed") or ())
        items = []
        for hit in page:
            item = serializer.to_representation(hit)
            if "*" in wanted or "self" in wanted:
                item["_embedded"] = {"self": [embed_link(hit)]}
            items.append(item)
        response = validators.apply(self.get_paginated_response(self.shape(items)))
        if answer is not None:
            search_headers(response, weak=answer.weak, did_you_mean=answer.did_you_mean)
        return response


TYPES = {
    "term": {"name": "Pojęcia", "description": "Pojęcia słownika."},
    "article": {"name": "Artykuły", "description": "Artykuły, które używają pojęć."},
}


def _type(slug: str) -> dict:
    ns = links.namespace_url()
    return {
        "description": TYPES[slug]["description"],
        "name": TYPES[slug]["name"],
        "slug": slug,
        "taxonomies": ["category"] if slug == "term" else ["series"],
        "rest_base": links.REST_BASE[slug],
        "rest_namespace": settings.MCP_NAMESPACE,
        "_links": {
            "collection": [{"href": f"{ns}/types"}],
            "wp:items": [{"href": links.route(slug)}],
        },
    }


class TypesView(RestMixin, APIView):
    """WordPress's /types: what kinds of entries there are (the `about` link of an entry)."""

    @extend_schema(
        summary="Typy wpisów", parameters=[GlobalParams], operation_id="types_list",
        responses={200: OpenApiTypes.OBJECT, **errors(400, 401, 403, 429)},
    )  # fmt: skip
    def get(self, request):
        return Response({name: _type(name) for name in TYPES})


class TypeView(RestMixin, APIView):
    @extend_schema(
        summary="Typ wpisów", parameters=[GlobalParams], operation_id="types_retrieve",
        responses={200: OpenApiTypes.OBJECT, **errors(400, 401, 403, 404, 429)},
    )  # fmt: skip
    def get(self, request, slug):
        if slug not in TYPES:
            raise RestError("rest_type_invalid", "Nie ma takiego typu wpisów.", 404)
        return Response(_type(slug))


class IndexView(RestMixin, APIView):
    """GET /wp-json/: the site, its namespaces, authentication and every route (WordPress's
    REST index), the MCP endpoint included."""

    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request):
        return Response(schema.index())


class NamespaceView(RestMixin, APIView):
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request):
        return Response(schema.namespace_index())


class OpenApiView(RestMixin, APIView):
    """The OpenAPI 3 document of this API (drf-spectacular), generated once per process."""

    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request):
        return Response(schema.openapi())


class NoRouteView(RestMixin, APIView):
    """Anything else under /wp-json/: WordPress's `rest_no_route` as JSON, never HTML."""

    permission_classes = [AllowAny]
    authentication_classes = []

    def initial(self, request, *args, **kwargs):
        raise RestError("rest_no_route", "Nie ma trasy dla tego adresu i tej metody HTTP.", 404)
