"""Named writes that touch many rows at once (HackSoft style: selectors read, services write).

Each service is one `@transaction.atomic` function that saves row by row through
`Model.save()`, so derived columns, `updated_at` and `last_editor` can never go stale the
way they would behind a bare `QuerySet.update()`. The bulk import, which cannot afford that
for 100,000 rows, is its own module: glossary/importing.py.
"""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from .models import Status


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
