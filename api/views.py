"""The REST routes: thin DRF viewsets over glossary selectors, search and services.

A request runs DRF's pipeline (authentication, permissions, throttles), then `initial()`
validates the query string with the route's parameter serializer (api/params.py) before
anything reads it. Reads start from `visible()`/`get_queryset()`, i.e. `published()` for
everyone who may not see drafts; a list is filter backends + WordPress pagination + one
links query for the page (readers' SQL compiled once per request shape, api/queries.py); an
object is read as its list with `include=<id>` (a readers' term or article: its row and links
in one statement, `selectors.entry_with_links`). Writes validate the body's
shape (api/serializers.py) and hand model-named changes to glossary.services, which applies
the admin's rules. Conditional GETs are answered from the content version (api/conditional.py).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import viewsets
from rest_framework.permissions import SAFE_METHODS, AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView
from reversion.models import Version

from glossary import search, selectors, services
from glossary.models import Article, Category, Series, Status, Term

from . import links, rowjson, schema
from .conditional import Validators, has_preconditions, precondition_failed
from .exceptions import RestError, invalid_params
from .filters import (
    ArticleRelationFilter,
    DateFilter,
    EngineSearchFilter,
    IdentityFilter,
    TaxonomyFilter,
    TermRelationFilter,
    WordPressOrdering,
)
from .pagination import HEADERS, WordPressPagination
from .params import (
    MAX_ID,
    ArticleParams,
    CategoryParams,
    DeleteParams,
    DetailParams,
    GlobalParams,
    RevisionParams,
    SearchParams,
    SeriesParams,
    TermParams,
    validate_query,
)
from .permissions import can_edit, can_see_drafts
from .queries import CompiledList, JsonPage, RankedList, Row, SearchPage, WalkedList
from .rowjson import ROW_JSON
from .serializers import (
    ArticleSerializer,
    ArticleWriteSerializer,
    CategorySerializer,
    DeletedSerializer,
    ErrorSerializer,
    RevisionSerializer,
    SearchResultSerializer,
    SeriesSerializer,
    TermSerializer,
    TermWriteSerializer,
    wp_dates,
)

EXPOSE = ", ".join((*HEADERS, "ETag", "Last-Modified", "Allow", "Retry-After"))
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

    def visible(self, model):
        """Every read starts here: `published()` for whoever may not see drafts (and for the
        bare views api/queries.py compiles readers' lists on, which have no request)."""
        if self.request is not None and can_see_drafts(self.request.user, model):
            return model.objects.all()
        return model.objects.published(now=self.now)

    def user_key(self) -> str:
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
    lookup_url_kwarg = "id"
    lookup_value_regex = "[0-9]+"
    pagination_class = WordPressPagination

    def get_queryset(self):
        return self.visible(self.model)

    def object_id(self) -> int:
        """The route's id; ids beyond BIGINT name nothing (and must not reach the database)."""
        pk = int(self.kwargs["id"])
        if pk > MAX_ID:
            raise RestError(*self.not_found, 404)
        return pk

    def conditional(self):
        validators = Validators(self.request, user_key=self.user_key(), now=self.now)
        self.content_state = validators.state  # what the list's total is cached by
        return validators, validators.not_modified(self.request)

    content_state = None
    # Whether the compiled rows of a list carry the content state (api/queries.py), and the
    # state the first of them carried.
    state_in_rows = False
    read_state = None
    _UNREAD = object()

    def list(self, request, *args, **kwargs):
        """A list keyed by the content state (its ETag, its total, its walked ids). A request
        with validators reads the state first (a 304 reads nothing else). Any other readers'
        list reads the state in the statement of its rows, and keys the rest by the state
        this process read last: when the two differ (content changed in between), the list
        is read again keyed by the state its rows saw, and an error found under the guessed
        state (a page past a total kept for it) is judged by the state-first path. Why: the
        state query cost a round trip, ~0.2 ms of the server's CPU, on every list (issue 12)."""
        assumed = selectors.last_content_state()
        if has_preconditions(request) or assumed is None or not self.compiled_reads():
            return self.state_first_list()
        self.content_state, self.state_in_rows, self.read_state = assumed, True, self._UNREAD
        try:
            response = self.list_response()
        except RestError:
            # Found under the guessed state (a page past the end of a total kept for it): the
            # list as it is now may hold that page, so the state decides first.
            self.state_in_rows = False
            return self.state_first_list()
        finally:
            self.state_in_rows = False
        state = self.read_state
        if state is self._UNREAD:  # no row carried it (an empty page, a shape read plainly)
            state = selectors.content_state(now=self.now)
        if state != assumed:
            self.content_state = state
            response = self.list_response()
        validators = Validators(self.request, user_key=self.user_key(), now=self.now, state=state)
        return validators.apply(response)

    def state_first_list(self):
        validators, not_modified = self.conditional()
        if not_modified is not None:
            return not_modified
        return validators.apply(self.list_response())

    def take_state(self, values: dict) -> None:
        """Pops the content state a compiled row carries (`state_in_rows`): the first row's
        is the statement's (every row of one statement carries the same)."""
        if not self.state_in_rows:
            return
        if self.read_state is self._UNREAD:
            self.read_state = selectors.state_from_row(values)
        else:
            for name in selectors.STATE_COLUMNS:
                del values[name]

    def list_response(self):
        compiled = self.compiled_reads()
        found = self.search_page() if compiled else None
        if found is not None:  # the search and its page in one statement
            rows = self.paginate_queryset(found)
        elif compiled:
            self.rank_search()
            ranked = self.params.get("_ranked")
            if ranked is not None and RankedList.applies(self.params):
                rows = self.paginate_queryset(RankedList(self, ranked))
            else:
                rows = self.paginate_queryset(WalkedList.of(self) or CompiledList(self))
        else:
            self.rank_search()
            rows = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        if isinstance(rows, JsonPage):  # written whole by the statement: nothing to reshape
            return self.paginator.page_response(rows.body())
        data = self.shape(self.represent(rows))
        return self.get_paginated_response(data)

    def search_page(self):
        """A readers' search list read with its page in one statement (`SearchPage`), when
        it can be."""
        return None

    def rank_search(self) -> None:
        """Run the search engine before the SQL of the list is built: its ranked ids become a
        parameter (`_ranked`) of that SQL (api/filters.py: EngineSearchFilter)."""

    def compiled_reads(self) -> bool:
        """Readers' lists run SQL compiled once per request shape (api/queries.py)."""
        return not any(can_see_drafts(self.request.user, m) for m in (self.model, Term, Article))

    def retrieve(self, request, *args, **kwargs):
        validators, not_modified = self.conditional()
        if not_modified is not None:
            return not_modified
        row, extra = self.read_object(self.object_id())
        return validators.apply(Response(self.shape(self.represent([row], **extra))[0]))

    def read_object(self, pk: int):
        """One object as its list would give it (`include=<id>`): the same visibility, the
        same compiled SQL for readers, the same links query."""
        if self.compiled_reads():
            listing = self.params
            self.params = {**listing, "include": [pk]}
            try:
                rows = CompiledList(self)[0:1]
            finally:
                self.params = listing
        else:
            rows = list(self.filter_queryset(self.get_queryset()).filter(pk=pk)[:1])
        if not rows:
            raise RestError(*self.not_found, 404)
        return rows[0], {}

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

    def with_links(self, queryset, now):
        """Readers' compiled reads (api/queries.py): `queryset` with whatever columns of
        the rows' links the statement reads too, and their names (none here)."""
        return queryset, ()

    def row_of(self, values: dict) -> Row:
        self.take_state(values)
        return Row(self.model._meta, values)

    def represent(self, rows, **extra) -> list[dict]:
        context = self.serializer_context(**extra)
        serializer = self.get_serializer_class()(context=context)
        return [serializer.to_representation(row) for row in rows]


class EntryViewSet(ContentViewSet):
    """Terms and articles: publishable, written by editors."""

    write_serializer_class = None
    field_names: dict[str, str] = {}

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        statuses = set(self.params.get("status") or ["publish"])
        if statuses != {"publish"} and not can_see_drafts(request.user, self.model):
            raise RestError(
                "rest_forbidden_status",
                "Szkice i wpisy zaplanowane widzą tylko redaktorzy.",
                403 if request.user.is_authenticated else 401,
            )

    def get_queryset(self):
        if self.action != "list":
            return self.visible(self.model)
        statuses = set(self.params.get("status") or ["publish"])
        if statuses == {"publish"}:
            return self.model.objects.published(now=self.now)
        objects = self.model.objects
        if "any" in statuses:
            return objects.all()
        condition = Q(pk__in=[])
        if "publish" in statuses:
            condition |= Q(pk__in=objects.published().values("pk"))
        if "future" in statuses:
            condition |= Q(pk__in=objects.drafts().filter(status=Status.PUBLISHED).values("pk"))
        if "draft" in statuses:
            condition |= Q(status=Status.DRAFT)
        return objects.filter(condition)

    def retrieve(self, request, *args, **kwargs):
        """An entry's own route: its ETag carries the entry's token (api/conditional.py),
        which a later write's If-Match is compared with. A request with validators is
        compared first, after the state query alone (a 304 reads nothing else); any other
        read gets the state its ETag is keyed by in the statement of its row (`read_entry`)."""
        if has_preconditions(request) or not self.compiled_reads():
            validators = Validators(self.request, user_key=self.user_key())
            not_modified = validators.not_modified(request, entry=True)
            if not_modified is not None:
                return not_modified
            row, extra = self.read_object(self.object_id())
        elif rowjson.applies(self.model, self.params):
            row, extra, state = self.read_built(self.object_id()), {}, self.read_state
            validators = Validators(self.request, user_key=self.user_key(), state=state)
        else:
            row, extra, state = self.read_entry(self.object_id(), state=True)
            validators = Validators(self.request, user_key=self.user_key(), state=state)
        validators.for_entry(row)
        return validators.apply(Response(self.shape(self.represent([row], **extra))[0]))

    def read_object(self, pk: int):
        """Readers' entry: its row and its links in one statement (`read_entry`)."""
        if not self.compiled_reads():
            return super().read_object(pk)
        row, extra, _state = self.read_entry(pk)
        return row, extra

    def read_built(self, pk: int) -> Row:
        """A readers' entry as PostgreSQL writes it (api/rowjson.py), with the content state,
        in one statement: its list's statement with `include=<id>` (the same object, byte
        for byte). Why: the serializers' form read every link of the entry (what `_embed`
        shows) to give their ids, and cost ~1.2× MCP `get_term` (issue 12)."""
        self.state_in_rows, self.read_state = True, self._UNREAD
        try:
            row, _extra = ContentViewSet.read_object(self, pk)
        finally:
            self.state_in_rows = False
        return row  # a found row carried the state (`take_state`): `read_state`

    def read_entry(self, pk: int, *, state: bool = False):
        """A readers' entry, its links and (`state`) the content state, in one statement
        (`entry_with_links`, compiled once): the same row and links as its list with
        `include=<id>` and `links_for`."""
        found = selectors.entry_with_links(
            model=self.model, pk=pk, fields=self.ROW_FIELDS, state=state
        )
        if found is None:
            raise RestError(*self.not_found, 404)
        values, entry_links, read = found
        return Row(self.model._meta, values), {"links": {pk: entry_links}}, read

    @property
    def published_only(self) -> bool:
        return set(self.params.get("status") or ["publish"]) == {"publish"}

    def search_page(self):
        if self.params.get("search") and self.published_only:
            return SearchPage.of(self)
        return None

    def rank_search(self) -> None:
        text = self.params.get("search")
        if text and self.published_only:
            kind = "term" if self.model is Term else "article"
            self.params["_ranked"] = search.ranked_ids(kind=kind, query=text)

    def filter_queryset(self, queryset):
        queryset = super().filter_queryset(queryset)
        heavy = {"body"} if self.params.get("context") != "edit" else set()
        return queryset.defer(*self.DEFERRED, *heavy)

    def with_links(self, queryset, now):
        """A readers' list reads its rows' links in the same statement: all of them for
        `_embed`, else only the ids a row shows (`selectors.with_entry_links`)."""
        full = bool(self.params.get("_embed"))
        return (
            selectors.with_entry_links(queryset, model=self.model, now=now, full=full),
            selectors.link_columns(self.model, full=full),
        )

    def row_of(self, values: dict) -> Row:
        self.take_state(values)
        if ROW_JSON in values:  # the object itself (api/rowjson.py): its link ids are in it
            return Row(self.model._meta, values)
        full = bool(self.params.get("_embed"))
        links = selectors.links_from_row(values, model=self.model, full=full)
        row = Row(self.model._meta, values)
        row.links = links
        return row

    def represent(self, rows, **extra) -> list[dict]:
        if "links" not in extra:
            if rows and all(hasattr(row, ROW_JSON) for row in rows):
                extra["links"] = {}  # built into each row's object
            elif rows and all(getattr(row, "links", None) is not None for row in rows):
                extra["links"] = {row.pk: row.links for row in rows}
            else:
                drafts = self.params.get("context") == "edit"
                extra["links"] = self.links_for([row.pk for row in rows], drafts)
        return super().represent(rows, **extra)

    # --- writes ---
    def _valid_body(self, request):
        if not isinstance(request.data, dict):  # DRF would name Python's type ("list")
            kind = {list: "tablica", str: "tekst", bool: "wartość logiczna"}.get(
                type(request.data), "liczba" if isinstance(request.data, int | float) else "null"
            )
            message = (
                f'Treść żądania musi być obiektem JSON ({{"pole": wartość, …}}), a jest: {kind}.'
            )
            raise invalid_params({"body": [("invalid_type", message)]})
        serializer = self.write_serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer

    def _write(self, request, instance, status_code, serializer=None):
        serializer = serializer or self._valid_body(request)
        changes = serializer.to_model(serializer.validated_data, instance=instance)
        entry = self.save(changes, instance)
        self.params = {**self.params, "context": "edit"}
        row, extra = self.read_for_edit(entry.pk)
        data = self.represent([row], **extra)[0]
        if getattr(entry, "warnings", None):  # saved, but worth a look (glossary.forms)
            data["warnings"] = entry.warnings
        headers = {"Location": data["_links"]["self"][0]["href"]} if status_code == 201 else {}
        validators = Validators(request, user_key=self.user_key())
        validators.for_entry(row)
        if validators.etag is not None:  # the tag the next write's If-Match may send
            headers["ETag"] = validators.etag
        return Response(data, status=status_code, headers=headers)

    def read_for_edit(self, pk: int):
        row = self.model.objects.get(pk=pk)
        return row, {"links": self.links_for([pk], True)}

    def create(self, request, *args, **kwargs):
        return self._write(request, None, 201)

    def update(self, request, *args, **kwargs):
        """WordPress edits partially with POST, PUT and PATCH alike. A malformed body is a
        400 whatever the preconditions say (the request could never succeed); then If-Match:
        the row is locked from the comparison to the write, so no other save comes between."""
        serializer = self._valid_body(request)
        with transaction.atomic():
            return self._write(request, self._instance(for_write=True), 200, serializer)

    def partial_update(self, request, *args, **kwargs):
        return self.update(request, *args, **kwargs)

    def _instance(self, *, for_write: bool = False):
        queryset = self.visible(self.model)
        if for_write and "HTTP_IF_MATCH" in request_meta(self.request):
            queryset = queryset.select_for_update()
        instance = queryset.filter(pk=self.object_id()).first()
        if instance is None:
            raise RestError(*self.not_found, 404)
        if for_write and precondition_failed(self.request, instance):
            raise RestError(
                "rest_precondition_failed",
                "Ktoś zapisał ten wpis, odkąd go pobrano (If-Match nie pasuje do jego ETag): "
                "pobierz go ponownie, przenieś zmiany i wyślij je z nowym ETag.",
                412,
                modified_gmt=wp_dates(instance.updated_at)[1],
            )
        return instance

    def destroy(self, request, *args, **kwargs):
        if not self.params.get("force"):
            # WordPress answers 501 here; the request is the client's to fix, so 400.
            raise RestError(
                "rest_trash_not_supported",
                "Wpisy nie trafiają do kosza; dodaj force=true, aby usunąć na stałe.",
                400,
            )
        with transaction.atomic():
            instance = self._instance(for_write=True)
            self.params = {**self.params, "context": "edit"}
            row, extra = self.read_for_edit(instance.pk)
            previous = self.represent([row], **extra)[0]
            services.delete_entries(entries=[instance], editor=request.user)
        return Response({"deleted": True, "previous": previous})


def request_meta(request) -> dict:
    return getattr(request, "_request", request).META


_PARAMS = {"list": None, "retrieve": DetailParams, "create": GlobalParams, "update": GlobalParams,
         "partial_update": GlobalParams, "edit": GlobalParams, "destroy": DeleteParams}  # fmt: skip


def _entry_schema(read, write, params, name: str):
    many = read(many=True)
    detail = errors(400, 401, 403, 404)
    views = extend_schema_view(
        list=extend_schema(
            summary=f"Lista: {name}", parameters=[params, *TOTALS],
            responses={200: many, 304: NOT_MODIFIED,
                       **errors(400, 401, 403, 429)},
        ),
        retrieve=extend_schema(
            summary=f"Jeden obiekt: {name}", parameters=[ID, DetailParams],
            responses={200: read, 304: NOT_MODIFIED, **errors(400, 401, 403, 404, 429)},
        ),
        create=extend_schema(summary=f"Utwórz: {name}", request=write,
                             responses={201: read, **errors(400, 401, 403, 413, 415, 429)}),
        update=extend_schema(summary=f"Zmień (PUT): {name}", request=write,
                             parameters=[ID, IF_MATCH],
                             responses={200: read, **detail, **errors(412, 413, 415, 429)}),
        partial_update=extend_schema(summary=f"Zmień (PATCH): {name}", request=write,
                                     parameters=[ID, IF_MATCH],
                                     responses={200: read, **detail,
                                                **errors(412, 413, 415, 429)}),
        destroy=extend_schema(summary=f"Usuń: {name}", parameters=[ID, DeleteParams, IF_MATCH],
                              responses={200: DeletedSerializer, **detail, **errors(412, 429)}),
    )  # fmt: skip
    edit = extend_schema(
        summary=f"Zmień (POST, jak w WordPressie): {name}", request=write,
        parameters=[ID, IF_MATCH], operation_id=f"{read.kind}s_edit",
        responses={200: read, **detail, **errors(412, 413, 415, 429)},
    )  # fmt: skip

    def decorate(cls):
        # drf-spectacular's extend_schema_view knows only DRF's action names: `edit` (POST to an
        # object's route) is described on a method of the class itself.
        def edit_method(self, request, *args, **kwargs):
            return self.update(request, *args, **kwargs)

        cls.edit = edit(edit_method)
        return views(cls)

    return decorate


@_entry_schema(TermSerializer, TermWriteSerializer, TermParams, "pojęcia")
class TermViewSet(EntryViewSet):
    model = Term
    serializer_class = TermSerializer
    write_serializer_class = TermWriteSerializer
    params_classes = {**_PARAMS, "list": TermParams}
    filter_backends = [IdentityFilter, DateFilter, TermRelationFilter, EngineSearchFilter,
                       WordPressOrdering]  # fmt: skip
    not_found = ("rest_term_invalid_id", "Nie ma pojęcia o tym identyfikatorze.")
    # Model/form names in the admin's error messages -> the API's field names.
    field_names = {
        "name": "title", "body": "content", "short_definition": "excerpt",
        "published_at": "date", "slug": "slug", "synonyms": "synonyms",
        "categories": "categories", "related": "related", "status": "status",
        "code:duplicate_name": "title", "code:definition_required": "excerpt",
        "code:published_at_required": "date", "code:conflict": "slug",
    }  # fmt: skip
    DEFERRED = ("search_text", "search_names", "stems_names", "stems_definition", "stems_body",
                "typo_keys", "name_folded", "sort_key", "letter")  # fmt: skip
    # What the read serializer shows of a published term (readers' compiled reads; no
    # created_at: a published entry always has its publication date, a database constraint).
    ROW_FIELDS = ("id", "status", "published_at", "updated_at", "name", "slug",
                  "short_definition", "body_html", "synonyms")  # fmt: skip

    def links_for(self, pks, drafts):
        return selectors.term_links(pks=pks, include_drafts=drafts)

    def save(self, changes, instance):
        return services.write_term(editor=self.request.user, changes=changes, term=instance)


@_entry_schema(ArticleSerializer, ArticleWriteSerializer, ArticleParams, "artykuły")
class ArticleViewSet(EntryViewSet):
    model = Article
    serializer_class = ArticleSerializer
    write_serializer_class = ArticleWriteSerializer
    params_classes = {**_PARAMS, "list": ArticleParams}
    filter_backends = [IdentityFilter, DateFilter, ArticleRelationFilter, EngineSearchFilter,
                       WordPressOrdering]  # fmt: skip
    not_found = ("rest_article_invalid_id", "Nie ma artykułu o tym identyfikatorze.")
    field_names = {
        "title": "title", "body": "content", "lead": "excerpt", "published_at": "date",
        "slug": "slug", "terms": "terms", "series": "series", "series_order": "series_order",
        "author": "author", "status": "status",
        "code:duplicate_series_order": "series_order", "code:series_order_required": "series_order",
        "code:published_at_required": "date", "code:conflict": "slug",
    }  # fmt: skip
    DEFERRED = ("search_text", "title_folded", "stems_title", "stems_lead", "stems_body")
    ROW_FIELDS = ("id", "status", "published_at", "updated_at", "title", "slug",
                  "lead", "body_html", "author_id", "series_id", "series_order")  # fmt: skip

    def links_for(self, pks, drafts):
        return selectors.article_links(pks=pks, include_drafts=drafts)

    def save(self, changes, instance):
        return services.write_article(editor=self.request.user, changes=changes, article=instance)


REV_ID = OpenApiParameter(
    "rev_id", {"type": "integer", "minimum": 1, "maximum": MAX_ID}, OpenApiParameter.PATH,
    description="Identyfikator rewizji.",
)  # fmt: skip


def _revisions_schema(name: str):
    return extend_schema_view(
        list=extend_schema(
            summary=f"Rewizje: {name} (tylko redaktorzy)", parameters=[ID, RevisionParams, *TOTALS],
            responses={200: RevisionSerializer(many=True), 304: NOT_MODIFIED,
                       **errors(400, 401, 403, 404, 429)},
        ),
        retrieve=extend_schema(
            summary=f"Jedna rewizja: {name} (tylko redaktorzy)",
            parameters=[ID, REV_ID, DetailParams],
            responses={200: RevisionSerializer, 304: NOT_MODIFIED,
                       **errors(400, 401, 403, 404, 429)},
        ),
    )  # fmt: skip


class RevisionViewSet(RestMixin, viewsets.GenericViewSet):
    """WordPress's revisions of an entry (`/<type>s/<id>/revisions`, `/revisions/<rev_id>`),
    read from django-reversion, newest first. Only people who may change the entry see them
    (WordPress: `edit_post`), since a revision holds unpublished texts. Queries per request:
    the content state and the entry's revision marker (ETag, `conditional`), the entry, the
    page of versions with their revisions (and a COUNT when the page is not the whole list),
    whatever many revisions there are; a 304 stops after the first two."""

    serializer_class = RevisionSerializer
    pagination_class = WordPressPagination
    http_method_names = ["get", "head", "options"]
    lookup_url_kwarg = "rev_id"
    lookup_value_regex = "[0-9]+"
    params_classes = {"list": RevisionParams, "retrieve": DetailParams}
    kind = ""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method != "OPTIONS" and not can_edit(request.user, self.model):
            raise RestError(
                "rest_cannot_read",
                "Rewizje widzą tylko redaktorzy, którzy mogą zmieniać ten wpis.",
                403 if request.user.is_authenticated else 401,
            )

    def _number(self, name: str, error: tuple[str, str]) -> int:
        pk = int(self.kwargs[name])
        if pk > MAX_ID:
            raise RestError(*error, 404)
        return pk

    def versions(self):
        pk = self._number("id", self.parent_not_found)
        if not self.model.objects.filter(pk=pk).exists():
            raise RestError(*self.parent_not_found, 404)
        return (
            Version.objects.get_for_object_reference(self.model, pk)
            .select_related("revision")
            .order_by("-revision__date_created", "-pk")
        )

    def serializer_context(self) -> dict:
        return {"now": timezone.now(), "kind": self.kind,
                "context": self.params.get("context", "view")}  # fmt: skip

    def conditional(self):
        """ETag/304 of a revisions read: the content state (every save of the entry adds a
        revision and bumps it), plus the number and the newest id of the entry's revisions,
        which change when revisions are deleted (no glossary table is written then)."""
        pk = self._number("id", self.parent_not_found)
        marker = Version.objects.get_for_object_reference(self.model, pk).aggregate(
            count=Count("pk"), newest=Max("pk")
        )
        validators = Validators(
            self.request, user_key=self.user_key(), extra=(marker["count"], marker["newest"])
        )
        return validators, validators.not_modified(self.request)

    def list(self, request, *args, **kwargs):
        validators, not_modified = self.conditional()
        if not_modified is not None:
            return not_modified
        versions = self.versions()
        if self.params.get("order") == "asc":
            versions = versions.reverse()
        rows = self.paginate_queryset(versions)
        serializer = RevisionSerializer(context=self.serializer_context())
        data = self.shape([serializer.to_representation(row) for row in rows])
        return validators.apply(self.get_paginated_response(data))

    def retrieve(self, request, *args, **kwargs):
        validators, not_modified = self.conditional()
        if not_modified is not None:
            return not_modified
        not_found = ("rest_post_invalid_id", "Nie ma takiej rewizji tego wpisu.")
        version = self.versions().filter(pk=self._number("rev_id", not_found)).first()
        if version is None:
            raise RestError(*not_found, 404)
        serializer = RevisionSerializer(context=self.serializer_context())
        return validators.apply(Response(self.shape([serializer.to_representation(version)])[0]))


@_revisions_schema("pojęcia")
class TermRevisionViewSet(RevisionViewSet):
    model = Term
    kind = "term"
    parent_not_found = ("rest_post_invalid_parent", "Nie ma pojęcia o tym identyfikatorze.")


@_revisions_schema("artykuły")
class ArticleRevisionViewSet(RevisionViewSet):
    model = Article
    kind = "article"
    parent_not_found = ("rest_post_invalid_parent", "Nie ma artykułu o tym identyfikatorze.")


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
    filter_backends = [TaxonomyFilter, IdentityFilter, WordPressOrdering]
    http_method_names = ["get", "head", "options"]

    def get_queryset(self):
        return self.model.objects.all()


@_taxonomy_schema(CategorySerializer, CategoryParams, "kategorie")
class CategoryViewSet(TaxonomyViewSet):
    model = Category
    serializer_class = CategorySerializer
    params_classes = {"list": CategoryParams, "retrieve": DetailParams}
    not_found = ("rest_term_invalid", "Nie ma kategorii o tym identyfikatorze.")


@_taxonomy_schema(SeriesSerializer, SeriesParams, "serie")
class SeriesViewSet(TaxonomyViewSet):
    model = Series
    serializer_class = SeriesSerializer
    params_classes = {"list": SeriesParams, "retrieve": DetailParams}
    not_found = ("rest_term_invalid", "Nie ma serii o tym identyfikatorze.")


@extend_schema_view(
    list=extend_schema(
        summary="Szukaj (ta sama wyszukiwarka i kolejność co na stronie i w MCP)",
        parameters=[SearchParams, *TOTALS],
        responses={200: SearchResultSerializer(many=True), 304: NOT_MODIFIED,
                   **errors(400, 401, 403, 429)},
    )
)  # fmt: skip
class SearchViewSet(RestMixin, viewsets.GenericViewSet):
    """WordPress's /search: ranked hits of one kind (`type`), at most the engine's best 100."""

    serializer_class = SearchResultSerializer
    params_classes = {"list": SearchParams}
    pagination_class = WordPressPagination

    def list(self, request, *args, **kwargs):
        validators = Validators(request, user_key="anonymous")  # published hits only
        not_modified = validators.not_modified(request)
        if not_modified is not None:
            return not_modified
        text = self.params.get("search")
        engine = search.term_search if self.params["type"] == "term" else search.article_search
        hits = engine(query=text, limit=search.MAX_LIMIT) if text else []
        page = self.paginate_queryset(hits)
        serializer = SearchResultSerializer()
        wanted = set(self.params.get("_embed") or ())
        items = []
        for hit in page:
            item = serializer.to_representation(hit)
            if "*" in wanted or "self" in wanted:
                item["_embedded"] = {"self": [links.embed_link(hit)]}
            items.append(item)
        return validators.apply(self.get_paginated_response(self.shape(items)))


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
