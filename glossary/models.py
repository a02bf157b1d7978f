"""The glossary's content: terms, their categories, articles and article series.

Visibility is written once, in `PublishableQuerySet.published()`: every page, feed, sitemap
and MCP method starts there. Derived columns (rendered HTML, Polish sort key, index letter,
normalized search text) are recomputed by `refresh_derived()`, which `save()` calls and bulk
paths (import) call explicitly, so no write path can leave them stale.
"""

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone

from .db.cache import LRU
from .db.placeholders import SLUG
from .markdown import render_markdown
from .polish import fold, index_letter, polish_slugify, sort_key
from .stemming import document_stems, names_field, stem, typo_keys

SHORT_DEFINITION_MAX = 300
# What a revision (django-reversion, registered in apps.py) keeps: what editors write, with
# the links; derived columns are recomputed on restore.
TERM_REVISION_FIELDS = (
    "name", "slug", "short_definition", "body", "synonyms", "categories", "related", "status",
    "published_at", "autolink", "linkable", "unlinked_synonyms", "english_name",
    "english_definition", "asked_as",
)  # fmt: skip
ARTICLE_REVISION_FIELDS = (
    "title", "slug", "lead", "body", "author", "terms", "series", "series_order", "status",
    "published_at", "autolink",
)  # fmt: skip
_WORDS = re.compile(r"[^\W_]+")
# A Polish ending after an acronym: "JSON-a", "MCP-em", "API-ach".
_HYPHEN_ENDING = re.compile(r"-[a-ząćęłńóśźż]{1,3}\b")

# The messages of the content rules, written once: the model's constraints and `clean()`, the
# admin forms and the import (glossary/importing/) all say the same thing.
DEFINITION_REQUIRED = "Opublikowane pojęcie musi mieć krótką definicję."
INVALID_SLUG = "Slug może zawierać tylko małe litery a–z, cyfry i myślniki."
SELF_RELATED = "Pojęcie nie może być powiązane samo ze sobą."
SERIES_ORDER_REQUIRED = "Artykuł w serii musi mieć numer kolejny."
PLAIN_TEXT_ONLY = "Tu wpisuje się zwykły tekst: bez znaków sterujących (np. NUL)."
# Characters a plain-text field refuses once its whitespace is collapsed: the C0 and C1
# controls (PostgreSQL rejects NUL in text and in JSON alike).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


# The route of each kind of entry's page, and of its Markdown alternate (glossary/urls.py).
ROUTES = {
    "term": "glossary:term",
    "article": "glossary:article",
    "category": "glossary:category",
    "series": "glossary:series",
}
MARKDOWN_ROUTES = {"term": "glossary:term-markdown", "article": "glossary:article-markdown"}
# (route, script prefix, URLconf) -> the path before and after the slug.
_ADDRESSES = LRU(64)


def entry_path(kind: str, slug: str, *, markdown: bool = False) -> str:
    """The public path of the entry of `kind` ("term", "article", "category", "series") with
    `slug`, or of its Markdown alternate (terms and articles): the one function that builds an
    entry's address (`get_absolute_url`, the auto-linker, feeds, JSON-LD, llms.txt;
    `glossary.site.entry_url` makes it absolute for REST and MCP)."""
    head, tail = path_around_slug(kind, markdown=markdown)
    return f"{head}{slug}{tail}"


def path_around_slug(kind: str, *, markdown: bool = False) -> tuple[str, str]:
    """What `entry_path` puts around the slug, for the script prefix and URLconf of this
    request: the route reversed once per (route, prefix, URLconf) with a stand-in slug. A
    caller that builds many addresses at once (an agent's answer lists dozens) takes the
    pair once instead of reading the request's prefix and URLconf for each."""
    route = (MARKDOWN_ROUTES if markdown else ROUTES)[kind]
    key = (route, get_script_prefix(), get_urlconf())
    parts = _ADDRESSES.get(key)
    if parts is None:
        parts = _ADDRESSES.setdefault(key, tuple(reverse(route, kwargs={"slug": SLUG}).split(SLUG)))
    return parts


# What an entry was before a change when it is not (slug, was public): `before_state()`.
NEW = "new"  # not saved yet: not public before
UNKNOWN = "unknown"  # loaded with deferred fields: assume it may have been public


class Status(models.TextChoices):
    DRAFT = "draft", "Szkic"
    PUBLISHED = "published", "Opublikowany"


class PublishableQuerySet(models.QuerySet):
    def published(self, *, now=None):
        """What readers and agents may see: published, with a publication time not in the future.

        `now` defaults to the current time; selectors that compile their SQL once pass a
        placeholder here to find where the clock goes (see `glossary.db.prepared.Prepared`)."""
        return self.filter(status=Status.PUBLISHED, published_at__lte=now or timezone.now())

    def drafts(self):
        return self.exclude(status=Status.PUBLISHED, published_at__lte=timezone.now())


class Publishable(models.Model):
    status = models.CharField(
        "status", max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    published_at = models.DateTimeField(
        "data publikacji",
        null=True,
        blank=True,
        db_index=True,
        help_text="Puste przy publikacji = teraz. Data w przyszłości = publikacja zaplanowana.",
    )
    created_at = models.DateTimeField("utworzono", auto_now_add=True)
    updated_at = models.DateTimeField("zaktualizowano", auto_now=True, db_index=True)
    last_editor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="ostatnio edytował",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )

    objects = PublishableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.refresh_derived()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, *self.DERIVED_FIELDS, "updated_at"}
        super().save(*args, **kwargs)

    @classmethod
    def from_db(cls, db, field_names, values):
        """An entry loaded from the database remembers what it looked like (its before-state
        if it is saved later, glossary.events). Django's documented hook for loaded instances,
        not a `post_init` receiver, which would run for every instance built in memory too and
        cost each row every page, REST list and MCP read turns into a model (docs/benchmarks.md,
        "Cold reads"); an entry built in memory has nothing to remember (events treats it as
        new, or as possibly public if it is saved with a primary key of its own)."""
        instance = super().from_db(db, field_names, values)
        instance._glossary_before = instance.before_state()
        return instance

    def before_state(self):
        """What to remember of this entry before a change (glossary/events.py): (slug, was
        public), NEW when it is not saved yet, or UNKNOWN when a field is deferred (reading
        it would cost a query per instance)."""
        values = self.__dict__
        if self.pk is None:
            return NEW
        if not all(name in values for name in ("slug", "status", "published_at")):
            return UNKNOWN
        return (values["slug"], self.is_public)

    @property
    def is_public(self) -> bool:
        return (
            self.status == Status.PUBLISHED
            and self.published_at is not None
            and self.published_at <= timezone.now()
        )

    def refresh_derived(self) -> None:
        if self.status == Status.PUBLISHED and self.published_at is None:
            self.published_at = timezone.now()
        body_html = render_markdown(self.body)
        # Read from __dict__: a deferred body_html (the import loads few columns) would cost
        # a query per row; unknown counts as changed.
        if body_html != self.__dict__.get("body_html"):
            # The auto-linked copy belongs to the old text: until glossary.services relinks
            # it, pages show the new text without links rather than the old one with them.
            self.linked_html = ""
        self.body_html = body_html

    @property
    def display_html(self) -> str:
        """The body as readers see it: auto-linked when linking found something."""
        return self.linked_html or self.body_html


class Category(models.Model):
    name = models.CharField("nazwa", max_length=100)
    slug = models.SlugField("slug", max_length=100, unique=True)
    description = models.TextField("opis", blank=True)

    class Meta:
        verbose_name = "kategoria"
        verbose_name_plural = "kategorie"
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                name="glossary_category_name_ci_unique",
                violation_error_message="Kategoria o tej nazwie już istnieje.",
                violation_error_code="duplicate_name",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = polish_slugify(self.name)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return entry_path("category", self.slug)


class Term(Publishable):
    DERIVED_FIELDS = (
        "body_html",
        "linked_html",
        "sort_key",
        "letter",
        "name_folded",
        "search_text",
        "published_at",
        "search_names",
        "stems_names",
        "stems_definition",
        "stems_body",
        "typo_keys",
    )

    name = models.CharField("nazwa", max_length=200)
    slug = models.SlugField(
        "slug",
        max_length=200,
        unique=True,
        error_messages={"unique": "Pojęcie z tym slugiem już istnieje."},
    )
    short_definition = models.CharField(
        "krótka definicja",
        max_length=SHORT_DEFINITION_MAX,
        blank=True,
        help_text="Zwykły tekst, do 300 znaków. Widzą go dymki, wyniki wyszukiwania i agenci. "
        "Wymagana do publikacji.",
    )
    body = models.TextField("treść (Markdown)", blank=True)
    body_html = models.TextField(editable=False, blank=True)
    synonyms = models.JSONField(
        "synonimy",
        default=list,
        blank=True,
        help_text="Skróty, rozwinięcia, nazwy angielskie. Formy odmienione („serwera MCP”) "
        "nie są potrzebne do linkowania (odmianę rozpoznaje ono samo), ale pomagają "
        "wyszukiwarce; czytelnicy ich nie widzą.",
    )
    categories = models.ManyToManyField(
        Category, verbose_name="kategorie", blank=True, related_name="terms"
    )
    related = models.ManyToManyField("self", verbose_name="pojęcia powiązane", blank=True)
    autolink = models.BooleanField(
        "linkuj pojęcia w treści",
        default=True,
        help_text="Pierwsze wystąpienie opublikowanego pojęcia w treści staje się odnośnikiem "
        "z dymkiem. Fragment bez odnośników: [tekst]{.bez-linkow} albo blok ::: bez-linkow.",
    )
    linkable = models.BooleanField(
        "linkuj to pojęcie w innych tekstach",
        default=True,
        help_text="Wyłącz dla pojęć, których nazwa jest zwykłym słowem (np. „klient”).",
    )
    unlinked_synonyms = models.JSONField(
        "synonimy bez linkowania",
        default=list,
        blank=True,
        help_text="Synonimy, które wyszukiwarka zna, ale które w innych tekstach nie stają się "
        "odnośnikiem (zwykłe słowa, np. „serwer”).",
    )
    # English: searched like the Polish name and definition (an English question finds the
    # concept), shown to agents; never auto-linked (an English word in a Polish text is
    # rarely the term).
    english_name = models.CharField(
        "nazwa angielska",
        max_length=200,
        blank=True,
        help_text="Nazwa używana w angielskich tekstach (np. „Tool call”). Wyszukiwarka ją "
        "zna; w tekstach nie staje się odnośnikiem.",
    )
    english_definition = models.CharField(
        "krótka definicja po angielsku",
        max_length=SHORT_DEFINITION_MAX,
        blank=True,
        help_text="Zwykły tekst, do 300 znaków. Wyszukiwarka szuka w niej jak w polskiej "
        "definicji; agenci ją widzą.",
    )
    # Missed queries an editor attached to this term (analytics' report): searched like
    # synonyms, never linked, not shown to readers as names.
    asked_as = models.JSONField(
        "pytano też jako",
        default=list,
        blank=True,
        help_text="Zapytania czytelników i agentów, które dotyczyły tego pojęcia, choć go nie "
        "nazywały. Wyszukiwarka traktuje je jak synonimy; nie są linkowane ani pokazywane.",
    )
    # Auto-linking (glossary/autolink.py): body_html with links, and the terms it mentions.
    linked_html = models.TextField(editable=False, blank=True, default="")
    mentions = models.ManyToManyField(
        "self", symmetrical=False, blank=True, editable=False, related_name="mentioned_by_terms"
    )

    # Derived, never edited by hand.
    sort_key = models.CharField(max_length=255, editable=False, db_index=True)
    letter = models.CharField(max_length=1, editable=False, db_index=True)
    name_folded = models.CharField(max_length=200, editable=False, db_index=True)
    search_text = models.TextField(editable=False, blank=True)
    # Search columns (glossary/search.py): folded names and synonyms as "| a | b |" for exact,
    # prefix and trigram matching, and Polish stems per ranking weight. On PostgreSQL
    # migration 0003 adds a generated tsvector over the stems and GIN indexes.
    search_names = models.TextField(editable=False, blank=True, default="")
    stems_names = models.TextField(editable=False, blank=True, default="")
    stems_definition = models.TextField(editable=False, blank=True, default="")
    stems_body = models.TextField(editable=False, blank=True, default="")
    typo_keys = models.TextField(editable=False, blank=True, default="")

    class Meta:
        verbose_name = "pojęcie"
        verbose_name_plural = "pojęcia"
        ordering = ["sort_key", "id"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                name="glossary_term_name_ci_unique",
                violation_error_message=(
                    "Pojęcie o tej nazwie już istnieje (wielkość liter nie ma znaczenia)."
                ),
                violation_error_code="duplicate_name",
            ),
            models.CheckConstraint(
                condition=~models.Q(status=Status.PUBLISHED) | ~models.Q(short_definition=""),
                name="glossary_term_published_has_definition",
                violation_error_message=DEFINITION_REQUIRED,
                violation_error_code="definition_required",
            ),
            models.CheckConstraint(
                condition=~models.Q(status=Status.PUBLISHED) | models.Q(published_at__isnull=False),
                name="glossary_term_published_has_date",
                violation_error_code="published_at_required",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "published_at", "sort_key"]),
            # The A–Z order itself: a keyset page (list_terms, resources/list) is an index
            # range read without a sort, also under the generic plans of prepared
            # statements (docs/benchmarks.md, "Cold reads").
            # It covers the visibility columns too (PostgreSQL; SQLite ignores INCLUDE): the
            # REST API's later pages skip their OFFSET over an index-only scan (api/queries.py).
            models.Index(
                fields=["sort_key", "id"],
                include=["status", "published_at"],
                name="glossary_term_sort_id_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return entry_path("term", self.slug)

    @property
    def other_names(self) -> list[str]:
        """Synonyms readers see: without the inflected forms of the name or of an earlier
        synonym ("serwera MCP" is "Serwer MCP" declined, not another name). Search and
        auto-linking still use every synonym."""
        return other_names(self.name, self.synonyms)

    def clean(self) -> None:
        super().clean()
        self.synonyms = clean_synonyms(self.synonyms)
        self.asked_as = clean_synonyms(self.asked_as)
        errors = {}
        for name in ENGLISH_FIELDS:
            try:
                setattr(self, name, plain_text(getattr(self, name)))
            except ValidationError as exc:
                errors[name] = exc
        for name in ("synonyms", "asked_as"):
            try:
                plain_texts(getattr(self, name))
            except ValidationError as exc:
                errors[name] = exc
        if self.status == Status.PUBLISHED and not self.short_definition.strip():
            errors["short_definition"] = ValidationError(
                DEFINITION_REQUIRED, code="definition_required"
            )
        if self.slug and self.slug != polish_slugify(self.slug):
            errors["slug"] = ValidationError(INVALID_SLUG, code="invalid_slug")
        if errors:
            raise ValidationError(errors)

    def refresh_derived(self) -> None:
        super().refresh_derived()
        if not self.slug:
            self.slug = polish_slugify(self.name)
        self.synonyms = clean_synonyms(self.synonyms)
        self.sort_key = sort_key(self.name)
        self.letter = index_letter(self.name)
        self.name_folded = fold(self.name)
        self.asked_as = clean_synonyms(self.asked_as)
        names = [self.name, *self.synonyms, self.english_name, *self.asked_as]
        names = [n for n in names if n]
        self.search_text = fold(" ".join([*names, self.short_definition, self.english_definition]))
        self.search_names = names_field(names)
        self.stems_names = document_stems(*names)
        self.stems_definition = document_stems(self.short_definition, self.english_definition)
        self.stems_body = document_stems(self.body)
        self.typo_keys = typo_keys(self.name)


# A term's English name and short definition: one line of plain text each (`plain_text`).
ENGLISH_FIELDS = ("english_name", "english_definition")


def plain_text(value: str) -> str:
    """`value` as a plain-text field stores it (the English name and definition): one line,
    whitespace collapsed; a control character left after that (NUL, \\x01…) is refused with
    the code `control_characters`. The admin, the import and the REST API all check here."""
    text = " ".join(value.split())
    if _CONTROL.search(text):
        raise ValidationError(PLAIN_TEXT_ONLY, code="control_characters")
    return text


def plain_texts(items: list[str]) -> list[str]:
    """`plain_text` of each item of a list (synonyms, asked-as phrases), refused as a whole."""
    return [plain_text(item) for item in items]


def clean_synonyms(value) -> list[str]:
    """Synonyms as a list of distinct, trimmed strings (the admin sends one per line)."""
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError("Synonimy muszą być listą napisów.", code="invalid_synonyms")
    seen, out = set(), []
    for item in value:
        item = " ".join(item.split())
        if item and item.casefold() not in seen:
            seen.add(item.casefold())
            out.append(item[:200])
    return out


# Polish case and number endings (after folding), and the softened stem endings before some
# of them ("agent" -> "agenci", "serwer" -> "serwerze").
_ENDINGS = {
    "", "a", "u", "y", "i", "e", "o", "ow", "om", "em", "ie", "owi", "ami", "ach", "ego", "emu",
    "ym", "im", "ej", "ych", "ich", "ymi", "imi",
}  # fmt: skip
_SOFTENED = frozenset(["ci", "cie", "dzi", "dzie", "rze", "rzy", "le", "li", "ce", "sze", "si"])


def _same_word(a: str, b: str) -> bool:
    """Two written words that are one word declined: the same stem, or the same beginning
    (3+ letters) followed by Polish endings ("zasób"/"zasoby", "agent"/"agenci"); another
    ending, a capital or an English plural makes another word ("stdio"/"stdin",
    "HTTP"/"HTTPS", "embeddings")."""
    if stem(a.casefold()) == stem(b.casefold()):
        return True
    fa, fb = fold(a), fold(b)
    if len(fa) != len(a) or len(fb) != len(b):
        return False
    common = next((i for i, (x, y) in enumerate(zip(fa, fb, strict=False)) if x != y), None)
    common = min(len(fa), len(fb)) if common is None else common
    if common < 3 or a[common:] != fa[common:] or b[common:] != fb[common:]:
        return False
    tails = {fa[common:], fb[common:]}
    if tails <= _ENDINGS:
        return True
    short, long_ = sorted((fa[common:], fb[common:]), key=len)
    return len(short) == 1 and long_ in _SOFTENED


def is_inflected_form(form: str, of: str) -> bool:
    """`form` is `of` declined ("protokołu MCP" of "protokół MCP", "JSON-a" of "JSON")."""
    a = _WORDS.findall(_HYPHEN_ENDING.sub("", form))
    b = _WORDS.findall(of)
    return bool(a) and len(a) == len(b) and all(map(_same_word, a, b))


def other_names(name: str, synonyms: list[str]) -> list[str]:
    """`synonyms` without the inflected forms of the name or of an earlier synonym."""
    return [
        synonym
        for position, synonym in enumerate(synonyms)
        if not any(is_inflected_form(synonym, of) for of in [name, *synonyms[:position]])
    ]


class Series(models.Model):
    name = models.CharField("nazwa", max_length=200, unique=True)
    slug = models.SlugField("slug", max_length=200, unique=True)
    description = models.TextField("opis", blank=True)

    class Meta:
        verbose_name = "seria"
        verbose_name_plural = "serie"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return entry_path("series", self.slug)


class Article(Publishable):
    DERIVED_FIELDS = (
        "body_html",
        "linked_html",
        "search_text",
        "published_at",
        "title_folded",
        "stems_title",
        "stems_lead",
        "stems_body",
    )

    title = models.CharField("tytuł", max_length=250)
    slug = models.SlugField(
        "slug",
        max_length=250,
        unique=True,
        error_messages={"unique": "Artykuł z tym slugiem już istnieje."},
    )
    lead = models.TextField("lead", blank=True, help_text="Jeden akapit zachęty, zwykły tekst.")
    body = models.TextField("treść (Markdown)", blank=True)
    body_html = models.TextField(editable=False, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="autor",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="articles",
    )
    terms = models.ManyToManyField(
        Term, verbose_name="pojęcia ze słownika", blank=True, related_name="articles"
    )
    series = models.ForeignKey(
        Series,
        verbose_name="seria",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="articles",
    )
    series_order = models.PositiveIntegerField("kolejność w serii", null=True, blank=True)
    autolink = models.BooleanField(
        "linkuj pojęcia w treści",
        default=True,
        help_text="Pierwsze wystąpienie opublikowanego pojęcia w treści staje się odnośnikiem "
        "z dymkiem. Fragment bez odnośników: [tekst]{.bez-linkow} albo blok ::: bez-linkow.",
    )
    linked_html = models.TextField(editable=False, blank=True, default="")
    mentions = models.ManyToManyField(
        Term, blank=True, editable=False, related_name="mentioned_by_articles"
    )
    search_text = models.TextField(editable=False, blank=True)
    # Search columns, as on Term (title > lead > body).
    title_folded = models.CharField(max_length=250, editable=False, blank=True, default="")
    stems_title = models.TextField(editable=False, blank=True, default="")
    stems_lead = models.TextField(editable=False, blank=True, default="")
    stems_body = models.TextField(editable=False, blank=True, default="")

    class Meta:
        verbose_name = "artykuł"
        verbose_name_plural = "artykuły"
        ordering = ["-published_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(status=Status.PUBLISHED) | models.Q(published_at__isnull=False),
                name="glossary_article_published_has_date",
                violation_error_code="published_at_required",
            ),
            models.UniqueConstraint(
                fields=["series", "series_order"],
                name="glossary_article_series_order_unique",
                violation_error_message="W tej serii jest już artykuł o tym numerze.",
                violation_error_code="duplicate_series_order",
            ),
            models.CheckConstraint(
                condition=models.Q(series__isnull=True) | models.Q(series_order__isnull=False),
                name="glossary_article_series_has_order",
                violation_error_message=SERIES_ORDER_REQUIRED,
                violation_error_code="series_order_required",
            ),
        ]
        indexes = [models.Index(fields=["status", "published_at"])]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return entry_path("article", self.slug)

    @property
    def author_name(self) -> str:
        """The byline: the author's full name, else the username; "" without an author."""
        if self.author is None:
            return ""
        return self.author.get_full_name() or self.author.get_username()

    def clean(self) -> None:
        super().clean()
        if self.series_id and self.series_order is None:
            raise ValidationError(
                {
                    "series_order": ValidationError(
                        SERIES_ORDER_REQUIRED, code="series_order_required"
                    )
                }
            )

    def refresh_derived(self) -> None:
        super().refresh_derived()
        if not self.slug:
            self.slug = polish_slugify(self.title)
        self.search_text = fold(" ".join([self.title, self.lead]))
        self.title_folded = fold(self.title)
        self.stems_title = document_stems(self.title)
        self.stems_lead = document_stems(self.lead)
        self.stems_body = document_stems(self.body)


class PublicationClock(models.Model):
    """Until when scheduled publications have been announced (`services.publish_due`):
    one row, moved forward by `manage.py publish_scheduled`."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    processed_until = models.DateTimeField()

    class Meta:
        verbose_name = "zegar publikacji"
        verbose_name_plural = "zegar publikacji"

    def __str__(self) -> str:
        return self.processed_until.isoformat()


class ContentVersion(models.Model):
    """One row whose `version` changes whenever any glossary table is written.

    Database triggers (migration 0004) bump it, so every write path does so — the admin,
    services, the bulk import, raw SQL, a shell — and every server process on every host sees
    an edit on its next read: caches of published content key on it (MCP results, term
    pages). The value is unique rather than increasing (a PostgreSQL sequence, SQLite's
    random()): a rolled-back transaction restores the old value, and the next change must not
    reuse the one the rolled-back change had handed out.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    version = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = "wersja treści"
        verbose_name_plural = "wersje treści"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(id=1),
                name="glossary_contentversion_single_row",
                violation_error_code="single_row",
            )
        ]

    def __str__(self) -> str:
        return str(self.version)
