"""Query parameters, one DRF serializer per collection: they validate a request's query string
(a bad value is a 400 `rest_invalid_param` naming it, before anything reads it) and describe
the parameters to drf-spectacular, from which the OpenAPI document, the `/wp-json/` index's
route arguments and OPTIONS are all built. One declaration, three uses.

Lists are accepted the three ways WordPress accepts them: `include=1,2`, `include=1&include=2`
and `include[]=1&include[]=2`.
"""

import re
from functools import cache, cached_property

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers
from rest_framework.fields import empty, get_error_detail
from rest_framework.serializers import as_serializer_error
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from glossary.search.query import without_controls

from .exceptions import RestError, invalid_params

MAX_ID = 2**63 - 1  # BIGINT: larger ids are rejected here, not by the database
MAX_LIST = 100
MAX_SEARCH = 200
CONTEXTS = ("view", "embed", "edit")
STATUSES = ("publish", "future", "draft", "any")


class ListParam(serializers.ListField):
    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", MAX_LIST)
        super().__init__(**kwargs)

    def get_value(self, dictionary):
        if not hasattr(dictionary, "getlist"):
            return super().get_value(dictionary)
        raw = dictionary.getlist(self.field_name) + dictionary.getlist(self.field_name + "[]")
        if not raw:
            return empty
        return [item.strip() for value in raw for item in value.split(",") if item.strip()]


def ids(help_text: str) -> ListParam:
    return ListParam(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID), help_text=help_text
    )


class SearchParam(serializers.CharField):
    """Search text: control characters become spaces (PostgreSQL rejects NUL), whitespace is
    collapsed, at most 200 characters are kept, as on the search page."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", True)
        kwargs.setdefault(
            "help_text", "Szukana fraza (ta sama wyszukiwarka co na stronie i w MCP)."
        )
        super().__init__(**kwargs)
        # NUL becomes a space below, not an error; surrogates are refused in one regex scan.
        self.validators = [
            NoSurrogates() if isinstance(v, ProhibitSurrogateCharactersValidator) else v
            for v in self.validators
            if not isinstance(v, ProhibitNullCharactersValidator)
        ]

    def to_internal_value(self, data):
        text = super().to_internal_value(data)
        return " ".join(without_controls(text[:1000]).split())[:MAX_SEARCH]


_SURROGATE = re.compile("[\ud800-\udfff]")


class NoSurrogates(ProhibitSurrogateCharactersValidator):
    """DRF's validator, same message and code, with a regex scan instead of a Python
    generator over every character (a measurable share of a `?search=` request)."""

    def __call__(self, value):
        found = _SURROGATE.search(str(value))
        if found:
            message = self.message.format(code_point=ord(found.group()))
            raise serializers.ValidationError(message, code=self.code)


class GlobalParams(serializers.Serializer):
    """`context`, `_fields` and `_embed`: WordPress's global parameters."""

    context = serializers.ChoiceField(
        CONTEXTS,
        default="view",
        help_text="Zakres pól w odpowiedzi; `edit` (surowe treści) wymaga uprawnień redaktora.",
    )

    def get_fields(self):
        fields = super().get_fields()
        fields["_fields"] = ListParam(
            child=serializers.RegexField(r"^[A-Za-z_][A-Za-z0-9_:.-]*$", max_length=100),
            help_text="Tylko te pola odpowiedzi (także zagnieżdżone: `title.rendered`).",
        )
        fields["_embed"] = ListParam(
            child=serializers.RegexField(r"^[A-Za-z0-9_][A-Za-z0-9_:.-]*$", max_length=100),
            allow_empty=True,
            help_text="Osadź powiązane obiekty w `_embedded`: samo `_embed` osadza wszystkie, "
            "albo nazwy relacji po przecinku (np. `wp:term,related`).",
        )
        return fields

    def run_validation(self, data=empty):
        """DRF's `Serializer.run_validation` without its passes over every field that never
        apply to a query string (an empty form, serializer validators, read-only defaults):
        `to_internal_value`, then `validate`, the same errors either way."""
        value = self.to_internal_value(data)
        try:
            value = self.validate(value)
        except (serializers.ValidationError, DjangoValidationError) as exc:
            raise serializers.ValidationError(detail=as_serializer_error(exc)) from exc
        return value

    @cached_property
    def _declared(self) -> tuple:
        """(name, field) of every parameter in declaration order, computed once per
        prototype (`validate_query`): DRF's `_writable_fields` walks them anew each time."""
        return tuple((field.field_name, field) for field in self._writable_fields)

    def to_internal_value(self, data):
        """Validates only the parameters the query string carries (the others take their
        defaults): running DRF's per-field machinery over all ~25 declared fields cost more
        than the list query. Same errors, field by field, as DRF's own loop."""
        present = {key.removesuffix("[]") for key in data}
        values, errors = {}, {}
        for name, field in self._declared:
            if name not in present:
                if field.default is not empty:
                    values[name] = field.get_default()
                continue
            try:
                values[name] = field.run_validation(field.get_value(data))
            except serializers.ValidationError as exc:
                errors[name] = exc.detail
            except DjangoValidationError as exc:
                errors[name] = get_error_detail(exc)
        if errors:
            raise serializers.ValidationError(errors)
        # `?_embed` alone (or `=1`, `=true`) means "embed everything", as in WordPress.
        if hasattr(data, "getlist") and ("_embed" in data or "_embed[]" in data):
            wanted = values.get("_embed") or []
            values["_embed"] = ["*"] if not wanted or wanted in (["1"], ["true"]) else wanted
        return values


class CollectionParams(GlobalParams):
    ORDERBY: tuple[str, ...] = ("id", "include", "slug", "include_slugs")
    DEFAULT_ORDERBY = "id"

    page = serializers.IntegerField(
        min_value=1, max_value=10**9, default=1, help_text="Numer strony."
    )
    per_page = serializers.IntegerField(
        min_value=1, max_value=100, default=10, help_text="Liczba elementów na stronie (1–100)."
    )
    offset = serializers.IntegerField(
        min_value=0,
        max_value=10**9,
        required=False,
        help_text="Pomiń tyle elementów (zamiast `page`).",
    )
    search = SearchParam()
    include = ids("Tylko elementy o tych identyfikatorach.")
    exclude = ids("Bez elementów o tych identyfikatorach.")
    slug = ListParam(
        child=serializers.CharField(max_length=250),
        help_text="Tylko elementy o tych slugach (jeden albo kilka).",
    )

    def get_fields(self):
        fields = super().get_fields()
        fields["orderby"] = serializers.ChoiceField(
            self.ORDERBY, required=False, help_text="Pole sortowania."
        )
        fields["order"] = serializers.ChoiceField(
            ("asc", "desc"), required=False, help_text="Kierunek sortowania."
        )
        return fields

    def validate(self, attrs):
        searching = bool(attrs.get("search")) and "relevance" in self.ORDERBY
        attrs.setdefault("orderby", "relevance" if searching else self.DEFAULT_ORDERBY)
        # Dates newest first unless asked otherwise; names and ids A–Z; relevance best first.
        attrs.setdefault("order", "desc" if attrs["orderby"] in ("date", "modified") else "asc")
        if attrs["orderby"] == "relevance" and not attrs.get("search"):
            raise RestError(
                "rest_no_search_term_defined",
                "Sortowanie według trafności wymaga parametru `search`.",
            )
        if attrs["orderby"] == "include" and not attrs.get("include"):
            raise RestError(
                "rest_orderby_include_missing_include",
                "Sortowanie `include` wymaga parametru `include`.",
            )
        if attrs["orderby"] == "include_slugs" and not attrs.get("slug"):
            raise RestError(
                "rest_orderby_include_slugs_missing_slug",
                "Sortowanie `include_slugs` wymaga parametru `slug`.",
            )
        return attrs


class EntryParams(CollectionParams):
    """Terms and articles: publishable entries with dates and a status."""

    after = serializers.DateTimeField(
        required=False, help_text="Opublikowane po tej dacie (ISO 8601)."
    )
    before = serializers.DateTimeField(
        required=False, help_text="Opublikowane przed tą datą (ISO 8601)."
    )
    modified_after = serializers.DateTimeField(required=False, help_text="Zmienione po tej dacie.")
    modified_before = serializers.DateTimeField(
        required=False, help_text="Zmienione przed tą datą."
    )
    status = ListParam(
        child=serializers.ChoiceField(STATUSES),
        help_text="Status (domyślnie `publish`); inne wymagają uprawnień redaktora.",
    )


class TermParams(EntryParams):
    ORDERBY = ("title", "date", "modified", "id", "include", "slug", "include_slugs", "relevance")
    DEFAULT_ORDERBY = "title"

    categories = ids("Pojęcia z którejkolwiek z tych kategorii.")
    categories_exclude = ids("Bez pojęć z tych kategorii.")
    related = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="Pojęcia powiązane z tym pojęciem."
    )
    article = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="Pojęcia użyte w tym artykule."
    )


class ArticleParams(EntryParams):
    ORDERBY = ("date", "modified", "title", "id", "include", "slug", "include_slugs", "relevance")
    DEFAULT_ORDERBY = "date"

    terms = ids("Artykuły używające któregokolwiek z tych pojęć.")
    terms_exclude = ids("Bez artykułów używających tych pojęć.")
    series = ids("Artykuły z tych serii.")


class TaxonomyParams(CollectionParams):
    """Categories and series (WordPress's taxonomy terms)."""

    ORDERBY = ("name", "id", "include", "slug", "include_slugs", "count")
    DEFAULT_ORDERBY = "name"

    hide_empty = serializers.BooleanField(
        default=False, help_text="Pomiń elementy bez opublikowanych wpisów."
    )


class CategoryParams(TaxonomyParams):
    term = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="Kategorie tego pojęcia."
    )


class SeriesParams(TaxonomyParams):
    article = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, help_text="Seria tego artykułu."
    )


class SearchParams(GlobalParams):
    page = serializers.IntegerField(
        min_value=1, max_value=10**9, default=1, help_text="Numer strony."
    )
    per_page = serializers.IntegerField(
        min_value=1, max_value=100, default=10, help_text="Liczba wyników na stronie (1–100)."
    )
    search = SearchParam(
        help_text="Szukana fraza (ta sama wyszukiwarka co na stronie i w MCP). Odpowiedź nie "
        "jest pusta, gdy fraza ma słowa: bez pewnego dopasowania to najbliższe wpisy z `weak: "
        "true`. Nagłówek X-WP-Search-Weak (1 albo 0) mówi, czy odpowiedź jest zgadywaniem; "
        "X-WP-Search-Did-You-Mean, tylko gdy poprawiono literówki, podaje poprawioną frazę "
        "jako ext-value RFC 8187 (`UTF-8''` i tekst zakodowany procentowo w UTF-8)."
    )
    type = serializers.ChoiceField(
        ("term", "article"), default="term", help_text="Czego szukać: pojęć albo artykułów."
    )


class DetailParams(GlobalParams):
    pass


class RevisionParams(GlobalParams):
    """An entry's revisions: newest first unless `order=asc`, paged like every list."""

    page = serializers.IntegerField(
        min_value=1, max_value=10**9, default=1, help_text="Numer strony."
    )
    per_page = serializers.IntegerField(
        min_value=1, max_value=100, default=10, help_text="Liczba rewizji na stronie (1–100)."
    )
    offset = serializers.IntegerField(
        min_value=0, max_value=10**9, required=False, help_text="Pomiń tyle rewizji."
    )
    order = serializers.ChoiceField(
        ("asc", "desc"), default="desc", help_text="Od najnowszej (desc) czy od najstarszej."
    )


class DeleteParams(serializers.Serializer):
    force = serializers.BooleanField(
        default=False, help_text="Musi być `true`: wpisy nie trafiają do kosza."
    )


@cache
def _prototype(cls) -> serializers.Serializer:
    return cls()


def validate_query(cls, query) -> dict:
    """The validated parameters of `query` (a QueryDict) for the serializer class `cls`.

    Why not `cls(data=query).is_valid()`: a serializer instance deep-copies its ~25 declared
    fields (half a millisecond per request). One bound instance per class validates every
    request instead: `run_validation` keeps no state on the serializer or its fields, so it
    is safe across requests and threads. DRF reads a query string like an HTML form, where
    `x=` means "not sent"; here an empty value is an error (except `_embed`, empty meaning
    "all", and `search`)."""
    prototype = _prototype(cls)
    fields = prototype.fields
    empty = sorted(
        name
        for name, values in query.lists()
        if "" in values and name not in ("_embed", "search") and name.rstrip("[]") in fields
    )
    if empty:
        raise invalid_params({name: [("blank", "Pusta wartość.")] for name in empty})
    return prototype.run_validation(query)
