"""Terms and articles: publishable entries that readers list and read, and editors write.

Reads go through the collection's `Resource` (api/queries.py); an entry's own route reads the
entry with the content state its ETag is keyed by, in one statement. Writes validate the
body's shape (api/serializers.py) and hand model-named changes to glossary.services, which
applies the admin's rules.
"""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response

from glossary import selectors, services
from glossary.models import Article, Term

from .. import queries
from ..conditional import Validators, has_preconditions, precondition_failed
from ..exceptions import RestError, invalid_params
from ..filters import (
    ArticleRelationFilter,
    DateFilter,
    EngineSearchFilter,
    IdentityFilter,
    TermRelationFilter,
    WordPressOrdering,
)
from ..listing import Resource
from ..params import ArticleParams, DeleteParams, DetailParams, GlobalParams, TermParams
from ..permissions import can_see_drafts
from ..rowjson import ROW_JSON
from ..serializers import (
    ArticleSerializer,
    ArticleWriteSerializer,
    DeletedSerializer,
    TermSerializer,
    TermWriteSerializer,
    wp_dates,
)
from .base import ID, IF_MATCH, NOT_MODIFIED, TOTALS, ContentViewSet, errors


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

    def retrieve(self, request, *args, **kwargs):
        """An entry's own route: its ETag carries the entry's token (api/conditional.py),
        which a later write's If-Match is compared with. A request with validators is
        compared first, after the state query alone (a 304 reads nothing else); a readers'
        read without them gets the state its ETag is keyed by in the statement of its row."""
        listing = self.object_listing(self.object_id())
        state_first = has_preconditions(request) or not listing.readers
        if state_first:
            validators = Validators(request, user_key=listing.reader)
            not_modified = validators.not_modified(request, entry=True)
            if not_modified is not None:
                return not_modified
        page = queries.one(listing, with_state=not state_first)
        if not page.items:
            raise RestError(*self.not_found, 404)
        if not state_first:
            validators = Validators(request, user_key=listing.reader, state=page.state)
        validators.for_entry(page.items[0])
        return validators.apply(Response(self.render(page)[0]))

    def links_for(self, pks, drafts):
        return self.resource.links(pks, drafts)

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
        row, extra = self.read_for_edit(entry.pk)
        data = self.represent([row], context="edit", **extra)[0]
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
        queryset = self.listing().visible(self.model)
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
            row, extra = self.read_for_edit(instance.pk)
            previous = self.represent([row], context="edit", **extra)[0]
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
    not_found = ("rest_term_invalid_id", "Nie ma pojęcia o tym identyfikatorze.")
    # Model/form names in the admin's error messages -> the API's field names.
    field_names = {
        "name": "title", "body": "content", "short_definition": "excerpt",
        "published_at": "date", "slug": "slug", "synonyms": "synonyms",
        "categories": "categories", "related": "related", "status": "status",
        "english_name": "english_name", "english_definition": "english_definition",
        "asked_as": "asked_as",
        "code:duplicate_name": "title", "code:definition_required": "excerpt",
        "code:published_at_required": "date", "code:conflict": "slug",
    }  # fmt: skip
    resource = Resource(
        Term,
        filters=(IdentityFilter, DateFilter, TermRelationFilter, EngineSearchFilter,
                 WordPressOrdering),
        # What the read serializer shows of a published term (readers' compiled reads; no
        # created_at: a published entry always has its publication date, a constraint).
        row_fields=("id", "status", "published_at", "updated_at", "name", "slug",
                    "short_definition", "body_html", "synonyms", "english_name",
                    "english_definition"),
        deferred=("search_text", "search_names", "stems_names", "stems_definition",
                  "stems_body", "typo_keys", "name_folded", "sort_key", "letter"),
        links=lambda pks, drafts: selectors.term_links(pks=pks, include_drafts=drafts),
    )  # fmt: skip

    def save(self, changes, instance):
        return services.write_term(editor=self.request.user, changes=changes, term=instance)


@_entry_schema(ArticleSerializer, ArticleWriteSerializer, ArticleParams, "artykuły")
class ArticleViewSet(EntryViewSet):
    model = Article
    serializer_class = ArticleSerializer
    write_serializer_class = ArticleWriteSerializer
    params_classes = {**_PARAMS, "list": ArticleParams}
    not_found = ("rest_article_invalid_id", "Nie ma artykułu o tym identyfikatorze.")
    field_names = {
        "title": "title", "body": "content", "lead": "excerpt", "published_at": "date",
        "slug": "slug", "terms": "terms", "series": "series", "series_order": "series_order",
        "author": "author", "status": "status",
        "code:duplicate_series_order": "series_order", "code:series_order_required": "series_order",
        "code:published_at_required": "date", "code:conflict": "slug",
    }  # fmt: skip
    resource = Resource(
        Article,
        filters=(IdentityFilter, DateFilter, ArticleRelationFilter, EngineSearchFilter,
                 WordPressOrdering),
        row_fields=("id", "status", "published_at", "updated_at", "title", "slug",
                    "lead", "body_html", "author_id", "series_id", "series_order"),
        deferred=("search_text", "title_folded", "stems_title", "stems_lead", "stems_body"),
        links=lambda pks, drafts: selectors.article_links(pks=pks, include_drafts=drafts),
    )  # fmt: skip

    def save(self, changes, instance):
        return services.write_article(editor=self.request.user, changes=changes, article=instance)
