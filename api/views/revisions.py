"""WordPress's revisions of an entry, read from django-reversion (editors only)."""

from __future__ import annotations

from django.db.models import Count, Max
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.response import Response
from reversion.models import Version

from glossary.models import Article, Term

from ..conditional import Validators
from ..exceptions import RestError
from ..pagination import WordPressPagination
from ..params import MAX_ID, DetailParams, RevisionParams
from ..permissions import can_edit
from ..serializers import RevisionSerializer
from .base import ID, NOT_MODIFIED, TOTALS, RestMixin, errors

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
