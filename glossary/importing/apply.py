"""Phase 3 of an import: the plan written in bulk, doing by hand what `save()` would do, then
the terms' auto-links and one revision; and `import_terms`, the three phases in one transaction."""

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context

from django.db import connection, transaction
from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from .. import autolink, events
from ..db.bulk import BATCH, bulk_insert, chunks, insert_link_rows, server_side_binding
from ..importexport import SourceRow
from ..models import TERM_REVISION_FIELDS, Category, Term
from ..services import relink_after_term_changes
from .check import check_terms
from .plan import _UPDATED_FIELDS, TermPlan, plan_terms
from .report import ImportReport, Progress, _report_progress

# From this many written terms on, the import refreshes PostgreSQL's statistics of the tables it
# grew before reading them back (`_analyze`).
ANALYZE_FROM = 2000

_DERIVED_INPUTS = (
    "name", "slug", "short_definition", "body", "synonyms", "status", "published_at",
    "english_name", "english_definition", "asked_as",
)  # fmt: skip
_DERIVED_OUTPUTS = ("slug", "synonyms", "asked_as", *Term.DERIVED_FIELDS)
# Below this many rows, starting worker processes costs more than it saves.
_PARALLEL_FROM = 2000
_PARALLEL_CHUNK = 250


def _derived_batches(terms: list[Term], say: Progress) -> Iterator[list[Term]]:
    """Yield `terms` in batches of `BATCH`, each after `Term.refresh_derived()` ran on it.

    Rendering Markdown is most of the cost of a large import (about half a millisecond per
    term), so big imports run `refresh_derived()` in forked worker processes, one per core,
    and copy the derived values back; the caller writes each batch while the workers go on
    with the next ones. Workers only compute: they never touch the database connection they
    inherit, which is what makes forking inside a transaction safe.
    """
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8)
    if len(terms) < _PARALLEL_FROM or workers < 2 or "fork" not in get_all_start_methods():
        for done, batch in enumerate(chunks(terms, BATCH), start=1):
            for term in batch:
                term.refresh_derived()
            _report_progress(say, done * BATCH, len(terms))
            yield batch
        return
    inputs = [tuple(getattr(term, name) for name in _DERIVED_INPUTS) for term in terms]
    with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
        results = pool.map(_derive, chunks(inputs, _PARALLEL_CHUNK))
        batch: list[Term] = []
        done = 0
        for chunk, derived in zip(chunks(terms, _PARALLEL_CHUNK), results, strict=True):
            for term, values in zip(chunk, derived, strict=True):
                for name, value in zip(_DERIVED_OUTPUTS, values, strict=True):
                    setattr(term, name, value)
            batch.extend(chunk)
            if len(batch) >= BATCH:
                yield batch
                batch = []
            done += len(chunk)
            _report_progress(say, done, len(terms))
        if batch:
            yield batch


def _derive(inputs: Sequence[tuple]) -> list[tuple]:
    """Worker side of `_derived_batches`: the model's own `refresh_derived()` on unsaved copies."""
    out = []
    for values in inputs:
        term = Term(**dict(zip(_DERIVED_INPUTS, values, strict=True)))
        term.refresh_derived()
        out.append(tuple(getattr(term, name) for name in _DERIVED_OUTPUTS))
    return out


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
        created = Category.objects.bulk_create(plan.new_categories.values(), batch_size=BATCH)
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
    for chunk in chunks(holders):
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
    for chunk in chunks(missing):  # backends that cannot return ids from a bulk insert
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
    for chunk in chunks(stale):
        category_through.objects.filter(id__in=chunk).delete()
    have = {(slug, by_id[category_id]) for slug, category_id in plan.category_rows}
    insert_link_rows(
        category_through,
        ("term", "category"),
        [(id_by_slug[slug], categories[key][0]) for slug, key in plan.wanted_categories - have],
    )
    for chunk in chunks(plan.links_to_remove):
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
    for chunk in chunks(term_ids):
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
