"""Writes that touch many rows at once (HackSoft style: selectors read, services write).

Each service is one `@transaction.atomic` function that saves row by row through
`Model.save()`, so derived columns, `updated_at` and `last_editor` can never go stale the
way they would behind a bare `QuerySet.update()`.

The one exception is `import_terms`, built for 100,000-row files: it writes with
`bulk_create`/`bulk_update` and inserts M2M through rows itself, so it does by hand what
`save()` would do (`refresh_derived()` on every written row, `updated_at`, both directions
of the symmetrical `related` link), and it leaves unchanged rows untouched.
"""

import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_all_start_methods, get_context

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import CharField, Q, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from . import events
from .importexport import ARTICLE_FIELDS, TERM_FIELDS, ImportErrors, RowError, SourceRow
from .models import SHORT_DEFINITION_MAX, Article, Category, Series, Status, Term, clean_synonyms
from .polish import polish_slugify, sort_key

# Ids per IN (...) lookup: under every SQLite build's bound-parameter limit.
_CHUNK = 900
_BATCH = 1000
_PROGRESS_EVERY = 5000
_TERM_KEYS = frozenset(TERM_FIELDS)
_ARTICLE_KEYS = frozenset(ARTICLE_FIELDS)
# Slugs that are certainly their own polish_slugify(): the common case, checked cheaply.
_PLAIN_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SCALARS = ("name", "short_definition", "body", "synonyms", "status")
# What an update compares and what refresh_derived() reads: derived columns stay unloaded.
_COMPARED = ("id", "slug", *_SCALARS, "published_at")
_UPDATED_FIELDS = (*_SCALARS, *Term.DERIVED_FIELDS, "updated_at")

_STATUSES = frozenset(Status.values)

Progress = Callable[[str], None]


def _chunks(items: Sequence, size: int = _CHUNK):
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass
class ImportReport:
    """What an import did (or, with `dry_run`, would do)."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    categories_created: int = 0
    links_added: int = 0
    links_removed: int = 0
    dry_run: bool = False

    def summary(self) -> str:
        verb = "Do zaimportowania (próba, nic nie zapisano)" if self.dry_run else "Zaimportowano"
        return (
            f"{verb}: nowe pojęcia {self.created}, zmienione {self.updated}, "
            f"bez zmian {self.unchanged}; nowe kategorie {self.categories_created}; "
            f"powiązania dodane {self.links_added}, usunięte {self.links_removed}."
        )


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

    def slug(self, *, max_length: int) -> str | None:
        slug = self.text("slug")
        if slug == "":
            self.error("slug", "Slug jest wymagany.", "required")
        elif slug is not None and not _PLAIN_SLUG.fullmatch(slug) and slug != polish_slugify(slug):
            message = f"Slug „{slug}” może zawierać tylko małe litery a–z, cyfry i myślniki."
            self.error("slug", message, "invalid_slug")
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
    name = check.required_text("name", "Nazwa", 200, "Nazwa jest wymagana.")
    slug = check.slug(max_length=200)
    short_definition = check.text("short_definition")
    if short_definition is not None and len(short_definition) > SHORT_DEFINITION_MAX:
        message = (
            f"Krótka definicja ma {len(short_definition)} znaków, dozwolone {SHORT_DEFINITION_MAX}."
        )
        check.error("short_definition", message, "too_long")
    body = check.text("body", strip=False)
    status = check.status()
    if status == Status.PUBLISHED and short_definition == "":
        message = "Opublikowane pojęcie musi mieć krótką definicję."
        check.error("short_definition", message, "definition_required")

    synonyms = check.text_list("synonyms")
    categories = check.text_list("categories")
    if categories is not None:
        seen, cleaned = set(), []
        for raw in categories:
            category = " ".join(raw.split())
            if not polish_slugify(category):
                message = f"Nazwa kategorii „{raw}” musi zawierać litery lub cyfry."
                check.error("categories", message, "invalid_category")
            elif len(category) > 100:
                message = f"Nazwa kategorii „{category[:40]}…” ma ponad 100 znaków."
                check.error("categories", message, "too_long")
            elif category.lower() not in seen:
                seen.add(category.lower())
                cleaned.append(category)
        categories = cleaned
    related = check.text_list("related")
    if related is not None:
        related = list(dict.fromkeys(item.strip() for item in related if item.strip()))
        if slug and slug in related:
            check.error("related", "Pojęcie nie może być powiązane samo ze sobą.", "self_related")

    if len(check.errors) > before:
        return None
    return _TermRow(
        check=check,
        name=name,
        slug=slug,
        short_definition=short_definition,
        body=body,
        synonyms=clean_synonyms(synonyms),
        categories=categories,
        related=related,
        status=status,
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


_DERIVED_INPUTS = ("name", "slug", "short_definition", "body", "synonyms", "status", "published_at")
_DERIVED_OUTPUTS = ("slug", "synonyms", *Term.DERIVED_FIELDS)
# Below this many rows, starting worker processes costs more than it saves.
_PARALLEL_FROM = 2000
_PARALLEL_CHUNK = 250


def _derived_batches(terms: list[Term], say: Progress) -> Iterator[list[Term]]:
    """Yield `terms` in batches of `_BATCH`, each after `Term.refresh_derived()` ran on it.

    Rendering Markdown is most of the cost of a large import (about half a millisecond per
    term), so big imports run `refresh_derived()` in forked worker processes, one per core,
    and copy the derived values back; the caller writes each batch while the workers go on
    with the next ones. Workers only compute: they never touch the database connection they
    inherit, which is what makes forking inside a transaction safe.
    """
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8)
    if len(terms) < _PARALLEL_FROM or workers < 2 or "fork" not in get_all_start_methods():
        for done, batch in enumerate(_chunks(terms, _BATCH), start=1):
            for term in batch:
                term.refresh_derived()
            _report_progress(say, done * _BATCH, len(terms))
            yield batch
        return
    inputs = [tuple(getattr(term, name) for name in _DERIVED_INPUTS) for term in terms]
    with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
        results = pool.map(_derive, _chunks(inputs, _PARALLEL_CHUNK))
        batch: list[Term] = []
        done = 0
        for chunk, derived in zip(_chunks(terms, _PARALLEL_CHUNK), results, strict=True):
            for term, values in zip(chunk, derived, strict=True):
                for name, value in zip(_DERIVED_OUTPUTS, values, strict=True):
                    setattr(term, name, value)
            batch.extend(chunk)
            if len(batch) >= _BATCH:
                yield batch
                batch = []
            done += len(chunk)
            _report_progress(say, done, len(terms))
        if batch:
            yield batch


def _report_progress(say: Progress, done: int, total: int) -> None:
    if done % _PROGRESS_EVERY == 0 or done >= total:
        say(f"Zapisano {min(done, total)}/{total} pojęć…")


def _derive(inputs: Sequence[tuple]) -> list[tuple]:
    """Worker side of `_refresh_derived`: the model's own method on unsaved copies."""
    out = []
    for values in inputs:
        term = Term(**dict(zip(_DERIVED_INPUTS, values, strict=True)))
        term.refresh_derived()
        out.append(tuple(getattr(term, name) for name in _DERIVED_OUTPUTS))
    return out


def _insert_pairs(through, fields: tuple[str, str], pairs: list[tuple[int, int]]) -> None:
    """Insert rows of an M2M through table without building a model instance per row.

    A 100,000-term file brings close to a million link rows; through `bulk_create()` they
    cost half a minute, as two arrays unnested by PostgreSQL (or one `executemany` on
    other databases) a second or two. Table and column names come from the model's meta.
    """
    if not pairs:
        return
    quote = connection.ops.quote_name
    table = quote(through._meta.db_table)
    columns = ", ".join(quote(through._meta.get_field(name).column) for name in fields)
    pairs.sort()  # a stable insertion order keeps test databases and dumps reproducible
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            sql = (
                f"INSERT INTO {table} ({columns}) SELECT * FROM unnest(%s::bigint[], %s::bigint[])"  # noqa: S608
            )
            for chunk in _chunks(pairs, 100_000):
                cursor.execute(sql, [[a for a, _ in chunk], [b for _, b in chunk]])
        else:
            sql = f"INSERT INTO {table} ({columns}) VALUES (%s, %s)"  # noqa: S608
            cursor.executemany(sql, pairs)


def _unique_slug(name: str, taken: set[str]) -> str:
    base = polish_slugify(name)[:90]
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


@transaction.atomic
def import_terms(
    rows: Iterable[SourceRow], *, dry_run: bool = False, progress: Progress | None = None
) -> ImportReport:
    """Upsert terms by slug from parsed file rows, all or nothing.

    Every row is checked before anything is written; any problem raises `ImportErrors` with
    all of them. The file is authoritative for the terms it lists: each one ends with exactly
    the categories it names and the related links declared on either side within the file
    (links to database terms given by slug included), so links may point forward and form
    cycles. Links between two terms the file does not list are left alone. Rows whose values,
    categories and links already match the database are not written at all.
    """
    say = progress or (lambda message: None)
    rows = list(rows)
    say(f"Sprawdzanie {len(rows)} wierszy…")
    checks = [_RowCheck(row) for row in rows]
    parsed = [row for check in checks if (row := _check_term_row(check)) is not None]
    db_terms = {
        pk: (slug, name) for pk, slug, name in Term.objects.values_list("id", "slug", "name")
    }
    _check_across_rows(checks, parsed, db_terms)
    if errors := [error for check in checks for error in check.errors]:
        raise ImportErrors(errors)

    report = ImportReport(dry_run=dry_run)
    id_by_slug = {slug: pk for pk, (slug, _) in db_terms.items()}
    slug_by_id = {pk: slug for pk, (slug, _) in db_terms.items()}
    existing_ids = [id_by_slug[row.slug] for row in parsed if row.slug in id_by_slug]

    # Current state of the listed terms: fields, categories, links (both directions).
    existing: dict[str, Term] = {}
    category_rows: dict[tuple[str, int], int] = {}  # (term slug, category id) -> through id
    link_rows: dict[tuple[str, str], int] = {}  # (from slug, to slug) -> through id
    category_through, related_through = Term.categories.through, Term.related.through
    for chunk in _chunks(existing_ids):
        existing.update(
            (term.slug, term)
            for term in Term.objects.filter(id__in=chunk).order_by().only(*_COMPARED)
        )
        for pk, term_id, category_id in category_through.objects.filter(
            term_id__in=chunk
        ).values_list("id", "term_id", "category_id"):
            category_rows[slug_by_id[term_id], category_id] = pk
        for pk, from_id, to_id in related_through.objects.filter(
            Q(from_term_id__in=chunk) | Q(to_term_id__in=chunk)
        ).values_list("id", "from_term_id", "to_term_id"):
            link_rows[slug_by_id[from_id], slug_by_id[to_id]] = pk

    # Categories by name, case-insensitively, as the database's unique constraint compares.
    categories = {
        name.lower(): (pk, name, slug)
        for pk, name, slug in Category.objects.values_list("id", "name", "slug")
    }
    category_slugs = {slug for _, _, slug in categories.values()}
    new_categories: dict[str, Category] = {}
    for row in parsed:
        for name in row.categories:
            key = name.lower()
            if key not in categories and key not in new_categories:
                slug = _unique_slug(name, category_slugs)
                new_categories[key] = Category(name=name, slug=slug)
    report.categories_created = len(new_categories)

    # Wanted state, in slug space so a dry run can compare it without ids.
    wanted_links: set[tuple[str, str]] = set()
    for row in parsed:
        for target in row.related:
            wanted_links.update(((row.slug, target), (target, row.slug)))
    wanted_categories = {(row.slug, name.lower()) for row in parsed for name in row.categories}
    current_categories: dict[str, set[str]] = defaultdict(set)
    by_id = {pk: key for key, (pk, _, _) in categories.items()}
    for term_slug, category_id in category_rows:
        current_categories[term_slug].add(by_id[category_id])
    current_links: dict[str, set[str]] = defaultdict(set)
    for a, b in link_rows:
        current_links[a].add(b)
        current_links[b].add(a)
    links_of: dict[str, set[str]] = defaultdict(set)
    for a, b in wanted_links:
        links_of[a].add(b)

    to_create: list[Term] = []
    to_update: list[Term] = []
    for row in parsed:
        term = existing.get(row.slug)
        if term is None:
            to_create.append(Term(slug=row.slug, **{key: getattr(row, key) for key in _SCALARS}))
            continue
        same = (
            all(getattr(term, key) == getattr(row, key) for key in _SCALARS)
            and current_categories[row.slug] == {name.lower() for name in row.categories}
            and current_links[row.slug] == links_of[row.slug]
        )
        if same:
            report.unchanged += 1
            continue
        for key in _SCALARS:
            setattr(term, key, getattr(row, key))
        to_update.append(term)
    report.created, report.updated = len(to_create), len(to_update)

    listed = {row.slug for row in parsed}
    links_to_remove = [pk for pair, pk in link_rows.items() if pair not in wanted_links]
    links_to_add = [pair for pair in wanted_links if pair not in link_rows]
    report.links_added, report.links_removed = len(links_to_add), len(links_to_remove)
    if dry_run:
        return report

    say("Zapisywanie kategorii…")
    if new_categories:
        created = Category.objects.bulk_create(new_categories.values(), batch_size=_BATCH)
        if any(category.pk is None for category in created):
            created = Category.objects.filter(slug__in=[c.slug for c in created])
        categories.update((c.name.lower(), (c.pk, c.name, c.slug)) for c in created)

    # A renamed term may take a name another listed term still holds (a swap); the unique
    # index is checked row by row, so holders first step aside under a placeholder name.
    wanted_names = {row.name.lower(): row.slug for row in parsed}
    holders = [
        id_by_slug[slug]
        for slug in listed & id_by_slug.keys()
        if wanted_names.get(db_terms[id_by_slug[slug]][1].lower(), slug) != slug
    ]
    for chunk in _chunks(holders):
        Term.objects.filter(id__in=chunk).update(
            name=Concat(Value("\u2060import "), Cast("id", output_field=CharField()))
        )

    say(f"Zapisywanie pojęć: zmienione {len(to_update)}, nowe {len(to_create)}…")
    written = [*to_update, *to_create]
    now = timezone.now()
    for batch in _derived_batches(written, say):
        for term in batch:
            term.updated_at = now
        if updates := [term for term in batch if term.pk is not None]:
            Term.objects.bulk_update(updates, _UPDATED_FIELDS, batch_size=500)
        if creates := [term for term in batch if term.pk is None]:
            Term.objects.bulk_create(creates)
    missing = [term.slug for term in to_create if term.pk is None]
    for chunk in _chunks(missing):  # backends that cannot return ids from a bulk insert
        id_by_slug.update(Term.objects.filter(slug__in=chunk).values_list("slug", "id"))
    id_by_slug.update((term.slug, term.pk) for term in to_create if term.pk is not None)
    # Bulk writes send no model signals: live pages and MCP subscribers hear of them here.
    events.entries_changed(written)

    say("Zapisywanie kategorii i powiązań pojęć…")
    stale = [
        pk
        for (slug, category_id), pk in category_rows.items()
        if (slug, by_id[category_id]) not in wanted_categories
    ]
    for chunk in _chunks(stale):
        category_through.objects.filter(id__in=chunk).delete()
    have = {(slug, by_id[category_id]) for slug, category_id in category_rows}
    _insert_pairs(
        category_through,
        ("term", "category"),
        [(id_by_slug[slug], categories[key][0]) for slug, key in wanted_categories - have],
    )
    for chunk in _chunks(links_to_remove):
        related_through.objects.filter(id__in=chunk).delete()
    _insert_pairs(
        related_through,
        ("from_term", "to_term"),
        [(id_by_slug[a], id_by_slug[b]) for a, b in links_to_add],
    )
    say(report.summary())
    return report


def export_terms() -> list[dict]:
    """Every term, drafts included, as export rows: the inverse of `import_terms`.

    Terms are ordered by slug, categories by Polish alphabetical order and related slugs
    alphabetically, so exporting the same content twice gives byte-identical files;
    synonyms keep the editor's order. Three queries, whatever the size of the glossary.
    """
    categories: dict[int, list[str]] = defaultdict(list)
    for term_id, name in Term.categories.through.objects.values_list("term_id", "category__name"):
        categories[term_id].append(name)
    related: dict[int, list[str]] = defaultdict(list)
    for from_id, to_slug in Term.related.through.objects.values_list(
        "from_term_id", "to_term__slug"
    ):
        related[from_id].append(to_slug)
    rows = [
        {
            "name": name,
            "slug": slug,
            "short_definition": short_definition,
            "body": body,
            "synonyms": list(synonyms),
            "categories": sorted(categories[pk], key=lambda item: (sort_key(item), item)),
            "related": sorted(related[pk]),
            "status": status,
        }
        for pk, name, slug, short_definition, body, synonyms, status in (
            Term.objects.order_by().values_list(
                "id", "name", "slug", "short_definition", "body", "synonyms", "status"
            )
        )
    ]
    # Sorted here, not by the database, whose collation may ignore hyphens.
    rows.sort(key=lambda row: row["slug"])
    return rows


@dataclass
class ArticleImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def summary(self) -> str:
        return (
            f"Artykuły: nowe {self.created}, zmienione {self.updated}, bez zmian {self.unchanged}."
        )


def _check_article_row(check: _RowCheck, term_ids, seen) -> dict | None:
    if not check.is_object(_ARTICLE_KEYS):
        return None
    before = len(check.errors)
    title = check.required_text("title", "Tytuł", 250, "Tytuł jest wymagany.")
    slug = check.slug(max_length=250)
    if slug:
        if slug in seen:
            message = f"Slug „{slug}” powtarza się (pierwszy raz: {seen[slug]})."
            check.error("slug", message, "duplicate_slug")
        seen.setdefault(slug, check.position)
    lead = check.text("lead")
    body = check.text("body", strip=False)
    status = check.status()
    terms = check.text_list("terms") or []
    for term_slug in terms:
        if term_slug not in term_ids:
            check.error("terms", f"Pojęcie „{term_slug}” nie istnieje.", "unknown_term")
    series = check.data.get("series")
    if series is not None and (not isinstance(series, str) or not series.strip()):
        check.error("series", "Oczekiwano nazwy serii albo null.", "invalid_type")
    order = check.data.get("series_order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int) or order < 1):
        message = "Oczekiwano dodatniej liczby całkowitej albo null."
        check.error("series_order", message, "invalid_type")
    if series and order is None:
        message = "Artykuł w serii musi mieć numer kolejny."
        check.error("series_order", message, "series_order_required")
    if len(check.errors) > before:
        return None
    return {
        "slug": slug,
        "title": title,
        "lead": lead,
        "body": body,
        "status": status,
        "terms": {term_ids[term_slug] for term_slug in terms},
        "series": series.strip() if series else None,
        "series_order": order,
    }


@transaction.atomic
def import_articles(rows: Iterable[SourceRow]) -> ArticleImportReport:
    """Upsert articles by slug, and their series by name, all or nothing.

    The terms an article names (by slug) must already exist; its term list replaces the
    current one. Rows that already match the database are not saved again, so loading the
    same file twice changes nothing, `updated_at` included. Sized for editorial files
    (dozens of articles): rows are saved one by one through `Article.save()`.
    """
    rows = list(rows)
    checks = [_RowCheck(row) for row in rows]
    term_ids = dict(Term.objects.values_list("slug", "id"))
    seen: dict[str, str] = {}
    parsed = [
        item for check in checks if (item := _check_article_row(check, term_ids, seen)) is not None
    ]
    if errors := [error for check in checks for error in check.errors]:
        raise ImportErrors(errors)

    report = ArticleImportReport()
    existing = Article.objects.in_bulk([item["slug"] for item in parsed], field_name="slug")
    current_terms: dict[int, set[int]] = defaultdict(set)
    for article_id, term_id in Article.terms.through.objects.filter(
        article_id__in=[article.pk for article in existing.values()]
    ).values_list("article_id", "term_id"):
        current_terms[article_id].add(term_id)
    series_by_name = {series.name: series for series in Series.objects.all()}
    series_slugs = {series.slug for series in series_by_name.values()}
    for item in parsed:
        series = None
        if item["series"]:
            series = series_by_name.get(item["series"])
            if series is None:
                slug = _unique_slug(item["series"], series_slugs)
                series = series_by_name[item["series"]] = Series.objects.create(
                    name=item["series"], slug=slug
                )
        values = {
            "title": item["title"],
            "lead": item["lead"],
            "body": item["body"],
            "status": item["status"],
            "series_id": series.pk if series else None,
            "series_order": item["series_order"],
        }
        article = existing.get(item["slug"])
        if (
            article is not None
            and all(getattr(article, key) == value for key, value in values.items())
            and current_terms[article.pk] == item["terms"]
        ):
            report.unchanged += 1
            continue
        if article is None:
            article = Article(slug=item["slug"])
            report.created += 1
        else:
            report.updated += 1
        for key, value in values.items():
            setattr(article, key, value)
        article.save()
        article.terms.set(item["terms"])
    return report


@dataclass
class BulkOutcome:
    """What a bulk status change did: rows changed, rows left alone and why."""

    changed: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    skipped: list[tuple[object, list[str]]] = field(default_factory=list)


@transaction.atomic
def publish_entries(*, entries, editor) -> BulkOutcome:
    """Publish every draft in `entries` (terms or articles) that passes full validation.

    A row the database would refuse (e.g. a term without a short definition) is skipped and
    reported with the model's own messages instead of aborting the whole batch. Rows already
    published (live or scheduled) keep their publication date.
    """
    outcome = BulkOutcome()
    for entry in entries:
        if entry.status == Status.PUBLISHED:
            outcome.unchanged.append(entry)
            continue
        entry.status = Status.PUBLISHED
        entry.refresh_derived()  # stamps published_at, which the constraints check
        try:
            entry.full_clean()
        except ValidationError as exc:
            outcome.skipped.append((entry, exc.messages))
            continue
        entry.last_editor = editor
        entry.save()
        outcome.changed.append(entry)
    return outcome


@transaction.atomic
def unpublish_entries(*, entries, editor) -> BulkOutcome:
    """Turn every published entry in `entries` back into a draft.

    `published_at` is kept on purpose: re-publishing a withdrawn entry restores its
    original date instead of presenting old content as new in feeds.
    """
    outcome = BulkOutcome()
    for entry in entries:
        if entry.status == Status.DRAFT:
            outcome.unchanged.append(entry)
            continue
        entry.status = Status.DRAFT
        entry.last_editor = editor
        entry.save()
        outcome.changed.append(entry)
    return outcome


# --- One entry at a time: the REST API's writes ----------------------------------------------
# The same rules as the admin, from the same place: the admin's ModelForm (input adaptation:
# slug from the name, an empty publication date meaning "now", no self-links) over the model's
# fields, clean() and constraints (uniqueness, the short definition a published term needs).
# Imports are local so that this block stays independent of the import code above.


def _save_with_form(form_class, instance, changes: dict, editor):
    """Apply `changes` (model field names; absent fields keep their values) through
    `form_class`, stamp `editor` and save with the M2M links, or raise ValidationError with
    every problem by field and change nothing."""
    from django.db import IntegrityError
    from django.forms.models import model_to_dict

    data = model_to_dict(instance, fields=form_class._meta.fields)
    for name, value in list(data.items()):
        if isinstance(value, list):  # M2M: instances -> ids, as a form submission carries them
            data[name] = [getattr(item, "pk", item) for item in value]
    data.update(changes)
    form = form_class(data=data, instance=instance)
    if not form.is_valid():
        raise ValidationError(form.errors.as_data())
    entry = form.save(commit=False)
    entry.last_editor = editor
    try:
        with transaction.atomic():
            entry.save()
            form.save_m2m()
    except IntegrityError as exc:  # a concurrent write took the slug or the name first
        raise ValidationError(
            "Ktoś właśnie zapisał wpis o tej samej nazwie albo slugu; sprawdź i spróbuj ponownie.",
            code="conflict",
        ) from exc
    return entry


@transaction.atomic
def save_term(*, editor, changes: dict, term: Term | None = None) -> Term:
    """Create (`term` None) or update one term. `changes` uses the model's field names
    (`name`, `slug`, `short_definition`, `body`, `synonyms`, `categories` and `related` as
    ids, `status`, `published_at`). Change events and the content version follow from the
    save (signals, triggers), as for an admin save."""
    from .forms import TermAdminForm

    return _save_with_form(TermAdminForm, term or Term(), changes, editor)


@transaction.atomic
def save_article(*, editor, changes: dict, article: Article | None = None) -> Article:
    """Create or update one article (`title`, `slug`, `lead`, `body`, `terms` as ids,
    `series` id, `series_order`, `status`, `published_at`, `author` id). A new article's
    author is the editor unless `changes` names one, as in the admin."""
    from .forms import ArticleAdminForm

    if article is None:
        article = Article()
        changes = {"author": getattr(editor, "pk", None), **changes}
    return _save_with_form(ArticleAdminForm, article, changes, editor)


@transaction.atomic
def delete_entry(*, entry) -> None:
    """Delete a term or an article (and its links); readers and agents hear of it through the
    same change events as an admin delete."""
    entry.delete()
