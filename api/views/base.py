"""What every REST route shares: the request's parameters validated before anything reads
them (api/params.py), CORS, `_fields`, and the read of a collection in DRF's shape.

A request runs DRF's pipeline (authentication, permissions, throttles), then `initial()`
validates the query string with the route's parameter serializer. A list or an object is
then: the parameters as a `Listing` → `queries.plan` picks the strategy → it fetches one
`Page(items, total, state)` → the page is rendered (api/queries.py). Reads start from what
the reader may see (`published()` for everyone who may not see drafts). Conditional GETs are
answered from the content state (api/conditional.py).
"""

from __future__ import annotations

from urllib.parse import quote

import orjson
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import viewsets
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response

from glossary import selectors
from glossary.models import Article, Term

from .. import queries, rowjson
from ..conditional import Validators, has_preconditions
from ..exceptions import RestError
from ..listing import JsonPage, Listing, Page, Resource
from ..pagination import HEADERS, WordPressPagination, bounds
from ..params import MAX_ID, GlobalParams, validate_query
from ..permissions import can_edit, can_see_drafts
from ..serializers import ErrorSerializer

# How the search engine read a `search` (glossary.search.Answer): whether the answer is a
# guess, and the query with its typos corrected. Headers carry ASCII only, so the corrected
# query is an RFC 8187 ext-value (`UTF-8''` and the text percent-encoded): no byte of it can
# be a CR, an LF or anything else a header may not hold.
SEARCH_WEAK = "X-WP-Search-Weak"
SEARCH_DID_YOU_MEAN = "X-WP-Search-Did-You-Mean"
SEARCH_HEADERS = [
    OpenApiParameter(SEARCH_WEAK, {"type": "string", "enum": ["0", "1"]},
                     OpenApiParameter.HEADER, response=[200],
                     description="Gdy podano `search`: 1, gdy wyszukiwarka nie znalazła pewnego "
                     "dopasowania (wyniki to zgadywanie), inaczej 0."),
    OpenApiParameter(SEARCH_DID_YOU_MEAN, OpenApiTypes.STR, OpenApiParameter.HEADER,
                     response=[200],
                     description="Tylko gdy wyszukiwarka poprawiła literówki: zapytanie po "
                     "poprawkach jako ext-value RFC 8187, `UTF-8''` i tekst zakodowany "
                     "procentowo w UTF-8 (np. `UTF-8''serwer%20mcp`)."),
]  # fmt: skip
EXPOSE = ", ".join(
    (*HEADERS, "ETag", "Last-Modified", "Allow", "Retry-After", SEARCH_WEAK, SEARCH_DID_YOU_MEAN)
)
ALLOW_HEADERS = (
    "Authorization, Content-Type, If-None-Match, If-Modified-Since, If-Match, X-CSRFToken"
)


def errors(*codes: int) -> dict:
    return {
        code: OpenApiResponse(ErrorSerializer, description="Błąd (kształt WordPressa).")
        for code in codes
    }


ID = OpenApiParameter(
    "id", {"type": "integer", "minimum": 1, "maximum": MAX_ID}, OpenApiParameter.PATH,
    description="Identyfikator obiektu.",
)  # fmt: skip
IF_MATCH = OpenApiParameter(
    "If-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False,
    description="ETag wpisu z GET /<typ>/<id> (albo z odpowiedzi na poprzedni zapis): zapis "
    "się nie uda (412), jeśli ktoś zapisał wpis od tamtej chwili. `*`: byle wpis istniał.",
)  # fmt: skip
NOT_MODIFIED = OpenApiResponse(description="Bez zmian od podanego ETag/daty (If-None-Match).")
TOTALS = [
    OpenApiParameter("X-WP-Total", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[200],
                     description="Liczba wszystkich elementów kolekcji."),
    OpenApiParameter("X-WP-TotalPages", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[200],
                     description="Liczba stron."),
]  # fmt: skip


def search_headers(response, *, weak: bool, did_you_mean: str):
    """The engine's reading of a `search` on `response` (SEARCH_HEADERS)."""
    response[SEARCH_WEAK] = "1" if weak else "0"
    if did_you_mean:
        response[SEARCH_DID_YOU_MEAN] = "UTF-8''" + quote(did_you_mean, safe="")
    return response


def only_fields(data: dict, spec: dict) -> dict:
    """`_fields`: keep the listed fields, nested ones by their dotted path."""
    out = {}
    for key, sub in spec.items():
        if key in data:
            value = data[key]
            nested = sub is not True and isinstance(value, dict)
            out[key] = only_fields(value, sub) if nested else value
    return out


def fields_spec(names) -> dict | None:
    """["id", "title.rendered"] -> {"id": True, "title": {"rendered": True}}; a whole field
    wins over parts of it."""
    if not names:
        return None
    spec: dict = {}
    for name in names:
        node = spec
        *parents, leaf = name.split(".")
        for part in parents:
            if node.get(part) is True:
                break
            node = node.setdefault(part, {})
        else:
            node[leaf] = True
    return spec


class RestMixin:
    """What every route shares: validated parameters, visibility, CORS, `_fields`."""

    params_classes: dict = {}
    model = None
    params: dict = {}

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method == "OPTIONS":
            return
        cls = self.params_classes.get(getattr(self, "action", None) or "list", GlobalParams)
        self.params = validate_query(cls, request.query_params)
        self.now = timezone.now()
        if self.params.get("context") == "edit" and not can_edit(request.user, self.model or Term):
            raise RestError(
                "rest_forbidden_context",
                "Nie masz uprawnień do context=edit.",
                403 if request.user.is_authenticated else 401,
            )

    now = None

    def perform_authentication(self, request):
        """A request with no credentials (no Authorization header, no session cookie) is
        anonymous: DRF's authenticators would each look for them and find nothing, at a
        cost on every public read."""
        django_request = request._request
        if (
            "HTTP_AUTHORIZATION" not in django_request.META
            and settings.SESSION_COOKIE_NAME not in django_request.COOKIES
        ):
            request.user, request.auth = AnonymousUser(), None
            return
        super().perform_authentication(request)

    def get_throttles(self):
        # The only throttle counts writes (api/throttling.py); a read has nothing to check.
        if self.request.method in SAFE_METHODS:
            return []
        return super().get_throttles()

    def user_key(self) -> str:
        if self.request is None:  # a read built outside a request: the readers'
            return "anonymous"
        user = self.request.user
        return f"user:{user.pk}" if user.is_authenticated else "anonymous"

    def shape(self, items: list[dict]) -> list[dict]:
        spec = fields_spec(self.params.get("_fields"))
        return items if spec is None else [only_fields(item, spec) for item in items]

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # Public data: any origin may read it; "*" never carries cookies, so session auth
        # stays same-origin (and CSRF-checked).
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = EXPOSE
        if request.method == "OPTIONS":
            response["Access-Control-Allow-Methods"] = ", ".join(self.allowed_methods)
            response["Access-Control-Allow-Headers"] = ALLOW_HEADERS
        patch_vary_headers(response, ("Authorization",))
        return response


class ContentViewSet(RestMixin, viewsets.GenericViewSet):
    """A collection and its objects: `list` and `retrieve` read through `queries` (the
    resource's `Listing`), render the page with the read serializer, and answer
    conditional requests from the content state."""

    lookup_url_kwarg = "id"
    lookup_value_regex = "[0-9]+"
    pagination_class = WordPressPagination
    resource: Resource

    def listing(self, params: dict | None = None) -> Listing:
        """This request's read: its parameters (or `params`), its clock, its reader."""
        user = None if self.request is None else self.request.user
        may = (self.model, Term, Article)
        drafts = frozenset(m for m in may if user is not None and can_see_drafts(user, m))
        return Listing(
            self.resource,
            self.params if params is None else params,
            self.now or timezone.now(),
            reader=self.user_key(),
            drafts=drafts,
        )

    # DRF's names for what a read starts from, on the same `Listing`.
    def get_queryset(self):
        listing = self.listing()
        if getattr(self, "action", None) == "list":
            return self.resource.base(listing)
        return listing.visible(self.model)

    def filter_queryset(self, queryset):
        return self.resource.filter(queryset, self.listing())

    def object_id(self) -> int:
        """The route's id; ids beyond BIGINT name nothing (and must not reach the database)."""
        pk = int(self.kwargs["id"])
        if pk > MAX_ID:
            raise RestError(*self.not_found, 404)
        return pk

    def list(self, request, *args, **kwargs):
        """A readers' list without validators reads the content state in the statement of
        its rows and keys its total and kept ids by the state this process read last: when
        the two differ (content changed in between), the list is read again keyed by the
        state its rows saw, and an error found under the guessed state (a page past a total
        kept for it) is judged by the state read first. Why: the state's own query is a
        round trip on every list (docs/benchmarks.md, "REST lists: one statement each")."""
        listing = self.listing()
        assumed = selectors.last_content_state()
        if has_preconditions(request) or assumed is None or not listing.readers:
            return self.state_first_list(listing)
        try:
            page = self.fetch(listing, state=assumed, with_state=True)
        except RestError:
            return self.state_first_list(listing)
        state = page.state
        if state is None:  # no row carried it (an empty page, a shape read plainly)
            state = selectors.content_state(now=listing.now)
        if state != assumed:
            page = self.fetch(listing, state=state)
        validators = Validators(request, user_key=listing.reader, now=listing.now, state=state)
        return validators.apply(self.paginator.get_paginated_response(self.render(page)))

    def state_first_list(self, listing: Listing):
        validators = Validators(self.request, user_key=listing.reader, now=listing.now)
        not_modified = validators.not_modified(self.request)
        if not_modified is not None:
            return not_modified
        page = self.fetch(listing, state=validators.state)
        return validators.apply(self.paginator.get_paginated_response(self.render(page)))

    def fetch(self, listing: Listing, *, state, with_state: bool = False) -> Page:
        start, size = bounds(listing.params)
        page = queries.fetch(listing, start, size, state=state, with_state=with_state)
        return self.paginator.paginate_page(page, self.request, listing.params)

    def retrieve(self, request, *args, **kwargs):
        validators = Validators(request, user_key=self.user_key(), now=self.now)
        not_modified = validators.not_modified(request)
        if not_modified is not None:
            return not_modified
        page = queries.one(self.object_listing(self.object_id()))
        if not page.items:
            raise RestError(*self.not_found, 404)
        return validators.apply(Response(self.render(page)[0]))

    def object_listing(self, pk: int) -> Listing:
        """An object is its list with `include=<id>`: the same visibility, the same SQL."""
        listing = self.listing()
        params = {**listing.params, "include": [pk]}
        if listing.drafts and self.model in listing.drafts:
            params["status"] = ["any"]
        return listing.with_params(params)

    def render(self, page: Page):
        """The page's items as the answer's JSON: a page PostgreSQL wrote whole goes out as
        written (api/rowjson.py), any other through the read serializer and `_fields`."""
        if isinstance(page.items, JsonPage):
            return orjson.Fragment(page.items.body())
        return self.shape(self.represent(page.items))

    def serializer_context(self, **extra) -> dict:
        return {
            "now": timezone.now(),
            "tz": timezone.get_current_timezone(),
            "context": self.params.get("context", "view"),
            "embed": self.params.get("_embed"),
            # A row PostgreSQL wrote goes out as written when nothing reshapes it.
            "row_as_json": rowjson.written_whole(self.params),
            **extra,
        }

    def represent(self, rows, **extra) -> list[dict]:
        context = self.serializer_context(**extra)
        serializer = self.get_serializer_class()(context=context)
        return [serializer.to_representation(row) for row in rows]
