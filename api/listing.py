"""What a REST read is about, for the strategies of api/queries.py: the collection
(`Resource`), the request as a read sees it (`Listing`) and what a read gives (`Page`, its
rows as `Row`s or a `JsonPage`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import Q, QuerySet

from glossary.models import Status


@dataclass(frozen=True, eq=False)
class Resource:
    """What a collection reads: its model, its filter backends (api/filters.py), and for
    terms and articles what readers' rows show (`row_fields`, plain values), the columns
    they never show (`deferred`) and how their links are read (`links`)."""

    model: type
    filters: tuple
    row_fields: tuple = ()
    deferred: tuple = ()
    links: Callable | None = None  # (pks, include_drafts) -> {pk: links}

    @property
    def kind(self) -> str:
        """`term`, `article`, `category`, `series`: the model's name."""
        return self.model._meta.model_name

    def base(self, listing: Listing) -> QuerySet:
        """What the reader may see of the collection, narrowed by `status` for entries."""
        if self.links is None:
            return self.model.objects.all()
        statuses = set(listing.params.get("status") or ["publish"])
        if statuses == {"publish"}:
            return self.model.objects.published(now=listing.now)
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

    def filter(self, queryset: QuerySet, listing: Listing) -> QuerySet:
        for backend in self.filters:
            queryset = backend().filter_queryset(None, queryset, listing)
        if self.links is None:
            return queryset
        heavy = {"body"} if listing.params.get("context") != "edit" else set()
        return queryset.defer(*self.deferred, *heavy)


@dataclass(frozen=True)
class Listing:
    """A read as the strategies see it: the resource, the validated parameters, the clock
    its `published()` uses, who reads (`reader`, what cached totals are keyed by) and the
    models whose drafts the reader may see (none: a readers' read, compiled)."""

    resource: Resource
    params: dict
    now: datetime
    reader: str = "anonymous"
    drafts: frozenset = field(default_factory=frozenset)

    @property
    def model(self):
        return self.resource.model

    @property
    def readers(self) -> bool:
        return not self.drafts

    @property
    def published_only(self) -> bool:
        return set(self.params.get("status") or ["publish"]) == {"publish"}

    def visible(self, model) -> QuerySet:
        """Every read starts here: `published()` for whoever may not see drafts."""
        if model in self.drafts:
            return model.objects.all()
        return model.objects.published(now=self.now)

    def queryset(self) -> QuerySet:
        return self.resource.filter(self.resource.base(self), self)

    def with_params(self, params: dict) -> Listing:
        return replace(self, params=params)


@dataclass
class Page:
    """One page of a read: its items (rows, or a `JsonPage` PostgreSQL wrote whole), the
    list's total, and the content state its statement read with the rows (None: not read)."""

    items: list | JsonPage
    total: int
    state: tuple | None = None


class JsonPage:
    """A page of objects PostgreSQL wrote (api/rowjson.py), joined by commas in the list's
    order: what goes out between `[` and `]` as written. `len()` is its number of rows."""

    def __init__(self, text: str, rows: int) -> None:
        self.text, self.rows = text, rows

    def __len__(self) -> int:
        return self.rows

    def body(self) -> bytes:
        """The page as the response's JSON array."""
        return f"[{self.text}]".encode()


class Row:
    """A readers' row read as plain values (`Resource.row_fields`), with the attributes the
    read serializers and the ETag of an entry use (`pk`, `_meta`, the field names). Why:
    instantiating the model (its __init__ and the post_init receivers) was a fifth of a
    page's CPU, for objects that are only read once into JSON."""

    links = None  # what the statement read of the row's links, when it did

    def __init__(self, meta, values: dict) -> None:
        self.__dict__.update(values)
        self.pk = values["id"]
        self._meta = meta
