"""Phase 1 of an import: each row's own rules, then the rules that need the whole file and the
database; any problem raises `ImportErrors` with all of them, before anything is written."""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from ..importexport import ARTICLE_FIELDS, TERM_FIELDS, ImportErrors, RowError, SourceRow
from ..models import (
    DEFINITION_REQUIRED,
    ENGLISH_FIELDS,
    INVALID_SLUG,
    SELF_RELATED,
    Article,
    Category,
    Status,
    Term,
    clean_synonyms,
    plain_text,
    plain_texts,
)
from ..polish import polish_slugify

_TERM_KEYS = frozenset(TERM_FIELDS)
_ARTICLE_KEYS = frozenset(ARTICLE_FIELDS)
# Slugs that are certainly their own polish_slugify(): the common case, checked cheaply.
_PLAIN_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_STATUSES = frozenset(Status.values)


def _max_length(model, name: str) -> int:
    return model._meta.get_field(name).max_length


# The model's limits, read once.
_TERM_NAME_MAX = _max_length(Term, "name")
_TERM_SLUG_MAX = _max_length(Term, "slug")
_DEFINITION_MAX = _max_length(Term, "short_definition")
_ENGLISH_MAX = {name: _max_length(Term, name) for name in ENGLISH_FIELDS}
_CATEGORY_NAME_MAX = _max_length(Category, "name")
_TITLE_MAX = _max_length(Article, "title")
_ARTICLE_SLUG_MAX = _max_length(Article, "slug")


@dataclass
class _TermRow:
    """A row that passed its own checks, values normalized the way the model stores them."""

    check: "_RowCheck"
    name: str
    slug: str
    short_definition: str
    body: str
    synonyms: list[str]
    categories: list[str]  # names, whitespace collapsed, distinct case-insensitively
    related: list[str]
    status: str
    # Optional columns: None when the file leaves them out, and a listed term keeps what it
    # has (a file written before they existed erases no editor's work).
    english_name: str | None = None
    english_definition: str | None = None
    asked_as: list[str] | None = None


class _RowCheck:
    """The checks of one file row: typed reads of its values that record what is wrong."""

    def __init__(self, row: SourceRow):
        self.position, self.data = row.position, row.data
        self.errors: list[RowError] = list(row.errors)

    def error(self, field_name: str | None, message: str, code: str) -> None:
        self.errors.append(RowError(self.position, field_name, message, code))

    def is_object(self, allowed_keys: frozenset) -> bool:
        if not isinstance(self.data, dict):
            self.error(None, "Element musi być obiektem.", "invalid_type")
            return False
        for key in sorted(set(self.data) - allowed_keys, key=str):
            self.error(str(key), "Nieznane pole.", "unknown_field")
        return True

    def text(self, key: str, default: str = "", *, strip: bool = True) -> str | None:
        value = self.data.get(key, default)
        if not isinstance(value, str):
            self.error(key, "Oczekiwano napisu.", "invalid_type")
            return None
        return value.strip() if strip else value

    def required_text(self, key: str, label: str, max_length: int, missing: str) -> str | None:
        value = self.text(key) if key in self.data else ""
        if value == "":
            self.error(key, missing, "required")
        elif value is not None and len(value) > max_length:
            self.error(key, f"{label} ma ponad {max_length} znaków.", "too_long")
        return value

    def text_list(self, key: str) -> list[str] | None:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.error(key, "Oczekiwano listy napisów.", "invalid_type")
            return None
        return value

    def plain_text(self, key: str, label: str, max_length: int) -> str | None:
        """An optional one-line plain-text value (`models.plain_text`); None when absent."""
        if key not in self.data:
            return None
        value = self.text(key)
        if value is None:
            return None
        try:
            value = plain_text(value)
        except ValidationError as exc:
            self.error(key, exc.messages[0], exc.code)
            return None
        if len(value) > max_length:
            self.error(key, f"{label} ma {len(value)} znaków, dozwolone {max_length}.", "too_long")
        return value

    def phrases(self, key: str, *, optional: bool = False) -> list[str] | None:
        """A list of phrases kept like synonyms (`clean_synonyms`), each plain text; absent
        is an empty list, or None when `optional`."""
        if optional and key not in self.data:
            return None
        value = self.text_list(key)
        if value is None:
            return None
        try:
            return clean_synonyms(plain_texts(value))
        except ValidationError as exc:
            self.error(key, exc.messages[0], exc.code)
            return None

    def slug(self, *, max_length: int) -> str | None:
        slug = self.text("slug")
        if slug == "":
            self.error("slug", "Slug jest wymagany.", "required")
        elif slug is not None and not _PLAIN_SLUG.fullmatch(slug) and slug != polish_slugify(slug):
            self.error("slug", f"{INVALID_SLUG} Podano: „{slug}”.", "invalid_slug")
        elif slug is not None and len(slug) > max_length:
            self.error("slug", f"Slug ma ponad {max_length} znaków.", "too_long")
        return slug

    def status(self) -> str | None:
        status = self.text("status", Status.DRAFT)
        if status is not None and status not in _STATUSES:
            message = f"Status „{status}” jest nieznany (dozwolone: draft, published)."
            self.error("status", message, "invalid_status")
        return status


def _check_term_row(check: _RowCheck) -> _TermRow | None:
    """The row's own rules; None when it cannot be imported (its errors are in `check`)."""
    if not check.is_object(_TERM_KEYS):
        return None
    before = len(check.errors)
    name = check.required_text("name", "Nazwa", _TERM_NAME_MAX, "Nazwa jest wymagana.")
    slug = check.slug(max_length=_TERM_SLUG_MAX)
    short_definition = check.text("short_definition")
    if short_definition is not None and len(short_definition) > _DEFINITION_MAX:
        length = len(short_definition)
        message = f"Krótka definicja ma {length} znaków, dozwolone {_DEFINITION_MAX}."
        check.error("short_definition", message, "too_long")
    body = check.text("body", strip=False)
    status = check.status()
    if status == Status.PUBLISHED and short_definition == "":
        check.error("short_definition", DEFINITION_REQUIRED, "definition_required")

    synonyms = check.phrases("synonyms")
    english_name = check.plain_text("english_name", "Nazwa angielska", _ENGLISH_MAX["english_name"])
    english_definition = check.plain_text(
        "english_definition", "Definicja angielska", _ENGLISH_MAX["english_definition"]
    )
    asked_as = check.phrases("asked_as", optional=True)
    categories = check.text_list("categories")
    if categories is not None:
        seen, cleaned = set(), []
        for raw in categories:
            category = " ".join(raw.split())
            if not polish_slugify(category):
                message = f"Nazwa kategorii „{raw}” musi zawierać litery lub cyfry."
                check.error("categories", message, "invalid_category")
            elif len(category) > _CATEGORY_NAME_MAX:
                message = (
                    f"Nazwa kategorii „{category[:40]}…” ma ponad {_CATEGORY_NAME_MAX} znaków."
                )
                check.error("categories", message, "too_long")
            elif category.lower() not in seen:
                seen.add(category.lower())
                cleaned.append(category)
        categories = cleaned
    related = check.text_list("related")
    if related is not None:
        related = list(dict.fromkeys(item.strip() for item in related if item.strip()))
        if slug and slug in related:
            check.error("related", SELF_RELATED, "self_related")

    if len(check.errors) > before:
        return None
    return _TermRow(
        check=check,
        name=name,
        slug=slug,
        short_definition=short_definition,
        body=body,
        synonyms=synonyms,
        categories=categories,
        related=related,
        status=status,
        english_name=english_name,
        english_definition=english_definition,
        asked_as=asked_as,
    )


def _check_across_rows(checks: list[_RowCheck], parsed: list[_TermRow], db_terms) -> None:
    """Rules that need the whole file and the database: uniqueness and related slugs."""
    file_slugs: dict[str, str] = {}
    for check in checks:
        slug = check.data.get("slug") if isinstance(check.data, dict) else None
        if isinstance(slug, str) and slug.strip():
            slug = slug.strip()
            if slug in file_slugs:
                message = f"Slug „{slug}” powtarza się (pierwszy raz: {file_slugs[slug]})."
                check.error("slug", message, "duplicate_slug")
            else:
                file_slugs[slug] = check.position
    db_slugs = {slug for slug, _ in db_terms.values()}
    db_names = {name.lower(): slug for slug, name in db_terms.values() if slug not in file_slugs}
    file_names: dict[str, str] = {}
    for row in parsed:
        key = row.name.lower()
        if key in file_names:
            message = f"Nazwa „{row.name}” powtarza się (pierwszy raz: {file_names[key]})."
            row.check.error("name", message, "duplicate_name")
        else:
            file_names[key] = row.check.position
        if key in db_names:
            message = f"Nazwa „{row.name}” należy już do pojęcia „{db_names[key]}” w bazie."
            row.check.error("name", message, "duplicate_name")
        for target in row.related:
            if target not in file_slugs and target not in db_slugs:
                message = f"Powiązane pojęcie „{target}” nie istnieje ani w pliku, ani w bazie."
                row.check.error("related", message, "unknown_related")


def check_terms(rows: Iterable[SourceRow]) -> tuple[list[_TermRow], dict[int, tuple[str, str]]]:
    """Phase 1: the rows that pass every rule, normalized, and the database's terms as
    {id: (slug, name)}; any problem raises `ImportErrors` listing all of them."""
    checks = [_RowCheck(row) for row in rows]
    parsed = [row for check in checks if (row := _check_term_row(check)) is not None]
    db_terms = {
        pk: (slug, name) for pk, slug, name in Term.objects.values_list("id", "slug", "name")
    }
    _check_across_rows(checks, parsed, db_terms)
    if errors := [error for check in checks for error in check.errors]:
        raise ImportErrors(errors)
    return parsed, db_terms
