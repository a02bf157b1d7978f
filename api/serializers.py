"""What the API sends and accepts, as DRF serializers.

Read serializers declare every field (drf-spectacular documents them, OPTIONS lists them with
the contexts they appear in) and build each object in one `to_representation` pass: DRF's
per-field machinery cost more than the two queries behind a list (bench/rest.py). Which
fields appear depends on `context` (`CONTEXTS`: view, embed, edit), as in WordPress; `raw`
texts and `last_editor` only in `edit`.

Write serializers check the shape and types of a body (a string is a string, ids are ids,
lengths are the model's own `max_length`); the rules of the content itself (uniqueness, the
short definition a published term needs, slugs, related terms) are the admin's, applied by
the services in glossary/services.py.
"""

from datetime import UTC
from functools import cache
from html import escape

import orjson
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from glossary.markdown import render_markdown
from glossary.models import INVALID_SLUG, Article, Status, Term

from . import fields as declared
from . import links, represent
from .fields import ALL, VIEW_EDIT
from .params import MAX_ID
from .represent import wp_dates
from .rowjson import ROW_JSON

WP_DATE = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$"
STATUSES = ("publish", "future", "draft")


@extend_schema_field({"type": "string", "pattern": WP_DATE, "example": "2026-11-30T12:00:00"})
class WpDateField(serializers.CharField):
    pass


class RenderedSerializer(serializers.Serializer):
    rendered = serializers.CharField(read_only=True, help_text="HTML, jak na stronie.")
    raw = serializers.CharField(read_only=True, help_text="Tekst źródłowy (tylko context=edit).")


_LINK = {
    "type": "object",
    "properties": {
        "href": {"type": "string", "description": "Absolute URL (a URI template when templated)."},
        "embeddable": {"type": "boolean"},
        "taxonomy": {"type": "string"},
        "name": {"type": "string"},
        "templated": {"type": "boolean"},
    },
    "required": ["href"],
}


@extend_schema_field({"type": "object", "additionalProperties": {"type": "array", "items": _LINK}})
class LinksField(serializers.DictField):
    pass


@extend_schema_field(
    {
        "type": "object",
        "description": "Osadzone obiekty (`_embed`): relacja -> lista odpowiedzi jej linków.",
        "additionalProperties": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "object"}},
        },
    }
)
class EmbeddedField(serializers.DictField):
    pass


class ReadSerializer(serializers.Serializer):
    """Base of the read serializers: `CONTEXTS` says in which contexts each field appears."""

    CONTEXTS: dict[str, tuple[str, ...]] = {}
    kind = ""
    # The read serializers are always used as the root (one instance per response, reused
    # for every row): they read `_context` directly, DRF's `context` property walks to the
    # root on each access (~70 times per page of 10).
    _context: dict = {}

    def get_fields(self):
        fields = super().get_fields()
        fields["_links"] = LinksField(read_only=True)
        fields["_embedded"] = EmbeddedField(read_only=True, help_text="Tylko z `_embed`.")
        return fields

    @property
    def wanted(self) -> set:
        return set(self._context.get("embed") or ())

    @property
    def ctx(self) -> str:
        return self._context.get("context", "view")

    @classmethod
    @cache
    def hidden(cls, ctx: str) -> tuple[str, ...]:
        """The fields `CONTEXTS` leaves out of `ctx` (none of what `view` builds)."""
        return tuple(name for name, shown in cls.CONTEXTS.items() if ctx not in shown)

    def from_row_json(self, text: str):
        """An object PostgreSQL built whole (api/rowjson.py, `_links` included). In
        `context=view` with no `_fields` it is sent as written (`row_as_json`); otherwise it
        is loaded, and the context leaves out what it hides."""
        if self._context.get("row_as_json"):
            return orjson.Fragment(text)
        data = orjson.loads(text)
        for name in self.hidden(self.ctx):
            data.pop(name, None)
        return data

    def finish(self, data: dict, instance_links) -> dict:
        """`data` (a dict built for this object alone) as the answer: the fields of the
        context, `_links`, and `_embedded` when asked for."""
        for name in self.hidden(self.ctx):
            data.pop(name, None)
        data["_links"] = links.entry_links(self.kind, data["id"])
        if instance_links is not None and self._context.get("embed"):
            embedded = represent.embedded(self.kind, instance_links, self.wanted)
            if embedded:
                data["_embedded"] = embedded
        return data


class EntryReadSerializer(ReadSerializer):
    """A term or an article, as `declared.FIELDS` declares it (api/rowjson.py writes the
    same object in SQL from the same table)."""

    id = serializers.IntegerField(read_only=True)
    date = WpDateField(read_only=True, help_text="Data publikacji (czas strony).")
    date_gmt = WpDateField(read_only=True, help_text="Data publikacji (UTC).")
    modified = WpDateField(read_only=True, help_text="Ostatnia zmiana (czas strony).")
    modified_gmt = WpDateField(read_only=True, help_text="Ostatnia zmiana (UTC).")
    slug = serializers.CharField(read_only=True)
    status = serializers.ChoiceField(STATUSES, read_only=True)
    type = serializers.CharField(read_only=True)
    link = serializers.URLField(read_only=True, help_text="Publiczna strona wpisu.")
    title = RenderedSerializer(read_only=True)
    content = RenderedSerializer(read_only=True)
    excerpt = RenderedSerializer(read_only=True)
    last_editor = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Kto ostatnio zapisał (context=edit)."
    )

    def to_representation(self, entry):
        built = getattr(entry, ROW_JSON, None)
        if built is not None:
            return self.from_row_json(built)
        entry_links = self._context["links"].get(entry.pk)
        ctx, tz, now = self.ctx, self._context.get("tz"), self._context["now"]
        data = {
            field.name: represent.value(field, entry, kind=self.kind, ctx=ctx, now=now, tz=tz,
                              entry_links=entry_links)
            for field in declared.FIELDS[self.kind]
            if ctx in field.contexts
        }  # fmt: skip
        return self.finish(data, entry_links)


class TermSerializer(EntryReadSerializer):
    kind = "term"
    CONTEXTS = declared.contexts("term")

    synonyms = serializers.ListField(child=serializers.CharField(), read_only=True)
    english_name = serializers.CharField(
        read_only=True, help_text="Nazwa angielska (zwykły tekst; pusta, gdy jej nie podano)."
    )
    english_definition = serializers.CharField(
        read_only=True, help_text="Krótka definicja po angielsku (zwykły tekst)."
    )
    categories = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    asked_as = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="Pytano też jako: zapytania przypisane przez redakcję (tylko context=edit).",
    )
    related = serializers.ListField(
        child=serializers.IntegerField(),
        read_only=True,
        help_text="Powiązane pojęcia (opublikowane; w context=edit wszystkie).",
    )


class ArticleSerializer(EntryReadSerializer):
    kind = "article"
    CONTEXTS = declared.contexts("article")

    author = serializers.IntegerField(read_only=True, allow_null=True)
    terms = serializers.ListField(
        child=serializers.IntegerField(), read_only=True, help_text="Pojęcia użyte w artykule."
    )
    series = serializers.IntegerField(read_only=True, allow_null=True)
    series_order = serializers.IntegerField(read_only=True, allow_null=True)


class TaxonomySerializer(ReadSerializer):
    """A category or a series, as `fields.FIELDS` declares it."""

    id = serializers.IntegerField(read_only=True)
    count = serializers.IntegerField(read_only=True, help_text="Liczba opublikowanych wpisów.")
    description = serializers.CharField(read_only=True)
    link = serializers.URLField(read_only=True)
    name = serializers.CharField(read_only=True)
    slug = serializers.CharField(read_only=True)
    taxonomy = serializers.CharField(read_only=True)

    def to_representation(self, item):
        ctx = self.ctx
        data = {
            field.name: represent.value(field, item, kind=self.kind, ctx=ctx)
            for field in declared.FIELDS[self.kind]
            if ctx in field.contexts
        }
        return self.finish(data, None)


class CategorySerializer(TaxonomySerializer):
    kind = "category"
    CONTEXTS = declared.contexts("category")


class SeriesSerializer(TaxonomySerializer):
    kind = "series"
    CONTEXTS = declared.contexts("series")


class SearchResultSerializer(serializers.Serializer):
    """A hit of the one search engine, as WordPress's /search items, plus its rank."""

    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(read_only=True)
    url = serializers.URLField(read_only=True)
    type = serializers.CharField(read_only=True)
    subtype = serializers.CharField(read_only=True)
    slug = serializers.CharField(read_only=True)
    excerpt = serializers.CharField(read_only=True, help_text="Fragment z zaznaczeniem (<mark>).")
    score = serializers.FloatField(read_only=True)
    match = serializers.CharField(read_only=True, help_text="Która reguła dopasowała.")
    weak = serializers.BooleanField(
        read_only=True,
        help_text="Zgadywanie, nie pewne dopasowanie: pasuje tylko część słów zapytania albo "
        "to najbliższy kandydat, gdy nic nie pasuje.",
    )

    def get_fields(self):
        fields = super().get_fields()
        fields["_links"] = LinksField(read_only=True)
        fields["_embedded"] = EmbeddedField(read_only=True)
        return fields

    def to_representation(self, hit):
        base = links.route(hit.kind)
        return {
            "id": hit.id,
            "title": hit.title,
            "url": links.page(hit.kind, hit.slug),
            "type": hit.kind,
            "subtype": hit.kind,
            "slug": hit.slug,
            "excerpt": str(hit.snippet),
            "score": hit.score,
            "match": hit.match,
            "weak": hit.weak,
            "_links": {
                "self": [{"embeddable": True, "href": f"{base}/{hit.id}"}],
                "about": [{"href": f"{links.namespace_url()}/types/{hit.kind}"}],
                "collection": [{"href": f"{links.namespace_url()}/search"}],
            },
        }


# --- Writes -----------------------------------------------------------------------------------
@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {"type": "object", "properties": {"raw": {"type": "string"}}, "required": ["raw"]},
        ]
    }
)
class RawTextField(serializers.CharField):
    """A text as a string or as WordPress's `{"raw": "…"}` (what context=edit sends back)."""

    def to_internal_value(self, data):
        if isinstance(data, dict) and "raw" in data and set(data) <= {"raw", "rendered"}:
            data = data["raw"]
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def _max(model, name: str) -> int:
    return model._meta.get_field(name).max_length


def id_list(help_text: str):
    return serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        max_length=1000,
        help_text=help_text,
    )


class EntryWriteSerializer(serializers.Serializer):
    """Fields both kinds accept. Read-only fields of the read form (`id`, `link`, `_links`, …)
    are ignored, so an object read with context=edit can be sent back as it is; any other
    unknown field is an error, so that nothing an editor sends is silently dropped."""

    READ_ONLY: frozenset = frozenset()
    # REST name -> model field name, and back for error messages.
    MODEL_NAMES: dict[str, str] = {}

    slug = serializers.RegexField(
        r"^[a-z0-9]+(?:-[a-z0-9]+)*$", required=False, allow_blank=True, max_length=200,
        help_text="Małe litery a–z, cyfry i myślniki; puste = z tytułu.",
        error_messages={"invalid": INVALID_SLUG},
    )  # fmt: skip
    content = RawTextField(required=False, allow_blank=True, trim_whitespace=False)
    status = serializers.ChoiceField(
        STATUSES,
        required=False,
        help_text="`publish` z datą w przyszłości (albo `future`) planuje publikację.",
    )
    date = serializers.DateTimeField(
        required=False, allow_null=True, help_text="Data publikacji (bez strefy: czas strony)."
    )
    date_gmt = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default_timezone=UTC,
        help_text="Data publikacji (bez strefy: UTC).",
    )

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields) - self.READ_ONLY, key=str)
            if unknown:
                raise serializers.ValidationError(
                    {str(name): ["Nieznane pole (nie ma go w schemacie)."] for name in unknown}
                )
        return super().to_internal_value(data)

    def to_model(self, values: dict, *, instance=None) -> dict:
        """Validated REST values as `changes` for the services (model field names)."""
        changes = {}
        for name, value in values.items():
            if name in ("status", "date", "date_gmt"):
                continue
            changes[self.MODEL_NAMES.get(name, name)] = value
        if "date_gmt" in values:
            changes["published_at"] = values["date_gmt"]
        elif "date" in values:
            changes["published_at"] = values["date"]
        status = values.get("status")
        if status is not None:
            changes["status"] = Status.DRAFT if status == "draft" else Status.PUBLISHED
        if status == "future":
            when = changes.get("published_at", getattr(instance, "published_at", None))
            if when is None or when <= timezone.now():
                raise serializers.ValidationError(
                    {"date": ["Status `future` wymaga daty publikacji w przyszłości."]}
                )
        return changes


READ_FIELDS = frozenset(
    {"id", "date", "date_gmt", "modified", "modified_gmt", "type", "link", "last_editor",
     "_links", "_embedded"}
)  # fmt: skip


class TermWriteSerializer(EntryWriteSerializer):
    READ_ONLY = READ_FIELDS - {"date", "date_gmt"}
    MODEL_NAMES = {"title": "name", "content": "body", "excerpt": "short_definition"}

    title = RawTextField(max_length=_max(Term, "name"), required=False)
    excerpt = RawTextField(
        max_length=_max(Term, "short_definition"), required=False, allow_blank=True,
        help_text="Krótka definicja (zwykły tekst); wymagana do publikacji.",
    )  # fmt: skip
    synonyms = serializers.ListField(
        child=serializers.CharField(max_length=200, allow_blank=True),
        required=False,
        max_length=200,
    )
    english_name = serializers.CharField(
        max_length=_max(Term, "english_name"), required=False, allow_blank=True,
        help_text="Nazwa angielska: zwykły tekst w jednym wierszu.",
    )  # fmt: skip
    english_definition = serializers.CharField(
        max_length=_max(Term, "english_definition"), required=False, allow_blank=True,
        help_text="Krótka definicja po angielsku: zwykły tekst w jednym wierszu.",
    )  # fmt: skip
    asked_as = serializers.ListField(
        child=serializers.CharField(max_length=200, allow_blank=True),
        required=False,
        max_length=200,
        help_text="Pytano też jako: wyszukiwarka traktuje je jak synonimy; nie są linkowane "
        "ani pokazywane czytelnikom.",
    )
    categories = id_list("Identyfikatory kategorii.")
    related = id_list("Identyfikatory powiązanych pojęć.")


class ArticleWriteSerializer(EntryWriteSerializer):
    READ_ONLY = READ_FIELDS - {"date", "date_gmt"}
    MODEL_NAMES = {"content": "body", "excerpt": "lead"}

    title = RawTextField(max_length=_max(Article, "title"), required=False)
    excerpt = RawTextField(
        required=False, allow_blank=True, help_text="Lead: jeden akapit zachęty, zwykły tekst."
    )
    terms = id_list("Identyfikatory pojęć ze słownika użytych w artykule.")
    series = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, allow_null=True
    )
    series_order = serializers.IntegerField(
        min_value=1, max_value=2**31 - 1, required=False, allow_null=True
    )
    author = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, allow_null=True
    )


class DeletedSerializer(serializers.Serializer):
    deleted = serializers.BooleanField(read_only=True)
    previous = serializers.DictField(read_only=True, help_text="Usunięty obiekt (context=edit).")


class ErrorDataSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    params = serializers.DictField(child=serializers.CharField(), required=False)
    details = serializers.DictField(required=False)
    retry_after = serializers.IntegerField(required=False)


class ErrorSerializer(serializers.Serializer):
    """WordPress's error object."""

    code = serializers.CharField()
    message = serializers.CharField()
    data = ErrorDataSerializer()


class RevisionSerializer(ReadSerializer):
    """One revision of a term or an article (WordPress's `<type>-revision`): a django-reversion
    Version of the entry, with its revision's author, date and comment. `title`, `content`
    and `excerpt` are the entry's texts as that revision stored them (`rendered` from the
    site's renderer and sanitizer, without auto-links; `raw` in context=edit); the other
    fields of the entry as they were are under the API's own names."""

    CONTEXTS = {"modified": VIEW_EDIT, "modified_gmt": VIEW_EDIT, "date_gmt": VIEW_EDIT,
                "comment": VIEW_EDIT, "guid": VIEW_EDIT}  # fmt: skip

    id = serializers.IntegerField(read_only=True, help_text="Identyfikator rewizji.")
    author = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Kto zapisał tę rewizję (null: import/system)."
    )
    date = WpDateField(read_only=True, help_text="Kiedy zapisano rewizję (czas strony).")
    date_gmt = WpDateField(read_only=True, help_text="Kiedy zapisano rewizję (UTC).")
    modified = WpDateField(read_only=True, help_text="Rewizji się nie zmienia: to samo co date.")
    modified_gmt = WpDateField(read_only=True)
    guid = serializers.CharField(read_only=True, help_text="Stały adres tej rewizji.")
    parent = serializers.IntegerField(read_only=True, help_text="Identyfikator wpisu.")
    slug = serializers.CharField(read_only=True)
    status = serializers.ChoiceField(STATUSES, read_only=True)
    comment = serializers.CharField(read_only=True, help_text="Opis zmiany (np. które pola).")
    title = RenderedSerializer(read_only=True)
    content = RenderedSerializer(read_only=True)
    excerpt = RenderedSerializer(read_only=True)
    fields = serializers.DictField(
        read_only=True,
        help_text="Pozostałe pola wpisu w tej rewizji, pod nazwami API (np. synonyms, "
        "english_name, asked_as, categories, related; terms, series, series_order, author).",
    )

    # entry kind -> (title, excerpt, {model field: API name} of the other fields)
    SHAPES = {
        "term": ("name", "short_definition", {
            "synonyms": "synonyms", "categories": "categories", "related": "related",
            "published_at": "date", "autolink": "autolink", "linkable": "linkable",
            "english_name": "english_name", "english_definition": "english_definition",
            "asked_as": "asked_as"}),
        "article": ("title", "lead", {
            "terms": "terms", "series_id": "series", "series_order": "series_order",
            "author_id": "author", "published_at": "date", "autolink": "autolink"}),
    }  # fmt: skip

    def to_representation(self, version):
        kind = self.context["kind"]
        title_field, excerpt_field, others = self.SHAPES[kind]
        data = version.field_dict
        revision = version.revision
        date, date_gmt = wp_dates(revision.date_created)
        title, body = data.get(title_field) or "", data.get("body") or ""
        excerpt = data.get(excerpt_field) or ""
        published_at = data.get("published_at")
        status = "draft"
        if data.get("status") == Status.PUBLISHED:
            status = "future" if published_at and published_at > self.context["now"] else "publish"
        href = links.revision_link(kind, version.object_id, version.pk)
        out = {
            "id": version.pk,
            "author": revision.user_id,
            "date": date,
            "date_gmt": date_gmt,
            "modified": date,
            "modified_gmt": date_gmt,
            "guid": href,
            "parent": int(version.object_id),
            "slug": data.get("slug") or "",
            "status": status,
            "comment": revision.comment,
            "title": {"rendered": escape(title, quote=False)},
            "content": {"rendered": render_markdown(body)},
            "excerpt": {"rendered": links.excerpt_html(excerpt)},
            "fields": {
                api: (wp_dates(data[name])[0] if name == "published_at" and data[name] else
                      data.get(name))
                for name, api in others.items()
                if name in data
            },
        }  # fmt: skip
        if self.ctx == "edit":
            out["title"]["raw"], out["content"]["raw"] = title, body
            out["excerpt"]["raw"] = excerpt
        out = {k: v for k, v in out.items() if self.ctx in self.CONTEXTS.get(k, ALL)}
        out["_links"] = links.revision_links(kind, int(version.object_id), version.pk)
        return out
