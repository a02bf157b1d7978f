"""Phase 2 of an import: what the database holds for the listed terms against what the file
wants (terms to create and update, categories to create, links to add and remove)."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q

from ..db.bulk import chunks
from ..models import Category, Term
from ..polish import polish_slugify
from .check import _TermRow
from .report import ImportReport

_SCALARS = ("name", "short_definition", "body", "synonyms", "status")
# The columns a file may leave out (`_TermRow`: None), which a listed term then keeps.
_OPTIONAL = ("english_name", "english_definition", "asked_as")
# What an update compares and what refresh_derived() reads: derived columns stay unloaded.
_COMPARED = ("id", "slug", *_SCALARS, "published_at", *_OPTIONAL)
_UPDATED_FIELDS = (*_SCALARS, *_OPTIONAL, *Term.DERIVED_FIELDS, "updated_at")


def _wanted(row: _TermRow) -> dict:
    """The values the file sets for a row: every scalar, and the optional columns it has."""
    values = {key: getattr(row, key) for key in _SCALARS}
    values.update((key, value) for key in _OPTIONAL if (value := getattr(row, key)) is not None)
    return values


def _unique_slug(name: str, taken: set[str]) -> str:
    base = polish_slugify(name)[:90]
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


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
    for chunk in chunks(existing_ids):
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
        wanted = _wanted(row)
        if term is None:
            to_create.append(Term(slug=row.slug, **wanted))
            continue
        same = (
            all(getattr(term, key) == value for key, value in wanted.items())
            and current_categories[row.slug] == {name.lower() for name in row.categories}
            and current_links[row.slug] == links_of[row.slug]
        )
        if same:
            report.unchanged += 1
            continue
        for key, value in wanted.items():
            setattr(term, key, value)
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
