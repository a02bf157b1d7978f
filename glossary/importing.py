"""Importing the glossary from files: every row checked, then a plan, then the writes.

`import_terms` is built for 100,000-row files and runs in three phases:

- **check** (`check_terms`): each row's own rules, then the rules that need the whole file
  and the database (unique slugs and names, related slugs that exist). Any problem raises
  `ImportErrors` with all of them, and nothing has been written. Limits and messages are the
  model's own (`Term._meta`, `glossary.models` messages), so the admin, the import and the
  database refuse the same things with the same words.
- **plan** (`plan_terms`): what the database holds for the listed terms (their fields,
  categories and links, a constant number of queries per 900 terms) against what the file
  wants: terms to create and update, categories to create, links to add and remove. A dry run
  stops here and reports the plan.
- **apply** (`apply_terms`): `bulk_create`/`bulk_update` and M2M through rows inserted
  directly, so it does by hand what `save()` would do (`refresh_derived()` on every written
  row, `updated_at`, both directions of the symmetrical `related` link, the content-change
  events); rows that already match the database are left untouched.

After the writes, the terms' stored auto-links are updated in every text the change concerns
(`services.relink_after_term_changes`) and the import is one revision, written in bulk
(`_import_revision`).

`import_articles` (editorial files of dozens of rows) checks every row first too, then saves
row by row through `services.save_article` (a revision each, linked). `export_terms` is the
inverse of `import_terms`.
"""

import json
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_all_start_methods, get_context

from django.db import connection, transaction
from django.db.models import CharField, Q, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from . import autolink, events
from .importexport import ARTICLE_FIELDS, TERM_FIELDS, ImportErrors, RowError, SourceRow
from .models import (
    DEFINITION_REQUIRED,
    INVALID_SLUG,
    SELF_RELATED,
    SERIES_ORDER_REQUIRED,
    TERM_REVISION_FIELDS,
    Article,
    Category,
    Series,
    Status,
    Term,
    clean_synonyms,
)
from .polish import polish_slugify, sort_key
from .services import relink_after_term_changes, save_article

_CHUNK = 900
_BATCH = 1000
# From this many rows on, PostgreSQL gets them by COPY (`copy_rows`); an edit's few rows keep
# one ordinary statement (and the query counts that tests assert).
COPY_FROM = 500
# From this many written terms on, the import refreshes PostgreSQL's statistics of the tables it
# grew before reading them back (`_analyze`).
ANALYZE_FROM = 2000
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


def _max_length(model, name: str) -> int:
    return model._meta.get_field(name).max_length


# The model's limits, read once.
_TERM_NAME_MAX = _max_length(Term, "name")
_TERM_SLUG_MAX = _max_length(Term, "slug")
_DEFINITION_MAX = _max_length(Term, "short_definition")
_CATEGORY_NAME_MAX = _max_length(Category, "name")
_TITLE_MAX = _max_length(Article, "title")
_ARTICLE_SLUG_MAX = _max_length(Article, "slug")

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

    synonyms = check.text_list("synonyms")
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
    """Worker side of `_derived_batches`: the model's own `refresh_derived()` on unsaved copies."""
    out = []
    for values in inputs:
        term = Term(**dict(zip(_DERIVED_INPUTS, values, strict=True)))
        term.refresh_derived()
        out.append(tuple(getattr(term, name) for name in _DERIVED_OUTPUTS))
    return out


def insert_link_rows(through, fields: tuple[str, str], pairs: list[tuple[int, int]]) -> None:
    """Insert rows of an M2M through table without building a model instance per row.

    A 100,000-term file brings close to a million link rows; through `bulk_create()` they
    cost half a minute; PostgreSQL gets them by COPY (`copy_rows`), other databases by one
    `executemany`. Table and column names come from the model's meta.
    """
    if not pairs:
        return
    pairs.sort()  # a stable insertion order keeps test databases and dumps reproducible
    if connection.vendor == "postgresql" and len(pairs) >= COPY_FROM:
        columns = [through._meta.get_field(name).column for name in fields]
        copy_rows(through._meta.db_table, columns, pairs)
        return
    quote = connection.ops.quote_name
    table = quote(through._meta.db_table)
    columns = ", ".join(quote(through._meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # an edit's few rows: one statement
            sql = (
                f"INSERT INTO {table} ({columns}) SELECT * FROM unnest(%s::bigint[], %s::bigint[])"  # noqa: S608
            )
            cursor.execute(sql, [[a for a, _ in pairs], [b for _, b in pairs]])
        else:
            sql = f"INSERT INTO {table} ({columns}) VALUES (%s, %s)"  # noqa: S608
            cursor.executemany(sql, pairs)


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """PostgreSQL only: `COPY table (columns) FROM STDIN` of `rows` (values as the database
    takes them: `get_db_prep_save` output). COPY is PostgreSQL's bulk path: rows stream in
    psycopg's C encoder with no statement to parse, no parameter limit and no Python quoting,
    where an INSERT of arrays paid a regex substitution per string (text array dumper) and
    `bulk_create` compiled a 25,000-placeholder statement per thousand rows. INSERT triggers
    (the content version) fire for COPY as for INSERT. Names come from models' meta."""
    quote = connection.ops.quote_name
    sql = f"COPY {quote(table)} ({', '.join(quote(c) for c in columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


def bulk_insert(model, objs: list) -> None:
    """`model.objects.bulk_create(objs)` with ids set on `objs`; on PostgreSQL by COPY with
    ids taken from the table's own sequence first (one query), each field prepared exactly
    as Django's insert prepares it (`pre_save`, `get_db_prep_save`)."""
    if not objs:
        return
    if connection.vendor != "postgresql" or len(objs) < COPY_FROM:
        model.objects.bulk_create(objs, batch_size=_BATCH)
        return
    meta = model._meta
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [connection.ops.quote_name(meta.db_table), meta.pk.column, len(objs)],
        )
        ids = [row[0] for row in cursor.fetchall()]
    fields = meta.concrete_fields
    for obj, pk in zip(objs, ids, strict=True):
        obj.pk = pk
    copy_rows(
        meta.db_table,
        [field.column for field in fields],
        (
            [field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields]
            for obj in objs
        ),
    )
    for obj in objs:
        obj._state.adding, obj._state.db = False, connection.alias


def _unique_slug(name: str, taken: set[str]) -> str:
    base = polish_slugify(name)[:90]
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


# --- check ----------------------------------------------------------------------------------
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


# --- plan -----------------------------------------------------------------------------------
@dataclass
class TermPlan:
    """What an import will write, worked out in slug space (so a dry run needs no ids)."""

    report: ImportReport
    listed: set[str]
    db_terms: dict[int, tuple[str, str]]  # id -> (slug, name), before the import
    id_by_slug: dict[str, int]
    wanted_names: dict[str, str]  # lower-cased name -> the listed slug that wants it
    categories: dict[str, tuple[int, str, str]]  # lower-cased name -> (id, name, slug)
    new_categories: dict[str, Category]
    to_create: list[Term]
    to_update: list[Term]
    category_rows: dict[tuple[str, int], int]  # (term slug, category id) -> through id
    wanted_categories: set[tuple[str, str]]  # (term slug, lower-cased category name)
    links_to_add: list[tuple[str, str]]
    links_to_remove: list[int]  # through ids


def _current_links(existing_ids: list[int], slug_by_id: dict[int, str]):
    """The listed terms' rows, category rows and link rows (both directions) as they are."""
    existing: dict[str, Term] = {}
    category_rows: dict[tuple[str, int], int] = {}
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
    return existing, category_rows, link_rows


def plan_terms(
    parsed: list[_TermRow], db_terms: dict[int, tuple[str, str]], *, dry_run: bool = False
) -> TermPlan:
    """Phase 2: compare what the file wants with what the database holds for the terms it
    lists (a constant number of queries per chunk of terms)."""
    report = ImportReport(dry_run=dry_run)
    id_by_slug = {slug: pk for pk, (slug, _) in db_terms.items()}
    slug_by_id = {pk: slug for pk, (slug, _) in db_terms.items()}
    existing_ids = [id_by_slug[row.slug] for row in parsed if row.slug in id_by_slug]
    existing, category_rows, link_rows = _current_links(existing_ids, slug_by_id)

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

    wanted_links: set[tuple[str, str]] = set()
    for row in parsed:
        for target in row.related:
            wanted_links.update(((row.slug, target), (target, row.slug)))
    wanted_categories = {(row.slug, name.lower()) for row in parsed for name in row.categories}
    by_id = {pk: key for key, (pk, _, _) in categories.items()}
    current_categories: dict[str, set[str]] = defaultdict(set)
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

    links_to_remove = [pk for pair, pk in link_rows.items() if pair not in wanted_links]
    links_to_add = [pair for pair in wanted_links if pair not in link_rows]
    report.links_added, report.links_removed = len(links_to_add), len(links_to_remove)
    return TermPlan(
        report=report,
        listed={row.slug for row in parsed},
        db_terms=db_terms,
        id_by_slug=id_by_slug,
        wanted_names={row.name.lower(): row.slug for row in parsed},
        categories=categories,
        new_categories=new_categories,
        to_create=to_create,
        to_update=to_update,
        category_rows=category_rows,
        wanted_categories=wanted_categories,
        links_to_add=links_to_add,
        links_to_remove=links_to_remove,
    )


# --- apply ----------------------------------------------------------------------------------
@contextmanager
def server_side_binding():
    """Bulk statements with their values bound by the server, not quoted into the SQL.

    Without `DB_SERVER_SIDE_BINDING` Django's PostgreSQL connection uses psycopg's
    `ClientCursor`, which escapes every value into the statement text in Python: for an
    import's bulk inserts, array parameters of thousands of bodies and the revisions' JSON,
    that quoting was the largest single cost of the apply phase (a regex substitution per
    string). Inside this block the connection's cursors are Django's own
    `ServerBindingCursor` (what `DB_SERVER_SIDE_BINDING=1` selects for the whole site, so
    every statement here also runs that way in production); other databases are untouched.
    Seam: Django's `cursor_factory` choice in `postgresql/base.py`, guarded by
    tests/glossary/test_import_export.py."""
    if connection.vendor != "postgresql" or connection.features.uses_server_side_binding:
        yield
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    raw = connection.connection
    previous = raw.cursor_factory
    raw.cursor_factory = ServerBindingCursor
    try:
        yield
    finally:
        raw.cursor_factory = previous


def apply_terms(plan: TermPlan, say: Progress) -> None:
    """Phase 3: write the plan (inside the caller's transaction)."""
    with server_side_binding():
        _apply_terms(plan, say)


def _apply_terms(plan: TermPlan, say: Progress) -> None:
    categories, id_by_slug, db_terms = plan.categories, plan.id_by_slug, plan.db_terms
    by_id = {pk: key for key, (pk, _, _) in categories.items()}  # existing categories only
    # What the texts that link these terms show of them, before the writes (autolink).
    befores = autolink.states_in_db([term.pk for term in plan.to_update])
    say("Zapisywanie kategorii…")
    if plan.new_categories:
        created = Category.objects.bulk_create(plan.new_categories.values(), batch_size=_BATCH)
        if any(category.pk is None for category in created):
            created = Category.objects.filter(slug__in=[c.slug for c in created])
        categories.update((c.name.lower(), (c.pk, c.name, c.slug)) for c in created)

    # A renamed term may take a name another listed term still holds (a swap); the unique
    # index is checked row by row, so holders first step aside under a placeholder name.
    holders = [
        id_by_slug[slug]
        for slug in plan.listed & id_by_slug.keys()
        if plan.wanted_names.get(db_terms[id_by_slug[slug]][1].lower(), slug) != slug
    ]
    for chunk in _chunks(holders):
        Term.objects.filter(id__in=chunk).update(
            name=Concat(Value("\u2060import "), Cast("id", output_field=CharField()))
        )

    to_create, to_update = plan.to_create, plan.to_update
    say(f"Zapisywanie pojęć: zmienione {len(to_update)}, nowe {len(to_create)}…")
    written = [*to_update, *to_create]
    now = timezone.now()
    for batch in _derived_batches(written, say):
        for term in batch:
            term.updated_at = now
        if updates := [term for term in batch if term.pk is not None]:
            Term.objects.bulk_update(updates, _UPDATED_FIELDS, batch_size=500)
        if creates := [term for term in batch if term.pk is None]:
            bulk_insert(Term, creates)
    missing = [term.slug for term in to_create if term.pk is None]
    for chunk in _chunks(missing):  # backends that cannot return ids from a bulk insert
        id_by_slug.update(Term.objects.filter(slug__in=chunk).values_list("slug", "id"))
    id_by_slug.update((term.slug, term.pk) for term in to_create if term.pk is not None)
    # Bulk writes send no model signals: live pages and MCP subscribers hear of them here.
    events.entries_changed(written)

    say("Zapisywanie kategorii i powiązań pojęć…")
    category_through, related_through = Term.categories.through, Term.related.through
    stale = [
        pk
        for (slug, category_id), pk in plan.category_rows.items()
        if (slug, by_id[category_id]) not in plan.wanted_categories
    ]
    for chunk in _chunks(stale):
        category_through.objects.filter(id__in=chunk).delete()
    have = {(slug, by_id[category_id]) for slug, category_id in plan.category_rows}
    insert_link_rows(
        category_through,
        ("term", "category"),
        [(id_by_slug[slug], categories[key][0]) for slug, key in plan.wanted_categories - have],
    )
    for chunk in _chunks(plan.links_to_remove):
        related_through.objects.filter(id__in=chunk).delete()
    insert_link_rows(
        related_through,
        ("from_term", "to_term"),
        [(id_by_slug[a], id_by_slug[b]) for a, b in plan.links_to_add],
    )
    if len(written) >= ANALYZE_FROM:
        _analyze(Term, category_through, related_through)
    if written:
        say("Linkowanie pojęć w tekstach…")
        written_ids = [term.pk for term in written]
        afters = autolink.states_in_db(written_ids)
        relink_after_term_changes(
            {pk: (befores.get(pk), after) for pk, after in afters.items()}, also_terms=written_ids
        )
        say("Zapisywanie wersji…")
        _import_revision(written_ids)


def _analyze(*models) -> None:
    """PostgreSQL only: `ANALYZE` the tables of `models` inside the import's transaction.

    Why: the planner judges a table by the statistics of its last ANALYZE, taken before the
    import, and autovacuum cannot see rows that are not committed. The link states read back
    after the writes (`autolink.states_in_db`, 900 ids a statement, `published()` rows) got
    a generic plan (production's prepared statements) for the pre-import table: a bitmap
    scan of the (status, published_at) index that then filtered every published row by id,
    0.7 s a statement at 30,000 new terms, 2 s at 100,000, a quadratic import
    (bench/importing.py). ANALYZE sees the transaction's own
    rows, samples a fixed number of them (~2 s at 30,000 new terms), and rolls back with the
    import. Its lock (SHARE UPDATE EXCLUSIVE, until the import commits) blocks only other
    ANALYZEs and VACUUMs of those tables, not reads or writes."""
    if connection.vendor != "postgresql":
        return
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(quote(m._meta.db_table) for m in models))


def _import_revision(term_ids: list[int]) -> None:
    """One revision for an import: a Version per written term with its links, serialized in
    bulk in the format Django's JSON serializer writes (which `Version.field_dict` reads
    back). reversion's `add_to_revision` would build two M2M querysets per term inside the
    serializer: minutes for a 100,000-row file instead of seconds."""
    from django.contrib.contenttypes.models import ContentType
    from django.core.serializers.json import DjangoJSONEncoder
    from reversion.models import Revision, Version

    scalars = [name for name in TERM_REVISION_FIELDS if name not in ("categories", "related")]
    content_type = ContentType.objects.get_for_model(Term)
    revision = Revision.objects.create(comment="Import.", date_created=timezone.now())
    label = Term._meta.label_lower
    for chunk in _chunks(term_ids):
        categories: dict[int, list[int]] = defaultdict(list)
        for term_id, category_id in Term.categories.through.objects.filter(
            term_id__in=chunk
        ).values_list("term_id", "category_id"):
            categories[term_id].append(category_id)
        related: dict[int, list[int]] = defaultdict(list)
        for from_id, to_id in Term.related.through.objects.filter(
            from_term_id__in=chunk
        ).values_list("from_term_id", "to_term_id"):
            related[from_id].append(to_id)
        versions = []
        for term in Term.objects.filter(pk__in=chunk).order_by("id").only("id", *scalars):
            fields = {name: getattr(term, name) for name in scalars}
            fields["categories"] = sorted(categories[term.pk])
            fields["related"] = sorted(related[term.pk])
            data = [{"model": label, "pk": term.pk, "fields": fields}]
            versions.append(
                Version(
                    revision=revision,
                    content_type=content_type,
                    object_id=str(term.pk),
                    db=connection.alias,
                    format="json",
                    serialized_data=json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False),
                    object_repr=str(term),
                )
            )
        bulk_insert(Version, versions)


@transaction.atomic
def import_terms(
    rows: Iterable[SourceRow], *, dry_run: bool = False, progress: Progress | None = None
) -> ImportReport:
    """Upsert terms by slug from parsed file rows, all or nothing: check, plan, apply.

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
    parsed, db_terms = check_terms(rows)
    plan = plan_terms(parsed, db_terms, dry_run=dry_run)
    if dry_run:
        return plan.report
    apply_terms(plan, say)
    say(plan.report.summary())
    return plan.report


# --- export ---------------------------------------------------------------------------------
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


# --- articles -------------------------------------------------------------------------------
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
    title = check.required_text("title", "Tytuł", _TITLE_MAX, "Tytuł jest wymagany.")
    slug = check.slug(max_length=_ARTICLE_SLUG_MAX)
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
        check.error("series_order", SERIES_ORDER_REQUIRED, "series_order_required")
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
        save_article(article, terms=item["terms"], comment="Import.")
    return report
